// detail/engine.hpp: the per-event code. Each event is a few additions, one clock
// reading and, where a child finishes or a join completes, one uncontended lock on
// the join set involved. No global lock is taken on any of these paths.
#pragma once
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../macro_scope.hpp"
#include "state.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// A child (or a forwarded join set) is done: fold its totals into `j` and drop its
// reference. The last user of a join set whose owner has let go passes the
// accumulated totals on to where the owner's own totals went, and so on upward.
// The path profile `p` goes with the totals: the join keeps the winning path's.
inline void fold_into(join_set* j, path_totals t, path_prof p) noexcept {
  while (j) {
    j->lock.lock();
    const path_prof loser = keep_longer(j->pacc, j->acc.pos, p, t.pos);
    j->acc.join(t);
    ++j->finished;
    const bool last = --j->outstanding == 0;
    j->lock.unlock();
    release_prof(loser.node);
    if (!last) return;
    join_set* next = j->forward;
    t = j->acc;
    j->acc.wi = nullptr;
    p = j->pacc;
    j->pacc = path_prof{};
    delete_join_set(j);
    j = next;
  }
  release_prof(p.node);
  wi_release(t.wi);
}

// The owner of `j` lets go without joining. Children still running will report
// to `forward` (which must already count `j` as one of its own); with no forward,
// what they report is dropped.
inline void release_owner(join_set* j, join_set* forward) noexcept {
  j->lock.lock();
  j->forward = forward;
  j->outstanding += static_cast<std::int64_t>(j->unpublished) - join_set::owner_ref;
  j->unpublished = 0;
  const bool last = j->outstanding == 0;
  path_totals t = j->acc;
  path_prof p;
  if (last) {
    p = j->pacc;
    j->pacc = path_prof{};
    j->acc.wi = nullptr;
  }
  j->lock.unlock();
  if (last) {
    delete_join_set(j);
    if (forward) {
      fold_into(forward, t, p);
    } else {
      release_prof(p.node);
      wi_release(t.wi);
    }
  }
}

// Count one more child of `j` from a thread other than its owner (task groups).
inline void publish_child(join_set* j) noexcept {
  j->lock.lock();
  ++j->outstanding;
  j->lock.unlock();
}

// A spawned task was destroyed without ever running (a cancelled task group, a
// dropped callable): it reports nothing, but it must not keep its join waiting.
FORKSCALE_DETAIL_NOINLINE inline void drop_unrun(spawn_token& tk, const site& where = site{}) noexcept {
  join_set* j = tk.target;
  tk.target = nullptr;
  release_prof(tk.pp.node);
  tk.pp.node = nullptr;
  wi_release(tk.wi);
  tk.wi = nullptr;
  session* s = j->owner_session;
  misuse(s, where, "a task spawned here was destroyed without running (cancelled?); it counts as empty");
  j->lock.lock();
  const bool last = --j->outstanding == 0;
  j->lock.unlock();
  if (last) {
    join_set* next = j->forward;
    path_totals t = j->acc;
    j->acc.wi = nullptr;
    path_prof p = j->pacc;
    j->pacc = path_prof{};
    delete_join_set(j);
    if (next) {
      fold_into(next, t, p);
    } else {
      release_prof(p.node);
      wi_release(t.wi);
    }
  }
}

inline spawn_token::~spawn_token() {
  if (FORKSCALE_DETAIL_UNLIKELY(target != nullptr)) drop_unrun(*this);
  if (FORKSCALE_DETAIL_UNLIKELY(wi != nullptr)) wi_release(wi);
}

// At the end of a task: children it never joined are waited for by whoever joins
// the task itself (shape 5 of the design: tasks that outlive their spawner). If
// they are all done already their totals are simply merged.
// `out` is the task's path profile at its end; children merged here compete
// with it for the path.
inline void settle_pending(frame& f, path_prof* out = nullptr) noexcept {
  join_set* j = f.pending;
  if (!j) return;
  f.pending = nullptr;
  j->lock.lock();
  const std::int64_t remaining = j->remaining();
  if (remaining == 0) {
    const path_prof loser = out ? keep_longer(*out, f.t.pos, j->pacc, j->acc.pos) : j->pacc;
    j->pacc = path_prof{};
    f.t.join(j->acc);
    j->lock.unlock();
    release_prof(loser.node);
    delete_join_set(j);
    return;
  }
  j->lock.unlock();
  if (f.report_to) {
    publish_child(f.report_to);  // the forwarded set is one more child of report_to
    release_owner(j, f.report_to);
  } else {
    misuse(f.s, f.where,
           "the measurement ended while " + std::to_string(remaining) +
               " spawned task(s) had not finished; they are not counted");
    release_owner(j, nullptr);
  }
}

