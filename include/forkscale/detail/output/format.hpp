// detail/output/format.hpp: numbers as the writers put them out, whatever the
// global locale: round-trip and fixed decimals, grouped and rounded counts,
// ratios, percentages, factors and gains.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <ios>
#include <locale>
#include <sstream>
#include <string>

#include "../../config.hpp"
#include "../util/numbers.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

using detail::fixed;
using detail::grouped;
using detail::grouped_round;
using detail::round_trip;

// Three significant digits and an SI suffix: 5570609776 -> "5.57G". Exact below
// 10,000.
inline std::string compact(std::uint64_t v) {
  if (v < 10000) return std::to_string(v);
  static const char suffixes[] = "kMGTPE";
  double x = static_cast<double>(v);
  int s = -1;
  while (x >= 999.5 && s < 5) {
    x /= 1000;
    ++s;
  }
  const int decimals = x < 9.995 ? 2 : (x < 99.95 ? 1 : 0);
  return fixed(x, decimals) + suffixes[s];
}

inline std::string bytes_text(std::size_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double x = static_cast<double>(bytes) / 1024;
  int u = 0;
  while (x >= 1023.95 && u < 5) {
    x /= 1024;
    ++u;
  }
  return fixed(x, 1) + " " + units[u];
}

inline std::uint64_t magnitude(std::int64_t v) noexcept {
  return v < 0 ? std::uint64_t(0) - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
}

// Signed counterparts of grouped() and compact(): -1234567 -> "-1,234,567", "-1.23M".
inline std::string grouped_signed(std::int64_t v) { return (v < 0 ? "-" : "") + grouped(magnitude(v)); }
inline std::string compact_signed(std::int64_t v) { return (v < 0 ? "-" : "") + compact(magnitude(v)); }

// A count in a table: exact and grouped ("5,570,609,776"), or in short form
// (tables that would not fit otherwise) with three significant digits ("5.57G").
inline std::string count_text(std::uint64_t v, bool short_form) { return short_form ? compact(v) : grouped(v); }
inline std::string signed_count_text(std::int64_t v, bool short_form) {
  return short_form ? compact_signed(v) : grouped_signed(v);
}

inline const char* bool_text(bool b) noexcept { return b ? "true" : "false"; }

// A time that may have a fraction (a predicted span or work): rounded and
// grouped, or in short form with three significant digits; "n/a" when it is
// not a finite non-negative number.
inline std::string time_text(double v, bool short_form = false) {
  if (!std::isfinite(v) || v < 0) return "n/a";
  if (v >= 1.8e19) return fixed(v, 0);
  return count_text(static_cast<std::uint64_t>(std::round(v)), short_form);
}

// A finite ratio with two decimals; in short form large ratios become "6.15E".
inline std::string two_decimals(double v, bool short_form) {
  if (short_form && v >= 9999.995 && v < 1.8e19) return compact(static_cast<std::uint64_t>(std::round(v)));
  return fixed(v, 2);
}

// A ratio with two decimals, "n/a" when its denominator is zero; in short form
// (tables that would not fit otherwise) large ratios become "6.15E".
inline std::string ratio_text(std::uint64_t denominator, double ratio, bool short_form = false) {
  if (!denominator) return "n/a";
  return two_decimals(ratio, short_form);
}

// A predicted parallelism: two decimals, "inf" when infinite; in short form
// large values as "6.15E".
inline std::string unbounded_ratio_text(double v, bool short_form = false) {
  if (std::isinf(v) && v > 0) return "inf";
  if (!std::isfinite(v)) return "n/a";
  return two_decimals(v, short_form);
}

// A gain ("3.99x", "inf"); "n/a" when the measured parallelism is 0.
inline std::string gain_text(double gain, bool measured, bool short_form = false) {
  if (!measured) return "n/a";
  const std::string t = unbounded_ratio_text(gain, short_form);
  return t == "inf" || t == "n/a" ? t : t + "x";
}

// A factor as the tables show it: "inf", else up to six significant digits
// ("16", "1.5", "0.333333").
inline std::string factor_text(double k) {
  if (std::isnan(k)) return "n/a";
  if (std::isinf(k)) return k > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.imbue(std::locale::classic());
  os.precision(6);
  os << k;
  return os.str();
}

// A percentage with one decimal ("-0.0" written as "0.0"), three significant
// digits from 100,000 on ("-3.53T"); "n/a" when not finite.
inline std::string percent_text(double percent) {
  if (!std::isfinite(percent)) return "n/a";
  const double m = std::fabs(percent);
  if (m >= 99999.95) {
    const std::string sign = percent < 0 ? "-" : "";
    if (m < 1.8e19) return sign + compact(static_cast<std::uint64_t>(std::round(m)));
    std::ostringstream os;
    os.imbue(std::locale::classic());
    os.setf(std::ios::scientific, std::ios::floatfield);
    os.precision(1);
    os << m;
    return sign + os.str();
  }
  std::string t = fixed(percent, 1);
  if (t == "-0.0") t = "0.0";
  return t;
}

}  // namespace output
}  // namespace detail
FORKSCALE_NAMESPACE_END
