// Property test of the what-if analysis: random fork-join programs with random
// what-if regions (guards that repeat, nest in themselves and in each other and
// enclose spawns whose children run on other threads; call sites named at run
// time, some that never run) and random factor lists, run through the guards
// serially and on real threads, must give exactly the what-if rows of the
// brute-force dag oracle (tests/support/random_program.hpp) under the cost clock:
// every predicted span as an exact fraction, every count, every identity, and the
// floating-point fields within 1e-12.
//
// FORKSCALE_PROPERTY_SEED=<n> replays from seed n; FORKSCALE_PROPERTY_COUNT=<n>
// sets how many programs each run checks (default 10,000: about 20 s of one core in an optimized
// build, a tenth of that with sanitizers or without optimization).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <random>
#include <string>

#include "support/random_program.hpp"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define WHAT_IF_PROPERTY_SLOW 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define WHAT_IF_PROPERTY_SLOW 1
#endif
#endif
#if !defined(WHAT_IF_PROPERTY_SLOW) && !defined(__OPTIMIZE__) && !defined(_MSC_VER)
#define WHAT_IF_PROPERTY_SLOW 1
#endif

namespace {

using rp::charge;
using rp::sync;
using rp::with_body;

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::strtoull(v, nullptr, 10);
}

#ifdef WHAT_IF_PROPERTY_SLOW
constexpr std::uint64_t default_count = 2500;
#else
constexpr std::uint64_t default_count = 10000;
#endif

std::uint64_t program_count() { return env_or("FORKSCALE_PROPERTY_COUNT", default_count); }

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const std::uint64_t s = env_or("FORKSCALE_PROPERTY_SEED", std::random_device{}());
    std::cout << "[what-if property] base seed " << s << " (replay with FORKSCALE_PROPERTY_SEED=" << s << "), "
              << program_count() << " programs per run\n";
    return s;
  }();
  return seed;
}

// One run of one program: the oracle's rows against the engine's. Empty when they
// agree; else what differs, with the program and the oracle's scenarios.
struct checked {
  std::string failure;
  bool rows = false;  // the report had what-if rows
  forkscale::report report;
};

checked check_program(const rp::program& p, rp::scheduler& sched, std::uint64_t seed, unsigned workers,
                      rp::what_if_mutant mutant = rp::what_if_mutant::none) {
  rp::oracle o;
  o.set_what_if_mutant(mutant);
  const rp::region_table expected = o.evaluate(p, "program");
  rp::interpreter<> run(sched, seed * 7919);
  forkscale::options opt;
  std::vector<forkscale::diagnostic> diags;
  opt.on_diagnostic = [&](const forkscale::diagnostic& d) { diags.push_back(d); };
  const forkscale::report rep = run.run(p, "program", opt);
  checked c;
  c.rows = !rep.what_if.empty();
  c.report = rep;
  std::string diff;
  const rp::totals& whole = expected.at("program");
  if (rep.root().work != whole.work || rep.root().span != whole.span)
    diff += "  whole program: oracle work " + std::to_string(whole.work) + " span " + std::to_string(whole.span) +
            ", engine work " + std::to_string(rep.root().work) + " span " + std::to_string(rep.root().span) + "\n";
  if (rep.diagnostic_count != 0) {
    diff += "  diagnostics:\n";
    for (const auto& d : rep.diagnostics) diff += "    " + d.where + ": " + d.problem + "\n";
  }
  diff += rp::compare_what_if(o.what_if(), rep, /*exact_identity=*/workers == 0);
  if (!diff.empty())
    c.failure = "program with seed " + std::to_string(seed) + " (workers " + std::to_string(workers) +
                ") differs from the oracle:\n" + diff + "the oracle's what-if regions:\n" +
                rp::explain_what_if(o.what_if()) + "program:\n" + p.describe();
  return c;
}

