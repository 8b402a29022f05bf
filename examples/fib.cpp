// fib: the recursive Fibonacci program of Cilkprof (SPAA'15) Fig. 5, measured by
// forkscale.
//
//   fib [N] [--backend serial|threads|tbb|openmp] [--threads T] [--out DIR]
//       [--clock auto|tsc|steady|thread_cpu|cost]
//
// fib(n) spawns fib(n-1), calls fib(n-2) (a profiled call site) and syncs. Its
// work grows like φ^n and its span like n, so the parallelism grows
// exponentially with n: the opposite of quicksort, whose serial partition caps it.
// Every instance does a constant amount of work, so each one charges one unit to
// the cost clock (--clock cost): the work is then the number of calls,
// 2·fib(n+1) − 1.
//
// Backends: 'serial' runs every spawned body inline (the serial elision);
// 'threads' runs it on a new std::thread while the recursion is shallower than a
// cutoff derived from --threads, inline below it; 'tbb' (when oneTBB was found at
// build time) makes every spawn a task of a fs::tbb::task_group; 'openmp' (when
// OpenMP was found) an OpenMP task, synced by the end of a taskgroup. All are
// annotated so that the dag is the same, so under --clock cost all print the
// same numbers.
//
// Exit status: 0 computed and reported; 1 wrong result or forkscale found misuse;
// 2 bad command line or the report files cannot be written.
#include <cstdint>
#include <exception>
#include <iostream>
#include <string>
#include <thread>

#include <forkscale/forkscale.hpp>

#include "example_args.hpp"

namespace fs = forkscale;
using example_args::backend;

namespace {

struct fibber {
  backend be;
  unsigned thread_depth;  // spawns at a smaller depth go to a std::thread

  std::int64_t fib(int n, unsigned depth) const {
    fs::charge(1);
    if (n < 2) return n;
    std::int64_t x = 0, y = 0;
    if (be == backend::threads && depth < thread_depth) {
      // A std::thread is one child joined on its own: bind it to a join handle.
      fs::join_handle h;
      std::thread t(fs::spawn(h, [this, &x, n, depth] { x = fib(n - 1, depth + 1); }));
      y = FORKSCALE_CALL(fib(n - 2, depth + 1));
      {
        fs::sync_point sp(h);
        t.join();
      }
#ifdef FORKSCALE_EXAMPLES_HAVE_TBB
    } else if (be == backend::tbb) {
      // oneTBB: fib(n - 1) is a task of a task_group; wait() is the sync.
      fs::tbb::task_group g;
      g.run([this, &x, n, depth] { x = fib(n - 1, depth + 1); });
      y = FORKSCALE_CALL(fib(n - 2, depth + 1));
      g.wait();
#endif
#ifdef FORKSCALE_EXAMPLES_HAVE_OPENMP
    } else if (be == backend::openmp) {
      // OpenMP: fib(n - 1) is a task, and the end of a taskgroup is the sync. (A
      // taskwait waits for every child of the running task: the one in the call
      // fib(n - 2), which runs in this task, would wait for fib(n - 1) too,
      // making the span longer than Cilk's — docs/openmp.md. A taskgroup waits
      // only for the tasks created inside it.)
      fs::omp::taskgroup([&] {
        auto tk = fs::omp::spawn_point();
#pragma omp task shared(x)
        {
          fs::omp::task_scope ts(tk);
          x = fib(n - 1, depth + 1);
        }
        fs::omp::call_site cs(fs::site::tagged("fib"));  // named as FORKSCALE_CALL names it
        y = fib(n - 2, depth + 1);
      });
#endif
    } else {
      // Serial elision: the spawned body runs here and now.
      fs::spawn([this, &x, n, depth] { x = fib(n - 1, depth + 1); })();
      y = FORKSCALE_CALL(fib(n - 2, depth + 1));
      { fs::sync_point sp; }
    }
    return x + y;
  }
};

std::int64_t fib_iterative(int n) {
  std::int64_t a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    const std::int64_t c = a + b;
    a = b;
    b = c;
  }
  return a;
}

int run(int argc, char** argv) {
  const std::string program = "fib";
  example_args::config cfg;
  try {
    // fib(92) is the largest that fits in 64 bits (and would take years anyway).
    cfg = example_args::parse(argc, argv, 30, 92);
  } catch (const example_args::usage_error& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return 2;
  }
  if (cfg.help) {
    std::cout << example_args::usage(program, 30);
    return 0;
  }

  const int n = static_cast<int>(cfg.n);
  const unsigned cutoff = cfg.be == backend::threads ? example_args::thread_depth_cutoff(cfg.threads) : 0;
  const fibber f{cfg.be, cutoff};
  fs::options opt;
  opt.clock = cfg.clock;
  opt.backend = example_args::library_of(cfg.be);  // its calibrated burden, if any

  std::cout << "fib(" << n << "): backend " << example_args::to_string(cfg.be);
  if (cfg.be == backend::threads)
    std::cout << " (" << cfg.threads << " threads: std::thread for spawns at depth < " << cutoff << ")";
  std::cout << example_args::runtime_note(cfg) << "\n";

  std::int64_t result = 0;
  fs::report rep;
  example_args::run_on_backend(cfg, [&] {
    rep = fs::measure(
        "fib", [&] { result = f.fib(n, 0); }, opt);
  });

  if (result != fib_iterative(n)) {
    std::cerr << program << ": fib(" << n << ") gave " << result << ", expected " << fib_iterative(n) << "\n";
    return 1;
  }
  std::cout << "fib(" << n << ") = " << result << "\n\n";
  return example_args::finish(rep, cfg, "fib", program);
}

}  // namespace

int main(int argc, char** argv) { return example_args::guarded_main("fib", run, argc, argv); }
