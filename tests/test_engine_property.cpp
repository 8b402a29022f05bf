// Property test: random fork-join programs, run through the guards serially and
// on real threads, must give exactly the numbers of the brute-force dag oracle
// under the cost clock — whole program, every region, and every field of every
// row of the call-site and spawn-site profiles (with report::check_profile()
// holding).
//
// FORKSCALE_PROPERTY_SEED=<n> replays from seed n; FORKSCALE_PROPERTY_COUNT=<n>
// sets how many programs are run (default 10,000).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <forkscale/detail/engine/join_set.hpp>  // the quiet join, tested on its own

#include "support/random_program.hpp"

namespace {

using rp::charge;
using rp::sync;
using rp::with_body;

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const std::uint64_t s = rp::env_or("FORKSCALE_PROPERTY_SEED", std::random_device{}());
    std::cout << "[property] base seed " << s << " (replay with FORKSCALE_PROPERTY_SEED=" << s << ")\n";
    return s;
  }();
  return seed;
}

void run_programs(unsigned workers, std::uint64_t seed_offset, std::uint64_t share = 1) {
  const std::uint64_t count = std::max<std::uint64_t>(1, rp::env_or("FORKSCALE_PROPERTY_COUNT", 10000) / share);
  rp::scheduler sched(workers);
  // Region and profile mismatches are counted apart, so that a profile bug does
  // not stop the region checks: the run stops after 3 region failures, and at most
  // 3 profile failures are shown.
  std::uint64_t failures = 0, profile_failures = 0, programs = 0;
  for (std::uint64_t i = 0; i < count && failures < 3; ++i) {
    const std::uint64_t seed = base_seed() + seed_offset + i;
    rp::generator gen(seed);
    const rp::program p = gen.make();
    rp::oracle o;
    const rp::region_table expected = o.evaluate(p, "program");
    rp::interpreter<> run(sched, seed * 7919);
    std::vector<forkscale::diagnostic> diags;
    forkscale::options opt;
    opt.on_diagnostic = [&](const forkscale::diagnostic& d) { diags.push_back(d); };
    const forkscale::report rep = run.run(p, "program", opt);
    ++programs;
    const std::string diff = rp::compare_regions(expected, rp::from_report(rep));
    std::string diag_text;
    for (const auto& d : rep.diagnostics) diag_text += "  " + d.where + ": " + d.problem + "\n";
    if (!diff.empty() || rep.diagnostic_count != 0) {
      ++failures;
      ADD_FAILURE() << "program with seed " << seed << " (workers " << workers << ") differs from the oracle:\n"
                    << diff << "diagnostics:\n"
                    << diag_text << "program:\n"
                    << p.describe();
    }

    const rp::totals& whole = expected.at("program");
    std::string profile_diff = rp::compare_profiles(o.profiles(), rep);
    const std::string oracle_check = rp::profile_self_check(o.profiles(), whole.work, whole.span);
    if (!oracle_check.empty()) profile_diff += "  the oracle's own profile fails the self-checks:\n" + oracle_check;
    const std::string engine_check = rep.check_profile();
    if (!engine_check.empty()) profile_diff += "  report::check_profile(): " + engine_check + "\n";
    if (!profile_diff.empty()) {
      if (++profile_failures <= 3)
        ADD_FAILURE() << "program with seed " << seed << " (workers " << workers
                      << "): its site profiles differ from the oracle (first of the programs "
                         "run with FORKSCALE_PROPERTY_SEED="
                      << seed - seed_offset << "):\n"
                      << profile_diff << "program:\n"
                      << p.describe() << "the oracle's invocations:\n"
                      << o.explain();
    }
  }
  if (profile_failures > 0)
    ADD_FAILURE() << "site profiles differ from the oracle in " << profile_failures << " of " << programs
                  << " programs (workers " << workers << ")";
}

TEST(EngineProperty, SerialRunsMatchOracle) { run_programs(0, 0); }

TEST(EngineProperty, ThreadedRunsMatchOracle) { run_programs(3, 0); }

