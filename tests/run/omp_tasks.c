/* tests/run/omp_tasks.c: a plain OpenMP C program, with nothing of forkscale,
 * for `forkscale-report run` (tests/run/test_run.cpp): BOTS-style fib with a
 * task per call joined by taskwait, then a taskloop of a fixed number of
 * tasks. The markers at the ends of the task lines tell the test where each
 * task is. */
#include <stdio.h>
#include <stdlib.h>

static long fib(int n) {
  long x, y;
  if (n < 2) return n;
#pragma omp task shared(x) /* task:fib-first */
  x = fib(n - 1);
#pragma omp task shared(y) /* task:fib-second */
  y = fib(n - 2);
#pragma omp taskwait
  return x + y;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 16;
  long result = 0;
  long sum = 0;
#pragma omp parallel
#pragma omp single
  {
    result = fib(n);
#pragma omp taskloop num_tasks(8) reduction(+ : sum) /* task:taskloop */
    for (int i = 0; i < 64; ++i) sum += i;
  }
  printf("fib(%d) = %ld\n", n, result);
  printf("sum = %ld\n", sum);
  return 0;
}
