// Runs an ompgen::program (the annotated subset: regions are one single block;
// no `task if(0) depend`) through the annotated adapter, forkscale/openmp.hpp:
// the same pragmas, with the adapter's line at each spawn point, task body and
// join. Built with g++/libgomp and with clang++/libomp.
#pragma once
#include <omp.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include <forkscale/adapters/openmp.hpp>

#include "omp_program.hpp"

namespace ompgen {
namespace annotated {

namespace fs = forkscale;

inline void exec(const stmt& s, int* vars, fs::omp::dependences& deps);

inline void block(const std::vector<stmt>& body) {
  int vars[4] = {0, 0, 0, 0};
  fs::omp::dependences deps;
  for (const stmt& c : body) exec(c, vars, deps);
}

inline fs::omp::task_token spawn_point(const stmt& s, int* v, fs::omp::dependences& deps) {
  switch (s.dep) {
    case deps::none:
      return fs::omp::spawn_point();
    case deps::in_x:
      return fs::omp::spawn_point(deps, {fs::omp::in(&v[s.x])});
    case deps::out_x:
      return fs::omp::spawn_point(deps, {fs::omp::out(&v[s.x])});
    case deps::inout_x:
      return fs::omp::spawn_point(deps, {fs::omp::inout(&v[s.x])});
    case deps::in_x_out_y:
      return fs::omp::spawn_point(deps, {fs::omp::in(&v[s.x]), fs::omp::out(&v[s.y])});
    case deps::mutex_x:
      return fs::omp::spawn_point(deps, {fs::omp::mutexinoutset(&v[s.x])});
  }
  return fs::omp::spawn_point();
}

inline void spawn(const stmt& s, int* v, fs::omp::dependences& deps) {
  const stmt* sp = &s;
  const bool defer = !s.undeferred;
  int& x = v[s.x];  // the depend clauses' variables
  int& y = v[s.y];
  (void)x;  // (GCC sees no use of a variable named only in depend clauses)
  (void)y;
  fs::omp::task_token tk = spawn_point(s, v, deps);
  switch (s.dep) {
    case deps::none:
#pragma omp task firstprivate(sp, tk) if (defer)
    {
      fs::omp::task_scope ts(tk);
      block(sp->body);
    } break;
    case deps::in_x:
#pragma omp task firstprivate(sp, tk) if (defer) depend(in : x)
    {
      fs::omp::task_scope ts(tk);
      block(sp->body);
    } break;
    case deps::out_x:
#pragma omp task firstprivate(sp, tk) if (defer) depend(out : x)
    {
      fs::omp::task_scope ts(tk);
      block(sp->body);
    } break;
    case deps::inout_x:
#pragma omp task firstprivate(sp, tk) if (defer) depend(inout : x)
    {
      fs::omp::task_scope ts(tk);
      block(sp->body);
    } break;
    case deps::in_x_out_y:
#pragma omp task firstprivate(sp, tk) if (defer) depend(in : x) depend(out : y)
    {
      fs::omp::task_scope ts(tk);
      block(sp->body);
    } break;
    case deps::mutex_x:
#pragma omp task firstprivate(sp, tk) if (defer) depend(mutexinoutset : x)
    {
      fs::omp::task_scope ts(tk);
      block(sp->body);
    } break;
  }
}

inline fs::omp::loop_schedule schedule_of(sched s) {
  switch (s) {
    case sched::dynamic:
      return fs::omp::loop_schedule::dynamic;
    case sched::static_chunks:
      return fs::omp::loop_schedule::static_chunks;
    case sched::static_even:
      return fs::omp::loop_schedule::static_even;
    case sched::guided:
      return fs::omp::loop_schedule::guided;
  }
  return fs::omp::loop_schedule::dynamic;
}

inline void team(const stmt& s) {
  fs::omp::team team;
  const stmt* single = &s.body.front();
#pragma omp parallel num_threads(s.threads) firstprivate(single) shared(team)
#pragma omp single
  {
    fs::omp::task_scope ts(team);
    block(single->body);
  }
}

inline void exec(const stmt& s, int* vars, fs::omp::dependences& deps) {
  const std::uint64_t* costs = s.costs.data();
  auto charge_one = [costs](int i) { fs::charge(costs[i]); };
  const int n = static_cast<int>(s.costs.size());
  switch (s.kind) {
    case op::charge:
      fs::charge(s.cost);
      break;
    case op::task:
      spawn(s, vars, deps);
      break;
    case op::taskwait:
      fs::omp::taskwait();
      break;
    case op::taskgroup:
      fs::omp::taskgroup([&] {
        for (const stmt& c : s.body) exec(c, vars, deps);
      });
      break;
    case op::taskloop:
      fs::omp::taskloop(0, n, s.grainsize ? fs::omp::grainsize(s.grainsize) : fs::omp::num_tasks(s.num_tasks),
                        charge_one, s.nogroup);
      break;
    case op::region:
      team(s);
      break;
    case op::parallel_for:
      fs::omp::parallel_for(0, n, static_cast<int>(s.chunk), charge_one, schedule_of(s.schedule), s.threads);
      break;
    default:
      break;
  }
}

inline void run(const program& p) { block(p.root); }

}  // namespace annotated
}  // namespace ompgen
