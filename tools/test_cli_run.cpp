// test_cli_run.cpp: `forkscale-report run` on programs built without forkscale
// (tests/run/): a plain OpenMP C program (clang -O2 -g -fopenmp) whose report
// must count its explicit tasks exactly at each task's line, a tree of
// std::threads (30 spawns, parallelism between 8 and 17 under the thread CPU
// clock), a program built with forkscale (measured once), exit statuses and
// signals passed through, and the bad inputs that get one line and status 2.
// Every expected figure is counted here by hand, never taken from a report.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <forkscale/forkscale.hpp>
#include <forkscale/read_report.hpp>

namespace fs = forkscale;
namespace stdfs = std::filesystem;

extern char** environ;

namespace {

struct outcome {
  int status = -1;  // the exit status, or -1
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

stdfs::path scratch(const std::string& name) {
  const stdfs::path p = stdfs::path(FORKSCALE_TEST_TMP) / "run" / name;
  stdfs::remove_all(p);
  stdfs::create_directories(p);
  return p;
}

// Runs the program argv[0] with the rest of `argv`, stdout and stderr to files,
// `extra` added to the environment (without forkscale's and OpenMP's own
// variables and LD_PRELOAD).
outcome run_program(std::vector<std::string> argv, const std::string& name, const std::vector<std::string>& extra) {
  const stdfs::path dir = scratch(name + "-io");
  const std::string out = (dir / "stdout").string(), err = (dir / "stderr").string();
  std::vector<char*> a, e;
  for (auto& s : argv) a.push_back(&s[0]);
  a.push_back(nullptr);
  std::vector<std::string> env;
  for (char** p = environ; *p; ++p) {
    const std::string v = *p;
    if (v.rfind("FORKSCALE_", 0) != 0 && v.rfind("OMP_", 0) != 0 && v.rfind("LD_PRELOAD=", 0) != 0) env.push_back(v);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  for (auto& s : env) e.push_back(&s[0]);
  e.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  outcome o;
  if (posix_spawn(&pid, a[0], &fa, nullptr, a.data(), e.data()) == 0) {
    int st = 0;
    ::waitpid(pid, &st, 0);
    if (WIFEXITED(st)) o.status = WEXITSTATUS(st);
  }
  posix_spawn_file_actions_destroy(&fa);
  o.out = slurp(out);
  o.err = slurp(err);
  return o;
}

// Runs forkscale-report with `args`.
outcome run_tool(const std::vector<std::string>& args, const std::string& name,
                 const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv{FORKSCALE_REPORT_EXE};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv, name, extra);
}

std::size_t count_lines(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(needle) != std::string::npos) ++n;
  return n;
}

std::size_t line_count(const std::string& text) {
  std::size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

// The line of tests/run/omp_tasks.c that carries `marker`.
unsigned marker_line(const std::string& marker) {
  std::ifstream in(FORKSCALE_RUN_OMP_SOURCE);
  unsigned n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.find(marker) != std::string::npos) return n;
  }
  return 0;
}

const fs::spawn_site_profile* row_at(const fs::report& rep, const std::string& file_end, unsigned line) {
  for (const auto& s : rep.spawn_sites)
    if (s.line == line && s.file.size() >= file_end.size() &&
        s.file.compare(s.file.size() - file_end.size(), file_end.size(), file_end) == 0)
      return &s;
  return nullptr;
}

// fib's tasks: two per call with n >= 2.
std::uint64_t fib_tasks(int n) { return n < 2 ? 0 : 2 + fib_tasks(n - 1) + fib_tasks(n - 2); }
long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

}  // namespace

