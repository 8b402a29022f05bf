// A small OpenMP program that includes forkscale/ompt.hpp and profiles nothing
// itself: built with g++ (libgomp, no OMPT) it must say so in one line at
// start-up and run unchanged; built with FORKSCALE_ENABLE=0 it must say nothing.
// tests/ompt/check_message.cmake runs it and checks both.
#include <forkscale/ompt.hpp>

#include <cstdio>

int main() {
  long sum = 0;
#pragma omp parallel for reduction(+ : sum) num_threads(2)
  for (int i = 1; i <= 100; ++i) sum += i;
  std::printf("result=%ld\n", sum);
  return sum == 5050 ? 0 : 1;
}
