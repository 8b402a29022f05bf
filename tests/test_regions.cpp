// Regions: labels, nesting by path, instances, nested measure(), outermost region
// guards and last_report(). Numbers are checked under the cost clock against sums
// worked out by hand.
#include <gtest/gtest.h>

#include <forkscale/forkscale.hpp>

#include <thread>

namespace fs = forkscale;

namespace {

fs::options cost() {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.burden = 0;
  return o;
}

TEST(Regions, NestedRowsAreJoinedByPath) {
  const fs::report r = fs::measure(
      "prog",
      [] {
        fs::charge(1);
        for (int i = 0; i < 3; ++i) {
          fs::region phase("phase");
          fs::charge(10);
          {
            fs::region leaf("leaf");
            auto t = fs::spawn([] { fs::charge(100); });
            t();
            fs::charge(5);
            { fs::sync_point sp; }
          }
        }
      },
      cost());
  ASSERT_EQ(r.regions.size(), 3u);
  EXPECT_EQ(r.regions[0].path, "prog");
  EXPECT_EQ(r.regions[1].path, "prog/phase");
  EXPECT_EQ(r.regions[1].parent, "prog");
  EXPECT_EQ(r.regions[2].path, "prog/phase/leaf");
  EXPECT_EQ(r.regions[2].parent, "prog/phase");
  EXPECT_EQ(r.regions[2].depth, 2u);
  const fs::region_result* leaf = r.find("prog/phase/leaf");
  ASSERT_NE(leaf, nullptr);
  EXPECT_EQ(leaf->instances, 3u);
  EXPECT_EQ(leaf->work, 3u * 105u);
  EXPECT_EQ(leaf->span, 3u * 100u);
  EXPECT_EQ(leaf->spawns, 3u);
  EXPECT_EQ(leaf->syncs, 3u);
  const fs::region_result* phase = r.find("prog/phase");
  EXPECT_EQ(phase->work, 3u * 115u);
  EXPECT_EQ(phase->span, 3u * 110u);
  EXPECT_EQ(r.work(), 1u + 3u * 115u);
  EXPECT_EQ(r.span(), 1u + 3u * 110u);
}

TEST(Regions, ChildrenInheritTheRegionOfTheirSpawnPoint) {
  fs::join_handle h;
  const fs::report r = fs::measure(
      "prog",
      [&] {
        fs::region outer("outer");
        std::thread t(fs::spawn(h, [] {
          fs::region inner("inner");
          fs::charge(40);
        }));
        fs::charge(2);
        {
          fs::sync_point sp(h);
          t.join();
        }
      },
      cost());
  const fs::region_result* inner = r.find("prog/outer/inner");
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->work, 40u);
  EXPECT_EQ(r.find("prog/outer")->work, 42u);
  EXPECT_EQ(r.find("prog/outer")->span, 40u);
}

TEST(Regions, NestedMeasureReportsThatInstance) {
  fs::report inner_rep;
  const fs::report r = fs::measure(
      "prog",
      [&] {
        fs::charge(3);
        inner_rep = fs::measure("step", [] {
          auto t = fs::spawn([] { fs::charge(20); });
          t();
          fs::charge(1);
          fs::sync_point sp;
        });
      },
      cost());
  ASSERT_EQ(inner_rep.regions.size(), 1u);
  EXPECT_EQ(inner_rep.label, "prog/step");
  EXPECT_EQ(inner_rep.work(), 21u);
  EXPECT_EQ(inner_rep.span(), 20u);
  EXPECT_EQ(r.work(), 24u);
}

TEST(Regions, OutermostRegionGuard) {
  fs::options o = cost();
  fs::report rep;
  {
    fs::region r("guarded", o);
    fs::charge(11);
    rep = r.stop();
  }
  EXPECT_EQ(rep.label, "guarded");
  EXPECT_EQ(rep.work(), 11u);
  {
    fs::region r("unstopped", o);
    fs::charge(12);
  }
  const fs::report last = fs::last_report();
  EXPECT_EQ(last.label, "unstopped");
  EXPECT_EQ(last.work(), 12u);
}

TEST(Regions, MacrosGiveUniqueNames) {
  const fs::report r = fs::measure(
      "prog",
      [] {
        FORKSCALE_REGION("a");
        FORKSCALE_CALL_SITE();
        FORKSCALE_CALL_SITE();  // a second guard in the same scope compiles
        fs::charge(6);
      },
      cost());
  EXPECT_EQ(r.calls(), 2u);
  ASSERT_NE(r.find("prog/a"), nullptr);
  EXPECT_EQ(r.find("prog/a")->work, 6u);
  EXPECT_EQ(r.find("prog/a")->calls, 2u);
}

// A call is a sync scope (as a Cilk function is): a sync inside it does not join
// the caller's earlier children, so they stay parallel to the rest of the call.
TEST(Regions, CallIsASyncScope) {
  const fs::report r = fs::measure(
      "prog",
      [] {
        auto a = fs::spawn([] { fs::charge(100); });
        a();
        {
          fs::call_site cs;
          auto b = fs::spawn([] { fs::charge(1); });
          b();
          { fs::sync_point sp; }  // joins b only
          fs::charge(50);
          auto c = fs::spawn([] { fs::charge(7); });
          c();  // left unjoined: passes to the caller's sync block
        }
        fs::sync_point sp;  // joins a and c
      },
      cost());
  EXPECT_EQ(r.work(), 158u);
  EXPECT_EQ(r.span(), 100u);  // max(100, 1 + 50 + 7); 150 if the inner sync had joined a
  EXPECT_EQ(r.syncs(), 2u);
  EXPECT_EQ(r.diagnostic_count, 0u);
}

// A task_call_site only counts: a sync inside it joins every child of the task
// (OpenMP's taskwait in a called function).
TEST(Regions, TaskCallSiteIsNotASyncScope) {
  const fs::report r = fs::measure(
      "prog",
      [] {
        auto a = fs::spawn([] { fs::charge(100); });
        a();
        {
          fs::task_call_site cs;
          { fs::sync_point sp; }  // joins a
          fs::charge(50);
        }
        fs::sync_point sp;
      },
      cost());
  EXPECT_EQ(r.span(), 150u);
  EXPECT_EQ(r.calls(), 1u);
  EXPECT_EQ(r.diagnostic_count, 0u);
}

// Cilkview Fig. 13: the burden sits on each continuation edge, so a spawn whose
// continuation is on the longest burdened path pays it.
TEST(Regions, BurdenOnContinuationEdges) {
  fs::options o = cost();
  o.burden = 1000;
  const fs::report r = fs::measure(
      "prog",
      [] {
        auto t = fs::spawn([] { fs::charge(10); });
        t();
        fs::charge(50);
        fs::sync_point sp;
      },
      o);
  EXPECT_EQ(r.span(), 50u);
  EXPECT_EQ(r.burdened_span(), 1050u);
  EXPECT_EQ(r.burden, 1000u);
  // The default is Cilkview's 15,000 (cycles, here units).
  fs::options d;
  d.clock = fs::clock_kind::cost;
  EXPECT_EQ(fs::measure(
                "x", [] {}, d)
                .burden,
            15000u);
}

}  // namespace
