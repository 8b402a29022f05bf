// src/preload_common.hpp: what the two libraries of `forkscale-report run`
// share (libforkscale_ompt.so, src/forkscale_ompt_tool.cpp, and
// libforkscale_threads.so, src/forkscale_threads.cpp): taking themselves out
// of the environment the program's own child processes inherit, telling
// whether the program measures itself with forkscale, and writing the report
// where FORKSCALE_REPORT says.
#pragma once
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include <forkscale/forkscale.hpp>
#include <forkscale/detail/output/report_format.hpp>
#include <forkscale/study/html.hpp>

namespace forkscale_preload {

namespace fs = forkscale;

// The file name of the shared object that holds `symbol` ("" when unknown).
inline std::string object_name(const void* symbol) {
  Dl_info info{};
  if (!::dladdr(symbol, &info) || !info.dli_fname) return std::string();
  const std::string path = info.dli_fname;
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Removes the entries of the path list in `var` (separated by ':' or blanks)
// whose file name is `name`; returns whether there was one. The program's own
// child processes (and addr2line, which names the sites) then run without it.
inline bool remove_from_list(const char* var, const std::string& name) {
  const char* raw = std::getenv(var);
  if (!raw || name.empty()) return false;
  std::string kept;
  bool found = false;
  const std::string list = raw;
  std::size_t i = 0;
  while (i <= list.size()) {
    std::size_t end = list.find_first_of(": ", i);
    if (end == std::string::npos) end = list.size();
    const std::string entry = list.substr(i, end - i);
    const std::size_t slash = entry.find_last_of('/');
    const std::string file = slash == std::string::npos ? entry : entry.substr(slash + 1);
    if (file == name) {
      found = true;
    } else if (!entry.empty()) {
      kept += (kept.empty() ? "" : ":") + entry;
    }
    i = end + 1;
  }
  if (!found) return false;
  if (kept.empty())
    ::unsetenv(var);
  else
    ::setenv(var, kept.c_str(), 1);
  return true;
}

// Whether the program's executable holds forkscale's own code (a program
// built with forkscale measures itself): its symbol table, or the type names
// of its classes, name the namespace ("N9forkscale", as in _ZN9forkscale...).
inline bool program_has_forkscale() {
  const int fd = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  bool found = false;
  if (::fstat(fd, &st) == 0 && st.st_size > 0) {
    const auto size = static_cast<std::size_t>(st.st_size);
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      static const char marker[] = "N9forkscale";
      found = ::memmem(p, size, marker, sizeof marker - 1) != nullptr;
      ::munmap(p, size);
    }
  }
  ::close(fd);
  return found;
}

// Writes `rep` where FORKSCALE_REPORT says, in the format its extension names
// (detail/output/report_format.hpp: .json, .txt, .csv, .html or .htm, in any
// case; written atomically); unset, or naming no format (then with one line
// that says so), the text report goes to stderr. Never throws.
inline void write_report(const fs::report& rep, const char* path) {
  try {
    fs::detail::write_report_or_show(rep, path);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    std::fprintf(stderr, "%s%s\n", what.rfind("forkscale: ", 0) == 0 ? "" : "forkscale: ", what.c_str());
  }
}

}  // namespace forkscale_preload
