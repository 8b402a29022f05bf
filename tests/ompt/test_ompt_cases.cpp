// OMPT mode on unannotated OpenMP programs whose numbers are worked out by hand
// (docs/ompt.md, "By hand"), under the cost clock with a burden of 0: every
// construct the tool maps, each in its own program. Every run must give these
// numbers, with no diagnostic and the profile's self-checks holding (per-site
// span within per-site work among them); each program runs several times. The
// programs count the tasks they create and the taskwaits they run themselves:
// the report's spawns and syncs must be those plus what the constructs around
// them add by hand (an implicit task per thread and phase of a region, a chunk
// per static share or dynamic chunk, a sync per barrier, taskgroup and task that
// waits for `depend` predecessors).
#include <forkscale/ompt.hpp>

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
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
  std::uint64_t spawns, syncs;  // beyond the program's own tasks and taskwaits
};

// The program's own count of the tasks it creates and the taskwaits it runs.
std::atomic<std::uint64_t> tasks_created{0}, taskwaits_run{0};
void created() { tasks_created.fetch_add(1, std::memory_order_relaxed); }
void waited() { taskwaits_run.fetch_add(1, std::memory_order_relaxed); }

// Runs `program` `repeats` times; every run must give `want` and no diagnostic.
void expect_numbers(const std::function<void()>& program, numbers want, const char* what) {
  for (int r = 0; r < repeats; ++r) {
    tasks_created = 0;
    taskwaits_run = 0;
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
    EXPECT_EQ(rep.spawns(), tasks_created + want.spawns) << what << ", run " << r;
    EXPECT_EQ(rep.syncs(), taskwaits_run + want.syncs) << what << ", run " << r;
    EXPECT_EQ(rep.check_profile(), "") << what << ", run " << r;
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
  created();
#pragma omp task
  tree(depth - 1);
  created();
#pragma omp task
  tree(depth - 1);
  waited();
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
  created();
#pragma omp task shared(x)
  x = fib(n - 1);
  const long y = fib(n - 2);
  waited();
#pragma omp taskwait
  fs::charge(2);
  return x + y;
}

// The number of chunks libomp's guided schedule hands out (docs/openmp.md,
// "Loops"): floor(left / 2T) while at least 2T(c + 1) iterations are left, then c.
std::uint64_t guided_chunks(std::uint64_t n, std::uint64_t threads, std::uint64_t c = 1) {
  std::uint64_t chunks = 0;
  for (std::uint64_t left = n; left > 0; ++chunks)
    left -= std::min(left, left >= 2 * threads * (c + 1) ? left / (2 * threads) : c);
  return chunks;
}

TEST(OmptCases, TheToolRuns) { ASSERT_TRUE(fs::ompt::active()) << fs::ompt::why_inactive(); }

// Issue 17, "done when": an unannotated task tree.
TEST(OmptCases, ATaskTreeGivesTheHandCount) {
  for (int d : {0, 1, 4}) {
    const std::uint64_t leaves = 1ull << d;
    // Two phases of four implicit tasks (the single's barrier, the region's end).
    const numbers want{3 * (leaves - 1) + 5 * leaves, 3 * static_cast<std::uint64_t>(d) + 5, 8, 2};
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
      numbers{25, 16, 8, 2}, "fib(4)");
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
        // One phase (`parallel for`: the loop's barrier is the region's end), 40 chunks.
        numbers{total, longest, static_cast<std::uint64_t>(threads) + 40, 1}, "parallel for schedule(dynamic, 1)");
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
      numbers{75, 35, 6, 2}, "barrier");
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
      numbers{7 + 4 + 3 * 2, 7 + 4 + 2, 6, 2}, "single, master");
}

// A task outside the taskgroup (100) is not waited for by it; inside, a task
// (10) with a child it leaves (20): the taskgroup waits for both (30), then 1.
TEST(OmptCases, ATaskgroupWaitsForDescendants) {
  expect_numbers(
      [] {
#pragma omp parallel num_threads(3)
#pragma omp single
        {
          created();
#pragma omp task
          fs::charge(100);
#pragma omp taskgroup
          {
            created();
#pragma omp task
            {
              fs::charge(10);
              created();
#pragma omp task
              fs::charge(20);
            }
          }
          fs::charge(1);
        }
      },
      numbers{131, 100, 6, 2 + 1}, "taskgroup");
}

