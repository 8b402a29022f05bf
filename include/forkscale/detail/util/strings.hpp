// detail/util/strings.hpp: small string helpers shared by the engine, the
// what-if configuration and the writers.
#pragma once
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../site.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// `s` without leading and trailing blanks.
inline std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return std::string();
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// `text` cut at every `sep` (an empty text gives one empty piece).
inline std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t a = 0;
  for (;;) {
    const std::size_t b = text.find(sep, a);
    out.push_back(text.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) return out;
    a = b + 1;
  }
}

// "file.cpp:42": the file without its directory, and the line; "file.cpp:?"
// when the line is not known (0: OMPT mode names a site whose line the debug
// information does not give by its file alone, docs/ompt.md).
inline std::string short_site_name(const std::string& file, unsigned line) {
  const auto slash = file.find_last_of("/\\");
  return (slash == std::string::npos ? file : file.substr(slash + 1)) + ":" + (line ? std::to_string(line) : "?");
}

// "file.cpp:42 in function", or the tag: how diagnostics name a site.
inline std::string describe_site(const site& where) {
  if (where.tag) return std::string(where.tag);
  std::string s = short_site_name(where.file ? where.file : "", where.line);
  if (where.function && *where.function) {
    s += " in ";
    s += where.function;
  }
  return s;
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