// A call scope ends: the children spawned inside it that no join inside it waited
// for join the enclosing scope's sync block — finished ones with their totals,
// running ones as one forwarded set.
inline void hand_on_call_block(frame& f, join_set* inner) noexcept {
  inner->lock.lock();
  const std::int64_t remaining = inner->remaining();
  const std::uint64_t finished = inner->finished;
  path_totals acc = inner->acc;  // owns acc.wi only where it is taken below
  inner->lock.unlock();
  if (remaining == 0 && finished == 0) {
    delete_join_set(inner);
    return;
  }
  join_set* outer = f.pending;
  if (!outer) outer = f.pending = new_join_set(f.s);
  if (remaining == 0) {
    path_prof p = inner->pacc;
    inner->pacc = path_prof{};
    inner->acc.wi = nullptr;
    delete_join_set(inner);
    outer->lock.lock();
    const path_prof loser = keep_longer(outer->pacc, outer->acc.pos, p, acc.pos);
    outer->acc.join(acc);
    outer->finished += finished;
    outer->lock.unlock();
    release_prof(loser.node);
    return;
  }
  ++outer->unpublished;  // the forwarded set counts as one child of the outer block
  release_owner(inner, outer);
}

}  // namespace detail

// The engine: one thread-local "current frame" per thread and per clock policy,
// and the events. All members are static; the template parameter fixes the clock.
template <class Clock>
struct basic_engine {
  using frame = detail::frame;
  using run_state = detail::frame::run_state;

  static frame*& current() noexcept {
    static thread_local frame* f = nullptr;
    return f;
  }

  static std::uint64_t now(const frame& f) noexcept { return Clock::now(f.kind); }

  // Ends the open strand of `f` at clock reading `t`: its cost (less the
  // compensation estimate) extends every path through `f` and adds to its work.
  static void close_strand(frame& f, std::uint64_t t) noexcept {
    const std::uint64_t raw = t > f.t0 ? t - f.t0 : 0;
    const std::uint64_t cost = raw > f.comp ? raw - f.comp : 0;
    if (FORKSCALE_DETAIL_UNLIKELY(f.wi_mask != 0)) {
      what_if_strand(f, raw, cost);
      return;
    }
    add_strand(f, raw, cost, raw, cost);
  }

  // A strand's cost: `wraw`/`wcost` (before/after compensation) to the work,
  // `rpath`/`path` to every path through `f`. They differ only when a measurement
  // assumes call sites faster.
  static void add_strand(frame& f, std::uint64_t wraw, std::uint64_t wcost, std::uint64_t rpath,
                         std::uint64_t path) noexcept {
    f.t.pos += path;
    f.t.bpos += path;
    f.t.rpos += rpath;
    f.t.work += wcost;
    f.t.subtracted += wraw - wcost;
    f.own_local += wcost;
    f.own_task += wcost;
    f.pp.u += path;
    f.pp.ut += path;
  }

  // A strand inside what-if regions, or of a measurement that assumes call sites
  // faster (what_if.hpp): the path cost may differ from the work cost, and the
  // regions' offsets and work grow.
  FORKSCALE_DETAIL_NOINLINE static void what_if_strand(frame& f, std::uint64_t raw, std::uint64_t cost) noexcept {
    const detail::wi_config& cfg = f.s->wi;
    std::uint64_t wraw = raw, wcost = cost, path = cost, rpath = raw;
    if (f.wi_mask & detail::wi_scaled_bit) {
      const auto P = static_cast<std::uint64_t>(cfg.assume_factor.p);
      const auto Q = (f.wi_mask & detail::wi_assumed_bit) ? static_cast<std::uint64_t>(cfg.assume_factor.q) : P;
      wraw = raw * P;
      wcost = cost * P;
      path = cost * Q;
      rpath = raw * Q;
    }
    const std::uint64_t regions = f.wi_mask & detail::wi_region_bits;
    if (regions) {
      detail::wi_add(f.t.wi, &cfg, regions, path);
      detail::record_wi_work(f.s, regions, wcost);
    }
    add_strand(f, wraw, wcost, rpath, path);
  }

