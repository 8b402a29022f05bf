// Links annotated.cpp, which includes only <forkscale/annotate.hpp>, with this
// file, which includes <forkscale/forkscale.hpp> and measures: the guards of the
// light file report to the engine compiled here, and the numbers are those of
// the same program compiled here (and those of a closed form).
#include <forkscale/forkscale.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace fs = forkscale;

std::uint64_t light_tree(int depth);
void light_group();
void light_handle();
void light_misuse();

#define ANNOTATE_TREE heavy_tree
#define ANNOTATE_GROUP heavy_group
#define ANNOTATE_HANDLE heavy_handle
#include "tree.inc"

namespace {

// tree.inc's tree in closed form: W(0) = S(0) = 8; W(d) = 10 + 2 W(d-1);
// S(d) = 10 + S(d-1) (the spawned half runs beside the 7 and the right half).
std::uint64_t tree_work(int d) { return d == 0 ? 8 : 10 + 2 * tree_work(d - 1); }
std::uint64_t tree_span(int d) { return d == 0 ? 8 : 10 + tree_span(d - 1); }

fs::options cost_options() {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.what_if.read_environment = false;
  o.what_if.factors = {2};
  return o;
}

struct site_numbers {
  std::vector<std::uint64_t> values;
  std::vector<std::string> files;
};

// The numbers of every call-site row, without where the site is.
site_numbers call_site_numbers(const fs::report& r) {
  site_numbers out;
  for (const fs::call_site_profile& p : r.call_sites) {
    out.values.push_back(p.top_call_site_on_work.count);
    out.values.push_back(p.top_call_site_on_work.work);
    out.values.push_back(static_cast<std::uint64_t>(p.top_call_site_on_span.span));
    out.files.push_back(p.file.substr(p.file.find_last_of('/') + 1));
  }
  std::sort(out.values.begin(), out.values.end());
  return out;
}

TEST(Annotate, GuardsOfALightFileMeasureAsTheSameCodeCompiledWithTheEngine) {
  for (int depth : {0, 1, 2, 4, 5}) {
    SCOPED_TRACE(depth);
    const fs::report light = fs::measure(
        "light", [&] { light_tree(depth); }, cost_options());
    const fs::report heavy = fs::measure(
        "heavy", [&] { heavy_tree(depth); }, cost_options());
    EXPECT_EQ(light.work(), tree_work(depth));
    EXPECT_EQ(light.span(), tree_span(depth));
    EXPECT_EQ(heavy.work(), tree_work(depth));
    EXPECT_EQ(heavy.span(), tree_span(depth));
    EXPECT_EQ(light.regions.front().spawns, heavy.regions.front().spawns);
    EXPECT_EQ(light.regions.front().syncs, heavy.regions.front().syncs);
    EXPECT_EQ(light.regions.front().calls, heavy.regions.front().calls);
    EXPECT_EQ(light.diagnostic_count, 0u) << light.to_text();
    EXPECT_EQ(call_site_numbers(light).values, call_site_numbers(heavy).values);
    // The light file's sites are named where they are (the root row has no file).
    const std::vector<std::string> files = call_site_numbers(light).files;
    const std::vector<std::string> heavy_files = call_site_numbers(heavy).files;
    EXPECT_EQ(std::count(files.begin(), files.end(), "tree.inc"),
              std::count(heavy_files.begin(), heavy_files.end(), "tree.inc"));
    if (depth > 0) {
      EXPECT_GE(std::count(files.begin(), files.end(), "tree.inc"), 2);
    }
    for (const std::string& f : files) EXPECT_TRUE(f.empty() || f == "tree.inc") << f;
    ASSERT_EQ(light.what_if.size(), heavy.what_if.size());
    for (std::size_t i = 0; i < light.what_if.size(); ++i) {
      EXPECT_EQ(light.what_if[i].region, heavy.what_if[i].region);
      EXPECT_EQ(light.what_if[i].entries, heavy.what_if[i].entries);
      EXPECT_EQ(light.what_if[i].span_ticks_num * heavy.what_if[i].span_ticks_den,
                heavy.what_if[i].span_ticks_num * light.what_if[i].span_ticks_den);
    }
  }
}

TEST(Annotate, TaskGroupsAndJoinHandlesOfALightFile) {
  const fs::report g = fs::measure(
      "group", [] { light_group(); }, cost_options());
  EXPECT_EQ(g.work(), 5u);
  EXPECT_EQ(g.span(), 4u);
  EXPECT_EQ(g.diagnostic_count, 0u) << g.to_text();
  const fs::report h = fs::measure(
      "handle", [] { light_handle(); }, cost_options());
  EXPECT_EQ(h.work(), 6u);
  EXPECT_EQ(h.span(), 6u);
  EXPECT_EQ(h.diagnostic_count, 0u) << h.to_text();
}

TEST(Annotate, MisuseInALightFileIsDiagnosed) {
  const fs::report r = fs::measure(
      "misuse", [] { light_misuse(); }, cost_options());
  EXPECT_EQ(r.diagnostic_count, 1u) << r.to_text();
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_NE(r.diagnostics.front().problem.find("spawn_scope opened with no spawn point"), std::string::npos)
      << r.diagnostics.front().problem;
}

TEST(Annotate, OutsideAMeasurementTheLightGuardsDoNothing) {
  EXPECT_EQ(light_tree(4), 16u);
  light_group();
  light_handle();
  light_misuse();
  // The next measurement starts clean.
  const fs::report r = fs::measure(
      "after", [] { light_tree(2); }, cost_options());
  EXPECT_EQ(r.work(), tree_work(2));
  EXPECT_EQ(r.diagnostic_count, 0u) << r.to_text();
}

}  // namespace
