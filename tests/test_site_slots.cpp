// A call or spawn site's step (its id, whether the invocation is a top-call-site
// / top-caller one, the context inside it) is looked up in the site's slot in
// this thread (site_step_for, detail/profile/sites.hpp): a table indexed by the
// site's line and file, with the steps from the last two contexts the site was
// reached from. These tests check that the slots give exactly what the
// registry's own lookup (site_registry::step, under its lock) gives — for sites
// that share a slot (the same line and file with another function, tag or kind;
// lines 128 apart), for a site reached from more contexts than a slot keeps, on
// several threads at once — and, end to end, that such programs still give the
// brute-force oracle's site profiles, in consecutive measurements and on
// worker threads.
#include <gtest/gtest.h>

#include <forkscale/detail/profile/sites.hpp>  // site_step_for, site_registry

#include <cstdint>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "support/random_program.hpp"

namespace fs = forkscale;

namespace {

// Sites that fight over slots: entries 0 to 5 all index the same slot of a
// thread's table or differ from entry 0 by one field only.
constexpr char file_one[] = "t/one.cpp";
constexpr char file_two[] = "t/two.cpp";
constexpr char fn_f[] = "f";
constexpr char fn_g[] = "g";
constexpr char tag_x[] = "x";
constexpr char tag_y[] = "y";
const fs::site site_pool[] = {
    {file_one, 7, fn_f, nullptr},        // 0
    {file_one, 7, fn_g, nullptr},        // 1: another function, the same line
    {file_one, 7, fn_f, tag_x},          // 2: tagged
    {file_one, 7, fn_f, tag_y},          // 3: another tag
    {file_one, 7 + 128, fn_f, nullptr},  // 4: the same slot index in one file
    {file_two, 7, fn_f, nullptr},        // 5: another file
    {file_one, 8, fn_f, nullptr},        // 6
    {file_two, 9, fn_g, tag_x},          // 7
};
constexpr int pool_size = static_cast<int>(sizeof site_pool / sizeof site_pool[0]);

// One thread's walk: from the empty context, random call and spawn sites of the
// pool; after each, the walk goes into the invocation, stays, or returns to
// where it came from. Every step must be the registry's; the first time this
// thread asks for a (context, site, kind) it must say the site was registered
// (its cost is kept out of the strands: test_site_registration.cpp).
std::string walk(std::uint64_t seed, int steps) {
  fs::detail::site_registry& reg = fs::detail::site_registry::instance();
  std::mt19937_64 rng(seed);
  std::vector<const fs::detail::site_context*> stack{reg.empty()};
  static thread_local std::set<std::tuple<const fs::detail::site_context*, int, int>> seen;  // by this thread
  std::ostringstream out;
  int failures = 0;
  for (int i = 0; i < steps && failures < 5; ++i) {
    const fs::detail::site_context* ctx = stack.back();
    const int w = static_cast<int>(rng() % pool_size);
    const fs::site_kind kind = rng() % 3 == 0 ? fs::site_kind::spawn : fs::site_kind::call;
    const fs::detail::site_step got = fs::detail::site_step_for(ctx, site_pool[w], kind);
    const fs::detail::site_step want = reg.step(ctx, site_pool[w], kind);
    const bool first = seen.emplace(ctx, w, static_cast<int>(kind)).second;
    if (got.next != want.next || got.site != want.site || got.flags != want.flags || (first && !got.registered)) {
      ++failures;
      out << "step " << i << " (seed " << seed << "): site " << w << " as " << fs::to_string(kind)
          << " from a context of " << ctx->sites.size() << " sites: got site " << got.site << " flags "
          << int(got.flags) << (got.registered ? " registered" : "") << ", the registry says site " << want.site
          << " flags " << int(want.flags) << (got.next == want.next ? "" : " and another next context")
          << (first ? " (first lookup in this thread)" : "") << "\n";
    }
    const auto r = rng() % 8;
    if (r < 3 && stack.size() < 6) {
      stack.push_back(got.next);
    } else if (r < 6 && stack.size() > 1) {
      stack.pop_back();
    }
  }
  return out.str();
}

TEST(SiteSlots, StepsAreTheRegistrysOnOneThread) {
  const std::string diff = walk(1, 20000);
  EXPECT_EQ(diff, "");
  // Again: now every slot and cache of this thread is warm.
  EXPECT_EQ(walk(2, 20000), "");
}

TEST(SiteSlots, StepsAreTheRegistrysOnThreadsAtOnce) {
  constexpr unsigned threads = 4;
  std::vector<std::string> diffs(threads);
  std::vector<std::thread> ts;
  for (unsigned t = 0; t < threads; ++t)
    ts.emplace_back([&diffs, t] { diffs[t] = walk(100 + t, 10000) + walk(200 + t, 10000); });
  for (auto& t : ts) t.join();
  for (unsigned t = 0; t < threads; ++t) EXPECT_EQ(diffs[t], "") << "thread " << t;
}

// A call site (table entry 1) reached in turn from more contexts than a slot
// keeps — inside other call sites, inside itself, inside spawned children —
// and sites that share a slot (entries 2 and 3: the same line, function and
// file, another tag) used one after the other: the oracle's site profiles,
// serially and on worker threads, in measurements one after the other.
rp::program many_contexts() {
  rp::program p;
  const int outer[] = {0, 2, 3, 4, 5};
  for (int i = 0; i < 40; ++i) {
    const int a = outer[i % 5];
    const int b = outer[(i / 5) % 5];
    rp::body inner{rp::charge(1 + i % 3), rp::with_body(rp::op::call, 1, {rp::charge(2)})};
    if (i % 3 == 0) inner.push_back(rp::with_body(rp::op::call, 1, {rp::with_body(rp::op::call, 1, {rp::charge(1)})}));
    rp::body mid{rp::with_body(rp::op::call, b, std::move(inner)), rp::charge(i % 4)};
    if (i % 2 == 0) {
      rp::body child{rp::with_body(rp::op::call, a, {rp::with_body(rp::op::call, 1, {rp::charge(3 + i % 5)})})};
      mid.push_back(rp::with_body(rp::op::spawn, i % 4, std::move(child)));
      mid.push_back(rp::with_body(rp::op::call, 1, {rp::charge(1)}));
      mid.push_back(rp::sync());
    }
    p.root.push_back(rp::with_body(rp::op::call, a, std::move(mid)));
    p.root.push_back(rp::with_body(rp::op::call, 2 + i % 2, {rp::charge(1 + i % 2)}));
  }
  return p;
}

TEST(SiteSlots, ManyContextsGiveTheOraclesProfiles) {
  const rp::program p = many_contexts();
  rp::oracle o;
  const rp::region_table expected = o.evaluate(p, "contexts");
  for (int round = 0; round < 2; ++round) {
    for (unsigned workers : {0u, 2u}) {
      rp::scheduler sched(workers);
      rp::interpreter<> run(sched, 31 + workers + 7u * static_cast<unsigned>(round));
      const fs::report rep = run.run(p, "contexts", fs::options{});
      EXPECT_EQ(rp::compare_regions(expected, rp::from_report(rep)), "")
          << "round " << round << ", workers " << workers;
      EXPECT_EQ(rp::compare_profiles(o.profiles(), rep), "") << "round " << round << ", workers " << workers;
      EXPECT_EQ(rep.check_profile(), "") << "round " << round << ", workers " << workers;
      EXPECT_EQ(rep.diagnostic_count, 0u) << "round " << round << ", workers " << workers;
    }
  }
}

}  // namespace
