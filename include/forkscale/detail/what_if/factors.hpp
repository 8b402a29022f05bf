// detail/what_if/factors.hpp: what a what-if analysis is asked about — speedup
// factors as exact fractions, call sites named at run time, and the
// FORKSCALE_WHAT_IF environment variable (docs/model.md, "What-if regions").
#pragma once
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../../site.hpp"
#include "../macro_scope.hpp"
#include "../util/strings.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Region bits of a frame's mask: bit r for region r (r < what_if_max_regions), plus two
// bits for the advisor's "assume faster" mode.
inline constexpr unsigned what_if_max_regions = 62;
inline constexpr unsigned what_if_max_factors = 16;
inline constexpr std::uint64_t what_if_assumed_bit = std::uint64_t{1} << 62;  // inside an assumed call site
inline constexpr std::uint64_t what_if_scaled_bit = std::uint64_t{1} << 63;   // the session rescales strands
inline constexpr std::uint64_t what_if_region_bits = (std::uint64_t{1} << what_if_max_regions) - 1;
// Numerators and denominators of factors are at most this: offsets stay within
// 64 bits for runs of up to 2^47 ticks (about 15 hours of TSC ticks at 2.5 GHz).
inline constexpr std::int64_t what_if_max_term = 65536;

// A speedup factor as the exact fraction p/q (q = 0: infinitely fast).
struct what_if_fraction {
  double value = 1;
  std::int64_t p = 1;
  std::int64_t q = 1;
};

inline std::string format_factor(double v) {
  if (std::isinf(v)) return "inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// `origin` names where the value came from, for the error message.
inline what_if_fraction make_factor(double v, const std::string& origin) {
  if (std::isnan(v))
    throw error("forkscale: " + origin + ": what-if factor is NaN; factors must be positive numbers or inf");
  if (!(v > 0))
    throw error("forkscale: " + origin + ": what-if factor " + format_factor(v) +
                " is not positive; factors must be positive numbers or inf");
  what_if_fraction f;
  f.value = v;
  if (std::isinf(v)) {
    f.p = 1;
    f.q = 0;
    return f;
  }
  if (v > static_cast<double>(what_if_max_term) || v < 1.0 / static_cast<double>(what_if_max_term))
    throw error("forkscale: " + origin + ": what-if factor " + format_factor(v) +
                " is out of range (1/65536 to 65536; use inf for infinitely fast)");
  // The fraction p/q nearest to v with p, q ≤ 65536; the first exact one wins.
  double best_err = std::numeric_limits<double>::infinity();
  for (std::int64_t q = 1; q <= what_if_max_term; ++q) {
    const double pd = std::nearbyint(v * static_cast<double>(q));
    if (pd < 1 || pd > static_cast<double>(what_if_max_term)) {
      if (pd > static_cast<double>(what_if_max_term)) break;
      continue;
    }
    const double err = std::fabs(pd / static_cast<double>(q) - v);
    if (err < best_err) {
      best_err = err;
      f.p = static_cast<std::int64_t>(pd);
      f.q = q;
      if (err <= v * 1e-12) break;
    }
  }
  return f;
}

// "2", "0.5", "inf", "infinity" (any case). Only those two words mean infinity:
// a number too large for a double ("1e400") or too small ("1e-400") is out of
// range, not infinity or zero.
inline what_if_fraction parse_factor(const std::string& text, const std::string& origin) {
  const std::string t = trim(text);
  std::string lower;
  for (char c : t) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (lower == "inf" || lower == "infinity") return make_factor(std::numeric_limits<double>::infinity(), origin);
  if (t.empty())
    throw error("forkscale: " + origin + ": empty what-if factor; factors must be positive numbers or inf");
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(t.c_str(), &end);
  const bool out_of_range = errno == ERANGE;
  if (end == t.c_str() || *end != '\0')
    throw error("forkscale: " + origin + ": what-if factor \"" + t + "\" is not a number");
  if (out_of_range)
    throw error("forkscale: " + origin + ": what-if factor \"" + t +
                "\" is out of range (1/65536 to 65536; use inf for infinitely fast)");
  if (std::isinf(v))
    throw error("forkscale: " + origin + ": what-if factor \"" + t +
                "\" is not a factor; only inf or infinity means infinitely fast");
  return make_factor(v, origin);
}

// A call site named at run time: "file:line" (the file matched as a path suffix at
// a directory boundary, so "quicksort.cpp:57" matches "/src/examples/quicksort.cpp")
// or "tag=NAME".
struct what_if_spec {
  std::string text;
  std::string file;
  unsigned line = 0;
  std::string tag;
  bool by_tag = false;
};

inline what_if_spec parse_spec(const std::string& raw, const std::string& origin) {
  what_if_spec s;
  s.text = trim(raw);
  if (s.text.compare(0, 4, "tag=") == 0) {
    s.by_tag = true;
    s.tag = s.text.substr(4);
    if (s.tag.empty()) throw error("forkscale: " + origin + ": \"" + s.text + "\" names no tag (expected tag=NAME)");
    return s;
  }
  const auto colon = s.text.find_last_of(':');
  const std::string digits = colon == std::string::npos ? std::string() : s.text.substr(colon + 1);
  bool ok = colon != std::string::npos && colon > 0 && !digits.empty() && digits.size() <= 9;
  for (char c : digits) ok = ok && c >= '0' && c <= '9';
  if (!ok) throw error("forkscale: " + origin + ": call site \"" + s.text + "\" is neither file:line nor tag=NAME");
  s.file = s.text.substr(0, colon);
  s.line = static_cast<unsigned>(std::strtoul(digits.c_str(), nullptr, 10));
  if (s.line == 0) throw error("forkscale: " + origin + ": call site \"" + s.text + "\" has line 0");
  return s;
}

inline bool spec_matches(const what_if_spec& s, const site& w) noexcept {
  if (s.by_tag) return w.tag && s.tag == w.tag;
  if (w.line != s.line || !w.file) return false;
  const std::size_t n = std::strlen(w.file), m = s.file.size();
  if (n < m || std::memcmp(w.file + (n - m), s.file.data(), m) != 0) return false;
  if (n == m) return true;
  const char before = w.file[n - m - 1];
  return before == '/' || before == '\\' || s.file[0] == '/' || s.file[0] == '\\';
}

// The environment variable: entries separated by ';' — call sites, and
// "factors=2,4,inf" which replaces the factor list (once: a second one is an
// error, not a replacement).
inline void parse_what_if_env(const char* value, std::vector<what_if_spec>& specs,
                              std::vector<what_if_fraction>& factors, bool& factors_set) {
  const std::string origin = "FORKSCALE_WHAT_IF";
  for (const std::string& piece : split(value ? value : "", ';')) {
    const std::string item = trim(piece);
    if (item.empty()) continue;
    if (item.compare(0, 8, "factors=") == 0) {
      if (factors_set)
        throw error("forkscale: " + origin + ": factors= is given twice; give one list, as factors=2,4,inf");
      factors.clear();
      factors_set = true;
      for (const std::string& f : split(item.substr(8), ',')) factors.push_back(parse_factor(f, origin));
      continue;
    }
    specs.push_back(parse_spec(item, origin));
  }
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
