// Runs an ompgen::program as a plain OpenMP program: pragmas and fs::charge,
// nothing else. What the OMPT tool (forkscale/ompt.hpp) measures. It counts the
// tasks it creates and the taskwaits it runs itself (`tally`), to hold the
// report's counts to a count that owes nothing to the tool.
#pragma once
#include <omp.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include <forkscale/forkscale.hpp>

#include "omp_program.hpp"

namespace ompgen {
namespace plain {

namespace fs = forkscale;

// Tasks created and taskwaits run, as the program runs them (a taskloop's tasks
// each count themselves: a firstprivate flag is fresh in every task).
struct tally {
  std::atomic<std::uint64_t> tasks{0}, taskwaits{0};
};
inline tally& counted() {
  static tally t;
  return t;
}
inline void count_task() { counted().tasks.fetch_add(1, std::memory_order_relaxed); }

inline void exec(const stmt& s, int* vars);

// A task body (or a single/master block): its own variables for the depend
// clauses of the tasks it creates.
inline void block(const std::vector<stmt>& body) {
  int vars[4] = {0, 0, 0, 0};
  for (const stmt& c : body) exec(c, vars);
}

// An untied task: clang makes the task's start a part of its own (libomp
// re-queues the task before its body runs), so the body may run on another
// thread than the one that started the task. (Not a task scheduling point inside
// the body: libomp 14 can deadlock on an untied task that yields while its
// descendants wait for children — with no tool at all.)
inline void spawn_untied(const stmt& s, int* v) {
  count_task();
  const stmt* sp = &s;
  int& x = v[s.x];
  int& y = v[s.y];
  (void)x;
  (void)y;
  switch (s.dep) {
    case deps::none:
#pragma omp task firstprivate(sp) untied
      block(sp->body);
      break;
    case deps::in_x:
#pragma omp task firstprivate(sp) untied depend(in : x)
      block(sp->body);
      break;
    case deps::out_x:
#pragma omp task firstprivate(sp) untied depend(out : x)
      block(sp->body);
      break;
    case deps::inout_x:
#pragma omp task firstprivate(sp) untied depend(inout : x)
      block(sp->body);
      break;
    case deps::in_x_out_y:
#pragma omp task firstprivate(sp) untied depend(in : x) depend(out : y)
      block(sp->body);
      break;
    case deps::mutex_x:
#pragma omp task firstprivate(sp) untied depend(mutexinoutset : x)
      block(sp->body);
      break;
  }
}

inline void spawn(const stmt& s, int* v) {
  if (s.untied) {
    spawn_untied(s, v);
    return;
  }
  count_task();
  const stmt* sp = &s;
  const bool defer = !s.undeferred;
  int& x = v[s.x];  // the depend clauses' variables
  int& y = v[s.y];
  (void)x;  // (GCC sees no use of a variable named only in depend clauses)
  (void)y;
  switch (s.dep) {
    case deps::none:
#pragma omp task firstprivate(sp) if (defer)
      block(sp->body);
      break;
    case deps::in_x:
#pragma omp task firstprivate(sp) if (defer) depend(in : x)
      block(sp->body);
      break;
    case deps::out_x:
#pragma omp task firstprivate(sp) if (defer) depend(out : x)
      block(sp->body);
      break;
    case deps::inout_x:
#pragma omp task firstprivate(sp) if (defer) depend(inout : x)
      block(sp->body);
      break;
    case deps::in_x_out_y:
#pragma omp task firstprivate(sp) if (defer) depend(in : x) depend(out : y)
      block(sp->body);
      break;
    case deps::mutex_x:
#pragma omp task firstprivate(sp) if (defer) depend(mutexinoutset : x)
      block(sp->body);
      break;
  }
}

// (Unsigned loop variables: clang 14 warns about its own comparison in a
// signed taskloop with grainsize.)
inline void taskloop(const stmt& s) {
  const std::uint64_t* costs = s.costs.data();
  const std::uint64_t n = s.costs.size();
  const std::uint64_t g = s.grainsize;
  const std::uint64_t k = s.num_tasks;
  bool first = true;  // firstprivate: each task's own, set in its first iteration
  if (s.grainsize && s.nogroup) {
#pragma omp taskloop grainsize(g) nogroup firstprivate(first)
    for (std::uint64_t i = 0; i < n; ++i) {
      if (first) count_task();
      first = false;
      fs::charge(costs[i]);
    }
  } else if (s.grainsize) {
#pragma omp taskloop grainsize(g) firstprivate(first)
    for (std::uint64_t i = 0; i < n; ++i) {
      if (first) count_task();
      first = false;
      fs::charge(costs[i]);
    }
  } else if (s.nogroup) {
#pragma omp taskloop num_tasks(k) nogroup firstprivate(first)
    for (std::uint64_t i = 0; i < n; ++i) {
      if (first) count_task();
      first = false;
      fs::charge(costs[i]);
    }
  } else {
#pragma omp taskloop num_tasks(k) firstprivate(first)
    for (std::uint64_t i = 0; i < n; ++i) {
      if (first) count_task();
      first = false;
      fs::charge(costs[i]);
    }
  }
}

// An iteration of a `#pragma omp for` of the program.
inline void iteration(const stmt& s, int i) {
  fs::charge(s.costs[static_cast<std::size_t>(i)]);
  if (!s.tasks) return;
  const std::uint64_t c = s.cost + static_cast<std::uint64_t>(i % 3);
  count_task();
#pragma omp task firstprivate(c)
  fs::charge(c);
}

// `#pragma omp for [nowait]` (orphaned: called from inside a region).
inline void loop_nowait(const stmt& s) {
  const int n = static_cast<int>(s.costs.size());
  const int c = static_cast<int>(s.chunk);
  switch (s.schedule) {
    case sched::dynamic:
#pragma omp for schedule(dynamic, c) nowait
      for (int i = 0; i < n; ++i) iteration(s, i);
      break;
    case sched::static_chunks:
#pragma omp for schedule(static, c) nowait
      for (int i = 0; i < n; ++i) iteration(s, i);
      break;
    case sched::static_even:
#pragma omp for schedule(static) nowait
      for (int i = 0; i < n; ++i) iteration(s, i);
      break;
    case sched::guided:
#pragma omp for schedule(guided, c) nowait
      for (int i = 0; i < n; ++i) iteration(s, i);
      break;
  }
}
inline void loop(const stmt& s) {
  if (s.nowait) {
    loop_nowait(s);
    return;
  }
  const int n = static_cast<int>(s.costs.size());
  const int c = static_cast<int>(s.chunk);
  switch (s.schedule) {
    case sched::dynamic:
#pragma omp for schedule(dynamic, c)
      for (int i = 0; i < n; ++i) iteration(s, i);
      break;
    case sched::static_chunks:
#pragma omp for schedule(static, c)
      for (int i = 0; i < n; ++i) iteration(s, i);
      break;
    case sched::static_even:
#pragma omp for schedule(static)
      for (int i = 0; i < n; ++i) iteration(s, i);
      break;
    case sched::guided:
#pragma omp for schedule(guided, c)
      for (int i = 0; i < n; ++i) iteration(s, i);
      break;
  }
}

inline void combined_loop(const stmt& s) {
  const std::uint64_t* costs = s.costs.data();
  const int n = static_cast<int>(s.costs.size());
  const int c = static_cast<int>(s.chunk);
  const int t = s.threads;
  switch (s.schedule) {
    case sched::dynamic:
#pragma omp parallel for schedule(dynamic, c) num_threads(t)
      for (int i = 0; i < n; ++i) fs::charge(costs[i]);
      break;
    case sched::static_chunks:
#pragma omp parallel for schedule(static, c) num_threads(t)
      for (int i = 0; i < n; ++i) fs::charge(costs[i]);
      break;
    case sched::static_even:
#pragma omp parallel for schedule(static) num_threads(t)
      for (int i = 0; i < n; ++i) fs::charge(costs[i]);
      break;
    case sched::guided:
#pragma omp parallel for schedule(guided, c) num_threads(t)
      for (int i = 0; i < n; ++i) fs::charge(costs[i]);
      break;
  }
}

inline void team_stmt(const stmt& s) {
  switch (s.kind) {
    case op::team_charge:
      fs::charge(s.cost);
      break;
    case op::per_thread:
      fs::charge(s.cost + s.step * static_cast<std::uint64_t>(omp_get_thread_num()));
#pragma omp barrier
      break;
    case op::single:
      if (s.nowait) {
#pragma omp single nowait
        block(s.body);
      } else {
#pragma omp single
        block(s.body);
      }
      break;
    case op::master:
#pragma omp master
      block(s.body);
#pragma omp barrier
      break;
    case op::loop:
      loop(s);
      break;
    case op::sections: {
      const std::uint64_t* c = s.costs.data();
#pragma omp sections
      {
#pragma omp section
        fs::charge(c[0]);
#pragma omp section
        fs::charge(c[1]);
#pragma omp section
        fs::charge(c[2]);
      }
      break;
    }
    default:
#pragma omp barrier
      break;
  }
}

// The line of op::region's `parallel`: the spawn site of its implicit tasks.
inline constexpr unsigned region_line = __LINE__ + 4;

inline void region(const stmt& s) {
  const stmt* sp = &s;
#pragma omp parallel num_threads(sp->threads) firstprivate(sp)
  for (const stmt& c : sp->body) team_stmt(c);
}

inline void exec(const stmt& s, int* vars) {
  switch (s.kind) {
    case op::charge:
      fs::charge(s.cost);
      break;
    case op::task:
      spawn(s, vars);
      break;
    case op::taskwait:
      counted().taskwaits.fetch_add(1, std::memory_order_relaxed);
#pragma omp taskwait
      break;
    case op::taskgroup:
#pragma omp taskgroup
      for (const stmt& c : s.body) exec(c, vars);
      break;
    case op::taskloop:
      taskloop(s);
      break;
    case op::region:
      region(s);
      break;
    case op::parallel_for:
      combined_loop(s);
      break;
    default:
      break;
  }
}

inline void run(const program& p) { block(p.root); }

// The file this interpreter's constructs are in (the sites of the report's rows).
inline const char* source_file() { return __FILE__; }

}  // namespace plain
}  // namespace ompgen
