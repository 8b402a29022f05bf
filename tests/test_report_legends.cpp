// The text report explains itself: every section names its unit, the speedup
// table and the what-if table label their columns, legends say what each number
// is, and the what-if table shows the times each model predicts.
//
// Expected values are computed here from the formulas of docs/model.md (or by
// hand), never taken from the library's own functions.
#include <forkscale/forkscale.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <locale>
#include <sstream>
#include <string>
#include <vector>

namespace fs = forkscale;

namespace {

const double inf = std::numeric_limits<double>::infinity();

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> tokens_of(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

// The text with its lines joined by spaces and runs of spaces made one: a
// wrapped paragraph reads as one line.
std::string unwrapped(const std::string& text) {
  std::string out;
  for (const auto& line : lines_of(text))
    for (const auto& t : tokens_of(line)) out += (out.empty() ? "" : " ") + t;
  return out;
}

std::string fixed2(double v) {
  std::ostringstream os;
  os.imbue(std::locale::classic());
  os.setf(std::ios::fixed, std::ios::floatfield);
  os.precision(2);
  os << v;
  return os.str();
}

// 1234567.4 -> "1,234,567".
std::string grouped(double v) {
  const std::string digits = std::to_string(static_cast<unsigned long long>(std::llround(v)));
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// The lines of `text` from the one that starts with `heading` to the next
// blank line.
std::vector<std::string> section(const std::string& text, const std::string& heading) {
  std::vector<std::string> out;
  bool in = false;
  for (const auto& line : lines_of(text)) {
    if (!in && line.rfind(heading, 0) == 0) in = true;
    if (in && line.empty()) break;
    if (in) out.push_back(line);
  }
  return out;
}

// The Cilkview paper's quicksort numbers, under a timed clock.
fs::report quicksort_report() {
  fs::report rep;
  rep.label = "quicksort";
  rep.unit = "ns";
  rep.clock = fs::clock_kind::tsc;
  rep.burden = 5000;
  rep.max_processors = 32;
  fs::region_result r;
  r.label = r.path = "quicksort";
  r.instances = 1;
  r.work = 5570609776;
  r.span = 261374874;
  r.burdened_span = 262078779;
  r.spawns = r.syncs = 8518398;
  rep.regions.push_back(r);
  return rep;
}

TEST(ReportLegends, ProfileSectionNamesItsUnitAndExplainsEveryLine) {
  const std::string text = quicksort_report().to_text();
  const std::vector<std::string> profile = section(text, "1) Parallelism Profile");
  ASSERT_FALSE(profile.empty()) << text;
  EXPECT_EQ(profile[0], "1) Parallelism Profile (times in ns)") << text;
  std::string body;
  for (const auto& line : profile) body += line + "\n";
  const std::string legend = unwrapped(body);
  for (const char* words :
       {"Work (T1):", "what one processor would take", "Span (Tinf):", "what unlimited processors would take",
        "Burdened span:", "Parallelism = work / span", "burdened parallelism = work / burdened span",
        "are ratios (no unit)", "Average maximal strand = work / (1 + 2 x spawns + syncs) (Cilkview), in ns:",
        "the mean time of a strand between spawns and syncs"})
    EXPECT_NE(legend.find(words), std::string::npos) << "missing: " << words << "\n" << text;
}

// Every row of the speedup table: P, the two bounds and the times they predict,
// computed from Cilkview's formulas with the report's numbers.
TEST(ReportLegends, SpeedupTableLabelsItsColumnsAndPredictsTimes) {
  const fs::report rep = quicksort_report();
  const std::string text = rep.to_text();
  const std::vector<std::string> speedup = section(text, "2) Speedup Estimate");
  ASSERT_GE(speedup.size(), 7u) << text;
  EXPECT_EQ(speedup[0], "2) Speedup Estimate (speedup = T1/TP on P processors; times TP in ns)");
  EXPECT_EQ(tokens_of(speedup[1]),
            (std::vector<std::string>{"P", "lower", "upper", "TP", "at", "most", "TP", "at", "least"}))
      << text;
  const double t1 = 5570609776.0, span = 261374874.0, burdened = 262078779.0;
  std::size_t row = 2;
  for (const unsigned p : {2u, 4u, 8u, 16u, 32u}) {
    const double lower = t1 / (t1 / p + 1.7 * burdened);
    const double upper = std::min<double>(p, t1 / span);
    ASSERT_LT(row, speedup.size()) << text;
    EXPECT_EQ(tokens_of(speedup[row++]), (std::vector<std::string>{std::to_string(p), fixed2(lower), fixed2(upper),
                                                                   grouped(t1 / lower), grouped(t1 / upper)}))
        << "P = " << p << "\n"
        << text;
  }
  std::string rest;
  for (; row < speedup.size(); ++row) rest += speedup[row] + "\n";
  const std::string legend = unwrapped(rest);
  for (const char* words :
       {"lower: T1 / (T1/P + 1.7 x burdened span), Cilkview's estimate", "upper: min(P, parallelism)",
        "TP at most = work / lower", "TP at least = work / upper (in ns)"})
    EXPECT_NE(legend.find(words), std::string::npos) << "missing: " << words << "\n" << text;
}

// 60 units of serial work in the region "serial", then two tasks of 20 units:
// work 100, span 80 (docs/model.md, "What-if regions").
fs::report what_if_measurement() {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.what_if.read_environment = false;
  o.what_if.factors = {2, 4, inf};
  return fs::measure(
      "what-if legend",
      [] {
        {
          fs::what_if_region g("serial");
          fs::charge(60);
        }
        fs::spawn([] { fs::charge(20); })();
        fs::charge(20);
        fs::sync_point sp;
      },
      o);
}

struct what_if_row {
  std::string region;
  std::vector<std::string> cells;  // k and the numbers
};

// The table's rows: the cells after the region's name are the last tokens.
std::vector<what_if_row> what_if_rows(const std::vector<std::string>& lines, std::size_t columns) {
  std::vector<what_if_row> rows;
  for (const auto& line : lines) {
    const std::vector<std::string> t = tokens_of(line);
    if (t.size() <= columns || line.rfind("  ", 0) != 0 || line.size() < 3 || line[2] == ' ') continue;
    what_if_row r;
    for (std::size_t i = 0; i + columns < t.size(); ++i) r.region += (r.region.empty() ? "" : " ") + t[i];
    r.cells.assign(t.end() - static_cast<std::ptrdiff_t>(columns), t.end());
    rows.push_back(r);
  }
  return rows;
}

TEST(ReportLegends, WhatIfTableShowsThePredictedTimesInTheReportsUnit) {
  const fs::report rep = what_if_measurement();
  ASSERT_EQ(rep.work(), 100u);
  ASSERT_EQ(rep.span(), 80u);
  const std::string text = rep.what_if_text();
  const std::vector<std::string> lines = lines_of(text);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "What if a region ran k times faster (times in units)");
  const std::vector<std::string> head{"region", "k", "span", "par.", "par./now", "opt.work", "opt.par.", "opt./now"};
  const auto header =
      std::find_if(lines.begin(), lines.end(), [&](const std::string& l) { return tokens_of(l) == head; });
  ASSERT_NE(header, lines.end()) << text;
  for (const auto& line : lines)
    for (const auto& t : tokens_of(line))
      EXPECT_TRUE(t.find("gain") == std::string::npos || line.find("Most to gain") != std::string::npos)
          << "a parallelism ratio called a gain: " << line;
  // serial at k: its 60 units become 60/k, so the span is 60/k + 20; the work
  // stays 100 (parallelized) or becomes 40 + 60/k (optimized).
  const std::vector<what_if_row> rows = what_if_rows(std::vector<std::string>(header + 1, lines.end()), 7);
  std::size_t serial_rows = 0;
  for (const what_if_row& r : rows) {
    if (r.region != "serial") continue;
    ++serial_rows;
    const double k = r.cells[0] == "inf" ? inf : std::stod(r.cells[0]);
    const double span = 60 / k + 20, opt_work = 40 + 60 / k;
    EXPECT_EQ(r.cells[1], grouped(span)) << "the span column at k = " << r.cells[0] << "\n" << text;
    EXPECT_EQ(r.cells[2], fixed2(100 / span)) << text;
    EXPECT_EQ(r.cells[3], fixed2(100 / span / 1.25) + "x") << text;
    EXPECT_EQ(r.cells[4], grouped(opt_work)) << "the opt.work column at k = " << r.cells[0] << "\n" << text;
    EXPECT_EQ(r.cells[5], fixed2(opt_work / span)) << text;
    EXPECT_EQ(r.cells[6], fixed2(opt_work / span / 1.25) + "x") << text;
  }
  EXPECT_EQ(serial_rows, 3u) << text;
  const std::string legend = unwrapped(text);
  for (const char* words :
       {"span: the predicted span in units, the time on unlimited processors (the same in both models)",
        "the work stays 100 units", "opt.work: the predicted work in units", "the time on one processor",
        "opt.par. = opt.work / span", "par./now and opt./now: predicted / measured parallelism",
        "ratios of parallelism and not of time",
        "Most to gain: serial at k = inf: span 80 -> 20 units, parallelism 1.25 -> 5.00"})
    EXPECT_NE(legend.find(words), std::string::npos) << "missing: " << words << "\n" << text;
}

// Under a timed clock every time is said to be in ns.
TEST(ReportLegends, WhatIfTimesAreInNanosecondsUnderATimedClock) {
  fs::report rep = quicksort_report();
  fs::what_if_result w;
  w.region = "partition";
  w.source = fs::what_if_source::region;
  w.factor = 4;
  w.executed = true;
  w.work = 5570609776.0;
  w.span = 130687437.25;
  w.parallelism = w.work / w.span;
  w.gain = w.parallelism / rep.parallelism();
  rep.what_if.push_back(w);
  w.model = fs::what_if_model::optimized;
  w.work = 4000000000.5;
  w.parallelism = w.work / w.span;
  w.gain = w.parallelism / rep.parallelism();
  rep.what_if.push_back(w);
  const std::string text = rep.to_text();
  EXPECT_NE(text.find("\n3) What if a region ran k times faster (times in ns)\n"), std::string::npos) << text;
  const std::string legend = unwrapped(text);
  EXPECT_NE(legend.find("span: the predicted span in ns"), std::string::npos) << text;
  EXPECT_NE(legend.find("opt.work: the predicted work in ns"), std::string::npos) << text;
  EXPECT_NE(legend.find("partition 4 130,687,437 42.63 2.00x 4,000,000,001 30.61 1.44x"), std::string::npos) << text;
}

}  // namespace
