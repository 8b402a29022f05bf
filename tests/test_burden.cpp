// The measured burden (burden.hpp, docs/predict.md): the std::thread
// micro-benchmark runs and gives figures of the right shape (never a timing is
// asserted), the burden file keeps one entry per backend and refuses what is
// not one, a measurement that names its backend takes the stored steal time as
// its burden and says so (report::burden_source), in the text, the HTML and the
// JSON too, and the cost clock's default burden is explained where it matters.
#include <forkscale/adapters/std_thread.hpp>
#include <forkscale/forkscale.hpp>
#include <forkscale/read_report.hpp>
#include <forkscale/study/html.hpp>

#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

namespace fs = forkscale;

namespace {

// A burden file of this test's own, named by FORKSCALE_BURDEN_FILE for the
// test's duration.
class Burden : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::string(::testing::TempDir()) + "forkscale-burden-" + std::to_string(::getpid());
    path_ = dir_ + "/sub/burden.json";
    ::setenv("FORKSCALE_BURDEN_FILE", path_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("FORKSCALE_BURDEN_FILE");
    std::remove(path_.c_str());
    std::remove((dir_ + "/sub").c_str());
    std::remove(dir_.c_str());
  }
  void write(const std::string& text) {
    std::remove(path_.c_str());
    fs::measured_burden any;  // makes the directory
    any.backend = fs::backend::openmp;
    fs::store_burden(any, path_);
    std::ofstream(path_, std::ios::binary) << text;
  }
  std::string dir_, path_;
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const fs::error& e) {
    return e.what();
  }
  return "no error";
}

fs::measured_burden entry(fs::backend b, double spawn, double steal) {
  fs::measured_burden m;
  m.backend = b;
  m.spawn_ns = spawn;
  m.steal_ns = steal;
  m.steal_median_ns = steal * 2;
  m.rounds = 300;
  m.cpu_model = fs::this_machine().cpu_model;  // measured here: a measurement here uses it
  m.hardware_threads = fs::this_machine().hardware_threads;
  m.measured_at = "2024-01-01T00:00:00Z";
  return m;
}

TEST_F(Burden, StdThreadCalibrationHasTheRightShape) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one hardware thread: nothing can be stolen";
  const fs::measured_burden m = fs::calibrate_burden(fs::backend::std_thread);
  EXPECT_EQ(m.backend, fs::backend::std_thread);
  EXPECT_GT(m.spawn_ns, 0);
  EXPECT_GT(m.steal_ns, 0);
  EXPECT_GE(m.steal_median_ns, m.steal_ns);  // a median is not below the lower decile
  EXPECT_GT(m.thread_start_ns, 0);           // a new thread's start with a core free
  EXPECT_EQ(m.core_wake_ns(), std::max(0.0, m.steal_median_ns - m.thread_start_ns));
  EXPECT_GE(m.rounds, 50u);
  EXPECT_LE(m.rounds, 400u);
  EXPECT_EQ(m.measured_at.size(), 20u);  // 2024-01-01T00:00:00Z
  EXPECT_EQ(m.cpu_model, fs::this_machine().cpu_model);
  EXPECT_EQ(m.hardware_threads, std::thread::hardware_concurrency());
}

TEST_F(Burden, BackendsWithoutTheirAdapterAreRefused) {
  EXPECT_NE(error_of([] { fs::calibrate_burden(fs::backend::unknown); }).find("no backend"), std::string::npos);
  EXPECT_NE(error_of([] { fs::calibrate_burden(fs::backend::automatic); }).find("no backend"), std::string::npos);
  if (std::thread::hardware_concurrency() < 2) return;
  EXPECT_NE(error_of([] { fs::calibrate_burden(fs::backend::tbb); }).find("forkscale/adapters/tbb.hpp"),
            std::string::npos);
  EXPECT_NE(error_of([] { fs::calibrate_burden(fs::backend::openmp); }).find("forkscale/adapters/openmp.hpp"),
            std::string::npos);
}