void run_programs(unsigned workers, std::uint64_t seed_offset) {
  const std::uint64_t count = program_count();
  rp::scheduler sched(workers);
  std::uint64_t failures = 0, with_rows = 0, programs = 0;
  for (std::uint64_t i = 0; i < count && failures < 3; ++i) {
    const std::uint64_t seed = base_seed() + seed_offset + i;
    const rp::program p = rp::generator(seed, /*what_if=*/true).make();
    const checked c = check_program(p, sched, seed, workers);
    ++programs;
    with_rows += c.rows ? 1 : 0;
    if (!c.failure.empty()) {
      ++failures;
      ADD_FAILURE() << c.failure << "(replay: FORKSCALE_PROPERTY_SEED=" << seed - seed_offset
                    << " FORKSCALE_PROPERTY_COUNT=1)";
    }
  }
  std::cout << "[what-if property] workers " << workers << ": " << programs << " programs, " << with_rows
            << " with what-if rows\n";
  // Most programs must have regions, or the test checks little.
  EXPECT_GE(with_rows * 2, programs);
}

TEST(WhatIfProperty, SerialRunsMatchOracle) { run_programs(0, 0); }

TEST(WhatIfProperty, ThreadedRunsMatchOracle) { run_programs(3, 0); }

// Fresh seeds on one worker plus the waiting threads.
TEST(WhatIfProperty, OneWorkerRunsMatchOracle) { run_programs(1, 1u << 30); }

// With every factor 1 nothing changes: every executed row's span is the real span
// exactly, and its work the real work.
TEST(WhatIfProperty, UnitFactorsGiveTheRealSpan) {
  const std::uint64_t count = std::max<std::uint64_t>(program_count() / 10, 20);
  for (unsigned workers : {0u, 3u}) {
    rp::scheduler sched(workers);
    std::uint64_t rows_checked = 0, failures = 0;
    for (std::uint64_t i = 0; i < count && failures < 3; ++i) {
      const std::uint64_t seed = base_seed() + (2u << 30) + i;
      rp::program p = rp::generator(seed, true).make();
      p.what_if_factors.assign(1 + i % 3, rp::what_if_factor{1, 1, 1});
      rp::oracle o;
      o.evaluate(p, "program");
      rp::interpreter<> run(sched, seed * 7919);
      const forkscale::report rep = run.run(p, "program");
      std::string diff = rp::compare_what_if(o.what_if(), rep, workers == 0);
      const std::uint64_t S = rep.root().span, W = rep.root().work;
      for (const auto& r : rep.what_if) {
        if (!r.executed) continue;
        ++rows_checked;
        if (r.span_ticks_den != 1 || r.span_ticks_num != static_cast<std::int64_t>(S) ||
            r.span != static_cast<double>(S) || r.work != static_cast<double>(W))
          diff += "  row \"" + r.region + "\" (" + forkscale::to_string(r.model) + "): span " +
                  std::to_string(r.span_ticks_num) + "/" + std::to_string(r.span_ticks_den) + " work " +
                  rp::detail::fmt_double(r.work) + ", real span " + std::to_string(S) + " work " + std::to_string(W) +
                  "\n";
      }
      if (!diff.empty()) {
        ++failures;
        ADD_FAILURE() << "program with seed " << seed << " (workers " << workers << "), factors all 1:\n"
                      << diff << "program:\n"
                      << p.describe();
      }
    }
    EXPECT_GT(rows_checked, count) << "workers " << workers;
  }
}

// A program whose every strand is inside one region: at infinity that region's
// span (and the all-regions span) is 0 and the parallelism infinite.
TEST(WhatIfProperty, WholeProgramRegionDropsOutAtInfinity) {
  const std::uint64_t count = std::max<std::uint64_t>(program_count() / 10, 20);
  const double inf = std::numeric_limits<double>::infinity();
  for (unsigned workers : {0u, 3u}) {
    rp::scheduler sched(workers);
    std::uint64_t failures = 0, positive = 0;
    for (std::uint64_t i = 0; i < count && failures < 3; ++i) {
      const std::uint64_t seed = base_seed() + (3u << 29) + i;
      rp::program p = rp::generator(seed, true).make();
      rp::stmt whole;
      whole.kind = rp::op::what_if;
      whole.site = static_cast<int>(i % rp::what_if_site_count);
      whole.sub = std::make_shared<rp::body>(std::move(p.root));
      p.root = rp::body{whole};
      p.what_if_factors = {{2, 2, 1}, {inf, 1, 0}};
      const checked c = check_program(p, sched, seed, workers);
      const forkscale::report& rep = c.report;
      const forkscale::site& w = rp::what_if_site_table[whole.site];
      const std::string name = rp::site_name(w);
      std::string diff = c.failure;
      if (rep.root().span > 0) ++positive;
      for (const std::string& region : {std::string("(all regions)"), name}) {
        bool found = false;
        for (const auto* r : rep.what_if_rows(region)) {
          if (r->source == forkscale::what_if_source::region && r->line != w.line) continue;  // the other "wb"
          found = true;
          if (!(r->factor == inf)) continue;
          if (r->span_ticks_num != 0 || r->span != 0 || !std::isinf(r->parallelism) || !r->executed)
            diff += "  \"" + region + "\" at inf (" + forkscale::to_string(r->model) + "): span " +
                    std::to_string(r->span_ticks_num) + "/" + std::to_string(r->span_ticks_den) + ", parallelism " +
                    rp::detail::fmt_double(r->parallelism) + "\n";
          if (r->region_work != rep.root().work)
            diff += "  \"" + region + "\": region work " + std::to_string(r->region_work) + ", work " +
                    std::to_string(rep.root().work) + "\n";
        }
        if (!found) diff += "  no rows for \"" + region + "\"\n";
      }
      if (!diff.empty()) {
        ++failures;
        ADD_FAILURE() << "program with seed " << seed << " (workers " << workers << "), all inside " << name << ":\n"
                      << diff << "program:\n"
                      << p.describe();
      }
    }
    EXPECT_GT(positive, count / 2);
  }
}

