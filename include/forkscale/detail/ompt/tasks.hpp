// detail/ompt/tasks.hpp: explicit tasks, taskwait, taskgroup and task
// dependences, as engine events — the mapping of the annotated adapter
// (adapters/openmp.hpp, docs/openmp.md), driven by OMPT callbacks instead of
// guards:
//  - task-create: a spawn in the creating task (into the innermost taskgroup it
//    opened, if any); the task's frame opens when the runtime first schedules
//    it, on the thread that runs it, and closes when it completes. Undeferred
//    and included tasks are scheduled at once on the creating thread: the same
//    dag, as in the adapter.
//  - taskwait: a sync of the task's own children, then of each taskgroup the
//    task opened that got children since its last join.
//  - taskgroup: a join set opened at sync-region-begin; its wait is the sync.
//  - depend: detail/ompt/depend.hpp. libomp hands the dependences of
//    `task if(0) depend(...)` (and of `taskwait depend(...)`) to a stand-in task
//    flagged ompt_task_taskwait that the encountering task waits for: there the
//    encountering task joins the predecessors, and the undeferred task created
//    right after takes the stand-in's place for later siblings.
#pragma once
#include <vector>

#include "../../config.hpp"
#include "../macro_scope.hpp"
#include "../observers/list.hpp"
#include "depend.hpp"
#include "state.hpp"
#include "task_records.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace ompt {

template <class Clock>
struct task_events {
  using E = engine<Clock>;

  static void task_create(ompt_data_t* encountering, ompt_data_t* task, int flags, int has_dependences,
                          const void* ra) {
    if (!task) return;
    if (flags & (ompt_task_initial | ompt_task_implicit)) {
      record(task);
      return;
    }
    task->ptr = nullptr;
    if (flags & ompt_task_target) return;
    task_record* parent = record(encountering);
    const bool stand_in = (flags & ompt_task_taskwait) != 0;
    // The source location noted by the wrapper of __kmpc_omp_task_alloc
    // (adapters/ompt.hpp), for the task allocated last on this thread; a
    // stand-in leaves it to the task it stands in for.
    thread_notes& n = notes();
    const void* loc = n.task_loc;
    if (!stand_in) n.task_loc = nullptr;
    task_record* r = new_task(stand_in ? task_kind::wait_stand_in : task_kind::explicit_task);
    if (!stand_in && n.untied_record_slot) {  // the untied task allocated last: its parts find it there
      if (flags & ompt_task_untied) *n.untied_record_slot = r;
      n.untied_record_slot = nullptr;
    }
    if (FORKSCALE_DETAIL_UNLIKELY(stand_in)) {
      r->outer_stand_in = n.stand_ins;  // (not in task->ptr: see thread_notes)
      n.stand_ins = r;
      n.stand_in_data = task;
    } else {
      task->ptr = r;
    }
    r->parent = parent;
    r->untied = (flags & ompt_task_untied) != 0;
    frame* f = E::current();
    if (!f || !f->sess || !parent) return;
    r->where = n.taskloop_ra ? construct_site<Clock>(n.taskloop_ra, n.taskloop_loc, enclosing_function(parent))
                             : construct_site<Clock>(ra, loc, enclosing_function(parent));
    if (stand_in) return;
    if (FORKSCALE_DETAIL_UNLIKELY(parent->stand_in != nullptr)) adopt_stand_in(*parent, *r, flags, has_dependences);
    join_set* group = nullptr;
    if (!parent->groups.empty() && parent->groups.back().opened_by == f && parent->groups.back().set) {
      group = parent->groups.back().set;
      ++parent->groups.back().spawned;
    }
    r->token = E::spawn(group, r->where, backend_bit(backend::openmp));
    // An undeferred task with nothing to wait for runs at once on this thread:
    // where nothing happens in between, it starts at the spawn's reading.
    if ((flags & ompt_task_undeferred) && !has_dependences) r->token.at_once = true;
  }

  static void dependences(ompt_data_t* task, const ompt_dependence_t* deps, int count) {
    task_record* r = task ? static_cast<task_record*>(task->ptr) : nullptr;
    if (!r && task && task == notes().stand_in_data) r = notes().stand_ins;
    frame* f = E::current();
    if (!r || !r->parent || !f || !f->sess || count <= 0) return;
    task_record& p = *r->parent;
    if (!p.children) p.children = new depend::tracker;
    // An initial task outlives measurements: siblings measured by an earlier one
    // are no predecessors of this one's tasks.
    if (p.children_session != f->sess) p.children->clear();
    p.children_session = f->sess;
    if (!r->node) r->node = depend::make_node();
    static thread_local std::vector<depend::node*> preds;
    for (int i = 0; i < count; ++i) {
      depend::dep_type t;
      switch (deps[i].dependence_type) {
        case ompt_dependence_type_in:
          t = depend::dep_type::in;
          break;
        case ompt_dependence_type_out:
          t = depend::dep_type::out;
          break;
        case ompt_dependence_type_inout:
          t = depend::dep_type::inout;
          break;
        case ompt_dependence_type_mutexinoutset:
          t = depend::dep_type::mutexinoutset;
          break;
        case ompt_dependence_type_inoutset:
          t = depend::dep_type::inoutset;
          break;
        default:
          continue;  // source/sink (doacross loops): not modelled
      }
      p.children->add(r->node, deps[i].variable.ptr, t, preds);
    }
    depend::connect_all(preds, r->node, r->preds, f->sess);
  }

