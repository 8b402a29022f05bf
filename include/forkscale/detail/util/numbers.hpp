// detail/util/numbers.hpp: numbers as text, whatever the global locale: the
// shortest round-trip form, fixed decimals, and grouped counts. The writers
// (output/format.hpp) build their ratios, percentages and times on these.
#pragma once
#include <cmath>
#include <cstdint>
#include <ios>
#include <locale>
#include <sstream>
#include <string>

#include "../../config.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// The shortest of %.15g, %.16g, %.17g that reads back as the same double, in the
// classic locale; a ".0" is added to integral values so that they stay floats for
// typed readers. Non-finite values give an empty string (the caller decides).
inline std::string round_trip(double v) {
  if (!std::isfinite(v)) return std::string();
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  std::string text;
  for (int precision = 15; precision <= 17; ++precision) {
    std::ostringstream os;
    os.imbue(std::locale::classic());
    os.precision(precision);
    os << v;
    text = os.str();
    std::istringstream is(text);
    is.imbue(std::locale::classic());
    double back = 0;
    is >> back;
    if (back == v) break;
  }
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text;
}

inline std::string fixed(double v, int decimals) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.imbue(std::locale::classic());
  os.setf(std::ios::fixed, std::ios::floatfield);
  os.precision(decimals);
  os << v;
  return os.str();
}

// 1234567 -> "1,234,567".
inline std::string grouped(std::uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  const std::size_t lead = digits.size() % 3;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (i + 3 - lead) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// A rounded double, grouped ("217.98" -> "218"); values too large for an integer
// fall back to two decimals.
inline std::string grouped_round(double v) {
  if (!(v >= 0) || v >= 1.8e19) return fixed(v, 2);
  return grouped(static_cast<std::uint64_t>(std::round(v)));
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