// The same programs, fresh seeds, on a single worker plus the waiting threads.
TEST(EngineProperty, OneWorkerRunsMatchOracle) {
  if (rp::env_or("FORKSCALE_PROPERTY_COUNT", 10000) < 100) GTEST_SKIP() << "count too small";
  run_programs(1, 1u << 30);
}

// Shared readings: under the wall clocks a child run at once starts at its
// spawn's reading, and a join that waited for nothing starts the next strand at
// the reading that ended the last (engine::begin_child, engine::end_sync).
// Switched on under the cost clock, they must change nothing: children run at
// once or on other threads, joins that ran other tasks while they waited (the
// helping threads of rp::scheduler) — the oracle's numbers exactly. Skipping a
// reading where a task ran meanwhile would give its charges to the joiner.
struct shared_readings {
  shared_readings() { forkscale::detail::fuse_readings_under_cost_clock = true; }
  ~shared_readings() { forkscale::detail::fuse_readings_under_cost_clock = false; }
  shared_readings(const shared_readings&) = delete;
  shared_readings& operator=(const shared_readings&) = delete;
};
TEST(EngineProperty, SharedReadingsSerialRunsMatchOracle) {
  shared_readings on;
  run_programs(0, 2u << 28, 4);
}
TEST(EngineProperty, SharedReadingsThreadedRunsMatchOracle) {
  shared_readings on;
  run_programs(3, 3u << 28, 4);
}

// A child starts at its spawn's reading only when called as it is made: a kept
// callable called later takes a reading of its own, and so does one called as
// an rvalue after an event in the spawner. Under the cost clock with shared
// readings on, the charge between the spawn and the call stays the spawner's.
TEST(EngineProperty, SharedReadingsOnlyForAChildRunAtOnce) {
  namespace fs = forkscale;
  shared_readings on;
  fs::options opt;
  opt.clock = fs::clock_kind::cost;
  const fs::report rep = fs::measure(
      "at once",
      [] {
        auto kept = fs::spawn([] { fs::charge(10); });
        fs::charge(5);  // the spawner's continuation, not the child's
        kept();
        { fs::sync_point sp; }
        auto moved = fs::spawn([] { fs::charge(10); });
        {
          fs::call_site cs;  // an event in the spawner: the child reads the clock
          fs::charge(5);
        }
        std::move(moved)();
        { fs::sync_point sp; }
        fs::spawn([] { fs::charge(10); })();  // at once
        { fs::sync_point sp; }
      },
      opt);
  EXPECT_EQ(rep.work(), 40u);
  EXPECT_EQ(rep.span(), 30u);  // each join: max(child 10, continuation 5 or 0)
  EXPECT_EQ(rep.diagnostic_count, 0u);
}

// Many children end at the same moment on as many threads and report into one
// join set (the task's sync block, or a task group), round after round: work
// adds up, the span is the longest child's, whatever order the reports land in.
TEST(EngineProperty, ManyChildrenReportAtOnce) {
  namespace fs = forkscale;
  static constexpr int children = 12, rounds = 40;
  for (bool group : {false, true}) {
    for (bool shared : {false, true}) {
      forkscale::detail::fuse_readings_under_cost_clock = shared;
      fs::options opt;
      opt.clock = fs::clock_kind::cost;
      std::uint64_t expect_work = 0, expect_span = 0;
      const fs::report rep = fs::measure(
          "many",
          [&] {
            fs::task_group tg;
            for (int r = 0; r < rounds; ++r) {
              fs::charge(1);
              expect_work += 1;
              expect_span += 1;
              std::atomic<int> ready{0};
              std::vector<std::thread> threads;
              std::uint64_t longest = 0;
              for (int i = 0; i < children; ++i) {
                const std::uint64_t cost = 1 + static_cast<std::uint64_t>((i * 7 + r * 3) % 13);
                expect_work += cost;
                longest = std::max(longest, cost);
                auto body = [cost, &ready] {
                  fs::charge(cost);
                  ready.fetch_add(1);
                  while (ready.load() < children) std::this_thread::yield();
                };
                if (group)
                  threads.emplace_back(fs::spawn(tg, body));
                else
                  threads.emplace_back(fs::spawn(body));
              }
              expect_span += longest;
              if (group) {
                fs::sync_point sp(tg);
                for (auto& t : threads) t.join();
              } else {
                fs::sync_point sp;
                for (auto& t : threads) t.join();
              }
            }
          },
          opt);
      forkscale::detail::fuse_readings_under_cost_clock = false;
      EXPECT_EQ(rep.work(), expect_work) << "group " << group << ", shared readings " << shared;
      EXPECT_EQ(rep.span(), expect_span) << "group " << group << ", shared readings " << shared;
      EXPECT_EQ(rep.spawns(), std::uint64_t(children) * rounds);
      EXPECT_EQ(rep.diagnostic_count, 0u);
    }
  }
}

