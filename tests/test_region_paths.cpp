// Region rows as data: a nested measure's report reads back, rows come in an
// order that does not depend on scheduling, paths are unambiguous whatever the
// labels hold, and a region closed out of order keeps its rows nested. Numbers
// under the cost clock, checked against hand counts.
#include <gtest/gtest.h>

#include <forkscale/forkscale.hpp>
#include <forkscale/read_report.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace fs = forkscale;

namespace {

fs::options cost() {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.burden = 0;
  return o;
}

}  // namespace

// ---- nested reports read back; rows in a deterministic order; unambiguous paths --

namespace {

fs::report nested_step_report() {
  fs::report inner_rep;
  fs::measure(
      "prog",
      [&] {
        fs::region phase("phase");
        fs::charge(2);
        inner_rep = fs::measure("step", [] {
          auto t = fs::spawn([] { fs::charge(20); });
          t();
          fs::charge(1);
          fs::sync_point sp;
        });
      },
      cost());
  return inner_rep;
}

}  // namespace

TEST(Regions, NestedMeasureReportHasItsOwnRootRow) {
  const fs::report inner = nested_step_report();
  EXPECT_EQ(inner.label, "prog/phase/step");  // its path in the outer measurement
  ASSERT_EQ(inner.regions.size(), 1u);
  EXPECT_EQ(inner.regions[0].depth, 0u);
  EXPECT_EQ(inner.regions[0].label, "step");
  EXPECT_EQ(inner.regions[0].path, "step");
  EXPECT_EQ(inner.regions[0].parent, "");
  EXPECT_EQ(inner.work(), 21u);
  EXPECT_EQ(inner.span(), 20u);
}

TEST(Regions, NestedMeasureReportReadsBack) {
  const fs::report inner = nested_step_report();
  const fs::report back = fs::from_json(inner.to_json());
  EXPECT_EQ(back.label, inner.label);
  ASSERT_EQ(back.regions.size(), 1u);
  EXPECT_EQ(back.regions[0].depth, 0u);
  EXPECT_EQ(back.regions[0].path, "step");
  EXPECT_EQ(back.work(), 21u);
  EXPECT_EQ(back.span(), 20u);
  EXPECT_EQ(back.to_json(), inner.to_json());
}

TEST(Regions, SiblingRowsAreOrderedByLabelNotByFirstEntry) {
  const fs::report r = fs::measure(
      "m",
      [] {
        {
          fs::region b("B");
          fs::charge(1);
        }
        {
          fs::region z("Z");
          {
            fs::region y("y");
            fs::charge(1);
          }
          {
            fs::region x("x");
            fs::charge(1);
          }
        }
        {
          fs::region a("A");
          fs::charge(1);
        }
      },
      cost());
  std::vector<std::string> paths;
  for (const auto& row : r.regions) paths.push_back(row.path);
  const std::vector<std::string> expected = {"m", "m/A", "m/B", "m/Z", "m/Z/x", "m/Z/y"};
  EXPECT_EQ(paths, expected);
}

TEST(Regions, SiblingOrderIsTheSameWhicheverThreadEntersFirst) {
  for (int first = 0; first < 2; ++first) {
    fs::task_group g;
    const fs::report r = fs::measure(
        "m",
        [&] {
          std::thread ta(fs::spawn(g, [] {
            fs::region a("A");
            fs::charge(3);
          }));
          if (first == 0) ta.join();
          std::thread tb(fs::spawn(g, [] {
            fs::region b("B");
            fs::charge(4);
          }));
          tb.join();
          if (first == 1) ta.join();
          fs::sync_point sp(g);
        },
        cost());
    ASSERT_EQ(r.regions.size(), 3u);
    EXPECT_EQ(r.regions[1].path, "m/A");
    EXPECT_EQ(r.regions[2].path, "m/B");
  }
}

TEST(Regions, LabelsWithSlashesDoNotCollideWithNestedPaths) {
  const fs::report r = fs::measure(
      "m",
      [] {
        {
          fs::region ab("a/b");
          fs::charge(5);
        }
        {
          fs::region a("a");
          {
            fs::region b("b");
            fs::charge(7);
          }
        }
        {
          fs::region bs("c\\");
          {
            fs::region d("d");
            fs::charge(11);
          }
        }
        {
          fs::region cd("c\\/d");
          fs::charge(13);
        }
      },
      cost());
  ASSERT_EQ(r.regions.size(), 7u);
  const fs::region_result* slash = r.find("m/a\\/b");
  const fs::region_result* nested = r.find("m/a/b");
  ASSERT_NE(slash, nullptr);
  ASSERT_NE(nested, nullptr);
  EXPECT_NE(slash, nested);
  EXPECT_EQ(slash->work, 5u);
  EXPECT_EQ(slash->label, "a/b");
  EXPECT_EQ(nested->work, 7u);
  EXPECT_EQ(nested->parent, "m/a");
  EXPECT_EQ(r.find("m/c\\\\/d")->work, 11u);    // "d" inside "c\"
  EXPECT_EQ(r.find("m/c\\\\\\/d")->work, 13u);  // "c\/d"
  EXPECT_EQ(fs::escape_region_label("a/b"), "a\\/b");
  // Every path is distinct, and survives the JSON round trip.
  const fs::report back = fs::from_json(r.to_json());
  for (const auto& row : r.regions) {
    EXPECT_EQ(std::count_if(r.regions.begin(), r.regions.end(),
                            [&](const fs::region_result& o) { return o.path == row.path; }),
              1);
    ASSERT_NE(back.find(row.path), nullptr) << row.path;
    EXPECT_EQ(back.find(row.path)->work, row.work);
  }
}

TEST(Regions, RegionClosedBeforeOneOpenedInsideItKeepsRowsNested) {
  const fs::report r = fs::measure(
      "m",
      [] {
        auto outer = std::make_unique<fs::region>("outer");
        fs::charge(2);
        fs::region inner("inner");
        fs::charge(3);
        outer.reset();  // out of order: "inner" is still open
        fs::charge(100);
      },
      cost());
  EXPECT_GE(r.diagnostic_count, 1u);
  const fs::region_result* outer = r.find("m/outer");
  const fs::region_result* inner = r.find("m/outer/inner");
  ASSERT_NE(outer, nullptr);
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(outer->work, 5u);
  EXPECT_EQ(inner->work, 3u);
  EXPECT_LE(inner->work, outer->work);
  EXPECT_EQ(r.work(), 105u);
}
