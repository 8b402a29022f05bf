// Recorded runs (options.record): the strand graph of random fork-join programs,
// run serially and on threads under the cost clock, must give back the report's
// numbers when its longest paths are computed again from the graph alone — work,
// span and burdened span — and its critical path must be a path of the graph
// whose spans add up to the span. A record that hits its limit is marked partial
// and leaves the numbers whole.
//
// FORKSCALE_PROPERTY_SEED=<n> replays from seed n; FORKSCALE_RECORD_COUNT=<n> sets
// how many programs are run (default 2,000).
#include <gtest/gtest.h>
#include <forkscale/detail/record/buffer.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <thread>
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
    std::cout << "[record] base seed " << s << " (replay with FORKSCALE_PROPERTY_SEED=" << s << ")\n";
    return s;
  }();
  return seed;
}

// Longest paths over the record's graph, computed from the graph alone: a strand
// starts when its prev and its join are done; a join is done when everything
// reported to it is. The burden is added on continuation edges (after_spawn).
struct graph_paths {
  std::uint64_t work = 0, span = 0, burdened_span = 0;
  std::string problem;  // empty when the order is topological and indices valid
};

graph_paths longest_paths(const fs::execution_record& r, std::uint64_t burden) {
  graph_paths g;
  const std::size_t n = r.strands.size();
  std::vector<std::uint64_t> end(n, 0), bend(n, 0);
  std::vector<std::uint64_t> jend(r.joins.size(), 0), jbend(r.joins.size(), 0);
  std::vector<char> jdone(r.joins.size(), 0);
  // Joins are resolved on demand (memoized); they may refer to later joins only
  // through strands, which the topological check below catches.
  std::vector<int> visiting(r.joins.size(), 0);
  auto join_value = [&](auto&& self, std::size_t j) -> void {
    if (jdone[j]) return;
    if (visiting[j]) {
      g.problem = "cycle through join " + std::to_string(j);
      return;
    }
    visiting[j] = 1;
    std::uint64_t e = 0, be = 0;
    for (std::uint32_t s : r.joins[j].strands) {
      if (s >= n) {
        g.problem = "join " + std::to_string(j) + " names strand " + std::to_string(s);
        continue;
      }
      e = std::max(e, end[s]);
      be = std::max(be, bend[s]);
    }
    for (std::uint32_t k : r.joins[j].joins) {
      self(self, k);
      e = std::max(e, jend[k]);
      be = std::max(be, jbend[k]);
    }
    jend[j] = e;
    jbend[j] = be;
    jdone[j] = 1;
  };
  std::vector<char> placed(n, 0);
  auto check_before = [&](std::uint32_t s, std::size_t i) {
    if (!placed[s]) g.problem = "strand " + std::to_string(i) + " comes before its predecessor " + std::to_string(s);
  };
  for (std::size_t i = 0; i < n; ++i) {
    const fs::record_strand& s = r.strands[i];
    std::uint64_t start = 0, bstart = 0;
    if (s.prev >= 0) {
      const auto p = static_cast<std::uint32_t>(s.prev);
      check_before(p, i);
      start = end[p];
      bstart = bend[p] + (s.after_spawn ? burden : 0);
    }
    if (s.join >= 0) {
      const auto j = static_cast<std::size_t>(s.join);
      for (std::uint32_t p : r.joins[j].strands) check_before(p, i);
      join_value(join_value, j);
      start = std::max(start, jend[j]);
      bstart = std::max(bstart, jbend[j]);
    }
    end[i] = start + s.span;
    bend[i] = bstart + s.span;
    placed[i] = 1;
    g.work += s.work;
    g.span = std::max(g.span, end[i]);
    g.burdened_span = std::max(g.burdened_span, bend[i]);
  }
  return g;
}

// Whether strand `a` is an immediate predecessor of `b`: its prev, or reported
// to b's join (directly or through joins handed on).
bool precedes(const fs::execution_record& r, std::uint32_t a, std::uint32_t b) {
  const fs::record_strand& s = r.strands[b];
  if (s.prev == static_cast<std::int64_t>(a)) return true;
  if (s.join < 0) return false;
  std::vector<std::uint32_t> todo{static_cast<std::uint32_t>(s.join)};
  std::vector<char> seen(r.joins.size(), 0);
  while (!todo.empty()) {
    const std::uint32_t j = todo.back();
    todo.pop_back();
    if (seen[j]) continue;
    seen[j] = 1;
    for (std::uint32_t x : r.joins[j].strands)
      if (x == a) return true;
    for (std::uint32_t k : r.joins[j].joins) todo.push_back(k);
  }
  return false;
}

