// detail/what_if/offsets.hpp: the what-if (causal) analysis's path data
// (docs/model.md, "What-if regions").
//
// For each scenario s (0: every region together; r + 1: region r alone) and each
// factor k = p/q, a path's what-if length is its length with every strand inside
// the scenario's regions counted (q/p)× its cost. Along a path these lengths only
// grow by a strand's cost, as the real length does, except inside regions; so a
// path value keeps them as offsets from its real length, in units of 1/p tick:
//
//   what-if length (s, k) = span + d[s·F + k] / p_k.
//
// A strand outside every region changes no offset; a strand of cost c inside
// regions R adds c·(q − p) to the offsets of the scenarios that contain R's
// regions (each strand at most once per scenario, so nested regions count once).
// A join takes, entry by entry, the larger of its two inputs' what-if lengths:
// with P the larger real length, d = max(d₁ − (P − span₁)·p, d₂ − (P − span₂)·p).
// Max and + commute, so the result is the same whatever the interleaving, as
// for the real span. Offsets are exact integers; the report divides at the end.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../../site.hpp"
#include "../macro_scope.hpp"
#include "factors.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

struct what_if_config;

// One path value's offsets: scenario-major, F entries per scenario, `n` in use.
// Owned by exactly one path value (a frame, a join set's accumulator or a spawn
// token); a spawn copies it. Blocks are cached per thread by size class.
struct what_if_vec {
  what_if_vec* next_free = nullptr;
  const what_if_config* cfg = nullptr;
  std::uint32_t n = 0;
  std::uint32_t cls = 0;
  std::int64_t* data() noexcept { return reinterpret_cast<std::int64_t*>(this + 1); }
  const std::int64_t* data() const noexcept { return reinterpret_cast<const std::int64_t*>(this + 1); }
};
static_assert(sizeof(what_if_vec) % alignof(std::int64_t) == 0, "offsets follow the header");

inline constexpr unsigned what_if_classes = 3;
inline constexpr std::uint32_t what_if_class_capacity(unsigned cls) noexcept {
  return 64u << (3u * cls);
}  // 64, 512, 4096

inline std::atomic<std::size_t>& what_if_bytes() noexcept {
  static std::atomic<std::size_t> b{0};
  return b;
}

struct what_if_cache {
  what_if_vec* head[what_if_classes] = {};
  unsigned count[what_if_classes] = {};
  ~what_if_cache();
  static what_if_cache& local() noexcept {
    static thread_local what_if_cache c;
    return c;
  }
};

inline what_if_cache::~what_if_cache() {
  for (unsigned c = 0; c < what_if_classes; ++c)
    while (head[c]) {
      what_if_vec* v = head[c];
      head[c] = v->next_free;
      v->~what_if_vec();
      ::operator delete(v);
      what_if_bytes().fetch_sub(sizeof(what_if_vec) + sizeof(std::int64_t) * what_if_class_capacity(c),
                                std::memory_order_relaxed);
    }
}

inline what_if_vec* what_if_alloc(std::uint32_t entries) {
  unsigned cls = 0;
  while (what_if_class_capacity(cls) < entries) ++cls;
  what_if_cache& c = what_if_cache::local();
  what_if_vec* v = c.head[cls];
  if (v) {
    c.head[cls] = v->next_free;
    --c.count[cls];
  } else {
    const std::size_t bytes = sizeof(what_if_vec) + sizeof(std::int64_t) * what_if_class_capacity(cls);
    v = new (::operator new(bytes)) what_if_vec;
    what_if_bytes().fetch_add(bytes, std::memory_order_relaxed);
  }
  v->next_free = nullptr;
  v->cls = cls;
  v->n = 0;
  return v;
}

