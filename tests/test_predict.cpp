// Replay (fs::predict, docs/predict.md): hand-computed schedules of a chain, a
// flat fan-out and fib(5) under the cost clock, with the runtime free and with
// costs; on random programs from the test generator, the greedy replay within
// Brent's bound and the work-stealing replay within Cilkview's bounds, checked
// against the engine's own work, span and burdened span; what-if through the
// replay; errors; the JSON.
//
// FORKSCALE_PROPERTY_SEED=<n> replays from seed n; FORKSCALE_PREDICT_COUNT=<n>
// sets how many random programs are replayed (default 300).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <forkscale/detail/input/report_reader.hpp>  // the strict JSON reader
#include <forkscale/read_report.hpp>

#include "support/random_program.hpp"

namespace fs = forkscale;

namespace {

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::strtoull(v, nullptr, 10);
}

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const std::uint64_t s = env_or("FORKSCALE_PROPERTY_SEED", std::random_device{}());
    std::cout << "[predict] base seed " << s << " (replay with FORKSCALE_PROPERTY_SEED=" << s << ")\n";
    return s;
  }();
  return seed;
}

fs::options recorded(double burden) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.burden = burden;
  o.record = true;
  return o;
}

fs::replay_model free_runtime() {
  fs::replay_model m;
  m.steal_cost = 0;
  m.steal_attempt_cost = 0;
  return m;
}

// spawn 2, steal 5, failed attempt 1 (units).
fs::replay_model costly_runtime() {
  fs::replay_model m;
  m.spawn_cost = 2;
  m.steal_cost = 5;
  m.steal_attempt_cost = 1;
  return m;
}

// ---- a chain: 3, then a call of 4, then 5 -------------------------------------
// Three strands, each after the one before: nothing can run in parallel and
// nothing is spawned or stolen, so every scheduler on every P takes 3 + 4 + 5 =
// 12, runtime costs or not. Brent: 12/P + 12.
fs::report chain() {
  return fs::measure(
      "chain",
      [] {
        fs::charge(3);
        {
          fs::call_site cs;
          fs::charge(4);
        }
        fs::charge(5);
      },
      recorded(5));
}

TEST(PredictSchedules, ChainTakesItsSpanOnAnyP) {
  const fs::report rep = chain();
  for (const fs::replay_model& m : {free_runtime(), costly_runtime()}) {
    const fs::prediction p = fs::predict(rep, {1, 2, 3, 64}, m);
    EXPECT_EQ(p.strands, 3u);
    EXPECT_EQ(p.spawns, 0u);
    for (const auto& pt : p.points) {
      EXPECT_EQ(pt.greedy_time, 12) << pt.processors;
      EXPECT_EQ(pt.stealing.min, 12) << pt.processors;
      EXPECT_EQ(pt.stealing.max, 12) << pt.processors;
      EXPECT_EQ(pt.brent_time, 12.0 / pt.processors + 12);
      EXPECT_EQ(pt.steals, 0);
    }
  }
}

// ---- a flat fan-out: 1, four children of 10, 1 ----------------------------------
// The record (strand: cost, task): s0 (1) ends at the first spawn; each spawn k
// gives the child c (10) and the continuation k' (0, after_spawn), then a
// strand of 0 after the inline child: s0 -> c1, k2; k2 -> s3; s3 -> c4, k5;
// k5 -> s6; s6 -> c7, k8; k8 -> s9; s9 -> c10, k11; k11 -> s12; the last strand
// s13 (1) follows s12 and the join of c1, c4, c7, c10. Work 42, span 12.
fs::report fan_out() {
  return fs::measure(
      "fan-out",
      [] {
        fs::charge(1);
        for (int i = 0; i < 4; ++i) {
          auto t = fs::spawn([] { fs::charge(10); });
          t();
        }
        { fs::sync_point sp; }
        fs::charge(1);
      },
      recorded(5));
}

