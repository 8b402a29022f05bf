// OMPT mode on unannotated OpenMP programs whose numbers are worked out by hand
// (docs/ompt.md, "By hand"), under the cost clock with a burden of 0: every
// construct the tool maps, each in its own program. Every run must give these
// numbers, with no diagnostic; each program runs several times.
#include <forkscale/ompt.hpp>

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace fs = forkscale;

namespace {

constexpr int repeats = 4;

struct numbers {
  std::uint64_t work, span;
};

// Runs `program` `repeats` times; every run must give `want` and no diagnostic.
void expect_numbers(const std::function<void()>& program, numbers want, const char* what) {
  for (int r = 0; r < repeats; ++r) {
    std::vector<std::string> seen;
    std::mutex m;
    fs::options o;
    o.clock = fs::clock_kind::cost;
    o.burden = 0;
    o.on_diagnostic = [&](const fs::diagnostic& d) {
      std::lock_guard<std::mutex> g(m);
      seen.push_back(d.where + ": " + d.problem);
    };
    const fs::report rep = fs::measure(what, program, o);
    EXPECT_EQ(rep.work(), want.work) << what << ", run " << r;
    EXPECT_EQ(rep.span(), want.span) << what << ", run " << r;
    for (const auto& d : seen) ADD_FAILURE() << what << ": " << d;
  }
}

// A binary tree of tasks: each inner task charges 2, creates two tasks, waits
// for them, charges 1; a leaf charges 5. Span 3d + 5, work 3(2^d - 1) + 5·2^d.
void tree(int depth) {
  if (depth == 0) {
    fs::charge(5);
    return;
  }
  fs::charge(2);
#pragma omp task
  tree(depth - 1);
#pragma omp task
  tree(depth - 1);
#pragma omp taskwait
  fs::charge(1);
}

// docs/openmp.md's fib: a leaf charges 1 + n, an inner call 1 + n % 3 on entry,
// spawns fib(n-1), calls fib(n-2), waits (for every child of the task: OpenMP's
// taskwait is per task, so the inner call's wait also waits for its caller's
// child), charges 2. fib(4): work 25, span 16.
long fib(int n) {
  if (n < 2) {
    fs::charge(1 + static_cast<std::uint64_t>(n));
    return n;
  }
  fs::charge(1 + static_cast<std::uint64_t>(n % 3));
  long x = 0;
#pragma omp task shared(x)
  x = fib(n - 1);
  const long y = fib(n - 2);
#pragma omp taskwait
  fs::charge(2);
  return x + y;
}

TEST(OmptCases, TheToolRuns) { ASSERT_TRUE(fs::ompt::active()) << fs::ompt::why_inactive(); }

// Issue 17, "done when": an unannotated task tree.
TEST(OmptCases, ATaskTreeGivesTheHandCount) {
  for (int d : {0, 1, 4}) {
    const std::uint64_t leaves = 1ull << d;
    const numbers want{3 * (leaves - 1) + 5 * leaves, 3 * static_cast<std::uint64_t>(d) + 5};
    expect_numbers(
        [d] {
#pragma omp parallel num_threads(4)
#pragma omp single
          tree(d);
        },
        want, "tree");
  }
}

TEST(OmptCases, FibGivesTheAdaptersHandCount) {
  expect_numbers(
      [] {
#pragma omp parallel num_threads(4)
#pragma omp single
        fib(4);
      },
      numbers{25, 16}, "fib(4)");
}

// Issue 17, "done when": `parallel for schedule(dynamic, 1)` over uneven
// iterations — each iteration a strand: the work is their sum, the span the
// longest one.
TEST(OmptCases, ADynamicLoopMakesEachIterationAStrand) {
  std::vector<std::uint64_t> cost(40);
  for (std::size_t i = 0; i < cost.size(); ++i) cost[i] = 1 + (i * 7) % 11 + (i == 23 ? 30 : 0);
  std::uint64_t total = 0, longest = 0;
  for (auto c : cost) {
    total += c;
    longest = std::max(longest, c);
  }
  for (int threads : {2, 4}) {
    expect_numbers(
        [&] {
          const int n = static_cast<int>(cost.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
          for (int i = 0; i < n; ++i) fs::charge(cost[static_cast<std::size_t>(i)]);
        },
        numbers{total, longest}, "parallel for schedule(dynamic, 1)");
  }
}

// Barriers join every thread: phase 1 is the slowest thread's 30, phase 2 is 5.
TEST(OmptCases, ABarrierJoinsTheTeam) {
  expect_numbers(
      [] {
#pragma omp parallel num_threads(3)
        {
          fs::charge(10 * static_cast<std::uint64_t>(omp_get_thread_num() + 1));
#pragma omp barrier
          fs::charge(5);
        }
      },
      numbers{75, 35}, "barrier");
}

// single (its barrier), then master (no barrier: thread 0 alone), then every
// thread: phase 1 is the single's 7; then thread 0 does 4 + 2, the others 2.
TEST(OmptCases, SingleAndMaster) {
  expect_numbers(
      [] {
#pragma omp parallel num_threads(3)
        {
#pragma omp single
          fs::charge(7);
#pragma omp master
          fs::charge(4);
          fs::charge(2);
        }
      },
      numbers{7 + 4 + 3 * 2, 7 + 4 + 2}, "single, master");
}

// A task outside the taskgroup (100) is not waited for by it; inside, a task
// (10) with a child it leaves (20): the taskgroup waits for both (30), then 1.
TEST(OmptCases, ATaskgroupWaitsForDescendants) {
  expect_numbers(
      [] {
#pragma omp parallel num_threads(3)
#pragma omp single
        {
#pragma omp task
          fs::charge(100);
#pragma omp taskgroup
          {
#pragma omp task
            {
              fs::charge(10);
#pragma omp task
              fs::charge(20);
            }
          }
          fs::charge(1);
        }
      },
      numbers{131, 100}, "taskgroup");
}

// A (10) -> B (20) -> D (7), and A -> C (5): the longest chain is 37.
TEST(OmptCases, DependEdgesAreJoins) {
  expect_numbers(
      [] {
        int a = 0, b = 0;
#pragma omp parallel num_threads(3) shared(a, b)
#pragma omp single
        {
#pragma omp task depend(out : a)
          fs::charge(10);
#pragma omp task depend(in : a) depend(out : b)
          fs::charge(20);
#pragma omp task depend(in : a)
          fs::charge(5);
#pragma omp task depend(in : b)
          fs::charge(7);
        }
      },
      numbers{42, 37}, "depend");
}

// mutexinoutset tasks exclude each other but are not ordered (20 ∥ 10); the
// reader after them waits for both: 20 + 1.
TEST(OmptCases, MutexinoutsetTasksAreSiblingsOfEachOther) {
  expect_numbers(
      [] {
        int a = 0;
#pragma omp parallel num_threads(3) shared(a)
#pragma omp single
        {
#pragma omp task depend(mutexinoutset : a)
          fs::charge(10);
#pragma omp task depend(mutexinoutset : a)
          fs::charge(20);
#pragma omp task depend(in : a)
          fs::charge(1);
        }
      },
      numbers{31, 21}, "mutexinoutset");
}

// `task if(0) depend`: the encountering task waits for A (10), runs the task
// (20) at once, charges 1; the reader after it follows it: 10 + 20 + 5.
TEST(OmptCases, AnUndeferredTaskWithDependences) {
  expect_numbers(
      [] {
        int a = 0;
#pragma omp parallel num_threads(2) shared(a)
#pragma omp single
        {
#pragma omp task depend(out : a)
          fs::charge(10);
#pragma omp task depend(inout : a) if (0)
          fs::charge(20);
          fs::charge(1);
#pragma omp task depend(in : a)
          fs::charge(5);
        }
      },
      numbers{36, 35}, "task if(0) depend");
}

// taskloop grainsize(2) over 10 iterations charging i + 1: five tasks, the
// longest 9 + 10; its taskgroup joins them before the 3 that follows.
TEST(OmptCases, TaskloopTasksAreStrandsOfAParallelLoop) {
  expect_numbers(
      [] {
#pragma omp parallel num_threads(3)
#pragma omp single
        {
#pragma omp taskloop grainsize(2)
          for (int i = 0; i < 10; ++i) fs::charge(static_cast<std::uint64_t>(i) + 1);
          fs::charge(3);
        }
      },
      numbers{58, 22}, "taskloop");
}

// schedule(static): one share per thread, [0,3) [3,6) [6,9) charging i + 1:
// 6, 15 and 24. A statically scheduled share is one strand.
TEST(OmptCases, AStaticShareIsOneChunk) {
  expect_numbers(
      [] {
#pragma omp parallel for schedule(static) num_threads(3)
        for (int i = 0; i < 9; ++i) fs::charge(static_cast<std::uint64_t>(i) + 1);
      },
      numbers{45, 24}, "schedule(static)");
}

// schedule(guided) on 2 threads over 50 iterations of 1: libomp's first chunk
// is 50 / 4 = 12 iterations, the longest.
TEST(OmptCases, GuidedChunksComeFromTheDispatcher) {
  expect_numbers(
      [] {
#pragma omp parallel for schedule(guided) num_threads(2)
        for (int i = 0; i < 50; ++i) fs::charge(1);
      },
      numbers{50, 12}, "schedule(guided)");
}

// Three sections on three threads: one each.
TEST(OmptCases, Sections) {
  expect_numbers(
      [] {
#pragma omp parallel sections num_threads(3)
        {
#pragma omp section
          fs::charge(10);
#pragma omp section
          fs::charge(20);
#pragma omp section
          fs::charge(30);
        }
      },
      numbers{60, 30}, "sections");
}

// Nested regions: 2 x 2 threads charging 10 with nested parallelism on; with it
// off (libomp's default) each inner region has one thread.
TEST(OmptCases, NestedRegions) {
  const int levels = omp_get_max_active_levels();
  omp_set_max_active_levels(2);
  expect_numbers(
      [] {
#pragma omp parallel num_threads(2)
        {
#pragma omp parallel num_threads(2)
          fs::charge(10);
        }
      },
      numbers{40, 10}, "nested, on");
  omp_set_max_active_levels(1);
  expect_numbers(
      [] {
#pragma omp parallel num_threads(2)
        {
#pragma omp parallel num_threads(2)
          fs::charge(10);
        }
      },
      numbers{20, 10}, "nested, off");
  omp_set_max_active_levels(levels);
}

// A team of one thread runs a dynamic loop as one chunk (libomp hands it the
// whole range): the loop's own parallelism is not seen (docs/ompt.md, "Limits").
TEST(OmptCases, ATeamOfOneRunsADynamicLoopAsOneChunk) {
  expect_numbers(
      [] {
#pragma omp parallel for schedule(dynamic, 1) num_threads(1)
        for (int i = 0; i < 10; ++i) fs::charge(3);
      },
      numbers{30, 30}, "one thread");
}

// Tasks created in a loop's body are children of the implicit task: the
// barrier after the loop waits for them. schedule(static) on 2 threads over 4
// iterations: each thread charges 1, creates a task (10), charges 1, creates
// another: its second task ends at 1 + 1 + 10; then every thread charges 5.
TEST(OmptCases, TasksCreatedInALoopAreJoinedAtItsBarrier) {
  expect_numbers(
      [] {
#pragma omp parallel num_threads(2)
        {
#pragma omp for schedule(static)
          for (int i = 0; i < 4; ++i) {
            fs::charge(1);
#pragma omp task
            fs::charge(10);
          }
          fs::charge(5);
        }
      },
      numbers{4 + 40 + 2 * 5, 12 + 5}, "tasks in a loop");
}

// A worksharing loop outside any parallel region runs in the initial task's
// team of one: one chunk, joined by the loop's barrier before the 1 after it.
TEST(OmptCases, AnOrphanedLoopInTheInitialTask) {
  expect_numbers(
      [] {
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < 4; ++i) fs::charge(3);
        fs::charge(1);
      },
      numbers{13, 13}, "orphaned loop");
}

// Call sites come from OMPT's code pointers: the task's row names this file and
// the task's line (the pragma's or the statement's, as the compiler's line
// table says).
TEST(OmptCases, SpawnSitesNameTheirLine) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  const unsigned pragma_line = __LINE__ + 5;
  const fs::report rep = fs::measure(
      "sites",
      [] {
#pragma omp parallel num_threads(2)
#pragma omp single
#pragma omp task
        fs::charge(3);
      },
      o);
  bool found = false;
  for (const auto& row : rep.spawn_sites) {
    if (row.file.find("test_ompt_cases.cpp") == std::string::npos) continue;
    if (row.line == pragma_line || row.line == pragma_line + 1) found = row.tasks == 1 || found;
  }
  std::string rows;
  for (const auto& row : rep.spawn_sites) rows += row.file + ":" + std::to_string(row.line) + " ";
  EXPECT_TRUE(found) << "no spawn site at test_ompt_cases.cpp:" << pragma_line << " among: " << rows;
}

