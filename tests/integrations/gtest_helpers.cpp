// gtest_helpers: the GoogleTest assertion helpers pass when the bound holds, and
// fail — at the caller's line, with the label, the value and the bound — when it
// does not (checked here with gtest-spi's EXPECT_NONFATAL_FAILURE and
// EXPECT_FATAL_FAILURE; gtest_failing.cpp checks the printed site).
//
// Built twice: as is, and with FORKSCALE_ENABLE=0, where every report is empty
// and every check passes.
#include <forkscale/integrations/gtest.hpp>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "programs.hpp"

namespace fs = forkscale;
namespace progs = integration_programs;

#if FORKSCALE_ENABLE

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ForkscaleGtest, PassingChecksPass) {
  const fs::report rep = progs::fan_out(8, 1000);  // parallelism 8, span 12.5% of work
  ASSERT_EQ(rep.parallelism(), 8.0);
  FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(rep, 8);
  FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(rep, 7.5);
  FORKSCALE_ASSERT_PARALLELISM_AT_LEAST(rep, 1);
  FORKSCALE_EXPECT_SPAN_AT_MOST_PERCENT_OF_WORK(rep, 12.5);
  FORKSCALE_ASSERT_SPAN_AT_MOST_PERCENT_OF_WORK(rep, 50);
  FORKSCALE_EXPECT_NO_DIAGNOSTICS(rep);
  FORKSCALE_ASSERT_NO_DIAGNOSTICS(rep);

  // A burden of 100 per edge: burdened span max(7·100 + 1,000, 8·100) = 1,700.
  const fs::report light = progs::fan_out(8, 1000, 100);
  FORKSCALE_EXPECT_BURDENED_PARALLELISM_AT_LEAST(light, 4.7);
  FORKSCALE_ASSERT_BURDENED_PARALLELISM_AT_LEAST(light, 8000.0 / 1700.0);
}

TEST(ForkscaleGtest, RowsAndPointersToRows) {
  const fs::report rep = progs::phases(3000, 4, 1000);
  FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(rep.find("phases/parallel"), 4);
  FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(*rep.find("phases/serial"), 1);
  FORKSCALE_EXPECT_SPAN_AT_MOST_PERCENT_OF_WORK(rep.regions.front(), 58);  // 4,000 / 7,000
  EXPECT_NONFATAL_FAILURE(FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(rep.find("phases/serial"), 2),
                          "parallelism of 'phases/serial' is 1.00, expected at least 2");
  EXPECT_NONFATAL_FAILURE(FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(rep.find("phases/nowhere"), 2),
                          "no such region (rep.find(\"phases/nowhere\") is null)");
}

TEST(ForkscaleGtest, FailuresNameLabelValueAndBound) {
  const fs::report rep = progs::fan_out(4, 1000);  // parallelism 4, burdened ~0.07
  EXPECT_NONFATAL_FAILURE(FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(rep, 100),
                          "forkscale: parallelism of 'fan_out' is 4.00, expected at least 100");
  EXPECT_NONFATAL_FAILURE(FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(rep, 4.001), "is 4.000, expected at least 4.001");
  EXPECT_NONFATAL_FAILURE(FORKSCALE_EXPECT_BURDENED_PARALLELISM_AT_LEAST(rep, 1),
                          "burdened parallelism of 'fan_out' is 0.07, expected at least 1");
  EXPECT_NONFATAL_FAILURE(FORKSCALE_EXPECT_SPAN_AT_MOST_PERCENT_OF_WORK(rep, 10),
                          "span of 'fan_out' is 25.00% of the work, expected at most 10% of the work");
  EXPECT_NONFATAL_FAILURE(FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(rep, 100),
                          "work 4,000 units, span 1,000 units, burdened span 60,000 units");
  const double kMinimum = 16;
  EXPECT_NONFATAL_FAILURE(FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(rep, kMinimum), "expected at least 16 (kMinimum)");

  const fs::report bad = progs::misused();
  EXPECT_NONFATAL_FAILURE(FORKSCALE_EXPECT_NO_DIAGNOSTICS(bad),
                          "forkscale: 'misused' (bad) has 1 misuse diagnostic(s), expected none");
}

