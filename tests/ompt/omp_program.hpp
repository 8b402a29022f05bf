// Random OpenMP-shaped programs and an oracle for them.
//
// A program is a tree of OpenMP constructs whose only work is fs::charge(n): tasks
// (deferred or undeferred, tied or untied, with depend clauses), taskwait,
// taskgroup, taskloop, parallel regions whose threads run worksharing loops
// (static, dynamic, guided), sections, single, master and barriers, nested
// regions, and combined `parallel for` loops. Two interpreters run the same
// tree: one with plain pragmas (the OMPT tool sees it, run_unannotated.hpp), one
// through the annotated adapter (run_annotated.hpp).
//
// The oracle knows nothing of forkscale: it walks the program once, as one thread
// would, and builds the explicit dag — a node per piece of code between two
// constructs, an edge for each ordering OpenMP guarantees (program order in a
// task or an implicit task; a task after the point that created it; taskwait
// after the children; a taskgroup's end after everything created inside it; a
// barrier after every thread's code before it and every task of the team; a
// depend successor after its predecessors, decided here by comparing every
// earlier sibling's clauses, as the specification words it) — then sums the
// weights (work) and takes the longest path (span) by dynamic programming over
// the nodes in creation order, a topological order.
//
// It also counts, from the program alone, what the OMPT tool's report counts
// (docs/ompt.md, "What maps to what"): the tasks the program creates and the
// taskwaits it runs (which the interpreter counts too, as it runs them), the
// spawns — every task, every implicit task of every phase of a region, every
// chunk of a worksharing loop, and the tasks libomp adds when it splits a large
// taskloop — and the syncs — every taskwait, taskgroup (a taskloop's too), barrier
// (a region's phases) and task that waits for `depend` predecessors; and the work
// the spawn site of the regions' `parallel` must show: everything done inside the
// outermost regions, whichever construct joins it (issue 30).
//
// Where the model is a choice, the oracle follows docs/ompt.md and docs/openmp.md
// and says so: an undeferred task has the dag of a deferred one, an untied task
// (which may resume on another thread at its task scheduling points) the dag of
// a tied one; a worksharing loop's chunks are independent strands (a statically
// scheduled thread's share is one chunk in OMPT mode; the adapter makes each
// chunk of schedule(static, c) a strand of its own, `model`); `task if(0)
// depend(...)` makes the encountering task wait for the predecessors (OMPT mode
// only: the adapter has no stand-in).
//
// The generator keeps to programs whose dag does not depend on the schedule:
// worksharing constructs and per-thread code sit between barriers, every phase
// starts with all threads at the same point, and a task that leaves children
// unwaited is never itself waited for by a taskwait (forkscale hands such
// children to whatever joins their parent: docs/openmp.md, "What the adapter
// does not model").
#pragma once
#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace ompgen {

enum class op {
  charge,        // fs::charge(cost)
  task,          // #pragma omp task [if(0)] [depend(...)] { body }
  taskwait,      // #pragma omp taskwait
  taskgroup,     // #pragma omp taskgroup { body }
  taskloop,      // #pragma omp taskloop grainsize|num_tasks [nogroup]: charge(costs[i])
  region,        // #pragma omp parallel num_threads(threads) { team body }
  parallel_for,  // #pragma omp parallel for schedule(...) num_threads(threads): charge(costs[i])
  // Team statements (in a region's body; every thread runs them):
  team_charge,  // fs::charge(cost) on every thread
  per_thread,   // fs::charge(cost + step * thread number), then a barrier
  single,       // #pragma omp single [nowait] { body } (its barrier, unless nowait)
  master,       // #pragma omp master { body }, then a barrier
  loop,         // #pragma omp for schedule(...) [nowait] (its barrier, unless nowait): charge(costs[i]),
                // and with `tasks` a task charging cost + i % 3 from each iteration
  sections,     // #pragma omp sections, three sections charging costs[0..2] (its barrier)
  barrier,      // #pragma omp barrier
};

