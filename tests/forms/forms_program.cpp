// One program, built twice: against the header-only form (forkscale::forkscale)
// and against the compiled form (forkscale::compiled). tests/forms/compare.cmake
// runs both and requires the same output, byte for byte: the cost clock's
// numbers, and every writer's text, JSON and CSV of them.
#include <forkscale/forkscale.hpp>

#include <iostream>
#include <thread>
#include <vector>

namespace fs = forkscale;

namespace {

long fib(int n) {
  fs::charge(1);
  if (n < 2) return n;
  long x = 0, y = 0;
  auto child = fs::spawn([&] { x = fib(n - 1); });
  child();
  {
    fs::call_site cs;
    y = fib(n - 2);
  }
  fs::sync_point sp;
  return x + y;
}

void scan(std::vector<long>& v) {
  FORKSCALE_WHAT_IF_REGION("scan");
  for (long& x : v) {
    fs::charge(2);
    x += 1;
  }
}

}  // namespace

int main() {
  fs::options opt;
  opt.clock = fs::clock_kind::cost;
  opt.what_if.factors = {2, 4};
  std::vector<long> v(300, 1);
  fs::report rep = fs::measure(
      "forms",
      [&] {
        {
          FORKSCALE_REGION("fib");
          fib(14);
        }
        fs::join_handle h;
        std::thread t(fs::spawn(h, [&] { fib(10); }));
        scan(v);
        {
          fs::sync_point sp(h);
          t.join();
        }
      },
      opt);
  fs::report again = fs::measure(
      "again", [] { fib(8); }, opt);
  const fs::report merged = fs::merge_reports({rep, again}, "both");
  std::cout << rep << "\n"
            << rep.to_json() << "\n"
            << rep.to_csv() << rep.call_sites_csv() << rep.spawn_sites_csv() << rep.what_if_csv() << "\n"
            << merged.to_json() << "\n";
  return rep.work() > 0 ? 0 : 1;
}