  // ---- spawn, parent side --------------------------------------------------
  // The parent's strand ends; the child will start from the path lengths here; the
  // continuation edge carries the burden (Cilkview Fig. 13).
  static detail::spawn_token spawn(detail::join_set* group, const site& where) noexcept {
    detail::spawn_token tk;
    frame* f = current();
    if (!f) return tk;  // not measuring: the child will run unmeasured
    std::uint64_t t = 0;
    if (FORKSCALE_DETAIL_LIKELY(f->state == run_state::running)) {
      t = now(*f);
      close_strand(*f, t);
    }
    detail::join_set* j = group;
    if (j) {
      detail::publish_child(j);
    } else {
      j = f->pending;
      if (!j) j = f->pending = detail::new_join_set(f->s);
      ++j->unpublished;
    }
    tk.target = j;
    tk.region = f->region;
    tk.wi_mask = f->wi_mask;
    if (FORKSCALE_DETAIL_UNLIKELY(f->t.wi != nullptr)) tk.wi = detail::wi_copy(f->t.wi);
    tk.pos = f->t.pos;
    tk.bpos = f->t.bpos;
    tk.rpos = f->t.rpos;
    if (f->profile) profile_spawn(*f, tk, where);
    ++f->t.spawns;
    f->t.bpos += f->burden;
    if (f->state == run_state::running) f->t0 = t;
    return tk;
  }

  // The child's task id, its site and the spawner's path profile.
  static void profile_spawn(frame& f, detail::spawn_token& tk, const site& where) {
    const detail::site_step st = detail::site_step_for(f.ctx, where, site_kind::spawn);
    tk.id = detail::child_task_id(f.id, ++f.own_spawns);
    tk.ctx = st.next;
    tk.site = st.site;
    tk.flags = static_cast<unsigned char>(st.flags | detail::rec_task);
    tk.profile = true;
    tk.pp.u = f.pp.u;
    tk.pp.ut = f.pp.ut;
    tk.pp.node = detail::share_path(f);
  }

  // ---- spawn, child side ---------------------------------------------------
  // `c` becomes the running frame of this thread. Whatever this thread was running
  // is suspended: time spent in the child is not its work.
  static void begin_child(frame& c, detail::spawn_token& tk, const site& where) noexcept {
    frame* outer = current();
    if (!tk.target) {
      c.s = nullptr;
      if (outer)
        detail::misuse(outer->s, where,
                       "spawn_scope opened with no spawn point (the token is empty or was "
                       "already used); the task is not measured");
      return;
    }
    detail::session* s = tk.target->owner_session;
    // One clock reading ends the outer strand and starts the child's.
    std::uint64_t t = 0;
    bool have_t = false;
    if (outer && outer->state == run_state::running) {
      t = now(*outer);
      have_t = outer->kind == s->kind;
      close_strand(*outer, t);
      outer->state = run_state::suspended;
    }
    c.t = detail::path_totals{};
    c.t.pos = tk.pos;
    c.t.bpos = tk.bpos;
    c.t.rpos = tk.rpos;
    c.t.wi = tk.wi;
    tk.wi = nullptr;
    c.wi_mask = tk.wi_mask;
    c.comp = s->comp;
    c.burden = s->burden;
    c.kind = s->kind;
    c.state = run_state::running;
    c.guards = 0;
    c.outer = outer;
    c.s = s;
    c.pending = nullptr;
    c.report_to = tk.target;
    c.region = tk.region;
    c.where = where;
    c.profile = tk.profile;
    if (tk.profile) {
      c.id = tk.id;
      c.own_spawns = 0;
      c.own_local = 0;
      c.own_task = 0;
      c.pos0 = tk.pos;
      c.u0 = tk.pp.u;
      c.ut0 = tk.pp.ut;
      c.ctx = tk.ctx;
      c.inv_site = tk.site;
      c.inv_flags = tk.flags;
      c.rel_n = 0;
      c.credits = 0;
      c.pp = tk.pp;
      tk.pp.node = nullptr;
    }
    tk.target = nullptr;
    current() = &c;
    c.t0 = have_t ? t : now(c);
  }

  static void end_child(frame& c) noexcept {
    if (!c.s) return;
    const std::uint64_t t = now(c);
    bool on_this_thread = true;
    if (FORKSCALE_DETAIL_UNLIKELY(current() != &c || c.guards != 0))
      on_this_thread = misplaced_end(c);
    if (c.state == run_state::running) close_strand(c, t);
    detail::path_prof out;
    if (c.profile) {
      finish_task_profile(c);
      out = c.pp;
      out.key = c.id;
      out.node = detail::take_path(c);
    }
    detail::settle_pending(c, c.profile ? &out : nullptr);
    detail::fold_into(c.report_to, c.t, out);
    c.t.wi = nullptr;  // fold_into took it
    if (FORKSCALE_DETAIL_UNLIKELY(!on_this_thread)) return;  // leave this thread's frames alone
    frame* outer = c.outer;
    current() = outer;
    if (outer && outer->state == run_state::suspended) {
      outer->state = run_state::running;
      outer->t0 = outer->kind == c.kind ? t : now(*outer);
    }
  }