// A (10) -> B (20) -> D (7), and A -> C (5): the longest chain is 37.
TEST(OmptCases, DependEdgesAreJoins) {
  expect_numbers(
      [] {
        int a = 0, b = 0;
#pragma omp parallel num_threads(3) shared(a, b)
#pragma omp single
        {
          created();
#pragma omp task depend(out : a)
          fs::charge(10);
          created();
#pragma omp task depend(in : a) depend(out : b)
          fs::charge(20);
          created();
#pragma omp task depend(in : a)
          fs::charge(5);
          created();
#pragma omp task depend(in : b)
          fs::charge(7);
        }
      },
      numbers{42, 37, 6, 2 + 3}, "depend");  // three tasks wait for predecessors
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
          created();
#pragma omp task depend(mutexinoutset : a)
          fs::charge(10);
          created();
#pragma omp task depend(mutexinoutset : a)
          fs::charge(20);
          created();
#pragma omp task depend(in : a)
          fs::charge(1);
        }
      },
      numbers{31, 21, 6, 2 + 1}, "mutexinoutset");
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
          created();
#pragma omp task depend(out : a)
          fs::charge(10);
          created();
#pragma omp task depend(inout : a) if (0)
          fs::charge(20);
          fs::charge(1);
          created();
#pragma omp task depend(in : a)
          fs::charge(5);
        }
      },
      numbers{36, 35, 4, 2 + 2}, "task if(0) depend");  // the stand-in's wait, the reader's
}

// taskloop grainsize(2) over 10 iterations charging i + 1: five tasks, the
// longest 9 + 10; its taskgroup joins them before the 3 that follows.
TEST(OmptCases, TaskloopTasksAreStrandsOfAParallelLoop) {
  expect_numbers(
      [] {
#pragma omp parallel num_threads(3)
#pragma omp single
        {
          bool first = true;  // each task's own: counts the task once
#pragma omp taskloop grainsize(2) firstprivate(first)
          for (int i = 0; i < 10; ++i) {
            if (first) created();
            first = false;
            fs::charge(static_cast<std::uint64_t>(i) + 1);
          }
          fs::charge(3);
        }
      },
      numbers{58, 22, 6, 2 + 1}, "taskloop");  // five tasks (too few to split), its taskgroup
}

// schedule(static): one share per thread, [0,3) [3,6) [6,9) charging i + 1:
// 6, 15 and 24. A statically scheduled share is one strand.
TEST(OmptCases, AStaticShareIsOneChunk) {
  expect_numbers(
      [] {
#pragma omp parallel for schedule(static) num_threads(3)
        for (int i = 0; i < 9; ++i) fs::charge(static_cast<std::uint64_t>(i) + 1);
      },
      numbers{45, 24, 3 + 3, 1}, "schedule(static)");
}

// schedule(guided) on 2 threads over 50 iterations of 1: libomp's first chunk
// is 50 / 4 = 12 iterations, the longest.
TEST(OmptCases, GuidedChunksComeFromTheDispatcher) {
  expect_numbers(
      [] {
#pragma omp parallel for schedule(guided) num_threads(2)
        for (int i = 0; i < 50; ++i) fs::charge(1);
      },
      numbers{50, 12, 2 + guided_chunks(50, 2), 1}, "schedule(guided)");
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
      numbers{60, 30, 3 + 3, 1}, "sections");
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
      numbers{40, 10, 2 + 2 * 2, 1 + 2}, "nested, on");
  omp_set_max_active_levels(1);
  expect_numbers(
      [] {
#pragma omp parallel num_threads(2)
        {
#pragma omp parallel num_threads(2)
          fs::charge(10);
        }
      },
      numbers{20, 10, 2 + 2 * 1, 1 + 2}, "nested, off");
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
      numbers{30, 30, 1 + 1, 1}, "one thread");
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
            created();