// A join that finds nothing takes no lock (join_set::take's quiet path). Its
// owner joins over and over while another thread counts children into the set
// and reports them: every report is taken by exactly one join, whichever
// interleaving — none lost between a quiet join's two readings, none taken twice.
TEST(JoinSet, QuietJoinsLoseNoReport) {
  namespace d = forkscale::detail;
  static constexpr std::uint64_t children = 20000;
  d::join_set* j = d::join_set::make(nullptr);
  std::atomic<bool> done{false};
  std::thread spawner([&] {
    for (std::uint64_t i = 0; i < children; ++i) {
      j->count_shared_child();
      d::path_totals t;
      t.work = i + 1;
      t.span = i + 1;
      t.spawns = 1;
      d::join_set::report(j, t, d::path_prof{});
    }
    done.store(true);
  });
  std::uint64_t work = 0, finished = 0, spawns = 0, quiet = 0, joins = 0;
  std::uint64_t longest = 0;
  auto take = [&] {
    const d::join_contents c = j->take();
    EXPECT_GE(c.running, 0);
    ++joins;
    if (c.quiet) {
      ++quiet;
      EXPECT_EQ(c.finished, 0u);
      EXPECT_EQ(c.totals.work, 0u);
    }
    work += c.totals.work;
    spawns += c.totals.spawns;
    finished += c.finished;
    longest = std::max(longest, c.totals.span);
  };
  while (!done.load()) take();
  spawner.join();
  take();
  EXPECT_EQ(finished, children);
  EXPECT_EQ(spawns, children);
  EXPECT_EQ(work, children * (children + 1) / 2);
  EXPECT_EQ(longest, children);
  // The last join, after every report, found nothing left: it was quiet.
  const d::join_contents last = j->take();
  EXPECT_TRUE(last.quiet);
  EXPECT_EQ(last.running, 0);
  std::cout << "[quiet joins] " << quiet << " of " << joins << " joins took no lock\n";
  d::join_set::destroy(j);
}

