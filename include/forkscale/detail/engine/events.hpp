// detail/engine/events.hpp: the engine. Every event a guard (or an adapter, or
// the OpenMP tool) reports enters here through one function: spawn, child
// open/close, sync open/close, call open/close, region open/close, what-if
// region open/close. Each is a few additions, one clock reading and, where a
// child finishes or a join completes, one uncontended lock on the join set
// involved; sessions and regions take a lock only when they are created.
//
// The engine knows strands, tasks, joins and paths. What the subsystems above
// it do at its points (the site profiles, what-if, the recording) it reaches
// through its `Observers` parameter, chosen at compile time:
// detail/observers/list.hpp says the points and gives a measurement's.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../site.hpp"
#include "../macro_scope.hpp"
#include "frame.hpp"
#include "hooks.hpp"
#include "join_set.hpp"
#include "session.hpp"
#include "tasks.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

template <class Clock, class Observers>
void install_engine_hooks() noexcept;

// The events, for one clock policy (clock.hpp) and one set of observers. All
// members are static; each thread has one current frame per policy.
template <class Clock, class Observers>
struct basic_engine {
  using run_state = frame::run_state;

  static frame*& current() noexcept { return current_frame<Clock>; }

  static std::uint64_t now(const frame& f) noexcept { return Clock::now(f.kind); }

  // ---- strands -------------------------------------------------------------------
  // Ends the open strand of `f` at clock reading `t`: its cost (less the
  // compensation estimate) extends every path through `f` and adds to its work.
  // `K`: the closing event's kind, for its share of the compensation
  // (compensation_table, compensation.hpp).
  template <comp_close_kind K>
  FORKSCALE_DETAIL_NOINLINE static void close_strand(frame& f, std::uint64_t t) noexcept {
    // Without branches: strands near the compensation's size go either way.
    const std::uint64_t raw = t - std::min(t, f.strand_start);
    const std::uint64_t comp = f.comp_open + f.comp->close[K];
    const std::uint64_t cost = raw - std::min(raw, comp);
    if (FORKSCALE_DETAIL_UNLIKELY(Observers::strands_watched(f))) {
      close_strand_slow(f, t, raw, cost);
      return;
    }
    add_strand(f, strand_cost{raw, cost, raw, cost});
  }

  // A strand an observer watches (what-if, the recording).
  FORKSCALE_DETAIL_NOINLINE static void close_strand_slow(frame& f, std::uint64_t t, std::uint64_t raw,
                                                          std::uint64_t cost) noexcept {
    add_strand(f, Observers::strand_closed(f, t, raw, cost));
  }

  // The open strand of `f` starts at clock reading `t`, opened by an event of
  // kind `K`.
  template <comp_open_kind K>
  static void start_strand(frame& f, std::uint64_t t) noexcept {
    f.strand_start = t;
    f.comp_open = f.comp->open[K];
    Observers::strand_started(f);
  }

  static void add_strand(frame& f, const strand_cost& c) noexcept {
    f.totals.span += c.path;
    f.totals.burdened_span += c.path;
    f.totals.raw_span += c.path_raw;
    f.totals.work += c.work;
    f.totals.compensation += c.work_raw - c.work;
    Observers::strand_added(f, c);
  }

  // Ends the open strand of a running frame and starts the next one at once:
  // a guard boundary inside a task (call sites, regions, what-if regions).
  // split_strand_inline is the same, always inlined, with the events' kinds:
  // for a call site's profiled path, where a call would cost more than the
  // split.
  template <comp_close_kind C = close_split, comp_open_kind O = open_split>
  static void split_strand(frame& f) noexcept {
    split_strand_inline<C, O>(f);
  }
  template <comp_close_kind C, comp_open_kind O>
  FORKSCALE_DETAIL_ALWAYS_INLINE static void split_strand_inline(frame& f) noexcept {
    if (FORKSCALE_DETAIL_UNLIKELY(f.state != run_state::running)) return;
    const std::uint64_t t = now(f);
    close_strand<C>(f, t);
    start_strand<O>(f, t);
  }

