// example_args.hpp: the command line shared by the forkscale examples, the code
// that runs a fork-join step and the measurement on each backend, and the code
// that writes their reports.
//
//   <program> [N] [--backend serial|threads|tbb|openmp] [--threads T] [--out DIR]
//             [--clock auto|tsc|steady|thread_cpu|cost]
//
// The tbb and openmp backends exist when the build found oneTBB
// (FORKSCALE_EXAMPLES_HAVE_TBB) and OpenMP (FORKSCALE_EXAMPLES_HAVE_OPENMP);
// asking for one that is not built in is a usage error.
//
// Options also take the form --name=value. Any mistake throws usage_error, whose
// message the example prints as one line ("<program>: <message>") before exiting
// with status 2.
#pragma once
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <forkscale/detail/util/atomic_file.hpp>  // write_files_atomically: the --out files
#include <forkscale/forkscale.hpp>

#ifdef FORKSCALE_EXAMPLES_HAVE_TBB
#include <optional>

#include <oneapi/tbb/global_control.h>
#include <forkscale/adapters/tbb.hpp>
#endif
#ifdef FORKSCALE_EXAMPLES_HAVE_OPENMP
#include <forkscale/adapters/openmp.hpp>
#endif

namespace example_args {

namespace fs = forkscale;

// Where a spawned body runs.
enum class backend {
  serial,   // inline, on the spawning thread: the serial elision
  threads,  // on a new std::thread near the top of the recursion, inline below it
  tbb,      // a oneTBB task (forkscale/tbb.hpp), at every level
  openmp,   // an OpenMP task (forkscale/openmp.hpp), at every level
};

inline const char* to_string(backend b) noexcept {
  switch (b) {
    case backend::serial:
      return "serial";
    case backend::threads:
      return "threads";
    case backend::tbb:
      return "tbb";
    case backend::openmp:
      return "openmp";
  }
  return "?";
}

// The library a backend runs spawned bodies on, as the measurement's
// options.backend: its burden is the one `forkscale-report calibrate --backend
// <library>` stored on this machine, if any. The serial elision runs on none:
// automatic, which finds no library (the guards spawn) and keeps the default.
inline fs::backend library_of(backend b) noexcept {
  switch (b) {
    case backend::threads:
      return fs::backend::std_thread;
    case backend::tbb:
      return fs::backend::tbb;
    case backend::openmp:
      return fs::backend::openmp;
    default:
      return fs::backend::automatic;
  }
}

#ifdef FORKSCALE_EXAMPLES_HAVE_TBB
inline constexpr bool have_tbb = true;
#else
inline constexpr bool have_tbb = false;
#endif
#ifdef FORKSCALE_EXAMPLES_HAVE_OPENMP
inline constexpr bool have_openmp = true;
#else
inline constexpr bool have_openmp = false;
#endif

// The backends this build has: "serial|threads[|tbb][|openmp]" with "|" as the
// separator.
inline std::string built_in_backends(const char* separator) {
  std::string list = std::string("serial") + separator + "threads";
  if (have_tbb) list += std::string(separator) + "tbb";
  if (have_openmp) list += std::string(separator) + "openmp";
  return list;
}

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The most threads --threads accepts: the examples start 2^(depth cutoff) - 1
// threads, and the cutoff grows with log2(threads).
inline constexpr std::uint64_t max_threads = 1024;

struct config {
  std::uint64_t n = 0;
  backend be = backend::threads;
  unsigned threads = 1;
  std::string out_dir;  // empty: no files
  fs::clock_kind clock = fs::clock_kind::automatic;
  bool help = false;
};

// An option only some examples take, e.g. stencil's "--loop inner|outer": its
// name, the placeholder and help shown by --help, and what to do with its value
// (throw usage_error when the value is bad). It also takes the --name=value form.
struct extra_option {
  std::string name;        // "--loop"
  std::string value_name;  // "inner|outer"
  std::string help;        // after the name; any further line starts with 13 spaces
  std::function<void(const std::string&)> apply;
};
using extra_options = std::vector<extra_option>;

// A whole string as a decimal integer in [1, max]: no sign, no spaces, no
// trailing characters. `what` names the value in the message.
inline std::uint64_t parse_positive(const std::string& text, std::uint64_t max, const std::string& what) {
  std::uint64_t v = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  const bool digits_only = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (!digits_only || ec == std::errc::invalid_argument || ptr != last)
    throw usage_error(what + " must be a positive integer (got '" + text + "')");
  if (ec == std::errc::result_out_of_range || v > max)
    throw usage_error(what + " must be at most " + std::to_string(max) + " (got '" + text + "')");
  if (v == 0) throw usage_error(what + " must be a positive integer (got '" + text + "')");
  return v;
}

inline std::string usage(const std::string& program, std::uint64_t default_n, const extra_options& extra) {
  std::string line = "usage: " + program + " [N] [--backend " + built_in_backends("|") +
                     "] [--threads T] [--out DIR] [--clock auto|tsc|steady|thread_cpu|cost]";
  std::string extra_help;
  for (const extra_option& o : extra) {
    line += " [" + o.name + " " + o.value_name + "]";
    std::string name = o.name;
    if (name.size() < 10) name.resize(10, ' ');
    extra_help += "  " + name + " " + o.help + "\n";
  }
  return line +
         "\n"
         "  N          problem size (default " +
         std::to_string(default_n) +
         ")\n"
         "  --backend  serial: spawned bodies run inline (the serial elision);\n"
         "             threads: on std::threads near the top of the recursion (default)\n" +
         (have_tbb ? "             tbb: as oneTBB tasks (forkscale/tbb.hpp)\n"
                   : "             tbb: not built in (oneTBB was not found at build time)\n") +
         (have_openmp ? "             openmp: as OpenMP tasks (forkscale/openmp.hpp)\n"
                      : "             openmp: not built in (OpenMP was not found at build time)\n") +
         "  --threads  the most threads a backend runs at once: std::threads (threads),\n"
         "             oneTBB's max_allowed_parallelism (tbb), the team (openmp)\n"
         "             (default: hardware concurrency)\n"
         "  --out      also write DIR/<name>.json, .csv, .txt, .call_sites.csv and\n"
         "             .spawn_sites.csv (DIR is created)\n"
         "  --clock    auto (default: thread_cpu read from the TSC when invariant), tsc, steady, thread_cpu, or cost\n"
         "             (deterministic units charged by the program)\n" +
         extra_help;
}

inline std::string usage(const std::string& program, std::uint64_t default_n) {
  return usage(program, default_n, extra_options{});
}

// Parses argv. `max_n` bounds N (the message names the bound); `extra` lists the
// options this example takes beyond the common ones.
inline config parse(int argc, char** argv, std::uint64_t default_n, std::uint64_t max_n, const extra_options& extra) {
  config c;
  c.n = default_n;
  const unsigned hw = std::thread::hardware_concurrency();
  c.threads = hw == 0 ? 1 : (hw > max_threads ? static_cast<unsigned>(max_threads) : hw);
  bool have_n = false;

  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      c.help = true;
      continue;
    }
    // A negative number is a bad N, not an unknown option.
    const bool looks_numeric = arg.size() > 1 && arg[0] == '-' && arg[1] >= '0' && arg[1] <= '9';
    if (arg.size() > 1 && arg[0] == '-' && !looks_numeric) {
      std::string name = arg, value;
      bool inline_value = false;
      const auto eq = arg.find('=');
      if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        inline_value = true;
      }
      const extra_option* special = nullptr;
      for (const extra_option& o : extra)
        if (name == o.name) special = &o;
      if (name != "--backend" && name != "--threads" && name != "--out" && name != "--clock" && !special)
        throw usage_error("unknown option '" + arg + "' (try --help)");
      if (!inline_value) {
        if (i + 1 >= argc) throw usage_error("option " + name + " needs a value");
        value = argv[++i];
      }
      if (special) {
        special->apply(value);
      } else if (name == "--backend") {
        if (value == "serial")
          c.be = backend::serial;
        else if (value == "threads")
          c.be = backend::threads;
        else if (value == "tbb" && have_tbb)
          c.be = backend::tbb;
        else if (value == "openmp" && have_openmp)
          c.be = backend::openmp;
        else if (value == "tbb")
          throw usage_error("backend 'tbb' is not built in (oneTBB was not found at build time)");
        else if (value == "openmp")
          throw usage_error("backend 'openmp' is not built in (OpenMP was not found at build time)");
        else {
          std::string expected = built_in_backends(", ");
          expected.replace(expected.rfind(", "), 2, " or ");
          throw usage_error("unknown backend '" + value + "' (expected " + expected + ")");
        }
      } else if (name == "--threads") {
        c.threads = static_cast<unsigned>(parse_positive(value, max_threads, "--threads"));
      } else if (name == "--out") {
        if (value.empty()) throw usage_error("--out needs a directory name");
        c.out_dir = value;
      } else {  // --clock
        if (value == "auto" || value == "automatic")
          c.clock = fs::clock_kind::automatic;
        else if (value == "tsc")
          c.clock = fs::clock_kind::tsc;
        else if (value == "steady")
          c.clock = fs::clock_kind::steady;
        else if (value == "thread_cpu")
          c.clock = fs::clock_kind::thread_cpu;
        else if (value == "cost")
          c.clock = fs::clock_kind::cost;
        else
          throw usage_error("unknown clock '" + value + "' (expected auto, tsc, steady, thread_cpu or cost)");
      }
      continue;
    }
    if (have_n) throw usage_error("unexpected argument '" + arg + "' (N was already given)");
    c.n = parse_positive(arg, max_n, "N");
    have_n = true;
  }
  return c;
}

