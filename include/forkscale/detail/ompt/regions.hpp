// detail/ompt/regions.hpp: parallel regions, their implicit tasks and barriers,
// and worksharing loops, as engine events (docs/ompt.md, "What maps to what").
//
// A parallel region: the encountering task's strand ends at parallel-begin and it
// is blocked (a sync opens) until parallel-end. The region runs in phases
// separated by its barriers; in each phase every thread's implicit task is one
// child of the encountering task, spawned in thread order by whichever thread
// of the team needs its token first, and a barrier joins them all (its end
// closes the sync and opens the next one). The last barrier's join is the
// region's end. A thread's implicit task ends its child when it reaches a
// barrier: what it does there is waiting, and the tasks it runs while it waits
// open frames of their own. libomp tells a worker that the region's last barrier
// is over only when the next region starts (parallel_data is then null), so
// nothing is done then.
//
// The encountering task's frame is used from any thread of the team: only under
// the team's lock, only between barriers' ends and never while its own thread
// runs it (it is blocked), with the thread's current frame set to it for the
// call and put back after (the engine reads the current frame of the thread).
#pragma once
#include <mutex>
#include <utility>

#include "../../config.hpp"
#include "../macro_scope.hpp"
#include "../observers/list.hpp"
#include "state.hpp"
#include "task_records.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace ompt {

template <class Clock>
struct team_events {
  using E = engine<Clock>;

  static void parallel_begin(ompt_data_t* encountering, ompt_data_t* parallel, unsigned requested, int flags,
                             const void* ra) {
    if (!parallel) return;
    parallel->ptr = nullptr;
    if (flags & ompt_parallel_league) return;  // teams: not modelled
    team* t = new_team();
    parallel->ptr = t;
    thread_notes& n = notes();
    t->outer_open = n.open_teams;
    n.open_teams = t;
    t->requested = requested;
    int outer_size = 0;
    ompt_data_t* outer = nullptr;
    if (status().get_parallel_info && status().get_parallel_info(0, &outer, &outer_size) >= 1)
      t->nested = outer_size > 1;
    // The program's own return address and source location, from the wrapper
    // of __kmpc_fork_call (adapters/ompt.hpp): libomp's `ra` is the wrapper's.
    const void* user_ra = n.fork_ra ? n.fork_ra : ra;
    const void* loc = n.fork_loc;
    n.fork_ra = n.fork_loc = nullptr;
    frame* e = E::current();
    if (!e || !e->sess) return;
    t->where = construct_site<Clock>(user_ra, loc, enclosing_function(record(encountering)));
    t->encountering = e;
    E::begin_sync(t->blocked, t->where);
    t->set = join_set::make(e->sess);
  }

  // The region that ends is the one this thread began last: libomp 14 passes
  // the team's own parallel_data after it has given the team back to its pool
  // (__kmp_join_call), and with nested parallelism another thread may already
  // have taken that team for a region of its own and stored its record there.
  // A null there is a region begun while the tool did not listen.
  static void parallel_end(ompt_data_t* parallel, int flags) {
    if (!parallel || !parallel->ptr || (flags & ompt_parallel_league)) return;
    thread_notes& n = notes();
    team* t = n.open_teams;
    if (!t) return;
    n.open_teams = t->outer_open;
    t->outer_open = nullptr;
    if (t->encountering) E::end_sync(t->blocked, t->set, false, t->where);
    free_team(t);
  }

  static void implicit_begin(ompt_data_t* parallel, ompt_data_t* task, unsigned size, unsigned index, int flags) {
    if (!task) return;
    if (flags & ompt_task_initial) {
      record(task);
      return;
    }
    task_record* r = new_task(task_kind::implicit_task);
    task->ptr = r;
    team* t = parallel ? static_cast<team*>(parallel->ptr) : nullptr;
    r->region = t;
    r->index = index;
    if (!t) return;
    r->where = t->where;
    if (t->nested && size == 1 && t->requested > 1)
      say_once(notice::nested_off,
               "nested parallel region at " + describe_where(t->where) +
                   " ran with one thread (nested parallelism is off: OMP_MAX_ACTIVE_LEVELS is 1, libomp's "
                   "default); forkscale measures it as it ran, as a team of one (set OMP_MAX_ACTIVE_LEVELS=2 "
                   "to measure nested teams)");
    if (t->encountering) begin_segment(*r, *t, size);
  }

  static void implicit_end(ompt_data_t* task) {
    if (!task || !task->ptr) return;
    task_record* r = static_cast<task_record*>(task->ptr);
    task->ptr = nullptr;
    if (r->kind == task_kind::implicit_task) end_segment(*r);  // a region with no last barrier (one thread)
    free_task(r);
  }