// ---------------------------------------------------------------------------
// The oracle and the comparison themselves.

const rp::what_if_scenario& scenario(const rp::what_if_expected& e, const std::string& name) {
  for (const auto& x : e.scenarios)
    if (x.name == name) return x;
  throw std::runtime_error("no scenario " + name);
}

// Worked out by hand (factors 2 and inf; "wa" is what_if_site_table[0], [4] the
// same region spelled with other strings):
//   charge 10
//   spawn { charge 40 }                   outside every region
//   what-if wa {
//     charge 30
//     spawn { charge 60 }                 inherits wa
//     sync                                joins both children
//     what-if wa (alias) { charge 6 }     wa again: counts once
//   }
//   call [fa alpha.cpp:10] { charge 4 }   named at run time: "alpha.cpp:10"
// W = 150, S = 10 + 30 + 60 + 6 + 4 = 110.
// wa: work 96; at 2 the path through the second child is 20 + 96 + 8 = 124 (halves),
//     through the first 20 + 80 + 6 + 8 = 114: 124/2; at inf max(10 + 4, 10 + 40 + 4) = 54.
// alpha.cpp:10: work 4; at 2: 2·106 + 4 = 216, 216/2; at inf 106.
// all: work 100; at 2: max(20 + 96 + 4, 20 + 80 + 6 + 4) = 120, 120/2; at inf 10 + 40 = 50.
TEST(WhatIfOracle, HandMadeProgram) {
  rp::program p;
  p.what_if = true;
  p.what_if_factors = {{2, 2, 1}, {std::numeric_limits<double>::infinity(), 1, 0}};
  p.what_if_call_sites = {"alpha.cpp:10"};
  p.root.push_back(charge(10));
  p.root.push_back(with_body(rp::op::spawn, 1, {charge(40)}));
  p.root.push_back(with_body(
      rp::op::what_if, 0,
      {charge(30), with_body(rp::op::spawn, 2, {charge(60)}), sync(), with_body(rp::op::what_if, 4, {charge(6)})}));
  p.root.push_back(with_body(rp::op::call, 0, {charge(4)}));
  rp::oracle o;
  const auto t = o.evaluate(p, "program");
  EXPECT_EQ(t.at("program").work, 150u);
  EXPECT_EQ(t.at("program").span, 110u);
  const rp::what_if_expected& e = o.what_if();
  ASSERT_EQ(e.scenarios.size(), 3u);
  const auto& wa = scenario(e, "wa");
  EXPECT_EQ(wa.entries, 1u);
  EXPECT_EQ(wa.region_work, 96u);
  EXPECT_EQ(wa.span_num, (std::vector<std::int64_t>{124, 54}));
  const auto& call = scenario(e, "alpha.cpp:10");
  EXPECT_EQ(call.source, forkscale::what_if_source::call_site);
  EXPECT_EQ(call.entries, 1u);
  EXPECT_EQ(call.region_work, 4u);
  EXPECT_EQ(call.span_num, (std::vector<std::int64_t>{216, 106}));
  EXPECT_EQ(call.call_candidates, std::vector<int>{0});
  const auto& all = e.scenarios.front();
  EXPECT_EQ(all.name, "(all regions)");
  EXPECT_EQ(all.entries, 2u);
  EXPECT_EQ(all.region_work, 100u);
  EXPECT_EQ(all.span_num, (std::vector<std::int64_t>{120, 50}));
  // Every entry counted: wa twice.
  rp::oracle m;
  m.set_what_if_mutant(rp::what_if_mutant::every_entry);
  m.evaluate(p, "program");
  EXPECT_EQ(scenario(m.what_if(), "wa").entries, 2u);
  // And the engine agrees, serially and on threads.
  for (unsigned workers : {0u, 3u}) {
    rp::scheduler sched(workers);
    for (std::uint64_t k = 0; k < 20; ++k) {
      const checked c = check_program(p, sched, 1 + k, workers);
      EXPECT_EQ(c.failure, "");
      EXPECT_TRUE(c.rows);
    }
  }
}