// Free runtime, P = 2. Greedy: p0 runs s0 [0,1], then c1 [1,11]; p1 takes k2
// from the pool at 1 and runs k2, s3 (0 each), then c4 [1,11]. At 11 both are
// idle: p1 takes k5 (s6, then c7 [11,21]), p0 takes k8 (s9, c10 [11,21]). At 21
// one of them takes k11, runs s12, and s13 is ready (the join's four children
// are done): [21,22]. TP = 22, three strands migrated (k2, k8, k11).
// Work stealing does the same with steals for migrations: w1 steals k2 at 1,
// w0 (done with c1 at 11) steals k5 and w1 then k8, w0 steals k11 at 21; w1
// finishing c10 at 21 completes the join and runs s13: TP = 22.
// Brent: 42/2 + 12 = 33 >= 22 >= 21.
TEST(PredictSchedules, FanOutFreeRuntime) {
  const fs::prediction p = fs::predict(fan_out(), {1, 2, 4, 8}, free_runtime());
  EXPECT_EQ(p.work, 42);
  EXPECT_EQ(p.span, 12);
  EXPECT_EQ(p.spawns, 4u);
  EXPECT_EQ(p.at(1)->greedy_time, 42);
  EXPECT_EQ(p.at(1)->stealing.median, 42);
  EXPECT_EQ(p.at(2)->greedy_time, 22);
  EXPECT_EQ(p.at(2)->greedy_migrations, 3u);
  EXPECT_EQ(p.at(2)->stealing.min, 22);  // one victim to choose: every seed alike
  EXPECT_EQ(p.at(2)->stealing.max, 22);
  EXPECT_EQ(p.at(2)->steals, 4);  // k2, k5, k8, k11
  // Four or more processors: every child starts at 1 (its spawn is free and
  // the continuations are taken at once), so TP = 1 + 10 + 1 = the span.
  EXPECT_EQ(p.at(4)->greedy_time, 12);
  EXPECT_EQ(p.at(8)->greedy_time, 12);
}

// Spawn 2, steal 5, failed attempt 1, P = 2. The strands that end at a spawn
// (s0, s3, s6, s9) take 2 more. Greedy: p0 runs s0 [0,3], c1 [3,13]; p1 takes
// k2 at 3, migrated: [8,8], s3 [8,10], c4 [10,20]; p0 idle at 13 takes k5
// (made ready by p1: migrated) [18,18], s6 [18,20], c7 [20,30]; p1 idle at 20
// takes k8 [25,25], s9 [25,27], c10 [27,37]; p0 idle at 30 takes k11 [35,35],
// s12 [35,35]; s13 waits for c10: [37,38]. TP = 38.
// Work stealing: w1, parked since 0, wakes at 3 (its attempt rhythm of 1
// from 0), steals k2 [8,8], s3 [8,10], c4 [10,20], k5 on its deque; w0 done
// with c1 at 13 steals k5 [18,18], s6 [18,20], c7 [20,30], k8 on its deque;
// w1 done with c4 at 20 finds the deques empty, parks, wakes at the push of k8
// (20), steals it [25,25], s9 [25,27], c10 [27,37]; w0 at 30 steals k11
// [35,35], s12; w1 ends c10 at 37 and runs s13 [37,38]. TP = 38.
TEST(PredictSchedules, FanOutWithRuntimeCosts) {
  const fs::prediction p = fs::predict(fan_out(), {1, 2}, costly_runtime());
  EXPECT_EQ(p.at(1)->greedy_time, 42 + 4 * 2);  // one processor: the spawns, no steal
  EXPECT_EQ(p.at(1)->stealing.median, 50);
  EXPECT_EQ(p.at(2)->greedy_time, 38);
  EXPECT_EQ(p.at(2)->greedy_migrations, 4u);
  EXPECT_EQ(p.at(2)->stealing.min, 38);
  EXPECT_EQ(p.at(2)->stealing.max, 38);
}

