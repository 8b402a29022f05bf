// tests/run/self_measured.cpp: a program built with forkscale that measures its
// own threads (fs::measure, the std::thread adapter's pattern), for the test
// that `forkscale-report run` measures it once: the preloaded library steps
// aside, and the program's own report counts its two spawns.
#include <forkscale/forkscale.hpp>

#include <cstdio>
#include <thread>

namespace fs = forkscale;

int main() {
  fs::options opt;
  opt.clock = fs::clock_kind::cost;
  fs::join_handle h;
  const fs::report rep = fs::measure(
      "two",
      [&] {
        std::thread t(fs::spawn(h, [] { fs::charge(5); }));
        std::thread u([] {});  // not annotated: the program's own measurement does not see it
        fs::charge(3);
        u.join();
        fs::sync_point sp(h);
        t.join();
      },
      opt);
  std::printf("spawns %llu work %llu\n", static_cast<unsigned long long>(rep.root().spawns),
              static_cast<unsigned long long>(rep.root().work));
  return 0;
}