// A measurement with misuse diagnostics has no what-if rows: here a join handle
// destroyed with its task never joined. Joined, the same program has rows.
TEST(WhatIfProperty, NoRowsWithMisuse) {
  for (bool joined : {false, true}) {
    rp::program p;
    p.what_if = true;
    p.what_if_factors = {{2, 2, 1}};
    p.handles = 1;
    rp::stmt h = with_body(rp::op::spawn_handle, 0, {charge(5)});
    h.id = 0;
    rp::body inside{h, charge(3)};
    if (joined) {
      rp::stmt j;
      j.kind = rp::op::join_handle;
      j.id = 0;
      inside.push_back(j);
    }
    p.root.push_back(with_body(rp::op::what_if, 1, inside));
    rp::scheduler serial(0);
    forkscale::options opt;
    std::uint64_t seen = 0;
    opt.on_diagnostic = [&](const forkscale::diagnostic&) { ++seen; };
    const forkscale::report rep = rp::interpreter<>(serial, 1).run(p, "program", opt);
    EXPECT_EQ(rep.diagnostic_count != 0, !joined);
    EXPECT_EQ(rep.what_if.empty(), !joined) << "joined " << joined;
  }
}

// A serially run program with several regions and named call sites (one never
// executed), its report, and the oracle's expectation for it.
struct sample {
  rp::program p;
  rp::what_if_expected want;
  forkscale::report got;
};

sample find_sample() {
  rp::scheduler serial(0);
  for (std::uint64_t seed = 1;; ++seed) {
    sample s;
    s.p = rp::generator(seed, true).make();
    if (s.p.what_if_factors.size() != 2) continue;
    rp::oracle o;
    o.evaluate(s.p, "program");
    const auto& sc = o.what_if().scenarios;
    if (sc.size() > 5) continue;  // few rows: every edit of every row is compared
    bool call = false, dead = false;
    std::size_t guards = 0;
    for (const auto& x : sc) {
      call = call || (x.source == forkscale::what_if_source::call_site && x.executed);
      dead = dead || !x.executed;
      guards += x.source == forkscale::what_if_source::region ? 1 : 0;
    }
    if (!call || !dead || guards < 2) continue;
    s.want = o.what_if();
    // Only the what-if rows are compared: the report without its other tables
    // keeps the many copies below cheap.
    s.got.what_if = rp::interpreter<>(serial, seed).run(s.p, "program").what_if;
    return s;
  }
}

// Nudges a double so that the comparison must notice.
double nudge(double d) {
  if (std::isinf(d)) return 1e300;
  if (d == 0) return 1e-6;
  return d * (1 + 1e-9);
}

