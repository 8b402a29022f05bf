// tests/run/omp_self.cpp: an OpenMP program built with forkscale/ompt.hpp (its
// own OMPT tool), for the test that `forkscale-report run` measures it once:
// under FORKSCALE_OMPT=1, which run sets, the program's tool measures the
// whole program and the preloaded library steps aside. Ten tasks, one
// taskwait.
#include <forkscale/ompt.hpp>

#include <cstdio>

int main() {
  int done = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    for (int i = 0; i < 10; ++i) {
#pragma omp task shared(done) /* task:self */
      {
#pragma omp atomic
        ++done;
      }
    }
#pragma omp taskwait
  }
  std::printf("tasks %d\n", done);
  return 0;
}
