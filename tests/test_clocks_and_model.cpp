// Clocks, compensation and the report's derived numbers (parallelism, average
// maximal strand, speedup estimate). Timed clocks are checked only for structure
// (never for how long anything took): these machines are shared and noisy.
#include <gtest/gtest.h>

#include <forkscale/detail/measurement/cpu_check.hpp>
#include <forkscale/detail/measurement/measure.hpp>  // compensation_from, calibration_settled, fit_compensation
#include <forkscale/forkscale.hpp>

#include <cmath>
#include <random>
#include <thread>

namespace fs = forkscale;

namespace {

long fib(int n) {
  if (n < 2) return n;
  long x = 0, y = 0;
  auto t = fs::spawn([&] { x = fib(n - 1); });
  t();
  {
    fs::call_site cs;
    y = fib(n - 2);
  }
  fs::sync_point sp;
  return x + y;
}

TEST(Clocks, AutomaticResolvesToATimedClock) {
  const fs::clock_info info = fs::detail::describe(fs::clock_kind::automatic);
  EXPECT_NE(info.kind, fs::clock_kind::automatic);
  EXPECT_NE(info.kind, fs::clock_kind::cost);
  EXPECT_STREQ(info.unit, "ns");
  EXPECT_GT(info.unit_per_tick, 0.0);
  EXPECT_GT(info.default_burden_ticks, 0u);
}

TEST(Clocks, TimedMeasurementsAreConsistent) {
  for (fs::clock_kind k : {fs::clock_kind::automatic, fs::clock_kind::steady, fs::clock_kind::tsc}) {
    fs::options o;
    o.clock = k;
    long out = 0;
    const fs::report r = fs::measure(
        "fib", [&] { out = fib(18); }, o);
    EXPECT_EQ(out, 2584);
    EXPECT_EQ(r.unit, "ns");
    EXPECT_EQ(r.spawns(), 4180u);  // one per internal call of fib(18)
    EXPECT_EQ(r.syncs(), 4180u);
    EXPECT_EQ(r.calls(), 4180u);
    EXPECT_LE(r.span(), r.work());
    EXPECT_LE(r.span(), r.burdened_span());
    EXPECT_GE(r.root().raw_work, r.work());
    EXPECT_EQ(r.compensation_total, r.root().raw_work - r.work());
    EXPECT_GE(r.compensation_per_strand, 0.0);
    EXPECT_TRUE(r.diagnostics.empty());
  }
}

TEST(Clocks, CompensationCanBeTurnedOff) {
  fs::options o;
  o.clock = fs::clock_kind::steady;
  o.compensate = false;
  const fs::report r = fs::measure(
      "fib", [] { fib(12); }, o);
  EXPECT_EQ(r.compensation_per_strand, 0.0);
  EXPECT_EQ(r.compensation_total, 0u);
  EXPECT_EQ(r.root().raw_work, r.work());
  EXPECT_EQ(r.root().raw_span, r.span());
}

TEST(Clocks, CostClockIsNeverCompensated) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  const fs::report r = fs::measure(
      "x", [] { fs::charge(5); }, o);
  EXPECT_EQ(r.compensation_per_strand, 0.0);
  EXPECT_EQ(r.work(), 5u);
  EXPECT_EQ(r.unit, "units");
}

