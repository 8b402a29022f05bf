// The OpenMP adapter (forkscale/openmp.hpp) on real OpenMP runs. Built once with
// the project compiler's OpenMP (g++: libgomp) and once with clang++ and LLVM's
// libomp (tests/openmp/CMakeLists.txt); FORKSCALE_TEST_OPENMP_RUNTIME names the
// runtime the build meant to use, and the first test checks it is the one loaded.
//
// Every program runs under the cost clock on a team of 4 threads with deferred
// tasks, and again as its serial elision (a team of one thread, every task
// undeferred: each body runs at once where it is created). Every number of the
// report — work, span, burdened span, spawns, syncs, calls, every region row —
// must be the same, run after run, and equal to values worked out by hand from
// docs/model.md and docs/openmp.md. No run may produce a diagnostic.
#include <forkscale/adapters/openmp.hpp>

#include <gtest/gtest.h>
#include <omp.h>

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <bitset>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../support/adapter_check.hpp"

#ifndef FORKSCALE_TEST_OPENMP_RUNTIME
#error "define FORKSCALE_TEST_OPENMP_RUNTIME as \"libgomp\" or \"libomp\""
#endif

namespace fs = forkscale;

namespace {

constexpr std::uint64_t burden = 50;  // small, so that burdened spans depend on the dag's shape
constexpr int team_size = 4;
constexpr int repeats = 3;

// How a run executes its tasks.
enum class task_mode {
  deferred,    // if(1): queued, run by any thread of the team
  undeferred,  // if(0): each task runs at once on the thread that creates it
  cutoff,      // if(n > 6): the small ones run at once
  final_tail,  // final(n <= 6): the small ones, and all they create, run at once
};

struct run_mode {
  int threads;
  task_mode tasks;
  const char* name;
};

const run_mode serial_elision{1, task_mode::undeferred, "1 thread, undeferred (serial elision)"};
const run_mode parallel_modes[] = {
    {team_size, task_mode::deferred, "4 threads, deferred"},
    {team_size, task_mode::undeferred, "4 threads, undeferred"},
    {team_size, task_mode::cutoff, "4 threads, if(n > 6)"},
    {team_size, task_mode::final_tail, "4 threads, final(n <= 6)"},
    {1, task_mode::deferred, "1 thread, deferred"},
};

// Diagnostics come from any thread.
class diagnostics {
 public:
  fs::options options() {
    fs::options o;
    o.clock = fs::clock_kind::cost;
    o.burden = static_cast<double>(burden);
    o.on_diagnostic = [this](const fs::diagnostic& d) {
      std::lock_guard<std::mutex> g(m_);
      seen_.push_back(d.where + ": " + d.problem);
    };
    return o;
  }
  std::string text() {
    std::lock_guard<std::mutex> g(m_);
    std::string s;
    for (const auto& d : seen_) s += d + "\n";
    return s;
  }
  std::size_t count() {
    std::lock_guard<std::mutex> g(m_);
    return seen_.size();
  }

 private:
  std::mutex m_;
  std::vector<std::string> seen_;
};

// The team size and the threads that ran measured code, per run.
struct participation {
  std::atomic<int> team{0};
  std::atomic<std::uint64_t> threads{0};

