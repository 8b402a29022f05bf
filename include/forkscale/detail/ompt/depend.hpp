// detail/ompt/depend.hpp: task dependences (`depend` clauses) as joins, for the
// OMPT tool (adapters/ompt.hpp) and the annotated adapter (adapters/openmp.hpp).
//
// A `depend` edge P -> S says that S starts after P ends (OpenMP 5.1, §2.19.11).
// forkscale keeps the model's two events and adds no new one: the edge is a join
// of P's end into S's start. Every task that may be a predecessor is a `node`;
// when P ends, its path value (the longest path to its end, with its what-if
// offsets and the on-span profile of that path) is kept as a `snapshot`, and a
// copy of it is reported into a join set owned by each successor S, as a
// zero-work child would. S joins that set with one sync as it starts. Work and
// counts never travel along the edge: only path lengths do, so the work of P is
// counted once (by whoever joins P itself), whatever its number of successors.
//
// Which earlier sibling a new task depends on is decided here, from the
// addresses and types of its dependences, as the specification says: an `in`
// follows the last out/inout and every mutexinoutset/inoutset since; out and
// inout follow everything before them; mutexinoutset follows in/inoutset (and
// the last out), not other mutexinoutset; inoutset follows in/mutexinoutset,
// not other inoutset. The runtime's own edges (ompt_callback_task_dependence)
// are not used: libomp reports only edges to predecessors that are still
// running, which would make the span depend on timing.
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "../engine/frame.hpp"
#include "../engine/hooks.hpp"
#include "../engine/join_set.hpp"
#include "../macro_scope.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace depend {

enum class dep_type : unsigned char { in, out, inout, mutexinoutset, inoutset };

// Whether a task with dependence `later` on an address follows an earlier
// sibling with dependence `earlier` on the same address.
inline bool follows(dep_type later, dep_type earlier) noexcept {
  if (later == dep_type::out || later == dep_type::inout) return true;
  if (earlier == dep_type::out || earlier == dep_type::inout) return true;
  return later != earlier && (later != dep_type::in || earlier != dep_type::in);
}

// A path value, kept: what a predecessor's end hands to each successor
// (engine/state.hpp).
using snapshot = kept_path;

inline void release(snapshot& s) noexcept {
  what_if_release(s.what_if);
  s.what_if = nullptr;
  release_prof(s.prof.chain);
  s.prof.chain = nullptr;
}

// The path value at the current point of the running frame `f`, through the
// engine's point for it (engine<Clock>::keep_path). `task_end`: `f` is a task
// about to end, and the value is the one it will report; otherwise it is the
// value at a point the task goes on from, as a spawn hands it to a child.
template <class Clock>
snapshot take(frame& f, bool task_end) {
  return guard_events<Clock>::keep_path(f, task_end);
}

// Reports a copy of `s` into `j`, as a finished zero-work child; `counted` says
// whether `j` already counts it (count_shared_child was called for it).
inline void feed(join_set* j, const snapshot& s, bool counted) {
  path_totals t;
  t.span = s.span;
  t.burdened_span = s.burdened_span;
  t.raw_span = s.raw_span;
  if (s.what_if) t.what_if = what_if_copy(s.what_if);
  path_prof p = s.prof;
  if (p.chain) p.chain->refs.fetch_add(1, std::memory_order_relaxed);
  if (!counted) j->count_shared_child();
  join_set::report(j, t, p);
}

// One task that may be a predecessor. Reference-counted: the tracker of its
// parent and the task itself hold it.
struct node {
  std::mutex m;
  std::atomic<int> refs{1};
  bool done = false;
  snapshot end;                    // set when done
  std::vector<join_set*> waiting;  // successors' sets that count it and wait for its end
};

inline node* make_node() { return new node; }
inline void hold(node* n) noexcept { n->refs.fetch_add(1, std::memory_order_relaxed); }
inline void drop(node* n) noexcept {
  if (n && n->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    release(n->end);
    delete n;
  }
}