// ---- fib(5): 15 calls of one unit, work 15, span 5 --------------------------------
long fib(int n) {
  fs::charge(1);
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

// The record of fib(5) (strand: what it is; costs 1 unless 0 is said; the
// strands that end at a spawn are 0, 1, 2, 3, 17, 28, 29):
//   0 fib(5)  -> 1 (child fib(4)), 26 (continuation, 0) -> 27 (0) -> 28 the call fib(3)
//   1 fib(4)  -> 2 (child fib(3)), 15 (0) -> 16 (0) -> 17 the call fib(2)
//   2 fib(3)  -> 3 (child fib(2)), 10 (0) -> 11 (0) -> 12 the call fib(1) -> 13 (0) -> 14 (0, after join 1)
//   3 fib(2)  -> 4 (child fib(1)), 5 (0) -> 6 (0) -> 7 the call fib(0) -> 8 (0) -> 9 (0, after join 0)
//   17 fib(2) -> 18 (child fib(1)), 19 (0) -> 20 (0) -> 21 fib(0) -> 22 -> 23 (0, join 3) -> 24 -> 25 (0, join 2)
//   28 fib(3) -> 29 (child fib(2)), 36 (0) -> 37 (0) -> 38 fib(1) -> 39 -> 40 (0, join 6) -> 41 -> 42 (0, join 4)
//   29 fib(2) -> 30 (child fib(1)), 31 (0) -> 32 (0) -> 33 fib(0) -> 34 -> 35 (0, join 5)
// and the joins: 4 -> join 0, 9 -> 1, 14 -> 2, 18 -> 3, 25 -> 4, 30 -> 5, 35 -> 6.
//
// Free runtime, P = 2. Greedy (an idle processor takes the newest strand it
// made ready, else the oldest one any processor made ready):
//   t=0 p0: 0.  t=1 p0: 1 (keeps 26); p1 takes 26, 27, 28.  t=2 p0: 2 (keeps 15); p1: 29 (keeps 36).
//   t=3 p0: 3 (keeps 10); p1: 30 (keeps 31).  t=4 p0: 4 (keeps 5); p1 (30 ends at join 5) takes 31, 32, 33.
//   t=5 p0 (4 ends at join 0) takes 5, 6, 7; p1: 34, 35, 40 waits for 39; takes 36, 37, 38.
//   t=6 p0: 8, 9 (join 1 waits for 13), takes 10, 11, 12; p1: 39, 40, 41 (42 waits), takes 15 (p0's), 16, 17.
//   t=7 p0: 13, 14 (25 waits), takes 19 (p1 keeps it running 18), 20, 21.
//   t=8 p1: 18 ends join 3: 23, 24, 25 complete joins 2 and 4: 42. TP = 8.
// Work stealing, P = 2 (one victim to choose: the same for every seed):
//   t=1 w1 steals 26, runs 27, 28.  t=2 w0: 2, deque 15; w1: 29, deque 36.
//   t=3 w0: 3, deque 15 10; w1: 30, deque 36 31.  t=4 w0: 4, deque 15 10 5; w1 pops 31, 32, 33.
//   t=5 w0 pops 5, 6, 7; w1: 34, 35, pops 36, 37, 38.
//   t=6 w0: 8, 9 (join 1 waits for 13), pops 10, 11, 12; w1: 39, 40, 41 (42 waits), steals 15, 16, 17.
//   t=7 w0: 13, 14 (25 waits), steals 19 (pushed by w1 running 18), 20, 21; w1: 18.
//   t=8 w0: 22, 23, 24, 25, 42. TP = 8.
TEST(PredictSchedules, Fib5FreeRuntime) {
  const fs::report rep = fs::measure(
      "fib", [] { fib(5); }, recorded(5));
  ASSERT_EQ(rep.record->strands.size(), 43u);
  const fs::prediction p = fs::predict(rep, {1, 2, 3, 4, 5}, free_runtime());
  EXPECT_EQ(p.work, 15);
  EXPECT_EQ(p.span, 5);
  EXPECT_EQ(p.spawns, 7u);
  EXPECT_EQ(p.at(1)->greedy_time, 15);
  EXPECT_EQ(p.at(2)->greedy_time, 8);
  EXPECT_EQ(p.at(2)->stealing.min, 8);
  EXPECT_EQ(p.at(2)->stealing.max, 8);
  // Brent: 15/P + 5; the span law: 5.
  for (const auto& pt : p.points) {
    EXPECT_LE(pt.greedy_time, 15.0 / pt.processors + 5) << pt.processors;
    EXPECT_GE(pt.greedy_time, std::max(15.0 / pt.processors, 5.0)) << pt.processors;
  }
}

// Spawn 2, steal 5, failed attempt 1, P = 2: the strands that end at a spawn
// take 3. Work stealing:
//   t=3 w0: 1 (to 6), deque 26; w1 (parked at 0) wakes at 3, steals 26 [8,8], 27, 28 [8,11].
//   t=6 w0: 2 [6,9], deque 15.  t=9 w0: 3 [9,12], deque 15 10.  t=11 w1: 29 [11,14], deque 36.
//   t=12 w0: 4 [12,13], deque 15 10 5.  t=13 w0 pops 5, 6, 7 [13,14].
//   t=14 w1: 30 [14,15], deque 36 31; w0: 8, 9, pops 10, 11, 12 [14,15].
//   t=15 w1 pops 31, 32, 33 [15,16]; w0: 13, 14, pops 15, 16, 17 [15,18].
//   t=16 w1: 34, 35, pops 36, 37, 38 [16,17].  t=17 w1: 39, 40, 41, parks (deques empty).
//   t=18 w0: 18 [18,19], deque 19; w1 wakes at 18, steals 19 [23,23], 20, 21 [23,24].
//   t=19 w0 parks.  t=24 w1: 22, 23, 24, 25, 42. TP = 24.
// Greedy, the same costs:
//   t=3 p0: 1 [3,6], keeps 26; p1 takes it (migrated) [8,8], 27, 28 [8,11].  t=6 p0: 2 [6,9], keeps 15.
//   t=9 p0: 3 [9,12], keeps 10.  t=11 p1: 29 [11,14], keeps 36.  t=12 p0: 4 [12,13], keeps 5.
//   t=13 p0 takes its newest, 5, 6, 7 [13,14].  t=14 p0: 8, 9, takes 10, 11, 12 [14,15]; p1: 30 [14,15], keeps 31.
//   t=15 p0: 13, 14, takes 15, 16, 17 [15,18]; p1 takes 31, 32, 33 [15,16].
//   t=16 p1: 34, 35, takes 36, 37, 38 [16,17].  t=17 p1: 39, 40, 41, idle.
//   t=18 p0: 18 [18,19], keeps 19; p1 takes it (migrated) [23,23], 20, 21 [23,24].
//   t=24 p1: 22, 23, 24, 25, 42. TP = 24, the same as work stealing here.
TEST(PredictSchedules, Fib5WithRuntimeCosts) {
  const fs::report rep = fs::measure(
      "fib", [] { fib(5); }, recorded(5));
  const fs::prediction p = fs::predict(rep, {1, 2}, costly_runtime());
  EXPECT_EQ(p.at(1)->greedy_time, 15 + 7 * 2);
  EXPECT_EQ(p.at(1)->stealing.median, 29);
  EXPECT_EQ(p.at(2)->stealing.min, 24);
  EXPECT_EQ(p.at(2)->stealing.max, 24);
  EXPECT_EQ(p.at(2)->greedy_time, 24);
  EXPECT_EQ(p.at(2)->greedy_migrations, 2u);
}

// ---- random programs: the bounds -------------------------------------------------

struct bound_failure {
  std::string text;
};

// The engine's numbers are the oracle: T1 = work, T∞ = span, B = burdened span.
std::string check_bounds(const fs::report& rep, const fs::prediction& free, const fs::prediction& burdened) {
  std::string out;
  const double W = static_cast<double>(rep.work()), S = static_cast<double>(rep.span());
  const double B = static_cast<double>(rep.burdened_span());
  if (free.work != W || free.span != S || free.burdened_span != B)
    out += "  graph: work " + std::to_string(free.work) + " span " + std::to_string(free.span) + " burdened " +
           std::to_string(free.burdened_span) + "\n";
  for (const auto& pt : free.points) {
    const double P = pt.processors;
    const double lo = std::max(W / P, S), brent = W / P + S;
    if (!(pt.greedy_time >= lo && pt.greedy_time <= brent))
      out += "  P=" + std::to_string(pt.processors) + ": greedy " + std::to_string(pt.greedy_time) +
             " outside Brent [" + std::to_string(lo) + ", " + std::to_string(brent) + "]\n";
    if (!(pt.stealing.min >= lo))
      out += "  P=" + std::to_string(pt.processors) + ": free stealing " + std::to_string(pt.stealing.min) +
             " below the work and span laws\n";
  }
  // Steal cost = the burden, failed attempts a tenth of it, spawns free: every
  // seed within Cilkview's estimate, lower = T1/(T1/P + 1.7 B), upper =
  // min(P, T1/T∞).
  for (const auto& pt : burdened.points) {
    const double P = pt.processors;
    const double lower = W / (W / P + 1.7 * B), upper = std::min(P, S > 0 ? W / S : P);
    const double fastest = W / pt.stealing.min, slowest = W / pt.stealing.max;
    if (W > 0 && !(slowest >= lower - 1e-9 && fastest <= upper + 1e-9))
      out += "  P=" + std::to_string(pt.processors) + ": stealing speedups " + std::to_string(slowest) + ".." +
             std::to_string(fastest) + " outside Cilkview [" + std::to_string(lower) + ", " + std::to_string(upper) +
             "]\n";
  }
  return out;
}

TEST(PredictProperty, RandomProgramsStayWithinTheBounds) {
  const std::uint64_t count = env_or("FORKSCALE_PREDICT_COUNT", 300);
  rp::scheduler sched(0);
  std::uint64_t failures = 0;
  for (std::uint64_t i = 0; i < count && failures < 3; ++i) {
    const std::uint64_t seed = base_seed() + i;
    const rp::program prog = rp::generator(seed).make();
    rp::interpreter<> run(sched, seed * 7919);
    fs::options opt;
    opt.record = true;
    opt.on_diagnostic = [](const fs::diagnostic&) {};
    const fs::report rep = run.run(prog, "program", opt);
    if (rep.work() == 0) continue;
    const std::vector<unsigned> ps{1, 2, 3, 4, 7, 16, 64};
    fs::replay_model burdened;
    burdened.seeds = 3;
    burdened.seed = seed;
    fs::replay_model free = free_runtime();
    free.seeds = 3;
    free.seed = seed;
    const std::string diff = check_bounds(rep, fs::predict(rep, ps, free), fs::predict(rep, ps, burdened));
    if (!diff.empty()) {
      ++failures;
      ADD_FAILURE() << "program with seed " << seed << " (burden " << rep.burden << ", work " << rep.work() << ", span "
                    << rep.span() << ", burdened span " << rep.burdened_span() << "):\n"
                    << diff << prog.describe();
    }
  }
}

// Threads change nothing: a record made on three threads replays like the
// serial one (the graph is the program's, not the schedule's).
TEST(PredictProperty, ThreadedRecordsReplayLikeSerialOnes) {
  rp::scheduler serial(0), threads(3);
  for (std::uint64_t i = 0; i < 40; ++i) {
    const std::uint64_t seed = base_seed() + (1u << 20) + i;
    const rp::program prog = rp::generator(seed).make();
    fs::options opt;
    opt.record = true;
    opt.on_diagnostic = [](const fs::diagnostic&) {};
    rp::interpreter<> a(serial, seed), b(threads, seed);
    const fs::report ra = a.run(prog, "p", opt), rb = b.run(prog, "p", opt);
    const fs::prediction pa = fs::predict(ra, {1, 2, 5}, free_runtime());
    const fs::prediction pb = fs::predict(rb, {1, 2, 5}, free_runtime());
    for (std::size_t k = 0; k < pa.points.size(); ++k) {
      // Greedy breaks ties by strand index, which follows the record's
      // topological order; the times of the bound are what must agree.
      EXPECT_EQ(pa.points[k].lower_time, pb.points[k].lower_time) << "seed " << seed;
      EXPECT_EQ(pa.points[k].brent_time, pb.points[k].brent_time) << "seed " << seed;
    }
    EXPECT_EQ(pa.at(1)->greedy_time, pb.at(1)->greedy_time) << "seed " << seed;
  }
}

// ---- what-if through the replay ---------------------------------------------------
// The fan-out with its children inside a what-if region: at factor 2 each
// child costs 5, at infinity 0. Free runtime on 4 processors: every child
// starts at 1, so TP = 1 + 10 + 1 = 12 as recorded, 1 + 5 + 1 = 7 at factor
// 2, and 2 with the children free.
TEST(PredictWhatIf, RegionFasterOnPProcessors) {
  fs::options o = recorded(0);
  o.what_if.factors = {2, std::numeric_limits<double>::infinity()};
  o.what_if.read_environment = false;
  static constexpr fs::site children{"fan.cpp", 7, "fan", "children"};
  const fs::report rep = fs::measure(
      "fan-out",
      [] {
        fs::charge(1);
        for (int i = 0; i < 4; ++i) {
          auto t = fs::spawn([] {
            fs::what_if_region w(children);
            fs::charge(10);
          });
          t();
        }
        { fs::sync_point sp; }
        fs::charge(1);
      },
      o);
  const std::vector<fs::what_if_prediction> rows = fs::predict_what_if(rep, 4, free_runtime());
  ASSERT_EQ(rows.size(), 4u);  // (all regions) and "children", at 2 and inf
  for (const auto& r : rows) {
    EXPECT_EQ(r.measured_time, 12);
    EXPECT_EQ(r.processors, 4u);
    if (std::isinf(r.factor)) {
      EXPECT_EQ(r.time, 2) << r.region;
      EXPECT_EQ(r.greedy_time, 2) << r.region;
    } else {
      EXPECT_EQ(r.time, 7) << r.region;
      EXPECT_EQ(r.speedup, 12.0 / 7) << r.region;
    }
  }
  EXPECT_EQ(rows[0].region, "(all regions)");
  EXPECT_EQ(rows[2].region, "children");
  // On one processor the region's work is what changes: 42 -> 22 at factor 2.
  const auto one = fs::predict_what_if(rep, 1, free_runtime());
  EXPECT_EQ(one[0].time, 22);
  EXPECT_EQ(one[0].measured_time, 42);
}

// The what-if text of a recorded report adds the replay's time at the
// report's max_processors for each region at its largest factor; without a
// record it has no such lines.
TEST(PredictWhatIf, TheWhatIfTextShowsTheReplay) {
  fs::options o = recorded(0);
  o.what_if.factors = {2, 4};
  o.what_if.read_environment = false;
  o.max_processors = 4;
  static constexpr fs::site children{"fan.cpp", 7, "fan", "children"};
  const auto program = [] {
    fs::charge(1);
    for (int i = 0; i < 4; ++i) {
      auto t = fs::spawn([] {
        fs::what_if_region w(children);
        fs::charge(12);
      });
      t();
    }
    { fs::sync_point sp; }
    fs::charge(1);
  };
  const fs::report rep = fs::measure("fan-out", program, o);
  // On 4 processors: 1 + 12 + 1 = 14 as recorded, 1 + 3 + 1 = 5 at factor 4.
  const std::string text = rep.what_if_text();
  const std::size_t at = text.find("Through the replay");
  ASSERT_NE(at, std::string::npos) << text;
  const std::string replay = text.substr(at);
  EXPECT_NE(replay.find("takes 14 units"), std::string::npos) << replay;
  EXPECT_NE(replay.find("children       4   5      2.80x"), std::string::npos) << replay;  // 14 / 5
  EXPECT_EQ(replay.find("children       2"), std::string::npos) << replay;                 // the largest factor only
  o.record = false;
  EXPECT_EQ(fs::measure("fan-out", program, o).what_if_text().find("Through the replay"), std::string::npos);
}

// ---- errors and output ------------------------------------------------------------
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const fs::error& e) {
    return e.what();
  }
  return "no error";
}

