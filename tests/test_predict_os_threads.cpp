// The OS-thread replay (fs::replay_scheduler::os_threads, docs/predict.md):
// hand-computed cases under the cost clock (two equal threads on one core take
// twice as long, a thread waiting at a join uses no core, P at least the
// number of threads gives the longest path with a thread start on every spawn
// edge), and on random programs from the test generator, the event-driven
// replay against an independent oracle: a small-step simulation of processor
// sharing written from the record alone. Also the choice of the scheduler, the
// text and JSON that say which one ran, and the study's use of it.
//
// FORKSCALE_PROPERTY_SEED=<n> replays from seed n; FORKSCALE_PREDICT_COUNT=<n>
// sets how many random programs are compared (default 60).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

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
    std::cout << "[predict_os_threads] base seed " << s << " (replay with FORKSCALE_PROPERTY_SEED=" << s << ")\n";
    return s;
  }();
  return seed;
}

fs::options recorded() {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.burden = 5;
  o.record = true;
  return o;
}

fs::replay_model threads(double start, double spawn = 0, double wake = 0) {
  fs::replay_model m;
  m.scheduler = fs::replay_scheduler::os_threads;
  m.thread_start_cost = start;
  m.spawn_cost = spawn;
  m.core_wake_cost = wake;
  return m;
}

double time_at(const fs::report& rep, unsigned p, const fs::replay_model& m) {
  return fs::predict(rep, {p}, m).points.at(0).time;
}

// ---- hand-computed cases -------------------------------------------------------
// A child of 10 spawned, a continuation of 10, the join: strands s0 (0, ends at
// the spawn), the child c (10), the continuation k (10), s3 (0) after the join.
fs::report two_equal_threads() {
  return fs::measure(
      "two threads",
      [] {
        fs::join_handle h;
        auto t = fs::spawn(h, [] { fs::charge(10); });
        t();
        fs::charge(10);
        fs::sync_point sp(h);
      },
      recorded());
}

// On one core the two threads share it: each runs at half speed and both end
// at 20, twice a thread's length. On two they take 10. A thread start of 3 on
// two cores: c runs [3, 13]. On one core with a start of 3: k alone [0, 3],
// then both at half speed; k needs 7 more (ends at 17, c has done 7), c alone
// does its last 3: 20.
TEST(PredictOsThreads, TwoEqualThreadsShareOneCore) {
  const fs::report rep = two_equal_threads();
  EXPECT_EQ(time_at(rep, 1, threads(0)), 20);
  EXPECT_EQ(time_at(rep, 2, threads(0)), 10);
  EXPECT_EQ(time_at(rep, 64, threads(0)), 10);
  EXPECT_EQ(time_at(rep, 2, threads(3)), 13);
  EXPECT_EQ(time_at(rep, 1, threads(3)), 20);
  const fs::prediction p = fs::predict(rep, {1, 2}, threads(0));
  EXPECT_EQ(p.points[0].threads, 1u);
  EXPECT_EQ(p.points[0].peak_runnable, 2u);
  EXPECT_EQ(p.points[0].speedup, 1);
  EXPECT_EQ(p.points[1].speedup, 2);
  // A spawn cost of 4 on the spawning thread (s0 runs 4): on two cores c and
  // k both start at 4 (with no thread start): 14.
  EXPECT_EQ(time_at(rep, 2, threads(0, 4)), 14);
}

