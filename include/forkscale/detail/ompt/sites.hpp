// detail/ompt/sites.hpp: call sites from OMPT code pointers. Every OMPT callback
// that marks a construct carries codeptr_ra, the return address of the runtime
// call the compiler made for it (OpenMP 5.1, §4.5.2.x: "codeptr_ra"). It is
// turned into file:line and function once per address:
//
//  1. dladdr() names the object (the executable or a shared library) and its load
//     address, so that the address becomes an offset into that file;
//  2. `addr2line -f -C -e <object>` reads the program's DWARF line table. One
//     addr2line process per object is started at the first address in it and kept
//     running: it answers one address per line on a pipe (it flushes after each),
//     so a new site costs one round trip, not a process start. Writing a DWARF
//     reader here would be a library of its own; binutils is on every machine
//     that has a compiler, and its absence is handled (next point);
//  3. without addr2line, or without debug info (-g), the site is the object's
//     name and the offset ("libfoo.so+0x4c37b": stable from run to run, unlike
//     the address) with the symbol dladdr found, if any. Where the line table
//     knows the file but gives no line (line 0: code the compiler shares between
//     several lines, such as one call to __kmpc_fork_call that several regions
//     of a function jump to), the site keeps the file, with line 0 ("file.cpp:?"
//     in the tables).
//
// An address inside the OpenMP runtime itself names nothing of the program's: it
// is what libomp reports for code it runs on a construct's behalf (the tasks its
// taskloop splitting creates), and for a construct the program reached by a tail
// call (an outlined function whose last statement is a nested `parallel` jumps
// to __kmpc_fork_call, which then sees its caller's caller). Such a code site is
// flagged `runtime`; the tool names the construct otherwise (state.hpp,
// construct_site): by the source location the compiler passed to the runtime
// call (the ident_t's psource, ";file;function;line;column;;", which clang fills
// in when compiling with -g), else by the task running on the thread.
//
// Code inside an OpenMP construct is compiled into an outlined function
// (".omp_outlined..3"); such a site takes the function name of the construct
// that encloses it (`enclosing`), which is the function the programmer wrote.
//
// The strings are kept for the life of the process: the engine caches sites by
// the addresses of their strings (site.hpp). FORKSCALE_OMPT_SYMBOLS=0 skips
// addr2line (dladdr only).
#pragma once
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cxxabi.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "../../site.hpp"
#include "../macro_scope.hpp"

