// detail/engine/path_value.hpp: the value a point of the program carries along
// the dag (path_totals; the site profiles' part, path_prof, is in
// profile/prof_records.hpp); state.hpp holds it in a frame.
//
// The model is Cilkview's (SPAA'10, Fig. 13) made to work for any join pattern
// and for real parallel execution: every point of the program carries the length
// of the longest path from the start of the measurement to it (plain, burdened
// and before compensation), together with the work, spawns and syncs of
// everything known to precede it. A child starts with its spawner's path
// lengths; whoever joins it takes the maximum of the path lengths and the sum of
// the rest. Because max and + commute, the result is the same whatever the
// threads and the interleaving.
#pragma once
#include <cstdint>

#include "../../config.hpp"
#include "../macro_scope.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

struct what_if_vec;

// Defined with the engine (what_if/offsets.hpp).
inline void what_if_join(what_if_vec*& a, std::uint64_t a_span, what_if_vec*& b, std::uint64_t b_span);

// What a point of the program knows about everything that precedes it. Path
// lengths are absolute (from the start of the measurement) and in clock ticks;
// the counters cover the task's own strands plus every child it has joined.
struct path_totals {
  std::uint64_t span = 0;           // the longest path to this point
  std::uint64_t burdened_span = 0;  // the longest path in the burdened dag
  std::uint64_t raw_span = 0;       // the longest path before overhead compensation
  std::uint64_t work = 0;
  std::uint64_t compensation = 0;  // compensation taken off `work`
  std::uint64_t spawns = 0;
  std::uint64_t syncs = 0;
  std::uint64_t calls = 0;
  // Recording: the strand that ends the longest path to this point (0: none).
  // A join keeps the longer path's, so following them back from the end gives
  // the critical path (DESIGN.md: "keep that bit").
  std::uint64_t last_strand = 0;
  // What-if offsets of this path (what_if/offsets.hpp); null: all 0. Owned by
  // whichever path value holds it; a copy of a path_totals does not own it.
  what_if_vec* what_if = nullptr;

  // A join: path lengths take the maximum, everything else adds up. `o`'s what-if
  // offsets are consumed. (A template only so that a file compiling the guards
  // alone, which never joins, needs no definition of what_if_join.)
  template <class = void>
  FORKSCALE_DETAIL_ALWAYS_INLINE void join(path_totals& o) noexcept {
    if (FORKSCALE_DETAIL_UNLIKELY(what_if != nullptr || o.what_if != nullptr))
      what_if_join(what_if, span, o.what_if, o.span);
    if (o.span > span) {
      span = o.span;
      last_strand = o.last_strand;
    }
    if (o.burdened_span > burdened_span) burdened_span = o.burdened_span;
    if (o.raw_span > raw_span) raw_span = o.raw_span;
    work += o.work;
    compensation += o.compensation;
    spawns += o.spawns;
    syncs += o.syncs;
    calls += o.calls;
  }
  // Everything between two points of one task: its own strands and the children
  // it joined in between (a region instance).
  path_totals since(const path_totals& begin) const noexcept {
    path_totals d;
    d.span = span - begin.span;
    d.burdened_span = burdened_span - begin.burdened_span;
    d.raw_span = raw_span - begin.raw_span;
    d.work = work - begin.work;
    d.compensation = compensation - begin.compensation;
    d.spawns = spawns - begin.spawns;
    d.syncs = syncs - begin.syncs;
    d.calls = calls - begin.calls;
    return d;
  }
  // Adds a region instance's totals (spans summed, not maxed).
  void add(const path_totals& d) noexcept {
    span += d.span;
    burdened_span += d.burdened_span;
    raw_span += d.raw_span;
    work += d.work;
    compensation += d.compensation;
    spawns += d.spawns;
    syncs += d.syncs;
    calls += d.calls;
  }
};

// A strand's cost split by what it counts for: `work_raw`/`work` (before/after
// compensation) to the work, `path_raw`/`path` to every path through it. They
// differ only under what-if analysis (observers/what_if.hpp).
struct strand_cost {
  std::uint64_t work_raw, work, path_raw, path;
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
