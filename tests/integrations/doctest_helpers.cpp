// doctest_helpers: the doctest assertion helpers pass when the bound holds (and
// count as doctest assertions). doctest_failing.cpp checks the failures.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <forkscale/integrations/doctest.hpp>

#include "programs.hpp"

namespace fs = forkscale;
namespace progs = integration_programs;

TEST_CASE("forkscale checks pass when the bound holds") {
  const fs::report rep = progs::fan_out(8, 1000);  // parallelism 8, span 12.5% of work
  REQUIRE(rep.parallelism() == 8.0);
  FORKSCALE_CHECK_PARALLELISM_AT_LEAST(rep, 8);
  FORKSCALE_REQUIRE_PARALLELISM_AT_LEAST(rep, 7.5);
  FORKSCALE_WARN_PARALLELISM_AT_LEAST(rep, 1);
  FORKSCALE_CHECK_SPAN_AT_MOST_PERCENT_OF_WORK(rep, 12.5);
  FORKSCALE_REQUIRE_SPAN_AT_MOST_PERCENT_OF_WORK(rep, 50);
  FORKSCALE_WARN_SPAN_AT_MOST_PERCENT_OF_WORK(rep, 50);
  FORKSCALE_CHECK_NO_DIAGNOSTICS(rep);
  FORKSCALE_REQUIRE_NO_DIAGNOSTICS(rep);
  FORKSCALE_WARN_NO_DIAGNOSTICS(rep);

  // A burden of 100 per edge: burdened span max(7·100 + 1,000, 8·100) = 1,700.
  const fs::report light = progs::fan_out(8, 1000, 100);
  FORKSCALE_CHECK_BURDENED_PARALLELISM_AT_LEAST(light, 4.7);
  FORKSCALE_REQUIRE_BURDENED_PARALLELISM_AT_LEAST(light, 8000.0 / 1700.0);
  FORKSCALE_WARN_BURDENED_PARALLELISM_AT_LEAST(light, 1);
}

TEST_CASE("forkscale regression check passes within its rules") {
  const fs::report baseline = progs::fan_out(10, 1000);
  const fs::report nine = progs::fan_out(9, 1000);  // parallelism exactly 10% lower: at the threshold
  CHECK(fs::expect_no_regression(baseline, nine, {"parallelism<-10%", "region=*:span>+0%"}));
  CHECK_FALSE(fs::assertions::no_regression(baseline, nine, {"parallelism<-9%"}).passed);
}

TEST_CASE("forkscale checks take rows and pointers to rows") {
  const fs::report rep = progs::phases(3000, 4, 1000);
  FORKSCALE_CHECK_PARALLELISM_AT_LEAST(rep.find("phases/parallel"), 4);
  FORKSCALE_CHECK_PARALLELISM_AT_LEAST(*rep.find("phases/serial"), 1);
  FORKSCALE_CHECK_SPAN_AT_MOST_PERCENT_OF_WORK(rep.regions.front(), 58);  // 4,000 / 7,000
}

TEST_CASE("forkscale checks on real threads") {
  const fs::report rep = fs::measure(
      "threads", [] { progs::fan_out_threads_body(8, 250); }, progs::cost_clock());
  FORKSCALE_REQUIRE_NO_DIAGNOSTICS(rep);
  FORKSCALE_CHECK_PARALLELISM_AT_LEAST(rep, 8);
}
