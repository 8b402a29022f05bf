// detail/util/env.hpp: the environment's on/off switches (FORKSCALE_RECORD,
// FORKSCALE_PROGRESS, FORKSCALE_OMPT): 1 or 0, also on/off, yes/no, true/false
// in any case, blanks around them ignored; and FORKSCALE_CLOCK, a clock's name.
// Any other value is ignored, with one line on stderr the first time the
// process reads it.
#pragma once
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "atomic_file.hpp"  // printable_path
#include "strings.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

enum class env_switch { unset, off, on };

// Whether `key` is asked about for the first time in this process: what is
// said on stderr once per process however often it happens.
inline bool first_in_process(const std::string& key) {
  static std::mutex m;
  static std::set<std::string> seen;
  std::lock_guard<std::mutex> g(m);
  return seen.insert(key).second;
}

// Says once per process, for each variable, that its value is not one it takes.
inline void tell_ignored_once(const char* name, const char* raw, const char* expected) {
  if (first_in_process(std::string("ignored ") + name))
    std::fprintf(stderr, "forkscale: %s=%s is not %s; it is ignored\n", name, printable_path(raw).c_str(), expected);
}

inline env_switch read_env_switch(const char* name) {
  const char* raw = std::getenv(name);
  if (raw == nullptr || *raw == '\0') return env_switch::unset;
  std::string v = trim(raw);
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "1" || v == "on" || v == "yes" || v == "true") return env_switch::on;
  if (v == "0" || v == "off" || v == "no" || v == "false") return env_switch::off;
  tell_ignored_once(name, raw, "1 or 0 (nor on/off, yes/no, true/false)");
  return env_switch::unset;
}

// A clock named by environment variable `name` (cost, tsc, steady,
// arm_counter, thread_cpu or automatic, in any case; `auto` too). Unset, empty
// or not a clock (said once): automatic.
inline clock_kind read_env_clock(const char* name) {
  const char* raw = std::getenv(name);
  if (raw == nullptr || *raw == '\0') return clock_kind::automatic;
  std::string v = trim(raw);
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "auto") return clock_kind::automatic;
  for (const clock_kind k : {clock_kind::automatic, clock_kind::cost, clock_kind::tsc, clock_kind::steady,
                             clock_kind::arm_counter, clock_kind::thread_cpu})
    if (v == to_string(k)) return k;
  tell_ignored_once(name, raw, "a clock (cost, tsc, steady, arm_counter, thread_cpu or automatic)");
  return clock_kind::automatic;
}

// FORKSCALE_CLOCK: the clock of a measurement whose options leave it `automatic`.
inline clock_kind read_env_clock() { return read_env_clock("FORKSCALE_CLOCK"); }

// The clock options ask for: `option`, or FORKSCALE_CLOCK's when it is automatic.
inline clock_kind clock_option(clock_kind option) {
  return option == clock_kind::automatic ? read_env_clock() : option;
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
