// assertions.hpp: the checks behind forkscale's unit-test helpers, independent of
// any test framework.
//
//   const auto o = fs::assertions::parallelism_at_least(rep, 100);
//   if (!o) std::cerr << o.message << "\n";
//
// forkscale/gtest.hpp and forkscale/doctest.hpp turn these into assertion macros
// (and no_regression into fs::expect_no_regression) that report at the caller's
// file:line; other frameworks can use them directly.
//
// Every check takes what to look at as a whole report (its root row), one row of
// it (rep.regions[i]) or a pointer to a row (rep.find("outer/inner"), which may be
// null), and returns an `outcome`: passed or not, the measured value, the bound,
// and a message naming the label, the value and the bound. The optional `what`
// and `bound_text` arguments are the source text of the two arguments, as the
// macros pass them; the message mentions them when they add something.
//
// A check fails on an empty report (nothing was measured) and on a null row,
// with a message that says so, except when profiling is compiled out
// (FORKSCALE_ENABLE=0): then every report is empty by design and every check
// passes.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <locale>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "../forkscale.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace assertions {

// The result of one check. Converts to true when it passed.
struct outcome {
  bool passed = true;
  double value = 0;      // what was measured (NaN when there was nothing to measure)
  double bound = 0;      // the bound it was held to
  std::string relation;  // "at least" or "at most"
  std::string suffix;    // after the value and the bound: "%" for a percentage
  bool count = false;    // value and bound are counts (shown without decimals)
  std::string message;   // empty when passed; otherwise what failed, value and bound

  explicit operator bool() const noexcept { return passed; }
};

// "131.53, expected at least 200": what test frameworks print as the value.
inline std::ostream& operator<<(std::ostream& os, const outcome& o);

