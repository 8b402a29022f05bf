// regression.hpp: a parallelism regression gate — two reports of the same
// program (a baseline and the current run) held to rules such as "the
// parallelism fell by more than 10%".
//
//   const fs::report baseline = fs::read_report("baseline.json");   // read_report.hpp
//   const fs::report current = fs::measure("sort", [] { sort(v); }, opt);
//   for (const fs::regression& r : fs::find_regressions(baseline, current, {"parallelism<-10%"}))
//     std::cerr << r.message << "\n";
//
// `forkscale-report compare BEFORE AFTER --fail-if RULE` and
// fs::expect_no_regression (forkscale/gtest.hpp, forkscale/doctest.hpp) check
// the same rules with this code. A rule reads
//
//   [region=NAME:]METRIC<THRESHOLD%      fails when METRIC changed by less than THRESHOLD %
//   [region=NAME:]METRIC>THRESHOLD%      fails when METRIC changed by more than THRESHOLD %
//
// where the change is (current − baseline) / baseline, in percent, and
// THRESHOLD is a signed decimal number ("-10", "+5", "20"): parallelism<-10%
// fails on a drop of more than 10%, span>+5% on a span more than 5% longer. A
// change exactly at the threshold passes. The metrics are those `compare`
// shows: work, span, burdened_span, parallelism, burdened_parallelism, spawns,
// syncs, calls and average_maximal_strand (regression_metrics()).
//
// Which rows a rule looks at:
//  * without region=, the whole program: the root rows of the two reports
//    (whatever their labels);
//  * region=NAME, the region NAME: a path as report::find takes it
//    ("quicksort/sort") or a path below the root ("sort"). A region found in
//    one report only is a regression (it was renamed or no longer runs); a
//    region in neither report is an error (the rule has a typo);
//  * region=*, every region found in both reports, matched by their paths
//    below the root (a region in one report only is not checked).
// A metric that is undefined in either report (a parallelism over a span of
// zero) is not checked. Both reports must be non-empty and in the same unit.
#pragma once
#include <string>
#include <vector>

#include "config.hpp"
#include "report.hpp"

FORKSCALE_NAMESPACE_BEGIN

// One rule, parsed.
struct regression_rule {
  std::string text;    // as written
  std::string region;  // empty: the whole program; "*": every region in both reports; else a region path
  std::string metric;  // one of regression_metrics()
  bool above = false;  // '>': fails when the change is above `percent`; '<': when it is below
  double percent = 0;  // the threshold: a change in percent of the baseline's value, signed
};

// One rule that failed on one row.
struct regression {
  std::string rule;      // the rule's text
  std::string region;    // the row's path (the current report's; the baseline's when only it has the row)
  std::string metric;    // the rule's metric
  bool missing = false;  // the region is in one report only (before or after is NaN)
  double before = 0;     // the baseline's value
  double after = 0;      // the current value
  double change = 0;     // (after − before) / before in percent; ±infinity when before is 0
  std::string message;   // one line: what, before, after, the change and the rule
};

// The metrics a rule can name, in the order `compare` shows them.
FORKSCALE_INLINE const std::vector<std::string>& regression_metrics();

// Parses one rule. Throws forkscale::error with one line naming the rule and
// what is wrong with it ("forkscale: bad regression rule 'parallelsim<-10%':
// unknown metric 'parallelsim' (expected work, span, ...)").
FORKSCALE_INLINE regression_rule parse_regression_rule(const std::string& text);

// The regressions of `current` against `baseline` under `rules` (each parsed
// with parse_regression_rule), rule by rule, rows in the reports' order; empty
// when every rule holds. Throws forkscale::error on a bad rule, an empty
// report, reports in different units, and a region= that names a region in
// neither report.
FORKSCALE_INLINE std::vector<regression> find_regressions(const report& baseline, const report& current,
                                                          const std::vector<std::string>& rules);

FORKSCALE_NAMESPACE_END

#if FORKSCALE_DETAIL_DEFINES(analyses)
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <locale>
#include <sstream>

#include "detail/output/format.hpp"
#include "detail/output/utf8.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace regression_check {

inline bool is_ratio(const std::string& metric) {
  return metric == "parallelism" || metric == "burdened_parallelism" || metric == "average_maximal_strand";
}