// Each end of a strand takes half a strand's compensation, by its event's
// class: scheduling events (spawn, a child's start and end, sync) and strand
// splits (a call site's two ends). Checked under the cost clock with known
// halves (2 for scheduling events, 1 for splits), strand by strand.
TEST(Clocks, CompensationIsChargedByTheEventsAtAStrandsEnds) {
  fs::detail::cost_clock_compensation_halves[0] = 2;
  fs::detail::cost_clock_compensation_halves[1] = 1;
  fs::options o;
  o.clock = fs::clock_kind::cost;
  const fs::report r = fs::measure(
      "halves",
      [] {
        fs::charge(10);                      // start .. spawn: 10 - (2 + 2) = 6
        fs::spawn([] { fs::charge(7); })();  // the child: 7 - 4 = 3
        {
          fs::call_site cs;  // (end_child .. call open: 0)
          fs::charge(5);     // call open .. call close: 5 - (1 + 1) = 3
        }
        {
          fs::sync_point sp;  // (call close .. sync: 0)
        }
        fs::charge(9);  // sync .. call open: 9 - (2 + 1) = 6
        {
          fs::call_site cs;
          fs::charge(1);  // call open .. call close: 1 - 2, never below 0
        }                 // (call close .. end: 0)
      },
      o);
  fs::detail::cost_clock_compensation_halves[0] = 0;
  fs::detail::cost_clock_compensation_halves[1] = 0;
  EXPECT_EQ(r.root().raw_work, 32u);
  EXPECT_EQ(r.work(), 6u + 3u + 3u + 6u);
  EXPECT_EQ(r.compensation_total, 32u - 18u);
  // The child's path (6 + 3) and the continuation's (6 + 3) meet at the sync.
  EXPECT_EQ(r.span(), 9u + 6u);
  EXPECT_GT(r.compensation_per_strand, 0.0);
  // Without compensation asked for, none is taken.
  fs::detail::cost_clock_compensation_halves[0] = 2;
  o.compensate = false;
  const fs::report plain = fs::measure(
      "plain", [] { fs::charge(10); }, o);
  fs::detail::cost_clock_compensation_halves[0] = 0;
  EXPECT_EQ(plain.work(), 10u);
}

// The profiler's own slow paths (a record's new slab) are taken out of the
// thread_cpu readings from the TSC: two readings around an interval of which
// `excluded` ticks were the profiler's differ by at most the TSC's advance
// less those ticks. Without the exclusion they differ by the whole advance.
TEST(Clocks, ProfilersOwnTimeTakenOutOfThreadCpu) {
  namespace d = fs::detail;
  if (!d::thread_cpu_from_tsc()) GTEST_SKIP() << "thread_cpu is not read from the TSC here";
  EXPECT_EQ(d::own_time_end(0), 0u);  // nothing begun: nothing taken out
  const std::uint64_t before = d::tsc_ticks();
  const std::uint64_t r0 = d::thread_cpu_ticks();
  const std::uint64_t began = d::own_time_begin();
  ASSERT_NE(began, 0u);
  // The slow path: until the TSC has moved 2^20 ticks (under a millisecond).
  while (d::tsc_ticks() - began < (std::uint64_t(1) << 20)) {
  }
  const std::uint64_t excluded = d::own_time_end(began);
  const std::uint64_t r1 = d::thread_cpu_ticks();
  const std::uint64_t after = d::tsc_ticks();
  EXPECT_GE(excluded, std::uint64_t(1) << 20);
  EXPECT_LE(r1 - r0 + excluded, after - before);
}

// A calibration is kept when its batches agree; one that ran while the machine
// changed under it (batches spread wide) is run again, and of the attempts the
// one whose batches agree best is kept. Synthetic batches (ticks per round,
// sorted, six halves per round as where readings fuse): the estimate is the
// median's share, the residual the quartiles' distance from it per strand.
// Each end of a strand is charged its own event's share, by kind: distinct
// shares under the cost clock, one program, each strand's charge worked out by
// hand from the events at its two ends. With shared readings the child starts
// at its spawn's reading (a share of its own) and the spawner's strand between
// the spawn and the child's start is gone.
TEST(Clocks, CompensationIsChargedByTheKindsOfEventAtAStrandsEnds) {
  namespace d = fs::detail;
  d::compensation_table shares;
  for (unsigned k = 0; k < d::open_kinds; ++k) shares.open[k] = 1 + k;           // 1, 2, ... 8
  for (unsigned k = 0; k < d::close_kinds; ++k) shares.close[k] = 10 * (1 + k);  // 10, 20, ... 70
  d::cost_clock_compensation_shares = &shares;
  fs::options o;
  o.clock = fs::clock_kind::cost;
  const auto program = [] {
    fs::charge(100);                       // the root's start .. spawn: 100 - (2 + 10) = 88
    fs::spawn([] { fs::charge(100); })();  // the child .. its end: 100 - (2 + 20) = 78, at once 100 - (1 + 20) = 79
    {
      fs::call_site cs;  // (after the child .. call enter: 0)
      fs::charge(100);   // call enter .. call exit: 100 - (6 + 50) = 44
    }
    { fs::sync_point sp; }  // (call exit .. sync: 0)
    fs::charge(100);        // after the sync .. the end (a split): 100 - (4 + 70) = 26
  };
  const fs::report own = fs::measure("own readings", program, o);
  d::fuse_readings_under_cost_clock = true;
  const fs::report shared = fs::measure("shared readings", program, o);
  d::fuse_readings_under_cost_clock = false;
  d::cost_clock_compensation_shares = nullptr;
  EXPECT_EQ(own.root().raw_work, 400u);
  EXPECT_EQ(own.work(), 88u + 78u + 44u + 26u);
  EXPECT_EQ(own.span(), 88u + 78u + 26u);
  EXPECT_EQ(shared.work(), 88u + 79u + 44u + 26u);
  EXPECT_EQ(shared.span(), 88u + 79u + 26u);
}

