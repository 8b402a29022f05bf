// detail/observers/what_if.hpp: which what-if regions a strand is in, and what a
// strand inside regions does to its path's offsets and to the regions' work
// (docs/model.md, "What-if regions").
#pragma once
#include <cstdint>
#include <mutex>
#include <string>

#include "../../config.hpp"
#include "../../site.hpp"
#include "../engine/frame.hpp"
#include "../engine/session.hpp"
#include "../macro_scope.hpp"
#include "../util/strings.hpp"
#include "../what_if/offsets.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// A strand of work cost `cost` inside the regions of `mask` (region bits only).
inline void record_what_if_work(session* s, std::uint64_t mask, std::uint64_t cost) {
  thread_tables& t = tables_for(s);
  if (FORKSCALE_DETAIL_UNLIKELY(t.what_if_work.empty())) t.what_if_work.assign(what_if_max_regions + 1, 0);
  t.what_if_work[0] += cost;
  for (std::uint64_t m = mask; m; m &= m - 1) t.what_if_work[static_cast<unsigned>(__builtin_ctzll(m)) + 1] += cost;
}

inline void record_what_if_entries(session* s, std::uint64_t mask) {
  thread_tables& t = tables_for(s);
  if (FORKSCALE_DETAIL_UNLIKELY(t.what_if_entries.empty())) t.what_if_entries.assign(what_if_max_regions, 0);
  for (std::uint64_t m = mask; m; m &= m - 1) ++t.what_if_entries[static_cast<unsigned>(__builtin_ctzll(m))];
}

// Whether `r` is the region of the guard at `w` (a guard's region, not a named
// call site: same file, line, function and tag).
inline bool is_guard_region(const what_if_known_region& r, const site& w, const std::string& file,
                            const std::string& function, const std::string& tag) noexcept {
  return !r.call_site && r.line == w.line && r.file == file && r.function == function && r.tag == tag &&
         (r.tag.empty() == (w.tag == nullptr));
}

// A guard's region: found by the site's content, registered at its first entry.
// Returns its bit, or 0 when the measurement analyses no region (a bad
// FORKSCALE_WHAT_IF) or already has the most regions it can analyse: then this
// region alone is left out, said once by a diagnostic that names it.
FORKSCALE_DETAIL_NOINLINE inline std::uint64_t what_if_region_bit_slow(session* s, const site& w) {
  if (s->what_if_off) return 0;
  what_if_known_region r;
  r.file = w.file ? w.file : "";
  r.line = w.line;
  r.function = w.function ? w.function : "";
  r.tag = w.tag ? w.tag : "";
  r.name = w.tag ? r.tag : short_site_name(r.file, w.line);
  std::size_t number = 0;  // the region's number in the measurement, counted from 1
  {
    std::lock_guard<std::mutex> g(s->m);
    for (std::size_t i = 0; i < s->what_if_regions.size(); ++i)
      if (is_guard_region(s->what_if_regions[i], w, r.file, r.function, r.tag)) return std::uint64_t{1} << i;
    if (s->what_if_regions.size() < what_if_max_regions) {
      s->what_if_regions.push_back(std::move(r));
      return std::uint64_t{1} << (s->what_if_regions.size() - 1);
    }
    for (const what_if_known_region& d : s->what_if_dropped)
      if (is_guard_region(d, w, r.file, r.function, r.tag)) return 0;  // diagnosed already
    s->what_if_dropped.push_back(r);
    number = what_if_max_regions + s->what_if_dropped.size();
  }
  what_if_notice(s, w,
                 "what-if region \"" + r.name + "\" is not analysed: it is region " + std::to_string(number) +
                     " of this measurement, and at most " + std::to_string(what_if_max_regions) +
                     " are (named call sites included); it has no what-if rows and is not in the (all regions) "
                     "rows, while the other regions' rows and the site profiles are kept");
  return 0;
}

// A call site's what-if bits: the named call sites it matches, and the assumed bit.
FORKSCALE_DETAIL_NOINLINE inline std::uint64_t what_if_call_bits_slow(session* s, const site& w) {
  std::uint64_t bits = 0;
  const what_if_config& c = s->what_if;
  for (std::size_t i = 0; i < c.call_sites.size(); ++i)
    if (spec_matches(c.call_sites[i], w)) bits |= std::uint64_t{1} << i;
  for (const what_if_spec& a : c.assume)
    if (spec_matches(a, w)) bits |= what_if_assumed_bit;
  if (bits & what_if_region_bits) {
    std::lock_guard<std::mutex> g(s->m);
    for (std::uint64_t m = bits & what_if_region_bits; m; m &= m - 1) {
      what_if_known_region& r = s->what_if_regions[static_cast<unsigned>(__builtin_ctzll(m))];
      if (r.file.empty() && r.line == 0) {
        r.file = w.file ? w.file : "";
        r.line = w.line;
        r.function = w.function ? w.function : "";
        r.tag = w.tag ? w.tag : "";
      }
    }
  }
  return bits;
}

// The bits of a site (a guard's region, or a call site's), cached per thread.
inline std::uint64_t what_if_site_bits(session* s, const site& w, bool call) {
  struct slot {
    std::uint64_t serial = 0;
    const char* file = nullptr;
    const char* function = nullptr;
    const char* tag = nullptr;
    unsigned line = 0;
    bool call = false;
    std::uint64_t bits = 0;
  };
  static thread_local slot cache[64];
  const std::uintptr_t h = (reinterpret_cast<std::uintptr_t>(w.file) >> 4) ^
                           (reinterpret_cast<std::uintptr_t>(w.tag) >> 4) ^ (w.line * 0x9E3779B1u) ^
                           static_cast<std::uintptr_t>(call);
  slot& e = cache[h & 63u];
  if (FORKSCALE_DETAIL_LIKELY(e.serial == s->serial && e.file == w.file && e.line == w.line &&
                              e.function == w.function && e.tag == w.tag && e.call == call))
    return e.bits;
  const std::uint64_t bits = call ? what_if_call_bits_slow(s, w) : what_if_region_bit_slow(s, w);
  e.serial = s->serial;
  e.file = w.file;
  e.function = w.function;
  e.tag = w.tag;
  e.line = w.line;
  e.call = call;
  e.bits = bits;
  return bits;
}

// A strand inside what-if regions, or of a measurement that assumes call sites
// faster: the path cost may differ from the work cost, and the regions' offsets
// and work grow.
FORKSCALE_DETAIL_NOINLINE inline strand_cost what_if_strand(frame& f, std::uint64_t raw, std::uint64_t cost) {
  const what_if_config& cfg = f.sess->what_if;
  strand_cost c{raw, cost, raw, cost};
  if (f.what_if_mask & what_if_scaled_bit) {
    const auto P = static_cast<std::uint64_t>(cfg.assume_factor.p);
    const auto Q = (f.what_if_mask & what_if_assumed_bit) ? static_cast<std::uint64_t>(cfg.assume_factor.q) : P;
    c = strand_cost{raw * P, cost * P, raw * Q, cost * Q};
  }
  const std::uint64_t regions = f.what_if_mask & what_if_region_bits;
  if (regions) {
    what_if_add(f.totals.what_if, &cfg, regions, c.path);
    record_what_if_work(f.sess, regions, c.work);
  }
  return c;
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