  // prior_task_status says what became of the task that ran on this thread
  // (OpenMP 5.1, §4.5.2.10); next is the task that runs on it now. A task the
  // runtime starts here opens its frame on this thread's current one. An untied
  // task that leaves its thread unfinished (ompt_task_switch or ompt_task_yield,
  // for a task that is already running: with clang and libomp, at the end of
  // each of its parts) takes its frames with it, and puts them back on whichever
  // thread resumes it.
  static void schedule(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) {
    task_record* p = prior ? static_cast<task_record*>(prior->ptr) : nullptr;
    task_record* n = next ? static_cast<task_record*>(next->ptr) : nullptr;
    if (FORKSCALE_DETAIL_UNLIKELY(status == ompt_taskwait_complete) && !p && prior && prior == notes().stand_in_data &&
        notes().stand_ins) {
      task_record* s = notes().stand_ins;  // the innermost wait ends first
      notes().stand_ins = s->outer_stand_in;
      s->outer_stand_in = nullptr;
      end_stand_in(*prior, *s);
      return;
    }
    const bool n_explicit = n && n->kind == task_kind::explicit_task;
    if (p) {
      switch (status) {
        case ompt_task_complete:
        case ompt_task_cancel:
          end_task(*prior, *p, true);
          break;
        case ompt_task_detach:
          end_task(*prior, *p, false);
          break;
        case ompt_task_late_fulfill:
          end_task(*prior, *p, true);
          break;
        case ompt_taskwait_complete:
          if (p->kind == task_kind::wait_stand_in) end_stand_in(*prior, *p);
          break;
        default:  // ompt_task_switch, ompt_task_yield, ompt_task_early_fulfill
          // (also when the next task is new: it may be a task of the queue, not
          // a child run in place, and the untied task's next part may resume on
          // another thread while it runs; a child run in place resumes it here)
          if (FORKSCALE_DETAIL_UNLIKELY(p->untied) && p->started && !p->ended && !p->suspended) suspend(*p);
          break;
      }
    }
    if (!n_explicit) return;
    if (!n->started) {
      start_task(*n);
    } else if (FORKSCALE_DETAIL_UNLIKELY(n->suspended)) {
      resume(*n);
    }
  }

  // One part of untied task `r` returned on this thread (adapters/ompt.hpp
  // calls each part through a wrapper): when the task did not leave the thread
  // in it (it queued no next part), the task's body is over, and it ends here.
  // libomp counts an untied task's parts in flight and reports the task
  // complete from the thread whose part brings the count to zero — not always
  // this one (the thread that queued this part may return from its own later),
  // and then this thread would hear nothing of the end.
  static void part_returned(task_record* r, bool left) {
    if (!r || left || !r->started || r->ended || r->suspended || !r->body.sess || E::current() != &r->body) return;
    end_task_body(*r);
  }

  // A task discarded by cancellation never runs: its spawn counts as empty.
  static void discarded(ompt_data_t* task) {
    task_record* r = task ? static_cast<task_record*>(task->ptr) : nullptr;
    if (!r || r->kind != task_kind::explicit_task || r->started) return;
    if (r->node) depend::publish(r->node, depend::snapshot{});
    task->ptr = nullptr;
    free_task(r);  // drop_unrun: the engine's diagnostic for a task that never ran
  }

  // ---- taskwait and taskgroup ------------------------------------------------------
  static void taskwait_begin(task_record* r, const void* ra) {
    frame* f = E::current();
    if (!r || !f || !f->sess || r->waiting) return;
    depend::drop(r->stand_in);  // a stand-in is taken only by the task created right after it
    r->stand_in = nullptr;
    r->wait_where = site_for<Clock>(ra, enclosing_function(r));
    E::begin_sync(r->wait, r->wait_where);
    r->waiting = true;
  }