// The shares fitted to measured strands: drawn from random shares, every
// measured strand's sum comes back to within the rounding of its two shares,
// and so does any strand whose kinds the measured ones connect; a kind no
// strand measured takes half of its class's strand.
TEST(Clocks, CompensationSharesFitTheMeasuredStrands) {
  namespace d = fs::detail;
  std::mt19937 rng(20261207);
  std::uniform_real_distribution<double> share(0.0, 80.0);
  for (int trial = 0; trial < 200; ++trial) {
    double open[d::open_kinds], close[d::close_kinds];
    for (double& v : open) v = share(rng);
    for (double& v : close) v = share(rng);
    // The strands the calibration's shapes measure with site profiles on.
    const std::pair<d::comp_open_kind, d::comp_close_kind> kinds[] = {
        {d::open_child_at_once, d::close_child_end}, {d::open_after_child, d::close_sync},
        {d::open_after_sync, d::close_spawn},        {d::open_after_sync, d::close_call_exit},
        {d::open_call_enter, d::close_spawn},        {d::open_call_exit, d::close_call_enter},
        {d::open_after_child, d::close_call_enter},  {d::open_call_exit, d::close_sync},
        {d::open_after_child, d::close_spawn},       {d::open_child_at_once, d::close_spawn},
        {d::open_after_sync, d::close_child_end},    {d::open_call_enter, d::close_call_exit}};
    std::vector<d::strand_measure> measured;
    for (const auto& k : kinds)
      measured.push_back(d::strand_measure{k.first, k.second, open[k.first] + close[k.second]});
    const d::compensation_table t = d::fit_compensation(measured, 30.0, 20.0);
    const auto fitted = [&](unsigned o, unsigned c) { return double(t.open[o] + t.close[c]); };
    for (const auto& k : kinds) EXPECT_NEAR(fitted(k.first, k.second), open[k.first] + close[k.second], 1.01);
    // Not measured, but fixed by the measured ones: fib's node as a child
    // ends after its join, and a sync follows a join.
    EXPECT_NEAR(fitted(d::open_after_sync, d::close_sync), open[d::open_after_sync] + close[d::close_sync], 1.01);
    EXPECT_NEAR(fitted(d::open_child_at_once, d::close_call_enter),
                open[d::open_child_at_once] + close[d::close_call_enter], 1.01);
  }
  // Nothing measured: each end takes half of its class's strand (here 60
  // ticks between scheduling events, 40 between splits).
  const d::compensation_table halves = d::fit_compensation({}, 30.0, 20.0);
  EXPECT_EQ(halves.open[d::open_after_sync] + halves.close[d::close_spawn], 60u);
  EXPECT_EQ(halves.open[d::open_call_enter] + halves.close[d::close_call_exit], 40u);
  EXPECT_EQ(halves.open[d::open_split] + halves.close[d::close_sync], 50u);
}