  // ---- spawn, parent side --------------------------------------------------------
  // The parent's strand ends; the child will start from the path value here; the
  // continuation edge carries the burden (Cilkview Fig. 13). `group` is the set
  // the child reports to, or null for the task's own sync block.
  // `from` names the library the spawn came through (backend_bit; 0: the guards').
  static spawn_token spawn(join_set* group, const site& where, unsigned char from = 0) noexcept {
    spawn_token tk;
    frame* f = current();
    if (!f) return tk;  // not measuring: the child will run unmeasured
    if (FORKSCALE_DETAIL_UNLIKELY((f->backends & from) != from)) note_backend(*f, from);
    std::uint64_t t = 0;
    if (FORKSCALE_DETAIL_LIKELY(f->state == run_state::running)) {
      t = now(*f);
      close_strand<close_spawn>(*f, t);
    }
    join_set* j = group;
    if (j) {
      j->count_shared_child();
    } else {
      j = f->sync_block;
      if (!j) j = f->sync_block = join_set::make(f->sess, Observers::join_record(*f));
      j->count_own_child();
    }
    tk.target = j;
    tk.region = f->region;
    if (FORKSCALE_DETAIL_UNLIKELY(f->totals.what_if != nullptr)) tk.what_if = what_if_copy(f->totals.what_if);
    tk.span = f->totals.span;
    tk.burdened_span = f->totals.burdened_span;
    tk.raw_span = f->totals.raw_span;
    tk.last_strand = f->totals.last_strand;
    // A first lookup of this site: its cost is in no strand.
    const bool registered = Observers::spawned(*f, tk, where);
    ++f->totals.spawns;
    f->totals.burdened_span += f->burden;
    if (f->state == run_state::running) {
      // A site registered just now: its cost is in no strand (and the child,
      // however it runs, does not start at `t`).
      if (FORKSCALE_DETAIL_UNLIKELY(registered)) t = now(*f);
      start_strand<open_after_spawn>(*f, t);
      if (f->fuse) tk.spawned_at = t;
    }
    return tk;
  }

  // A task starts on this thread while `outer` waits in a join here: the
  // join's next strand may start only after it ends (end_child sets lent_end).
  static void lend(frame& outer) noexcept {
    outer.lent = true;
    outer.lent_end = 0;
  }

  // ---- spawn, child side ---------------------------------------------------------
  // `c` becomes the running frame of this thread. Whatever this thread was
  // running is suspended: time spent in the child is not its work.
  static void begin_child(frame& c, spawn_token& tk, const site& where) noexcept {
    frame* outer = current();
    if (!tk.target) {
      c.sess = nullptr;
      if (outer)
        misuse(outer->sess, where,
               "spawn_scope opened with no spawn point (the token is empty or was already used); the "
               "task is not measured");
      return;
    }
    session* s = tk.target->owner_session();
    // One clock reading ends the outer strand and starts the child's; none when
    // the child runs at once where it was spawned, with nothing in between: it
    // starts at the spawn's reading.
    std::uint64_t t = 0;
    bool have_t = false, at_once = false;
    if (outer && outer->state == run_state::running) {
      // (Readings are distinct where they are shared: a strand that starts at
      // `spawned_at` is the spawner's continuation, or this child's.)
      if (tk.at_once && outer->fuse && outer->strand_start == tk.spawned_at && tk.spawned_at != 0) {
        t = tk.spawned_at;
        have_t = true;
        at_once = true;
      } else {
        t = now(*outer);
        have_t = outer->kind == s->kind;
        close_strand<close_child_begin>(*outer, t);
      }
      outer->state = run_state::suspended;
    } else if (outer) {
      lend(*outer);
    }
    start_task<Observers>(c, s, outer, tk, where);
    current() = &c;
    if (at_once) {
      start_strand<open_child_at_once>(c, t);
    } else {
      start_strand<open_child>(c, have_t ? t : now(c));
    }
  }

  static void end_child(frame& c) noexcept {
    if (!c.sess) return;
    const std::uint64_t t = now(c);
    bool on_this_thread = true;
    if (FORKSCALE_DETAIL_UNLIKELY(current() != &c || c.open_guards != 0)) on_this_thread = misplaced_end(c);
    if (c.state == run_state::running) close_strand<close_child_end>(c, t);
    // Children the task left unjoined belong to its invocation: finished ones
    // merge now; while some still run, its end waits with them
    // (end_with_children_running, tasks.hpp).
    join_set* left = c.sync_block != nullptr ? merge_finished_children<Observers>(c) : nullptr;
    const join_source from = Observers::task_source(c);
    if (FORKSCALE_DETAIL_LIKELY(left == nullptr)) {
      const path_prof out = Observers::task_ended(c);
      join_set::report(c.report_to, c.totals, out, from, t, Observers::task_pending(c));
    } else {
      end_with_children_running<Observers>(c, left, from);
    }
    c.totals.what_if = nullptr;                              // report() took it
    if (FORKSCALE_DETAIL_UNLIKELY(!on_this_thread)) return;  // leave this thread's frames alone
    frame* outer = c.outer;
    current() = outer;
    if (outer && outer->state == run_state::suspended) {
      outer->state = run_state::running;
      start_strand<open_after_child>(*outer, outer->kind == c.kind ? t : now(*outer));
    } else if (outer && outer->kind == c.kind) {
      outer->lent_end = t;  // a task run inside a join that `outer` waits in
    }
  }

