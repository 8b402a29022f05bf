// detail/observers/list.hpp: what the subsystems above the engine do at
// its fixed points, and the engine a measurement runs (`engine<Clock>`).
//
// The engine (engine/events.hpp, engine/tasks.hpp) knows strands, tasks, joins
// and paths. At each of its points it calls its Observers parameter, and this is
// the one a measurement gives it: the site profiles (observers/profile.hpp),
// what-if regions (observers/what_if.hpp) and the recording (observers/record.hpp),
// in that order, each behind its own switch — a subsystem a measurement leaves
// off costs one predictable branch at a point. Chosen at compile time: the
// points on every spawn, child and join are forced inline into the engine's
// event (FORKSCALE_DETAIL_ALWAYS_INLINE), so that the compiler's budget for a
// large translation unit (the compiled form's) does not call them instead.
//
// The points, in the engine's words:
//   strands_watched / strand_closed / strand_added / strand_started — a
//                           strand's two ends
//   spawned               — a spawn's token is made (returns: a site was
//                           registered, so its cost is in no strand)
//   root_started / task_started — a measurement's root, or a child, starts
//   task_ended / task_pending / task_ended_deferred / task_source — a task
//                           reports to its join
//   join_taken / join_done — a join took its children's path values (before and
//                           after they fold into the task's)
//   call_opened / call_closed — a call site (it may split the strand: the
//                           engine is passed in for that)
//   what_if_opened / what_if_closed — a what_if_region guard
//   path_kept / task_restarted — a depend edge's two ends
//   region_opened / region_closed / measurement_started — labeled regions
#pragma once
#include <cstdint>

#include "../../config.hpp"
#include "../../site.hpp"
#include "../engine/events.hpp"
#include "../engine/frame.hpp"
#include "../engine/join_set.hpp"
#include "../engine/session.hpp"
#include "../macro_scope.hpp"
#include "profile.hpp"
#include "record.hpp"
#include "what_if.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

struct measurement_observers {
  // ---- strands ----------------------------------------------------------------
  // Whether a strand's end goes past the plain path (one branch for both).
  FORKSCALE_DETAIL_ALWAYS_INLINE static bool strands_watched(const frame& f) noexcept {
    return (f.what_if_mask | static_cast<unsigned char>(f.recording.mode)) != 0;
  }
  // A watched strand ends at `t`: what-if may price it differently, and the
  // recording keeps it.
  static strand_cost strand_closed(frame& f, std::uint64_t t, std::uint64_t raw, std::uint64_t cost) noexcept {
    const strand_cost c = f.what_if_mask != 0 ? what_if_strand(f, raw, cost) : strand_cost{raw, cost, raw, cost};
    if (f.recording.mode != recording_mode::off) keep_strand(f, t, c);
    return c;
  }
  // Every strand's cost, into the site profiles' running sums.
  FORKSCALE_DETAIL_ALWAYS_INLINE static void strand_added(frame& f, const strand_cost& c) noexcept {
    f.profile.local_work += c.work;
    f.profile.task_work += c.work;
    f.profile.path.local_span += c.path;
    f.profile.path.task_span += c.path;
  }
  FORKSCALE_DETAIL_ALWAYS_INLINE static void strand_started(frame& f) noexcept {
    if (FORKSCALE_DETAIL_UNLIKELY(f.recording.mode == recording_mode::with_wall_clock))
      f.recording.wall_start = f.recording.state->wall_now();
  }

  // ---- what the engine asks ----------------------------------------------------
  // Whether a task's path value carries a site profile to its join.
  FORKSCALE_DETAIL_ALWAYS_INLINE static bool carries_profile(const frame& f) noexcept { return f.profile.on; }
  // The record a join set made in this frame writes its edges to (null: none).
  FORKSCALE_DETAIL_ALWAYS_INLINE static record_state* join_record(const frame& f) noexcept { return f.recording.state; }

  // ---- tasks --------------------------------------------------------------------
  static void root_started(frame& root, session& s) noexcept {
    root.profile = task_profile{};
    root.profile.on = s.profile;
    root.profile.context = site_registry::instance().empty();
    root.what_if_mask = s.what_if_root_mask;
    root.recording = task_recording{};
    root.recording.mode = s.recording;
    root.recording.state = s.rec.get();
  }

  FORKSCALE_DETAIL_ALWAYS_INLINE static bool spawned(frame& f, spawn_token& tk, const site& where) {
    tk.what_if_mask = f.what_if_mask;
    bool registered = false;
    if (f.profile.on) registered = profile_spawn(f, tk, where);
    if (FORKSCALE_DETAIL_UNLIKELY(f.recording.mode != recording_mode::off)) registered |= keep_spawn(f, tk, where);
    return registered;
  }