inline config parse(int argc, char** argv, std::uint64_t default_n, std::uint64_t max_n) {
  return parse(argc, argv, default_n, max_n, extra_options{});
}

// How deep in the recursion the 'threads' backend still starts a std::thread:
// spawns at depth < cutoff do, deeper ones run inline. The cutoff is
// floor(log2(threads)), so at most `threads` threads (2^cutoff, the main thread
// included) ever run at once. Oversubscribing would cost more than uneven splits:
// the timed clocks measure wall time, so a strand whose thread waits for a core
// counts the wait as work (one more level doubled Work and Span on a 2-core
// machine). One thread means no thread at all.
inline unsigned thread_depth_cutoff(unsigned threads) noexcept {
  unsigned log2_floor = 0;
  while (threads >= (2u << log2_floor)) ++log2_floor;
  return log2_floor;
}

// Writes DIR/<stem>.json, .csv and .txt, and the site profiles as
// DIR/<stem>.call_sites.csv and DIR/<stem>.spawn_sites.csv: all five or none (the
// library's group write, forkscale/detail/util/atomic_file.hpp, leaves the old
// files as they were when any of them cannot be written). On failure prints one
// line to stderr and returns false.
inline bool write_reports(const fs::report& rep, const std::string& dir, const std::string& stem,
                          const std::string& program) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::cerr << program << ": cannot create directory '" << dir << "': " << ec.message() << "\n";
    return false;
  }
  const std::filesystem::path base = std::filesystem::path(dir) / stem;
  try {
    const std::string b = base.string();
    fs::detail::write_files_atomically({{b + ".json", rep.to_json()},
                                        {b + ".csv", rep.to_csv()},
                                        {b + ".txt", rep.to_text()},
                                        {b + ".call_sites.csv", rep.call_sites_csv()},
                                        {b + ".spawn_sites.csv", rep.spawn_sites_csv()}});
  } catch (const fs::error& e) {
    std::cerr << e.what() << "\n";
    return false;
  }
  return true;
}

