// cli_run.hpp: `forkscale-report run`, which profiles a program without
// rebuilding it (docs/threads.md, docs/ompt.md "Without rebuilding"):
//
//   forkscale-report run [--openmp|--threads|--auto] [--out DIR] [--clock C] [--] PROGRAM ARGS...
//
// It loads one of forkscale's libraries into the program — libforkscale_ompt.so
// (an OMPT tool, for programs that link LLVM's libomp) or libforkscale_threads.so
// (pthread_create, pthread_join and pthread_mutex_lock interposed) — through
// LD_PRELOAD (and OMP_TOOL_LIBRARIES), runs it with its own stdin, stdout and
// stderr, and, once it has exited, shows the report the library wrote as text
// on stderr; with --out DIR it also leaves report.json, report.csv, report.txt
// and report.html there. The exit status is the program's (128 + the signal's
// number when a signal ended it), or 2 with one line on stderr when the program
// cannot be run so (not there, not executable, statically linked).
#pragma once
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <elf.h>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#ifndef FORKSCALE_CLI_LIBDIR
#define FORKSCALE_CLI_LIBDIR "../lib"  // from the tool's directory to the libraries' (installed)
#endif

extern char** environ;

namespace forkscale_cli {

struct run_options {
  std::string mode = "auto";  // auto, openmp, threads
  std::string out;            // --out DIR
  std::string clock;          // --clock C: FORKSCALE_CLOCK for the program
  std::vector<std::string> program;
};

inline failure run_usage(const std::string& msg) {
  return failure{std::string(program) + ": run: " + msg + " (try --help)"};
}

inline run_options parse_run_args(const std::vector<std::string>& args) {
  run_options o;
  bool mode_given = false;
  std::size_t i = 1;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "--openmp" || a == "--threads" || a == "--auto") {
      if (mode_given) throw run_usage("give one of --openmp, --threads and --auto");
      mode_given = true;
      o.mode = a.substr(2);
    } else if (a == "--out" || a == "--clock" || a.rfind("--out=", 0) == 0 || a.rfind("--clock=", 0) == 0) {
      const std::size_t eq = a.find('=');
      const std::string name = a.substr(0, eq);
      std::string value;
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
      } else {
        if (i + 1 >= args.size()) throw run_usage("option " + name + " needs a value");
        value = args[++i];
      }
      if (value.empty()) throw run_usage("option " + name + " needs a non-empty value");
      (name == "--out" ? o.out : o.clock) = value;
    } else if (a.size() > 1 && a[0] == '-') {
      throw run_usage("unknown option " + forkscale_cli::quoted(a));
    } else {
      break;  // the program
    }
  }
  o.program.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (o.program.empty()) throw run_usage("no program given (forkscale-report run [options] -- PROGRAM ARGS...)");
  if (!o.clock.empty() && o.clock != "cost" && o.clock != "tsc" && o.clock != "steady" && o.clock != "thread_cpu" &&
      o.clock != "automatic" && o.clock != "auto")
    throw run_usage("unknown clock " + forkscale_cli::quoted(o.clock) +
                    " (expected cost, tsc, steady, thread_cpu or automatic)");
  return o;
}

// ---- the program's file ------------------------------------------------------------

// What the run needs to know of an executable file.
struct program_file {
  bool elf = false;
  bool script = false;        // #!: the interpreter is what runs (and is preloaded)
  bool dynamic = false;       // it has an interpreter (ld.so), so LD_PRELOAD applies
  bool links_libomp = false;  // libomp (or libiomp5) among its DT_NEEDED
};