std::string check_record(const fs::report& rep) {
  if (!rep.record) return "no record";
  const fs::execution_record& r = *rep.record;
  std::string out;
  if (!r.complete) out += "  record marked incomplete\n";
  const graph_paths g = longest_paths(r, rep.burden);
  if (!g.problem.empty()) out += "  graph: " + g.problem + "\n";
  if (g.work != rep.work())
    out += "  work from the record " + std::to_string(g.work) + ", report " + std::to_string(rep.work()) + "\n";
  if (g.span != rep.span())
    out += "  span from the record " + std::to_string(g.span) + ", report " + std::to_string(rep.span()) + "\n";
  if (g.burdened_span != rep.burdened_span())
    out += "  burdened span from the record " + std::to_string(g.burdened_span) + ", report " +
           std::to_string(rep.burdened_span()) + "\n";
  std::uint64_t critical = 0;
  for (std::size_t k = 0; k < r.critical_path.size(); ++k) {
    const std::uint32_t i = r.critical_path[k];
    critical += r.strands[i].span;
    if (!r.strands[i].critical) out += "  critical path strand " + std::to_string(i) + " not flagged\n";
    if (k > 0 && !precedes(r, r.critical_path[k - 1], i))
      out += "  critical path: strand " + std::to_string(r.critical_path[k - 1]) + " does not precede " +
             std::to_string(i) + "\n";
  }
  if (critical != rep.span())
    out += "  critical path sums to " + std::to_string(critical) + ", span " + std::to_string(rep.span()) + "\n";
  std::size_t flagged = 0;
  for (const auto& s : r.strands) flagged += s.critical ? 1 : 0;
  if (flagged != r.critical_path.size()) out += "  more strands flagged critical than on the path\n";
  if (r.tasks.size() != rep.spawns() + 1)
    out += "  " + std::to_string(r.tasks.size()) + " tasks for " + std::to_string(rep.spawns()) + " spawns\n";
  // Every region instance of the report is in the record.
  std::map<std::string, std::uint64_t> instances;
  for (const auto& g2 : r.regions) ++instances[g2.path];
  for (std::size_t i = 1; i < rep.regions.size(); ++i)
    if (instances[rep.regions[i].path] != rep.regions[i].instances)
      out += "  region " + rep.regions[i].path + ": " + std::to_string(instances[rep.regions[i].path]) +
             " instances recorded, " + std::to_string(rep.regions[i].instances) + " in the report\n";
  for (const auto& s : r.strands)
    if (s.thread >= r.threads.size() || s.frame >= r.frames.size() || s.end_ns < s.start_ns || s.task >= r.tasks.size())
      return out + "  a strand with a bad thread, frame, task or times\n";
  return out;
}

void run_programs(unsigned workers, bool what_if, std::uint64_t seed_offset) {
  const std::uint64_t count = env_or("FORKSCALE_RECORD_COUNT", 2000);
  rp::scheduler sched(workers);
  std::uint64_t failures = 0;
  for (std::uint64_t i = 0; i < count && failures < 3; ++i) {
    const std::uint64_t seed = base_seed() + seed_offset + i;
    const rp::program p = rp::generator(seed, what_if).make();
    rp::interpreter<> run(sched, seed * 7919);
    fs::options opt;
    opt.record = true;
    opt.on_diagnostic = [](const fs::diagnostic&) {};
    const fs::report rep = run.run(p, "program", opt);
    std::string diff = check_record(rep);
    if (rep.diagnostic_count != 0) diff += "  diagnostics: " + std::to_string(rep.diagnostic_count) + "\n";
    if (!diff.empty()) {
      ++failures;
      ADD_FAILURE() << "program with seed " << seed << " (workers " << workers << "):\n" << diff << p.describe();
    }
  }
}

