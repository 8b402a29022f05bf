// The engine with observers of a test's own (docs/architecture.md, "The
// layers"): basic_engine<Clock, Observers> is the engine alone, and the
// subsystems attach at its fixed points.
//  - With observers that do nothing at every point (no site profiles, no
//    what-if, no recording), random fork-join programs, run through the guards
//    serially and on real threads, give exactly the brute-force oracle's work,
//    span and counts in every region: the engine needs no subsystem.
//  - With a measurement's own observers wrapped in counters, the points are met
//    as the engine promises — one token per spawn, every child started and
//    ended once, every call opened and closed once, one root — and the report
//    (site profiles included) is the oracle's.
//
// FORKSCALE_PROPERTY_SEED=<n> replays from seed n; FORKSCALE_PROPERTY_COUNT=<n>
// scales how many programs are run.
#include <gtest/gtest.h>

#include <forkscale/detail/measurement/measure.hpp>  // basic_engine, open_session, finish_session
#include <forkscale/forkscale.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <string>

#include "support/random_program.hpp"

namespace fs = forkscale;
namespace fd = forkscale::detail;

namespace {

using Clock = fs::default_clock;  // the interpreter's guards

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const std::uint64_t s = rp::env_or("FORKSCALE_PROPERTY_SEED", std::random_device{}());
    std::cout << "[observers] base seed " << s << " (replay with FORKSCALE_PROPERTY_SEED=" << s << ")\n";
    return s;
  }();
  return seed;
}

// Every point, doing nothing: the engine alone.
struct no_observers {
  static bool strands_watched(const fd::frame&) noexcept { return false; }
  static fd::strand_cost strand_closed(fd::frame&, std::uint64_t, std::uint64_t raw, std::uint64_t cost) noexcept {
    return fd::strand_cost{raw, cost, raw, cost};
  }
  static void strand_added(fd::frame&, const fd::strand_cost&) noexcept {}
  static void strand_started(fd::frame&) noexcept {}
  static bool carries_profile(const fd::frame&) noexcept { return false; }
  static fd::record_state* join_record(const fd::frame&) noexcept { return nullptr; }
  static void root_started(fd::frame&, fd::session&) noexcept {}
  static bool spawned(fd::frame&, fd::spawn_token&, const fs::site&) { return false; }
  static void task_started(fd::frame&, fd::session&, fd::spawn_token&) noexcept {}
  static fd::path_prof task_ended(fd::frame&) { return fd::path_prof{}; }
  static fd::pending_records task_pending(const fd::frame&) noexcept { return fd::pending_records{}; }
  static fd::path_prof task_ended_deferred(fd::frame&, fd::deferred_record*&) { return fd::path_prof{}; }
  static fd::join_source task_source(const fd::frame&) noexcept { return fd::join_source{}; }
  static void join_taken(fd::frame&, fd::join_contents& c) noexcept { fd::release_prof(c.prof.chain); }
  static void join_done(fd::frame&, const fd::join_contents&, const fs::site*) noexcept {}
  template <class E>
  static void call_opened(fd::frame&, fd::call_state&, const fs::site&) noexcept {}
  template <class E>
  static void call_closed(fd::frame&, fd::call_state&) noexcept {}
  template <class E>
  static void what_if_opened(fd::frame&, fd::what_if_state&, std::uint64_t) noexcept {}
  static std::uint64_t what_if_bit(fd::frame&, const fs::site&, bool&) noexcept { return 0; }
  template <class E>
  static void what_if_closed(fd::frame&, fd::what_if_state&) noexcept {}
  static void path_kept(fd::frame&, bool, fd::kept_path&) {}
  static void task_restarted(fd::frame&) noexcept {}
  static void region_opened(fd::frame&, fd::region_state&) noexcept {}
  static void region_closed(fd::frame&, const fd::region_state&) noexcept {}
  static void measurement_started(fd::session&) noexcept {}
};

