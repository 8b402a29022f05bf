// detail/util/clock_env.hpp: a clock named in the environment, for the
// measurements that build their own options (the OMPT tool's whole-program
// mode, the preload libraries of `forkscale-report run`): cost, tsc, steady,
// thread_cpu, or auto/automatic (the options' own choice). Any other value
// leaves the clock automatic, with one line on stderr.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "atomic_file.hpp"  // printable_path
#include "env.hpp"          // read_env_clock

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// The clock the first of `names` that is set and not empty names (automatic
// when none is).
inline clock_kind clock_from_environment(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (std::string(name) == "FORKSCALE_CLOCK") return read_env_clock();  // the measurements' own reader
    const char* raw = std::getenv(name);
    if (raw == nullptr || *raw == '\0') continue;
    const std::string k = raw;
    if (k == "cost") return clock_kind::cost;
    if (k == "tsc") return clock_kind::tsc;
    if (k == "steady") return clock_kind::steady;
    if (k == "thread_cpu") return clock_kind::thread_cpu;
    if (k != "auto" && k != "automatic")
      std::fprintf(stderr,
                   "forkscale: %s=%s is not a clock (cost, tsc, steady, thread_cpu, automatic); using automatic\n",
                   name, printable_path(raw).c_str());
    return clock_kind::automatic;
  }
  return clock_kind::automatic;
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
