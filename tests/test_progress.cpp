// Progress of long work (fs::advise, fs::run_study): one line on stderr,
// rewritten with '\r', shown when asked (show_progress = on, or
// FORKSCALE_PROGRESS=1), never when asked not to (off, or FORKSCALE_PROGRESS=0),
// and by default only on a terminal.
//
// Each test sends stderr (file descriptor 2) to a file while the work runs, so
// stderr is never a terminal here: "automatic" must then write nothing. Nothing
// depends on timing.
#include <forkscale/forkscale.hpp>
#include <forkscale/study/study.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>

#if !defined(_WIN32)
#include <fcntl.h>
#include <unistd.h>
#endif

namespace fs = forkscale;
namespace stdfs = std::filesystem;

namespace {

#if !defined(_WIN32)

// What `work` wrote to file descriptor 2, which goes to a file meanwhile.
std::string stderr_of(const std::function<void()>& work) {
  const stdfs::path file =
      stdfs::temp_directory_path() / ("forkscale_progress_" + std::to_string(std::random_device{}()) + ".txt");
  std::fflush(stderr);
  const int saved = ::dup(2);
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (saved < 0 || fd < 0) {
    ADD_FAILURE() << "cannot redirect stderr";
    return "";
  }
  ::dup2(fd, 2);
  ::close(fd);
  work();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::ifstream in(file, std::ios::binary);
  const std::string out{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::error_code ec;
  stdfs::remove(file, ec);
  return out;
}

// FORKSCALE_PROGRESS as a test wants it, restored afterwards.
class ProgressEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* v = std::getenv("FORKSCALE_PROGRESS")) saved_ = v, had_ = true;
    ::unsetenv("FORKSCALE_PROGRESS");
  }
  void TearDown() override {
    if (had_)
      ::setenv("FORKSCALE_PROGRESS", saved_.c_str(), 1);
    else
      ::unsetenv("FORKSCALE_PROGRESS");
  }
  static void set_env(const char* v) { ::setenv("FORKSCALE_PROGRESS", v, 1); }

  std::string saved_;
  bool had_ = false;
};

// A workload with a serial step on the critical path: the advisor chooses
// "prepare", then runs again.
void halves(unsigned depth) {
  {
    fs::call_site cs(fs::site::tagged("prepare"));
    fs::charge(100);
  }
  if (depth == 0) return;
  fs::spawn([depth] { halves(depth - 1); })();
  {
    fs::call_site cs;
    halves(depth - 1);
  }
  fs::sync_point sp;
}

std::string advisor_stderr(fs::progress_mode mode) {
  fs::advisor_options ao;
  ao.measure.clock = fs::clock_kind::cost;
  ao.target_parallelism = 1e9;  // never reached: every step runs
  ao.max_steps = 2;
  ao.show_progress = mode;
  return stderr_of([&] {
    const fs::advice a = fs::advise(
        "halves", [] { halves(4); }, ao);
    EXPECT_GE(a.runs, 2u);
  });
}

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

TEST_F(ProgressEnv, AdvisorShowsOneLineRewrittenInPlaceWhenOn) {
  const std::string err = advisor_stderr(fs::progress_mode::on);
  EXPECT_NE(err.find("\rforkscale: advisor 'halves': run 1 of at most 3: the workload as it is"), std::string::npos)
      << err;
  EXPECT_NE(err.find("\rforkscale: advisor 'halves': run 2 of at most 3: prepare assumed 16x faster"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << "one line, rewritten in place: " << err;
  // The line is erased at the end: blanks, then the cursor back at the start.
  ASSERT_GE(err.size(), 2u);
  EXPECT_EQ(err.back(), '\r') << err;
  EXPECT_EQ(err[err.size() - 2], ' ') << err;
}

TEST_F(ProgressEnv, AdvisorIsQuietOnAFileUnlessAsked) {
  EXPECT_EQ(advisor_stderr(fs::progress_mode::automatic), "");  // stderr is a file, not a terminal
  EXPECT_EQ(advisor_stderr(fs::progress_mode::off), "");
  set_env("1");
  EXPECT_NE(advisor_stderr(fs::progress_mode::automatic).find("advisor 'halves': run 1"), std::string::npos);
  EXPECT_EQ(advisor_stderr(fs::progress_mode::off), "");  // off wins over the environment
  set_env("0");
  EXPECT_EQ(advisor_stderr(fs::progress_mode::on), "");  // and FORKSCALE_PROGRESS=0 over on
}

std::string study_stderr(fs::progress_mode mode, std::vector<std::string>* hook = nullptr) {
  fs::study_workload w;
  w.baseline = [] {};
  w.parallel = [](unsigned) {
    fs::spawn([] {})();
    fs::sync_point sp;
  };
  fs::study_options o;
  o.processors = {1, 2};
  o.hardware_threads = 2;
  o.repetitions = 2;
  o.warmup = 1;
  o.bandwidth_probe = false;
  o.measure.clock = fs::clock_kind::steady;
  o.show_progress = mode;
  if (hook) o.progress = [hook](const std::string& line) { hook->push_back(line); };
  return stderr_of([&] { (void)fs::run_study("tiny", w, o); });
}

TEST_F(ProgressEnv, StudyShowsOneLineRewrittenInPlaceWhenOn) {
  std::vector<std::string> hook;
  const std::string err = study_stderr(fs::progress_mode::on, &hook);
  for (const char* step : {"warm-up 1 of 1", "warm-up 1 of 1, P = 2", "round 1 of 2, P = 1", "round 2 of 2, P = 2"})
    EXPECT_NE(err.find(std::string("\rforkscale: scaling study 'tiny': ") + step), std::string::npos) << step << "\n"
                                                                                                      << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  // Warm-up and its 2 P, 2 rounds and their P: 9 updates, then "\r<blanks>\r".
  EXPECT_EQ(count(err, "\r"), 1u + 2u + 2u * (1u + 2u) + 2u) << err;
  // The caller's hook still gets one line per step, the P-by-P detail not.
  EXPECT_EQ(hook, (std::vector<std::string>{"warm-up 1 of 1", "round 1 of 2", "round 2 of 2"}));
}

TEST_F(ProgressEnv, StudyIsQuietOnAFileUnlessAsked) {
  EXPECT_EQ(study_stderr(fs::progress_mode::automatic), "");
  EXPECT_EQ(study_stderr(fs::progress_mode::off), "");
  set_env("1");
  EXPECT_NE(study_stderr(fs::progress_mode::automatic).find("scaling study 'tiny': round 2 of 2"), std::string::npos);
  set_env("0");
  EXPECT_EQ(study_stderr(fs::progress_mode::on), "");
}

#else

TEST(Progress, NeedsPosixFileDescriptors) { GTEST_SKIP() << "the test redirects stderr with POSIX dup2"; }

#endif

}  // namespace