enum class sched { dynamic, static_chunks, static_even, guided };
enum class deps { none, in_x, out_x, inout_x, in_x_out_y, mutex_x };
enum class model { ompt, adapter };

struct stmt {
  op kind = op::charge;
  std::uint64_t cost = 0, step = 0;
  std::vector<stmt> body;
  deps dep = deps::none;
  int x = 0, y = 0;
  bool undeferred = false;
  bool untied = false;  // task: `untied`
  std::vector<std::uint64_t> costs;
  sched schedule = sched::dynamic;
  std::uint64_t chunk = 1, grainsize = 0, num_tasks = 0;
  bool nogroup = false;
  bool tasks = false;   // loop: each iteration creates a task
  bool nowait = false;  // single, loop: no barrier of its own (the region's last statement: the
                        // region's end joins its tasks)
  int threads = 1;
};

struct program {
  std::vector<stmt> root;
  std::string describe() const;
};

// ---- chunking, as docs/openmp.md states libomp 14's (written here from those
// words, not shared with the library) ------------------------------------------
struct range {
  std::uint64_t b, e;
};
inline std::vector<range> even_parts(std::uint64_t n, std::uint64_t parts) {
  std::vector<range> v;
  std::uint64_t at = 0;
  for (std::uint64_t i = 0; i < parts; ++i) {
    const std::uint64_t len = n / parts + (i < n % parts ? 1 : 0);
    v.push_back(range{at, at + len});  // may be empty: a thread with no share
    at += len;
  }
  return v;
}
inline std::vector<range> fixed_chunks(std::uint64_t n, std::uint64_t c) {
  std::vector<range> v;
  for (std::uint64_t b = 0; b < n; b += c) v.push_back(range{b, std::min(n, b + c)});
  return v;
}
inline std::vector<range> guided_chunks(std::uint64_t n, std::uint64_t threads, std::uint64_t c) {
  std::vector<range> v;
  std::uint64_t b = 0;
  while (b < n) {
    const std::uint64_t left = n - b;
    std::uint64_t len = left >= 2 * threads * (c + 1) ? left / (2 * threads) : c;
    len = std::min(len, left);
    v.push_back(range{b, b + len});
    b += len;
  }
  return v;
}
inline std::vector<range> taskloop_chunks(std::uint64_t n, std::uint64_t grainsize, std::uint64_t num_tasks) {
  std::uint64_t tasks = grainsize ? std::max<std::uint64_t>(1, n / grainsize) : num_tasks;
  tasks = std::min(tasks, n);
  std::vector<range> v;
  for (const range& r : even_parts(n, tasks))
    if (r.e > r.b) v.push_back(r);
  return v;
}
inline std::uint64_t sum(const std::vector<std::uint64_t>& c, range r) {
  std::uint64_t s = 0;
  for (std::uint64_t i = r.b; i < r.e; ++i) s += c[i];
  return s;
}

// libomp 14's taskloop (kmp_tasking.cpp, __kmp_taskloop_recur): with more than
// `min` tasks (10 per thread of the team, at most 256) it schedules half of them
// as one task of its own that splits them again when it runs, and splits the
// other half at once: the tasks it adds, which do no work of the loop's.
inline std::uint64_t taskloop_splits(std::uint64_t tasks, std::uint64_t min) {
  if (tasks <= min) return 0;
  return 1 + taskloop_splits(tasks >> 1, min) + taskloop_splits(tasks - (tasks >> 1), min);
}

// ---- the oracle -----------------------------------------------------------------
struct expected {
  std::uint64_t work = 0, span = 0;
};

// What the report counts, worked out from the program (see the top).
struct counts {
  std::uint64_t tasks = 0, taskwaits = 0;  // created and run by the program
  std::uint64_t spawns = 0, syncs = 0;
  std::uint64_t region_tasks = 0;  // implicit tasks of the regions of op::region (one spawn site)
  std::uint64_t region_work = 0;   // the work inside the outermost of them
};

class oracle {
 public:
  // `max_active_levels`: as omp_set_max_active_levels (libomp's default is 1: a
  // region inside an active one runs with one thread).
  oracle(model m, int max_active_levels) : model_(m), max_active_levels_(max_active_levels) {}

