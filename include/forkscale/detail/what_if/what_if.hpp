// detail/what_if.hpp: the what-if (causal) analysis's data (docs/model.md,
// "What-if regions").
//
// For each scenario s (0: every region together; r + 1: region r alone) and each
// factor k = p/q, a path's what-if length is its length with every strand inside
// the scenario's regions counted (q/p)× its cost. Along a path these lengths only
// grow by a strand's cost, as the real length does, except inside regions; so a
// path value keeps them as offsets from its real length, in units of 1/p tick:
//
//   what-if length (s, k) = pos + d[s·F + k] / p_k.
//
// A strand outside every region changes no offset; a strand of cost c inside
// regions R adds c·(q − p) to the offsets of the scenarios that contain R's
// regions (each strand at most once per scenario, so nested regions count once).
// A join takes, entry by entry, the larger of its two inputs' what-if lengths:
// with P the larger real length, d = max(d₁ − (P − pos₁)·p, d₂ − (P − pos₂)·p).
// Max and + commute, so the result is the same whatever the interleaving, as
// for the real span. Offsets are exact integers; the report divides at the end.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../../site.hpp"
#include "../macro_scope.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Region bits of a frame's mask: bit r for region r (r < wi_max_regions), plus two
// bits for the advisor's "assume faster" mode.
inline constexpr unsigned wi_max_regions = 62;
inline constexpr unsigned wi_max_factors = 16;
inline constexpr std::uint64_t wi_assumed_bit = std::uint64_t{1} << 62;  // inside an assumed call site
inline constexpr std::uint64_t wi_scaled_bit = std::uint64_t{1} << 63;   // the session rescales strands
inline constexpr std::uint64_t wi_region_bits = (std::uint64_t{1} << wi_max_regions) - 1;
// Numerators and denominators of factors are at most this: offsets stay within
// 64 bits for runs of up to 2^47 ticks (about 15 hours of TSC ticks at 2.5 GHz).
inline constexpr std::int64_t wi_max_term = 65536;