#ifdef FORKSCALE_RUN_OMP_PROGRAM
TEST(Run, OpenMPProgramTasksCountedAtTheirLines) {
  const stdfs::path dir = scratch("omp");
  const outcome o =
      run_tool({"run", "--out", dir.string(), "--", FORKSCALE_RUN_OMP_PROGRAM, "12"}, "omp", {"OMP_NUM_THREADS=2"});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "fib(12) = " + std::to_string(fib(12)) + "\nsum = 2016\n");  // its own output, unchanged
  const fs::report rep = fs::read_report((dir / "report.json").string());
  EXPECT_EQ(rep.diagnostic_count, 0u) << o.err;
  const unsigned first = marker_line("task:fib-first"), second = marker_line("task:fib-second"),
                 loop = marker_line("task:taskloop");
  ASSERT_TRUE(first && second && loop);
  for (unsigned line : {first, second}) {
    const fs::spawn_site_profile* row = row_at(rep, "omp_tasks.c", line);
    ASSERT_NE(row, nullptr) << "no spawn-site row at omp_tasks.c:" << line << "\n" << o.err;
    EXPECT_EQ(row->tasks, fib_tasks(12) / 2) << "omp_tasks.c:" << line;
  }
  const fs::spawn_site_profile* row = row_at(rep, "omp_tasks.c", loop);
  ASSERT_NE(row, nullptr) << "no spawn-site row at omp_tasks.c:" << loop << "\n" << o.err;
  EXPECT_EQ(row->tasks, 8u);  // num_tasks(8)
  EXPECT_TRUE(stdfs::exists(dir / "report.csv"));
  EXPECT_TRUE(stdfs::exists(dir / "report.html"));
  EXPECT_EQ(count_lines(o.err, "Work:"), 1u) << o.err;  // the text report, on stderr
}
#endif

#ifdef FORKSCALE_RUN_README_FIB
namespace {
// The README's fib: two tasks per call from 10 up, serial below.
std::uint64_t readme_fib_tasks(int n) { return n < 10 ? 0 : 2 + readme_fib_tasks(n - 1) + readme_fib_tasks(n - 2); }
unsigned line_of(const std::string& path, const std::string& text) {
  std::ifstream in(path);
  unsigned n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.find(text) != std::string::npos) return n;
  }
  return 0;
}
}  // namespace

TEST(Run, ReadmeFib) {
  const stdfs::path dir = scratch("readme-fib");
  const outcome o = run_tool({"run", "--out", dir.string(), "--", FORKSCALE_RUN_README_FIB, "20"}, "readme-fib",
                             {"OMP_NUM_THREADS=2"});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "fib(20) = " + std::to_string(fib(20)) + "\n");
  const fs::report rep = fs::read_report((dir / "report.json").string());
  const std::string source = std::string(FORKSCALE_RUN_README_FIB) + ".c";
  for (const char* task : {"#pragma omp task shared(x)", "#pragma omp task shared(y)"}) {
    const unsigned line = line_of(source, task);
    ASSERT_NE(line, 0u) << task;
    const fs::spawn_site_profile* row = row_at(rep, "fib.c", line);
    ASSERT_NE(row, nullptr) << "no spawn-site row at fib.c:" << line << "\n" << o.err;
    EXPECT_EQ(row->tasks, readme_fib_tasks(20) / 2);
  }
}
#endif

namespace {
std::uint64_t spin(std::uint64_t steps, std::uint64_t seed) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull;
  for (std::uint64_t i = 0; i < steps; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}
std::uint64_t tree_checksum(int depth, std::uint64_t steps, std::uint64_t seed) {
  return depth == 0 ? spin(steps, seed)
                    : tree_checksum(depth - 1, steps, 2 * seed) + tree_checksum(depth - 1, steps, 2 * seed + 1);
}
}  // namespace

TEST(Run, ThreadTree) {
  const stdfs::path dir = scratch("tree");
  const std::uint64_t steps = 20000000;  // about 25 ms of CPU per leaf
  const outcome o = run_tool(
      {"run", "--clock", "thread_cpu", "--out", dir.string(), "--", FORKSCALE_RUN_TREE_PROGRAM, std::to_string(steps)},
      "tree");
  ASSERT_EQ(o.status, 0) << o.err;
  char expected[64];
  std::snprintf(expected, sizeof expected, "checksum %016llx\n",
                static_cast<unsigned long long>(tree_checksum(4, steps, 1)));
  EXPECT_EQ(o.out, expected);
  const fs::report rep = fs::read_report((dir / "report.json").string());
  EXPECT_EQ(rep.clock, fs::clock_kind::thread_cpu);
  EXPECT_EQ(rep.root().spawns, 30u);  // 2 + 4 + 8 + 16 threads
  EXPECT_EQ(rep.root().syncs, 30u);   // each joined
  // 16 leaves of the same CPU work give about 16 on a quiet machine; a leaf
  // that shares its core with a busy process reads more CPU time (this was 4.0
  // under a parallel test run on a 2-core host). Threads measured one after
  // another, not side by side, would give 1.
  EXPECT_GE(rep.root().parallelism(), 2.0) << o.err;
  EXPECT_LE(rep.root().parallelism(), 17.0) << o.err;
  EXPECT_EQ(rep.diagnostic_count, 0u) << o.err;
}