  // What the program counts and the report must count (after run()).
  const counts& counted() const { return counts_; }

  expected run(const program& p) {
    counts_ = counts{};
    task root;
    root.cur = node(0, {});
    root.team_size = 1;
    for (const stmt& s : p.root) exec(root, s);
    expected e;
    std::vector<std::uint64_t> end(w_.size());
    for (std::size_t i = 0; i < w_.size(); ++i) {
      std::uint64_t best = 0;
      for (int q : in_[i]) best = std::max(best, end[static_cast<std::size_t>(q)]);
      end[i] = best + w_[i];
      e.work += w_[i];
      e.span = std::max(e.span, end[i]);
    }
    return e;
  }

 private:
  struct sibling {
    int end;
    deps dep;
    int x, y;
  };
  struct task {
    int cur = 0;
    std::vector<int> children;              // direct children not yet waited for
    std::vector<std::vector<int>*> groups;  // taskgroups open in this task
    std::vector<int>* inherited = nullptr;  // the taskgroup around this task's creation
    std::vector<int>* team = nullptr;       // every task of the enclosing team
    std::vector<sibling> created;           // for depend
    int team_size = 1;
    int active_levels = 0;  // enclosing regions with more than one thread
  };

  int node(std::uint64_t w, std::vector<int> preds) {
    w_.push_back(w);
    in_.push_back(std::move(preds));
    return static_cast<int>(w_.size()) - 1;
  }
  void charge(task& t, std::uint64_t c) { t.cur = node(c, {t.cur}); }

  // Whether `d` names variable v, and with which type (0 in, 1 out or inout, 2
  // mutexinoutset).
  static bool touches(deps d, int x, int y, int v, int& type) {
    switch (d) {
      case deps::none:
        return false;
      case deps::in_x:
        type = 0;
        return v == x;
      case deps::out_x:
        type = 1;
        return v == x;
      case deps::inout_x:
        type = 1;
        return v == x;
      case deps::mutex_x:
        type = 2;
        return v == x;
      case deps::in_x_out_y:
        if (v == y) {
          type = 1;
          return true;
        }
        type = 0;
        return v == x;
    }
    return false;
  }
  // OpenMP 5.1 §2.19.11: in follows out/inout/mutexinoutset; out and inout follow
  // everything; mutexinoutset follows in, out, inout (not other mutexinoutset).
  static bool conflict(int later, int earlier) {
    if (later == 1 || earlier == 1) return true;
    return later != earlier;
  }
  std::vector<int> predecessors(const task& parent, const stmt& s) const {
    std::vector<int> preds;
    for (const sibling& sib : parent.created)
      for (int v = 0; v < 4; ++v) {
        int a = 0, b = 0;
        if (touches(s.dep, s.x, s.y, v, a) && touches(sib.dep, sib.x, sib.y, v, b) && conflict(a, b))
          preds.push_back(sib.end);
      }
    return preds;
  }

  void finish_child(task& parent, int end, std::vector<int>* group) {
    parent.children.push_back(end);
    if (group) group->push_back(end);
    if (parent.team) parent.team->push_back(end);
  }

  void spawn(task& parent, const stmt& s);
  void exec(task& t, const stmt& s);
  void exec_team_stmt(std::vector<task>& threads, const stmt& s, std::vector<int>& team_tasks);
  void loop(std::vector<task>& threads, const stmt& s, std::vector<int>& team_tasks);
  int chunk(int from, const stmt& s, range r, std::vector<int>& team_tasks);
  void region(task& t, const stmt& s, bool combined = false);
  void taskloop(task& t, const stmt& s);
  void combined_loop(task& t, const stmt& s);

  model model_;
  int max_active_levels_;
  std::vector<std::uint64_t> w_;
  std::vector<std::vector<int>> in_;
  counts counts_;
  int region_depth_ = 0;  // op::region statements open around the current point
};