inline void what_if_release(what_if_vec* v) noexcept {
  if (!v) return;
  what_if_cache& c = what_if_cache::local();
  if (c.count[v->cls] >= 64) {
    what_if_bytes().fetch_sub(sizeof(what_if_vec) + sizeof(std::int64_t) * what_if_class_capacity(v->cls),
                              std::memory_order_relaxed);
    v->~what_if_vec();
    ::operator delete(v);
    return;
  }
  v->next_free = c.head[v->cls];
  c.head[v->cls] = v;
  ++c.count[v->cls];
}

inline what_if_vec* what_if_copy(const what_if_vec* v) {
  if (!v) return nullptr;
  what_if_vec* c = what_if_alloc(v->n);
  c->cfg = v->cfg;
  c->n = v->n;
  std::memcpy(c->data(), v->data(), sizeof(std::int64_t) * v->n);
  return c;
}

// Makes `v` hold at least `entries` offsets (new ones are 0).
inline void what_if_reserve(what_if_vec*& v, const what_if_config* cfg, std::uint32_t entries) {
  if (!v) {
    v = what_if_alloc(entries);
    v->cfg = cfg;
  }
  if (v->n >= entries) return;
  if (what_if_class_capacity(v->cls) < entries) {
    what_if_vec* bigger = what_if_alloc(entries);
    bigger->cfg = v->cfg;
    bigger->n = v->n;
    std::memcpy(bigger->data(), v->data(), sizeof(std::int64_t) * v->n);
    what_if_release(v);
    v = bigger;
  }
  std::memset(v->data() + v->n, 0, sizeof(std::int64_t) * (entries - v->n));
  v->n = entries;
}

// What a measurement analyses: its factors, the call sites named at run time, and
// the advisor's "assume faster" call sites. Fixed when the measurement starts.
struct what_if_config {
  std::vector<what_if_fraction> factors;
  unsigned F = 0;
  std::int64_t p[what_if_max_factors] = {};
  std::int64_t c[what_if_max_factors] = {};  // q − p: what one tick inside a region adds to an offset
  std::vector<what_if_spec> call_sites;
  std::vector<what_if_spec> assume;  // call sites whose strands the measurement rescales
  what_if_fraction assume_factor;
  std::int64_t scale = 1;  // with `assume`: every cost is multiplied by assume_factor.p,
                           // an assumed strand's path cost by assume_factor.q instead
};

// The offsets of a join's two inputs: `a` (ending at a_span) becomes the larger of
// the two entry by entry; `b` (ending at b_span) is consumed.
inline void what_if_join(what_if_vec*& a, std::uint64_t a_span, what_if_vec*& b, std::uint64_t b_span) {
  if (!b) {
    if (!a) return;
    // b's offsets are all 0: its what-if lengths equal its real length.
  } else if (!a && a_span == 0) {
    // An empty accumulator (a path of length 0 with no offsets) never wins an entry:
    // every what-if length is ≥ 0 when factors are positive.
    a = b;
    b = nullptr;
    return;
  }
  const what_if_config* cfg = a ? a->cfg : b->cfg;
  const std::uint32_t n = std::max(a ? a->n : 0u, b ? b->n : 0u);
  what_if_reserve(a, cfg, n);
  const std::uint64_t top = a_span > b_span ? a_span : b_span;
  const std::int64_t da = static_cast<std::int64_t>(top - a_span), db = static_cast<std::int64_t>(top - b_span);
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
  what_if_release(b);
  b = nullptr;
}

// A strand of path cost `cost` inside the regions of `mask` (region bits only).
inline void what_if_add(what_if_vec*& v, const what_if_config* cfg, std::uint64_t mask, std::uint64_t cost) {
  if (cost == 0) return;
  unsigned top = 63u - static_cast<unsigned>(__builtin_clzll(mask));
  const unsigned F = cfg->F;
  what_if_reserve(v, cfg, (top + 2) * F);
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
struct what_if_known_region {
  std::string name;
  std::string file;
  unsigned line = 0;
  std::string function;
  std::string tag;
  bool call_site = false;  // a call site named at run time (else a what_if_region guard)
  std::string spec;        // for a named call site: the text that named it
  bool entered = false;    // set under the session lock at the first entry
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