#pragma omp task
            fs::charge(10);
          }
          fs::charge(5);
        }
      },
      numbers{4 + 40 + 2 * 5, 12 + 5, 4 + 2, 2}, "tasks in a loop");
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
      numbers{13, 13, 1, 1}, "orphaned loop");
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

// ---- sites -------------------------------------------------------------------------
// The rows of a measurement's spawn-site table at `line` of this file.
struct row_sum {
  std::uint64_t tasks = 0, work = 0;
  std::string names;  // every row's name, for messages
};
row_sum rows_at(const fs::report& rep, unsigned line) {
  row_sum r;
  for (const auto& row : rep.spawn_sites) {
    r.names += row.name + " (" + std::to_string(row.tasks) + " tasks) ";
    if (row.file.find("test_ompt_cases.cpp") == std::string::npos || row.line != line) continue;
    r.tasks += row.tasks;
    r.work += row.work;
  }
  return r;
}

fs::report measure_quietly(const std::function<void()>& program, std::vector<std::string>& diagnostics) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.burden = 0;
  o.on_diagnostic = [&](const fs::diagnostic& d) { diagnostics.push_back(d.where + ": " + d.problem); };
  return fs::measure("sites", program, o);
}

// Every spawn site names a file of the program and a line (none is an address
// in libomp, none lost its line).
void expect_named_sites(const fs::report& rep, const char* what) {
  for (const auto& row : rep.spawn_sites) {
    if (row.kind == fs::site_kind::root) continue;
    EXPECT_NE(row.line, 0u) << what << ": " << row.name;
    EXPECT_NE(row.file.find("test_ompt_cases.cpp"), std::string::npos) << what << ": " << row.name;
  }
}

// Issue 30: tasks a `single nowait` leaves, or that a `for nowait`'s iterations
// create, are joined by the region's end; they count under the region's spawn
// site (its implicit tasks created them) as they do when a taskwait joins them.
TEST(OmptCases, TasksJoinedByTheRegionsEndCountUnderItsSite) {
  for (int threads : {1, 2}) {
    for (int variant = 0; variant < 3; ++variant) {
      unsigned line = 0;
      std::vector<std::string> diagnostics;
      const fs::report rep = measure_quietly(
          [&] {
            if (variant == 0) {
              line = __LINE__ + 1;
#pragma omp parallel num_threads(threads)
              {
#pragma omp single nowait
                for (int i = 0; i < 8; ++i) {
#pragma omp task
                  fs::charge(10);
                }
              }
            } else if (variant == 1) {
              line = __LINE__ + 1;
#pragma omp parallel num_threads(threads)
              {
#pragma omp for schedule(dynamic, 1) nowait
                for (int i = 0; i < 8; ++i) {
#pragma omp task
                  fs::charge(10);
                }
              }
            } else {
              line = __LINE__ + 1;
#pragma omp parallel num_threads(threads)
              {
#pragma omp single nowait
                {
                  for (int i = 0; i < 8; ++i) {
#pragma omp task
                    fs::charge(10);
                  }
#pragma omp taskwait
                }
              }
            }
          },
          diagnostics);
      const char* what = variant == 0 ? "single nowait" : variant == 1 ? "for nowait" : "single, taskwait";
      const row_sum region = rows_at(rep, line);
      EXPECT_EQ(region.tasks, static_cast<std::uint64_t>(threads))
          << what << ", threads " << threads << ": " << region.names;
      EXPECT_EQ(region.work, 80u) << what << ", threads " << threads << ": " << region.names;
      EXPECT_EQ(rep.work(), 80u) << what;
      EXPECT_EQ(rep.check_profile(), "") << what;
      expect_named_sites(rep, what);
      for (const auto& d : diagnostics) ADD_FAILURE() << what << ": " << d;
    }
  }
}

