// detail/engine/hooks.hpp: how a guard reaches the engine. The guards
// (annotate.hpp) are compiled in every file a program annotates; the engine
// (events.hpp) only where a measurement starts (guards.hpp, forkscale.hpp). A
// guard reads its thread's current frame itself, and does nothing more outside
// a measurement; inside one it calls the engine through a table of function
// pointers per clock policy, which the engine installs when a measurement on
// that policy starts (engine<Clock>::begin_measurement) — before any frame of
// that policy can be current on any thread.
#pragma once
#include <atomic>

#include "../../config.hpp"
#include "../../site.hpp"
#include "state.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// For tests: measurements under the cost clock share readings between events
// as the wall clocks do (readings_fuse in tasks.hpp). Read when a measurement
// starts; here so that a test built against the compiled form reaches it.
inline bool fuse_readings_under_cost_clock = false;
// For tests: the overhead compensation's halves per strand end — scheduling
// events, strand splits — under the cost clock, which is otherwise never
// compensated. Read when a measurement starts; {0, 0}: none.
inline std::uint64_t cost_clock_compensation_halves[2] = {0, 0};
// For tests: every share under the cost clock, by kind of event
// (compensation_table); null: the halves above.
inline const compensation_table* cost_clock_compensation_shares = nullptr;

// The running frame of this thread, per clock policy (null: not measuring).
template <class Clock>
inline thread_local frame* current_frame = nullptr;

// The events a guard reports (engine<Clock> in events.hpp has one function each).
struct engine_hooks {
  // `from`: the library the spawn came through (backend_bit, backend.hpp; 0 for a
  // spawn of the guards themselves).
  spawn_token (*spawn)(join_set* group, const site& where, unsigned char from) noexcept;
  void (*begin_child)(frame& c, spawn_token& tk, const site& where) noexcept;
  void (*end_child)(frame& c) noexcept;
  void (*begin_sync)(sync_state& st, const site& where) noexcept;
  void (*end_sync)(sync_state& st, join_set* j, bool own_block, const site& where) noexcept;
  void (*begin_call)(call_state& cs, bool scope, const site& where) noexcept;
  void (*end_call)(call_state& cs, bool scope, const site& where) noexcept;
  void (*begin_what_if)(what_if_state& ws, const site& where) noexcept;
  void (*end_what_if)(what_if_state& ws, const site& where) noexcept;
  // A depend edge (detail/ompt/depend.hpp): the path value at a point of a
  // predecessor, kept; and the predecessors' ends joined into a successor.
  kept_path (*keep_path)(frame& f, bool task_end) noexcept;
  void (*join_kept)(join_set* preds, const site& where, bool task_start) noexcept;
};

template <class Clock>
inline std::atomic<const engine_hooks*> installed_engine_hooks{nullptr};

// The guards' side of every event: the test for "measuring?" inline, the event
// itself through the table. An end is passed on whenever the table is there:
// the engine returns at once for a state its begin left empty (`task` null, a
// frame without session).
template <class Clock>
struct guard_events {
  static const engine_hooks* hooks() noexcept { return installed_engine_hooks<Clock>.load(std::memory_order_acquire); }
  static spawn_token spawn(join_set* group, const site& where, unsigned char from = 0) noexcept {
    const engine_hooks* h = current_frame<Clock> ? hooks() : nullptr;
    if (!h) return spawn_token{};
    return h->spawn(group, where, from);
  }
  // Also called with an empty token inside a measurement: the engine diagnoses it.
  static void begin_child(frame& c, spawn_token& tk, const site& where) noexcept {
    if (!tk && !current_frame<Clock>) return;
    if (const engine_hooks* h = hooks()) h->begin_child(c, tk, where);
  }
  static void end_child(frame& c) noexcept {
    if (const engine_hooks* h = hooks()) h->end_child(c);
  }
  static void begin_sync(sync_state& st, const site& where) noexcept {
    if (!current_frame<Clock>) return;
    if (const engine_hooks* h = hooks()) h->begin_sync(st, where);
  }
  static void end_sync(sync_state& st, join_set* j, bool own_block, const site& where) noexcept {
    if (const engine_hooks* h = hooks()) h->end_sync(st, j, own_block, where);
  }
  static void begin_call(call_state& cs, bool scope, const site& where) noexcept {
    if (!current_frame<Clock>) return;
    if (const engine_hooks* h = hooks()) h->begin_call(cs, scope, where);
  }
  static void end_call(call_state& cs, bool scope, const site& where) noexcept {
    if (const engine_hooks* h = hooks()) h->end_call(cs, scope, where);
  }
  static void begin_what_if(what_if_state& ws, const site& where) noexcept {
    if (!current_frame<Clock>) return;
    if (const engine_hooks* h = hooks()) h->begin_what_if(ws, where);
  }
  static void end_what_if(what_if_state& ws, const site& where) noexcept {
    if (const engine_hooks* h = hooks()) h->end_what_if(ws, where);
  }
  // Called only inside a measurement (a running frame).
  static kept_path keep_path(frame& f, bool task_end) noexcept {
    if (const engine_hooks* h = hooks()) return h->keep_path(f, task_end);
    return kept_path{};
  }
  static void join_kept(join_set* preds, const site& where, bool task_start) noexcept {
    if (const engine_hooks* h = hooks()) h->join_kept(preds, where, task_start);
  }
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