TEST(Run, LocksUnjoinedThreadsAndConditionWaits) {
  const stdfs::path dir = scratch("misc");
  const outcome o = run_tool({"run", "--out", dir.string(), "--", FORKSCALE_RUN_MISC_PROGRAM}, "misc");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "counter 2000\n");
  const fs::report rep = fs::read_report((dir / "report.json").string());
  EXPECT_EQ(rep.root().spawns, 4u);  // a, b, left, worker
  EXPECT_EQ(rep.root().syncs, 4u);   // three joins, and left merged at the end
  const std::string source = std::string(FORKSCALE_RUN_OMP_SOURCE);
  std::ifstream in(source.substr(0, source.rfind('/')) + "/threads_misc.cpp");
  unsigned n = 0, line = 0;
  for (std::string text; std::getline(in, text);)
    if (++n && text.find("lock:add") != std::string::npos) line = n;
  std::uint64_t acquisitions = 0, all = 0;
  for (const auto& l : rep.locks) {
    if (l.line == line) acquisitions += l.acquisitions;
    all += l.acquisitions;
  }
#if defined(__clang__)
  // Built with clang, std::mutex::lock inlined from libstdc++ is named by the
  // header's line (docs/threads.md, "Sites"): every acquisition is counted,
  // the program's line is not found.
  EXPECT_GE(all, 2000u) << o.err;
  EXPECT_LE(acquisitions, all);
#else
  EXPECT_EQ(acquisitions, 2000u) << o.err;  // each of add()'s, named by its line
  EXPECT_GE(all, acquisitions);
#endif
  std::size_t never_joined = 0, waits = 0;
  for (const auto& d : rep.diagnostics) {
    never_joined += d.problem.find("1 thread(s) were never joined") != std::string::npos;
    waits += d.problem.find("1 thread(s) waited on condition variables") != std::string::npos;
  }
  EXPECT_EQ(never_joined, 1u) << o.err;
  EXPECT_EQ(waits, 1u) << o.err;
  EXPECT_EQ(rep.diagnostic_count, 2u) << o.err;
}

TEST(Run, ProgramBuiltWithForkscaleIsMeasuredOnce) {
  const outcome o = run_tool({"run", "--threads", "--", FORKSCALE_RUN_SELF_PROGRAM}, "self");
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "spawns 1 work 8\n");  // its own measurement: one annotated spawn, 5 + 3 units
  EXPECT_EQ(count_lines(o.err, "steps aside"), 1u) << o.err;
  EXPECT_EQ(count_lines(o.err, "Work:"), 0u) << o.err;  // no second report
}

#ifdef FORKSCALE_RUN_OMP_SELF
TEST(Run, OpenMPProgramWithItsOwnToolIsMeasuredOnce) {
  const stdfs::path dir = scratch("omp-self");
  const outcome o = run_tool({"run", "--out", dir.string(), "--", FORKSCALE_RUN_OMP_SELF}, "omp-self");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "tasks 10\n");
  EXPECT_EQ(count_lines(o.err, "steps aside"), 1u) << o.err;
  const fs::report rep = fs::read_report((dir / "report.json").string());  // written by the program's own tool
  const std::string source = std::string(FORKSCALE_RUN_OMP_SOURCE);
  const std::string self_source = source.substr(0, source.rfind('/')) + "/omp_self.cpp";
  std::ifstream in(self_source);
  unsigned n = 0, line = 0;
  for (std::string text; std::getline(in, text);)
    if (++n && text.find("task:self") != std::string::npos) line = n;
  const fs::spawn_site_profile* row = row_at(rep, "omp_self.cpp", line);
  ASSERT_NE(row, nullptr) << o.err;
  EXPECT_EQ(row->tasks, 10u);  // once, not twice
  EXPECT_EQ(count_lines(o.err, "Work:"), 1u) << o.err;
}
#endif