  // The task's own invocation record: on work now, on span with its path.
  static void finish_task_profile(frame& c) {
    detail::prof_record r{};
    r.site = c.inv_site;
    r.flags = c.inv_flags;
    r.work = c.t.work;
    r.span = static_cast<std::int64_t>(c.t.pos - c.pos0);
    r.local_work = c.own_local;
    r.local_span = static_cast<std::int64_t>(c.pp.u - c.u0);
    r.task_work = c.own_task;
    r.task_span = static_cast<std::int64_t>(c.pp.ut - c.ut0);
    c.pp.u = c.u0;
    c.pp.ut = c.ut0;
    detail::record_onwork(c.s, r);
    detail::append_record(c, r);
  }

  // Returns whether `c` is among this thread's frames (then the frames opened after
  // it are abandoned with it).
  FORKSCALE_DETAIL_NOINLINE static bool misplaced_end(frame& c) noexcept {
    bool here = current() == &c;
    if (!here) {
      for (frame* f = current(); f; f = f->outer) here = here || f == &c;
      detail::misuse(c.s, c.where,
                     here ? "spawn_scope closed while another task scope opened after it on this "
                            "thread is still open (guards closed out of order)"
                          : "spawn_scope closed on a thread that did not open it (an untied "
                            "task that migrated?); this thread's frames are left as they are");
    }
    if (c.guards != 0)
      detail::misuse(c.s, c.where,
                     "task ended with " + std::to_string(c.guards) +
                         " guard(s) still open in it (guards closed out of order)");
    return here;
  }

  // ---- sync --------------------------------------------------------------------
  // Before the library's join blocks: the strand ends; time spent blocked is not
  // work (tasks this thread runs meanwhile open frames of their own).
  static frame* begin_sync(unsigned& depth, const site& where) noexcept {
    frame* f = current();
    if (!f) return nullptr;
    if (FORKSCALE_DETAIL_UNLIKELY(f->state != run_state::running)) {
      detail::misuse(f->s, where, "sync_point opened inside another sync_point of the same task");
      return nullptr;
    }
    close_strand(*f, now(*f));
    f->state = run_state::blocked;
    depth = ++f->guards;
    return f;
  }

  // After the join returns: the children's totals merge into the task, and a new
  // strand starts. `j` is the join set the join waited for (a task group's or a
  // join handle's); null means the task's own sync block.
  static void end_sync(frame* f, detail::join_set* j, unsigned depth, const site& where) noexcept {
    if (!f) return;
    if (FORKSCALE_DETAIL_UNLIKELY(current() != f || f->guards != depth))
      close_out_of_order(f, depth, where, "sync_point");
    if (!j) j = f->pending;
    if (j) {
      j->lock.lock();
      const std::int64_t remaining = j->remaining();
      detail::path_prof taken = j->pacc;
      j->pacc = detail::path_prof{};
      const bool child_path = f->profile && detail::path_beats(j->acc.pos, taken.key, f->t.pos, f->id);
      f->t.join(j->acc);
      j->acc = detail::path_totals{};
      j->finished = 0;
      if (FORKSCALE_DETAIL_LIKELY(remaining == 0)) {
        j->outstanding = detail::join_set::owner_ref;
        j->unpublished = 0;
      }
      j->lock.unlock();
      if (child_path) {
        // The join's longest incoming path is a child's: the task's path becomes it.
        detail::drop_credits(*f);
        detail::release_prof(f->pp.node);
        f->rel_n = 0;
        f->pp.u = taken.u;
        f->pp.ut = taken.ut;
        f->pp.node = taken.node;
      } else {
        detail::release_prof(taken.node);
      }
      if (FORKSCALE_DETAIL_UNLIKELY(remaining != 0)) incomplete_join(f, remaining, where);
    }
    ++f->t.syncs;
    if (f->guards >= depth) f->guards = depth - 1;
    f->state = run_state::running;
    f->t0 = now(*f);
  }

  // Children that report after their join are merged by the task's next join (or
  // its end); the numbers of this join miss them, which the diagnostic says.
  FORKSCALE_DETAIL_NOINLINE static void incomplete_join(frame* f, std::int64_t remaining,
                                                        const site& where) noexcept {
    detail::misuse(f->s, where,
                   "sync_point ended while " + std::to_string(remaining) +
                       " spawned task(s) had not reported back (never ran, still running, or "
                       "not waited for by this join); this join does not include them");
  }