// Sleeping cores: one core is awake at the start, and the second wakes
// core_wake after a second thread became runnable. With a wake of 4 on two
// cores, c and k share one core for 4 (2 each), then run on a core each: 8
// more, 12 in all. A wake of 20 or more never comes (both end at 20, when the
// excess ends); a wake of 0 is the model without sleeping cores (10). One
// core has nothing to wake: 20. A thread start of 3 and a wake of 4: k alone
// [0, 3], both at half speed [3, 7] (k has done 5, c 2), then a core each: k
// ends at 12, c at 15.
TEST(PredictOsThreads, ASleepingCoreTakesAThreadCoreWakeLater) {
  const fs::report rep = two_equal_threads();
  EXPECT_EQ(time_at(rep, 2, threads(0, 0, 4)), 12);
  EXPECT_EQ(time_at(rep, 2, threads(0, 0, 20)), 20);
  EXPECT_EQ(time_at(rep, 2, threads(0, 0, 1000)), 20);
  EXPECT_EQ(time_at(rep, 2, threads(0, 0, 0)), 10);
  EXPECT_EQ(time_at(rep, 1, threads(0, 0, 4)), 20);
  EXPECT_EQ(time_at(rep, 2, threads(3, 0, 4)), 15);
  EXPECT_EQ(time_at(rep, 64, threads(3, 0, 4)), 15);
  // Resolved and said: the JSON has the model's core_wake_cost.
  const fs::prediction p = fs::predict(rep, {2}, threads(0, 0, 4));
  EXPECT_EQ(p.model.core_wake_cost, 4);
  EXPECT_NE(p.to_json().find("\"core_wake_cost\": 4"), std::string::npos) << p.to_json();
  EXPECT_EQ(fs::predict(rep, {2}, threads(0)).model.core_wake_cost, 0);
  fs::replay_model unset = threads(0);
  unset.core_wake_cost = -1;
  EXPECT_EQ(fs::predict(rep, {2}, unset).model.core_wake_cost, 0);
}

// Two rounds, each a spawn that costs its thread 1, then a child of 4 beside
// a continuation of 4, joined. With a wake of 2 on two cores: the spawn alone
// [0, 1]; the two threads share one core [1, 3] (1 each), then run on a core
// each [3, 6]; after the join the main thread alone spawns again [6, 7] and the
// second core sleeps, so the second round waits for its wake anew: [7, 9]
// shared, [9, 12] on two cores: 12. Were the second core to stay awake, the
// second round would end at 11; without a wake the whole takes 10.
TEST(PredictOsThreads, ACoreLeftWithoutAThreadSleepsAgain) {
  const fs::report rep = fs::measure(
      "rounds",
      [] {
        for (int round = 0; round < 2; ++round) {
          fs::join_handle h;
          auto t = fs::spawn(h, [] { fs::charge(4); });
          t();
          fs::charge(4);
          fs::sync_point sp(h);
        }
      },
      recorded());
  EXPECT_EQ(time_at(rep, 2, threads(0, 1, 2)), 12);
  EXPECT_EQ(time_at(rep, 2, threads(0, 1, 0)), 10);
  EXPECT_EQ(time_at(rep, 1, threads(0, 1, 2)), 18);
}

// The main thread spawns a child of 10 and waits for it at once, then runs 10.
// Waiting, it uses no core: on one core the child runs at full speed, [0, 10],
// and the whole takes 20. (Were the waiting thread runnable, the child would
// take 20 and the whole 30.)
TEST(PredictOsThreads, AThreadWaitingAtAJoinUsesNoCore) {
  const fs::report rep = fs::measure(
      "join",
      [] {
        fs::join_handle h;
        auto t = fs::spawn(h, [] { fs::charge(10); });
        t();
        { fs::sync_point sp(h); }
        fs::charge(10);
      },
      recorded());
  EXPECT_EQ(time_at(rep, 1, threads(0)), 20);
  EXPECT_EQ(time_at(rep, 1, threads(2)), 22);  // the child starts at 2; nothing else is runnable before
  EXPECT_EQ(fs::predict(rep, {1}, threads(0)).points[0].peak_runnable, 1u);
  // The child takes its creator's core: no core has to wake for it.
  EXPECT_EQ(time_at(rep, 2, threads(0, 0, 50)), 20);
}

// Three levels of spawns (fib(4)-like, every child and continuation a call of 1
// unit of work at the leaves): with a core per thread nothing is shared, so TP
// is the longest path with the thread start on every edge into a child.
long tree(int depth) {
  if (depth == 0) {
    fs::charge(1);
    return 1;
  }
  long a = 0, b = 0;
  fs::join_handle h;
  auto t = fs::spawn(h, [&] { a = tree(depth - 1); });
  t();
  b = tree(depth - 1);
  fs::sync_point sp(h);
  return a + b;
}