// A speedup factor as the exact fraction p/q (q = 0: infinitely fast).
struct wi_factor {
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
inline wi_factor make_factor(double v, const std::string& origin) {
  if (std::isnan(v)) throw error("forkscale: " + origin + ": what-if factor is NaN; factors must be positive numbers or inf");
  if (!(v > 0))
    throw error("forkscale: " + origin + ": what-if factor " + format_factor(v) +
                " is not positive; factors must be positive numbers or inf");
  wi_factor f;
  f.value = v;
  if (std::isinf(v)) {
    f.p = 1;
    f.q = 0;
    return f;
  }
  if (v > static_cast<double>(wi_max_term) || v < 1.0 / static_cast<double>(wi_max_term))
    throw error("forkscale: " + origin + ": what-if factor " + format_factor(v) +
                " is out of range (1/65536 to 65536; use inf for infinitely fast)");
  // The fraction p/q nearest to v with p, q ≤ 65536; the first exact one wins.
  double best_err = std::numeric_limits<double>::infinity();
  for (std::int64_t q = 1; q <= wi_max_term; ++q) {
    const double pd = std::nearbyint(v * static_cast<double>(q));
    if (pd < 1 || pd > static_cast<double>(wi_max_term)) {
      if (pd > static_cast<double>(wi_max_term)) break;
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

inline std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return std::string();
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// "2", "0.5", "inf", "infinity" (any case).
inline wi_factor parse_factor(const std::string& text, const std::string& origin) {
  const std::string t = trim(text);
  std::string lower;
  for (char c : t) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (lower == "inf" || lower == "infinity") return make_factor(std::numeric_limits<double>::infinity(), origin);
  if (t.empty()) throw error("forkscale: " + origin + ": empty what-if factor; factors must be positive numbers or inf");
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || *end != '\0')
    throw error("forkscale: " + origin + ": what-if factor \"" + t + "\" is not a number");
  return make_factor(v, origin);
}

// A call site named at run time: "file:line" (the file matched as a path suffix at
// a directory boundary, so "quicksort.cpp:57" matches "/src/examples/quicksort.cpp")
// or "tag=NAME".
struct wi_spec {
  std::string text;
  std::string file;
  unsigned line = 0;
  std::string tag;
  bool by_tag = false;
};

inline wi_spec parse_spec(const std::string& raw, const std::string& origin) {
  wi_spec s;
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
  if (!ok)
    throw error("forkscale: " + origin + ": call site \"" + s.text +
                "\" is neither file:line nor tag=NAME");
  s.file = s.text.substr(0, colon);
  s.line = static_cast<unsigned>(std::strtoul(digits.c_str(), nullptr, 10));
  if (s.line == 0) throw error("forkscale: " + origin + ": call site \"" + s.text + "\" has line 0");
  return s;
}

inline bool spec_matches(const wi_spec& s, const site& w) noexcept {
  if (s.by_tag) return w.tag && s.tag == w.tag;
  if (w.line != s.line || !w.file) return false;
  const std::size_t n = std::strlen(w.file), m = s.file.size();
  if (n < m || std::memcmp(w.file + (n - m), s.file.data(), m) != 0) return false;
  if (n == m) return true;
  const char before = w.file[n - m - 1];
  return before == '/' || before == '\\' || s.file[0] == '/' || s.file[0] == '\\';
}

// The environment variable: entries separated by ';' — call sites, and
// "factors=2,4,inf" which replaces the factor list.
// `text` cut at every `sep` (an empty text gives one empty piece).
inline std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t a = 0;
  for (;;) {
    const std::size_t b = text.find(sep, a);
    out.push_back(text.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) return out;
    a = b + 1;
  }
}

inline void parse_what_if_env(const char* value, std::vector<wi_spec>& specs, std::vector<wi_factor>& factors,
                              bool& factors_set) {
  const std::string origin = "FORKSCALE_WHAT_IF";
  for (const std::string& piece : split(value ? value : "", ';')) {
    const std::string item = trim(piece);
    if (item.empty()) continue;
    if (item.compare(0, 8, "factors=") == 0) {
      factors.clear();
      factors_set = true;
      for (const std::string& f : split(item.substr(8), ',')) factors.push_back(parse_factor(f, origin));
      continue;
    }
    specs.push_back(parse_spec(item, origin));
  }
}

struct wi_config;

// One path value's offsets: scenario-major, F entries per scenario, `n` in use.
// Owned by exactly one path value (a frame, a join set's accumulator or a spawn
// token); a spawn copies it. Blocks are cached per thread by size class.
struct wi_vec {
  wi_vec* next_free = nullptr;
  const wi_config* cfg = nullptr;
  std::uint32_t n = 0;
  std::uint32_t cls = 0;
  std::int64_t* data() noexcept { return reinterpret_cast<std::int64_t*>(this + 1); }
  const std::int64_t* data() const noexcept { return reinterpret_cast<const std::int64_t*>(this + 1); }
};
static_assert(sizeof(wi_vec) % alignof(std::int64_t) == 0, "offsets follow the header");

inline constexpr unsigned wi_classes = 3;
inline constexpr std::uint32_t wi_class_capacity(unsigned cls) noexcept { return 64u << (3u * cls); }  // 64, 512, 4096

inline std::atomic<std::size_t>& wi_bytes() noexcept {
  static std::atomic<std::size_t> b{0};
  return b;
}

struct wi_cache {
  wi_vec* head[wi_classes] = {};
  unsigned count[wi_classes] = {};
  ~wi_cache();
  static wi_cache& local() noexcept {
    static thread_local wi_cache c;
    return c;
  }
};

inline wi_cache::~wi_cache() {
  for (unsigned c = 0; c < wi_classes; ++c)
    while (head[c]) {
      wi_vec* v = head[c];
      head[c] = v->next_free;
      v->~wi_vec();
      ::operator delete(v);
      wi_bytes().fetch_sub(sizeof(wi_vec) + sizeof(std::int64_t) * wi_class_capacity(c), std::memory_order_relaxed);
    }
}

inline wi_vec* wi_alloc(std::uint32_t entries) {
  unsigned cls = 0;
  while (wi_class_capacity(cls) < entries) ++cls;
  wi_cache& c = wi_cache::local();
  wi_vec* v = c.head[cls];
  if (v) {
    c.head[cls] = v->next_free;
    --c.count[cls];
  } else {
    const std::size_t bytes = sizeof(wi_vec) + sizeof(std::int64_t) * wi_class_capacity(cls);
    v = new (::operator new(bytes)) wi_vec;
    wi_bytes().fetch_add(bytes, std::memory_order_relaxed);
  }
  v->next_free = nullptr;
  v->cls = cls;
  v->n = 0;
  return v;
}

inline void wi_release(wi_vec* v) noexcept {
  if (!v) return;
  wi_cache& c = wi_cache::local();
  if (c.count[v->cls] >= 64) {
    wi_bytes().fetch_sub(sizeof(wi_vec) + sizeof(std::int64_t) * wi_class_capacity(v->cls),
                         std::memory_order_relaxed);
    v->~wi_vec();
    ::operator delete(v);
    return;
  }
  v->next_free = c.head[v->cls];
  c.head[v->cls] = v;
  ++c.count[v->cls];
}

inline wi_vec* wi_copy(const wi_vec* v) {
  if (!v) return nullptr;
  wi_vec* c = wi_alloc(v->n);
  c->cfg = v->cfg;
  c->n = v->n;
  std::memcpy(c->data(), v->data(), sizeof(std::int64_t) * v->n);
  return c;
}

// Makes `v` hold at least `entries` offsets (new ones are 0).
inline void wi_reserve(wi_vec*& v, const wi_config* cfg, std::uint32_t entries) {
  if (!v) {
    v = wi_alloc(entries);
    v->cfg = cfg;
  }
  if (v->n >= entries) return;
  if (wi_class_capacity(v->cls) < entries) {
    wi_vec* bigger = wi_alloc(entries);
    bigger->cfg = v->cfg;
    bigger->n = v->n;
    std::memcpy(bigger->data(), v->data(), sizeof(std::int64_t) * v->n);
    wi_release(v);
    v = bigger;
  }
  std::memset(v->data() + v->n, 0, sizeof(std::int64_t) * (entries - v->n));
  v->n = entries;
}

// What a measurement analyses: its factors, the call sites named at run time, and
// the advisor's "assume faster" call sites. Fixed when the measurement starts.
struct wi_config {
  std::vector<wi_factor> factors;
  unsigned F = 0;
  std::int64_t p[wi_max_factors] = {};
  std::int64_t c[wi_max_factors] = {};  // q − p: what one tick inside a region adds to an offset
  std::vector<wi_spec> call_sites;
  std::vector<wi_spec> assume;          // call sites whose strands the measurement rescales
  wi_factor assume_factor;
  std::int64_t scale = 1;               // with `assume`: every cost is multiplied by assume_factor.p,
                                        // an assumed strand's path cost by assume_factor.q instead
};

// The offsets of a join's two inputs: `a` (ending at a_pos) becomes the larger of
// the two entry by entry; `b` (ending at b_pos) is consumed.
inline void wi_join(wi_vec*& a, std::uint64_t a_pos, wi_vec*& b, std::uint64_t b_pos) {
  if (!b) {
    if (!a) return;
    // b's offsets are all 0: its what-if lengths equal its real length.
  } else if (!a && a_pos == 0) {
    // An empty accumulator (a path of length 0 with no offsets) never wins an entry:
    // every what-if length is ≥ 0 when factors are positive.
    a = b;
    b = nullptr;
    return;
  }
  const wi_config* cfg = a ? a->cfg : b->cfg;
  const std::uint32_t n = std::max(a ? a->n : 0u, b ? b->n : 0u);
  wi_reserve(a, cfg, n);
  const std::uint64_t top = a_pos > b_pos ? a_pos : b_pos;
  const std::int64_t da = static_cast<std::int64_t>(top - a_pos), db = static_cast<std::int64_t>(top - b_pos);
  const unsigned F = cfg->F;
  std::int64_t* x = a->data();
  const std::int64_t* y = b ? b->data() : nullptr;
  const std::uint32_t bn = b ? b->n : 0;
  for (std::uint32_t base = 0; base < n; base += F)
    for (unsigned i = 0; i < F; ++i) {
      const std::uint32_t e = base + i;
      const std::int64_t va = x[e] - da * cfg->p[i];
      const std::int64_t vb = (e < bn ? y[e] : 0) - db * cfg->p[i];
      x[e] = va > vb ? va : vb;
    }
  wi_release(b);
  b = nullptr;
}

// A strand of path cost `cost` inside the regions of `mask` (region bits only).
inline void wi_add(wi_vec*& v, const wi_config* cfg, std::uint64_t mask, std::uint64_t cost) {
  if (cost == 0) return;
  unsigned top = 63u - static_cast<unsigned>(__builtin_clzll(mask));
  const unsigned F = cfg->F;
  wi_reserve(v, cfg, (top + 2) * F);
  std::int64_t* d = v->data();
  const auto c = static_cast<std::int64_t>(cost);
  for (unsigned i = 0; i < F; ++i) d[i] += c * cfg->c[i];
  for (std::uint64_t m = mask; m; m &= m - 1) {
    const unsigned r = static_cast<unsigned>(__builtin_ctzll(m));
    std::int64_t* e = d + (r + 1) * F;
    for (unsigned i = 0; i < F; ++i) e[i] += c * cfg->c[i];
  }
}

// A what-if region of one measurement, known from its first entry (or, for a call
// site named at run time, from the start).
struct wi_region {
  std::string name;
  std::string file;
  unsigned line = 0;
  std::string function;
  std::string tag;
  bool call_site = false;   // a call site named at run time (else a what_if_region guard)
  std::string spec;         // for a named call site: the text that named it
  bool entered = false;     // set under the session lock at the first entry
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