  static void taskwait_end(task_record* r, const void*) {
    if (!r || !r->waiting) return;
    r->waiting = false;
    const site where = r->wait_where;  // taskwait_begin's: the same code pointer
    E::end_sync(r->wait, nullptr, true, where);
    const frame* f = E::current();
    for (auto g = r->groups.rbegin(); g != r->groups.rend() && g->opened_by == f; ++g) {
      if (g->spawned == 0 || !g->set) continue;
      g->spawned = 0;
      sync_state st;
      E::begin_sync(st, where);
      E::end_sync(st, g->set, false, where);
    }
    if (r->children) r->children->clear();
  }

  static void group_begin(task_record* r, const void* ra) {
    if (!r) return;
    open_group g;
    g.opened_by = E::current();
    if (g.opened_by && g.opened_by->sess) {
      g.set = join_set::make(g.opened_by->sess);
      g.where = site_for<Clock>(ra, enclosing_function(r));
    }
    r->groups.push_back(g);
  }

  // The taskgroup's wait begins: its strand ends (sync_region_wait).
  static void group_wait_begin(task_record* r) {
    if (!r || r->groups.empty() || r->waiting || !r->groups.back().set || E::current() != r->groups.back().opened_by)
      return;
    E::begin_sync(r->wait, r->groups.back().where);
    r->waiting = true;
  }

  static void group_end(task_record* r) {
    if (!r || r->groups.empty()) return;
    const open_group g = r->groups.back();
    r->groups.pop_back();
    if (!g.set) return;
    if (!r->waiting && E::current() == g.opened_by) {
      E::begin_sync(r->wait, g.where);
      r->waiting = true;
    }
    if (r->waiting) {
      r->waiting = false;
      E::end_sync(r->wait, g.set, false, g.where);
    }
    g.set->release(nullptr);
  }

 private:
  static void start_task(task_record& r) {
    r.started = true;
    // Tasks this one creates are not the taskloop's, even when it runs inside
    // the runtime's __kmpc_taskloop (an undeferred chunk).
    r.outer_taskloop_ra = notes().taskloop_ra;
    notes().taskloop_ra = nullptr;
    if (!r.token) return;
    E::begin_child(r.body, r.token, r.where);
    depend::join_predecessors<Clock>(r.preds, r.where, true);
  }

  // An untied task leaves this thread between two of its parts (its frames are
  // kept in the record), and resumes on this one.
  static void suspend(task_record& r) {
    if (notes().part_task == &r) notes().part_left = true;
    r.suspended = true;
    notes().taskloop_ra = r.outer_taskloop_ra;
    r.resume_top = r.body.sess ? E::suspend_task(r.body) : nullptr;
  }
  static void resume(task_record& r) {
    r.suspended = false;
    r.outer_taskloop_ra = notes().taskloop_ra;
    notes().taskloop_ra = nullptr;
    if (r.resume_top) E::resume_task(r.body, *r.resume_top);
    r.resume_top = nullptr;
  }

  static void end_task(ompt_data_t& data, task_record& r, bool release_record) {
    if (r.kind != task_kind::explicit_task) {
      // A task created while the tool did not listen (before the first
      // measurement registered the callbacks, or with set_enabled(false)) got
      // its record on first use (record()): it goes with the task.
      if (r.kind == task_kind::initial && release_record) {
        data.ptr = nullptr;
        free_task(&r);
      }
      return;
    }
    if (r.started && !r.ended) end_task_body(r);
    if (!release_record) return;
    data.ptr = nullptr;
    free_task(&r);
  }

  static void end_task_body(task_record& r) {
    r.ended = true;
    notes().taskloop_ra = r.outer_taskloop_ra;
    if (r.node) {
      if (r.body.sess && E::current() == &r.body) {
        depend::end_predecessor<Clock>(r.node, r.body);
      } else {
        depend::publish(r.node, depend::snapshot{});
      }
    }
    E::end_child(r.body);
  }

  // The encountering task waited for the stand-in's predecessors.
  static void end_stand_in(ompt_data_t& data, task_record& r) {
    task_record* parent = r.parent;
    frame* f = E::current();
    if (parent && f && f->sess && r.node) {
      depend::join_predecessors<Clock>(r.preds, r.where, false);
      depend::publish(r.node, depend::take<Clock>(*f, false));
      depend::drop(parent->stand_in);
      parent->stand_in = r.node;
      r.node = nullptr;
    }
    data.ptr = nullptr;
    free_task(&r);
  }

  // The first task created after a stand-in: an undeferred task without
  // dependences of its own is the task the stand-in waited for.
  static void adopt_stand_in(task_record& parent, task_record& r, int flags, int has_dependences) {
    depend::node* n = parent.stand_in;
    parent.stand_in = nullptr;
    if ((flags & ompt_task_undeferred) && !has_dependences && !r.node) {
      depend::reopen(n);
      r.node = n;
      return;
    }
    depend::drop(n);
  }
};

}  // namespace ompt
}  // namespace detail
FORKSCALE_NAMESPACE_END