inline void oracle::spawn(task& parent, const stmt& s) {
  std::vector<int> preds = predecessors(parent, s);
  std::vector<int>* group = parent.groups.empty() ? parent.inherited : parent.groups.back();
  ++counts_.tasks;
  ++counts_.spawns;
  if (!preds.empty()) ++counts_.syncs;  // the task's start (or its stand-in's wait) joins them
  if (model_ == model::ompt && s.undeferred && !preds.empty()) {
    preds.push_back(parent.cur);  // the encountering task waits for the predecessors
    parent.cur = node(0, preds);
    preds.clear();
  }
  preds.push_back(parent.cur);
  task child;
  child.cur = node(0, preds);
  child.inherited = group;
  child.team = parent.team;
  child.team_size = parent.team_size;
  child.active_levels = parent.active_levels;
  for (const stmt& c : s.body) exec(child, c);
  finish_child(parent, child.cur, group);
  parent.created.push_back(sibling{child.cur, s.dep, s.x, s.y});
}

inline void oracle::exec(task& t, const stmt& s) {
  switch (s.kind) {
    case op::charge:
      charge(t, s.cost);
      break;
    case op::task:
      spawn(t, s);
      break;
    case op::taskwait: {
      std::vector<int> preds = t.children;
      preds.push_back(t.cur);
      t.cur = node(0, preds);
      t.children.clear();
      // Later siblings follow the earlier ones through this join: their depend
      // edges are implied (the tool forgets them here too).
      t.created.clear();
      ++counts_.taskwaits;
      ++counts_.syncs;
      break;
    }
    case op::taskgroup: {
      std::vector<int> group;
      t.groups.push_back(&group);
      for (const stmt& c : s.body) exec(t, c);
      t.groups.pop_back();
      group.push_back(t.cur);
      t.cur = node(0, group);
      ++counts_.syncs;
      break;
    }
    case op::taskloop:
      taskloop(t, s);
      break;
    case op::region:
      region(t, s);
      break;
    case op::parallel_for:
      combined_loop(t, s);
      break;
    default:
      break;  // team statements only appear in regions
  }
}

inline void oracle::taskloop(task& t, const stmt& s) {
  std::vector<int> group;
  std::vector<int>* g = s.nogroup ? (t.groups.empty() ? t.inherited : t.groups.back()) : &group;
  const std::vector<range> chunks = taskloop_chunks(s.costs.size(), s.grainsize, s.num_tasks);
  for (const range& r : chunks) {
    const int start = node(0, {t.cur});
    finish_child(t, node(sum(s.costs, r), {start}), g);
  }
  counts_.tasks += chunks.size();
  const std::uint64_t min = std::min<std::uint64_t>(10ull * static_cast<std::uint64_t>(t.team_size), 256);
  counts_.spawns += chunks.size() + taskloop_splits(chunks.size(), min);
  if (!s.nogroup) {
    group.push_back(t.cur);
    t.cur = node(0, group);
    ++counts_.syncs;
  }
}

// A region: in each phase every thread's implicit task starts from the
// encountering task's point; a barrier joins them and every task of the team.
// (`combined`: the region of a `parallel for`, whose spawn site is not op::region's.)
inline void oracle::region(task& t, const stmt& s, bool combined) {
  const int size = t.active_levels >= max_active_levels_ ? 1 : s.threads;
  const bool outermost = !combined && region_depth_ == 0;
  if (!combined) ++region_depth_;
  const std::size_t first_node = w_.size();
  std::uint64_t phases = 0;
  std::vector<int> team_tasks;
  auto fresh = [&] {
    std::vector<task> threads(static_cast<std::size_t>(size));
    for (task& th : threads) {
      th.cur = node(0, {t.cur});
      th.team = &team_tasks;
      th.team_size = size;
      th.active_levels = t.active_levels + (size > 1 ? 1 : 0);
    }
    return threads;
  };
  auto barrier = [&](std::vector<task>& threads) {
    std::vector<int> preds = team_tasks;
    for (const task& th : threads) preds.push_back(th.cur);
    preds.push_back(t.cur);
    t.cur = node(0, preds);
    team_tasks.clear();
    threads = fresh();
    ++phases;
  };
  std::vector<task> threads = fresh();
  for (const stmt& c : s.body) {
    exec_team_stmt(threads, c, team_tasks);
    // Every other team statement ends with a barrier (a nowait one is the last:
    // the region's end is its barrier).
    if (c.kind != op::team_charge && !c.nowait) barrier(threads);
  }
  barrier(threads);  // the region's end
  // Each phase: one implicit task per thread, and the barrier that joins them.
  counts_.spawns += phases * static_cast<std::uint64_t>(size);
  counts_.syncs += phases;
  if (combined) return;
  --region_depth_;
  counts_.region_tasks += phases * static_cast<std::uint64_t>(size);
  if (outermost)
    for (std::size_t i = first_node; i < w_.size(); ++i) counts_.region_work += w_[i];
}