TEST_F(Burden, TheFileKeepsOneEntryPerBackend) {
  EXPECT_EQ(fs::burden_file(), path_);
  EXPECT_FALSE(fs::stored_burden(fs::backend::tbb));     // no file yet
  fs::store_burden(entry(fs::backend::tbb, 300, 1000));  // makes the directory
  fs::store_burden(entry(fs::backend::std_thread, 50000, 90000));
  fs::store_burden(entry(fs::backend::tbb, 310, 1100));  // replaces the first
  const auto tbb = fs::stored_burden(fs::backend::tbb);
  ASSERT_TRUE(tbb);
  EXPECT_EQ(tbb->spawn_ns, 310);
  EXPECT_EQ(tbb->steal_ns, 1100);
  EXPECT_EQ(tbb->steal_median_ns, 2200);
  EXPECT_EQ(tbb->rounds, 300u);
  EXPECT_EQ(tbb->measured_at, "2024-01-01T00:00:00Z");
  ASSERT_TRUE(fs::stored_burden(fs::backend::std_thread));
  EXPECT_EQ(fs::stored_burden(fs::backend::std_thread)->steal_ns, 90000);
  EXPECT_FALSE(fs::stored_burden(fs::backend::openmp));
  // std_thread's thread start is stored and read back, and with it the core wake.
  fs::measured_burden threads = entry(fs::backend::std_thread, 50000, 90000);
  threads.thread_start_ns = 15000;
  fs::store_burden(threads);
  const auto back = fs::stored_burden(fs::backend::std_thread);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->thread_start_ns, 15000);
  EXPECT_EQ(back->core_wake_ns(), 180000 - 15000);
  EXPECT_EQ(tbb->core_wake_ns(), 0);  // not measured: no wake
}