TEST(RecordProperty, SerialRecordsGiveTheNumbersBack) { run_programs(0, false, 0); }
TEST(RecordProperty, ThreadedRecordsGiveTheNumbersBack) { run_programs(3, false, 1u << 20); }
TEST(RecordProperty, WhatIfProgramsRecordAlike) { run_programs(2, true, 1u << 21); }

// fib(n) by hand: 2F(n+1)-1 calls... counted directly: each call is one task
// (the root or a spawned child) and the critical path runs down the spawned side.
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

fs::options recorded() {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.burden = 0;
  o.record = true;
  return o;
}

TEST(Record, FibCriticalPathRunsDownTheSpawns) {
  const fs::report rep = fs::measure(
      "fib", [] { fib(8); }, recorded());
  ASSERT_TRUE(rep.record);
  const fs::execution_record& r = *rep.record;
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(rep.span(), 8u);  // one unit per level, fib(8) down to fib(1)
  EXPECT_EQ(check_record(rep), "");
  // The nonzero strands of the path are the first strands of fib(8)..fib(2),
  // each in a deeper spawned task, then fib(1) or fib(0) (equal spans: the tie
  // keeps the path that was already there, the called fib(0) in fib(2)'s task).
  std::vector<std::uint32_t> costly;
  for (std::uint32_t i : r.critical_path)
    if (r.strands[i].span != 0) costly.push_back(i);
  ASSERT_EQ(costly.size(), 8u);
  EXPECT_EQ(r.strands[costly[0]].task, 0u);
  for (std::size_t k = 1; k + 1 < costly.size(); ++k)
    EXPECT_EQ(r.tasks[r.strands[costly[k]].task].parent, static_cast<std::int64_t>(r.strands[costly[k - 1]].task));
  // Call paths fold recursion: the measurement, the spawn, the call, and the two
  // orders of the two.
  EXPECT_EQ(r.frames.size() >= 5u, true);
  std::map<std::string, int> stacks;
  for (const auto& s : r.strands) ++stacks[r.stack_of(s.frame, "fib")];
  EXPECT_EQ(stacks.size(), 5u);
}

// What a record holds that does not depend on when it was built: the strands'
// numbers, edges and call paths, the tasks, the regions' paths, and the tables
// of frames and sites.
std::string record_digest(const fs::execution_record& r) {
  std::string d = std::to_string(r.strands.size()) + " strands, " + std::to_string(r.frames.size()) + " frames, " +
                  std::to_string(r.sites.size()) + " sites, " + std::to_string(r.tasks.size()) + " tasks\n";
  for (const auto& s : r.strands)
    d += std::to_string(s.work) + " " + std::to_string(s.span) + " " + std::to_string(s.frame) + " " +
         std::to_string(s.prev) + " " + std::to_string(s.join) + " " + std::to_string(s.task) + "\n";
  for (const auto& g : r.regions) d += g.path + "\n";
  for (std::uint32_t i : r.critical_path) d += std::to_string(i) + " ";
  return d;
}

void fib_in_a_region(int n) {
  fs::region r("part");
  fib(n);
}

// The record is built from the buffers the first time it is read, once, and
// copies share it: the same whether it is read at once, after the measurement
// that made it is gone and others have grown the call tree, or by several
// threads at the same moment.
TEST(Record, BuiltWhenFirstReadTheSameWheneverAndOnce) {
  const fs::report first = fs::measure(
      "fib", [] { fib_in_a_region(9); }, recorded());
  ASSERT_TRUE(first.record);
  const std::string at_once = record_digest(*first.record);
  EXPECT_TRUE(first.record.built());

  fs::report later = fs::measure(
      "fib", [] { fib_in_a_region(9); }, recorded());
  ASSERT_TRUE(later.record);
  EXPECT_FALSE(later.record.built());
  // Other measurements intern new call paths and sites meanwhile.
  const fs::report other = fs::measure(
      "other",
      [] {
        fs::spawn([] { fs::charge(3); })();
        fs::sync_point sp;
      },
      recorded());
  ASSERT_TRUE(other.record);
  const fs::report copy = later;
  std::vector<const fs::execution_record*> seen(4, nullptr);
  std::vector<std::thread> readers;
  for (std::size_t i = 0; i < seen.size(); ++i)
    readers.emplace_back([&, i] { seen[i] = (i % 2 == 0 ? later : copy).record.get(); });
  for (auto& t : readers) t.join();
  for (const fs::execution_record* p : seen) EXPECT_EQ(p, seen[0]);
  ASSERT_NE(seen[0], nullptr);
  EXPECT_TRUE(later.record.built());
  EXPECT_TRUE(copy.record.built());
  EXPECT_EQ(record_digest(*later.record), at_once);
  EXPECT_EQ(check_record(later), "");
  // As a std::shared_ptr, it is the same record.
  const std::shared_ptr<const fs::execution_record> shared = copy.record;
  EXPECT_EQ(shared.get(), seen[0]);
}

