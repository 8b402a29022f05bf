// What-if input at and past its limits, under the cost clock: more what-if
// regions than a measurement analyses (the ones past the limit are dropped, and
// only they), and a bad FORKSCALE_WHAT_IF (diagnosed in one line; the
// measurement goes on without what-if). Every expected number is a hand count.
#include <gtest/gtest.h>

#include <forkscale/forkscale.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace fs = forkscale;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const fs::what_if_result* row(const fs::report& rep, const std::string& region, double factor, fs::what_if_model m) {
  for (const auto& w : rep.what_if)
    if (w.region == region && w.model == m && (w.factor == factor || (std::isinf(w.factor) && std::isinf(factor))))
      return &w;
  return nullptr;
}

// ---- more regions than a measurement analyses -----------------------------------

constexpr int region_count = 70;
constexpr int analysed = 62;  // docs/model.md: at most 62 regions per measurement

// The regions' tags, alive for the whole program (sites are cached by address).
const std::vector<std::string>& region_tags() {
  static const std::vector<std::string>* tags = [] {
    auto* v = new std::vector<std::string>;
    for (int i = 0; i < region_count; ++i) v->push_back("region-" + std::string(i < 10 ? "0" : "") + std::to_string(i));
    return v;
  }();
  return *tags;
}

// Child i costs 1000 - 10·i and is region i; the parent charges 1 after each
// spawn, so child i starts at path length i.
std::int64_t child_cost(int i) { return 1000 - 10 * i; }

void many_regions() {
  for (int i = 0; i < region_count; ++i) {
    fs::spawn([i] {
      fs::what_if_region wi(region_tags()[static_cast<std::size_t>(i)].c_str());
      fs::charge(static_cast<std::uint64_t>(child_cost(i)));
    })();
    fs::charge(1);
  }
  fs::sync_point sp;
}

// The predicted span × p with the regions in `faster` at p/q: the longest of the
// parent's 70 units and each child's path, by hand.
std::int64_t predicted_span_num(std::int64_t p, std::int64_t q, const std::vector<bool>& faster) {
  std::int64_t longest = region_count * p;
  for (int i = 0; i < region_count; ++i)
    longest = std::max(longest, i * p + child_cost(i) * (faster[static_cast<std::size_t>(i)] ? q : p));
  return longest;
}

struct factor_case {
  double value;
  std::int64_t p, q;
};
const factor_case default_factors[] = {{2, 2, 1}, {4, 4, 1}, {8, 8, 1}, {16, 16, 1}, {inf, 1, 0}};

fs::options cost_clock(std::vector<fs::diagnostic>* seen) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.what_if.read_environment = false;
  if (seen) o.on_diagnostic = [seen](const fs::diagnostic& d) { seen->push_back(d); };
  return o;
}

TEST(WhatIfLimits, RegionsPastTheLimitAreDroppedAndOnlyThey) {
  std::vector<fs::diagnostic> seen;
  const fs::report rep = fs::measure("many", many_regions, cost_clock(&seen));
  std::int64_t work = region_count;
  for (int i = 0; i < region_count; ++i) work += child_cost(i);
  ASSERT_EQ(static_cast<std::int64_t>(rep.work()), work);
  ASSERT_EQ(static_cast<std::int64_t>(rep.span()), 1000);  // child 0: 0 + 1000

  // One diagnostic per dropped region, naming it; the same ones in the report.
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(region_count - analysed));
  EXPECT_EQ(rep.diagnostic_count, seen.size());
  for (int i = analysed; i < region_count; ++i) {
    const std::string& tag = region_tags()[static_cast<std::size_t>(i)];
    const fs::diagnostic& d = seen[static_cast<std::size_t>(i - analysed)];
    EXPECT_EQ(d.where, tag);
    EXPECT_TRUE(contains(d.problem, "what-if region \"" + tag + "\" is not analysed")) << d.problem;
    EXPECT_TRUE(contains(d.problem, "region " + std::to_string(i + 1) + " of this measurement")) << d.problem;
    EXPECT_TRUE(contains(d.problem, "at most 62")) << d.problem;
    EXPECT_TRUE(rep.what_if_rows(tag).empty()) << tag;
  }

  // The site profiles stay, and are whole.
  EXPECT_FALSE(rep.call_sites.empty());
  EXPECT_FALSE(rep.spawn_sites.empty());
  EXPECT_EQ(rep.check_profile(), "");

  // Every analysed region's rows, exact; "(all regions)" holds the first 62 only.
  ASSERT_EQ(rep.what_if.size(), static_cast<std::size_t>((analysed + 1) * 5 * 2));
  std::vector<bool> first(region_count, false);
  for (int i = 0; i < analysed; ++i) first[static_cast<std::size_t>(i)] = true;
  for (const factor_case& f : default_factors) {
    const fs::what_if_result* all = row(rep, "(all regions)", f.value, fs::what_if_model::parallelized);
    ASSERT_TRUE(all) << f.value;
    EXPECT_EQ(all->span_ticks_num, predicted_span_num(f.p, f.q, first)) << f.value;
    EXPECT_EQ(all->span_ticks_den, f.p);
    for (int r = 0; r < analysed; ++r) {
      const std::string& tag = region_tags()[static_cast<std::size_t>(r)];
      std::vector<bool> only(region_count, false);
      only[static_cast<std::size_t>(r)] = true;
      const fs::what_if_result* par = row(rep, tag, f.value, fs::what_if_model::parallelized);
      const fs::what_if_result* opt = row(rep, tag, f.value, fs::what_if_model::optimized);
      ASSERT_TRUE(par && opt) << tag << " x" << f.value;
      EXPECT_EQ(par->entries, 1u);
      EXPECT_EQ(static_cast<std::int64_t>(par->region_work), child_cost(r));
      EXPECT_EQ(par->span_ticks_num, predicted_span_num(f.p, f.q, only)) << tag << " x" << f.value;
      EXPECT_EQ(par->span_ticks_den, f.p);
      EXPECT_DOUBLE_EQ(par->work, static_cast<double>(work));
      EXPECT_DOUBLE_EQ(opt->work, static_cast<double>(work - child_cost(r)) +
                                      static_cast<double>(child_cost(r) * f.q) / static_cast<double>(f.p));
    }
  }
}