TEST(PredictErrors, SayWhatIsWrongInOneLine) {
  fs::options plain;
  plain.clock = fs::clock_kind::cost;
  const fs::report unrecorded = fs::measure(
      "x", [] { fs::charge(1); }, plain);
  EXPECT_NE(error_of([&] { fs::predict(unrecorded, {2}); }).find("no record"), std::string::npos);
  const fs::report rep = chain();
  EXPECT_NE(error_of([&] { fs::predict(rep, {0}); }).find("P = 0"), std::string::npos);
  EXPECT_NE(error_of([&] { fs::predict(rep, {}); }).find("no processor counts"), std::string::npos);
  EXPECT_NE(error_of([&] { fs::predict(rep, {70000}); }).find("P = 70000"), std::string::npos);
  fs::replay_model m;
  m.seeds = 0;
  EXPECT_NE(error_of([&] { fs::predict(rep, {2}, m); }).find("seeds"), std::string::npos);
  m = {};
  m.steal_cost = std::nan("");
  EXPECT_NE(error_of([&] { fs::predict(rep, {2}, m); }).find("steal_cost is not a finite"), std::string::npos);
  m = {};
  m.spawn_cost = -1;
  EXPECT_NE(error_of([&] { fs::predict(rep, {2}, m); }).find("spawn_cost is negative"), std::string::npos);
  // A partial record (stopped at its limit) is refused.
  fs::options small = recorded(0);
  small.record_limit = 100000;
  small.on_diagnostic = [](const fs::diagnostic&) {};
  const fs::report partial = fs::measure(
      "fib", [] { fib(16); }, small);
  ASSERT_FALSE(partial.record->complete);
  EXPECT_NE(error_of([&] { fs::predict(partial, {2}); }).find("partial"), std::string::npos);
  for (const std::string& e :
       {error_of([&] { fs::predict(partial, {2}); }), error_of([&] { fs::predict(rep, {0}); })}) {
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    EXPECT_EQ(e.rfind("forkscale: ", 0), 0u) << e;
  }
}

