// The report types follow one rule (report.hpp, docs/report-schema.md, "In C++:
// members and functions"): stored data are members, values derived from them
// are functions, with the exceptions the documentation lists. This file pins
// the rule at compile time, so that a stored value turned into a function (or
// the reverse) fails to build until the documentation says so.
#include <forkscale/forkscale.hpp>

#include <gtest/gtest.h>

#include <type_traits>

namespace fs = forkscale;

namespace {

template <class T>
constexpr bool stored = std::is_member_object_pointer_v<T>;
template <class T>
constexpr bool derived = std::is_member_function_pointer_v<T>;

// fs::report: what the measurement recorded...
static_assert(stored<decltype(&fs::report::label)> && stored<decltype(&fs::report::unit)> &&
              stored<decltype(&fs::report::clock)> && stored<decltype(&fs::report::burden)> &&
              stored<decltype(&fs::report::compensation_per_strand)> && stored<decltype(&fs::report::max_processors)> &&
              stored<decltype(&fs::report::profiler_bytes)> && stored<decltype(&fs::report::regions)> &&
              stored<decltype(&fs::report::diagnostics)> && stored<decltype(&fs::report::diagnostic_count)> &&
              stored<decltype(&fs::report::call_sites)> && stored<decltype(&fs::report::spawn_sites)> &&
              stored<decltype(&fs::report::what_if)>);
// ...and what is derived from it.
static_assert(derived<decltype(&fs::report::work)> && derived<decltype(&fs::report::span)> &&
              derived<decltype(&fs::report::burdened_span)> && derived<decltype(&fs::report::spawns)> &&
              derived<decltype(&fs::report::syncs)> && derived<decltype(&fs::report::calls)> &&
              derived<decltype(&fs::report::parallelism)> && derived<decltype(&fs::report::burdened_parallelism)> &&
              derived<decltype(&fs::report::average_maximal_strand)> &&
              derived<decltype(&fs::report::speedup_estimate)> && derived<decltype(&fs::report::empty)> &&
              derived<decltype(&fs::report::root)> && derived<decltype(&fs::report::find)> &&
              derived<decltype(&fs::report::what_if_rows)> && derived<decltype(&fs::report::check_profile)>);

// The rows.
static_assert(stored<decltype(&fs::region_result::work)> && stored<decltype(&fs::region_result::span)> &&
              stored<decltype(&fs::region_result::burdened_span)> && stored<decltype(&fs::region_result::raw_work)>);
static_assert(derived<decltype(&fs::region_result::parallelism)> &&
              derived<decltype(&fs::region_result::burdened_parallelism)> &&
              derived<decltype(&fs::region_result::average_maximal_strand)> &&
              derived<decltype(&fs::region_result::speedup_estimate)>);
static_assert(stored<decltype(&fs::site_measure::work)> && derived<decltype(&fs::site_measure::parallelism)>);
static_assert(stored<decltype(&fs::spawn_site_profile::critical_span)> &&
              derived<decltype(&fs::spawn_site_profile::parallelism)>);
static_assert(stored<decltype(&fs::what_if_result::span)> && derived<decltype(&fs::what_if_result::speedup_at)>);

// The documented exceptions: derived values kept as members.
static_assert(stored<decltype(&fs::report::compensation_total)>);
static_assert(stored<decltype(&fs::spawn_site_profile::critical_percent)>);
static_assert(stored<decltype(&fs::what_if_result::parallelism)> && stored<decltype(&fs::what_if_result::gain)>);
static_assert(stored<decltype(&fs::speedup_bound::lower)> && stored<decltype(&fs::speedup_bound::upper)>);

}  // namespace

// A derived value and the stored one it comes from are the same number.
TEST(ReportAccessors, DerivedValuesComeFromTheStoredRoot) {
  fs::options opt;
  opt.clock = fs::clock_kind::cost;
  const fs::report rep = fs::measure(
      "accessors",
      [] {
        fs::charge(3);
        fs::spawn([] { fs::charge(7); })();
        fs::sync_point sp;
      },
      opt);
  ASSERT_FALSE(rep.empty());
  EXPECT_EQ(rep.work(), 10u);
  EXPECT_EQ(rep.work(), rep.regions.front().work);
  EXPECT_EQ(rep.span(), rep.regions.front().span);
  EXPECT_EQ(rep.parallelism(), rep.regions.front().parallelism());
  EXPECT_EQ(rep.compensation_total, rep.root().raw_work - rep.root().work);
  EXPECT_EQ(&rep.root(), &rep.regions.front());
}