  // Returns whether `c` is among this thread's frames (then the frames opened
  // after it are abandoned with it).
  FORKSCALE_DETAIL_NOINLINE static bool misplaced_end(frame& c) noexcept {
    bool here = current() == &c;
    if (!here) {
      here = among_frames(current(), c);
      misuse(c.sess, c.where,
             here ? "spawn_scope closed while another task scope opened after it on this thread is still "
                    "open (guards closed out of order)"
                  : "spawn_scope closed on a thread that did not open it (an untied task that "
                    "migrated?); this thread's frames are left as they are");
    }
    if (c.open_guards != 0)
      misuse(c.sess, c.where,
             "task ended with " + std::to_string(c.open_guards) +
                 " guard(s) still open in it (guards closed out of order)");
    return here;
  }

  // Whether `c` is `top` or a frame under it (through `outer`). The walk ends on
  // a cycle (which only misuse can make): the tortoise moves every second step.
  static bool among_frames(const frame* top, const frame& c) noexcept {
    const frame* slow = top;
    bool odd = false;
    for (const frame* f = top; f; f = f->outer) {
      if (f == &c) return true;
      if (f->outer == slow) return false;  // a cycle that does not hold `c`
      if (odd) slow = slow->outer;
      odd = !odd;
    }
    return false;
  }

  // ---- a task leaves its thread, and resumes on any ------------------------------
  // OpenMP's untied tasks: at a task scheduling point the runtime may suspend the
  // task and resume it later on another thread. `c` and the frames opened after
  // it on this thread stop running here: the open strand ends, `c` is unhooked
  // from the frame it was opened on, and that frame runs again. Returns the
  // innermost of the frames taken away, for resume_task; null (nothing done)
  // when `c` is not among this thread's frames.
  static frame* suspend_task(frame& c) noexcept {
    frame* top = current();
    if (!top || !among_frames(top, c)) return nullptr;
    const std::uint64_t t = now(*top);
    if (top->state == run_state::running) {
      close_strand<close_split>(*top, t);
      top->state = run_state::suspended;
    }
    frame* outer = c.outer;
    c.outer = nullptr;
    current() = outer;
    if (outer && outer->state == run_state::suspended) {
      outer->state = run_state::running;
      start_strand<open_after_child>(*outer, outer->kind == top->kind ? t : now(*outer));
    }
    return top;
  }

  // `c`, suspended with `top` its innermost frame, runs again on this thread:
  // what this thread was running is suspended, as for a child (begin_child).
  static void resume_task(frame& c, frame& top) noexcept {
    frame* outer = current();
    std::uint64_t t = 0;
    bool have_t = false;
    if (outer && outer->state == run_state::running) {
      t = now(*outer);
      have_t = outer->kind == top.kind;
      close_strand<close_child_begin>(*outer, t);
      outer->state = run_state::suspended;
    } else if (outer) {
      lend(*outer);
    }
    c.outer = outer;
    current() = &top;
    if (top.state == run_state::suspended) {
      top.state = run_state::running;
      start_strand<open_child>(top, have_t ? t : now(top));
    }
  }

  // ---- sync ----------------------------------------------------------------------
  // Before the library's join blocks: the strand ends; time spent blocked is not
  // work (tasks this thread runs meanwhile open frames of their own).
  static void begin_sync(sync_state& st, const site& where) noexcept {
    frame* f = current();
    if (!f) return;
    if (FORKSCALE_DETAIL_UNLIKELY(f->state != run_state::running)) {
      misuse(f->sess, where, "sync_point opened inside another sync_point of the same task");
      return;
    }
    const std::uint64_t t = now(*f);
    close_strand<close_sync>(*f, t);
    f->state = run_state::blocked;
    f->lent = false;
    st.began = t;
    st.depth = ++f->open_guards;
    st.task = f;
  }