// A note for the banner line of a backend that needs one: the oneTBB and OpenMP
// thread limits ("" for serial and threads, whose examples say it themselves).
// The end of every example: print the report, write it with --out (exit 2 when
// that fails), and fail (exit 1) when forkscale reported a diagnostic: misuse
// makes the numbers untrustworthy, and a what-if diagnostic (a bad
// FORKSCALE_WHAT_IF, too many regions) means the analysis asked for is missing.
inline int finish(const fs::report& rep, const config& cfg, const std::string& stem, const std::string& program) {
  std::cout << rep;
  if (!cfg.out_dir.empty() && !write_reports(rep, cfg.out_dir, stem, program)) return 2;
  if (rep.diagnostic_count != 0) {
    std::cerr << program << ": forkscale reported " << rep.diagnostic_count
              << " diagnostic(s), listed above; after misuse of the guards the numbers are not trustworthy\n";
    return 1;
  }
  return 0;
}

// main() of every example: anything thrown becomes one line and exit status 1.
template <class Run>
int guarded_main(const char* name, Run run, int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return 1;
  }
}

inline std::string runtime_note(const config& c) {
  if (c.be == backend::tbb) return " (oneTBB tasks, at most " + std::to_string(c.threads) + " threads)";
  if (c.be == backend::openmp) return " (OpenMP tasks, a team of " + std::to_string(c.threads) + " threads)";
  return "";
}