  FORKSCALE_DETAIL_ALWAYS_INLINE static void task_started(frame& c, session& s, spawn_token& tk) noexcept {
    c.what_if_mask = tk.what_if_mask;
    c.profile.on = tk.profile.on;
    if (tk.profile.on) profile_task_start(c, tk);
    c.recording.mode = s.recording;
    if (FORKSCALE_DETAIL_UNLIKELY(c.recording.mode != recording_mode::off)) {
      c.recording.state = s.rec.get();
      c.recording.call_path = tk.rec_call_path;
      c.recording.flags = rec_task_start;
      c.recording.prev = tk.rec_from;
      c.recording.join_uid = 0;
      c.recording.end_uid = 0;
    }
  }

  // What the task's path carries to its join for the profiles (its own
  // invocation's record is made here), and for the recording.
  FORKSCALE_DETAIL_ALWAYS_INLINE static path_prof task_ended(frame& c) {
    if (c.profile.on) return profile_task_end(c);
    return path_prof{};
  }
  // After task_ended: the records the task's path has on top of that chain,
  // still in its frame, for the report that follows.
  FORKSCALE_DETAIL_ALWAYS_INLINE static pending_records task_pending(const frame& c) noexcept {
    if (c.profile.on) return profile_task_pending(c);
    return pending_records{};
  }
  // The task ends while children it left still run: its record waits for them
  // (`d`, null when there is none).
  static path_prof task_ended_deferred(frame& c, deferred_record*& d) {
    if (c.profile.on) return profile_task_end_deferred(c, d);
    return path_prof{};
  }
  FORKSCALE_DETAIL_ALWAYS_INLINE static join_source task_source(const frame& c) noexcept {
    if (FORKSCALE_DETAIL_UNLIKELY(c.recording.mode != recording_mode::off))
      return join_source{c.recording.prev, c.recording.end_uid, c.recording.end_round};
    return join_source{};
  }

  // ---- joins --------------------------------------------------------------------
  // Before the children's path values fold into the task's: the longer path
  // keeps its profile chain.
  FORKSCALE_DETAIL_ALWAYS_INLINE static void join_taken(frame& f, join_contents& c) noexcept {
    if (f.profile.on) {
      profile_join(f, c.prof, c.totals.span, c.pending, c.pending_count);
    } else {
      release_prof(c.prof.chain);
    }
  }
  // After: the recording's edges. `where` is null for the children a task
  // (or a measurement's root) merges at its end.
  FORKSCALE_DETAIL_ALWAYS_INLINE static void join_done(frame& f, const join_contents& c, const site* where) noexcept {
    if (FORKSCALE_DETAIL_UNLIKELY(f.recording.mode != recording_mode::off)) {
      if (where) {
        keep_join(f, c, *where);
      } else if (c.finished != 0) {
        f.recording.end_uid = c.uid;
        f.recording.end_round = c.round;
      }
    }
  }

  // ---- call sites ---------------------------------------------------------------
  // With site profiles on, the clock is read when the call opens and closes, so
  // that the strands inside belong to the call's invocation.
  template <class E>
  FORKSCALE_DETAIL_ALWAYS_INLINE static void call_opened(frame& f, call_state& cs, const site& where) noexcept {
    if (FORKSCALE_DETAIL_UNLIKELY(f.call_events != 0)) {
      call_opened_slow<E>(f, cs, where);
    } else if (f.profile.on) {
      call_opened_profiled<E>(f, cs, where);
    }
  }

  // A profiled call: the strand before it ends, its invocation opens.
  template <class E>
  FORKSCALE_DETAIL_NOINLINE static void call_opened_profiled(frame& f, call_state& cs, const site& where) noexcept {
    E::template split_strand_inline<close_call_enter, open_call_enter>(f);
    // A site registered just now: its cost is in no strand.
    if (FORKSCALE_DETAIL_UNLIKELY(profile_call_open(f, cs, where)) && f.state == frame::run_state::running)
      E::template start_strand<open_call_enter>(f, E::now(f));
  }