// ---- untied tasks ------------------------------------------------------------------
// An untied task may be suspended at a task scheduling point and resumed on
// another thread (clang splits its body into parts there; libomp runs each part
// wherever a thread takes it). Its frame follows it: every run gives the hand
// count, the spawns (every task created, and one implicit task per thread for
// each of the region's two phases: the single's barrier, the region's end) and
// the syncs (every taskwait, and the joins of those two phases), with no
// diagnostic. (Issue 30: such programs hung, or counted wrong.)
struct counts {
  std::uint64_t work, span, spawns, syncs;
};

void expect_counts(const std::function<void()>& program, counts want, const char* what, int runs) {
  for (int r = 0; r < runs; ++r) {
    std::vector<std::string> seen;
    std::mutex m;
    fs::options o;
    o.clock = fs::clock_kind::cost;
    o.burden = 0;
    o.on_diagnostic = [&](const fs::diagnostic& d) {
      std::lock_guard<std::mutex> g(m);
      seen.push_back(d.where + ": " + d.problem);
    };
    const fs::report rep = fs::measure(what, program, o);
    EXPECT_EQ(rep.work(), want.work) << what << ", run " << r;
    EXPECT_EQ(rep.span(), want.span) << what << ", run " << r;
    EXPECT_EQ(rep.spawns(), want.spawns) << what << ", run " << r;
    EXPECT_EQ(rep.syncs(), want.syncs) << what << ", run " << r;
    EXPECT_EQ(rep.check_profile(), "") << what << ", run " << r;
    for (const auto& d : seen) ADD_FAILURE() << what << ", run " << r << ": " << d;
    if (::testing::Test::HasFailure()) return;
  }
}