// Issue 30: a nested region the program reaches by a tail call (its `parallel`
// is the last statement of the outer region's body: the runtime's return
// address is then libomp's own) is named by its own line, from the source
// location the compiler passes; so are the tasks libomp's taskloop creates when
// it splits a large loop (80 of 160 at one thread were named by an address in
// libomp), at one thread and two.
TEST(OmptCases, NestedRegionsAndTaskloopTasksNameTheirLines) {
  const int levels = omp_get_max_active_levels();
  for (int nested : {1, 2}) {
    omp_set_max_active_levels(nested);
    for (int threads : {1, 2}) {
      unsigned outer = 0, inner = 0;
      std::vector<std::string> diagnostics;
      const fs::report rep = measure_quietly(
          [&] {
            outer = __LINE__ + 1;
#pragma omp parallel num_threads(threads)
            {
              inner = __LINE__ + 1;
#pragma omp parallel num_threads(2)
              fs::charge(10);
            }
          },
          diagnostics);
      // (An outer team of one thread is not active: the inner one has two.)
      const std::uint64_t inner_size = nested > 1 || threads == 1 ? 2 : 1;
      const std::uint64_t t = static_cast<std::uint64_t>(threads);
      EXPECT_EQ(rows_at(rep, outer).tasks, t) << rows_at(rep, outer).names;
      EXPECT_EQ(rows_at(rep, inner).tasks, t * inner_size) << rows_at(rep, inner).names;
      EXPECT_EQ(rep.work(), 10 * t * inner_size);
      expect_named_sites(rep, "nested");
      for (const auto& d : diagnostics) ADD_FAILURE() << "nested: " << d;
    }
  }
  omp_set_max_active_levels(levels);
  for (int threads : {1, 2}) {
    unsigned line = 0;
    std::vector<std::string> diagnostics;
    const fs::report rep = measure_quietly(
        [&] {
#pragma omp parallel num_threads(threads)
#pragma omp single
          {
            line = __LINE__ + 1;
#pragma omp taskloop grainsize(4)
            for (int i = 0; i < 640; ++i) fs::charge(1);
          }
        },
        diagnostics);
    // 160 tasks of the loop, and the tasks libomp adds to split them: more than
    // 10 per thread are split in halves (15 at one thread, 7 at two).
    const std::uint64_t splits = threads == 1 ? 15 : 7;
    EXPECT_EQ(rows_at(rep, line).tasks, 160 + splits) << rows_at(rep, line).names;
    EXPECT_EQ(rows_at(rep, line).work, 640u);
    EXPECT_EQ(rep.spawns(), 160 + splits + 2 * static_cast<std::uint64_t>(threads));
    expect_named_sites(rep, "taskloop");
    EXPECT_EQ(rep.check_profile(), "");
    for (const auto& d : diagnostics) ADD_FAILURE() << "taskloop: " << d;
  }
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

// Nested regions that end and begin at the same time on several threads:
// libomp 14 hands the tool a region's parallel_data after it has returned the
// team to its pool, where another thread's region may already have stored its
// own record (the tool ended that region instead, freed its record, and left its
// own open: "sync_point closed on another thread"). Each outer thread runs three
// inner regions, after uneven work, so that one thread's inner region begins as
// another's ends. (Inner regions whose `single nowait` leaves tasks to their end
// are left out: libomp 14 alone crashes or hangs within a few thousand of them;
// docs/ompt.md, "Limits".)
TEST(OmptCases, NestedRegionsEndingTogetherEachEndTheirOwn) {
  const int levels = omp_get_max_active_levels();
  omp_set_max_active_levels(2);
  const std::uint64_t outer = 4, inner = 2, rounds = 3;
  expect_counts(
      [] {
#pragma omp parallel num_threads(4)
        for (int k = 0; k < 3; ++k) {
#pragma omp parallel num_threads(2)
          {
            volatile double s = 0;
            for (int i = 0; i < 200 * (omp_get_ancestor_thread_num(1) + 1); ++i) s = s + i;
            fs::charge(1);
          }
        }
      },
      // One phase of the outer region's implicit tasks and of each inner
      // region's; a join per region.
      counts{outer * rounds * inner, rounds, outer + outer * rounds * inner, 1 + outer * rounds}, "nested teams", 300);
  omp_set_max_active_levels(levels);
}

}  // namespace