  // A call in a measurement that names what-if call sites, or records.
  template <class E>
  FORKSCALE_DETAIL_NOINLINE static void call_opened_slow(frame& f, call_state& cs, const site& where) noexcept {
    std::uint64_t what_if_new = 0;
    if (f.sess->what_if_calls) what_if_new = what_if_site_bits(f.sess, where, true) & ~f.what_if_mask;
    if (f.profile.on || what_if_new || f.recording.mode != recording_mode::off)
      E::template split_strand<close_call_enter, open_call_enter>(f);
    if (f.recording.mode != recording_mode::off && keep_call_open(f, cs, where) && f.state == frame::run_state::running)
      E::template start_strand<open_call_enter>(f, E::now(f));
    if (what_if_new != 0) {
      cs.what_if_set = true;
      cs.caller_what_if_mask = f.what_if_mask;
      f.what_if_mask |= what_if_new;
      if (what_if_new & what_if_region_bits) record_what_if_entries(f.sess, what_if_new & what_if_region_bits);
    }
    if (f.profile.on && profile_call_open(f, cs, where) && f.state == frame::run_state::running)
      E::template start_strand<open_call_enter>(f, E::now(f));
  }

  template <class E>
  FORKSCALE_DETAIL_ALWAYS_INLINE static void call_closed(frame& f, call_state& cs) noexcept {
    if (FORKSCALE_DETAIL_UNLIKELY(f.call_events != 0)) {
      call_closed_slow<E>(f, cs);
    } else if (f.profile.on && cs.caller_context) {
      call_closed_profiled<E>(f, cs);
    }
  }

  template <class E>
  FORKSCALE_DETAIL_NOINLINE static void call_closed_profiled(frame& f, call_state& cs) noexcept {
    E::template split_strand_inline<close_call_exit, open_call_exit>(f);
    profile_call_close(f, cs);
  }

  template <class E>
  FORKSCALE_DETAIL_NOINLINE static void call_closed_slow(frame& f, call_state& cs) noexcept {
    const bool profiled = f.profile.on && cs.caller_context;
    if (profiled || cs.what_if_set || f.recording.mode != recording_mode::off)
      E::template split_strand<close_call_exit, open_call_exit>(f);
    if (f.recording.mode != recording_mode::off) f.recording.call_path = cs.caller_call_path;
    if (cs.what_if_set) f.what_if_mask = cs.caller_what_if_mask;
    if (profiled) profile_call_close(f, cs);
  }

  // ---- what-if regions ----------------------------------------------------------
  // Strands inside are predicted k× faster (docs/model.md, "What-if regions").
  // Entering a region the task is already inside counts once. The engine has
  // counted the guard (ws.task, ws.depth).
  template <class E>
  static void what_if_opened(frame& f, what_if_state& ws, std::uint64_t bit) noexcept {
    if (!bit || (f.what_if_mask & bit)) return;
    record_what_if_entries(f.sess, bit);
    E::split_strand(f);
    ws.saved_mask = f.what_if_mask;
    f.what_if_mask |= bit;
    ws.changed = true;
  }
  // The region's bit (0: not analysed), looked up before the guard counts.
  static std::uint64_t what_if_bit(frame& f, const site& where, bool& failed) noexcept {
    try {
      return what_if_site_bits(f.sess, where, false);
    } catch (...) {
      failed = true;  // out of memory registering the region: it is not analysed
      return 0;
    }
  }
  template <class E>
  static void what_if_closed(frame& f, what_if_state& ws) noexcept {
    if (!ws.changed) return;
    E::split_strand(f);
    f.what_if_mask = ws.saved_mask;
  }

  // ---- depend edges (detail/ompt/depend.hpp) ------------------------------------
  // A path value kept at the running point of `f`: its what-if offsets and its
  // site profile (see profile_path_kept).
  static void path_kept(frame& f, bool task_end, kept_path& k) {
    if (FORKSCALE_DETAIL_UNLIKELY(f.totals.what_if != nullptr)) k.what_if = what_if_copy(f.totals.what_if);
    if (f.profile.on) k.prof = profile_path_kept(f, task_end);
  }
  // A task's predecessors joined its path where it starts: its invocation
  // starts after them.
  static void task_restarted(frame& f) noexcept {
    if (f.profile.on) profile_restart_task(f);
  }

  // ---- labeled regions and the measurement --------------------------------------
  static void region_opened(frame& f, region_state& rs) noexcept {
    if (FORKSCALE_DETAIL_UNLIKELY(f.recording.mode != recording_mode::off))
      rs.rec_wall_open = f.recording.state->wall_now();
  }
  static void region_closed(frame& f, const region_state& rs) noexcept {
    if (FORKSCALE_DETAIL_UNLIKELY(f.recording.mode != recording_mode::off)) keep_region_instance(f, rs);
  }
  static void measurement_started(session& s) noexcept {
    if (s.rec) s.rec->start();
  }
};

// The engine a measurement runs, for one clock policy.
template <class Clock>
using engine = basic_engine<Clock, measurement_observers>;

}  // namespace detail
FORKSCALE_NAMESPACE_END