namespace detail_assertions {

inline std::ostringstream classic_stream() {
  std::ostringstream s;
  s.imbue(std::locale::classic());
  return s;
}

// The shortest text that reads back as the same double ("100", "0.5", "1e-07").
inline std::string shortest(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  const auto reads_back = [v](const std::string& text) {
    double back = 0;
    std::istringstream in(text);
    in.imbue(std::locale::classic());
    in >> back;
    return back == v;
  };
  const double magnitude = std::fabs(v);
  if (v == 0 || (magnitude >= 1e-5 && magnitude < 1e15)) {  // plain decimals: "100", "0.125"
    for (int decimals = 0; decimals <= 20; ++decimals) {
      std::ostringstream s = classic_stream();
      s.setf(std::ios::fixed, std::ios::floatfield);
      s.precision(decimals);
      s << v;
      if (reads_back(s.str())) return s.str();
    }
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::ostringstream s = classic_stream();
    s.precision(precision);
    s << v;
    if (reads_back(s.str())) return s.str();
  }
  std::ostringstream s = classic_stream();
  s.precision(17);
  s << v;
  return s.str();
}

inline std::string fixed(double v, int decimals) {
  std::ostringstream s = classic_stream();
  s.setf(std::ios::fixed, std::ios::floatfield);
  s.precision(decimals);
  s << v;
  return s.str();
}

// A measured value with two decimals, or as many more as it takes to tell it
// apart from the bound it failed ("99.9995" rather than "100.00" against 100).
inline std::string measured(double v, double bound) {
  if (!std::isfinite(v)) return shortest(v);
  int decimals = 2;
  while (decimals < 17 && v != bound && fixed(v, decimals) == fixed(bound, decimals)) ++decimals;
  return fixed(v, decimals);
}

// 1234567 -> "1,234,567".
inline std::string grouped(std::uint64_t v) {
  std::string digits = std::to_string(v);
  std::string out;
  const std::size_t n = digits.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i != 0 && (n - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// The bound as the message shows it: "200", or "200 (kMinParallelism)" when the
// source text says more than the number.
inline std::string bound_text(double bound, const char* text, const char* suffix = "") {
  std::string out = shortest(bound) + suffix;
  if (text && *text) {
    std::string t = text;
    if (t != shortest(bound)) {
      // A literal that reads back as the bound ("200.0", "1e2") adds nothing.
      std::istringstream in(t);
      in.imbue(std::locale::classic());
      double parsed = 0;
      if (!(in >> parsed) || parsed != bound || in.peek() != std::char_traits<char>::eof()) out += " (" + t + ")";
    }
  }
  return out;
}

inline std::string label_of(const region_result& r) { return r.path.empty() ? r.label : r.path; }

// What a check looks at: one row, its label, its unit, or why there is none.
struct subject {
  const region_result* row = nullptr;
  std::string label;
  std::string unit = "units";
  std::string missing;  // why there is no row; empty when there is one
};

inline subject subject_of(const report& r, const char* what) {
  subject s;
  s.label = r.label;
  s.unit = r.unit;
  if (r.empty()) {
    s.missing = std::string("the report") + (r.label.empty() ? "" : " '" + r.label + "'") +
                (what && *what ? std::string(" (") + what + ")" : std::string()) + " is empty: nothing was measured";
  } else {
    s.row = &r.regions.front();
  }
  return s;
}
// A row on its own does not know its report's unit; "units" is not shown then.
inline subject subject_of(const region_result& row, const char*) {
  subject s;
  s.row = &row;
  s.label = label_of(row);
  s.unit = "";
  return s;
}
inline subject subject_of(const region_result* row, const char* what) {
  if (row) return subject_of(*row, what);
  subject s;
  s.missing = std::string("no such region") + (what && *what ? std::string(" (") + what + " is null)" : std::string());
  return s;
}

inline std::string with_unit(std::uint64_t v, const std::string& unit) {
  return unit.empty() ? grouped(v) : grouped(v) + " " + unit;
}
inline std::string context(const subject& s) {
  const region_result& row = *s.row;
  return "work " + with_unit(row.work, s.unit) + ", span " + with_unit(row.span, s.unit) + ", burdened span " +
         with_unit(row.burdened_span, s.unit) + ", spawns " + grouped(row.spawns) + ", syncs " + grouped(row.syncs);
}

inline outcome missing(const subject& s, const char* quantity, const char* relation, double bound,
                       const char* bound_src, const char* suffix = "") {
  outcome o;
  o.value = std::numeric_limits<double>::quiet_NaN();
  o.bound = bound;
  o.relation = relation;
  o.suffix = suffix[0] == '%' ? "%" : "";
#if FORKSCALE_ENABLE
  o.passed = false;
  o.message = std::string("forkscale: cannot check the ") + quantity + " (expected " + relation + " " +
              bound_text(bound, bound_src, suffix) + "): " + s.missing;
#else
  (void)s;
  (void)quantity;
  (void)bound_src;
  (void)suffix;
#endif
  return o;
}

// A quantity of a row held to its bound; `suffix` follows both in the message
// ("% of the work").
inline outcome compare(const subject& s, const char* quantity, double value, bool at_least, double bound,
                       const char* bound_src, const char* suffix = "") {
  outcome o;
  o.value = value;
  o.bound = bound;
  o.relation = at_least ? "at least" : "at most";
  o.suffix = suffix[0] == '%' ? "%" : "";
  o.passed = at_least ? value >= bound : value <= bound;  // false for NaN
  if (!o.passed) {
    std::string label = s.label.empty() ? std::string("the measurement") : "'" + s.label + "'";
    o.message = std::string("forkscale: ") + quantity + " of " + label + " is " + measured(value, bound) + suffix +
                ", expected " + o.relation + " " + bound_text(bound, bound_src, suffix) + "\n  " + context(s);
  }
  return o;
}

}  // namespace detail_assertions

inline std::ostream& operator<<(std::ostream& os, const outcome& o) {
  const std::string value =
      o.count ? detail_assertions::shortest(o.value) : detail_assertions::measured(o.value, o.bound);
  return os << value << o.suffix << ", expected " << o.relation << " " << detail_assertions::shortest(o.bound)
            << o.suffix;
}

// Parallelism (work / span) of at least `bound`.
template <class Subject>
outcome parallelism_at_least(const Subject& what, double bound, const char* what_src = nullptr,
                             const char* bound_src = nullptr) {
  const detail_assertions::subject s = detail_assertions::subject_of(what, what_src);
  if (!s.row) return detail_assertions::missing(s, "parallelism", "at least", bound, bound_src);
  return detail_assertions::compare(s, "parallelism", s.row->parallelism(), true, bound, bound_src);
}

// Burdened parallelism (work / burdened span) of at least `bound`.
template <class Subject>
outcome burdened_parallelism_at_least(const Subject& what, double bound, const char* what_src = nullptr,
                                      const char* bound_src = nullptr) {
  const detail_assertions::subject s = detail_assertions::subject_of(what, what_src);
  if (!s.row) return detail_assertions::missing(s, "burdened parallelism", "at least", bound, bound_src);
  return detail_assertions::compare(s, "burdened parallelism", s.row->burdened_parallelism(), true, bound, bound_src);
}

// Span at most `percent` % of the work (span ≤ percent/100 · work): the part of
// the work that no number of processors can overlap. An empty run (work 0) has
// span 0, which passes.
template <class Subject>
outcome span_at_most_percent_of_work(const Subject& what, double percent, const char* what_src = nullptr,
                                     const char* bound_src = nullptr) {
  const detail_assertions::subject s = detail_assertions::subject_of(what, what_src);
  if (!s.row) return detail_assertions::missing(s, "span", "at most", percent, bound_src, "% of the work");
  const double work = static_cast<double>(s.row->work);
  const double span = static_cast<double>(s.row->span);
  const double value =
      s.row->work == 0 ? (s.row->span == 0 ? 0.0 : std::numeric_limits<double>::infinity()) : 100.0 * span / work;
  return detail_assertions::compare(s, "span", value, false, percent, bound_src, "% of the work");
}

// No misuse of the guards was diagnosed in the run.
inline outcome no_diagnostics(const report& r, const char* what_src = nullptr) {
  outcome o;
  o.value = static_cast<double>(r.diagnostic_count);
  o.bound = 0;
  o.relation = "at most";
  o.count = true;
  o.passed = r.diagnostic_count == 0;
  if (!o.passed) {
    std::string label = r.label.empty() ? std::string("the measurement") : "'" + r.label + "'";
    o.message = "forkscale: " + label + (what_src && *what_src ? std::string(" (") + what_src + ")" : "") + " has " +
                detail_assertions::grouped(r.diagnostic_count) + " misuse diagnostic(s), expected none";
    for (const diagnostic& d : r.diagnostics) {
      o.message += "\n  " + (d.where.empty() ? std::string() : d.where + ": ") + d.problem;
      if (&d - r.diagnostics.data() >= 4) {
        if (r.diagnostics.size() > 5) o.message += "\n  ...";
        break;
      }
    }
  }
  return o;
}

// No regression of `current` against `baseline` under `rules`, rules as
// forkscale/regression.hpp reads them ("parallelism<-10%",
// "region=sort:span>+5%"). The value is the number of regressions, the bound 0;
// the message lists each one on its own line. A bad rule, an empty report,
// reports in different units and a region in neither report fail with
// forkscale::error's message (except that with FORKSCALE_ENABLE=0, where every
// measured report is empty, an empty current report passes).
inline outcome no_regression(const report& baseline, const report& current, const std::vector<std::string>& rules) {
  outcome o;
  o.relation = "at most";
  o.count = true;
#if !FORKSCALE_ENABLE
  if (current.empty()) return o;
#endif
  std::vector<regression> found;
  try {
    found = find_regressions(baseline, current, rules);
  } catch (const error& e) {
    o.passed = false;
    o.value = std::numeric_limits<double>::quiet_NaN();
    o.message = e.what();
    return o;
  }
  o.value = static_cast<double>(found.size());
  o.passed = found.empty();
  if (!o.passed) {
    const std::string label = current.label.empty() ? std::string("the measurement") : "'" + current.label + "'";
    o.message = "forkscale: " + std::to_string(found.size()) + " regression(s) of " + label + " against the baseline";
    for (const regression& r : found) o.message += "\n  " + r.message;
  }
  return o;
}

}  // namespace assertions
FORKSCALE_NAMESPACE_END