// The leaf on the path through three child edges: 3 starts, then 1 unit.
TEST(PredictOsThreads, EnoughCoresGiveTheSpanPlusTheThreadStarts) {
  const fs::report rep = fs::measure(
      "tree", [] { tree(3); }, recorded());
  ASSERT_EQ(rep.work(), 8u);
  ASSERT_EQ(rep.span(), 1u);
  for (const unsigned p : {8u, 9u, 64u}) {
    EXPECT_EQ(time_at(rep, p, threads(0)), 1) << p;
    EXPECT_EQ(time_at(rep, p, threads(5)), 1 + 3 * 5) << p;
  }
  // One core, no start: the core is never idle while a thread is runnable.
  EXPECT_EQ(time_at(rep, 1, threads(0)), 8);
  const fs::prediction p = fs::predict(rep, {1}, threads(0));
  EXPECT_EQ(p.points[0].threads, 7u);
  EXPECT_EQ(p.points[0].peak_runnable, 8u);
}

// ---- the oracle: processor sharing in small steps, from the record ---------------
// A strand is ready when its prev and its join are done; a join when all its
// strands and joins are. A strand whose prev is in another task starts a
// thread: it may run `start` after its prev ended. In each step of length dt
// the R strands that may run advance by dt * min(1, A / R), A the cores awake;
// a strand that reaches its cost ends at the step's end. At each step's start
// the cores follow the strands: with R <= A, A becomes max(1, R); with R > A
// and A < P, the sleeping cores wake (A = min(P, R)) `wake` after the first
// step of the excess.
double small_steps(const fs::execution_record& r, unsigned cores, double start, double dt, double wake = 0) {
  const std::size_t n = r.strands.size(), m = r.joins.size();
  std::vector<double> done_at(n, -1), join_done(m, -1), left(n);
  for (std::size_t i = 0; i < n; ++i) left[i] = static_cast<double>(r.strands[i].span);
  const auto join_time = [&](std::size_t j) {
    // When every predecessor of join j is done (or -1 if one is not).
    std::vector<std::size_t> stack{j};
    double t = 0;
    while (!stack.empty()) {
      const std::size_t k = stack.back();
      stack.pop_back();
      for (const std::uint32_t s : r.joins[k].strands) {
        if (done_at[s] < 0) return -1.0;
        t = std::max(t, done_at[s]);
      }
      for (const std::uint32_t q : r.joins[k].joins) stack.push_back(q);
    }
    return t;
  };
  // When strand i may run, or -1.
  const auto may_run_from = [&](std::size_t i) {
    const fs::record_strand& s = r.strands[i];
    double t = 0;
    if (s.prev >= 0) {
      const double p = done_at[static_cast<std::size_t>(s.prev)];
      if (p < 0) return -1.0;
      t = p + (r.strands[static_cast<std::size_t>(s.prev)].task != s.task ? start : 0.0);
    }
    if (s.join >= 0) {
      const double j = join_time(static_cast<std::size_t>(s.join));
      if (j < 0) return -1.0;
      t = std::max(t, j);
    }
    return t;
  };
  std::size_t finished = 0;
  double now = 0, awake = 1, wake_at = -1;
  std::vector<std::size_t> running;
  while (finished < n) {
    running.clear();
    for (std::size_t i = 0; i < n; ++i) {
      if (done_at[i] >= 0) continue;
      const double from = may_run_from(i);
      if (from >= 0 && from <= now + 1e-12) running.push_back(i);
    }
    // Zero-cost strands end the moment they may run.
    bool zero = false;
    for (const std::size_t i : running)
      if (left[i] <= 0) {
        done_at[i] = now;
        ++finished;
        zero = true;
      }
    if (zero) continue;
    const double want = static_cast<double>(running.size());
    if (want <= awake) {
      awake = std::max(1.0, want);
      wake_at = -1;
    } else if (awake < cores) {
      if (wake_at < 0) wake_at = now + wake;
      if (now >= wake_at - 1e-12) {
        awake = std::min<double>(cores, want);
        wake_at = -1;
      }
    }
    const double rate = want <= awake ? 1.0 : awake / want;
    now += dt;
    for (const std::size_t i : running) {
      left[i] -= rate * dt;
      if (left[i] <= 1e-9) {
        done_at[i] = now;
        ++finished;
      }
    }
    if (now > 1e7) return -1;  // a record the oracle cannot finish
  }
  return now;
}

