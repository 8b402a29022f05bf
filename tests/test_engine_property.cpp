// Property test: random fork-join programs, run through the guards serially and
// on real threads, must give exactly the numbers of the brute-force dag oracle
// under the cost clock — whole program and every region.
//
// FORKSCALE_PROPERTY_SEED=<n> replays from seed n; FORKSCALE_PROPERTY_COUNT=<n>
// sets how many programs are run (default 10,000).
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "support/random_program.hpp"

namespace {

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::strtoull(v, nullptr, 10);
}

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const std::uint64_t s = env_or("FORKSCALE_PROPERTY_SEED", std::random_device{}());
    std::cout << "[property] base seed " << s << " (replay with FORKSCALE_PROPERTY_SEED=" << s
              << ")\n";
    return s;
  }();
  return seed;
}

std::string compare(const rp::region_table& expected, const rp::region_table& got) {
  std::string diff;
  for (const auto& [path, want] : expected) {
    auto it = got.find(path);
    if (it == got.end()) {
      diff += "  missing row " + path + "\n";
    } else if (!(it->second == want)) {
      diff += "  " + path + ": oracle " + rp::to_string(want) + "\n" + std::string(path.size() + 4, ' ') +
              "engine " + rp::to_string(it->second) + "\n";
    }
  }
  for (const auto& [path, row] : got)
    if (!expected.count(path)) diff += "  unexpected row " + path + "\n";
  return diff;
}

void run_programs(unsigned workers, std::uint64_t seed_offset) {
  const std::uint64_t count = env_or("FORKSCALE_PROPERTY_COUNT", 10000);
  rp::scheduler sched(workers);
  std::uint64_t failures = 0;
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
    const std::string diff = compare(expected, rp::from_report(rep));
    std::string diag_text;
    for (const auto& d : rep.diagnostics) diag_text += "  " + d.where + ": " + d.problem + "\n";
    if (!diff.empty() || rep.diagnostic_count != 0) {
      ++failures;
      ADD_FAILURE() << "program with seed " << seed << " (workers " << workers
                    << ") differs from the oracle:\n"
                    << diff << "diagnostics:\n"
                    << diag_text << "program:\n"
                    << p.describe();
    }
  }
}

TEST(EngineProperty, SerialRunsMatchOracle) { run_programs(0, 0); }

TEST(EngineProperty, ThreadedRunsMatchOracle) { run_programs(3, 0); }

// The same programs, fresh seeds, on a single worker plus the waiting threads.
TEST(EngineProperty, OneWorkerRunsMatchOracle) {
  if (env_or("FORKSCALE_PROPERTY_COUNT", 10000) < 100) GTEST_SKIP() << "count too small";
  run_programs(1, 1u << 30);
}

// The oracle itself, on programs whose numbers are known by hand.
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
  EXPECT_EQ(r.span, 115u);          // 10 + 100 + 5
  EXPECT_EQ(r.burdened_span, 115u); // continuation 10 + 7 + 50 = 67 < 110
  EXPECT_EQ(r.spawns, 1u);
  EXPECT_EQ(r.syncs, 1u);
}

}  // namespace
