// Compiled with FORKSCALE_ENABLE=0 and compared with plain.cpp, the same program
// without annotations (tests/disabled/codegen_check.cmake): every guard, region,
// what-if region, measure() and session must compile to nothing, and fs::mutex
// with fs::lock_guard to what std::mutex with std::lock_guard compiles to.
#include <forkscale/forkscale.hpp>

namespace fs = forkscale;

fs::mutex total_lock{"total"};
long total = 0;

long fib(int n) {
  if (n < 2) {
    fs::charge(1);
    return n;
  }
  long x = 0, y = 0;
  fs::region r("fib");
  FORKSCALE_REGION("fib macro");
  fs::what_if_region w("hot");
  FORKSCALE_WHAT_IF_REGION("hot macro");
  auto t = fs::spawn([&] { x = fib(n - 1); });
  t();
  {
    fs::call_site cs;
    y = fib(n - 2);
  }
  FORKSCALE_CALL_SITE();
  fs::task_group g;
  auto u = fs::spawn(g, [&] { y += 1; });
  u();
  { fs::sync_point sp(g); }
  { fs::sync_point sp; }
  FORKSCALE_SYNC_POINT();
  {
    fs::lock_guard g(total_lock);
    total += 1;
  }
  return x + y;
}

long run(int n) {
  long out = 0;
  const fs::report rep = fs::measure("run", [&] { out = fib(n); });
  return out + static_cast<long>(rep.work() + rep.span());
}

long serve(int n) {
  fs::session s("server");
  long out = 0;
  s.measure("request", [&] { out = fib(n); });
  return out + static_cast<long>(s.snapshot().work());
}