TEST(PredictOsThreadsProperty, EventDrivenReplayMatchesSmallSteps) {
  const std::uint64_t count = env_or("FORKSCALE_PREDICT_COUNT", 60);
  rp::scheduler sched(0);
  std::uint64_t compared = 0, failures = 0;
  for (std::uint64_t i = 0; i < 20 * count && compared < count && failures < 3; ++i) {
    const std::uint64_t seed = base_seed() + i;
    const rp::program prog = rp::generator(seed).make();
    rp::interpreter<> run(sched, seed * 7919);
    fs::options opt;
    opt.record = true;
    opt.on_diagnostic = [](const fs::diagnostic&) {};
    const fs::report rep = run.run(prog, "program", opt);
    if (!rep.record || !rep.record->complete || rep.record->empty() || rep.work() == 0) continue;
    // Small enough for the oracle: its steps cost strands x steps.
    if (rep.record->strands.size() > 150 || rep.work() > 3000) continue;
    ++compared;
    const double start = static_cast<double>(seed % 4);           // 0 to 3 units
    const double wake = static_cast<double>((seed / 4) % 4) * 2;  // 0, 2, 4 or 6 units
    const double dt = 1.0 / 64;                                   // exact in binary: step ends fall on whole units
    // Each strand's end may come up to one step late, and a lateness is handed
    // on along a path of strands: the oracle is within strands x dt.
    // A wake can come a step late too, once per excess.
    const double tolerance = 2 * static_cast<double>(rep.record->strands.size() + 1) * dt;
    for (const unsigned p : {1u, 2u, 3u, 5u}) {
      const fs::prediction pr = fs::predict(rep, {p}, threads(start, 0, wake));
      const double expect = small_steps(*rep.record, p, start, dt, wake);
      const double got = pr.points[0].time;
      // The bound is two-sided: the oracle can be early as well as late.
      // Processor sharing is not monotone in the strands' end times: a strand
      // the oracle ends late shares the cores with others for longer, which
      // can leave a strand on the longest path more of a core than the exact
      // replay gives it (seed 3837373488, P = 3, no wake: the replay's 88/3
      // against the oracle's 29.328 in steps of 1/64, and 29.3335 in steps of
      // 1/2048); and a step that sees an excess end late keeps a core awake
      // that the exact replay puts to sleep.
      const double early = tolerance;
      if (!(expect >= 0 && got >= expect - tolerance - 1e-9 && got <= expect + early + 1e-9)) {
        ++failures;
        ADD_FAILURE() << "seed " << seed << ", P = " << p << ", thread start " << start << ", core wake " << wake
                      << ": event-driven " << got << ", small steps " << expect << " (tolerance " << tolerance << ")\n"
                      << prog.describe();
        break;
      }
      // The work and span laws hold for any sharing; on one core with free
      // starts the core is never idle.
      EXPECT_GE(got + 1e-9, std::max(pr.work / p, pr.span)) << "seed " << seed;
      if (p == 1 && start == 0) {
        EXPECT_NEAR(got, pr.work, 1e-9 * pr.work) << "seed " << seed;
      }
    }
  }
  EXPECT_GE(compared, std::min<std::uint64_t>(count, 10)) << "too few random programs small enough for the oracle";
}