// The metric of a row; NaN where it is undefined (a ratio over zero).
inline double metric_value(const region_result& r, const std::string& metric) {
  const auto d = [](std::uint64_t v) { return static_cast<double>(v); };
  if (metric == "work") return d(r.work);
  if (metric == "span") return d(r.span);
  if (metric == "burdened_span") return d(r.burdened_span);
  if (metric == "parallelism") return r.span ? r.parallelism() : std::numeric_limits<double>::quiet_NaN();
  if (metric == "burdened_parallelism")
    return r.burdened_span ? r.burdened_parallelism() : std::numeric_limits<double>::quiet_NaN();
  if (metric == "spawns") return d(r.spawns);
  if (metric == "syncs") return d(r.syncs);
  if (metric == "calls") return d(r.calls);
  return r.average_maximal_strand();
}

inline std::string value_text(const std::string& metric, double v) {
  return is_ratio(metric) ? output::fixed(v, 2) : output::grouped_round(v);
}

inline std::string change_text(double change) {
  if (std::isinf(change)) return change > 0 ? "up from 0" : "down from 0";
  std::string t = output::fixed(change, 1);
  if (t == "-0.0") t = "0.0";
  return (change > 0 && t != "0.0" ? "+" : "") + t + "%";
}

// A region path below the root: "sort" for "quicksort/sort", empty for the root.
inline std::string below_root(const report& r, const region_result& row) {
  const std::string& root = r.regions.front().path;
  if (&row == &r.regions.front()) return std::string();
  if (row.path.compare(0, root.size() + 1, root + "/") == 0) return row.path.substr(root.size() + 1);
  return row.path;
}

// The row `name` names in `r`: a path, or a path below the root.
inline const region_result* find_region(const report& r, const std::string& name) {
  if (const region_result* row = r.find(name)) return row;
  return r.find(r.regions.front().path + "/" + name);
}

inline bool fails(const regression_rule& rule, double change) {
  return rule.above ? change > rule.percent : change < rule.percent;
}

inline void check_row(const regression_rule& rule, const region_result& a, const region_result& b,
                      std::vector<regression>& out) {
  const double before = metric_value(a, rule.metric), after = metric_value(b, rule.metric);
  if (std::isnan(before) || std::isnan(after)) return;
  double change = 0;
  if (before != after)
    change =
        before == 0 ? (after > 0 ? 1 : -1) * std::numeric_limits<double>::infinity() : 100 * (after - before) / before;
  if (!fails(rule, change)) return;
  regression g;
  g.rule = rule.text;
  g.region = b.path;
  g.metric = rule.metric;
  g.before = before;
  g.after = after;
  g.change = change;
  g.message = rule.metric + " of '" + output::printable(b.path) + "': " + value_text(rule.metric, before) +
              " before, " + value_text(rule.metric, after) + " after, " + change_text(change) + " (rule " +
              output::printable(rule.text) + ")";
  out.push_back(g);
}

inline error bad_rule(const std::string& text, const std::string& problem) {
  return error("forkscale: bad regression rule '" + output::printable(text) + "': " + problem);
}

}  // namespace regression_check
}  // namespace detail

FORKSCALE_INLINE const std::vector<std::string>& regression_metrics() {
  static const std::vector<std::string> metrics{
      "work",   "span",  "burdened_span", "parallelism",           "burdened_parallelism",
      "spawns", "syncs", "calls",         "average_maximal_strand"};
  return metrics;
}

