// The program of annotated.cpp with its annotations taken out and nothing else
// changed (the callables stay callables; measure() leaves the callable run and
// the empty report it returns, the caller's object), for
// tests/disabled/codegen_check.cmake.
#include <forkscale/report.hpp>

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