// How often each point was met.
struct point_counts {
  std::atomic<std::uint64_t> roots{0}, spawns{0}, starts{0}, ends{0}, deferred_ends{0}, opened{0}, closed{0},
      joins_taken{0}, joins_done{0}, measurements{0};
  void clear() {
    for (auto* c :
         {&roots, &spawns, &starts, &ends, &deferred_ends, &opened, &closed, &joins_taken, &joins_done, &measurements})
      c->store(0);
  }
};
point_counts counts;

// A measurement's observers, each point it forwards counted.
struct counting_observers : fd::measurement_observers {
  using base = fd::measurement_observers;
  static void root_started(fd::frame& root, fd::session& s) noexcept {
    ++counts.roots;
    base::root_started(root, s);
  }
  static bool spawned(fd::frame& f, fd::spawn_token& tk, const fs::site& where) {
    ++counts.spawns;
    return base::spawned(f, tk, where);
  }
  static void task_started(fd::frame& c, fd::session& s, fd::spawn_token& tk) noexcept {
    ++counts.starts;
    base::task_started(c, s, tk);
  }
  static fd::path_prof task_ended(fd::frame& c) {
    ++counts.ends;
    return base::task_ended(c);
  }
  static fd::path_prof task_ended_deferred(fd::frame& c, fd::deferred_record*& d) {
    ++counts.deferred_ends;
    return base::task_ended_deferred(c, d);
  }
  template <class E>
  static void call_opened(fd::frame& f, fd::call_state& cs, const fs::site& where) noexcept {
    ++counts.opened;
    base::call_opened<E>(f, cs, where);
  }
  template <class E>
  static void call_closed(fd::frame& f, fd::call_state& cs) noexcept {
    ++counts.closed;
    base::call_closed<E>(f, cs);
  }
  static void join_taken(fd::frame& f, fd::join_contents& c) noexcept {
    ++counts.joins_taken;
    base::join_taken(f, c);
  }
  static void join_done(fd::frame& f, const fd::join_contents& c, const fs::site* where) noexcept {
    ++counts.joins_done;
    base::join_done(f, c, where);
  }
  static void measurement_started(fd::session& s) noexcept {
    ++counts.measurements;
    base::measurement_started(s);
  }
};

// Runs `p` in a measurement whose engine has `Observers`, as fs::measure runs
// one with a measurement's own.
template <class Observers>
fs::report measure_with(rp::interpreter<Clock>& run, const rp::program& p) {
  using E = fd::basic_engine<Clock, Observers>;
  fd::region_state rs;
  rs.where = fs::site::tagged("test_observers");
  rs.owned = fd::open_session<Clock>("program", rp::interpreter<Clock>::options_for(p));
  E::begin_measurement(rs);
  run.run_inside(p);
  E::end_measurement(rs);
  return fd::finish_session(std::move(rs.owned), rs.root);
}

std::uint64_t program_count() { return std::max<std::uint64_t>(1, rp::env_or("FORKSCALE_PROPERTY_COUNT", 10000) / 20); }

void engine_alone_matches_oracle(unsigned workers, std::uint64_t seed_offset) {
  rp::scheduler sched(workers);
  unsigned failures = 0;
  for (std::uint64_t i = 0; i < program_count() && failures < 3; ++i) {
    const std::uint64_t seed = base_seed() + seed_offset + i;
    const rp::program p = rp::generator(seed).make();
    rp::oracle o;
    const rp::region_table expected = o.evaluate(p, "program");
    rp::interpreter<Clock> run(sched, seed * 7919);
    const fs::report rep = measure_with<no_observers>(run, p);
    sched.reset();
    const std::string diff = rp::compare_regions(expected, rp::from_report(rep));
    if (!diff.empty() || rep.diagnostic_count != 0) {
      ++failures;
      ADD_FAILURE() << "program with seed " << seed << " (workers " << workers
                    << "), engine without observers, differs from the oracle:\n"
                    << diff << "program:\n"
                    << p.describe();
    }
    // Nothing attached, nothing reported by a subsystem.
    EXPECT_TRUE(rep.call_sites.empty()) << "seed " << seed;
    EXPECT_TRUE(rep.spawn_sites.empty()) << "seed " << seed;
    EXPECT_FALSE(rep.record) << "seed " << seed;
  }
}

