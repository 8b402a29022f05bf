// The annotated adapter's `parallel for` schedules, taskloop and depend clauses
// (forkscale/openmp.hpp), built with the project compiler's
// OpenMP (g++: libgomp) and with clang++ and libomp. By-hand programs first
// (docs/openmp.md, "Loops, by hand" and "depend, by hand"), then random
// OpenMP-shaped programs through the adapter against the oracle of
// omp_program.hpp, under the cost clock, with no diagnostic.
#include <forkscale/adapters/openmp.hpp>

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "omp_program.hpp"
#include "run_annotated.hpp"

namespace fs = forkscale;

namespace {

struct measured {
  fs::report rep;
  std::vector<std::string> diagnostics;
};

measured measure(const std::function<void()>& program, double burden = 0) {
  measured m;
  std::mutex mu;
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.burden = burden;
  o.on_diagnostic = [&](const fs::diagnostic& d) {
    std::lock_guard<std::mutex> g(mu);
    m.diagnostics.push_back(d.where + ": " + d.problem);
  };
  m.rep = fs::measure("program", program, o);
  return m;
}

void expect(const measured& m, std::uint64_t work, std::uint64_t span, const char* what) {
  EXPECT_EQ(m.rep.work(), work) << what;
  EXPECT_EQ(m.rep.span(), span) << what;
  for (const auto& d : m.diagnostics) ADD_FAILURE() << what << ": " << d;
}

// Iteration i charges i + 1.
void charge_index(int i) { fs::charge(static_cast<std::uint64_t>(i) + 1); }

TEST(OpenMPAnnotated, ScheduleStaticIsOneShareAThread) {
  // 9 iterations on 3 threads: shares 1+2+3, 4+5+6, 7+8+9; spawns 3.
  const measured m =
      measure([] { fs::omp::parallel_for(0, 9, 0, charge_index, fs::omp::loop_schedule::static_even, 3); });
  expect(m, 45, 24, "schedule(static)");
  EXPECT_EQ(m.rep.spawns(), 3u);
  // 10 iterations on 4 threads: 3, 3, 2, 2 iterations.
  const measured uneven =
      measure([] { fs::omp::parallel_for(0, 10, 0, charge_index, fs::omp::loop_schedule::static_even, 4); });
  expect(uneven, 55, 9 + 10, "schedule(static), 10 on 4");
  EXPECT_EQ(uneven.rep.spawns(), 4u);
}

TEST(OpenMPAnnotated, GuidedChunksShrink) {
  // 50 iterations of 1 on 2 threads: chunks 12, 9, 7, 5, 4, 3, 2, 2, then six
  // of 1 (libomp 14's guided).
  const measured m = measure([] {
    fs::omp::parallel_for(
        0, 50, 1, [](int) { fs::charge(1); }, fs::omp::loop_schedule::guided, 2);
  });
  expect(m, 50, 12, "schedule(guided)");
  EXPECT_EQ(m.rep.spawns(), 14u);
}

TEST(OpenMPAnnotated, BurdensOfAFlatLoop) {
  // docs/openmp.md: a flat loop of N chunks adds max(N·b, max(k·b + chunk k)).
  // Four static shares of 10 on 4 threads, b = 50: the code after the loop
  // comes after 4 continuation edges.
  const measured m = measure(
      [] {
        fs::omp::parallel_for(
            0, 40, 0, [](int) { fs::charge(1); }, fs::omp::loop_schedule::static_even, 4);
      },
      50);
  EXPECT_EQ(m.rep.burdened_span(), 4u * 50u);
  EXPECT_EQ(m.rep.span(), 10u);
}

// A team whose single block runs `body` on 3 threads.
void in_team(const std::function<void()>& body) {
  fs::omp::team team;
#pragma omp parallel num_threads(3) shared(team, body)
#pragma omp single
  {
    fs::omp::task_scope ts(team);
    body();
  }
}

TEST(OpenMPAnnotated, TaskloopTasksJoinAtItsEnd) {
  // grainsize(2) over 10 iterations: five tasks, the longest 9 + 10; then 3.
  const measured m = measure([] {
    in_team([] {
      fs::omp::taskloop(0, 10, fs::omp::grainsize(2), charge_index);
      fs::charge(3);
    });
  });
  expect(m, 58, 22, "taskloop grainsize(2)");
  EXPECT_EQ(m.rep.spawns(), 1u + 5u);
  // num_tasks(3) over 7: 3, 2, 2 iterations (1+2+3, 4+5, 6+7); nogroup: the
  // region's end joins them, the 3 runs alongside.
  const measured nogroup = measure([] {
    in_team([] {
      fs::omp::taskloop(0, 7, fs::omp::num_tasks(3), charge_index, true);
      fs::charge(3);
    });
  });
  expect(nogroup, 28 + 3, 13, "taskloop num_tasks(3) nogroup");
}

TEST(OpenMPAnnotated, DependEdgesJoinThePredecessorsEnd) {
  // A (10) -> B (20) -> D (7), A -> C (5): 37.
  const measured m = measure([] {
    in_team([] {
      int a = 0, b = 0;
      fs::omp::dependences deps;
      auto ta = fs::omp::spawn_point(deps, {fs::omp::out(&a)});
#pragma omp task depend(out : a) firstprivate(ta)
      {
        fs::omp::task_scope ts(ta);
        fs::charge(10);
      }
      auto tb = fs::omp::spawn_point(deps, {fs::omp::in(&a), fs::omp::out(&b)});
#pragma omp task depend(in : a) depend(out : b) firstprivate(tb)
      {
        fs::omp::task_scope ts(tb);
        fs::charge(20);
      }
      auto tc = fs::omp::spawn_point(deps, {fs::omp::in(&a)});
#pragma omp task depend(in : a) firstprivate(tc)
      {
        fs::omp::task_scope ts(tc);
        fs::charge(5);
      }
      auto td = fs::omp::spawn_point(deps, {fs::omp::in(&b)});
#pragma omp task depend(in : b) firstprivate(td)
      {
        fs::omp::task_scope ts(td);
        fs::charge(7);
      }
      fs::omp::taskwait();
    });
  });
  expect(m, 42, 37, "depend");
  EXPECT_EQ(m.rep.syncs(), 3u + 1u + 1u);  // B, C, D join their predecessors; the taskwait; the region's end
}

TEST(OpenMPAnnotated, RandomProgramsMatchTheOracle) {
  const char* count = std::getenv("FORKSCALE_OMPT_RANDOM_PROGRAMS");
  const int n = count ? std::atoi(count) / 2 : 500;
  ompgen::generator_options subset;
  subset.annotated_subset = true;
  int mismatches = 0;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t seed = 5000 + static_cast<std::uint64_t>(i);
    const ompgen::program p = ompgen::generator(seed, subset).make();
    const measured m = measure([&] { ompgen::annotated::run(p); });
    const ompgen::expected e = ompgen::oracle(ompgen::model::adapter, 1).run(p);
    if (m.rep.work() == e.work && m.rep.span() == e.span && m.diagnostics.empty() && m.rep.check_profile().empty())
      continue;
    if (++mismatches > 3) continue;
    std::string why = "seed " + std::to_string(seed) + ": work " + std::to_string(m.rep.work()) + " (oracle " +
                      std::to_string(e.work) + "), span " + std::to_string(m.rep.span()) + " (oracle " +
                      std::to_string(e.span) + ")\n";
    for (const auto& d : m.diagnostics) why += "  diagnostic: " + d + "\n";
    ADD_FAILURE() << why << m.rep.check_profile() << "\n" << p.describe();
  }
  EXPECT_EQ(mismatches, 0) << "of " << n << " programs";
}

}  // namespace