inline void oracle::exec_team_stmt(std::vector<task>& threads, const stmt& s, std::vector<int>& team_tasks) {
  switch (s.kind) {
    case op::team_charge:
      for (task& th : threads) charge(th, s.cost);
      break;
    case op::per_thread:
      for (std::size_t i = 0; i < threads.size(); ++i) charge(threads[i], s.cost + s.step * i);
      break;
    case op::single:  // every thread is at the same point: which one runs it does not matter
    case op::master:
      for (const stmt& c : s.body) exec(threads[0], c);
      break;
    case op::loop:
      loop(threads, s, team_tasks);
      break;
    case op::sections: {
      counts_.spawns += threads.size();  // a thread's share: one chunk
      const auto shares = even_parts(s.costs.size(), threads.size());
      for (std::size_t i = 0; i < threads.size(); ++i) {
        const int start = node(0, {threads[i].cur});  // a thread's share of sections: one chunk
        const int end = node(sum(s.costs, shares[i]), {start});
        threads[i].cur = node(0, {threads[i].cur, end});
      }
      break;
    }
    default:
      break;  // barrier: the phase's end, done by the caller
  }
}

// One chunk of a worksharing loop from `from`: its iterations one after the
// other, each maybe creating a task; returns the chunk's end.
inline int oracle::chunk(int from, const stmt& s, range r, std::vector<int>& team_tasks) {
  int cur = node(0, {from});
  for (std::uint64_t i = r.b; i < r.e; ++i) {
    cur = node(s.costs[i], {cur});
    if (!s.tasks) continue;
    const int start = node(0, {cur});
    team_tasks.push_back(node(s.cost + i % 3, {start}));
    ++counts_.tasks;
    ++counts_.spawns;
  }
  return cur;
}

// A worksharing loop: each chunk a child of the thread that takes it (static
// shares: one chunk per thread), joined, with the tasks its iterations created,
// by the barrier after the loop.
inline void oracle::loop(std::vector<task>& threads, const stmt& s, std::vector<int>& team_tasks) {
  const std::uint64_t n = s.costs.size(), size = threads.size();
  std::vector<std::vector<range>> per_thread(threads.size());
  if (size == 1) {
    // A team of one thread is serialized: libomp hands its dynamic and guided
    // loops out as one chunk too (docs/ompt.md, "Limits").
    per_thread[0].push_back(range{0, n});
  } else if (s.schedule == sched::static_even) {
    const auto shares = even_parts(n, size);
    for (std::size_t i = 0; i < size; ++i) per_thread[i].push_back(shares[i]);
  } else if (s.schedule == sched::static_chunks) {
    const auto chunks = fixed_chunks(n, s.chunk);
    for (std::size_t k = 0; k < chunks.size(); ++k) per_thread[k % size].push_back(chunks[k]);
  } else {
    per_thread[0] = s.schedule == sched::guided ? guided_chunks(n, size, s.chunk) : fixed_chunks(n, s.chunk);
  }
  const bool one_chunk = s.schedule == sched::static_chunks || s.schedule == sched::static_even || size == 1;
  // The chunks the tool sees: none for a loop of no iteration (the compiled code
  // does not enter it); else a static share per thread (each thread's call to
  // the runtime, even for an empty share), or each dynamic or guided chunk.
  if (n > 0) counts_.spawns += one_chunk ? size : per_thread[0].size();
  for (std::size_t i = 0; i < size; ++i) {
    if (one_chunk) {  // the thread's share, its chunks one after the other
      int cur = node(0, {threads[i].cur});
      for (const range& r : per_thread[i]) cur = chunk(cur, s, r, team_tasks);
      team_tasks.push_back(cur);
    } else {
      for (const range& r : per_thread[i]) team_tasks.push_back(chunk(threads[i].cur, s, r, team_tasks));
    }
  }
}