template <class Ehdr, class Phdr, class Dyn>
void read_elf(std::ifstream& in, program_file& f) {
  Ehdr eh{};
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh)) return;
  std::vector<Phdr> ph(eh.e_phnum);
  for (std::size_t k = 0; k < ph.size(); ++k) {
    in.seekg(static_cast<std::streamoff>(eh.e_phoff + k * eh.e_phentsize));
    if (!in.read(reinterpret_cast<char*>(&ph[k]), sizeof(Phdr))) return;
  }
  const Phdr* dynamic = nullptr;
  for (const Phdr& p : ph) {
    if (p.p_type == PT_INTERP) f.dynamic = true;
    if (p.p_type == PT_DYNAMIC) dynamic = &p;
  }
  if (!dynamic) return;
  // The dynamic section's string table is given by address: its file offset is
  // found through the segment that loads it.
  const auto to_offset = [&](std::uint64_t addr) -> std::int64_t {
    for (const Phdr& p : ph)
      if (p.p_type == PT_LOAD && addr >= p.p_vaddr && addr < p.p_vaddr + p.p_filesz)
        return static_cast<std::int64_t>(addr - p.p_vaddr + p.p_offset);
    return -1;
  };
  std::vector<Dyn> dyn(dynamic->p_filesz / sizeof(Dyn));
  in.seekg(static_cast<std::streamoff>(dynamic->p_offset));
  if (dyn.empty() ||
      !in.read(reinterpret_cast<char*>(dyn.data()), static_cast<std::streamsize>(dyn.size() * sizeof(Dyn))))
    return;
  std::uint64_t strtab = 0;
  for (const Dyn& d : dyn)
    if (d.d_tag == DT_STRTAB) strtab = d.d_un.d_ptr;
  const std::int64_t base = to_offset(strtab);
  if (base < 0) return;
  for (const Dyn& d : dyn) {
    if (d.d_tag != DT_NEEDED) continue;
    in.clear();
    in.seekg(base + static_cast<std::int64_t>(d.d_un.d_val));
    std::string name;
    std::getline(in, name, '\0');
    if (name.rfind("libomp.so", 0) == 0 || name.rfind("libiomp5.so", 0) == 0) f.links_libomp = true;
  }
}

inline program_file inspect_program(const std::string& path) {
  program_file f;
  std::ifstream in(path, std::ios::binary);
  unsigned char ident[EI_NIDENT] = {};
  if (!in.read(reinterpret_cast<char*>(ident), 2)) return f;
  if (ident[0] == '#' && ident[1] == '!') {
    f.script = true;
    return f;
  }
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(ident), EI_NIDENT) || std::memcmp(ident, ELFMAG, SELFMAG) != 0) return f;
  f.elf = true;
  if (ident[EI_CLASS] == ELFCLASS64)
    read_elf<Elf64_Ehdr, Elf64_Phdr, Elf64_Dyn>(in, f);
  else if (ident[EI_CLASS] == ELFCLASS32)
    read_elf<Elf32_Ehdr, Elf32_Phdr, Elf32_Dyn>(in, f);
  return f;
}

// The file PROGRAM names: a path when it has a '/', else found on PATH (as the
// shell would).
inline std::string locate_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string list = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t i = 0;
  while (i <= list.size()) {
    std::size_t end = list.find(':', i);
    if (end == std::string::npos) end = list.size();
    const std::string dir = end > i ? list.substr(i, end - i) : ".";
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    i = end + 1;
  }
  return std::string();
}

// Where the libraries are: beside the tool (a build tree), else in the
// installed library directory.
inline std::string find_library(const std::string& file) {
  namespace stdfs = std::filesystem;
  std::error_code ec;
  const stdfs::path self = stdfs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::string();
  for (const stdfs::path& dir : {self.parent_path(), self.parent_path() / FORKSCALE_CLI_LIBDIR}) {
    const stdfs::path p = dir / file;
    if (stdfs::exists(p, ec)) return stdfs::canonical(p, ec).string();
  }
  return std::string();
}

// ---- running it -----------------------------------------------------------------------

inline std::string prepend_to_list(const char* var, const std::string& entry) {
  const char* old = std::getenv(var);
  return old && *old ? entry + ":" + old : entry;
}

// Spawns the program with `env` and waits; returns its wait status.
inline int spawn_and_wait(const std::string& path, const std::vector<std::string>& argv,
                          const std::vector<std::string>& env, const std::string& shown) {
  std::vector<char*> a, e;
  for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  for (const auto& s : env) e.push_back(const_cast<char*>(s.c_str()));
  e.push_back(nullptr);
  // As system() does: the terminal's interrupt goes to the program; the tool
  // waits for it to end and then shows what it measured.
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, path.c_str(), nullptr, &attr, a.data(), e.data());
  posix_spawnattr_destroy(&attr);
  int status = 0;
  if (rc == 0)
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  if (rc != 0)
    throw failure{std::string(program) + ": cannot run " + forkscale_cli::quoted(shown) + ": " + std::strerror(rc)};
  return status;
}