// The predecessor ends: its path value goes to every successor already waiting,
// and is kept for successors created later.
inline void publish(node* n, snapshot s) {
  std::vector<join_set*> waiting;
  {
    std::lock_guard<std::mutex> g(n->m);
    release(n->end);
    n->end = s;
    n->done = true;
    waiting.swap(n->waiting);
  }
  for (join_set* j : waiting) feed(j, s, true);
}

// The task behind `n` starts again from scratch (an undeferred task that takes
// over the node of libomp's taskwait stand-in, see adapters/ompt.hpp).
inline void reopen(node* n) {
  std::lock_guard<std::mutex> g(n->m);
  release(n->end);
  n->done = false;
}

// Makes `pred` a predecessor of the task whose set is `*succ` (made on first use).
inline void connect(node* pred, join_set*& succ, session* s) {
  if (!succ) succ = join_set::make(s);
  std::unique_lock<std::mutex> g(pred->m);
  if (pred->done) {
    const snapshot copy = pred->end;  // fed while the lock keeps it alive
    feed(succ, copy, false);
    return;
  }
  succ->count_shared_child();
  pred->waiting.push_back(succ);
}

// The dependences of the children of one task, by address.
class tracker {
 public:
  tracker() = default;
  tracker(const tracker&) = delete;
  tracker& operator=(const tracker&) = delete;
  ~tracker() { clear(); }

  // Adds the dependence (addr, t) of the new child `n`; appends to `preds` the
  // earlier siblings it follows (possibly with repeats), each with a reference
  // that connect_all drops.
  void add(node* n, const void* addr, dep_type t, std::vector<node*>& preds) {
    entry& e = by_address_[addr];
    if (e.last_out) {
      hold(e.last_out);
      preds.push_back(e.last_out);
    }
    for (const auto& p : e.since)
      if (follows(t, p.second)) {
        hold(p.first);
        preds.push_back(p.first);
      }
    hold(n);
    if (t == dep_type::out || t == dep_type::inout) {
      for (auto& p : e.since) drop(p.first);
      e.since.clear();
      drop(e.last_out);
      e.last_out = n;
    } else {
      e.since.emplace_back(n, t);
    }
  }

  // Every child has been joined (a taskwait, a barrier): the edges from them are
  // implied by the parent's path from here on.
  void clear() noexcept {
    for (auto& kv : by_address_) {
      drop(kv.second.last_out);
      for (auto& p : kv.second.since) drop(p.first);
    }
    by_address_.clear();
  }
  bool empty() const noexcept { return by_address_.empty(); }

 private:
  struct entry {
    node* last_out = nullptr;
    std::vector<std::pair<node*, dep_type>> since;  // later dependences that are not out/inout
  };
  std::unordered_map<const void*, entry> by_address_;
};

// Connects `n` (the new task) to its predecessors `preds`, each once, and drops
// the references tracker::add took.
inline void connect_all(std::vector<node*>& preds, node* n, join_set*& succ, session* s) {
  for (std::size_t i = 0; i < preds.size(); ++i) {
    bool seen = preds[i] == n;
    for (std::size_t k = 0; k < i && !seen; ++k) seen = preds[k] == preds[i];
    if (!seen) connect(preds[i], succ, s);
  }
  for (node* p : preds) drop(p);
  preds.clear();
}

// The successor starts: its predecessors' ends join its path (one sync, the
// engine's join_kept). At a task's start (`task_start`) its invocation starts
// after them: its span in the site profiles does not take in theirs, as its
// work does not take in their work. The encountering task of `task if(0)
// depend(...)` joins them mid-way (task_start false): they are its own
// children, whose work its invocation counts when it joins them.
template <class Clock>
void join_predecessors(join_set*& preds, const site& where, bool task_start) {
  if (!preds) return;
  guard_events<Clock>::join_kept(preds, where, task_start);
  preds->release(nullptr);
  preds = nullptr;
}

// A predecessor's end: its path value, kept for its successors.
template <class Clock>
void end_predecessor(node*& n, frame& f) {
  if (!n) return;
  publish(n, take<Clock>(f, true));
  drop(n);
  n = nullptr;
}

}  // namespace depend
}  // namespace detail
FORKSCALE_NAMESPACE_END