// The JSON, read back by the library's strict reader: every number is the
// prediction's own.
TEST(PredictOutput, JsonHoldsTheNumbersAndTheAssumptions) {
  const fs::prediction p = fs::predict(fan_out(), {1, 2, 4});
  namespace json = fs::detail::json;
  const json::value v = json::parse(p.to_json());
  const json::object_reader top(v, "");
  EXPECT_EQ(top.str("schema"), "forkscale.prediction");
  EXPECT_EQ(top.u64("schema_version"), 1u);
  EXPECT_EQ(top.number("work"), p.work);
  EXPECT_EQ(top.str("burden_source"), "option");
  const json::object_reader model(top.object("model"), "model");
  EXPECT_EQ(model.number("steal_cost"), 5);  // the report's burden
  EXPECT_EQ(model.number("steal_attempt_cost"), 0.5);
  EXPECT_EQ(top.array("assumptions").items.size(), p.assumptions.size());
  const json::value& points = top.array("points");
  ASSERT_EQ(points.items.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const json::object_reader pt(points.items[i], "points");
    EXPECT_EQ(pt.u64("processors"), p.points[i].processors);
    const json::object_reader g(pt.object("greedy"), "greedy");
    EXPECT_EQ(g.number("time"), p.points[i].greedy_time);
    const json::object_reader ws(pt.object("work_stealing"), "work_stealing");
    const json::object_reader t(ws.object("time"), "time");
    EXPECT_EQ(t.number("median"), p.points[i].stealing.median);
    const json::object_reader b(pt.object("bounds"), "bounds");
    EXPECT_EQ(b.number("brent_time"), p.points[i].brent_time);
  }
  const std::string text = p.to_text();
  EXPECT_NE(text.find("Assumptions"), std::string::npos);
  for (const auto& a : p.assumptions) EXPECT_FALSE(a.empty());
}

}  // namespace
