// detail/util/env.hpp: the environment's on/off switches (FORKSCALE_RECORD,
// FORKSCALE_PROGRESS, FORKSCALE_OMPT): 1 or 0, also on/off, yes/no, true/false
// in any case, blanks around them ignored. Any other value is ignored, with one
// line on stderr the first time the process reads it.
#pragma once
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

#include "../../config.hpp"
#include "atomic_file.hpp"  // printable_path
#include "strings.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

enum class env_switch { unset, off, on };

inline env_switch read_env_switch(const char* name) {
  const char* raw = std::getenv(name);
  if (raw == nullptr || *raw == '\0') return env_switch::unset;
  std::string v = trim(raw);
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "1" || v == "on" || v == "yes" || v == "true") return env_switch::on;
  if (v == "0" || v == "off" || v == "no" || v == "false") return env_switch::off;
  static std::mutex m;
  static std::set<std::string> told;
  std::lock_guard<std::mutex> g(m);
  if (told.insert(name).second)
    std::fprintf(stderr, "forkscale: %s=%s is not 1 or 0 (nor on/off, yes/no, true/false); it is ignored\n", name,
                 printable_path(raw).c_str());
  return env_switch::unset;
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