// The checks of a program before it runs: one line and exit status 2 when it
// cannot be run with a preloaded library.
inline std::string checked_program(const std::string& name, program_file& facts) {
  const std::string path = locate_program(name);
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0)
    throw failure{std::string(program) + ": run: " + forkscale_cli::quoted(name) + ": no such program"};
  if (!S_ISREG(st.st_mode))
    throw failure{std::string(program) + ": run: " + forkscale_cli::quoted(name) + ": not a file"};
  if (::access(path.c_str(), X_OK) != 0)
    throw failure{std::string(program) + ": run: " + forkscale_cli::quoted(name) + ": not executable"};
  facts = inspect_program(path);
  if (!facts.elf && !facts.script)
    throw failure{std::string(program) + ": run: " + forkscale_cli::quoted(name) +
                  ": not a program this tool can run (neither an ELF executable nor a #! script)"};
  if (facts.elf && !facts.dynamic)
    throw failure{std::string(program) + ": run: " + forkscale_cli::quoted(name) +
                  ": statically linked: no library can be preloaded into it (build it without -static)"};
  return path;
}

// After the run: the report, if the program left one.
inline void show_report(const std::string& dir, bool keep, std::ostream& err) {
  const std::string json = dir + "/report.json";
  const document d = load(json);  // failure when unreadable
  err << d.rep.to_text();
  err.flush();
  if (!keep) return;
  fs::detail::write_file_atomically(dir + "/report.csv", d.rep.to_csv());
  fs::detail::write_file_atomically(dir + "/report.txt", d.rep.to_text());
  fs::detail::write_file_atomically(dir + "/report.html", fs::to_html(d.rep));
}

inline int run_command(const std::vector<std::string>& args, std::ostream& err) {
  namespace stdfs = std::filesystem;
  const run_options o = parse_run_args(args);
  program_file facts;
  const std::string path = checked_program(o.program[0], facts);
  const std::string mode = o.mode != "auto" ? o.mode : facts.links_libomp ? "openmp" : "threads";
  const std::string library = find_library(mode == "openmp" ? "libforkscale_ompt.so" : "libforkscale_threads.so");
  if (library.empty())
    throw failure{std::string(program) + ": run: " +
                  (mode == "openmp" ? std::string("libforkscale_ompt.so is not beside this tool nor installed (it is "
                                                  "built when clang++ and <omp-tools.h> are there)")
                                    : std::string("libforkscale_threads.so is not beside this tool nor installed"))};
  std::error_code ec;
  std::string dir = o.out;
  if (dir.empty()) {
    std::string pattern = (stdfs::temp_directory_path(ec) / "forkscale-run-XXXXXX").string();
    if (ec || !::mkdtemp(&pattern[0])) throw failure{std::string(program) + ": run: cannot make a temporary directory"};
    dir = pattern;
  } else {
    stdfs::create_directories(dir, ec);
    if (ec || !stdfs::is_directory(dir))
      throw failure{std::string(program) + ": run: cannot make the directory " + forkscale_cli::quoted(dir)};
  }
  dir = stdfs::absolute(dir, ec).string();
  stdfs::remove(dir + "/report.json", ec);  // never a report of an earlier run

  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string v = *e;
    const std::string key = v.substr(0, v.find('='));
    if (key != "LD_PRELOAD" && key != "FORKSCALE_REPORT" && key != "OMP_TOOL_LIBRARIES" &&
        !(key == "FORKSCALE_CLOCK" && !o.clock.empty()) && !(key == "FORKSCALE_OMPT" && mode == "openmp"))
      env.push_back(v);
  }
  env.push_back("LD_PRELOAD=" + prepend_to_list("LD_PRELOAD", library));
  env.push_back("FORKSCALE_REPORT=" + dir + "/report.json");
  if (!o.clock.empty()) env.push_back("FORKSCALE_CLOCK=" + o.clock);
  if (mode == "openmp") {
    env.push_back("OMP_TOOL_LIBRARIES=" + prepend_to_list("OMP_TOOL_LIBRARIES", library));
    env.push_back("FORKSCALE_OMPT=1");  // also a program built with forkscale/ompt.hpp measures itself once
  }
  const int status = spawn_and_wait(path, o.program, env, o.program[0]);

  int code = 0;
  if (WIFEXITED(status)) {
    code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    code = 128 + WTERMSIG(status);
    err << program << ": run: " << o.program[0] << " was ended by signal " << WTERMSIG(status) << " ("
        << strsignal(WTERMSIG(status)) << ")\n";
  }
  if (stdfs::exists(dir + "/report.json", ec)) {
    try {
      show_report(dir, !o.out.empty(), err);
    } catch (const failure& f) {
      err << f.message << "\n";
    } catch (const fs::error& e) {
      err << retag(e.what()) << "\n";
    }
  } else {
    err << program << ": run: " << o.program[0]
        << " left no report (it ended before its exit handlers ran: a signal, _exit, or exec; or it measures itself "
           "with forkscale)\n";
  }
  if (o.out.empty()) stdfs::remove_all(dir, ec);
  return code;
}

}  // namespace forkscale_cli
