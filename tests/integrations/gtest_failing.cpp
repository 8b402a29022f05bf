// gtest_failing: a GoogleTest program whose forkscale assertions fail on purpose.
// expect_report.cmake runs it, expects it to fail, and checks that every line
// marked "expect-report:" below is reported at this file and that line, with
// the text after the marker (the label, the value and the bound); that lines
// marked "expect-pass" are not reported; and that no "expect-absent:" text is
// printed (the code after a fatal assertion must not run).
#include <forkscale/integrations/gtest.hpp>

#include <iostream>

#include "programs.hpp"

namespace fs = forkscale;
namespace progs = integration_programs;

// Each expectation must stay on the line of its check (expect_report.cmake reads them by line).
// clang-format off
TEST(ForkscaleGtestFailing, Expect) {
  const fs::report rep = progs::fan_out(4, 1000);
  FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(rep, 4);  // expect-pass
  FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(rep, 100);  // expect-report: parallelism of 'fan_out' is 4.00, expected at least 100
  FORKSCALE_EXPECT_BURDENED_PARALLELISM_AT_LEAST(rep, 2);  // expect-report: burdened parallelism of 'fan_out' is 0.07, expected at least 2
  FORKSCALE_EXPECT_SPAN_AT_MOST_PERCENT_OF_WORK(rep, 10);  // expect-report: span of 'fan_out' is 25.00% of the work, expected at most 10% of the work
  FORKSCALE_EXPECT_NO_DIAGNOSTICS(progs::misused());  // expect-report: 'misused' (progs::misused()) has 1 misuse diagnostic(s), expected none
  fs::expect_no_regression(progs::fan_out(8, 1000), rep, {"parallelism<-60%"});  // expect-pass
  fs::expect_no_regression(progs::fan_out(8, 1000), rep, {"parallelism<-10%"});  // expect-report: parallelism of 'fan_out': 8.00 before, 4.00 after, -50.0% (rule parallelism<-10%)
}

TEST(ForkscaleGtestFailing, AssertStopsTheTest) {
  const fs::report rep = progs::phases(3000, 4, 1000);
  FORKSCALE_ASSERT_PARALLELISM_AT_LEAST(rep.find("phases/parallel"), 4);  // expect-pass
  FORKSCALE_ASSERT_PARALLELISM_AT_LEAST(rep.find("phases/serial"), 2);  // expect-report: parallelism of 'phases/serial' is 1.00, expected at least 2
  std::cout << "after a failed FORKSCALE_ASSERT" << std::endl;  // expect-absent: after a failed FORKSCALE_ASSERT
}

// clang-format on