// Runs `body` — the example's fs::measure(...) — where the backend's runtime
// wants it:
//
//   tbb      under a tbb::global_control that lets oneTBB run at most --threads
//            threads at once (the main thread included), oneTBB started;
//   openmp   in a parallel region of --threads threads, on the one thread that
//            runs its `single` block, as an OpenMP program starts its tasks:
//
//              #pragma omp parallel num_threads(threads)
//              #pragma omp single
//              rep = fs::measure("fib", [&] { fib(n); });
//
//            The region encloses the measurement, so its own fork and join are
//            not in the report (fs::omp::team is for a measurement that encloses
//            a region; it would add one spawn and one sync that the other
//            backends do not have). The team's other threads run the tasks.
//   serial, threads: just calls it.
template <class F>
void run_on_backend(const config& c, F&& body) {
#ifdef FORKSCALE_EXAMPLES_HAVE_TBB
  if (c.be == backend::tbb) {
    ::tbb::global_control limit(::tbb::global_control::max_allowed_parallelism, c.threads);
    // oneTBB starts its scheduler and worker threads at the first task: do that
    // now, or the start-up (most of a millisecond) is timed as the work of the
    // first strand, on the critical path. (The OpenMP team below exists before
    // the measurement starts, too.)
    ::tbb::task_group warm_up;
    warm_up.run([] {});
    warm_up.wait();
    body();
    return;
  }
#endif
#ifdef FORKSCALE_EXAMPLES_HAVE_OPENMP
  if (c.be == backend::openmp) {
    const int threads = static_cast<int>(c.threads);
    std::exception_ptr failure;  // nothing may leave a structured block by an exception
#pragma omp parallel num_threads(threads)
#pragma omp single
    {
      try {
        body();
      } catch (...) {
        failure = std::current_exception();
      }
    }
    if (failure) std::rethrow_exception(failure);
    return;
  }
#endif
  (void)c;
  body();
}