// The ASSERT_ forms are fatal; EXPECT_FATAL_FAILURE cannot see local variables.
fs::report g_fan_out;

TEST(ForkscaleGtest, AssertFormsAreFatal) {
  g_fan_out = progs::fan_out(4, 1000);
  EXPECT_FATAL_FAILURE(FORKSCALE_ASSERT_PARALLELISM_AT_LEAST(g_fan_out, 5),
                       "parallelism of 'fan_out' is 4.00, expected at least 5");
  EXPECT_FATAL_FAILURE(FORKSCALE_ASSERT_BURDENED_PARALLELISM_AT_LEAST(g_fan_out, 5), "expected at least 5");
  EXPECT_FATAL_FAILURE(FORKSCALE_ASSERT_SPAN_AT_MOST_PERCENT_OF_WORK(g_fan_out, 5), "expected at most 5% of the work");
}

TEST(ForkscaleGtest, EmptyReportFails) {
  const fs::report nothing;
  EXPECT_NONFATAL_FAILURE(FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(nothing, 1),
                          "cannot check the parallelism (expected at least 1): the report "
                          "(nothing) is empty: nothing was measured");
}

// A run held to a baseline: fan_out(k) has parallelism k, phases' region
// "parallel" the parallelism of its fan-out.
TEST(ForkscaleGtest, NoRegressionPassesWithinTheRules) {
  const fs::report baseline = progs::fan_out(10, 1000);
  EXPECT_TRUE(fs::expect_no_regression(baseline, baseline, {"parallelism<-10%", "span>+5%"}));
  const fs::report nine = progs::fan_out(9, 1000);  // parallelism exactly 10% lower: at the threshold
  EXPECT_TRUE(fs::expect_no_regression(baseline, nine, {"parallelism<-10%", "work>+0%"}));
  const std::vector<std::string> rules{"region=*:parallelism<-10%"};
  EXPECT_TRUE(fs::expect_no_regression(progs::phases(3000, 4, 1000), progs::phases(2000, 4, 1000), rules));
}

TEST(ForkscaleGtest, NoRegressionFailsWithEveryRegression) {
  const fs::report baseline = progs::fan_out(8, 1000), current = progs::fan_out(4, 1000);
  EXPECT_NONFATAL_FAILURE(fs::expect_no_regression(baseline, current, {"parallelism<-10%"}),
                          "forkscale: 1 regression(s) of 'fan_out' against the baseline\n"
                          "  parallelism of 'fan_out': 8.00 before, 4.00 after, -50.0% (rule parallelism<-10%)");
  EXPECT_NONFATAL_FAILURE(fs::expect_no_regression(baseline, current, {"work<-10%", "spawns<-40%"}),
                          "  work of 'fan_out': 8,000 before, 4,000 after, -50.0% (rule work<-10%)\n"
                          "  spawns of 'fan_out': 8 before, 4 after, -50.0% (rule spawns<-40%)");
  const fs::report four = progs::phases(3000, 4, 1000), two = progs::phases(3000, 2, 1000);
  EXPECT_NONFATAL_FAILURE(fs::expect_no_regression(four, two, {"region=parallel:parallelism<-10%"}),
                          "parallelism of 'phases/parallel': 4.00 before, 2.00 after, -50.0%");
  EXPECT_NONFATAL_FAILURE(fs::expect_no_regression(four, two, {"region=phases/parallel:parallelism<-10%"}),
                          "parallelism of 'phases/parallel': 4.00 before, 2.00 after, -50.0%");
  // A region in one report only is a regression; in neither, a rule with a typo.
  EXPECT_NONFATAL_FAILURE(
      fs::expect_no_regression(four, progs::fan_out(4, 1000, -1, "phases"), {"region=parallel:span>+5%"}),
      "region 'parallel' is in the baseline but not in the current report (rule region=parallel:span>+5%)");
  EXPECT_NONFATAL_FAILURE(fs::expect_no_regression(four, two, {"region=paralel:span>+5%"}),
                          "regression rule 'region=paralel:span>+5%': no region 'paralel' in either report");
  EXPECT_NONFATAL_FAILURE(fs::expect_no_regression(four, two, {"parallelsim<-10%"}),
                          "bad regression rule 'parallelsim<-10%': unknown metric 'parallelsim'");
  EXPECT_NONFATAL_FAILURE(fs::expect_no_regression(four, fs::report(), {"span>+5%"}),
                          "the current report is empty (nothing was measured)");
}