// Each task charges 3, creates a task charging 2, waits for it and charges 1:
// three parts, each of which may run on another thread.
void untied_loop(int n) {
  for (int i = 0; i < n; ++i) {
#pragma omp task untied
    {
      fs::charge(3);
#pragma omp task
      fs::charge(2);
#pragma omp taskwait
      fs::charge(1);
    }
  }
#pragma omp taskwait
}

// BOTS's fib: both calls untied tasks. A leaf charges 1; an inner call 1 on
// entry and 1 after its taskwait.
long untied_fib(int n) {
  if (n < 2) {
    fs::charge(1);
    return n;
  }
  fs::charge(1);
  long x = 0, y = 0;
#pragma omp task untied shared(x)
  x = untied_fib(n - 1);
#pragma omp task untied shared(y)
  y = untied_fib(n - 2);
#pragma omp taskwait
  fs::charge(1);
  return x + y;
}

// work, tasks, taskwaits of untied_fib(n); its span is 2n - 1.
struct fib_counts {
  std::uint64_t work, tasks, waits;
};
fib_counts fib_by_hand(int n) {
  if (n < 2) return {1, 0, 0};
  const fib_counts a = fib_by_hand(n - 1), b = fib_by_hand(n - 2);
  return {2 + a.work + b.work, 2 + a.tasks + b.tasks, 1 + a.waits + b.waits};
}

TEST(OmptCases, UntiedTasksInALoop) {
  constexpr int n = 100;
  for (int threads : {1, 2}) {
    const std::uint64_t t = static_cast<std::uint64_t>(threads);
    expect_counts(
        [threads] {
#pragma omp parallel num_threads(threads)
#pragma omp single
          untied_loop(n);
        },
        counts{6 * n, 6, 2 * n + 2 * t, n + 1 + 2}, "untied loop", 20);
  }
}

TEST(OmptCases, UntiedFib) {
  constexpr int n = 13;
  const fib_counts f = fib_by_hand(n);
  for (int threads : {1, 2}) {
    const std::uint64_t t = static_cast<std::uint64_t>(threads);
    expect_counts(
        [threads] {
#pragma omp parallel num_threads(threads)
#pragma omp single
          EXPECT_EQ(untied_fib(n), 233);
        },
        counts{f.work, 2 * n - 1, f.tasks + 2 * t, f.waits + 2}, "untied fib", 20);
  }
}

}  // namespace