TEST(Record, OffByDefault) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  const fs::report rep = fs::measure(
      "fib", [] { fib(5); }, o);
  EXPECT_FALSE(rep.record);
}

TEST(Record, LimitStopsRecordingAndKeepsTheNumbers) {
  fs::options o = recorded();
  o.record_limit = 100000;  // about one chunk of strands
  std::vector<fs::diagnostic> diags;
  o.on_diagnostic = [&](const fs::diagnostic& d) { diags.push_back(d); };
  const fs::report rep = fs::measure(
      "fib", [] { fib(16); }, o);
  fs::options plain = recorded();
  plain.record = false;
  const fs::report ref = fs::measure(
      "fib", [] { fib(16); }, plain);
  EXPECT_EQ(rep.work(), ref.work());
  EXPECT_EQ(rep.span(), ref.span());
  ASSERT_TRUE(rep.record);
  EXPECT_FALSE(rep.record->complete);
  EXPECT_GT(rep.record->dropped_strands, 0u);
  EXPECT_LE(rep.record->bytes, o.record_limit);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_NE(diags[0].problem.find("record_limit"), std::string::npos) << diags[0].problem;
  EXPECT_EQ(rep.diagnostic_count, 1u);
  EXPECT_FALSE(rep.call_sites.empty());  // a notice, not misuse: the profiles stay
}

TEST(Record, EnvironmentTurnsItOnAndOff) {
  ::setenv("FORKSCALE_RECORD", "1", 1);
  fs::options o;
  o.clock = fs::clock_kind::cost;
  const fs::report on = fs::measure(
      "fib", [] { fib(5); }, o);
  ::setenv("FORKSCALE_RECORD", "0", 1);
  o.record = true;
  const fs::report off = fs::measure(
      "fib", [] { fib(5); }, o);
  ::unsetenv("FORKSCALE_RECORD");
  EXPECT_TRUE(on.record);
  EXPECT_FALSE(off.record);
}

