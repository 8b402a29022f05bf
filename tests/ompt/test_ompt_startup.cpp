// OMPT mode at start-up and at exit: the whole-program
// mode (FORKSCALE_OMPT=1, FORKSCALE_REPORT=path, the format from the extension)
// and the one-line messages when the tool is off — the runtime told not to
// start a tool (OMP_TOOL=disabled), a callback refused, nested parallelism off.
// In each case the program must run unchanged. Each case runs this executable
// again as a child process (`--child <mode>`) in the environment under test.
#include <forkscale/detail/ompt/tool.hpp>  // the refusal case calls the tool's initializer
#include <forkscale/ompt.hpp>
#include <forkscale/read_report.hpp>
#include <forkscale/session.hpp>

#include <gtest/gtest.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = forkscale;

namespace {

// The child's program: a region whose single block runs a small task tree. Under
// the cost clock: work 2 + 3 + 4 + 5 = 14, span 2 + max(3, 4) + 5 = 11.
long child_program() {
  long sum = 0;
#pragma omp parallel num_threads(3) shared(sum)
#pragma omp single
  {
    fs::charge(2);
    long a = 0, b = 0;
#pragma omp task shared(a)
    {
      fs::charge(3);
      a = 20;
    }
#pragma omp task shared(b)
    {
      fs::charge(4);
      b = 22;
    }
#pragma omp taskwait
    fs::charge(5);
    sum = a + b;
  }
  return sum;
}

constexpr unsigned nested_inner_line = __LINE__ + 5;
void child_nested() {
  int n = 0;
#pragma omp parallel num_threads(2) reduction(+ : n)
  {
#pragma omp parallel num_threads(2) reduction(+ : n)
    n += 1;
  }
  std::printf("result=%d\n", n);
}

// A runtime that refuses ompt_callback_parallel_begin.
ompt_set_result_t refusing_set_callback(ompt_callbacks_t event, ompt_callback_t) {
  return event == ompt_callback_parallel_begin ? ompt_set_never : ompt_set_always;
}
ompt_interface_fn_t refusing_lookup(const char* name) {
  if (std::strcmp(name, "ompt_set_callback") == 0) return reinterpret_cast<ompt_interface_fn_t>(&refusing_set_callback);
  return nullptr;
}

int child(const std::string& mode) {
  if (mode == "program") {
    std::printf("result=%ld\n", child_program());
  } else if (mode == "nested") {
    child_nested();
  } else if (mode == "empty") {
#pragma omp parallel
    {}
  } else if (mode == "dormant") {
    // The callbacks are registered by the first measurement, not before: the
    // OpenMP code run before it is not seen, and the measurement sees its own.
    const fs::detail::ompt::tool_status& st = fs::detail::ompt::status();
    const bool before = st.callbacks_live.load();
    const long unmeasured = child_program();
    const bool after_unmeasured = st.callbacks_live.load();
    fs::options o;
    o.clock = fs::clock_kind::cost;
    long measured = 0;
    const fs::report rep = fs::measure(
        "program", [&] { measured = child_program(); }, o);
    std::printf("active=%d live=%d%d%d work=%llu span=%llu spawns=%llu diagnostics=%llu result=%ld\n",
                fs::ompt::active() ? 1 : 0, before ? 1 : 0, after_unmeasured ? 1 : 0, st.callbacks_live.load() ? 1 : 0,
                static_cast<unsigned long long>(rep.work()), static_cast<unsigned long long>(rep.span()),
                static_cast<unsigned long long>(rep.spawns()), static_cast<unsigned long long>(rep.diagnostic_count),
                unmeasured + measured);
  } else if (mode == "refuse") {
    const int accepted = fs::detail::ompt::tool<fs::default_clock>::initialize(&refusing_lookup, 0, nullptr);
    std::printf("accepted=%d active=%d result=%ld\n", accepted, fs::ompt::active() ? 1 : 0, child_program());
  } else {
    return 2;
  }
  return 0;
}

struct outcome {
  int status = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string self() {
  char path[4096];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string();
}

std::string scratch(const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/forkscale_ompt_" + std::to_string(::getpid()) + "_" + name;
}

// Runs `--child mode` with `env` ("A=1 B=2") added to the environment.
outcome run_child(const std::string& env, const std::string& mode) {
  const std::string out = scratch("out.txt"), err = scratch("err.txt");
  const std::string cmd = "env " + env + " '" + self() + "' --child " + mode + " > '" + out + "' 2> '" + err + "'";
  outcome o;
  const int rc = std::system(cmd.c_str());
  o.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  o.out = slurp(out);
  o.err = slurp(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return o;
}

int lines_starting(const std::string& text, const std::string& prefix) {
  int n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.compare(0, prefix.size(), prefix) == 0 ? 1 : 0;
  return n;
}

const char* quiet = "OMP_TOOL=enabled FORKSCALE_OMPT= FORKSCALE_REPORT= FORKSCALE_OMPT_CLOCK=";

TEST(OmptStartup, OnByDefaultAndSilent) {
  const outcome o = run_child(std::string(quiet), "program");
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("result=42"), std::string::npos) << o.out;
  EXPECT_EQ(lines_starting(o.err, "forkscale:"), 0) << o.err;
}

// With FORKSCALE_OMPT unset the tool listens to nothing until a measurement
// starts (the cost of a linked tool that measures nothing), then measures
// exactly: work 14, span 11, its two tasks and two phases of three implicit tasks.
TEST(OmptStartup, CallbacksAreRegisteredByTheFirstMeasurement) {
  const outcome o = run_child(std::string(quiet), "dormant");
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("active=1 live=001 work=14 span=11 spawns=8 diagnostics=0 result=84"), std::string::npos)
      << o.out;
  EXPECT_EQ(lines_starting(o.err, "forkscale:"), 0) << o.err;
  // FORKSCALE_OMPT=1: registered from the start.
  const outcome w = run_child(
      std::string(quiet) + " FORKSCALE_OMPT=1 FORKSCALE_OMPT_CLOCK=cost FORKSCALE_REPORT=" + scratch("dormant.json"),
      "dormant");
  std::remove(scratch("dormant.json").c_str());
  EXPECT_EQ(w.status, 0);
  EXPECT_NE(w.out.find("active=1 live=111 "), std::string::npos) << w.out;
}

TEST(OmptStartup, OmpToolDisabledIsOneLineAndTheProgramRuns) {
  const outcome o = run_child(std::string(quiet) + " OMP_TOOL=disabled", "program");
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("result=42"), std::string::npos) << o.out;
  EXPECT_EQ(lines_starting(o.err, "forkscale: OMPT mode is off: OMP_TOOL=disabled"), 1) << o.err;
  EXPECT_EQ(lines_starting(o.err, "forkscale:"), 1) << o.err;
}

