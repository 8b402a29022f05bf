// doctest.hpp: doctest assertions on a forkscale report.
//
//   #include <forkscale/doctest.hpp>   // after or instead of <doctest/doctest.h>
//
//   TEST_CASE("fib is parallel") {
//     fs::options opt;
//     opt.clock = fs::clock_kind::cost;
//     const fs::report rep = fs::measure("fib", [] { fib(20); }, opt);
//     FORKSCALE_CHECK_PARALLELISM_AT_LEAST(rep, 100);
//     FORKSCALE_CHECK_SPAN_AT_MOST_PERCENT_OF_WORK(rep, 1);
//     FORKSCALE_CHECK_NO_DIAGNOSTICS(rep);
//   }
//
// The macros follow doctest's levels: FORKSCALE_WARN_* only report,
// FORKSCALE_CHECK_* fail the test case and go on, FORKSCALE_REQUIRE_* also end
// it. Each one is a doctest assertion at the line of the macro (it counts in
// doctest's totals and goes to its reporters); a failure reads
//
//   fib_test.cpp:12: ERROR: CHECK( parallelism_at_least ) is NOT correct!
//     values: CHECK( 1094.55, expected at least 2000 )
//     logged: forkscale: parallelism of 'fib' is 1094.55, expected at least 2000
//     work 21,891 units, span 20 units, burdened span 150,011 units, spawns 10,945, syncs 10,945
//
// (file(line) where that is doctest's default, as with MSVC; --gnu-file-line
// switches.) The first argument is a report (its whole run), a row of it
// (rep.regions[1]) or a pointer to a row (rep.find("fib/sum"); null fails). See
// forkscale/assertions.hpp for the checks. fs::expect_no_regression(baseline,
// current, rules) holds a run to a saved baseline report (forkscale/regression.hpp).
#pragma once
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../forkscale.hpp"
#include "assertions.hpp"

FORKSCALE_NAMESPACE_BEGIN
// Inline namespaces keep this and gtest.hpp's expect_no_regression apart.
inline namespace doctest_checks {

// A failed doctest check (CHECK level: the test case fails and goes on) at the
// caller's line when `current` regressed against `baseline` under `rules`
// (forkscale/regression.hpp), one line per regression; returns whether there
// was none:
//
//   fs::expect_no_regression(baseline, current, {"parallelism<-10%"});
//
//   sort_test.cpp:21: ERROR: forkscale: 1 regression(s) of 'sort' against the baseline
//     parallelism of 'sort': 12.31 before, 9.02 after, -26.7% (rule parallelism<-10%)
inline bool expect_no_regression(const report& baseline, const report& current, const std::vector<std::string>& rules,
                                 site where = site::current()) {
  const assertions::outcome o = assertions::no_regression(baseline, current, rules);
  if (!o.passed) DOCTEST_ADD_FAIL_CHECK_AT(where.file, static_cast<int>(where.line), o.message);
  return o.passed;
}

}  // namespace doctest_checks
FORKSCALE_NAMESPACE_END

// One doctest assertion of level `level` (DOCTEST_WARN/CHECK/REQUIRE_MESSAGE) on
// an outcome. The outcome is held by a variable named after the check, because
// doctest shows the asserted expression as written ("CHECK( parallelism_at_least )").
#define FORKSCALE_DETAIL_DOCTEST(level, check, ...)                                                                 \
  do {                                                                                                              \
    const ::forkscale::assertions::outcome forkscale_detail_outcome_ = ::forkscale::assertions::check(__VA_ARGS__); \
    const ::forkscale::assertions::outcome& check = forkscale_detail_outcome_;                                      \
    (void)check;                                                                                                    \
    level(check, forkscale_detail_outcome_.message);                                                                \
  } while (false)

// Parallelism (work / span) of `what` is at least `n`.
#define FORKSCALE_WARN_PARALLELISM_AT_LEAST(what, n) \
  FORKSCALE_DETAIL_DOCTEST(DOCTEST_WARN_MESSAGE, parallelism_at_least, (what), (n), #what, #n)
#define FORKSCALE_CHECK_PARALLELISM_AT_LEAST(what, n) \
  FORKSCALE_DETAIL_DOCTEST(DOCTEST_CHECK_MESSAGE, parallelism_at_least, (what), (n), #what, #n)
#define FORKSCALE_REQUIRE_PARALLELISM_AT_LEAST(what, n) \
  FORKSCALE_DETAIL_DOCTEST(DOCTEST_REQUIRE_MESSAGE, parallelism_at_least, (what), (n), #what, #n)

// Burdened parallelism (work / burdened span) of `what` is at least `n`.
#define FORKSCALE_WARN_BURDENED_PARALLELISM_AT_LEAST(what, n) \
  FORKSCALE_DETAIL_DOCTEST(DOCTEST_WARN_MESSAGE, burdened_parallelism_at_least, (what), (n), #what, #n)
#define FORKSCALE_CHECK_BURDENED_PARALLELISM_AT_LEAST(what, n) \
  FORKSCALE_DETAIL_DOCTEST(DOCTEST_CHECK_MESSAGE, burdened_parallelism_at_least, (what), (n), #what, #n)
#define FORKSCALE_REQUIRE_BURDENED_PARALLELISM_AT_LEAST(what, n) \
  FORKSCALE_DETAIL_DOCTEST(DOCTEST_REQUIRE_MESSAGE, burdened_parallelism_at_least, (what), (n), #what, #n)

// The span of `what` is at most `pct` percent of its work.
#define FORKSCALE_WARN_SPAN_AT_MOST_PERCENT_OF_WORK(what, pct) \
  FORKSCALE_DETAIL_DOCTEST(DOCTEST_WARN_MESSAGE, span_at_most_percent_of_work, (what), (pct), #what, #pct)
#define FORKSCALE_CHECK_SPAN_AT_MOST_PERCENT_OF_WORK(what, pct) \
  FORKSCALE_DETAIL_DOCTEST(DOCTEST_CHECK_MESSAGE, span_at_most_percent_of_work, (what), (pct), #what, #pct)
#define FORKSCALE_REQUIRE_SPAN_AT_MOST_PERCENT_OF_WORK(what, pct) \
  FORKSCALE_DETAIL_DOCTEST(DOCTEST_REQUIRE_MESSAGE, span_at_most_percent_of_work, (what), (pct), #what, #pct)

// The run behind report `rep` had no misuse diagnostics.
#define FORKSCALE_WARN_NO_DIAGNOSTICS(rep) FORKSCALE_DETAIL_DOCTEST(DOCTEST_WARN_MESSAGE, no_diagnostics, (rep), #rep)
#define FORKSCALE_CHECK_NO_DIAGNOSTICS(rep) FORKSCALE_DETAIL_DOCTEST(DOCTEST_CHECK_MESSAGE, no_diagnostics, (rep), #rep)
#define FORKSCALE_REQUIRE_NO_DIAGNOSTICS(rep) \
  FORKSCALE_DETAIL_DOCTEST(DOCTEST_REQUIRE_MESSAGE, no_diagnostics, (rep), #rep)