// The switch's words: false/off/no are off (before, any value but "0" was on);
// a value that is no switch is ignored (the option decides), said in one line.
TEST(Record, EnvironmentSwitchWords) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  auto recorded = [&](const char* value, bool option) {
    ::setenv("FORKSCALE_RECORD", value, 1);
    o.record = option;
    const bool r = static_cast<bool>(fs::measure(
                                         "fib", [] { fib(5); }, o)
                                         .record);
    ::unsetenv("FORKSCALE_RECORD");
    return r;
  };
  for (const char* off : {"false", "OFF", "no", " 0 "}) EXPECT_FALSE(recorded(off, true)) << off;
  for (const char* on : {"true", "On", "YES"}) EXPECT_TRUE(recorded(on, false)) << on;
  testing::internal::CaptureStderr();
  const bool kept_off = recorded("maybe", false);
  const bool kept_on = recorded("maybe", true);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(kept_off);
  EXPECT_TRUE(kept_on);
  EXPECT_NE(err.find("forkscale: FORKSCALE_RECORD=maybe is not 1 or 0"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;  // one line, once
}

// Under a timed clock only what does not depend on time is asserted.
TEST(Record, TimedClockRecordsAreWellFormed) {
  fs::options o;
  o.clock = fs::clock_kind::steady;
  o.record = true;
  const fs::report rep = fs::measure(
      "fib",
      [] {
        fs::join_handle h;
        std::thread t(fs::spawn(h, [] { fib(12); }));
        fib(12);
        fs::sync_point sp(h);
        t.join();
      },
      o);
  ASSERT_TRUE(rep.record);
  const fs::execution_record& r = *rep.record;
  std::uint64_t work = 0, critical = 0;
  for (const auto& s : r.strands) work += s.work;
  for (std::uint32_t i : r.critical_path) critical += r.strands[i].span;
  EXPECT_EQ(work, rep.work());
  EXPECT_EQ(critical, rep.span());
  EXPECT_EQ(r.threads.size(), 2u);
  EXPECT_EQ(r.tasks.size(), rep.spawns() + 1);
  for (const auto& s : r.strands) EXPECT_LE(s.end_ns, r.wall_ns);
}

// A record of many chunks of raw strands on each of two threads: the build
// frees each chunk once its last strand is read, in the graph's order, which
// interleaves the threads and the chunks; the record must still give the
// report's numbers back (work, span, burdened span, critical path, tasks).
TEST(RecordProperty, ChunksFreedAsTheyAreReadKeepEveryStrand) {
  for (int n : {15, 17}) {
    fs::options o = recorded();
    o.burden = 3;
    const fs::report rep = fs::measure(
        "fib",
        [n] {
          fs::join_handle h;
          std::thread t(fs::spawn(h, [n] { fib(n); }));
          fib(n - 1);
          fs::sync_point sp(h);
          t.join();
        },
        o);
    ASSERT_TRUE(rep.record);
    EXPECT_GT(rep.record->strands.size(), 6u * 1024u);  // several chunks on each thread
    EXPECT_EQ(rep.record->threads.size(), 2u);
    EXPECT_EQ(check_record(rep), "") << "fib(" << n << ")";
  }
}

// The record's chunks come from shared slabs: chunks of several sizes taken by
// four threads at once, written whole, must not overlap, and once every one is
// given back (in an order unlike the one they were taken in) the slabs go back
// too, but for the one each size is taken from and those kept for reuse.
TEST(RecordMemory, SlabsHandOutDisjointChunksAndGoBackWhenEmpty) {
  using mem = fs::detail::record_memory;
  const std::size_t before = mem::mapped();
  const std::size_t sizes[] = {64 * 1024, 48 * 1024 + 8, 24 * 1024};
  struct block {
    unsigned char* p;
    std::size_t bytes;
    unsigned char mark;
  };
  std::vector<std::vector<block>> taken(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < taken.size(); ++t)
    threads.emplace_back([&, t] {
      std::mt19937 gen(static_cast<unsigned>(t) + 1);
      for (int k = 0; k < 600; ++k) {
        const std::size_t bytes = sizes[gen() % 3];
        auto* p = static_cast<unsigned char*>(mem::take(bytes));
        ASSERT_NE(p, nullptr);
        ASSERT_EQ(reinterpret_cast<std::uintptr_t>(p) % 64, 0u);
        const auto mark = static_cast<unsigned char>(1 + (t * 600 + std::size_t(k)) % 251);
        std::fill(p, p + bytes, mark);
        taken[t].push_back(block{p, bytes, mark});
      }
    });
  for (auto& th : threads) th.join();
  std::size_t total = 0;
  std::vector<block> all;
  for (const auto& v : taken)
    for (const block& b : v) {
      total += b.bytes;
      all.push_back(b);
    }
  EXPECT_GE(mem::mapped(), total);
  for (const block& b : all)  // a chunk written over by another would show here
    ASSERT_TRUE(std::all_of(b.p, b.p + b.bytes, [&](unsigned char c) { return c == b.mark; }));
  std::shuffle(all.begin(), all.end(), std::mt19937(7));
  std::vector<std::thread> givers;
  for (std::size_t t = 0; t < 2; ++t)
    givers.emplace_back([&, t] {
      for (std::size_t i = t; i < all.size(); i += 2) mem::give(all[i].p, all[i].bytes);
    });
  for (auto& th : givers) th.join();
  EXPECT_LE(mem::mapped(), before + mem::kept_bytes + 3 * mem::slab_bytes);
  // Taken again: the kept slabs serve it.
  void* again = mem::take(sizes[0]);
  ASSERT_NE(again, nullptr);
  mem::give(again, sizes[0]);
}

}  // namespace
