// forkscale/openmp.hpp built with -DFORKSCALE_ENABLE=0: every adapter name still
// compiles warning-free around real OpenMP constructs, the program computes its
// own results, and a measurement's report is empty.
#include <forkscale/adapters/openmp.hpp>

#include <gtest/gtest.h>
#include <omp.h>

#include <vector>

#if !defined(FORKSCALE_ENABLE) || FORKSCALE_ENABLE != 0
#error "test_openmp_disabled must be compiled with -DFORKSCALE_ENABLE=0"
#endif

namespace fs = forkscale;

namespace {

long fib(int n) {
  if (n < 2) return n;
  long x = 0;
  long y = 0;
  auto tk = fs::omp::spawn_point();
#pragma omp task shared(x) if (n > 8)
  {
    fs::omp::task_scope ts(tk);
    x = fib(n - 1);
  }
  y = fib(n - 2);
  fs::omp::taskwait();
  return x + y;
}

TEST(OpenMPAdapterDisabled, EveryNameCompilesAndTheProgramStillRuns) {
  long result = 0;
  long grouped = 0;
  std::vector<int> squares(50, 0);
  const fs::report r = fs::measure("disabled", [&] {
    fs::omp::team team;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
      fs::omp::task_scope ts(team);
      result = fib(15);
      fs::omp::taskgroup([&] {
        for (int i = 1; i <= 4; ++i) {
          auto tk = fs::omp::spawn_point();
#pragma omp task shared(grouped)
          {
            fs::omp::task_scope ts2(tk);
#pragma omp atomic
            grouped += i;
          }
        }
      });
    }
    fs::omp::parallel_for(
        0, 50, 8, [&](int i) { squares[static_cast<std::size_t>(i)] = i * i; }, fs::omp::loop_schedule::static_chunks,
        2);
  });
  EXPECT_EQ(result, 610);
  EXPECT_EQ(grouped, 10);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(squares[static_cast<std::size_t>(i)], i * i);
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.work(), 0u);
}

}  // namespace