  // ---- call sites -----------------------------------------------------------------
  // A call is a sync scope, as a Cilk function is: a plain sync_point inside it joins
  // only the children spawned inside it, never its caller's. Children it leaves
  // unjoined pass to the enclosing scope when it returns.
  // With `scope` false the call only counts (OpenMP: a taskwait inside a called
  // function waits for every child of the task, the caller's too).
  // With site profiles on, the clock is read when the call opens and closes, so
  // that the strands inside belong to the call's invocation.
  static frame* begin_call(unsigned& depth, detail::join_set*& saved, bool scope,
                           detail::call_state& cs, const site& where) noexcept {
    frame* f = current();
    if (!f) return nullptr;
    ++f->t.calls;
    depth = ++f->guards;
    if (scope) {
      saved = f->pending;
      f->pending = nullptr;
    }
    std::uint64_t wi_new = 0;
    if (FORKSCALE_DETAIL_UNLIKELY(f->s->wi_calls)) wi_new = detail::wi_site_bits(f->s, where, true) & ~f->wi_mask;
    if ((f->profile || wi_new) && FORKSCALE_DETAIL_LIKELY(f->state == run_state::running)) {
      const std::uint64_t t = now(*f);
      close_strand(*f, t);
      f->t0 = t;
    }
    if (FORKSCALE_DETAIL_UNLIKELY(wi_new != 0)) {
      cs.wi_set = true;
      cs.wi_saved = f->wi_mask;
      f->wi_mask |= wi_new;
      if (wi_new & detail::wi_region_bits) detail::record_wi_entries(f->s, wi_new & detail::wi_region_bits);
    }
    if (f->profile) {
      const detail::site_step st = detail::site_step_for(f->ctx, where, site_kind::call);
      cs.ctx = f->ctx;
      cs.own_local = f->own_local;
      cs.pos0 = f->t.pos;
      cs.work0 = f->t.work;
      cs.u0 = f->pp.u;
      cs.site = st.site;
      cs.flags = st.flags;
      f->ctx = st.next;
      f->own_local = 0;
    }
    return f;
  }
  static void end_call(frame* f, unsigned depth, detail::join_set* saved, bool scope,
                       const detail::call_state& cs, const site& where) noexcept {
    if (!f) return;
    if (FORKSCALE_DETAIL_UNLIKELY(current() != f || f->guards != depth))
      close_out_of_order(f, depth, where, "call_site");
    if (f->guards >= depth) f->guards = depth - 1;
    if (((f->profile && cs.ctx) || cs.wi_set) && FORKSCALE_DETAIL_LIKELY(f->state == run_state::running)) {
      const std::uint64_t t = now(*f);
      close_strand(*f, t);
      f->t0 = t;
    }
    if (FORKSCALE_DETAIL_UNLIKELY(cs.wi_set)) f->wi_mask = cs.wi_saved;
    if (f->profile && cs.ctx) {
      detail::prof_record r{};
      r.site = cs.site;
      r.flags = cs.flags;
      r.work = f->t.work - cs.work0;
      r.span = static_cast<std::int64_t>(f->t.pos - cs.pos0);
      r.local_work = f->own_local;
      r.local_span = static_cast<std::int64_t>(f->pp.u - cs.u0);
      f->pp.u = cs.u0;
      f->ctx = cs.ctx;
      f->own_local = cs.own_local;
      detail::record_onwork(f->s, r);
      detail::append_record(*f, r);
    }
    if (!scope) return;
    detail::join_set* inner = f->pending;
    f->pending = saved;
    if (inner) detail::hand_on_call_block(*f, inner);
  }

  // A guard closes while one opened after it is still open, or on another thread.
  // (When a guard opened before it has already closed early, that close was the
  // one diagnosed.)
  FORKSCALE_DETAIL_NOINLINE static void close_out_of_order(frame* f, unsigned depth,
                                                           const site& where,
                                                           const char* what) noexcept {
    if (current() != f)
      detail::misuse(f->s, where,
                     std::string(what) + " closed on another thread or outside the task that "
                                         "opened it (guards closed out of order)");
    else if (f->guards > depth)
      detail::misuse(f->s, where,
                     std::string(what) + " closed while a guard opened after it is still open "
                                         "(guards closed out of order)");
  }
};

FORKSCALE_NAMESPACE_END