// A join that waits, under a wall clock: the time it waited is not work, even
// though every reading before it could be shared. The child sleeps on another
// thread while its parent waits for it at once; were the wait taken for a join
// that waited for nothing, the parent's next strand would hold the whole wait
// and the work would be about twice the child's time, not about once.
TEST(EngineProperty, WaitingJoinIsNotWorkUnderWallClock) {
  namespace fs = forkscale;
  fs::options opt;
  opt.clock = fs::clock_kind::steady;
  opt.compensate = false;
  opt.check_load = false;
  std::uint64_t child_ns = 0;
  const fs::report rep = fs::measure(
      "wait",
      [&] {
        fs::join_handle h;
        std::thread t(fs::spawn(h, [&] {
          const auto t0 = std::chrono::steady_clock::now();
          std::this_thread::sleep_for(std::chrono::milliseconds(60));
          child_ns = static_cast<std::uint64_t>(
              std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
        }));
        fs::sync_point sp(h);
        t.join();
      },
      opt);
  ASSERT_GT(child_ns, 0u);
  EXPECT_GE(rep.work(), child_ns);
  EXPECT_LT(rep.work(), child_ns + child_ns / 2) << "the join's wait was counted as work";
}

// The oracle itself, on programs whose numbers are known by hand.
// One parent spawns and joins a child 300 times in a row; each child makes a call
// or two, and whether the child's path or the parent's wins each join varies. The
// parent's record chain grows past the fold limit again and again and is shared
// with every child (the fold before sharing, observers/profile.hpp): the site
// profiles must still be the oracle's, run serially and on worker threads.
TEST(EngineProperty, LongLoopOfSpawnAndSyncMatchesOracle) {
  rp::program p;
  for (std::uint64_t i = 0; i < 300; ++i) {
    rp::body child;
    child.push_back(rp::with_body(rp::op::call, static_cast<int>(i % 3), {rp::charge(1 + i % 7)}));
    if (i % 4 == 0) child.push_back(rp::with_body(rp::op::call, 4, {rp::charge(2)}));
    child.push_back(rp::charge(i % 5));
    p.root.push_back(rp::with_body(rp::op::spawn, static_cast<int>(i % 2), std::move(child)));
    p.root.push_back(rp::charge(1 + (i * 7) % 11));
    p.root.push_back(rp::sync());
    if (i % 10 == 0) p.root.push_back(rp::with_body(rp::op::call, 5, {rp::charge(3)}));
  }
  rp::oracle o;
  const rp::region_table expected = o.evaluate(p, "loop");
  for (unsigned workers : {0u, 3u}) {
    rp::scheduler sched(workers);
    rp::interpreter<> run(sched, 17 + workers);
    const forkscale::report rep = run.run(p, "loop", forkscale::options{});
    EXPECT_EQ(rp::compare_regions(expected, rp::from_report(rep)), "") << "workers " << workers;
    EXPECT_EQ(rp::compare_profiles(o.profiles(), rep), "") << "workers " << workers;
    EXPECT_EQ(rep.check_profile(), "") << "workers " << workers;
    EXPECT_EQ(rep.diagnostic_count, 0u) << "workers " << workers;
  }
}

// A task's end reports the records still in its frame beside its chain, and
// its join set copies them only when its path is the longest there (profile
// prof_records.hpp, pending_records). Children that end with 0 to 6 records in the
// frame (distinct sites in turn, so none merge; past 4 the frame has pushed
// some onto the chain), that win or lose against a sibling or the spawner's
// own path, that leave a child of their own to join at their end, and joins
// that take two rounds of children at once: the oracle's profiles, serially
// and on worker threads.
TEST(EngineProperty, RecordsLeftInTheFrameAtATasksEndMatchOracle) {
  rp::program p;
  for (int i = 0; i < 60; ++i) {
    rp::body child;
    for (int k = 0; k < i % 7; ++k)
      child.push_back(
          rp::with_body(rp::op::call, (i + k) % 6, {rp::charge(1 + static_cast<std::uint64_t>(i * k) % 5)}));
    if (i % 5 == 0) child.push_back(rp::with_body(rp::op::spawn, 1, {rp::charge(4 + i % 3)}));  // joined at its end
    child.push_back(rp::charge(static_cast<std::uint64_t>(i % 4)));
    p.root.push_back(rp::with_body(rp::op::spawn, i % 4, std::move(child)));
    if (i % 3 == 0) p.root.push_back(rp::with_body(rp::op::spawn, (i + 1) % 4, {rp::charge(3u * (i % 5))}));
    p.root.push_back(rp::charge(1 + static_cast<std::uint64_t>(i * 5) % 13));
    if (i % 2 == 0) p.root.push_back(rp::sync());
  }
  p.root.push_back(rp::sync());
  rp::oracle o;
  const rp::region_table expected = o.evaluate(p, "pending");
  for (unsigned workers : {0u, 3u}) {
    rp::scheduler sched(workers);
    rp::interpreter<> run(sched, 23 + workers);
    const forkscale::report rep = run.run(p, "pending", forkscale::options{});
    EXPECT_EQ(rp::compare_regions(expected, rp::from_report(rep)), "") << "workers " << workers;
    EXPECT_EQ(rp::compare_profiles(o.profiles(), rep), "") << "workers " << workers;
    EXPECT_EQ(rep.check_profile(), "") << "workers " << workers;
    EXPECT_EQ(rep.diagnostic_count, 0u) << "workers " << workers;
  }
}

TEST(Oracle, HandMadeProgram) {
  // charge 10; spawn { charge 100 }; charge 50; sync; charge 5  (burden 7)
  rp::program p;
  p.burden = 7;
  auto child = std::make_shared<rp::body>();
  rp::stmt c;
  c.kind = rp::op::charge;
  c.cost = 100;
  child->push_back(c);
  rp::stmt s;
  s.kind = rp::op::charge;
  s.cost = 10;
  p.root.push_back(s);
  rp::stmt sp;
  sp.kind = rp::op::spawn;
  sp.sub = child;
  p.root.push_back(sp);
  s.cost = 50;
  p.root.push_back(s);
  rp::stmt sy;
  sy.kind = rp::op::sync;
  p.root.push_back(sy);
  s.cost = 5;
  p.root.push_back(s);
  rp::oracle o;
  const auto t = o.evaluate(p, "root");
  const rp::totals& r = t.at("root");
  EXPECT_EQ(r.work, 165u);
  EXPECT_EQ(r.span, 115u);           // 10 + 100 + 5
  EXPECT_EQ(r.burdened_span, 115u);  // continuation 10 + 7 + 50 = 67 < 110
  EXPECT_EQ(r.spawns, 1u);
  EXPECT_EQ(r.syncs, 1u);
}

template <class Row>
const Row& row(const std::vector<Row>& rows, forkscale::site_kind kind, const std::string& name) {
  for (const Row& r : rows)
    if (r.kind == kind && r.name == name) return r;
  throw std::runtime_error("no row " + name);
}

void expect_measure(const forkscale::site_measure& m, std::uint64_t count, std::uint64_t work, std::int64_t span,
                    const std::string& what) {
  EXPECT_EQ(m.count, count) << what;
  EXPECT_EQ(m.work, work) << what;
  EXPECT_EQ(m.span, span) << what;
}

// The oracle's profiles on a program whose numbers are worked out by hand. Task ids
// (docs/model.md; the values are checked in test_profile_cases.cpp): the root's 1st
// and 2nd tasks 0x910a2dec89025cc1 < 0xbeeb8da1658eec67; the 2nd task's 1st and 2nd
// 0x778b1aa9c29bc869 > 0x08c9eb4685b1dad7.
//   spawn A [alpha.cpp:12] { charge 10 }
//   spawn B [beta.cpp:22] {
//     spawn R1 [task ζ] { charge 4 }; spawn R2 [alpha.cpp:10] { charge 4 }
//     charge 3; sync          B's own 3 < R1 4 = R2 4: R1 (larger id) wins
//     charge 6                B ends at 10
//   }
//   charge 10; sync           root 10 = A 10 = B 10: B (largest id) wins
// W = 10 + 17 + 10 = 37, S = 10; on span B, R1. Local spans: A 10, R1 4, R2 4,
// B 10 - 4 = 6, root 10 - 10 = 0 (local work 10). Then a task call that joins a
// task spawned before it:
//   spawn A [alpha.cpp:12] { charge 10 }; charge 8; task call T [fa alpha.cpp:10] { sync; charge 1 }
// W = 19, S = 11; T: work 11, span 3, local span 3 - 10 = -7; root local span 8.
TEST(Oracle, HandMadeProfiles) {
  {
    rp::program p;
    p.root.push_back(with_body(rp::op::spawn, 1, {charge(10)}));
    p.root.push_back(with_body(rp::op::spawn, 2,
                               {with_body(rp::op::spawn, 3, {charge(4)}), with_body(rp::op::spawn, 0, {charge(4)}),
                                charge(3), sync(), charge(6)}));
    p.root.push_back(charge(10));
    p.root.push_back(sync());
    rp::oracle o;
    const auto t = o.evaluate(p, "root");
    EXPECT_EQ(t.at("root").work, 37u);
    EXPECT_EQ(t.at("root").span, 10u);
    const rp::site_profiles& pr = o.profiles();
    ASSERT_EQ(pr.call_sites.size(), 5u);
    ASSERT_EQ(pr.spawn_sites.size(), 5u);
    const auto spawn = forkscale::site_kind::spawn;
    const auto& root = pr.call_sites.front();
    EXPECT_EQ(root.kind, forkscale::site_kind::root);
    expect_measure(root.top_call_site_on_span, 1, 37, 10, "root");
    expect_measure(root.local_on_work, 1, 10, 0, "root");
    const auto& a = row(pr.call_sites, spawn, "alpha.cpp:12");
    expect_measure(a.top_call_site_on_work, 1, 10, 10, "A");
    expect_measure(a.top_call_site_on_span, 0, 0, 0, "A");
    expect_measure(a.local_on_span, 0, 0, 0, "A");
    const auto& b = row(pr.call_sites, spawn, "beta.cpp:22");
    expect_measure(b.top_call_site_on_span, 1, 17, 10, "B");
    expect_measure(b.top_caller_on_span, 1, 17, 10, "B");
    expect_measure(b.local_on_span, 1, 9, 6, "B");
    const auto& r1 = row(pr.call_sites, spawn, "task \u03b6");
    expect_measure(r1.top_caller_on_span, 1, 4, 4, "R1");
    expect_measure(r1.local_on_span, 1, 4, 4, "R1");
    const auto& r2 = row(pr.call_sites, spawn, "alpha.cpp:10");
    expect_measure(r2.top_caller_on_work, 1, 4, 4, "R2");
    expect_measure(r2.top_caller_on_span, 0, 0, 0, "R2");
    EXPECT_EQ(row(pr.spawn_sites, spawn, "beta.cpp:22").critical_span, 6);
    EXPECT_DOUBLE_EQ(row(pr.spawn_sites, spawn, "beta.cpp:22").critical_percent, 60.0);
    EXPECT_EQ(row(pr.spawn_sites, spawn, "task \u03b6").critical_span, 4);
    EXPECT_EQ(row(pr.spawn_sites, spawn, "alpha.cpp:12").critical_span, 0);
    EXPECT_EQ(pr.spawn_sites.front().critical_span, 0);
    EXPECT_EQ(pr.spawn_sites.front().exclusive_work, 10u);
  }
  {
    rp::program p;
    p.root.push_back(with_body(rp::op::spawn, 1, {charge(10)}));
    p.root.push_back(charge(8));
    p.root.push_back(with_body(rp::op::task_call, 0, {sync(), charge(1)}));
    rp::oracle o;
    const auto t = o.evaluate(p, "root");
    EXPECT_EQ(t.at("root").span, 11u);
    const rp::site_profiles& pr = o.profiles();
    const auto& call = row(pr.call_sites, forkscale::site_kind::call, "alpha.cpp:10");
    expect_measure(call.top_call_site_on_span, 1, 11, 3, "T");
    expect_measure(call.local_on_span, 1, 1, -7, "T");
    expect_measure(pr.call_sites.front().local_on_span, 1, 8, 8, "root");
    EXPECT_EQ(pr.spawn_sites.front().critical_span, 1);
  }
}

// The profile comparison sees a change in any one field of any row.
TEST(Oracle, ProfileComparisonSeesEveryField) {
  rp::program p;
  rp::oracle o;
  // a program with a few sites
  for (std::uint64_t seed = 1;; ++seed) {
    p = rp::generator(seed).make();
    o.evaluate(p, "program");
    if (o.profiles().call_sites.size() >= 4 && o.profiles().spawn_sites.size() >= 3) break;
  }
  forkscale::report rep;
  rep.call_sites = o.profiles().call_sites;
  rep.spawn_sites = o.profiles().spawn_sites;
  std::stable_sort(rep.call_sites.begin() + 1, rep.call_sites.end(),
                   [](const auto& x, const auto& y) { return x.local_on_span.span > y.local_on_span.span; });
  ASSERT_EQ(rp::compare_profiles(o.profiles(), rep), "");
  using call_edit = void (*)(forkscale::call_site_profile&);
  const call_edit call_edits[] = {
      [](forkscale::call_site_profile& r) { r.file += "x"; },
      [](forkscale::call_site_profile& r) { r.line += 1; },
      [](forkscale::call_site_profile& r) { r.function += "x"; },
      [](forkscale::call_site_profile& r) { r.tag += "x"; },
      [](forkscale::call_site_profile& r) { r.name += "x"; },
      [](forkscale::call_site_profile& r) { r.kind = forkscale::site_kind::call; },
      [](forkscale::call_site_profile& r) { r.recursive = !r.recursive; },
      [](forkscale::call_site_profile& r) { r.top_call_site_on_work.count += 1; },
      [](forkscale::call_site_profile& r) { r.top_call_site_on_work.work += 1; },
      [](forkscale::call_site_profile& r) { r.top_call_site_on_work.span += 1; },
      [](forkscale::call_site_profile& r) { r.top_call_site_on_span.count += 1; },
      [](forkscale::call_site_profile& r) { r.top_caller_on_work.work += 1; },
      [](forkscale::call_site_profile& r) { r.top_caller_on_span.span += 1; },
      [](forkscale::call_site_profile& r) { r.local_on_work.count += 1; },
      [](forkscale::call_site_profile& r) { r.local_on_span.work += 1; },
  };
  for (std::size_t i = 0; i < rep.call_sites.size(); ++i)
    for (std::size_t e = 0; e < sizeof call_edits / sizeof call_edits[0]; ++e) {
      forkscale::report changed = rep;
      if (i == 0 && e < 5) continue;  // the root row's identity is the engine's own
      if (changed.call_sites[i].kind == forkscale::site_kind::call && e == 5)
        changed.call_sites[i].kind = forkscale::site_kind::spawn;
      else
        call_edits[e](changed.call_sites[i]);
      EXPECT_NE(rp::compare_profiles(o.profiles(), changed), "") << "row " << i << ", edit " << e;
    }
  using spawn_edit = void (*)(forkscale::spawn_site_profile&);
  const spawn_edit spawn_edits[] = {
      [](forkscale::spawn_site_profile& r) { r.line += 1; },
      [](forkscale::spawn_site_profile& r) { r.name += "x"; },
      [](forkscale::spawn_site_profile& r) { r.recursive = !r.recursive; },
      [](forkscale::spawn_site_profile& r) { r.tasks += 1; },
      [](forkscale::spawn_site_profile& r) { r.work += 1; },
      [](forkscale::spawn_site_profile& r) { r.span += 1; },
      [](forkscale::spawn_site_profile& r) { r.exclusive_work += 1; },
      [](forkscale::spawn_site_profile& r) { r.critical_span += 1; },
      [](forkscale::spawn_site_profile& r) { r.critical_percent += 0.5; },
  };
  for (std::size_t i = 0; i < rep.spawn_sites.size(); ++i)
    for (std::size_t e = 0; e < sizeof spawn_edits / sizeof spawn_edits[0]; ++e) {
      if (i == 0 && e < 2) continue;
      forkscale::report changed = rep;
      spawn_edits[e](changed.spawn_sites[i]);
      EXPECT_NE(rp::compare_profiles(o.profiles(), changed), "") << "spawn row " << i << ", edit " << e;
    }
  // a missing row, an extra row, the root row not first
  forkscale::report changed = rep;
  changed.call_sites.pop_back();
  EXPECT_NE(rp::compare_profiles(o.profiles(), changed), "");
  changed = rep;
  changed.spawn_sites.push_back(changed.spawn_sites.back());
  EXPECT_NE(rp::compare_profiles(o.profiles(), changed), "");
  changed = rep;
  std::swap(changed.call_sites[0], changed.call_sites[1]);
  EXPECT_NE(rp::compare_profiles(o.profiles(), changed), "");
}

}  // namespace