TEST(OmptStartup, ForkscaleOmptZeroIsSilent) {
  const outcome o = run_child(std::string(quiet) + " FORKSCALE_OMPT=0", "program");
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("result=42"), std::string::npos) << o.out;
  EXPECT_EQ(lines_starting(o.err, "forkscale:"), 0) << o.err;
}

TEST(OmptStartup, ARefusedCallbackIsOneLine) {
  // The real tool is off (FORKSCALE_OMPT=0): the child hands the tool's
  // initializer a runtime that refuses one callback it needs.
  const outcome o = run_child(std::string(quiet) + " FORKSCALE_OMPT=0", "refuse");
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("accepted=0 active=0 result=42"), std::string::npos) << o.out;
  EXPECT_EQ(lines_starting(o.err,
                           "forkscale: OMPT mode is off: the runtime refused the callback "
                           "ompt_callback_parallel_begin"),
            1)
      << o.err;
  EXPECT_EQ(lines_starting(o.err, "forkscale:"), 1) << o.err;
}

TEST(OmptStartup, NestedParallelismOffIsOneLine) {
  const outcome off = run_child(std::string(quiet) + " OMP_MAX_ACTIVE_LEVELS=1 FORKSCALE_OMPT=1", "nested");
  EXPECT_EQ(off.status, 0);
  EXPECT_NE(off.out.find("result=2"), std::string::npos) << off.out;  // one thread per inner region
  EXPECT_EQ(lines_starting(off.err, "forkscale: nested parallel region at "), 1) << off.err;
  // Named by the inner region's own line (issue 30: it read libomp.so.5+0x…:0,
  // the inner `parallel` being the outer body's last statement, a tail call).
  EXPECT_EQ(lines_starting(off.err, "forkscale: nested parallel region at test_ompt_startup.cpp:" +
                                        std::to_string(nested_inner_line) + " "),
            1)
      << off.err;
  const outcome on = run_child(std::string(quiet) + " OMP_MAX_ACTIVE_LEVELS=2 FORKSCALE_OMPT=1", "nested");
  EXPECT_EQ(on.status, 0);
  EXPECT_NE(on.out.find("result=4"), std::string::npos) << on.out;
  EXPECT_EQ(lines_starting(on.err, "forkscale: nested parallel region at "), 0) << on.err;
}