  void note() {
    int n = omp_get_num_threads();
    int seen = team.load();
    while (n > seen && !team.compare_exchange_weak(seen, n)) {
    }
    threads.fetch_or(std::uint64_t(1) << (omp_get_thread_num() % 64));
  }
  int distinct() const { return static_cast<int>(std::bitset<64>(threads.load()).count()); }
};

participation* current_participation = nullptr;  // set by the test before each run
void note_thread() {
  if (current_participation) current_participation->note();
}

void expect_clean(const fs::report& r, diagnostics& d, const std::string& what) {
  EXPECT_EQ(r.diagnostic_count, 0u) << what;
  EXPECT_EQ(d.count(), 0u) << what << ":\n" << d.text();
}

// Every number of every row.
void expect_same_numbers(const fs::report& got, const fs::report& want, const std::string& what) {
  EXPECT_EQ(got.label, want.label) << what;
  EXPECT_EQ(got.unit, want.unit) << what;
  EXPECT_EQ(got.burden, want.burden) << what;
  EXPECT_EQ(got.compensation_total, want.compensation_total) << what;
  ASSERT_EQ(got.regions.size(), want.regions.size()) << what;
  for (std::size_t i = 0; i < got.regions.size(); ++i) {
    const fs::region_result& g = got.regions[i];
    const fs::region_result& w = want.regions[i];
    const std::string row = what + ", row " + w.path;
    EXPECT_EQ(g.path, w.path) << row;
    EXPECT_EQ(g.parent, w.parent) << row;
    EXPECT_EQ(g.depth, w.depth) << row;
    EXPECT_EQ(g.instances, w.instances) << row;
    EXPECT_EQ(g.work, w.work) << row;
    EXPECT_EQ(g.span, w.span) << row;
    EXPECT_EQ(g.burdened_span, w.burdened_span) << row;
    EXPECT_EQ(g.spawns, w.spawns) << row;
    EXPECT_EQ(g.syncs, w.syncs) << row;
    EXPECT_EQ(g.calls, w.calls) << row;
    EXPECT_EQ(g.raw_work, w.raw_work) << row;
    EXPECT_EQ(g.raw_span, w.raw_span) << row;
  }
}

struct expected_row {
  const char* path;
  std::uint64_t instances, work, span, burdened_span, spawns, syncs, calls;
};

void expect_rows(const fs::report& r, const std::vector<expected_row>& rows, const std::string& what) {
  ASSERT_EQ(r.regions.size(), rows.size()) << what;
  for (const auto& e : rows) {
    const fs::region_result* g = r.find(e.path);
    ASSERT_NE(g, nullptr) << what << ": no row " << e.path;
    const std::string row = what + ", row " + e.path;
    EXPECT_EQ(g->instances, e.instances) << row;
    EXPECT_EQ(g->work, e.work) << row;
    EXPECT_EQ(g->span, e.span) << row;
    EXPECT_EQ(g->burdened_span, e.burdened_span) << row;
    EXPECT_EQ(g->spawns, e.spawns) << row;
    EXPECT_EQ(g->syncs, e.syncs) << row;
    EXPECT_EQ(g->calls, e.calls) << row;
  }
}

// Runs `program(mode)` as a measurement and checks it produced no diagnostic.
template <class Program>
fs::report run(const char* label, const run_mode& mode, participation& who, Program program) {
  diagnostics d;
  current_participation = &who;
  fs::report r = fs::measure(
      label, [&] { program(mode); }, d.options());
  current_participation = nullptr;
  expect_clean(r, d, std::string(label) + " (" + mode.name + ")");
  return r;
}

void expect_ran_on_a_team(const participation& who, const run_mode& mode, const char* label) {
  if (mode.threads < 2) return;
  EXPECT_GE(who.team.load(), 2) << label << " (" << mode.name << "): the region had one thread";
  std::printf("[ forkscale ] %s (%s): team of %d, measured code ran on %d thread(s)\n", label, mode.name,
              who.team.load(), who.distinct());
}

// ---------------------------------------------------------------------------
// The runtime under test is the one this build was meant for.
TEST(OpenMPAdapter, RuntimeIsTheOneThisBuildIsFor) {
  const bool llvm = dlsym(RTLD_DEFAULT, "__kmpc_fork_call") != nullptr;  // libomp only
  const std::string loaded = llvm ? "libomp" : "libgomp";
  std::printf("[ forkscale ] OpenMP runtime: %s (_OPENMP %d), %d hardware thread(s)\n", loaded.c_str(), _OPENMP,
              static_cast<int>(std::thread::hardware_concurrency()));
  EXPECT_EQ(loaded, std::string(FORKSCALE_TEST_OPENMP_RUNTIME));
}

// ---------------------------------------------------------------------------
// Tasks and taskwait: fib.
bool task_if(task_mode m, int n) {
  return m == task_mode::deferred || (m == task_mode::cutoff && n > 6) || m == task_mode::final_tail;
}
bool task_final(task_mode m, int n) { return m == task_mode::final_tail && n <= 6; }

// With `call_scope`, the inline call is wrapped in an fs::call_site (see
// ACallSiteIsACilkSyncScope); without, it is a plain call.
long fib(int n, task_mode m, bool call_scope = false) {
  if (n < 2) {
    fs::region leaf("leaf");
    fs::charge(1 + static_cast<std::uint64_t>(n));
    return n;
  }
  fs::charge(1 + static_cast<std::uint64_t>(n % 3));
  long x = 0;
  long y = 0;
  const bool deferred = task_if(m, n);
  const bool final_task = task_final(m, n);
  auto tk = fs::omp::spawn_point();
#pragma omp task shared(x) if (deferred) final(final_task)
  {
    fs::omp::task_scope ts(tk);
    note_thread();
    x = fib(n - 1, m, call_scope);
  }
  if (call_scope) {
    fs::call_site cs;
    y = fib(n - 2, m, call_scope);
  } else {
    y = fib(n - 2, m);  // a plain call: its taskwait also waits for x's task
  }
  fs::omp::taskwait();
  fs::charge(2);
  return x + y;
}

long fib_value(int n) { return n < 2 ? n : fib_value(n - 1) + fib_value(n - 2); }

// fib's dag worked out from the model, walking the program as OpenMP runs it.
// Note what taskwait means: it waits for every child of the current *task*, and
// fib(n - 2) is a plain call, run by the task of fib(n): the taskwait inside it
// also waits for the fib(n - 1) task its caller created just before (Cilk's sync
// would not: it is per function). A plain sync_point joins the children of its
// sync scope, which is the task here: the call is a plain call.
struct fib_numbers {
  std::uint64_t work = 0, span = 0, bspan = 0, spawns = 0, syncs = 0, calls = 0, leaves = 0, leaf_work = 0;
};
struct point {
  std::uint64_t pos = 0, bpos = 0;  // longest path to here, plain and burdened
  void add(std::uint64_t c) {
    pos += c;
    bpos += c;
  }
  void join(const point& o) {
    pos = std::max(pos, o.pos);
    bpos = std::max(bpos, o.bpos);
  }
};
struct walked_task {
  point at;       // the task's current point
  point waiting;  // where its children not yet waited for end
};
void fib_walk(int n, walked_task& t, fib_numbers& e) {
  if (n < 2) {
    const std::uint64_t c = 1 + static_cast<std::uint64_t>(n);
    t.at.add(c);
    e.work += c;
    e.leaves += 1;
    e.leaf_work += c;
    return;
  }
  const std::uint64_t c = 1 + static_cast<std::uint64_t>(n % 3);
  t.at.add(c);
  e.work += c;
  walked_task child{t.at, point{}};  // the task starts at its spawn point
  e.spawns += 1;
  fib_walk(n - 1, child, e);  // it ends with a taskwait: nothing left waiting
  t.waiting.join(child.at);
  t.at.bpos += burden;    // the continuation edge carries the burden
  fib_walk(n - 2, t, e);  // a call: the same task
  t.at.join(t.waiting);   // taskwait: every child of the task so far
  t.waiting = point{};
  e.syncs += 1;
  t.at.add(2);
  e.work += 2;
}
// With the call in an fs::call_site, a sync scope as a Cilk function is, the dag is
// Cilk's: the taskwait inside the call joins only what the call spawned.
fib_numbers fib_expected_cilk(int n) {
  if (n < 2) {
    const std::uint64_t c = 1 + static_cast<std::uint64_t>(n);
    return {c, c, c, 0, 0, 0, 1, c};
  }
  const std::uint64_t c = 1 + static_cast<std::uint64_t>(n % 3);
  const fib_numbers a = fib_expected_cilk(n - 1);
  const fib_numbers d = fib_expected_cilk(n - 2);
  return {c + a.work + d.work + 2,
          c + std::max(a.span, d.span) + 2,
          c + std::max(a.bspan, burden + d.bspan) + 2,
          1 + a.spawns + d.spawns,
          1 + a.syncs + d.syncs,
          1 + a.calls + d.calls,
          a.leaves + d.leaves,
          a.leaf_work + d.leaf_work};
}

fib_numbers fib_expected(int n) {
  fib_numbers e;
  walked_task root;
  fib_walk(n, root, e);
  e.span = root.at.pos;
  e.bspan = root.at.bpos;
  return e;
}

// The whole program: a team whose single block computes fib(n). The team is one
// spawn and one join around it.
auto fib_program(int n, long& result, bool call_scope = false) {
  return [n, &result, call_scope](const run_mode& mode) {
    fs::omp::team team;
#pragma omp parallel num_threads(mode.threads)
#pragma omp single
    {
      fs::omp::task_scope ts(team);
      note_thread();
      result = fib(n, mode.tasks, call_scope);
    }
  };
}

std::vector<expected_row> fib_rows(int n, bool call_scope = false) {
  const fib_numbers e = call_scope ? fib_expected_cilk(n) : fib_expected(n);
  return {{"fib", 1, e.work, e.span, std::max(burden, e.bspan), 1 + e.spawns, 1 + e.syncs, e.calls},
          {"fib/leaf", e.leaves, e.leaf_work, e.leaf_work, e.leaf_work, 0, 0, 0}};
}

TEST(OpenMPAdapter, FibHandWorkedNumbers) {
  // fib(4) by hand (docs/openmp.md, "fib(4), by hand"): work 25. The span is 16,
  // not Cilk's 14: the fib(3) task ends at 12, and the taskwait of the inline
  // fib(2) waits for it too (same task), so fib(2) ends at 12 + 2 and fib(4) at
  // 14 + 2. Burdened: 110.
  const fib_numbers e = fib_expected(4);
  EXPECT_EQ(e.work, 25u);
  EXPECT_EQ(e.span, 16u);
  EXPECT_EQ(e.bspan, 110u);
  EXPECT_EQ(e.spawns, 4u);
  EXPECT_EQ(e.leaves, 5u);
  EXPECT_EQ(e.leaf_work, 8u);

  participation who;
  long result = 0;
  const fs::report r = run("fib", parallel_modes[0], who, fib_program(4, result));
  EXPECT_EQ(result, 3);
  EXPECT_EQ(r.work(), 25u);
  EXPECT_EQ(r.span(), 16u);
  EXPECT_EQ(r.burdened_span(), 110u);
  EXPECT_EQ(r.spawns(), 5u);  // the team's block and 4 tasks
  EXPECT_EQ(r.syncs(), 5u);   // the region's end and 4 taskwaits
  EXPECT_EQ(r.calls(), 0u);
  EXPECT_EQ(r.backend, "openmp");  // its spawns went through the adapter
  expect_rows(r, fib_rows(4), "fib(4)");
}

TEST(OpenMPAdapter, TasksAndTaskwaitMatchTheSerialElision) {
  const int n = 16;
  long result = 0;
  participation serial_who;
  const fs::report serial = run("fib", serial_elision, serial_who, fib_program(n, result));
  EXPECT_EQ(result, fib_value(n));
  expect_rows(serial, fib_rows(n), "fib serial elision");

  for (const run_mode& mode : parallel_modes) {
    for (int rep = 0; rep < repeats; ++rep) {
      participation who;
      result = 0;
      const fs::report r = run("fib", mode, who, fib_program(n, result));
      EXPECT_EQ(result, fib_value(n)) << mode.name;
      expect_same_numbers(r, serial, std::string("fib, ") + mode.name);
      if (rep == 0) expect_ran_on_a_team(who, mode, "fib");
    }
  }
}

// fs::call_site is a sync scope, as a Cilk function is: around a call that does a
// taskwait while its caller has a child running, it gives Cilk's dag, in which
// that taskwait does not wait for the caller's child — although OpenMP's does.
// docs/openmp.md says so; this pins the numbers down.
TEST(OpenMPAdapter, ACallSiteIsACilkSyncScope) {
  // fib(4) with its calls in call sites: span 2 + max(10, 7) + 2 = 14, not 16.
  const fib_numbers e = fib_expected_cilk(4);
  EXPECT_EQ(e.work, 25u);
  EXPECT_EQ(e.span, 14u);
  EXPECT_EQ(e.bspan, 110u);
  EXPECT_EQ(e.calls, 4u);

  const int n = 12;
  long result = 0;
  participation serial_who;
  const fs::report serial = run("fib", serial_elision, serial_who, fib_program(n, result, true));
  EXPECT_EQ(result, fib_value(n));
  expect_rows(serial, fib_rows(n, true), "fib in call sites, serial elision");
  for (int rep = 0; rep < repeats; ++rep) {
    participation who;
    const fs::report r = run("fib", parallel_modes[0], who, fib_program(n, result, true));
    EXPECT_EQ(result, fib_value(n));
    expect_same_numbers(r, serial, "fib in call sites, 4 threads");
  }
  fs::report small;
  {
    participation who;
    small = run("fib", parallel_modes[0], who, fib_program(4, result, true));
  }
  EXPECT_EQ(small.span(), 14u);
  EXPECT_EQ(small.calls(), 4u);
}

// fs::omp::call_site counts the call and keeps OpenMP's meaning: the taskwait in
// the called function waits for the caller's task too.
TEST(OpenMPAdapter, AnOmpCallSiteKeepsTaskwaitTaskWide) {
  std::vector<run_mode> modes{serial_elision};
  modes.insert(modes.end(), std::begin(parallel_modes), std::end(parallel_modes));
  for (const run_mode& mode : modes) {
    participation who;
    const fs::report r = run("call", mode, who, [](const run_mode& m) {
      fs::omp::team team;
#pragma omp parallel num_threads(m.threads)
#pragma omp single
      {
        fs::omp::task_scope ts(team);
        auto tk = fs::omp::spawn_point();
#pragma omp task if (m.tasks != task_mode::undeferred)
        {
          fs::omp::task_scope child(tk);
          fs::charge(100);
        }
        {
          fs::omp::call_site cs;
          fs::omp::taskwait();  // waits for the task above: OpenMP semantics
          fs::charge(50);
        }
        fs::omp::taskwait();
      }
    });
    EXPECT_EQ(r.work(), 150u) << mode.name;
    EXPECT_EQ(r.span(), 150u) << mode.name;  // 100 with fs::call_site (a Cilk scope)
    EXPECT_EQ(r.calls(), 1u) << mode.name;
  }
}

// ---------------------------------------------------------------------------
// taskgroup: tasks the group's tasks create without waiting for them, a task
// created before the taskgroup (not waited by it), a taskwait inside a taskgroup.

// A task tree that never waits: the enclosing taskgroup does.
void tree(int depth, bool deferred) {
  if (depth == 0) {
    fs::region leaf("leaf");
    fs::call_site cs;  // counted; it spawns nothing, so its sync scope changes nothing
    fs::charge(10);
    return;
  }
  fs::charge(10 + static_cast<std::uint64_t>(depth));
  for (int i = 0; i < 2; ++i) {
    auto tk = fs::omp::spawn_point();
#pragma omp task if (deferred)
    {
      fs::omp::task_scope ts(tk);
      note_thread();
      tree(depth - 1, deferred);
    }
  }
  fs::charge(3);
}

// A task with a taskgroup of its own and a taskwait inside it.
void waits_inside_its_taskgroup(bool deferred) {
  fs::charge(3);
  fs::omp::taskgroup([deferred] {
    auto d = fs::omp::spawn_point();
#pragma omp task if (deferred)
    {
      fs::omp::task_scope ts(d);
      fs::charge(20);
    }
    fs::omp::taskwait();  // waits for d, a task of this taskgroup
    fs::charge(11);
    auto e = fs::omp::spawn_point();
#pragma omp task if (deferred)
    {
      fs::omp::task_scope ts(e);
      fs::charge(1);
    }
  });
  fs::charge(2);
}

void taskgroup_program(const run_mode& mode) {
  fs::omp::team team;
#pragma omp parallel num_threads(mode.threads)
#pragma omp single
  {
    fs::omp::task_scope ts(team);
    note_thread();
    const bool deferred = mode.tasks == task_mode::deferred;
    fs::charge(5);
    auto a = fs::omp::spawn_point();  // not a task of the taskgroup below
#pragma omp task if (deferred)
    {
      fs::omp::task_scope ts2(a);
      fs::charge(40);
    }
    fs::omp::taskgroup([deferred] {
      fs::charge(4);
      const int depths[3] = {1, 3, 1};
      for (int i = 0; i < 3; ++i) {
        const int depth = depths[i];
        auto tk = fs::omp::spawn_point();
#pragma omp task if (deferred)
        {
          fs::omp::task_scope ts3(tk);
          note_thread();
          tree(depth, deferred);
        }
      }
      auto g = fs::omp::spawn_point();
#pragma omp task if (deferred)
      {
        fs::omp::task_scope ts3(g);
        waits_inside_its_taskgroup(deferred);
      }
      fs::charge(7);
    });
    fs::charge(8);
    fs::omp::taskwait();  // a
    fs::charge(1);
  }
}

TEST(OpenMPAdapter, TaskgroupMatchesTheSerialElisionAndTheHandWorkedDag) {
  participation serial_who;
  const fs::report serial = run("tg", serial_elision, serial_who, taskgroup_program);
  // Worked out in docs/openmp.md ("A taskgroup, by hand"): the deepest tree's
  // forwarded leaves make the span, its second spawn's burden the burdened span.
  const std::vector<expected_row> rows = {{"tg", 1, 352, 64, 357, 26, 6, 12}, {"tg/leaf", 12, 120, 120, 120, 0, 0, 12}};
  expect_rows(serial, rows, "taskgroup serial elision");

  const run_mode modes[] = {parallel_modes[0], parallel_modes[1], parallel_modes[4]};
  for (const run_mode& mode : modes) {
    for (int rep = 0; rep < repeats; ++rep) {
      participation who;
      const fs::report r = run("tg", mode, who, taskgroup_program);
      expect_same_numbers(r, serial, std::string("taskgroup, ") + mode.name);
      expect_rows(r, rows, std::string("taskgroup, ") + mode.name);
      if (rep == 0) expect_ran_on_a_team(who, mode, "taskgroup");
    }
  }
}

// ---------------------------------------------------------------------------
// Tasks nobody waits for but the parallel region's end. Two of them meet: each
// waits until the other has started, which only two threads at once can do (in
// the parallel runs; the cost clock charges nothing for the wait).
struct meeting {
  std::atomic<int> arrived{0};
  std::atomic<bool> failed{false};
  void arrive_and_wait() {
    arrived.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (arrived.load() < 2) {
      if (std::chrono::steady_clock::now() > deadline) {
        failed.store(true);
        return;
      }
      std::this_thread::yield();
    }
  }
};

void unwaited_program(const run_mode& mode, meeting* meet) {
  fs::omp::team team;
#pragma omp parallel num_threads(mode.threads)
  {
#pragma omp single nowait
    {
      fs::omp::task_scope ts(team);
      note_thread();
      const bool deferred = mode.tasks == task_mode::deferred;
      fs::charge(3);
      for (int i = 0; i < 4; ++i) {
        auto tk = fs::omp::spawn_point();
#pragma omp task if (deferred)
        {
          fs::omp::task_scope ts2(tk);
          note_thread();
          fs::charge(10 * static_cast<std::uint64_t>(i + 1));
          if (i % 2 == 0) {
            for (int c = 0; c < 2; ++c) {
              auto ck = fs::omp::spawn_point();
#pragma omp task if (deferred)
              {
                fs::omp::task_scope ts3(ck);
                fs::charge(5 + static_cast<std::uint64_t>(i));
              }
            }
          }
        }
      }
      for (int j = 0; j < 2; ++j) {
        auto tk = fs::omp::spawn_point();
#pragma omp task if (deferred)
        {
          fs::omp::task_scope ts2(tk);
          note_thread();
          fs::charge(2);
          if (meet) meet->arrive_and_wait();
        }
      }
      fs::charge(4);
    }
  }  // the region's implicit barrier: every task above is done
}

TEST(OpenMPAdapter, TasksWaitedOnlyByTheRegionsEndMatchTheSerialElision) {
  participation serial_who;
  const fs::report serial =
      run("region", serial_elision, serial_who, [](const run_mode& m) { unwaited_program(m, nullptr); });
  // By hand (docs/openmp.md, "A parallel region, by hand").
  expect_rows(serial, {{"region", 1, 135, 43, 307, 11, 1, 0}}, "region serial elision");

  const run_mode modes[] = {parallel_modes[0], parallel_modes[1], parallel_modes[4]};
  for (const run_mode& mode : modes) {
    for (int rep = 0; rep < repeats; ++rep) {
      participation who;
      meeting meet;
      const bool concurrent = mode.threads > 1 && mode.tasks == task_mode::deferred;
      const fs::report r =
          run("region", mode, who, [&](const run_mode& m) { unwaited_program(m, concurrent ? &meet : nullptr); });
      if (concurrent) {
        EXPECT_FALSE(meet.failed.load()) << "two tasks never ran at the same time on " << mode.name;
        EXPECT_GE(who.distinct(), 2);
      }
      expect_same_numbers(r, serial, std::string("region, ") + mode.name);
      if (rep == 0) expect_ran_on_a_team(who, mode, "region");
    }
  }
}

// ---------------------------------------------------------------------------
// parallel for: each chunk a child of the loop, joined at its end.
void loop_program(const run_mode& mode, fs::omp::loop_schedule kind, std::vector<long>& out) {
  fs::charge(2);
  fs::omp::parallel_for(
      0, 100, 7,
      [&](int i) {
        note_thread();
        fs::call_site cs;
        fs::charge(1 + static_cast<std::uint64_t>(i % 13));
        out[static_cast<std::size_t>(i)] = static_cast<long>(i) * i;
      },
      kind, mode.threads);
  fs::charge(3);
}

// The loop's numbers from the model, for any chunk size: chunk k is spawned
// k-th, so it starts k burdens after the loop starts; the loop's continuation
// starts after all of them.
struct loop_numbers {
  std::uint64_t work, span, bspan, spawns;
};
loop_numbers loop_expected(int n, int chunk) {
  const int chunks = (n + chunk - 1) / chunk;
  std::uint64_t work = 2, longest = 0, blongest = 2 + burden * static_cast<std::uint64_t>(chunks);
  for (int k = 0; k < chunks; ++k) {
    std::uint64_t c = 0;
    for (int i = k * chunk; i < std::min(n, (k + 1) * chunk); ++i) c += 1 + static_cast<std::uint64_t>(i % 13);
    work += c;
    longest = std::max(longest, c);
    blongest = std::max(blongest, 2 + burden * static_cast<std::uint64_t>(k) + c);
  }
  return {work + 3, 2 + longest + 3, blongest + 3, static_cast<std::uint64_t>(chunks)};
}

TEST(OpenMPAdapter, ParallelForChunksMatchTheSerialElision) {
  const loop_numbers e = loop_expected(100, 7);
  // By hand: 15 chunks; work 2 + (100 + 582) + 3; the longest chunk is i = 84..90
  // (residues 6..12 mod 13: 7 + 63 = 70); the burdened span is the continuation's,
  // after 15 spawns: 2 + 15 * 50 + 3.
  EXPECT_EQ(e.work, 687u);
  EXPECT_EQ(e.span, 75u);
  EXPECT_EQ(e.bspan, 755u);
  EXPECT_EQ(e.spawns, 15u);

  for (auto kind : {fs::omp::loop_schedule::dynamic, fs::omp::loop_schedule::static_chunks}) {
    const char* name = kind == fs::omp::loop_schedule::dynamic ? "loop (dynamic)" : "loop (static)";
    std::vector<long> serial_out(100, -1);
    participation serial_who;
    const fs::report serial = run("loop", {1, task_mode::undeferred, "1 thread"}, serial_who,
                                  [&](const run_mode& m) { loop_program(m, kind, serial_out); });
    expect_rows(serial, {{"loop", 1, e.work, e.span, e.bspan, e.spawns, 1, 100}}, name);
    for (int rep = 0; rep < repeats; ++rep) {
      std::vector<long> out(100, -1);
      participation who;
      const fs::report r = run("loop", {team_size, task_mode::deferred, "4 threads"}, who,
                               [&](const run_mode& m) { loop_program(m, kind, out); });
      EXPECT_EQ(out, serial_out) << name;
      expect_same_numbers(r, serial, name);
      if (rep == 0) expect_ran_on_a_team(who, {team_size, task_mode::deferred, "4 threads"}, name);
    }
  }
}

// Chunks that create tasks and never wait for them: the loop's end does.
void loop_with_tasks(const run_mode& mode) {
  const bool deferred = mode.tasks == task_mode::deferred;
  fs::omp::parallel_for(
      0, 40, 4,
      [deferred](int i) {
        note_thread();
        fs::charge(3);
        if (i % 10 == 0) {
          auto tk = fs::omp::spawn_point();
#pragma omp task if (deferred)
          {
            fs::omp::task_scope ts(tk);
            fs::charge(20 + static_cast<std::uint64_t>(i));
          }
        }
      },
      fs::omp::loop_schedule::dynamic, mode.threads);
  fs::charge(1);
}

TEST(OpenMPAdapter, TasksLeftByLoopChunksAreJoinedAtTheLoopsEnd) {
  participation serial_who;
  const fs::report serial = run("loop-tasks", serial_elision, serial_who, loop_with_tasks);
  // By hand: 10 chunks of 4 iterations, 3 units each; i = 0, 10, 20, 30 (in chunks
  // 0, 2, 5, 7) create a task of 20 + i units. Chunk k starts k burdens after the
  // loop. The span is chunk 7's: 2 iterations (6), i = 30 (3), then its task (50),
  // plus the final 1: 60. The burdened span is the loop's continuation after its
  // 10 spawns, 500, plus 1 (chunk 7's task ends at 350 + 9 + 50 = 409, its own
  // continuation at 350 + 9 + 50 + 3 = 412; chunk 9 at 450 + 12).
  expect_rows(serial, {{"loop-tasks", 1, 10 * 12 + 140 + 1, 60, 501, 14, 1, 0}}, "loop with tasks");
  for (const run_mode& mode : {parallel_modes[0], parallel_modes[1]}) {
    for (int rep = 0; rep < repeats; ++rep) {
      participation who;
      const fs::report r = run("loop-tasks", mode, who, loop_with_tasks);
      expect_same_numbers(r, serial, std::string("loop with tasks, ") + mode.name);
    }
  }
}

// ---------------------------------------------------------------------------
// The token: copying moves the spawn point; misuse is reported by the engine.
// Every entry point names the caller's line: each guard below is on the line after
// the insert that records it, and the report's site rows name exactly those lines.
TEST(OpenMPAdapterSites, EveryEntryPointNamesTheCallersLine) {
  std::set<unsigned> spawns, calls;
  diagnostics d;
  const fs::report r = fs::measure(
      "sites",
      [&] {
        {  // the team and its region
          spawns.insert(__LINE__ + 1);
          fs::omp::team team;
#pragma omp parallel num_threads(2)
#pragma omp single
          {
            fs::omp::task_scope ts(team);
            spawns.insert(__LINE__ + 1);
            auto tk = fs::omp::spawn_point();
#pragma omp task
            {
              fs::omp::task_scope body(tk);
              fs::charge(3);
            }
            {
              calls.insert(__LINE__ + 1);
              fs::omp::call_site cs;
              fs::charge(1);
            }
            fs::omp::taskwait();
            fs::task_group group;
            spawns.insert(__LINE__ + 1);
            auto in_group = fs::omp::spawn_point(group);
#pragma omp task
            {
              fs::omp::task_scope body(in_group);
              fs::charge(2);
            }
            {
              fs::sync_point sp(group);
#pragma omp taskwait
            }
            fs::omp::taskgroup([&] {
              spawns.insert(__LINE__ + 1);
              auto tg = fs::omp::spawn_point();
#pragma omp task
              {
                fs::omp::task_scope body(tg);
                fs::charge(2);
              }
            });
          }
        }
        spawns.insert(__LINE__ + 1);
        fs::omp::parallel_for(0, 8, 2, [](int) { fs::charge(1); });
      },
      d.options());
  expect_clean(r, d, "sites");
  adapter_check::expect_sites_at(r, __FILE__, spawns, calls, "OpenMP adapter");
}

TEST(OpenMPAdapter, ATaskTokenMovesIntoItsCopy) {
  diagnostics d;
  const fs::report r = fs::measure(
      "token",
      [] {
        auto tk = fs::omp::spawn_point();
        EXPECT_TRUE(static_cast<bool>(tk));
        fs::omp::task_token copy(tk);  // what OpenMP does to a firstprivate variable
        EXPECT_FALSE(static_cast<bool>(tk));
        EXPECT_TRUE(static_cast<bool>(copy));
        {
          fs::omp::task_scope ts(copy);
          fs::charge(7);
        }
        EXPECT_FALSE(static_cast<bool>(copy));
        fs::omp::taskwait();
      },
      d.options());
  EXPECT_EQ(r.work(), 7u);
  EXPECT_EQ(r.spawns(), 1u);
  expect_clean(r, d, "token");
}

TEST(OpenMPAdapter, MisuseIsReportedNotHidden) {
  diagnostics d;
  const fs::report r = fs::measure(
      "misuse",
      [] {
        {
          auto unused = fs::omp::spawn_point();  // no task ever takes it
        }
        auto tk = fs::omp::spawn_point();
#pragma omp task if (0)
        {
          fs::omp::task_scope ts(tk);
          fs::charge(1);
        }
#pragma omp task if (0)
        {
          fs::omp::task_scope ts(tk);  // the same spawn point again: an empty token
          fs::charge(1);
        }
        fs::omp::taskwait();
      },
      d.options());
  EXPECT_EQ(r.diagnostic_count, 2u) << d.text();
  EXPECT_EQ(d.count(), 2u);
}

// The adapter makes its backend calibratable (burden.hpp): the micro-benchmark
// runs and its figures have the right shape; no timing is asserted.
TEST(OpenMPBurden, CalibratesItsBurden) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one hardware thread: nothing can be stolen";
  const fs::measured_burden m = fs::calibrate_burden(fs::backend::openmp);
  EXPECT_EQ(m.backend, fs::backend::openmp);
  EXPECT_GT(m.spawn_ns, 0);
  EXPECT_GE(m.steal_median_ns, m.steal_ns);
  EXPECT_GE(m.rounds, 50u);
}

}  // namespace
