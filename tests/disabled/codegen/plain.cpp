// The program of annotated.cpp with its annotations taken out and nothing else
// changed (the callables stay callables; measure() leaves the callable run and
// the empty report it returns, the caller's object; fs::mutex and fs::lock_guard
// become std::mutex and std::lock_guard), for
// tests/disabled/codegen_check.cmake.
#include <forkscale/report.hpp>

#include <mutex>

std::mutex total_lock;
long total = 0;

long fib(int n) {
  if (n < 2) {
    return n;
  }
  long x = 0, y = 0;
  auto t = [&] { x = fib(n - 1); };
  t();
  { y = fib(n - 2); }
  auto u = [&] { y += 1; };
  u();
  {
    std::lock_guard<std::mutex> g(total_lock);
    total += 1;
  }
  return x + y;
}

long run(int n) {
  long out = 0;
  [&] { out = fib(n); }();
  const forkscale::report rep{};
  return out + static_cast<long>(rep.work() + rep.span());
}

long serve(int n) {
  long out = 0;
  [&] { out = fib(n); }();
  forkscale::report{};
  return out + static_cast<long>(forkscale::report{}.work());
}