// One fork-join step of a divide-and-conquer example — some spawned children, a
// call in the continuation, a sync — run the way the backend runs it:
//
//   example_args::fork_join fj(cfg.be, budget);
//   fj.spawn([&](unsigned b) { left(b); });   // cilk_spawn left();
//   fj.call([&](unsigned b) { right(b); });   // right();  (a profiled call site)
//   fj.sync();                                // cilk_sync;
//
// Every body receives its thread budget: how many threads the work it starts may
// keep busy at once, its own included. The top of the recursion gets --threads.
// (Only the threads backend uses it; the others pass 1.)
//
// The children are spawned into a task_group of this step and the sync is a
// sync_point of that group, so it joins exactly the children of this step, as
// cilk_sync joins the children of its own function. (A plain sync_point joins
// every child of the running task, which includes the children a caller
// spawned before calling this function: a sync inside a called function would
// join its caller's children early and lengthen the span.)
//
// With the serial backend, or a budget of 1, each spawned body runs inline when
// it is spawned (the serial elision). With the threads backend and a budget
// b >= 2, the spawned bodies start at the call (or at the sync when there is no
// call): the k bodies, the called one last, are dealt in order into min(b, k)
// batches that share the budget; every batch but the last runs on a std::thread
// of its own, the last one (with the call) on this thread, and the sync joins
// the threads. The spawn points are recorded in program order either way and
// the continuation does no work between them, so the dag, and under the cost
// clock every number, is the same on both backends. No more than --threads
// threads ever run at once: oversubscribing the cores would make the timed
// clocks count waiting for a core as work (see thread_depth_cutoff).
//
// With the tbb backend the step is a fs::tbb::task_group — spawn is run(), the
// call a call_site, the sync wait() — at every level of the recursion:
//
//   fs::tbb::task_group g;
//   g.run([&] { left(); });
//   { fs::call_site cs; right(); }
//   g.wait();
//
// With the openmp backend the step is an OpenMP taskgroup: the spawned bodies
// become tasks created in it, the call runs in it, and its end is the sync.
//
//   fs::omp::taskgroup([&] {                  // #pragma omp taskgroup
//     auto tk = fs::omp::spawn_point();
//     #pragma omp task
//     { fs::omp::task_scope ts(tk); left(); }
//     fs::omp::call_site cs;
//     right();
//   });
//
// Not a taskwait: OpenMP's taskwait waits for every child of the running *task*,
// so a taskwait inside right() would also wait for left(), which its caller
// spawned — an edge Cilk's sync (and the other backends) do not have. A taskgroup
// waits for the tasks created inside it only, at any depth of calls. As with the
// threads backend, the tasks are created when the step reaches its call (or its
// sync): the continuation does no work in between, so the dag is the same.
//
// The destructor syncs whatever sync() was not called for, as a Cilk function
// does when it returns.
class fork_join {
 public:
  fork_join(backend be, unsigned budget)
      : be_(be), deferred_(be == backend::threads && budget >= 2), budget_(budget < 1 ? 1 : budget) {
#ifdef FORKSCALE_EXAMPLES_HAVE_TBB
    if (be_ == backend::tbb) tbb_.emplace();
#endif
  }
  fork_join(const fork_join&) = delete;
  fork_join& operator=(const fork_join&) = delete;
  ~fork_join() {
    if (open_) sync();
  }

  // `where` defaults to the caller's line: the profiles name the example's own
  // spawn and call sites, not this helper's.
  template <class F>
  void spawn(F&& body, const fs::site& where = fs::site::current()) {
    open_ = true;
#ifdef FORKSCALE_EXAMPLES_HAVE_TBB
    if (be_ == backend::tbb) {
      tbb_->run([fn = std::decay_t<F>(std::forward<F>(body))] { fn(1u); }, where);
      return;
    }
#endif
#ifdef FORKSCALE_EXAMPLES_HAVE_OPENMP
    if (be_ == backend::openmp) {
      omp_pending_.emplace_back([fn = std::decay_t<F>(std::forward<F>(body))] { fn(1u); }, where);
      return;
    }
#endif
    if (!deferred_) {
      fs::spawn(
          group_, [&body] { body(1u); }, where)();
      return;
    }
    auto budget = std::make_shared<unsigned>(1u);
    auto spawned = fs::spawn(
        group_, [budget, fn = std::decay_t<F>(std::forward<F>(body))] { fn(*budget); }, where);
    auto shared = std::make_shared<decltype(spawned)>(std::move(spawned));
    pending_.push_back(task{budget, [shared] { (*shared)(); }});
  }

