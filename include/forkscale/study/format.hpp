// study/format.hpp: how a study writes its numbers for people — times in grouped
// ns, ratios, percentages, the spread of repeated runs — in its text and warnings.
#pragma once
#include <cmath>
#include <string>

#include "../config.hpp"
#include "../detail/output/format.hpp"
#include "scaling.hpp"

FORKSCALE_NAMESPACE_BEGIN

namespace detail {
namespace study {

inline std::string fmt(double v, int decimals = 2) { return output::fixed(v, decimals); }

inline std::string percent(double v) { return output::fixed(100 * v, 1) + "%"; }

// A time in ns as grouped integer ns ("12,345,678"), "n/a" when unknown.
inline std::string ns_text(double v) {
  if (std::isnan(v)) return "n/a";
  if (v < 0) return "-" + output::grouped_round(-v);
  return output::grouped_round(v);
}

inline std::string ratio_cell(double v) { return std::isnan(v) ? "n/a" : output::fixed(v, 2); }

// The spread of repeated runs, as the text and the warnings give it: the whole
// range over the median, (max - min) / median — not half of it, so no "±".
inline double spread_of(const sample_stats& s) {
  if (s.empty() || !(s.median > 0)) return 0;
  return (s.max - s.min) / s.median;
}

// What the text and the warnings call it.
inline constexpr char spread_definition[] = "(max - min) / median";

inline std::string spread_text(const sample_stats& s) {
  if (s.empty()) return "n/a";
  return percent(spread_of(s));
}

inline std::string stats_line(const char* name, const sample_stats& s) {
  std::string out = std::string("  ") + name;
  if (s.empty()) return out + "n/a\n";
  out += ns_text(s.mean) + " ns mean, " + ns_text(s.median) + " median, " + ns_text(s.min) + " .. " + ns_text(s.max) +
         " (" + std::to_string(s.count()) + " runs)\n";
  return out;
}

// A thread count as a table shows it: "4*" when it is more than the hardware threads.
inline std::string count_cell(unsigned count, bool oversubscribed) {
  return std::to_string(count) + (oversubscribed ? "*" : "");
}

}  // namespace study
}  // namespace detail

FORKSCALE_NAMESPACE_END
