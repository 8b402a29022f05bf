// detail/util/clock_env.hpp: a clock named in the environment, for the
// measurements that build their own options (the OMPT tool's whole-program
// mode, the preload libraries of `forkscale-report run`): cost, tsc, steady,
// thread_cpu, or auto/automatic (the options' own choice). Any other value
// leaves the clock automatic, with one line on stderr.
#pragma once
#include <cstdlib>
#include <initializer_list>
#include <string>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "env.hpp"  // read_env_clock

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// The clock the first of `names` that is set and not empty names (automatic
// when none is), read as FORKSCALE_CLOCK is (env.hpp's read_env_clock).
inline clock_kind clock_from_environment(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const char* raw = std::getenv(name);
    if (raw != nullptr && *raw != '\0') return read_env_clock(name);
  }
  return clock_kind::automatic;
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