TEST(Run, ExitStatusPassesThroughWithTheReport) {
  const stdfs::path dir = scratch("exit3");
  const outcome o = run_tool({"run", "--out", dir.string(), "--", FORKSCALE_RUN_EXIT_PROGRAM, "3"}, "exit3");
  EXPECT_EQ(o.status, 3) << o.err;
  EXPECT_EQ(o.out, "ran 3\n");
  const fs::report rep = fs::read_report((dir / "report.json").string());
  EXPECT_EQ(rep.root().spawns, 2u);
}

TEST(Run, SignalPassesThrough) {
  const outcome o = run_tool({"run", "--", FORKSCALE_RUN_EXIT_PROGRAM, "abort"}, "abort");
  EXPECT_EQ(o.status, 128 + SIGABRT) << o.err;
  EXPECT_EQ(o.out, "ran 3\n");
  EXPECT_EQ(count_lines(o.err, "was ended by signal 6"), 1u) << o.err;
}

namespace {
void expect_one_line_and_2(const outcome& o, const std::string& what) {
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(line_count(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find(what), std::string::npos) << o.err;
  EXPECT_EQ(o.out, "");
}
}  // namespace

// libforkscale_threads.so preloaded by hand: FORKSCALE_REPORT's extension in
// any case names the format (.htm is .html), as for a session's snapshots; a
// path that names none gets the line a session gives, then the report on
// stderr.
TEST(Run, ThreadsLibraryReportFollowsTheOneExtensionRule) {
  const stdfs::path dir = scratch("threads-ext");
  const std::vector<std::string> tree{FORKSCALE_RUN_TREE_PROGRAM, "1000"};
  const std::string preload = std::string("LD_PRELOAD=") + FORKSCALE_THREADS_LIBRARY;
  for (const char* name : {"r.JSON", "r.Htm"}) {
    const std::string path = (dir / name).string();
    const outcome o = run_program(tree, "threads-ext", {preload, "FORKSCALE_REPORT=" + path});
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(count_lines(o.err, "report path"), 0u) << o.err;
    EXPECT_EQ(count_lines(o.err, "Work:"), 0u) << o.err;  // written, not shown
  }
  EXPECT_EQ(fs::read_report((dir / "r.JSON").string()).root().spawns, 30u);
  EXPECT_NE(slurp((dir / "r.Htm").string()).find("<html"), std::string::npos);

  std::string refused = "no error";
  try {
    fs::snapshot_options snap;
    snap.path = (dir / "r.doc").string();
    fs::session s("x", fs::options{}, snap);
  } catch (const fs::error& e) {
    refused = e.what();
  }
  const outcome o = run_program(tree, "threads-ext", {preload, "FORKSCALE_REPORT=" + (dir / "r.doc").string()});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(count_lines(o.err, refused), 1u) << refused << "\n" << o.err;
  EXPECT_EQ(count_lines(o.err, "Work:"), 1u) << o.err;  // the report, not lost
  EXPECT_FALSE(stdfs::exists(dir / "r.doc"));
}

TEST(Run, BadInputs) {
  const stdfs::path dir = scratch("bad");
  expect_one_line_and_2(run_tool({"run", "--", (dir / "no-such-program").string()}, "missing"), "no such program");
  const stdfs::path plain = dir / "not-executable";
  std::ofstream(plain) << "#!/bin/sh\necho hello\n";
  ::chmod(plain.c_str(), 0644);
  expect_one_line_and_2(run_tool({"run", "--", plain.string()}, "noexec"), "not executable");
  const stdfs::path text = dir / "text";
  std::ofstream(text) << "hello\n";
  ::chmod(text.c_str(), 0755);
  expect_one_line_and_2(run_tool({"run", "--", text.string()}, "text"), "neither an ELF executable");
  expect_one_line_and_2(run_tool({"run", "--clock", "sundial", "--", FORKSCALE_RUN_EXIT_PROGRAM}, "clock"),
                        "unknown clock 'sundial'");
  expect_one_line_and_2(run_tool({"run", "--threads"}, "noprog"), "no program given");
#ifdef FORKSCALE_RUN_STATIC_PROGRAM
  expect_one_line_and_2(run_tool({"run", "--", FORKSCALE_RUN_STATIC_PROGRAM}, "static"), "statically linked");
#else
  GTEST_SKIP() << "no static C++ runtime (libstdc++.a): the statically linked case is not built";
#endif
}