// The comparison sees a change in any one field of any row, a missing row, an
// extra region and a change in the oracle's own numbers.
TEST(WhatIfOracle, ComparisonSeesEveryField) {
  const sample s = find_sample();
  ASSERT_EQ(rp::compare_what_if(s.want, s.got, true), "") << s.p.describe();
  using edit = void (*)(forkscale::what_if_result&);
  const edit edits[] = {
      [](forkscale::what_if_result& r) { r.region += "x"; },
      [](forkscale::what_if_result& r) {
        r.source = r.source == forkscale::what_if_source::region ? forkscale::what_if_source::call_site
                                                                 : forkscale::what_if_source::region;
      },
      [](forkscale::what_if_result& r) { r.file += "x"; },
      [](forkscale::what_if_result& r) { r.line += 1; },
      [](forkscale::what_if_result& r) { r.function += "x"; },
      [](forkscale::what_if_result& r) { r.tag += "x"; },
      [](forkscale::what_if_result& r) {
        r.model = r.model == forkscale::what_if_model::parallelized ? forkscale::what_if_model::optimized
                                                                    : forkscale::what_if_model::parallelized;
      },
      [](forkscale::what_if_result& r) { r.factor = nudge(r.factor); },
      [](forkscale::what_if_result& r) { r.executed = !r.executed; },
      [](forkscale::what_if_result& r) { r.entries += 1; },
      [](forkscale::what_if_result& r) { r.region_work += 1; },
      [](forkscale::what_if_result& r) { r.span_ticks_num += 1; },
      [](forkscale::what_if_result& r) { r.span_ticks_den += 1; },
      [](forkscale::what_if_result& r) {  // the same fraction, another denominator
        r.span_ticks_num *= 2;
        r.span_ticks_den *= 2;
      },
      [](forkscale::what_if_result& r) { r.work = nudge(r.work); },
      [](forkscale::what_if_result& r) { r.span = nudge(r.span); },
      [](forkscale::what_if_result& r) { r.burdened_span = nudge(r.burdened_span); },
      [](forkscale::what_if_result& r) { r.parallelism = nudge(r.parallelism); },
      [](forkscale::what_if_result& r) { r.gain = nudge(r.gain); },
  };
  for (std::size_t i = 0; i < s.got.what_if.size(); ++i)
    for (std::size_t e = 0; e < sizeof edits / sizeof edits[0]; ++e) {
      forkscale::report changed = s.got;
      edits[e](changed.what_if[i]);
      EXPECT_NE(rp::compare_what_if(s.want, changed, true), "") << "row " << i << ", edit " << e;
    }
  forkscale::report changed = s.got;
  changed.what_if.pop_back();
  EXPECT_NE(rp::compare_what_if(s.want, changed, true), "");
  changed = s.got;
  changed.what_if.clear();
  EXPECT_NE(rp::compare_what_if(s.want, changed, true), "");
  // The oracle's numbers altered: each scenario's span at each factor, its work
  // and its entries.
  for (std::size_t k = 0; k < s.want.scenarios.size(); ++k) {
    if (!s.want.scenarios[k].executed) continue;
    for (std::size_t f = 0; f < s.want.factors.size(); ++f) {
      rp::what_if_expected w = s.want;
      w.scenarios[k].span_num[f] += 1;
      EXPECT_NE(rp::compare_what_if(w, s.got, true), "") << "scenario " << k << ", factor " << f;
    }
    rp::what_if_expected w = s.want;
    w.scenarios[k].region_work += 1;
    EXPECT_NE(rp::compare_what_if(w, s.got, true), "") << "scenario " << k;
    w = s.want;
    w.scenarios[k].entries += 1;
    EXPECT_NE(rp::compare_what_if(w, s.got, true), "") << "scenario " << k;
  }
  rp::what_if_expected none = s.want;
  none.scenarios.clear();
  EXPECT_NE(rp::compare_what_if(none, s.got, true), "");
}

// Oracles with a deliberately wrong model disagree with the engine on some random
// programs, serially and on threads: the comparison can fail.
TEST(WhatIfOracle, WrongModelsAreCaught) {
  for (rp::what_if_mutant mutant : {rp::what_if_mutant::no_inheritance, rp::what_if_mutant::every_entry})
    for (unsigned workers : {0u, 3u}) {
      rp::scheduler sched(workers);
      std::uint64_t tried = 0;
      bool caught = false;
      for (; tried < 500 && !caught; ++tried) {
        const std::uint64_t seed = base_seed() + (5u << 28) + tried;
        const rp::program p = rp::generator(seed, true).make();
        const checked right = check_program(p, sched, seed, workers);
        ASSERT_EQ(right.failure, "");
        const checked wrong = check_program(p, sched, seed, workers, mutant);
        caught = !wrong.failure.empty();
      }
      EXPECT_TRUE(caught) << "mutant " << static_cast<int>(mutant) << ", workers " << workers;
      if (caught)
        std::cout << "[what-if oracle] mutant " << static_cast<int>(mutant) << " (workers " << workers
                  << ") caught after " << tried << " programs\n";
    }
}

}  // namespace