TEST(OmptStartup, TheWholeProgramModeWritesJson) {
  const std::string path = scratch("report.json");
  const outcome o =
      run_child(std::string(quiet) + " FORKSCALE_OMPT=1 FORKSCALE_OMPT_CLOCK=cost FORKSCALE_REPORT=" + path, "program");
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("result=42"), std::string::npos) << o.out;
  EXPECT_EQ(lines_starting(o.err, "forkscale: report written to " + path), 1) << o.err;
  const fs::report rep = fs::read_report(path);
  std::remove(path.c_str());
  EXPECT_EQ(rep.work(), 14u);
  EXPECT_EQ(rep.span(), 11u);
  EXPECT_EQ(rep.diagnostic_count, 0u);
  // Its two tasks and one taskwait, and two phases of three implicit tasks (the
  // single's barrier, the region's end); the profile's self-checks hold.
  EXPECT_EQ(rep.spawns(), 2u + 2 * 3);
  EXPECT_EQ(rep.syncs(), 1u + 2);
  EXPECT_EQ(rep.check_profile(), "");
  for (const auto& row : rep.spawn_sites)
    if (row.kind != fs::site_kind::root) EXPECT_NE(row.line, 0u) << row.name;
}

// The whole-program measurement holds the program, not the tool's or the
// runtime's start-up and shutdown. An addr2line that answers but lingers for
// 5 s once its input closes (as the real one does while it still reads a large
// program's DWARF) kept the exiting program waiting, under the steady clock
// inside the root strand: an empty program's work was above 5 s. It is told to
// stop now, and the root strand ends when the program's exit begins; the bound
// is far above an empty program's work and far below the linger.
TEST(OmptStartup, TheWholeProgramLeavesTheToolsShutdownOut) {
  const std::string dir = scratch("bin");
  const std::string fake = dir + "/addr2line";
  ASSERT_EQ(std::system(("mkdir -p '" + dir + "'").c_str()), 0);
  {
    std::ofstream f(fake);
    f << "#!/bin/sh\nwhile read a; do echo '?\?'; echo '?\?:0'; done\nexec sleep 5\n";
  }
  ASSERT_EQ(::chmod(fake.c_str(), 0755), 0);
  const std::string path = scratch("empty.json");
  const char* sys_path = std::getenv("PATH");
  const outcome o = run_child(std::string(quiet) + " PATH='" + dir + ":" + (sys_path ? sys_path : "/usr/bin:/bin") +
                                  "' FORKSCALE_OMPT=1 FORKSCALE_OMPT_CLOCK=steady FORKSCALE_REPORT=" + path,
                              "empty");
  std::remove(fake.c_str());
  ::rmdir(dir.c_str());
  EXPECT_EQ(o.status, 0) << o.err;
  const fs::report rep = fs::read_report(path);
  std::remove(path.c_str());
  EXPECT_LT(rep.work(), 2500000000u) << "an empty program's work, in ns";
  EXPECT_EQ(rep.spawns(), static_cast<std::uint64_t>(omp_get_max_threads()));
}

TEST(OmptStartup, TheFormatComesFromTheExtension) {
  struct format {
    const char* ext;
    const char* marker;
  };
  // The extension in any case, .htm as .html (detail/output/report_format.hpp).
  for (const format f : {format{".csv", "work"}, format{".txt", "Parallelism Profile"}, format{".html", "<html"},
                         format{".JSON", "\"work\""}, format{".Htm", "<html"}, format{".TxT", "Parallelism Profile"}}) {
    const std::string path = scratch(std::string("report") + f.ext);
    const outcome o = run_child(
        std::string(quiet) + " FORKSCALE_OMPT=1 FORKSCALE_OMPT_CLOCK=cost FORKSCALE_REPORT=" + path, "program");
    EXPECT_EQ(o.status, 0) << f.ext;
    EXPECT_NE(slurp(path).find(f.marker), std::string::npos) << f.ext;
    std::remove(path.c_str());
  }
  const outcome o =
      run_child(std::string(quiet) + " FORKSCALE_OMPT=1 FORKSCALE_OMPT_CLOCK=cost FORKSCALE_REPORT=x.doc", "program");
  EXPECT_EQ(o.status, 0);
  // The line a session gives for the same path, once; then the report, not lost.
  std::string refused = "no error";
  try {
    fs::snapshot_options snap;
    snap.path = "x.doc";
    fs::session s("x", fs::options{}, snap);
  } catch (const fs::error& e) {
    refused = e.what();
  }
  EXPECT_EQ(lines_starting(o.err, refused), 1) << refused << "\n" << o.err;
  const std::size_t said = o.err.find(refused + "\n");
  EXPECT_NE(o.err.find("Parallelism Profile", said == std::string::npos ? o.err.size() : said), std::string::npos)
      << o.err;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--child") == 0) return child(argv[2]);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