  // After the join returns: the children's path values merge into the task, and
  // a new strand starts. `j` is the set the join waited for (a task group's or a
  // join handle's, null when nothing was ever spawned into it); `own_block`
  // means the task's own sync block instead. A join that cannot have waited
  // after the last reading on this thread — the one that ended the task's
  // strand, or the end of the last task the join ran here meanwhile — because
  // every child it takes had ended by then, starts the next strand at that
  // reading (frame::fuse_join); only a join that may have waited reads the clock.
  static void end_sync(sync_state& st, join_set* j, bool own_block, const site& where) noexcept {
    frame* f = st.task;
    if (!f) return;
    if (FORKSCALE_DETAIL_UNLIKELY(current() != f || f->open_guards != st.depth))
      close_out_of_order(f, st.depth, where, "sync_point");
    if (own_block) j = f->sync_block;
    std::uint64_t last = 0;  // the reading the next strand may start at (0: a reading of its own)
    if (f->fuse_join) last = f->lent ? f->lent_end : st.began;
    if (j) {
      join_contents c = j->take();
      if (!c.quiet) {  // (a quiet join took nothing: no path to compare, nothing to add)
        if (c.running != 0 || c.last_end > last) last = 0;
        Observers::join_taken(*f, c);
        f->totals.join(c.totals);
        if (FORKSCALE_DETAIL_UNLIKELY(c.running != 0)) incomplete_join(f, c.running, where);
      }
      Observers::join_done(*f, c, &where);
    }
    ++f->totals.syncs;
    if (f->open_guards >= st.depth) f->open_guards = st.depth - 1;
    f->state = run_state::running;
    start_strand<open_after_sync>(*f, last != 0 ? last : now(*f));
  }

  // ---- call sites ----------------------------------------------------------------
  // A call is a sync scope, as a Cilk function is: a plain sync_point inside it
  // joins only the children spawned inside it, never its caller's; children it
  // leaves unjoined pass to the enclosing scope when it returns. With `scope`
  // false the call only counts (OpenMP: a taskwait inside a called function
  // waits for every child of the task, the caller's too).
  static void begin_call(call_state& cs, bool scope, const site& where) noexcept {
    frame* f = current();
    if (!f) return;
    cs.task = f;
    ++f->totals.calls;
    cs.depth = ++f->open_guards;
    if (scope) {
      cs.caller_block = f->sync_block;
      f->sync_block = nullptr;
    }
    Observers::template call_opened<basic_engine>(*f, cs, where);
  }

  static void end_call(call_state& cs, bool scope, const site& where) noexcept {
    frame* f = cs.task;
    if (!f) return;
    if (FORKSCALE_DETAIL_UNLIKELY(current() != f || f->open_guards != cs.depth))
      close_out_of_order(f, cs.depth, where, "call_site");
    if (f->open_guards >= cs.depth) f->open_guards = cs.depth - 1;
    Observers::template call_closed<basic_engine>(*f, cs);
    if (!scope) return;
    join_set* inner = f->sync_block;
    f->sync_block = cs.caller_block;
    if (inner) hand_on_call_block<Observers>(*f, inner);
  }

  // ---- what-if regions -----------------------------------------------------------
  // The guard's place among the task's guards; what it does is the observers'.
  static void begin_what_if(what_if_state& ws, const site& where) noexcept {
    frame* f = current();
    if (!f) return;
    bool failed = false;
    const std::uint64_t bit = Observers::what_if_bit(*f, where, failed);
    if (failed) return;
    ws.task = f;
    ws.depth = ++f->open_guards;
    Observers::template what_if_opened<basic_engine>(*f, ws, bit);
  }

  static void end_what_if(what_if_state& ws, const site& where) noexcept {
    frame* f = ws.task;
    if (!f) return;
    if (FORKSCALE_DETAIL_UNLIKELY(current() != f || f->open_guards != ws.depth))
      close_out_of_order(f, ws.depth, where, "what_if_region");
    if (f->open_guards >= ws.depth) f->open_guards = ws.depth - 1;
    Observers::template what_if_closed<basic_engine>(*f, ws);
  }

  // ---- depend edges --------------------------------------------------------------
  // A `depend` edge P -> S is a join of P's end into S's start with no guard
  // (detail/ompt/depend.hpp). keep_path: the path value at the running point
  // of `f` (its open strand closed first, so that its cost is on the path),
  // kept for the successors; `task_end` says `f` is about to end, and the value
  // is the one it will report.
  static kept_path keep_path(frame& f, bool task_end) noexcept {
    split_strand(f);
    kept_path k;
    k.span = f.totals.span;
    k.burdened_span = f.totals.burdened_span;
    k.raw_span = f.totals.raw_span;
    Observers::path_kept(f, task_end, k);
    return k;
  }
  // The predecessors' kept values in `preds` join the running task's path (one
  // sync); at a task's start (`task_start`) its invocation starts after them.
  static void join_kept(join_set* preds, const site& where, bool task_start) noexcept {
    sync_state st;
    begin_sync(st, where);
    end_sync(st, preds, false, where);
    frame* f = current();
    if (task_start && f) Observers::task_restarted(*f);
  }