// `parallel for`: in OMPT mode a region whose one phase is the loop; the adapter
// spawns every chunk of the schedule from the calling task (static_chunks: each
// chunk, not each thread's share).
inline void oracle::combined_loop(task& t, const stmt& s) {
  if (model_ == model::ompt) {
    stmt region;
    region.kind = op::region;
    region.threads = s.threads;
    stmt l = s;
    l.kind = op::loop;
    l.nowait = true;  // `parallel for`: the region's end is the loop's barrier
    region.body.push_back(l);
    this->region(t, region, true);
    return;
  }
  const std::uint64_t n = s.costs.size();
  std::vector<range> chunks;
  if (s.schedule == sched::static_even) {
    for (const range& r : even_parts(n, s.threads))
      if (r.e > r.b) chunks.push_back(r);
  } else if (s.schedule == sched::guided) {
    chunks = guided_chunks(n, s.threads, s.chunk);
  } else {
    chunks = fixed_chunks(n, s.chunk);
  }
  std::vector<int> ends{t.cur};
  for (const range& r : chunks) ends.push_back(node(sum(s.costs, r), {node(0, {t.cur})}));
  t.cur = node(0, ends);
}

// ---- the generator ----------------------------------------------------------------
struct generator_options {
  bool annotated_subset = false;  // only what the annotated adapter can express
  int max_depth = 3;
  int untied_percent = 0;  // of the deferred tasks (OMPT mode only: the adapter's tasks are tied)
  // Of the regions: a last statement `single nowait` whose tasks the region's end
  // joins, or `for nowait` whose iterations create tasks (OMPT mode only).
  int nowait_percent = 0;
};

class generator {
 public:
  generator(std::uint64_t seed, generator_options o) : rng_(seed), o_(o) {}