  // A barrier outside any parallel region (an orphaned `for` or `barrier` in an
  // initial task) joins the initial task's children: every task of its
  // implicit one-thread team is done there.
  static void barrier_begin(task_record* r, const void* ra) {
    if (!r) return;
    if (r->kind == task_kind::initial) {
      frame* f = E::current();
      if (!f || !f->sess || r->waiting) return;
      if (r->loop && r->loop->open) loop_end(r);
      E::begin_sync(r->wait, site_for<Clock>(ra, enclosing_function(r)));
      r->waiting = true;
      return;
    }
    if (r->kind == task_kind::implicit_task) end_segment(*r);
  }

  // `parallel` is null after the region's last barrier.
  static void barrier_end(task_record* r, ompt_data_t* parallel, const void* ra) {
    if (r && r->kind == task_kind::initial && r->waiting) {
      r->waiting = false;
      E::end_sync(r->wait, nullptr, true, site_for<Clock>(ra, enclosing_function(r)));
      return;
    }
    if (!r || r->kind != task_kind::implicit_task || !parallel || !r->region || !r->region->encountering) return;
    ++r->phase;
    begin_segment(*r, *r->region, r->region->size);
  }

  // ---- worksharing loops and sections ----------------------------------------------
  // A statically scheduled thread's share is one chunk (the compiled code walks
  // it without calling the runtime); a dynamic or guided loop's chunks come one
  // at a time from __kmpc_dispatch_next_* (adapters/ompt.hpp), since libomp 14
  // does not report ompt_callback_dispatch. Each chunk is a child of the
  // implicit task, joined with its other children: by the barrier after the loop
  // (or the next one, after `nowait`), or by a taskwait of the implicit task —
  // which in OpenMP also waits for the tasks the loop's body created, handed on
  // to it when their chunk ends.
  static void loop_begin(task_record* r, const void* ra) {
    if (!r) return;
    loop_state& l = loop_of(*r);
    thread_notes& n = notes();
    const void* dispatch = n.dispatch_ra;
    n.dispatch_ra = nullptr;
    l.outer = n.loop;
    n.loop = &l;
    l.open = false;
    frame* f = E::current();
    if (!f || !f->sess) return;
    l.where = site_for<Clock>(dispatch ? dispatch : ra, enclosing_function(r));
    l.open = true;
    l.dynamic = dispatch != nullptr;
    l.chunk_open = false;
    if (!l.dynamic) open_chunk(l);
  }

  static void loop_end(task_record* r) {
    if (!r || !r->loop) return;
    loop_state& l = *r->loop;
    thread_notes& n = notes();
    if (n.loop == &l) n.loop = l.outer;
    if (!l.open) return;
    l.open = false;
    if (l.chunk_open) close_chunk(l);
  }

  // Around the runtime's __kmpc_dispatch_next_*: the chunk in progress ends when
  // its thread asks for the next one, and a chunk handed out starts a child.
  template <class Next>
  static int dispatch_next(Next&& next) {
    loop_state* l = notes().loop;
    if (l && l->open && l->dynamic && l->chunk_open) close_chunk(*l);
    const int more = next();
    if (more && l && notes().loop == l && l->open && l->dynamic) open_chunk(*l);
    return more;
  }

 private:
  // The thread's implicit task starts its child for its current phase.
  static void begin_segment(task_record& r, team& t, unsigned size) {
    spawn_token tk;
    {
      std::lock_guard<std::mutex> g(t.m);
      if (!t.made || t.phase < r.phase) make_phase(t, r.phase, size);
      if (r.index < t.tokens.size()) tk = std::move(t.tokens[r.index]);
    }
    if (!tk) return;
    E::begin_child(r.body, tk, t.where);
    r.segment_open = true;
  }

  static void end_segment(task_record& r) {
    if (r.loop && r.loop->open) loop_end(&r);
    if (!r.segment_open) return;
    r.segment_open = false;
    E::end_child(r.body);
    if (r.children) r.children->clear();  // the barrier joins every child
  }

  // Under t.m: join the phase that ended (if any), spawn the next one's children.
  static void make_phase(team& t, unsigned phase, unsigned size) {
    frame*& cur = E::current();
    frame* saved = cur;
    cur = t.encountering;
    if (t.made) {
      E::end_sync(t.blocked, t.set, false, t.where);
      E::begin_sync(t.blocked, t.where);
    }
    t.size = size;
    t.tokens.clear();
    t.tokens.reserve(size);
    for (unsigned i = 0; i < size; ++i) t.tokens.push_back(E::spawn(t.set, t.where, backend_bit(backend::openmp)));
    t.phase = phase;
    t.made = true;
    cur = saved;
  }

  static void open_chunk(loop_state& l) {
    spawn_token tk = E::spawn(nullptr, l.where, backend_bit(backend::openmp));
    E::begin_child(l.chunk, tk, l.where);
    l.chunk_open = true;
  }
  static void close_chunk(loop_state& l) {
    l.chunk_open = false;
    E::end_child(l.chunk);
  }
};

}  // namespace ompt
}  // namespace detail
FORKSCALE_NAMESPACE_END
