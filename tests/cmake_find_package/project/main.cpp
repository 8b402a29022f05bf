// Built by tests/cmake_consumer.cmake through find_package: the include
// path, C++17 and Threads all come from linking forkscale::forkscale alone.
#include <forkscale/forkscale.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

namespace fs = forkscale;

int main() {
  fs::options opt;
  opt.clock = fs::clock_kind::cost;
  int x = 0, y = 0;
  fs::report rep = fs::measure(
      "consumer",
      [&] {
        fs::charge(1);
        auto task = fs::spawn([&] {
          fs::charge(10);
          x = 1;
        });
        task();
        fs::charge(2);
        y = 2;
        { fs::sync_point sp; }
      },
      opt);
  // work = 1 + 10 + 2, span = 1 + max(10, 2)
  const bool ok = x == 1 && y == 2 && rep.work() == 13 && rep.span() == 11 &&
                  rep.to_json().find("\"consumer\"") != std::string::npos;
  std::printf("find_package consumer: work=%llu span=%llu %s\n", static_cast<unsigned long long>(rep.work()),
              static_cast<unsigned long long>(rep.span()), ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
