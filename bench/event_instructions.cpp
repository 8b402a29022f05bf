// event_instructions.cpp: n events of one kind in one measurement under the cost
// clock, for bench_event_instructions.py, which counts the instructions per
// event with callgrind in both forms (header-only and compiled).
//
//   event_instructions spawn|call|sync N
#include <forkscale/forkscale.hpp>

#include <cstdlib>
#include <cstring>

namespace fs = forkscale;

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "spawn";
  const long n = argc > 2 ? std::atol(argv[2]) : 1000;
  fs::options opt;
  opt.clock = fs::clock_kind::cost;
  fs::report rep = fs::measure(
      "cg",
      [&] {
        for (long i = 0; i < n; ++i) {
          if (std::strcmp(mode, "spawn") == 0) {
            auto c = fs::spawn([] { fs::charge(1); });
            c();
            fs::sync_point sp;
          } else if (std::strcmp(mode, "call") == 0) {
            fs::call_site cs;
            fs::charge(1);
          } else {
            fs::sync_point sp;
          }
        }
      },
      opt);
  return rep.empty() ? 1 : 0;
}