TEST_F(Burden, BadFilesAndBadFiguresAreRefused) {
  write("{\"schema\": \"forkscale.report\"}");
  EXPECT_NE(error_of([&] { fs::stored_burden(fs::backend::tbb); }).find("not a forkscale.burden document"),
            std::string::npos);
  EXPECT_NE(error_of([&] { fs::store_burden(entry(fs::backend::tbb, 1, 2)); }).find("burden file"), std::string::npos);
  write("{\"schema\": \"forkscale.burden\", \"schema_version\": 1, \"backends\": [{\"backend\": \"cilk\"}]}");
  const std::string e = error_of([&] { fs::stored_burden(fs::backend::tbb); });
  EXPECT_NE(e.find("unknown backend 'cilk'"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
  EXPECT_NE(error_of([&] { fs::store_burden(entry(fs::backend::unknown, 1, 2), path_); }).find("no backend"),
            std::string::npos);
  EXPECT_NE(error_of([&] { fs::store_burden(entry(fs::backend::automatic, 1, 2), path_); }).find("no backend"),
            std::string::npos);
  EXPECT_NE(error_of([&] { fs::store_burden(entry(fs::backend::tbb, -1, 2), path_); }).find("not finite"),
            std::string::npos);
  EXPECT_NE(error_of([&] { fs::store_burden(entry(fs::backend::tbb, 1, 2), ""); }).find("nowhere"), std::string::npos);
}

void spin() {
  volatile int x = 0;
  for (int i = 0; i < 1000; ++i) x = x + i;
}

fs::report timed(fs::backend b, double burden = -1) {
  fs::options o;
  o.clock = fs::clock_kind::steady;  // ns per tick: the stored ns are the burden exactly
  o.backend = b;
  o.burden = burden;
  return fs::measure(
      "timed",
      [] {
        fs::join_handle h;
        std::thread t(fs::spawn(h, [] { spin(); }));
        spin();
        fs::sync_point sp(h);
        t.join();
      },
      o);
}

TEST_F(Burden, AMeasurementThatNamesItsBackendTakesTheStoredSteal) {
  fs::store_burden(entry(fs::backend::std_thread, 50000, 90000));
  const fs::report measured = timed(fs::backend::std_thread);
  EXPECT_EQ(measured.burden, 90000u);
  EXPECT_EQ(measured.burden_source, "measured std_thread");
  // The path through the continuation carries the burden once; the span's path
  // may be the child's instead (a child preempted on a busy machine), so only
  // what holds whatever the timing is asserted.
  EXPECT_GE(measured.burdened_span(), measured.span());
  EXPECT_GE(measured.burdened_span(), 90000u);
  // Nothing stored for this backend: the default. A burden given: the option.
  EXPECT_EQ(timed(fs::backend::tbb).burden_source, "default");
  EXPECT_EQ(timed(fs::backend::unknown).burden_source, "default");
  const fs::report given = timed(fs::backend::std_thread, 777);
  EXPECT_EQ(given.burden, 777u);
  EXPECT_EQ(given.burden_source, "option");
  // The cost clock keeps its default whatever is stored.
  fs::options cost;
  cost.clock = fs::clock_kind::cost;
  cost.backend = fs::backend::std_thread;
  const fs::report c = fs::measure(
      "c", [] { fs::charge(1); }, cost);
  EXPECT_EQ(c.burden, 15000u);
  EXPECT_EQ(c.burden_source, "default");
  // Written and read back; a report without the key reads as "".
  EXPECT_EQ(fs::from_json(measured.to_json()).burden_source, "measured std_thread");
  std::string old = measured.to_json();
  const std::size_t at = old.find("  \"burden_source\"");
  old.erase(at, old.find('\n', at) + 1 - at);
  EXPECT_EQ(fs::from_json(old).burden_source, "");
  EXPECT_EQ(fs::from_json(old).burden, 90000u);
}

TEST_F(Burden, ABrokenFileIsOneDiagnosticAndTheDefault) {
  write("not json");
  std::vector<fs::diagnostic> seen;
  fs::options o;
  o.clock = fs::clock_kind::steady;
  o.backend = fs::backend::std_thread;
  o.on_diagnostic = [&](const fs::diagnostic& d) { seen.push_back(d); };
  const fs::report rep = fs::measure(
      "x", [] { spin(); }, o);
  EXPECT_EQ(rep.burden_source, "default");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_NE(seen[0].problem.find("burden file"), std::string::npos) << seen[0].problem;
  EXPECT_NE(seen[0].problem.find("the default burden is used"), std::string::npos);
  EXPECT_EQ(seen[0].problem.find("forkscale: "), std::string::npos) << seen[0].problem;  // the line adds it once
  EXPECT_EQ(seen[0].where, "stored burden");
}

// The text with every line break and the indentation after it made one space.
std::string one_line(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    out += ' ';
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
  }
  return out;
}

// A measurement on the steady clock (ns per tick) whose only spawn goes through
// the std::thread adapter, with options.backend `b`.
fs::report through_adapter(fs::backend b, fs::clock_kind clock = fs::clock_kind::steady) {
  fs::options o;
  o.clock = clock;
  o.backend = b;
  return fs::measure(
      "adapter",
      [] {
        fs::thread t([] { spin(); });
        spin();
        t.join();
      },
      o);
}

// options.backend automatic (the default): the first spawn through an adapter
// sets the backend, and with it the burden stored for it on this machine.
TEST_F(Burden, TheFirstSpawnThroughAnAdapterSetsTheBackend) {
  EXPECT_EQ(fs::options{}.backend, fs::backend::automatic);
  fs::store_burden(entry(fs::backend::std_thread, 50000, 90000));
  const fs::report rep = through_adapter(fs::backend::automatic);
  EXPECT_EQ(rep.backend, "std_thread");
  EXPECT_EQ(rep.burden, 90000u);
  EXPECT_EQ(rep.burden_source, "measured std_thread");
  EXPECT_EQ(rep.burden_note, "");
  EXPECT_GE(rep.burdened_span(), rep.span());
  EXPECT_GE(rep.burdened_span(), 90000u);  // the one continuation edge (see above)
  EXPECT_EQ(rep.diagnostic_count, 0u);
  EXPECT_NE(rep.to_text().find("\nBackend: std_thread.\n"), std::string::npos) << rep.to_text();
  EXPECT_NE(rep.to_text().find("per continuation edge (measured std_thread)"), std::string::npos) << rep.to_text();
  // fs::async on a thread is a std::thread spawn too.
  const fs::report async = fs::measure("async", [] { fs::async(std::launch::async, [] { spin(); }).get(); });
  EXPECT_EQ(async.backend, "std_thread");
  // Only the guards spawn: no backend, the default burden.
  const fs::report guards = timed(fs::backend::automatic);
  EXPECT_EQ(guards.backend, "");
  EXPECT_EQ(guards.burden_source, "default");
  // unknown: the default burden whatever the spawns came through; they are still said.
  const fs::report none = through_adapter(fs::backend::unknown);
  EXPECT_EQ(none.backend, "std_thread");
  EXPECT_EQ(none.burden_source, "default");
  // A named backend comes first, and the burden is its own; the library the
  // spawns came through follows it.
  const fs::report named = through_adapter(fs::backend::tbb);
  EXPECT_EQ(named.backend, "tbb+std_thread");
  EXPECT_EQ(named.burden_source, "default");  // nothing stored for tbb
  EXPECT_NE(
      one_line(named.to_text()).find("Spawns came through more than one library (tbb+std_thread): the burden is tbb's"),
      std::string::npos)
      << named.to_text();
  // The cost clock: the backend is known, the burden stays the default.
  const fs::report cost = through_adapter(fs::backend::automatic, fs::clock_kind::cost);
  EXPECT_EQ(cost.backend, "std_thread");
  EXPECT_EQ(cost.burden, 15000u);
  EXPECT_EQ(cost.burden_source, "default");
  // Written and read back; a report without the keys reads them as "".
  EXPECT_EQ(fs::from_json(rep.to_json()).backend, "std_thread");
  std::string old = rep.to_json();
  for (const char* key : {"  \"backend\"", "  \"burden_note\""}) {
    const std::size_t at = old.find(key);
    ASSERT_NE(at, std::string::npos) << key;
    old.erase(at, old.find('\n', at) + 1 - at);
  }
  EXPECT_EQ(fs::from_json(old).backend, "");
  EXPECT_EQ(fs::from_json(old).burden_source, "measured std_thread");
}

// A calibration measured on another machine, or stored before machines were
// recorded, is not used: the default burden, and the report says why.
TEST_F(Burden, ACalibrationFromAnotherMachineIsNotUsed) {
  fs::measured_burden other = entry(fs::backend::std_thread, 50000, 90000);
  other.cpu_model = "Not This CPU(R) @ 1.00GHz";
  fs::store_burden(other);
  ASSERT_TRUE(fs::stored_burden(fs::backend::std_thread));
  EXPECT_EQ(fs::stored_burden(fs::backend::std_thread)->cpu_model, other.cpu_model);
  fs::report rep = through_adapter(fs::backend::automatic);
  EXPECT_EQ(rep.backend, "std_thread");
  EXPECT_EQ(rep.burden_source, "default");
  EXPECT_NE(rep.burden_note.find("was measured on another machine ('Not This CPU(R) @ 1.00GHz'"), std::string::npos)
      << rep.burden_note;
  EXPECT_NE(rep.burden_note.find("forkscale-report calibrate --backend std_thread"), std::string::npos);
  EXPECT_EQ(rep.diagnostic_count, 0u);  // not misuse: the numbers are whole
  EXPECT_NE(one_line(rep.to_text()).find("Not the stored burden: the std_thread calibration in"), std::string::npos)
      << rep.to_text();
  EXPECT_EQ(fs::from_json(rep.to_json()).burden_note, rep.burden_note);
  // The same CPU with another number of hardware threads is another machine.
  other = entry(fs::backend::std_thread, 50000, 90000);
  other.hardware_threads += 1;
  fs::store_burden(other);
  rep = through_adapter(fs::backend::std_thread);
  EXPECT_EQ(rep.burden_source, "default");
  EXPECT_NE(rep.burden_note.find("another machine"), std::string::npos) << rep.burden_note;
  // An entry stored before machines were recorded: read, not used.
  write(
      "{\"schema\": \"forkscale.burden\", \"schema_version\": 1, \"backends\": [{\"backend\": \"std_thread\", "
      "\"spawn_ns\": 1, \"steal_ns\": 90000, \"steal_median_ns\": 2, \"rounds\": 300, \"hardware_threads\": " +
      std::to_string(fs::this_machine().hardware_threads) +
      ", \"runnable_elsewhere\": 0, \"measured_at\": \"2024-01-01T00:00:00Z\"}]}");
  ASSERT_TRUE(fs::stored_burden(fs::backend::std_thread));
  EXPECT_EQ(fs::stored_burden(fs::backend::std_thread)->cpu_model, "");
  EXPECT_EQ(fs::stored_burden(fs::backend::std_thread)->thread_start_ns, 0);  // before it was measured
  EXPECT_EQ(fs::stored_burden(fs::backend::std_thread)->core_wake_ns(), 0);
  rep = through_adapter(fs::backend::automatic);
  EXPECT_EQ(rep.burden_source, "default");
  EXPECT_NE(rep.burden_note.find("does not say which machine"), std::string::npos) << rep.burden_note;
  // Calibrated here again: used.
  fs::store_burden(entry(fs::backend::std_thread, 50000, 90000));
  rep = through_adapter(fs::backend::automatic);
  EXPECT_EQ(rep.burden_source, "measured std_thread");
  EXPECT_EQ(rep.burden_note, "");
}

// options.backend automatic and a burden file that cannot be read: one
// diagnostic once a backend is known, none when only the guards spawn.
TEST_F(Burden, ABrokenFileIsSaidOnceABackendIsKnown) {
  write("not json");
  std::vector<fs::diagnostic> seen;
  fs::options o;
  o.clock = fs::clock_kind::steady;
  o.on_diagnostic = [&](const fs::diagnostic& d) { seen.push_back(d); };
  const fs::report guards = fs::measure(
      "guards",
      [] {
        fs::spawn([] { spin(); })();
        fs::sync_point sp;
      },
      o);
  EXPECT_EQ(guards.diagnostic_count, 0u);
  EXPECT_TRUE(seen.empty());
  const fs::report rep = fs::measure(
      "adapter", [] { fs::thread([] { spin(); }).join(); }, o);
  EXPECT_EQ(rep.burden_source, "default");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_NE(seen[0].problem.find("burden file"), std::string::npos) << seen[0].problem;
  EXPECT_NE(seen[0].problem.find("the default burden is used"), std::string::npos);
  EXPECT_EQ(seen[0].problem.find("forkscale: "), std::string::npos) << seen[0].problem;  // the line adds it once
  EXPECT_EQ(seen[0].where, "stored burden");
}

// Under the cost clock the default burden (15,000 units) dwarfs programs that
// charge a few units: the text says the burden is a choice, and explains a
// burdened parallelism that reads 0.00.
TEST_F(Burden, TheCostClockDefaultIsExplained) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  const fs::report rep = fs::measure(
      "small",
      [] {
        auto t = fs::spawn([] { fs::charge(3); });
        t();
        fs::charge(4);
        fs::sync_point sp;
      },
      o);
  ASSERT_LT(rep.burdened_parallelism(), 0.005);
  const std::string text = rep.to_text();
  EXPECT_NE(text.find("(default)"), std::string::npos);
  EXPECT_NE(text.find("a choice, not a measurement"), std::string::npos);
  EXPECT_NE(text.find("The burdened parallelism reads 0.00"), std::string::npos);
  const std::string html = fs::to_html(rep);  // the HTML summary says the same
  EXPECT_NE(html.find("per continuation edge (default)"), std::string::npos);
  EXPECT_NE(html.find("a choice, not a measurement"), std::string::npos);
  EXPECT_NE(html.find("The burdened parallelism reads 0.00"), std::string::npos);
  o.burden = 2;
  const std::string chosen = fs::measure(
                                 "small", [] { fs::charge(3); }, o)
                                 .to_text();
  EXPECT_NE(chosen.find("(option)"), std::string::npos);
  EXPECT_EQ(chosen.find("a choice, not a measurement"), std::string::npos);
}

}  // namespace