// ---- the scheduler chosen and said ------------------------------------------------
TEST(PredictOsThreads, TheSchedulerIsChosenByTheReportAndSaid) {
  fs::report rep = two_equal_threads();
  // A report of another runtime (here the cost clock's default burden): work stealing.
  fs::prediction p = fs::predict(rep, {1, 2});
  EXPECT_EQ(p.model.scheduler, fs::replay_scheduler::work_stealing);
  EXPECT_EQ(p.points[1].time, p.points[1].stealing.median);
  EXPECT_NE(p.to_text().find("Scheduler: work stealing"), std::string::npos) << p.to_text();
  EXPECT_NE(p.to_json().find("\"scheduler\": \"work_stealing\""), std::string::npos) << p.to_json();
  // A report whose burden was calibrated for std::thread: OS threads, the
  // thread start the report's burden.
  rep.burden_source = "measured std_thread";
  p = fs::predict(rep, {1, 2});
  EXPECT_EQ(p.model.scheduler, fs::replay_scheduler::os_threads);
  EXPECT_EQ(p.model.thread_start_cost, 5);
  EXPECT_EQ(p.points[1].time, 15);  // c runs [5, 15]
  EXPECT_EQ(p.points[1].greedy_time, 0);
  const std::string text = p.to_text(), json = p.to_json();
  EXPECT_NE(text.find("Scheduler: OS threads"), std::string::npos) << text;
  EXPECT_NE(text.find("threads TP"), std::string::npos) << text;
  bool said = false;
  for (const std::string& a : p.assumptions)
    said = said || a.find(
                       "a thread starts 5 units (the report's burden; source: measured std_thread) after its "
                       "spawn") != std::string::npos;
  EXPECT_TRUE(said) << text;
  EXPECT_NE(json.find("\"scheduler\": \"os_threads\""), std::string::npos) << json;
  // The backend the measurement saw decides, when the report has one.
  rep.burden_source = "default";
  rep.backend = "std_thread";
  EXPECT_EQ(fs::predict(rep, {1, 2}).model.scheduler, fs::replay_scheduler::os_threads);
  rep.backend = "std_thread+tbb";  // spawns through two libraries, std::thread's first
  EXPECT_EQ(fs::predict(rep, {1, 2}).model.scheduler, fs::replay_scheduler::os_threads);
  rep.backend = "tbb+std_thread";
  EXPECT_EQ(fs::predict(rep, {1, 2}).model.scheduler, fs::replay_scheduler::work_stealing);
  rep.backend = "std_threadlike";  // not a prefix match
  EXPECT_EQ(fs::predict(rep, {1, 2}).model.scheduler, fs::replay_scheduler::work_stealing);
  rep.burden_source = "measured std_thread";  // a named backend wins over the burden's source
  rep.backend = "tbb";
  EXPECT_EQ(fs::predict(rep, {1, 2}).model.scheduler, fs::replay_scheduler::work_stealing);
  EXPECT_NE(
      json.find(
          "\"os_threads\": {\n        \"time\": 15.0,\n        \"threads\": 1,\n        \"peak_runnable\": 2\n      }"),
      std::string::npos)
      << json;
  EXPECT_EQ(json.find("\"work_stealing\": {"), std::string::npos) << json;
  // Asked for by name, either one runs whatever the report.
  fs::replay_model ws;
  ws.scheduler = fs::replay_scheduler::work_stealing;
  EXPECT_EQ(fs::predict(rep, {2}, ws).model.scheduler, fs::replay_scheduler::work_stealing);
  rep.burden_source = "default";
  EXPECT_EQ(fs::predict(rep, {2}, threads(-1)).model.thread_start_cost, 5);
  // What-if through the replay uses the same scheduler (no greedy under it).
  EXPECT_STREQ(fs::to_string(fs::replay_scheduler::os_threads), "os_threads");
}

TEST(PredictOsThreads, ABadThreadStartCostIsRefused) {
  const fs::report rep = two_equal_threads();
  for (const double bad : {std::nan(""), HUGE_VAL}) {
    try {
      fs::predict(rep, {2}, threads(bad));
      ADD_FAILURE() << "thread_start_cost " << bad << " was accepted";
    } catch (const fs::error& e) {
      EXPECT_NE(std::string(e.what()).find("thread_start_cost is not a finite number"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
