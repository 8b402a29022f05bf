// tests/run/exit_status.cpp: a std::thread program, with nothing of forkscale,
// that ends badly on request, for the tests of `forkscale-report run`
// (tools/test_cli_run.cpp): it starts and joins two threads, prints "ran",
// then exits with the status given as its argument, or aborts when the
// argument is "abort".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

int main(int argc, char** argv) {
  int sum = 0;
  std::thread a([&] { sum += 1; });
  a.join();
  std::thread b([&] { sum += 2; });
  b.join();
  std::printf("ran %d\n", sum);
  std::fflush(stdout);
  if (argc > 1 && std::strcmp(argv[1], "abort") == 0) std::abort();
  return argc > 1 ? std::atoi(argv[1]) : 0;
}
