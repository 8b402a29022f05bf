// detail/ompt/task_records.hpp: what the OMPT tool keeps per OpenMP task and per
// parallel region. In OMPT mode no frame can live on the program's stack: each
// task gets a record from a pool, found again through the ompt_data_t the
// runtime keeps for it (task_data->ptr, parallel_data->ptr).
#pragma once
#include <cstdint>
#include <mutex>
#include <vector>

#include "../../config.hpp"
#include "../../site.hpp"
#include "../engine/frame.hpp"
#include "../engine/join_set.hpp"
#include "../macro_scope.hpp"
#include "../util/pool.hpp"
#include "depend.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace ompt {

enum class task_kind : unsigned char {
  initial,        // an initial task (the program's, or a foreign thread's)
  implicit_task,  // a thread's share of a parallel region
  explicit_task,  // `task`, `taskloop`'s tasks, undeferred and included tasks alike
  wait_stand_in,  // libomp's stand-in for the wait of `task if(0) depend(...)` / `taskwait depend(...)`
};

// A taskgroup open in a task: the frame that was running when it began (spawns
// from that frame go into it, as the annotated adapter's group_context does)
// and the set its tasks report to.
struct open_group {
  const frame* opened_by = nullptr;
  join_set* set = nullptr;  // null outside a measurement
  std::uint64_t spawned = 0;
  site where;
};

// A worksharing loop (or `sections`) on one thread: each chunk the thread takes
// is a child of its implicit task (regions.hpp).
struct loop_state {
  frame chunk;
  bool open = false;
  bool dynamic = false;  // chunks come from __kmpc_dispatch_next_*
  bool chunk_open = false;
  site where;
  loop_state* outer = nullptr;      // the loop open on this thread around this one (nested regions)
  loop_state* next_free = nullptr;  // pool link
};

struct team;

// One OpenMP task.
struct task_record {
  task_kind kind = task_kind::explicit_task;
  bool started = false;
  bool ended = false;
  bool untied = false;          // may resume on another thread after a task scheduling point
  bool suspended = false;       // an untied task between two of its parts (tasks.hpp)
  frame* resume_top = nullptr;  // then: its innermost frame, taken off the thread it left
  frame body;                   // the task's frame; for an implicit task, its current segment
  spawn_token token;            // an explicit task's spawn, until it starts
  site where;
  task_record* parent = nullptr;  // the task that created it (explicit tasks)
  std::vector<open_group> groups;
  sync_state wait;  // an open taskwait or taskgroup wait
  site wait_where;  // the open taskwait's site (its end has the same code pointer)
  bool waiting = false;
  // Dependences: this task as a predecessor, its predecessors' ends, and the
  // dependences of its own children.
  depend::node* node = nullptr;
  join_set* preds = nullptr;
  depend::tracker* children = nullptr;
  const session* children_session = nullptr;  // the measurement `children` belongs to
  depend::node* stand_in = nullptr;           // a `task if(0) depend` stand-in waiting for its task
  // Implicit tasks.
  team* region = nullptr;
  unsigned index = 0;
  unsigned phase = 0;
  bool segment_open = false;
  loop_state* loop = nullptr;
  const void* outer_taskloop_ra = nullptr;  // the thread's taskloop note while this task runs
  task_record* outer_stand_in = nullptr;    // a stand-in: the one its thread waits in around it
  task_record* next_free = nullptr;         // pool link
};

// One parallel region. Its encountering task is blocked from parallel-begin to
// parallel-end; between two barriers ("a phase") each thread's implicit task
// runs as one child of it, spawned in thread order; a barrier joins them all.
struct team {
  frame* encountering = nullptr;  // null: the region is not measured
  sync_state blocked;
  std::mutex m;
  join_set* set = nullptr;  // the implicit tasks of the current phase
  std::vector<spawn_token> tokens;
  unsigned size = 0;
  unsigned phase = 0;
  bool made = false;  // tokens made for `phase`
  unsigned requested = 0;
  bool nested = false;  // inside another active parallel region
  site where;
  team* outer_open = nullptr;  // the region its encountering thread began before it, still open (regions.hpp)
  team* next_free = nullptr;   // pool link
};

template <class T>
T* take_pooled() {
  return object_cache<T>::local().take();
}
template <class T>
void give_back(T* p) noexcept {
  object_cache<T>::local().put(p);
}

inline task_record* new_task(task_kind k) {
  task_record* r = take_pooled<task_record>();
  r->kind = k;
  r->started = r->ended = r->waiting = r->segment_open = false;
  r->untied = r->suspended = false;
  r->resume_top = nullptr;
  r->where = site{};
  r->parent = nullptr;
  r->groups.clear();
  r->wait = sync_state{};
  r->node = r->stand_in = nullptr;
  r->preds = nullptr;
  r->children = nullptr;
  r->children_session = nullptr;
  r->region = nullptr;
  r->index = r->phase = 0;
  r->loop = nullptr;
  r->outer_stand_in = nullptr;
  r->body.sess = nullptr;
  return r;
}

inline void free_task(task_record* r) noexcept {
  if (r->token) drop_unrun(r->token, r->where);
  depend::drop(r->node);
  depend::drop(r->stand_in);
  if (r->preds) r->preds->release(nullptr);
  delete r->children;
  if (r->loop) give_back(r->loop);
  for (auto& g : r->groups)
    if (g.set) g.set->release(nullptr);
  r->groups.clear();
  give_back(r);
}

inline loop_state& loop_of(task_record& r) {
  if (!r.loop) {
    r.loop = take_pooled<loop_state>();
    r.loop->open = r.loop->dynamic = r.loop->chunk_open = false;
  }
  return *r.loop;
}

inline team* new_team() {
  team* t = take_pooled<team>();
  t->encountering = nullptr;
  t->blocked = sync_state{};
  t->set = nullptr;
  t->tokens.clear();
  t->size = t->phase = t->requested = 0;
  t->made = t->nested = false;
  t->outer_open = nullptr;
  t->where = site{};
  return t;
}

inline void free_team(team* t) noexcept {
  for (auto& tk : t->tokens)
    if (tk) drop_unrun(tk, t->where);
  t->tokens.clear();
  if (t->set) t->set->release(nullptr);
  t->set = nullptr;
  give_back(t);
}

}  // namespace ompt
}  // namespace detail
FORKSCALE_NAMESPACE_END