  template <class F>
  void call(F&& body, const fs::site& where = fs::site::current()) {
    open_ = true;
#ifdef FORKSCALE_EXAMPLES_HAVE_OPENMP
    if (be_ == backend::openmp) {
      omp_step([&body, &where] {
        fs::omp::call_site cs(where);
        body(1u);
      });
      return;
    }
#endif
    const unsigned budget = deferred_ ? start(true) : 1u;
    fs::call_site cs(where);
    std::forward<F>(body)(budget);
  }

  void sync() {
#ifdef FORKSCALE_EXAMPLES_HAVE_TBB
    if (be_ == backend::tbb) {
      tbb_->wait();
      open_ = false;
      return;
    }
#endif
#ifdef FORKSCALE_EXAMPLES_HAVE_OPENMP
    if (be_ == backend::openmp) {
      if (!omp_joined_) omp_step([] {});
      omp_joined_ = false;
      open_ = false;
      return;
    }
#endif
    if (!pending_.empty()) start(false);
    {
      fs::sync_point sp(group_);
      for (std::thread& t : threads_) t.join();
    }
    threads_.clear();
    open_ = false;
  }

 private:
  struct task {
    std::shared_ptr<unsigned> budget;  // read by the body when it runs
    std::function<void()> run;         // the spawned callable
  };

  // Deals the pending spawned bodies (and the call, last, if `with_call`) into
  // batches, starts a thread per batch but the last, runs the spawned bodies of
  // the last one here, and returns the call's budget.
  unsigned start(bool with_call) {
    const std::size_t k = pending_.size() + (with_call ? 1 : 0);
    const std::size_t g = k < budget_ ? k : budget_;
    std::size_t first = 0;
    unsigned last_budget = 1;
    for (std::size_t j = 0; j < g; ++j) {
      const std::size_t end = (j + 1) * k / g;
      const unsigned b = static_cast<unsigned>(budget_ / g + (j < budget_ % g ? 1 : 0));
      std::vector<task> batch;
      for (std::size_t i = first; i < end && i < pending_.size(); ++i) {
        *pending_[i].budget = b;
        batch.push_back(std::move(pending_[i]));
      }
      first = end;
      if (j + 1 < g) {
        threads_.emplace_back([batch = std::move(batch)] {
          for (const task& t : batch) t.run();
        });
      } else {
        for (const task& t : batch) t.run();
        last_budget = b;
      }
    }
    pending_.clear();
    return last_budget;
  }

#ifdef FORKSCALE_EXAMPLES_HAVE_OPENMP
  // The whole step as one OpenMP taskgroup: a task per pending spawned body, in
  // order, then `call` (the continuation), then the taskgroup's end — the sync.
  template <class Call>
  void omp_step(const Call& call) {
    fs::omp::taskgroup([&] {
      for (auto& pending : omp_pending_) {
        std::function<void()>* run = &pending.first;  // alive until the taskgroup ends
        auto tk = fs::omp::spawn_point(pending.second);
#pragma omp task firstprivate(run, tk)
        {
          fs::omp::task_scope ts(tk);
          (*run)();
        }
      }
      call();
    });
    omp_pending_.clear();
    omp_joined_ = true;
  }
#endif

  const backend be_;
  const bool deferred_;
  const unsigned budget_;
  bool open_ = false;
  fs::task_group group_;
  std::vector<task> pending_;
  std::vector<std::thread> threads_;
#ifdef FORKSCALE_EXAMPLES_HAVE_TBB
  std::optional<fs::tbb::task_group> tbb_;
#endif
#ifdef FORKSCALE_EXAMPLES_HAVE_OPENMP
  std::vector<std::pair<std::function<void()>, fs::site>> omp_pending_;
  bool omp_joined_ = false;  // call() ran the step's taskgroup, sync included
#endif
};

}  // namespace example_args