TEST(WhatIfLimits, ADroppedRegionIsDiagnosedOnceWhateverItsEntries) {
  std::vector<fs::diagnostic> seen;
  const fs::report rep = fs::measure(
      "twice",
      [] {
        many_regions();
        many_regions();  // every region entered again: no new diagnostic
      },
      cost_clock(&seen));
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(region_count - analysed));
  EXPECT_EQ(rep.diagnostic_count, seen.size());
  const fs::what_if_result* r0 = row(rep, region_tags()[0], 2, fs::what_if_model::parallelized);
  ASSERT_TRUE(r0);
  EXPECT_EQ(r0->entries, 2u);
  EXPECT_FALSE(rep.call_sites.empty());
}

// ---- FORKSCALE_WHAT_IF ----------------------------------------------------------

// Sets FORKSCALE_WHAT_IF for one scope.
class what_if_env {
 public:
  explicit what_if_env(const std::string& value) { ::setenv("FORKSCALE_WHAT_IF", value.c_str(), 1); }
  what_if_env(const what_if_env&) = delete;
  what_if_env& operator=(const what_if_env&) = delete;
  ~what_if_env() { ::unsetenv("FORKSCALE_WHAT_IF"); }
};

// A spawned task of 5 in the region "hot" beside 3 in the parent: work 8, span 5.
void small_program() {
  fs::spawn([] {
    fs::what_if_region wi("hot");
    fs::charge(5);
  })();
  fs::charge(3);
  fs::sync_point sp;
}

struct bad_env {
  const char* value;
  const char* problem;  // part of the one diagnostic
};

