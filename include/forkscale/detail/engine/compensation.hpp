// detail/engine/compensation.hpp: the overhead compensation's shares by kind
// of event, which a strand's cost is charged less of (engine/events.hpp),
// calibrated per clock (detail/measurement/calibrate.hpp).
#pragma once
#include <cstdint>

#include "../../config.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Overhead compensation by event (Cilkprof §7; calibrate_compensation in
// calibrate.hpp): a strand's cost less `open[k]` of the event that opened it and
// `close[k]` of the event that closed it. The instrumentation's own time
// between a strand's two clock readings is the tail of its opening event
// (after that event's reading) and the head of its closing one (before it),
// and those differ by event: a child run at once starts at its spawn's
// reading, so the spawn's bookkeeping and the child's start land in the
// child's first strand; a continuation after a child's end carries the
// child's report to its join.
enum comp_open_kind : unsigned char {
  open_child_at_once,  // a child's first strand, started at its spawn's reading
  open_child,          // a task's first strand, or a task resumed, on a reading of its own
  open_after_child,    // the spawner again, after a child it ran ended
  open_after_sync,     // after a join
  open_after_spawn,    // the spawner's continuation, its child not run at once
  open_call_enter,     // inside a profiled call site
  open_call_exit,      // after one
  open_split,          // after another split: a region, a what-if region, a depend edge
  open_kinds
};
enum comp_close_kind : unsigned char {
  close_spawn,
  close_child_end,
  close_sync,
  close_call_enter,
  close_call_exit,
  close_child_begin,  // the spawner's strand, ended where a child not run at once starts
  close_split,        // another split, a task leaving its thread, a region's end
  close_kinds
};
struct compensation_table {
  std::uint64_t open[open_kinds] = {};
  std::uint64_t close[close_kinds] = {};
};
inline const compensation_table no_compensation{};

}  // namespace detail
FORKSCALE_NAMESPACE_END