TEST(Clocks, CalibrationKeptOnlyWhenItsBatchesAgree) {
  namespace d = fs::detail;
  const auto batches = [](double median, double spread) {
    std::vector<double> b;
    for (int i = -7; i <= 7; ++i) b.push_back(median + spread * i / 7.0);
    return b;
  };
  // Quiet: 90 ticks per round of three strands, the call adds four halves of 5.
  const d::compensation_estimate quiet = d::compensation_from(batches(90, 0.35), batches(100, 0.35), 6.0);
  EXPECT_DOUBLE_EQ(quiet.per_strand, 30.0);
  EXPECT_DOUBLE_EQ(quiet.per_call_strand, 5.0);
  EXPECT_NEAR(quiet.residual, 0.35 * 4.0 / 7.0 / 3.0, 1e-12);
  EXPECT_TRUE(d::calibration_settled(quiet));
  // Disturbed: the batches spread over +-15 ticks per round (5 per strand).
  const d::compensation_estimate busy = d::compensation_from(batches(96, 15), batches(106, 15), 6.0);
  EXPECT_DOUBLE_EQ(busy.per_strand, 32.0);
  EXPECT_GT(busy.residual, 0.03 * busy.per_strand);
  EXPECT_FALSE(d::calibration_settled(busy));
  // A spread of one tick per strand is settled whatever the figure.
  const d::compensation_estimate small = d::compensation_from(batches(6, 2.6), batches(8, 2.6), 6.0);
  EXPECT_LE(small.residual, 1.0);
  EXPECT_TRUE(d::calibration_settled(small));
  // Not measured yet: not settled, and any attempt is better.
  const d::compensation_estimate none;
  EXPECT_FALSE(d::calibration_settled(none));
  EXPECT_TRUE(d::better_calibration(busy, none));
  EXPECT_TRUE(d::better_calibration(quiet, busy));
  EXPECT_FALSE(d::better_calibration(busy, quiet));
  // Batches that do not match: no estimate.
  EXPECT_LT(d::compensation_from(batches(90, 1), {}, 6.0).per_strand, 0.0);
}

// How far the work may be off: the residual on every strand, said in the text
// report when it passes 5% of the work (or the strands are shorter than the
// compensation), not otherwise.
// The text with its wrapped lines joined.
std::string unwrapped(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
      out += ' ';
    } else {
      out += text[i];
    }
  }
  return out;
}

TEST(Clocks, WorkUncertaintyFromTheResidual) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  fs::report r = fs::measure(
      "fib",
      [] {
        fs::charge(1000);
        fib(6);
      },
      o);
  const std::uint64_t strands = 1 + 2 * r.spawns() + r.syncs() + 2 * r.calls();
  EXPECT_EQ(r.work_uncertainty(), 0.0);
  r.compensation_per_strand = 1.0;
  r.compensation_residual = 0.5;
  EXPECT_DOUBLE_EQ(r.work_uncertainty(), 0.5 * static_cast<double>(strands));
  const bool large = r.work_uncertainty() > 0.05 * static_cast<double>(r.work());
  EXPECT_EQ(unwrapped(r.to_text()).find("the work may be off by up to") != std::string::npos, large);
  r.compensation_residual = 1000.0;
  EXPECT_NE(unwrapped(r.to_text()).find("the work may be off by up to"), std::string::npos);
  r.compensation_residual = 0.0;
  EXPECT_EQ(unwrapped(r.to_text()).find("the work may be off by up to"), std::string::npos);
}

// Work above the CPU time the process used is said, once; at or below it,
// nothing is; under the cost clock (units), never.
TEST(Clocks, WorkAboveTheProcessCpuTimeIsSaid) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  fs::report r = fs::measure(
      "x", [] { fs::charge(5000); }, o);
  const std::size_t before = r.diagnostics.size();
  fs::detail::note_work_above_cpu(r, 100, "here");  // units: not CPU time
  EXPECT_EQ(r.diagnostics.size(), before);
  r.unit = "ns";
  fs::detail::note_work_above_cpu(r, 5000, "here");
  EXPECT_EQ(r.diagnostics.size(), before);
  fs::detail::note_work_above_cpu(r, 4999, "here");
  ASSERT_EQ(r.diagnostics.size(), before + 1);
  EXPECT_NE(r.diagnostics.back().problem.find("exceeds the CPU time"), std::string::npos);
  EXPECT_EQ(r.diagnostics.back().where, "here");
  fs::detail::note_work_above_cpu(r, 10, "here");
  EXPECT_EQ(r.diagnostics.size(), before + 1);
}