const bad_env bad_envs[] = {
    {"factors=1e400", "what-if factor \"1e400\" is out of range"},
    {"factors=1e-400", "what-if factor \"1e-400\" is out of range"},
    {"factors=+inf", "\"+inf\""},
    {"factors=2;factors=4", "factors= is given twice"},
    {"factors=2,abc", "what-if factor \"abc\" is not a number"},
    {"factors=nan", "what-if factor is NaN"},
    {"factors=0", "what-if factor 0 is not positive"},
    {"factors=", "empty what-if factor"},
    {"factors=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "17 what-if factors; at most 16"},
    {"quicksort.cpp", "call site \"quicksort.cpp\" is neither file:line nor tag=NAME"},
    {"tag=", "names no tag"},
};

TEST(WhatIfLimits, ABadEnvironmentVariableIsOneDiagnosticAndNoWhatIf) {
  for (const bad_env& b : bad_envs) {
    const what_if_env env(b.value);
    std::vector<fs::diagnostic> seen;
    fs::options o = cost_clock(&seen);
    o.what_if.read_environment = true;
    o.what_if.call_sites = {"tag=hot"};  // fine on its own: dropped with the rest
    fs::report rep;
    EXPECT_NO_THROW(rep = fs::measure("env", small_program, o)) << b.value;
    EXPECT_EQ(rep.work(), 8u) << b.value;
    EXPECT_EQ(rep.span(), 5u) << b.value;
    EXPECT_EQ(rep.spawns(), 1u) << b.value;
    EXPECT_TRUE(rep.what_if.empty()) << b.value;
    EXPECT_FALSE(rep.call_sites.empty()) << b.value;
    ASSERT_EQ(seen.size(), 1u) << b.value;
    EXPECT_EQ(rep.diagnostic_count, 1u) << b.value;
    EXPECT_EQ(seen[0].where, "FORKSCALE_WHAT_IF") << b.value;
    EXPECT_TRUE(contains(seen[0].problem, b.problem)) << b.value << ": " << seen[0].problem;
    EXPECT_TRUE(contains(seen[0].problem, "the measurement goes on without what-if")) << seen[0].problem;
    EXPECT_FALSE(contains(seen[0].problem, "forkscale:")) << "prefixed twice: " << seen[0].problem;
  }
}

TEST(WhatIfLimits, ABadEnvironmentVariableIsOneLineOnStderr) {
  const what_if_env env("factors=1e400");
  fs::options o = cost_clock(nullptr);
  o.what_if.read_environment = true;
  ::testing::internal::CaptureStderr();
  fs::report rep;
  EXPECT_NO_THROW(rep = fs::measure("env", small_program, o));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(err.rfind("forkscale: FORKSCALE_WHAT_IF: what-if factor \"1e400\" is out of range", 0), 0u) << err;
  EXPECT_TRUE(rep.what_if.empty());
  EXPECT_EQ(rep.span(), 5u);
}

TEST(WhatIfLimits, AGoodEnvironmentVariableStillApplies) {
  const what_if_env env("tag=hot; factors=inf");
  fs::options o = cost_clock(nullptr);
  o.what_if.read_environment = true;
  const fs::report rep = fs::measure("env", small_program, o);
  EXPECT_EQ(rep.diagnostic_count, 0u);
  const fs::what_if_result* named = row(rep, "tag=hot", inf, fs::what_if_model::parallelized);
  const fs::what_if_result* guard = row(rep, "hot", inf, fs::what_if_model::parallelized);
  ASSERT_TRUE(named && guard);
  EXPECT_EQ(guard->span_ticks_num, 3);  // the region's 5 gone: the parent's 3
  EXPECT_EQ(rep.what_if.size(), 3u * 1 * 2);
}

std::string error_of(const fs::options& o) {
  try {
    fs::measure(
        "bad", [] {}, o);
  } catch (const fs::error& e) {
    return e.what();
  }
  return "";
}

TEST(WhatIfLimits, BadOptionsThrowWithThePrefix) {
  struct bad_option {
    std::vector<double> factors;
    std::vector<std::string> call_sites;
    const char* message;
  };
  std::vector<std::string> too_many;
  for (int i = 0; i < 63; ++i) too_many.push_back("tag=t" + std::to_string(i));
  const std::vector<bad_option> cases = {
      {{2, 0}, {}, "forkscale: options.what_if.factors: what-if factor 0 is not positive"},
      {{std::nan("")}, {}, "forkscale: options.what_if.factors: what-if factor is NaN"},
      {{1e9}, {}, "forkscale: options.what_if.factors: what-if factor 1e+09 is out of range"},
      {{}, {}, "forkscale: options.what_if.factors is empty"},
      {std::vector<double>(17, 2.0), {}, "forkscale: 17 what-if factors; at most 16"},
      {{2}, {"x.cpp"}, "forkscale: options.what_if.call_sites: call site \"x.cpp\" is neither"},
      {{2}, too_many, "forkscale: 63 what-if call sites named; at most 62"},
  };
  for (const bad_option& c : cases) {
    fs::options o = cost_clock(nullptr);
    o.what_if.factors = c.factors;
    o.what_if.call_sites = c.call_sites;
    const std::string e = error_of(o);
    EXPECT_EQ(e.rfind(c.message, 0), 0u) << "'" << e << "' does not begin with '" << c.message << "'";
  }
  // A bad value in code throws even when FORKSCALE_WHAT_IF is bad too.
  const what_if_env env("factors=1e400");
  fs::options o = cost_clock(nullptr);
  o.what_if.read_environment = true;
  o.what_if.factors = {-2};
  EXPECT_EQ(error_of(o).rfind("forkscale: options.what_if.factors: what-if factor -2 is not positive", 0), 0u);
}

}  // namespace

// Regions whose predictions tie come out by name, not in the order a thread
// first entered them: the report is the same whatever the interleaving.
namespace {
void enter_region(const char* tag) {
  fs::what_if_region wi(tag);
  fs::charge(5);
}

std::vector<std::string> region_order(const fs::report& rep) {
  std::vector<std::string> names;
  for (const fs::what_if_result& r : rep.what_if)
    if (names.empty() || names.back() != r.region) names.push_back(r.region);
  return names;
}
}  // namespace

TEST(WhatIfLimits, TiedRegionsComeOutInTheSameOrderWhicheverRanFirst) {
  const fs::report ba = fs::measure(
      "ba",
      [] {
        fs::charge(1);
        enter_region("beta");
        enter_region("alpha");
      },
      cost_clock(nullptr));
  const fs::report ab = fs::measure(
      "ab",
      [] {
        fs::charge(1);
        enter_region("alpha");
        enter_region("beta");
      },
      cost_clock(nullptr));
  const std::vector<std::string> want = {"(all regions)", "alpha", "beta"};
  EXPECT_EQ(region_order(ba), want);
  EXPECT_EQ(region_order(ab), want);
  // Merged, first seen in the order beta, alpha: still by name.
  const fs::report both = fs::merge_reports({ba, ab}, "both");
  EXPECT_EQ(region_order(both), want);
}
