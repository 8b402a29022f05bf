// gtest.hpp: GoogleTest assertions on a forkscale report.
//
//   #include <forkscale/gtest.hpp>   // after or instead of <gtest/gtest.h>
//
//   TEST(Fib, IsParallel) {
//     fs::options opt;
//     opt.clock = fs::clock_kind::cost;
//     const fs::report rep = fs::measure("fib", [] { fib(20); }, opt);
//     FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(rep, 100);
//     FORKSCALE_EXPECT_SPAN_AT_MOST_PERCENT_OF_WORK(rep, 1);
//     FORKSCALE_EXPECT_NO_DIAGNOSTICS(rep);
//   }
//
// A failure is reported at the line of the macro, like any EXPECT_*:
//
//   fib_test.cpp:12: Failure
//   forkscale: parallelism of 'fib' is 1094.55, expected at least 2000
//     work 21,891 units, span 20 units, burdened span 150,011 units, spawns 10,945, syncs 10,945
//
// FORKSCALE_EXPECT_* record a failure and go on; FORKSCALE_ASSERT_* also return
// from the test function, as ASSERT_* do. fs::expect_no_regression(baseline,
// current, rules) holds a run to a saved baseline report (forkscale/regression.hpp). The first argument is a report
// (its whole run), a row of it (rep.regions[1]) or a pointer to a row (rep.find("fib/sum"); null fails). See
// forkscale/assertions.hpp for the checks.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../forkscale.hpp"
#include "assertions.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace gtest {

// Predicate formatters for EXPECT_PRED_FORMAT*/ASSERT_PRED_FORMAT*: they receive
// the source text of the arguments, then the arguments.
namespace detail_gtest {
inline ::testing::AssertionResult result(const assertions::outcome& o) {
  if (o.passed) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << o.message;
}
}  // namespace detail_gtest

template <class Subject>
::testing::AssertionResult parallelism_at_least(const char* what_src, const char* bound_src, const Subject& what,
                                                double bound) {
  return detail_gtest::result(assertions::parallelism_at_least(what, bound, what_src, bound_src));
}

template <class Subject>
::testing::AssertionResult burdened_parallelism_at_least(const char* what_src, const char* bound_src,
                                                         const Subject& what, double bound) {
  return detail_gtest::result(assertions::burdened_parallelism_at_least(what, bound, what_src, bound_src));
}

template <class Subject>
::testing::AssertionResult span_at_most_percent_of_work(const char* what_src, const char* bound_src,
                                                        const Subject& what, double percent) {
  return detail_gtest::result(assertions::span_at_most_percent_of_work(what, percent, what_src, bound_src));
}

inline ::testing::AssertionResult no_diagnostics(const char* what_src, const report& r) {
  return detail_gtest::result(assertions::no_diagnostics(r, what_src));
}

}  // namespace gtest

// Inline namespaces keep this and doctest.hpp's expect_no_regression apart.
inline namespace gtest_checks {

// Records a GoogleTest failure at the caller's line when `current` regressed
// against `baseline` under `rules` (forkscale/regression.hpp), one line per
// regression, and goes on, as EXPECT_* do; returns whether there was none
// (`if (!fs::expect_no_regression(...)) return;` stops the test):
//
//   const fs::report baseline = fs::read_report(FORKSCALE_BASELINE_DIR "/sort.json");
//   fs::expect_no_regression(baseline, current, {"parallelism<-10%", "region=sort/merge:span>+5%"});
//
//   sort_test.cpp:21: Failure
//   Failed
//   forkscale: 1 regression(s) of 'sort' against the baseline
//     parallelism of 'sort': 12.31 before, 9.02 after, -26.7% (rule parallelism<-10%)
inline bool expect_no_regression(const report& baseline, const report& current, const std::vector<std::string>& rules,
                                 site where = site::current()) {
  const assertions::outcome o = assertions::no_regression(baseline, current, rules);
  if (!o.passed) ADD_FAILURE_AT(where.file, static_cast<int>(where.line)) << o.message;
  return o.passed;
}

}  // namespace gtest_checks
FORKSCALE_NAMESPACE_END

// Parallelism (work / span) of `what` is at least `n`.
#define FORKSCALE_EXPECT_PARALLELISM_AT_LEAST(what, n) \
  EXPECT_PRED_FORMAT2(::forkscale::gtest::parallelism_at_least, what, n)
#define FORKSCALE_ASSERT_PARALLELISM_AT_LEAST(what, n) \
  ASSERT_PRED_FORMAT2(::forkscale::gtest::parallelism_at_least, what, n)

// Burdened parallelism (work / burdened span) of `what` is at least `n`.
#define FORKSCALE_EXPECT_BURDENED_PARALLELISM_AT_LEAST(what, n) \
  EXPECT_PRED_FORMAT2(::forkscale::gtest::burdened_parallelism_at_least, what, n)
#define FORKSCALE_ASSERT_BURDENED_PARALLELISM_AT_LEAST(what, n) \
  ASSERT_PRED_FORMAT2(::forkscale::gtest::burdened_parallelism_at_least, what, n)

// The span of `what` is at most `pct` percent of its work.
#define FORKSCALE_EXPECT_SPAN_AT_MOST_PERCENT_OF_WORK(what, pct) \
  EXPECT_PRED_FORMAT2(::forkscale::gtest::span_at_most_percent_of_work, what, pct)
#define FORKSCALE_ASSERT_SPAN_AT_MOST_PERCENT_OF_WORK(what, pct) \
  ASSERT_PRED_FORMAT2(::forkscale::gtest::span_at_most_percent_of_work, what, pct)

// The run behind report `rep` had no misuse diagnostics.
#define FORKSCALE_EXPECT_NO_DIAGNOSTICS(rep) EXPECT_PRED_FORMAT1(::forkscale::gtest::no_diagnostics, rep)
#define FORKSCALE_ASSERT_NO_DIAGNOSTICS(rep) ASSERT_PRED_FORMAT1(::forkscale::gtest::no_diagnostics, rep)