void points_met_once(unsigned workers, std::uint64_t seed_offset) {
  rp::scheduler sched(workers);
  unsigned failures = 0;
  for (std::uint64_t i = 0; i < program_count() && failures < 3; ++i) {
    const std::uint64_t seed = base_seed() + seed_offset + i;
    const rp::program p = rp::generator(seed).make();
    rp::oracle o;
    const rp::region_table expected = o.evaluate(p, "program");
    const rp::totals& whole = expected.at("program");
    rp::interpreter<Clock> run(sched, seed * 7919);
    counts.clear();
    const fs::report rep = measure_with<counting_observers>(run, p);
    sched.reset();
    std::string diff = rp::compare_regions(expected, rp::from_report(rep));
    diff += rp::compare_profiles(o.profiles(), rep);
    const auto expect = [&](const char* what, std::uint64_t got, std::uint64_t want) {
      if (got != want)
        diff += std::string("  ") + what + ": " + std::to_string(got) + " (expected " + std::to_string(want) + ")\n";
    };
    expect("measurement_started", counts.measurements, 1);
    expect("root_started", counts.roots, 1);
    expect("spawned", counts.spawns, whole.spawns);
    expect("task_started", counts.starts, whole.spawns);
    expect("task_ended + task_ended_deferred", counts.ends + counts.deferred_ends, whole.spawns);
    expect("call_opened", counts.opened, whole.calls);
    expect("call_closed", counts.closed, whole.calls);
    // join_done follows every join_taken (a join by a sync_point or a task's
    // end); a measurement's root merges its last children with join_done alone.
    if (counts.joins_done < counts.joins_taken)
      diff += "  join_done " + std::to_string(counts.joins_done.load()) + " < join_taken " +
              std::to_string(counts.joins_taken.load()) + "\n";
    if (!diff.empty() || rep.diagnostic_count != 0) {
      ++failures;
      ADD_FAILURE() << "program with seed " << seed << " (workers " << workers << "), counting observers:\n"
                    << diff << "program:\n"
                    << p.describe();
    }
  }
}

TEST(Observers, EngineAloneMatchesOracleSerially) { engine_alone_matches_oracle(0, 0); }
TEST(Observers, EngineAloneMatchesOracleOnThreads) { engine_alone_matches_oracle(3, 1u << 20); }
TEST(Observers, PointsMetAsPromisedSerially) { points_met_once(0, 2u << 20); }
TEST(Observers, PointsMetAsPromisedOnThreads) { points_met_once(3, 3u << 20); }

// The counters see what they count: a program with known numbers.
TEST(Observers, CountsOfAKnownProgram) {
  rp::scheduler sched(0);
  rp::interpreter<Clock> run(sched, 1);
  rp::program p;
  p.root = {rp::with_body(rp::op::spawn, 0, {rp::charge(3)}), rp::with_body(rp::op::spawn, 1, {rp::charge(4)}),
            rp::sync(), rp::charge(1)};
  counts.clear();
  const fs::report rep = measure_with<counting_observers>(run, p);
  EXPECT_EQ(counts.spawns.load(), 2u);
  EXPECT_EQ(counts.starts.load(), 2u);
  EXPECT_EQ(counts.ends.load() + counts.deferred_ends.load(), 2u);
  EXPECT_EQ(counts.roots.load(), 1u);
  EXPECT_EQ(rep.root().work, 8u);
  EXPECT_EQ(rep.root().span, 5u);
}

}  // namespace