extern char** environ;

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace ompt {

// One addr2line process for one object file.
class line_reader {
 public:
  // `outermost`: code inlined from a system header (/usr/include: std::mutex,
  // std::thread) is named by the innermost line outside them that it was
  // inlined at (addr2line -i gives the lines of every level of inlining).
  explicit line_reader(const std::string& object, bool outermost = false) : outermost_(outermost) {
    // Addresses go through a socket, written with MSG_NOSIGNAL: if addr2line is
    // gone, the write fails instead of raising SIGPIPE in the program.
    int to[2], from[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, to) != 0) return;
    if (::pipe2(from, O_CLOEXEC) != 0) {
      ::close(to[0]);
      ::close(to[1]);
      return;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, to[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    std::string exe = object;
    char* argv[] = {const_cast<char*>("addr2line"),
                    const_cast<char*>("-f"),
                    const_cast<char*>("-C"),
                    const_cast<char*>(outermost ? "-a" : "-f"),
                    const_cast<char*>(outermost ? "-i" : "-f"),
                    const_cast<char*>("-e"),
                    &exe[0],
                    nullptr};
    const int rc = posix_spawnp(&pid_, "addr2line", &fa, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(to[0]);
    ::close(from[1]);
    if (rc != 0) {
      ::close(to[1]);
      ::close(from[0]);
      return;
    }
    in_ = to[1];
    out_ = ::fdopen(from[0], "r");
    if (!out_) ::close(from[0]);
  }
  line_reader(const line_reader&) = delete;
  line_reader& operator=(const line_reader&) = delete;
  ~line_reader() { stop(); }

  // addr2line reads the DWARF at its first question: asking one now, without
  // waiting for the answer, lets it do that while the program runs.
  void prime() {
    if (ask(0)) ++pending_;
  }

  // Function and "file:line" of `offset`, or false.
  bool lookup(std::uintptr_t offset, std::string& function, std::string& where) {
    if (outermost_) return lookup_outermost(offset, function, where);
    for (; pending_ > 0; --pending_)
      if (!read_line(function) || !read_line(where)) return false;
    return ask(offset) && read_line(function) && read_line(where);
  }

  // Ends the process (at exit, so that it does not outlive the program). It may
  // still be reading the program's DWARF (a short program): it is told to stop
  // rather than left to finish, which would keep the exiting program waiting
  // for it.
  void stop() {
    if (in_ >= 0) ::close(in_);
    in_ = -1;
    if (out_) std::fclose(out_);
    out_ = nullptr;
    if (pid_ > 0) ::kill(pid_, SIGTERM);
    if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
    pid_ = 0;
  }

 private:
  bool ask(std::uintptr_t offset) {
    if (in_ < 0 || !out_) return false;
    char text[32];
    const int n = std::snprintf(text, sizeof text, "0x%llx\n", static_cast<unsigned long long>(offset));
    if (::send(in_, text, static_cast<std::size_t>(n), MSG_NOSIGNAL) == n) return true;
    ::close(in_);  // the process is gone: no more lookups
    in_ = -1;
    return false;
  }

  // With -a -i each answer is the address, then a function and a line per
  // level of inlining, innermost first; the address 0 asked after it (one
  // level: "??", "??:0") marks where the answer ends.
  bool lookup_outermost(std::uintptr_t offset, std::string& function, std::string& where) {
    std::string line, at;
    for (; pending_ > 0; --pending_)
      if (!read_line(line) || !read_line(line) || !read_line(line)) return false;
    if (!ask(offset) || !ask(0) || !read_line(line)) return false;
    bool any = false, chosen = false;
    while (read_line(line)) {
      if (line.compare(0, 2, "0x") == 0) {  // the end mark's address
        std::string rest;
        return read_line(rest) && read_line(rest) && any;
      }
      if (!read_line(at)) return false;
      if (chosen) continue;
      function = line;
      where = at;
      any = true;
      chosen = at.compare(0, 13, "/usr/include/") != 0;
    }
    return false;
  }

  bool read_line(std::string& s) {
    s.clear();
    char buf[512];
    while (std::fgets(buf, sizeof buf, out_)) {
      s += buf;
      if (!s.empty() && s.back() == '\n') {
        s.pop_back();
        return true;
      }
    }
    return false;
  }

  pid_t pid_ = 0;
  int in_ = -1;
  std::FILE* out_ = nullptr;
  int pending_ = 0;  // answers to prime() not read yet
  bool outermost_ = false;
};

// A code pointer's site, and whether the pointer is in the OpenMP runtime.
struct code_site {
  site where;
  bool runtime = false;
};

// The source location in an ident_t (kmp.h): ";file;function;line;column;;".
// False when it names none (";unknown;unknown;0;0;;", compiled without -g).
inline bool parse_psource(const char* psource, std::string& file, std::string& function, unsigned& line) {
  if (!psource || psource[0] != ';') return false;
  std::string f[4];
  const char* p = psource + 1;
  for (int i = 0; i < 4; ++i) {
    const char* end = std::strchr(p, ';');
    if (!end) return false;
    f[i].assign(p, static_cast<std::size_t>(end - p));
    p = end + 1;
  }
  const unsigned l = static_cast<unsigned>(std::strtoul(f[2].c_str(), nullptr, 10));
  if (f[0].empty() || f[0] == "unknown" || l == 0) return false;
  file = f[0];
  function = f[1] == "unknown" ? std::string() : f[1];
  line = l;
  return true;
}

inline bool is_outlined(const std::string& function) {
  return function.empty() || function.find("omp_outlined") != std::string::npos ||
         function.find("omp_task_entry") != std::string::npos;
}

// The table of code pointers seen so far.
class code_sites {
 public:
  static code_sites& instance() {
    static code_sites* t = new code_sites;  // never destroyed: late threads may look up sites
    return *t;
  }

  // The site of return address `ra`; `enclosing` names the function of the
  // construct around it (for code in outlined functions).
  // Starts addr2line on the main program ahead of its first question (the tool's
  // start), and ends every addr2line at exit.
  void start() {
    std::lock_guard<std::mutex> g(m_);
    if (!use_addr2line_ || !readers_.empty()) return;
    reader("").prime();
    std::atexit([] { instance().stop_all(); });
  }
  // Code inlined into a function is named by that function's line
  // (line_reader's `outermost`); to be set before the first lookup.
  void name_inlined_code_by_caller() {
    std::lock_guard<std::mutex> g(m_);
    outermost_ = true;
  }
  void stop_all() {
    std::lock_guard<std::mutex> g(m_);
    for (auto& r : readers_) r.second->stop();
  }

  code_site find(const void* ra, const char* enclosing) {
    if (!ra) return code_site{site{"(unknown)", 0, enclosing ? enclosing : "", nullptr}, false};
    std::lock_guard<std::mutex> g(m_);
    auto it = sites_.find(ra);
    if (it != sites_.end()) return it->second;
    code_site s = resolve(ra, enclosing);
    sites_.emplace(ra, s);
    return s;
  }

  // The source location the compiler passed to a runtime entry point (`ident`,
  // an ident_t*), with `fallback`'s file when the two name the same file (the
  // line table's path is the whole one; psource has the name the compiler was
  // given). False when it names none.
  bool location(const void* ident, const site& fallback, site& out) {
    if (!ident) return false;
    struct ident_t {  // kmp.h
      std::int32_t reserved_1, flags, reserved_2, reserved_3;
      const char* psource;
    };
    std::lock_guard<std::mutex> g(m_);
    auto it = locations_.find(ident);
    if (it == locations_.end()) {
      std::string file, function;
      unsigned line = 0;
      site s{};
      bool ok = parse_psource(static_cast<const ident_t*>(ident)->psource, file, function, line);
      if (ok) {
        const std::string known = fallback.file ? fallback.file : "";
        const bool same_file = known.size() >= file.size() &&
                               known.compare(known.size() - file.size(), file.size(), file) == 0 &&
                               (known.size() == file.size() || known[known.size() - file.size() - 1] == '/');
        s = site{same_file ? fallback.file : keep(file), line,
                 function.empty() ? (fallback.function ? fallback.function : "") : keep(function), nullptr};
      }
      it = locations_.emplace(ident, std::make_pair(ok, s)).first;
    }
    if (!it->second.first) return false;
    out = it->second.second;
    return true;
  }

 private:
  code_sites() {
    const char* v = std::getenv("FORKSCALE_OMPT_SYMBOLS");
    use_addr2line_ = !(v && std::strcmp(v, "0") == 0);
  }

  const char* keep(std::string s) {
    text_.push_back(std::move(s));
    return text_.back().c_str();
  }

  code_site resolve(const void* ra, const char* enclosing) {
    // The call instruction is before the return address: look up the byte before.
    const auto addr = reinterpret_cast<std::uintptr_t>(ra) - 1;
    Dl_info info{};
    if (!::dladdr(reinterpret_cast<const void*>(addr), &info) || !info.dli_fname) {
      char hex[32];
      std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(addr + 1));
      return code_site{site{keep(hex), 0, enclosing ? enclosing : "", nullptr}, false};
    }
    const auto base = reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    const auto* header = static_cast<const ElfW(Ehdr)*>(info.dli_fbase);
    const std::uintptr_t offset = header->e_type == ET_EXEC ? addr : addr - base;
    // The runtime's own code: named by the caller (no addr2line for it).
    if (info.dli_fbase == runtime_base()) return code_site{fallback(info, offset, enclosing), true};
    std::string function, where;
    if (use_addr2line_ && reader(info.dli_fname).lookup(offset, function, where)) {
      const auto colon = where.rfind(':');
      // "file:?" or "file:0": the file is known, the line is not.
      const unsigned line =
          colon == std::string::npos ? 0u : static_cast<unsigned>(std::atoi(where.c_str() + colon + 1));
      if (function == "??") function.clear();
      if (colon != std::string::npos && colon > 0 && where.compare(0, 2, "??") != 0) {
        if (is_outlined(function) && enclosing && *enclosing) function = enclosing;
        return code_site{site{keep(where.substr(0, colon)), line, keep(function), nullptr}, false};
      }
    }
    return code_site{fallback(info, offset, enclosing), false};
  }

  // The load address of the OpenMP runtime (the object that defines
  // __kmpc_global_thread_num, which no program defines), or null.
  static const void* runtime_base() {
    static const void* base = [] {
      Dl_info info{};
      void* sym = ::dlsym(RTLD_DEFAULT, "__kmpc_global_thread_num");
      return sym && ::dladdr(sym, &info) ? static_cast<const void*>(info.dli_fbase) : nullptr;
    }();
    return base;
  }

  site fallback(const Dl_info& info, std::uintptr_t offset, const char* enclosing) {
    std::string object = info.dli_fname;
    const auto slash = object.find_last_of('/');
    if (slash != std::string::npos) object = object.substr(slash + 1);
    char off[32];
    std::snprintf(off, sizeof off, "+0x%llx", static_cast<unsigned long long>(offset + 1));
    std::string function;
    if (info.dli_sname) {
      int status = 0;
      std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status),
                                               std::free);
      function = status == 0 && d ? d.get() : info.dli_sname;
    }
    if (is_outlined(function) && enclosing) function = enclosing;
    return site{keep(object + off), 0, keep(function), nullptr};
  }

  // The main program's dli_fname is argv[0], maybe relative: /proc/self/exe
  // names the same file wherever the program has moved to since.
  line_reader& reader(std::string object) {
    if (object.empty() || object[0] != '/') {
      char path[4096];
      const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
      if (n > 0) object.assign(path, static_cast<std::size_t>(n));
    }
    auto it = readers_.find(object);
    if (it == readers_.end()) it = readers_.emplace(object, std::make_unique<line_reader>(object, outermost_)).first;
    return *it->second;
  }

  std::mutex m_;
  bool use_addr2line_ = true;
  bool outermost_ = false;
  std::unordered_map<const void*, code_site> sites_;
  std::unordered_map<const void*, std::pair<bool, site>> locations_;  // by ident_t
  std::deque<std::string> text_;
  std::unordered_map<std::string, std::unique_ptr<line_reader>> readers_;
};

}  // namespace ompt
}  // namespace detail
FORKSCALE_NAMESPACE_END