  // ---- labeled regions -----------------------------------------------------------
  // A region inside a measurement adds a row: what completes in this task between
  // its opening and its closing. Outside any measurement, a region is one.
  static void begin_region(region_state& rs, const std::string& label) {
    frame* f = current();
    rs.task = f;
    rs.node = intern_region(f->sess, f->region, label);
    split_strand(*f);
    Observers::region_opened(*f, rs);
    rs.at_open = f->totals;
    rs.saved = f->region;
    f->region = rs.node;
    rs.enclosing = f->open_regions;
    f->open_regions = &rs;
    rs.depth = ++f->open_guards;
  }

  // Returns the instance's totals (the report of a nested region). A region that
  // closes while regions opened inside it are still open (misuse, diagnosed)
  // closes them too, at the same moment, so that no row outgrows its parent;
  // their guards find them closed.
  static path_totals end_region(region_state& rs) {
    if (rs.closed_early) return rs.at_close;
    frame* f = rs.task;
    if (current() != f || f->open_guards != rs.depth) close_out_of_order(f, rs.depth, rs.where, "region");
    split_strand(*f);
    bool listed = false;
    for (region_state* r = f->open_regions; r && !listed; r = r->enclosing) listed = r == &rs;
    if (listed) {
      for (region_state* inner = f->open_regions; inner != &rs; inner = inner->enclosing) {
        inner->at_close = f->totals.since(inner->at_open);
        inner->closed_early = true;
        record_region(f->sess, inner->node, inner->at_close);
        Observers::region_closed(*f, *inner);
      }
      f->open_regions = rs.enclosing;
    }
    const path_totals d = f->totals.since(rs.at_open);
    record_region(f->sess, rs.node, d);
    Observers::region_closed(*f, rs);
    f->region = rs.saved;
    if (f->open_guards >= rs.depth) f->open_guards = rs.depth - 1;
    return d;
  }

  // A measurement's root frame starts running on this thread.
  static void begin_measurement(region_state& rs) noexcept {
    install_engine_hooks<Clock, Observers>();
    init_root<Observers>(rs.root, rs.owned.get(), rs.where);
    current() = &rs.root;
    Observers::measurement_started(*rs.owned);
    start_strand<open_child>(rs.root, now(rs.root));
  }

  // The measurement's root frame ends (misuse diagnosed); the caller builds the
  // report from it.
  static void end_measurement(region_state& rs) noexcept {
    session* s = rs.owned.get();
    if (current() != &rs.root)
      misuse(s, rs.where,
             "measurement ended while a task scope opened inside it is still open on this thread (guards "
             "closed out of order)");
    if (rs.root.open_guards != 0)
      misuse(s, rs.where, "measurement ended with " + std::to_string(rs.root.open_guards) + " guard(s) still open");
    if (rs.root.state == run_state::running) close_strand<close_split>(rs.root, now(rs.root));
    current() = nullptr;
  }

  // A guard closes while one opened after it is still open, or on another
  // thread. (When a guard opened before it has already closed early, that close
  // was the one diagnosed.)
  FORKSCALE_DETAIL_NOINLINE static void close_out_of_order(frame* f, unsigned depth, const site& where,
                                                           const char* what) noexcept {
    if (current() != f)
      misuse(f->sess, where,
             std::string(what) +
                 " closed on another thread or outside the task that opened it (guards closed out "
                 "of order)");
    else if (f->open_guards > depth)
      misuse(f->sess, where,
             std::string(what) + " closed while a guard opened after it is still open (guards closed out of order)");
  }
};

// The table the guards call the events through (hooks.hpp), and its installation
// when a measurement on `Clock` starts.
template <class Clock, class Observers>
inline constexpr engine_hooks engine_hook_table{
    &basic_engine<Clock, Observers>::spawn,       &basic_engine<Clock, Observers>::begin_child,
    &basic_engine<Clock, Observers>::end_child,   &basic_engine<Clock, Observers>::begin_sync,
    &basic_engine<Clock, Observers>::end_sync,    &basic_engine<Clock, Observers>::begin_call,
    &basic_engine<Clock, Observers>::end_call,    &basic_engine<Clock, Observers>::begin_what_if,
    &basic_engine<Clock, Observers>::end_what_if, &basic_engine<Clock, Observers>::keep_path,
    &basic_engine<Clock, Observers>::join_kept};

template <class Clock, class Observers>
void install_engine_hooks() noexcept {
  installed_engine_hooks<Clock>.store(&engine_hook_table<Clock, Observers>, std::memory_order_release);
  install_task_hooks();
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