  program make() {
    program p;
    const int n = pick(1, 3);
    for (int i = 0; i < n; ++i) {
      const int k = pick(0, 9);
      if (k < 2) {
        p.root.push_back(charge(pick(0, 9)));
      } else if (k < 5) {
        p.root.push_back(combined_loop());
      } else {
        p.root.push_back(region(0));
      }
    }
    return p;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin(int percent) { return pick(0, 99) < percent; }
  static stmt charge(std::uint64_t c) {
    stmt s;
    s.kind = op::charge;
    s.cost = c;
    return s;
  }
  std::vector<std::uint64_t> costs(int n) {
    std::vector<std::uint64_t> v(static_cast<std::size_t>(n));
    for (auto& c : v) c = static_cast<std::uint64_t>(pick(0, 12));
    return v;
  }
  sched any_schedule() { return static_cast<sched>(pick(0, 3)); }

  stmt combined_loop() {
    stmt s;
    s.kind = op::parallel_for;
    s.threads = pick(1, 4);
    s.schedule = any_schedule();
    s.chunk = static_cast<std::uint64_t>(pick(1, 4));
    s.costs = costs(pick(1, 30));
    return s;
  }

  stmt region(int depth) {
    stmt s;
    s.kind = op::region;
    s.threads = pick(1, 4);
    if (o_.annotated_subset) {  // the adapter's team: one single block
      stmt single;
      single.kind = op::single;
      single.body = body(depth + 1, coin(50));
      s.body.push_back(single);
      return s;
    }
    const int phases = pick(1, 4);
    for (int i = 0; i < phases; ++i) {
      if (coin(40)) s.body.push_back(team_charge());
      s.body.push_back(team_stmt(depth));
    }
    if (o_.nowait_percent > 0 && coin(o_.nowait_percent)) s.body.push_back(nowait_stmt(depth));
    return s;
  }
  // Tasks joined by the region's end: a `single nowait` block that leaves its
  // tasks, or a `for nowait` whose iterations create tasks.
  stmt nowait_stmt(int depth) {
    stmt s;
    s.nowait = true;
    // Tasks left to the region's end run while threads wait at its barrier,
    // where libomp 14 asserts on `task if(0) depend(...)` under an OMPT tool
    // (docs/ompt.md, "Limits"): none among them.
    in_nowait_ = true;
    if (coin(50)) {
      s.kind = op::single;
      s.body = body(depth + 1, true);
      if (s.body.empty() || s.body.front().kind != op::task) {
        stmt t = task(depth + 1, true);
        s.body.insert(s.body.begin(), t);
      }
    } else {
      s.kind = op::loop;
      s.schedule = any_schedule();
      s.chunk = static_cast<std::uint64_t>(pick(1, 3));
      s.costs = costs(pick(1, 20));
      s.tasks = true;
      s.cost = static_cast<std::uint64_t>(pick(0, 9));
    }
    in_nowait_ = false;
    return s;
  }
  stmt team_charge() {
    stmt s;
    s.kind = op::team_charge;
    s.cost = static_cast<std::uint64_t>(pick(0, 6));
    return s;
  }
  stmt team_stmt(int depth) {
    stmt s;
    switch (pick(0, 5)) {
      case 0:
        s.kind = op::per_thread;
        s.cost = static_cast<std::uint64_t>(pick(0, 6));
        s.step = static_cast<std::uint64_t>(pick(0, 4));
        break;
      case 1:
        s.kind = op::single;
        s.body = body(depth + 1, coin(50));
        break;
      case 2:
        s.kind = op::master;
        s.body = body(depth + 1, coin(50));
        break;
      case 3:
        s.kind = op::loop;
        s.schedule = any_schedule();
        s.chunk = static_cast<std::uint64_t>(pick(1, 3));
        s.costs = costs(pick(0, 20));
        s.tasks = coin(40);
        s.cost = static_cast<std::uint64_t>(pick(0, 9));
        break;
      case 4:
        s.kind = op::sections;
        s.costs = costs(3);
        break;
      default:
        s.kind = op::barrier;
        break;
    }
    return s;
  }

  // A task body. In a `leaving` scope (a taskgroup, some single or master
  // blocks, the tasks created there) there is no taskwait, and tasks may leave
  // children for the barrier or the taskgroup's end; elsewhere every task waits
  // for its own children before it ends.
  std::vector<stmt> body(int depth, bool leaving) {
    std::vector<stmt> out;
    const int n = depth >= o_.max_depth ? pick(0, 2) : pick(1, 4);
    bool made_children = false;
    for (int i = 0; i < n; ++i) {
      const int k = depth >= o_.max_depth ? 0 : pick(0, 11);
      if (k <= 2) {
        out.push_back(charge(static_cast<std::uint64_t>(pick(0, 15))));
      } else if (k <= 6) {
        out.push_back(task(depth, leaving));
        made_children = true;
      } else if (k == 7 && !leaving) {
        stmt w;
        w.kind = op::taskwait;
        out.push_back(w);
        made_children = false;
      } else if (k == 8) {
        stmt g;
        g.kind = op::taskgroup;
        g.body = body(depth + 1, true);
        out.push_back(g);
      } else if (k == 9) {
        out.push_back(taskloop());
        made_children = made_children || out.back().nogroup;
      } else if (k == 10 && !o_.annotated_subset && depth < o_.max_depth - 1) {
        out.push_back(region(depth + 1));
      } else {
        out.push_back(charge(static_cast<std::uint64_t>(pick(0, 5))));
      }
    }
    if (!leaving && made_children) {
      stmt w;
      w.kind = op::taskwait;
      out.push_back(w);
    }
    return out;
  }
  stmt task(int depth, bool leaving) {
    stmt s;
    s.kind = op::task;
    s.undeferred = coin(20);
    if (coin(50)) {
      s.dep = static_cast<deps>(pick(1, 5));
      s.x = pick(0, 3);
      s.y = pick(0, 3);
      if (s.y == s.x) s.y = (s.x + 1) % 4;
      if (o_.annotated_subset) s.undeferred = false;  // `task if(0) depend`: OMPT mode's stand-in only
      // libomp 14 corrupts its heap on `task if(0) depend(mutexinoutset: x)` when
      // a tool registers ompt_callback_dependences (docs/ompt.md, "Limits").
      if (s.dep == deps::mutex_x) s.undeferred = false;
      // libomp 14 reads and writes freed memory when a `mutexinoutset` task is
      // still pending after the task that created it has ended (valgrind shows it
      // with no tool loaded; docs/openmp.md, "depend"): in a scope that leaves its
      // children to a later join, the clause is `inout` instead.
      if (leaving && s.dep == deps::mutex_x) s.dep = deps::inout_x;
    }
    if (in_nowait_ && s.dep != deps::none) s.undeferred = false;
    if (o_.untied_percent > 0 && !o_.annotated_subset && !s.undeferred && coin(o_.untied_percent)) s.untied = true;
    s.body = body(depth + 1, leaving);
    return s;
  }
  stmt taskloop() {
    stmt s;
    s.kind = op::taskloop;
    s.costs = costs(pick(1, 16));
    if (coin(50)) {
      s.grainsize = static_cast<std::uint64_t>(pick(1, 5));
    } else {
      s.num_tasks = static_cast<std::uint64_t>(pick(1, 6));
    }
    s.nogroup = coin(30);
    return s;
  }

  std::mt19937_64 rng_;
  generator_options o_;
  bool in_nowait_ = false;  // making a statement whose tasks the region's end joins
};

// ---- describing a program (for failure messages) -----------------------------------
inline void describe(std::ostringstream& os, const std::vector<stmt>& b, int indent);
inline void describe(std::ostringstream& os, const stmt& s, int indent) {
  static const char* names[] = {"charge",       "task",       "taskwait",          "taskgroup", "taskloop", "parallel",
                                "parallel for", "all charge", "per-thread charge", "single",    "master",   "for",
                                "sections",     "barrier"};
  static const char* scheds[] = {"dynamic", "static,c", "static", "guided"};
  os << std::string(static_cast<std::size_t>(indent) * 2, ' ') << names[static_cast<int>(s.kind)];
  if (s.kind == op::charge || s.kind == op::team_charge || s.kind == op::per_thread) os << " " << s.cost;
  if (s.kind == op::per_thread) os << " + " << s.step << "*t";
  if (s.kind == op::task)
    os << (s.undeferred ? " if(0)" : "") << (s.untied ? " untied" : "") << " dep=" << static_cast<int>(s.dep)
       << " x=" << s.x << " y=" << s.y;
  if (s.kind == op::region || s.kind == op::parallel_for) os << " threads=" << s.threads;
  if (s.kind == op::loop || s.kind == op::parallel_for)
    os << " " << scheds[static_cast<int>(s.schedule)] << " chunk=" << s.chunk;
  if (s.nowait) os << " nowait";
  if (s.tasks) os << " tasks=" << s.cost << "+i%3";
  if (s.kind == op::taskloop)
    os << " grainsize=" << s.grainsize << " num_tasks=" << s.num_tasks << (s.nogroup ? " nogroup" : "");
  if (!s.costs.empty()) {
    os << " costs=";
    for (auto c : s.costs) os << c << ",";
  }
  os << "\n";
  describe(os, s.body, indent + 1);
}
inline void describe(std::ostringstream& os, const std::vector<stmt>& b, int indent) {
  for (const stmt& s : b) describe(os, s, indent);
}
inline std::string program::describe() const {
  std::ostringstream os;
  ompgen::describe(os, root, 0);
  return os.str();
}

}  // namespace ompgen