TEST(Clocks, FixedPolicies) {
  const fs::report r = fs::measure<fs::cost_clock>("x", [] {
    fs::charge(4);
    auto t = fs::spawn<fs::cost_clock>([] { fs::charge(6); });
    t();
    fs::basic_sync_point<fs::cost_clock> sp;
  });
  EXPECT_EQ(r.clock, fs::clock_kind::cost);
  EXPECT_EQ(r.work(), 10u);
  EXPECT_EQ(r.span(), 10u);
  const fs::report s = fs::measure<fs::steady_clock_source>("y", [] {});
  EXPECT_EQ(s.clock, fs::clock_kind::steady);
}

TEST(Model, DerivedNumbers) {
  fs::region_result r;
  r.work = 1000;
  r.span = 100;
  r.burdened_span = 250;
  r.spawns = 10;
  r.syncs = 4;
  EXPECT_DOUBLE_EQ(r.parallelism(), 10.0);
  EXPECT_DOUBLE_EQ(r.burdened_parallelism(), 4.0);
  EXPECT_DOUBLE_EQ(r.average_maximal_strand(), 1000.0 / (1 + 20 + 4));
  const auto est = r.speedup_estimate(16);
  ASSERT_EQ(est.size(), 4u);  // P = 2, 4, 8, 16
  const unsigned ps[] = {2, 4, 8, 16};
  for (std::size_t i = 0; i < est.size(); ++i) {
    const double p = ps[i];
    EXPECT_EQ(est[i].processors, ps[i]);
    EXPECT_DOUBLE_EQ(est[i].upper, std::min(p, 10.0));
    EXPECT_DOUBLE_EQ(est[i].lower, 1000.0 / (1000.0 / p + 1.7 * 250.0));
  }
  // A maximum that is not a power of two ends the list.
  const auto odd = r.speedup_estimate(12);
  ASSERT_EQ(odd.size(), 4u);
  EXPECT_EQ(odd.back().processors, 12u);
  EXPECT_TRUE(r.speedup_estimate(1).empty());
}

TEST(Model, EmptyReport) {
  fs::report r;
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.work(), 0u);
  EXPECT_EQ(r.parallelism(), 0.0);
  EXPECT_EQ(r.root().instances, 0u);
  EXPECT_EQ(r.root().work, 0u);
  EXPECT_EQ(&r.root(), &fs::report{}.root());  // one row of zeros
}

// The two halves of a spawn used apart (docs/model.md): a token made where the
// task is created, a scope opened in its body on another thread; into the
// task's own sync block, a task group and a join handle. Each gives the numbers
// of fs::spawn: work 3 x 100 + 10, span 100 (the children beside the 10).
TEST(Model, SpawnPointAndScopeApart) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  auto body = [](fs::spawn_token tk) {
    fs::spawn_scope s(std::move(tk));
    fs::charge(100);
  };
  fs::task_group g;
  fs::join_handle h;
  const fs::report r = fs::measure(
      "apart",
      [&] {
        std::thread a(body, fs::spawn_point());
        std::thread b(body, fs::spawn_point(g));
        std::thread c(body, fs::spawn_point(h));
        fs::charge(10);
        {
          fs::sync_point sp(h);
          c.join();
        }
        {
          fs::sync_point sp(g);
          b.join();
        }
        {
          fs::sync_point sp;
          a.join();
        }
      },
      o);
  EXPECT_EQ(r.work(), 310u);
  EXPECT_EQ(r.span(), 100u);
  EXPECT_EQ(r.root().spawns, 3u);
  EXPECT_EQ(r.diagnostic_count, 0u);
}

TEST(Model, ParallelismGrowsWithFibSize) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  auto charged_fib = [](auto&& self, int n) -> long {
    fs::charge(1);
    if (n < 2) return n;
    long x = 0, y = 0;
    auto t = fs::spawn([&] { x = self(self, n - 1); });
    t();
    y = self(self, n - 2);
    fs::sync_point sp;
    return x + y;
  };
  const double p10 = fs::measure(
                         "f", [&] { charged_fib(charged_fib, 10); }, o)
                         .parallelism();
  const double p20 = fs::measure(
                         "f", [&] { charged_fib(charged_fib, 20); }, o)
                         .parallelism();
  EXPECT_GT(p20, p10);
}

}  // namespace