TEST(ForkscaleRegression, Rules) {
  const fs::regression_rule r = fs::parse_regression_rule(" region=a:b/c : burdened_parallelism < -12.5% ");
  EXPECT_EQ(r.region, "a:b/c");
  EXPECT_EQ(r.metric, "burdened_parallelism");
  EXPECT_FALSE(r.above);
  EXPECT_EQ(r.percent, -12.5);
  const fs::regression_rule s = fs::parse_regression_rule("span>5%");
  EXPECT_TRUE(s.region.empty());
  EXPECT_TRUE(s.above);
  EXPECT_EQ(s.percent, 5.0);
  const std::vector<std::pair<std::string, std::string>> bad{
      {"", "it is empty"},
      {"parallelism-10%", "expected '<' or '>'"},
      {"<-10%", "no metric before '<'"},
      {"parallelism<=-10%", "the operator is '<' or '>'"},
      {"parallelism<-10", "the threshold must be a percentage"},
      {"parallelism<ten%", "'ten%' is not a percentage"},
      {"parallelism<-%", "'-%' is not a percentage"},
      {"region=:span>5%", "region= names no region"},
      {"region=sort", "expected ':' after the region's name"},
  };
  for (const auto& b : bad) {
    try {
      fs::parse_regression_rule(b.first);
      ADD_FAILURE() << "accepted " << b.first;
    } catch (const fs::error& e) {
      EXPECT_TRUE(contains(e.what(), "forkscale: bad regression rule '" + b.first + "': " + b.second)) << e.what();
    }
  }
}

// The checks behind the macros, framework-free.
TEST(ForkscaleAssertions, Outcomes) {
  const fs::report rep = progs::fan_out(4, 1000);
  const auto pass = fs::assertions::parallelism_at_least(rep, 4);
  EXPECT_TRUE(pass.passed);
  EXPECT_TRUE(static_cast<bool>(pass));
  EXPECT_TRUE(pass.message.empty());
  EXPECT_EQ(pass.value, 4.0);

  const auto fail = fs::assertions::span_at_most_percent_of_work(rep, 20, "rep", "20");
  EXPECT_FALSE(fail.passed);
  EXPECT_EQ(fail.value, 25.0);
  EXPECT_EQ(fail.bound, 20.0);
  EXPECT_EQ(fail.relation, "at most");
  EXPECT_TRUE(contains(fail.message, "span of 'fan_out' is 25.00% of the work")) << fail.message;

  // A value that only rounds to the bound is shown with the digits that differ.
  const fs::report third = progs::fan_out(3, 1000, -1, "third");
  const auto close = fs::assertions::span_at_most_percent_of_work(third, 33.333);
  EXPECT_FALSE(close.passed);
  EXPECT_TRUE(contains(close.message, "is 33.3333% of the work, expected at most 33.333%")) << close.message;
}

}  // namespace

#else  // FORKSCALE_ENABLE == 0

namespace {

TEST(ForkscaleGtestDisabled, EveryCheckPassesOnTheEmptyReports) {
  const fs::report rep = progs::fan_out(4, 1000);
  EXPECT_TRUE(rep.empty());
  FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(rep, 100);
  FORKSCALE_ASSERT_BURDENED_PARALLELISM_AT_LEAST(rep, 100);
  FORKSCALE_EXPECT_SPAN_AT_MOST_PERCENT_OF_WORK(rep, 1);
  FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(rep.find("fan_out/nowhere"), 2);
  FORKSCALE_EXPECT_NO_DIAGNOSTICS(rep);
  EXPECT_TRUE(fs::expect_no_regression(fs::report(), rep, {"parallelism<-10%"}));
}

}  // namespace

#endif