FORKSCALE_INLINE regression_rule parse_regression_rule(const std::string& text) {
  namespace rc = detail::regression_check;
  regression_rule rule;
  rule.text = text;
  std::string s;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  if (s.empty()) throw rc::bad_rule(text, "it is empty (expected a rule like parallelism<-10%)");
  if (s.compare(0, 7, "region=") == 0) {
    const std::size_t colon = s.rfind(':');
    if (colon == std::string::npos)
      throw rc::bad_rule(text, "expected ':' after the region's name (like region=sort:parallelism<-10%)");
    // The region's name as written (spaces kept); the rest without spaces.
    const std::size_t start = text.find("region=") + 7, end = text.rfind(':');
    rule.region = text.substr(start, end - start);
    while (!rule.region.empty() && std::isspace(static_cast<unsigned char>(rule.region.back()))) rule.region.pop_back();
    while (!rule.region.empty() && std::isspace(static_cast<unsigned char>(rule.region.front())))
      rule.region.erase(0, 1);
    if (rule.region.empty()) throw rc::bad_rule(text, "region= names no region");
    s = s.substr(colon + 1);
  }
  const std::size_t op = s.find_first_of("<>");
  if (op == std::string::npos)
    throw rc::bad_rule(text, "expected '<' or '>' and a percentage after the metric (like parallelism<-10%)");
  rule.metric = s.substr(0, op);
  rule.above = s[op] == '>';
  std::string expected;
  bool known = false;
  for (const std::string& m : regression_metrics()) {
    known = known || m == rule.metric;
    expected += (expected.empty() ? "" : ", ") + m;
  }
  if (rule.metric.empty()) throw rc::bad_rule(text, "no metric before '" + std::string(1, s[op]) + "'");
  if (!known) throw rc::bad_rule(text, "unknown metric '" + rule.metric + "' (expected " + expected + ")");
  std::string number = s.substr(op + 1);
  if (!number.empty() && (number[0] == '=' || number[0] == '<' || number[0] == '>'))
    throw rc::bad_rule(text, "the operator is '<' or '>' (a change exactly at the threshold passes)");
  if (number.empty() || number.back() != '%')
    throw rc::bad_rule(text, "the threshold must be a percentage, like -10% or +5%");
  number.pop_back();
  // A signed decimal number: [+-]digits[.digits] or [+-].digits.
  std::size_t i = (!number.empty() && (number[0] == '+' || number[0] == '-')) ? 1 : 0, digits = 0;
  bool point = false, ok = i < number.size();
  for (std::size_t k = i; k < number.size() && ok; ++k) {
    if (std::isdigit(static_cast<unsigned char>(number[k])))
      ++digits;
    else if (number[k] == '.' && !point)
      point = true;
    else
      ok = false;
  }
  if (!ok || digits == 0)
    throw rc::bad_rule(text, "'" + number + "%' is not a percentage (expected a number like -10% or +5%)");
  std::istringstream in(number[0] == '+' ? number.substr(1) : number);
  in.imbue(std::locale::classic());
  in >> rule.percent;
  if (!in || !std::isfinite(rule.percent)) throw rc::bad_rule(text, "'" + number + "%' is out of range");
  return rule;
}

FORKSCALE_INLINE std::vector<regression> find_regressions(const report& baseline, const report& current,
                                                          const std::vector<std::string>& rules) {
  namespace rc = detail::regression_check;
  std::vector<regression_rule> parsed;
  for (const std::string& text : rules) parsed.push_back(parse_regression_rule(text));
  if (baseline.empty() || current.empty())
    throw error(std::string("forkscale: cannot check for regressions: the ") +
                (baseline.empty() ? "baseline" : "current") + " report is empty (nothing was measured)");
  if (baseline.unit != current.unit)
    throw error("forkscale: cannot check for regressions: the baseline is in " +
                detail::output::printable(baseline.unit) + ", the current report in " +
                detail::output::printable(current.unit));
  std::vector<regression> out;
  for (const regression_rule& rule : parsed) {
    if (rule.region.empty()) {
      rc::check_row(rule, baseline.regions.front(), current.regions.front(), out);
    } else if (rule.region == "*") {
      for (const region_result& b : current.regions) {
        const std::string name = rc::below_root(current, b);
        const region_result* a =
            name.empty() ? &baseline.regions.front() : baseline.find(baseline.regions.front().path + "/" + name);
        if (a) rc::check_row(rule, *a, b, out);
      }
    } else {
      const region_result* a = rc::find_region(baseline, rule.region);
      const region_result* b = rc::find_region(current, rule.region);
      if (a && b) {
        rc::check_row(rule, *a, *b, out);
      } else if (!a && !b) {
        throw error("forkscale: regression rule '" + detail::output::printable(rule.text) + "': no region '" +
                    detail::output::printable(rule.region) + "' in either report");
      } else {
        regression g;
        g.rule = rule.text;
        g.region = (a ? a : b)->path;
        g.metric = rule.metric;
        g.missing = true;
        g.before = a ? rc::metric_value(*a, rule.metric) : std::numeric_limits<double>::quiet_NaN();
        g.after = b ? rc::metric_value(*b, rule.metric) : std::numeric_limits<double>::quiet_NaN();
        g.change = std::numeric_limits<double>::quiet_NaN();
        g.message = "region '" + detail::output::printable(rule.region) + "' is in the " +
                    (a ? "baseline but not in the current report" : "current report but not in the baseline") +
                    " (rule " + detail::output::printable(rule.text) + ")";
        out.push_back(g);
      }
    }
  }
  return out;
}

FORKSCALE_NAMESPACE_END
#endif  // FORKSCALE_DETAIL_DEFINES
