// event_instructions.cpp: n events of one kind in one measurement under the cost
// clock, for bench_event_instructions.py, which counts the instructions per
// event with callgrind in both forms (header-only and compiled), with each
// subsystem on and off.
//
//   event_instructions spawn|call|sync N [default|no_profiles|what_if|record]
//
// default: site profiles on, the rest off (options' defaults); no_profiles:
// site profiles off; what_if: the events run inside a what_if_region;
// record: options.record on.
#include <forkscale/forkscale.hpp>

#include <cstdlib>
#include <cstring>
#include <optional>

namespace fs = forkscale;

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "spawn";
  const long n = argc > 2 ? std::atol(argv[2]) : 1000;
  const char* config = argc > 3 ? argv[3] : "default";
  fs::options opt;
  opt.clock = fs::clock_kind::cost;
  opt.what_if.read_environment = false;
  const bool in_what_if = std::strcmp(config, "what_if") == 0;
  if (std::strcmp(config, "no_profiles") == 0) opt.site_profiles = false;
  if (std::strcmp(config, "record") == 0) opt.record = true;
  fs::report rep = fs::measure(
      "cg",
      [&] {
        std::optional<fs::what_if_region> region;
        if (in_what_if) region.emplace("hot");
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
