// The thread_cpu clock and load detection (report::load): a sleeping strand costs
// no CPU time, the automatic clock turns to thread_cpu on an oversubscribed
// machine, and a wait for a CPU that is large beside the work is flagged under
// wall clocks only. No timed assertion: each check compares a clock with a
// property that holds however loaded the machine is.
#include <gtest/gtest.h>

#include <forkscale/detail/engine/load.hpp>
#include <forkscale/forkscale.hpp>
#include <forkscale/read_report.hpp>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace fs = forkscale;

namespace {

fs::report sleepy(fs::clock_kind k) {
  fs::options o;
  o.clock = k;
  return fs::measure(
      "sleepy",
      [] {
        auto t = fs::spawn([] { std::this_thread::sleep_for(std::chrono::milliseconds(60)); });
        t();
        fs::sync_point sp;
      },
      o);
}

TEST(ThreadCpuClock, NamesAndUnits) {
  EXPECT_STREQ(fs::to_string(fs::clock_kind::thread_cpu), "thread_cpu");
  const fs::report r = sleepy(fs::clock_kind::thread_cpu);
  EXPECT_EQ(r.clock, fs::clock_kind::thread_cpu);
  EXPECT_EQ(r.unit, "ns");
  EXPECT_EQ(r.spawns(), 1u);
  EXPECT_EQ(r.diagnostic_count, 0u);
}

#if defined(__linux__)
TEST(ThreadCpuClock, TimeSpentSleepingIsNotWork) {
  // 60 ms asleep: a wall clock counts all of it, the thread's CPU time almost none.
  const fs::report wall = sleepy(fs::clock_kind::steady);
  const fs::report cpu = sleepy(fs::clock_kind::thread_cpu);
  EXPECT_GE(wall.work(), 60'000'000u);
  EXPECT_LT(cpu.work(), 30'000'000u);
}

TEST(ThreadCpuClock, FixedPolicyEngine) {
  const fs::report r = fs::measure<fs::thread_cpu_clock>(
      "fixed", [] { fs::call_site cs; }, fs::options{});
  EXPECT_EQ(r.clock, fs::clock_kind::thread_cpu);
}

TEST(LoadCheck, TimedMeasurementsAreChecked) {
  fs::options o;
  o.clock = fs::clock_kind::steady;
  const fs::report r = fs::measure(
      "checked", [] { fs::call_site cs; }, o);
  EXPECT_TRUE(r.load.checked);
  EXPECT_GE(r.load.hardware_threads, 1u);
  o.check_load = false;
  EXPECT_FALSE(fs::measure(
                   "unchecked", [] {}, o)
                   .load.checked);
  o.check_load = true;
  o.clock = fs::clock_kind::cost;
  EXPECT_FALSE(fs::measure(
                   "cost", [] {}, o)
                   .load.checked);
}

TEST(LoadCheck, AutomaticChoosesThreadCpuWhenOversubscribed) {
  ::setenv("FORKSCALE_ASSUME_LOAD", "1", 1);
  const fs::report busy = fs::measure("busy", [] { fs::call_site cs; });
  ::setenv("FORKSCALE_ASSUME_LOAD", "0", 1);
  const fs::report quiet = fs::measure("quiet", [] { fs::call_site cs; });
  ::unsetenv("FORKSCALE_ASSUME_LOAD");
  EXPECT_EQ(busy.clock, fs::clock_kind::thread_cpu);
  if (fs::detail::thread_cpu_from_tsc()) {
    // The default is thread_cpu from the start, whatever the load: nothing is
    // chosen for it, and a quiet start gives the same clock.
    EXPECT_FALSE(busy.load.clock_chosen_for_load);
    EXPECT_EQ(quiet.clock, fs::clock_kind::thread_cpu);
  } else {
    EXPECT_TRUE(busy.load.clock_chosen_for_load);
    EXPECT_NE(busy.load.warning().find("oversubscribed"), std::string::npos);
    EXPECT_NE(quiet.clock, fs::clock_kind::thread_cpu);
  }
  EXPECT_FALSE(quiet.load.clock_chosen_for_load);
  // An explicit clock is never replaced.
  ::setenv("FORKSCALE_ASSUME_LOAD", "1", 1);
  fs::options o;
  o.clock = fs::clock_kind::steady;
  EXPECT_EQ(fs::measure(
                "explicit", [] {}, o)
                .clock,
            fs::clock_kind::steady);
  ::unsetenv("FORKSCALE_ASSUME_LOAD");
}
#endif

// ---- thread_cpu read from the TSC: a check's arithmetic, on injected readings ----
// 2 GHz (0.5 ns a tick); the last check and the previous reading at TSC 20,000,000.
namespace tc {
using fs::detail::cpu_check_readings;
using fs::detail::cpu_time_clock;
constexpr double npt = 0.5;

cpu_time_clock checked_at(std::uint64_t tsc) {
  cpu_time_clock c;
  c.last = c.check_tsc = tsc;
  c.check_cpu = 4'000'000;
  c.removed = 1'000;
  return c;
}

// A check `ticks` after TSC 20,000,000, the thread's CPU time `on_ns` later;
// the check's two TSC reads `check_ticks` apart.
cpu_check_readings after(std::uint64_t ticks, std::uint64_t on_ns, std::uint64_t check_ticks = 0) {
  cpu_check_readings r;
  r.tsc = 20'000'000 + ticks;
  r.cpu = 4'000'000 + on_ns;
  r.tsc_after = r.tsc + check_ticks;
  r.ns_per_tick = npt;
  return r;
}
}  // namespace tc

TEST(ThreadCpuFromTsc, APreemptionInsideAStrandIsTakenOut) {
  // A strand of 4 ms on the TSC (8,000,000 ticks), of which the thread ran 1 ms.
  tc::cpu_time_clock c = tc::checked_at(20'000'000);
  const std::uint64_t start = 20'000'000 - c.removed;  // the strand's first reading
  const std::uint64_t end = fs::detail::apply_cpu_check(c, tc::after(8'000'000, 1'000'000));
  EXPECT_EQ(end - start, 2'000'000u);  // 1 ms: the 3 ms away are gone
  EXPECT_EQ(c.removed, 1'000u + 6'000'000u);
  EXPECT_EQ(c.last, 28'000'000u);
  EXPECT_EQ(c.check_cpu, 5'000'000u);
}

TEST(ThreadCpuFromTsc, AStrandOnItsCpuThroughoutIsLeftAlone) {
  // 4 ms on the TSC, 4 ms of CPU time but for the clocks' disagreement (800 ns).
  tc::cpu_time_clock c = tc::checked_at(20'000'000);
  const std::uint64_t start = 20'000'000 - c.removed;
  const std::uint64_t end = fs::detail::apply_cpu_check(c, tc::after(8'000'000, 4'000'000 - 800));
  EXPECT_EQ(end - start, 8'000'000u);
  EXPECT_EQ(c.removed, 1'000u);
  // The CPU clock ahead of the TSC removes nothing either.
  c = tc::checked_at(20'000'000);
  EXPECT_EQ(fs::detail::apply_cpu_check(c, tc::after(8'000'000, 4'200'000)) - start, 8'000'000u);
}

TEST(ThreadCpuFromTsc, TheCheckOwnTimeIsTakenOut) {
  tc::cpu_time_clock c = tc::checked_at(20'000'000);
  const std::uint64_t at = fs::detail::apply_cpu_check(c, tc::after(8'000'000, 4'000'000, 400));
  EXPECT_EQ(at, 28'000'000u - 1'000u);
  EXPECT_EQ(c.removed, 1'400u);
  EXPECT_EQ(c.last, 28'000'400u);
  EXPECT_EQ(c.check_span, 400u);
  // The thread preempted as the check's system call returned (2 ms between its
  // TSC reads): that time is the check's, and not charged to the next strand,
  // a 50 us one on its CPU throughout.
  c = tc::checked_at(20'000'000);
  fs::detail::apply_cpu_check(c, tc::after(1'000'000, 500'000, 4'000'000));
  EXPECT_EQ(c.removed, 1'000u + 4'000'000u);
  const std::uint64_t start = 24'000'000 + 1'000'000 - c.removed;
  tc::cpu_check_readings r = tc::after(5'000'000 + 100'000, 500'000 + 50'000);
  EXPECT_EQ(fs::detail::off_cpu_ticks(c, r), 0u);
  EXPECT_EQ(fs::detail::apply_cpu_check(c, r) - start, 100'000u);
}

TEST(ThreadCpuFromTsc, OnlyALongGapIsCorrected) {
  // A check after a short interval (the periodic one) moves the reference only:
  // the time away lay in earlier intervals, not in this one.
  tc::cpu_time_clock c = tc::checked_at(20'000'000);
  c.last = 20'000'000 + 8'000'000 - fs::detail::cpu_check_gap;  // the previous reading
  tc::cpu_check_readings r = tc::after(8'000'000, 1'000'000);
  EXPECT_EQ(fs::detail::off_cpu_ticks(c, r), 0u);
  EXPECT_EQ(fs::detail::apply_cpu_check(c, r), 28'000'000u - 1'000u);
  EXPECT_EQ(c.check_tsc, r.tsc);
  EXPECT_EQ(c.check_cpu, r.cpu);
  // After a long gap, never more than the gap is taken out.
  c = tc::checked_at(20'000'000);
  c.last = 28'000'000 - 200'000;
  EXPECT_EQ(fs::detail::off_cpu_ticks(c, tc::after(8'000'000, 1'000'000)), 200'000u);
}

TEST(ThreadCpuFromTsc, NothingIsTakenOutWithoutAReference) {
  tc::cpu_time_clock fresh;  // the thread's first reading
  EXPECT_EQ(fs::detail::off_cpu_ticks(fresh, tc::after(8'000'000, 0)), 0u);
  tc::cpu_time_clock c = tc::checked_at(20'000'000);
  tc::cpu_check_readings r = tc::after(8'000'000, 0);
  r.ns_per_tick = 0;  // the TSC's rate not known yet
  EXPECT_EQ(fs::detail::off_cpu_ticks(c, r), 0u);
  r = tc::after(8'000'000, 0);
  r.tsc = 19'000'000;  // the TSC behind the previous reading (another core's)
  EXPECT_EQ(fs::detail::off_cpu_ticks(c, r), 0u);
  c.removed = 30'000'000;  // a reading never wraps below zero
  EXPECT_EQ(fs::detail::apply_cpu_check(c, r), 0u);
}

#if defined(__linux__)
TEST(ThreadCpuFromTsc, ReadingsFollowTheThreadCpuTime) {
  if (!fs::detail::thread_cpu_from_tsc()) GTEST_SKIP() << "thread_cpu is CLOCK_THREAD_CPUTIME_ID here";
  // Three rounds of 2 ms on the CPU, read often, and a 5 ms sleep inside one
  // interval each: the readings add up the CPU time and leave out the sleeps.
  const double npt = fs::detail::tsc_ns_per_tick();
  const std::uint64_t wall0 = fs::detail::steady_ticks(), cpu0 = fs::detail::thread_cpu_ns();
  const std::uint64_t r0 = fs::detail::thread_cpu_ticks();
  for (int round = 0; round < 3; ++round) {
    const std::uint64_t c = fs::detail::thread_cpu_ns();
    while (fs::detail::thread_cpu_ns() - c < 2'000'000) (void)fs::detail::thread_cpu_ticks();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const std::uint64_t r1 = fs::detail::thread_cpu_ticks();
  const double cpu = static_cast<double>(fs::detail::thread_cpu_ns() - cpu0);
  const double wall = static_cast<double>(fs::detail::steady_ticks() - wall0);
  const double read = static_cast<double>(r1 - r0) * npt;
  ASSERT_GE(wall, cpu + 15'000'000);
  EXPECT_LT(read, cpu * 1.1 + 1'000'000) << "wall " << wall << " ns, cpu " << cpu << " ns";
  EXPECT_GT(read, cpu * 0.9 - 1'000'000) << "wall " << wall << " ns, cpu " << cpu << " ns";
}

TEST(ThreadCpuFromTsc, ReportsAreInNanoseconds) {
  // Under thread_cpu read from the TSC the engine counts ticks; the report
  // converts them as it does the tsc clock's.
  fs::options o;
  o.clock = fs::clock_kind::thread_cpu;
  const fs::report r = fs::measure(
      "busy",
      [] {
        const std::uint64_t c = fs::detail::thread_cpu_ns();
        while (fs::detail::thread_cpu_ns() - c < 3'000'000) {
        }
      },
      o);
  EXPECT_EQ(r.unit, "ns");
  EXPECT_GE(r.work(), 2'700'000u);
  EXPECT_LT(r.work(), 4'500'000u);  // TSC ticks left unconverted would be 3 ms times the rate in GHz
}
#endif

fs::detail::load_snapshot snap(std::uint64_t wait, std::uint64_t migrations, std::uint64_t switches) {
  fs::detail::load_snapshot s;
  s.ok = true;
  s.threads.push_back({7, wait, migrations});
  s.involuntary_switches = switches;
  return s;
}

TEST(LoadCheck, WaitLargeBesideTheWorkIsFlaggedUnderWallClocksOnly) {
  const auto a = snap(1'000'000, 3, 10);
  const auto b = snap(11'000'000, 8, 25);  // waited 10 ms, 5 migrations, 15 preemptions
  const fs::load_check tsc = fs::detail::compare_load(a, b, fs::clock_kind::tsc, 100'000'000);
  EXPECT_TRUE(tsc.checked);
  EXPECT_EQ(tsc.wait_ns, 10'000'000u);
  EXPECT_EQ(tsc.migrations, 5u);
  EXPECT_EQ(tsc.involuntary_switches, 15u);
  EXPECT_TRUE(tsc.inflated);
  EXPECT_NE(tsc.warning().find("10000 us"), std::string::npos) << tsc.warning();
  EXPECT_NE(tsc.warning().find("thread_cpu"), std::string::npos);
  EXPECT_FALSE(fs::detail::compare_load(a, b, fs::clock_kind::thread_cpu, 100'000'000).inflated);
  EXPECT_FALSE(fs::detail::compare_load(a, b, fs::clock_kind::tsc, 1'000'000'000).inflated);  // 1% of the work
  EXPECT_TRUE(fs::detail::compare_load(a, b, fs::clock_kind::steady, 400'000'000).inflated);  // 2.5%
  EXPECT_TRUE(fs::detail::compare_load(a, b, fs::clock_kind::tsc, 100'000'000).warning().rfind("forkscale: ", 0) == 0);
}

TEST(LoadCheck, ThreadsSeenOnceAreLeftOut) {
  auto a = snap(5, 0, 0);
  auto b = snap(5, 0, 0);
  b.threads.push_back({9, 50'000'000, 4});  // a thread that started during the measurement
  const fs::load_check c = fs::detail::compare_load(a, b, fs::clock_kind::tsc, 1);
  EXPECT_EQ(c.wait_ns, 0u);
  EXPECT_EQ(c.migrations, 0u);
  EXPECT_FALSE(c.inflated);
  EXPECT_FALSE(fs::detail::compare_load(fs::detail::load_snapshot{}, b, fs::clock_kind::tsc, 1).checked);
}

fs::report busy_report() {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  fs::report r = fs::measure(
      "busy", [] { fs::charge(5); }, o);
  r.clock = fs::clock_kind::tsc;
  r.unit = "ns";
  r.load = fs::detail::compare_load(snap(0, 0, 0), snap(3'000'000, 2, 9), fs::clock_kind::tsc, 10'000'000);
  return r;
}

TEST(LoadCheck, TheTextReportSaysSoBeforeAnyNumber) {
  const fs::report r = busy_report();
  ASSERT_TRUE(r.load.inflated);
  const std::string text = r.to_text();
  const auto warn = text.find("the machine was busy");
  ASSERT_NE(warn, std::string::npos) << text;
  EXPECT_LT(warn, text.find("Work:"));
  EXPECT_NE(text.find("3000 us"), std::string::npos);
  EXPECT_NE(text.find("9 preemptions"), std::string::npos);
  fs::report quiet = busy_report();
  quiet.load = fs::load_check{};
  EXPECT_EQ(quiet.to_text().find("the machine was busy"), std::string::npos);
}

TEST(LoadCheck, JsonRoundTripAndConsistency) {
  const fs::report r = busy_report();
  const std::string json = r.to_json();
  const fs::report back = fs::from_json(json);
  EXPECT_TRUE(back.load.checked);
  EXPECT_TRUE(back.load.inflated);
  EXPECT_EQ(back.load.wait_ns, 3'000'000u);
  EXPECT_EQ(back.load.migrations, 2u);
  EXPECT_EQ(back.load.involuntary_switches, 9u);
  EXPECT_EQ(back.to_json(), json);
  // A file whose warning does not follow from its figures is rejected.
  std::string bad = json;
  const auto at = bad.find("\"wait_ns\": 3000000");
  ASSERT_NE(at, std::string::npos) << json;
  bad.replace(at, std::string("\"wait_ns\": 3000000").size(), "\"wait_ns\": 4000000");
  EXPECT_THROW(fs::from_json(bad), fs::error);
  // Files from before the field existed still read.
  std::string old = json;
  const auto b = old.find("  \"load\": {");
  const auto e = old.find("},\n", b);
  ASSERT_NE(b, std::string::npos);
  old.erase(b, e + 3 - b);
  EXPECT_FALSE(fs::from_json(old).load.checked);
  // The thread_cpu clock's name reads back.
  fs::report cpu = r;
  cpu.clock = fs::clock_kind::thread_cpu;
  EXPECT_EQ(fs::from_json(cpu.to_json()).clock, fs::clock_kind::thread_cpu);
}

}  // namespace
