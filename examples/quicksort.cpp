// quicksort: the parallel quicksort of Cilkprof (SPAA'15) Fig. 1 and Cilkview
// (SPAA'10) Fig. 1, measured by forkscale.
//
//   quicksort [N] [--backend serial|threads|tbb|openmp] [--threads T] [--out DIR]
//             [--clock auto|tsc|steady|thread_cpu|cost]
//
// Sorts N (default 10,000,000) 64-bit integers drawn by std::mt19937_64 (seed 42).
// Each call partitions its range serially, spawns the sort of the lower part,
// calls the sort of the upper part and syncs; ranges of fewer than COARSENING (32)
// elements are insertion-sorted. The partition is linear in the range and runs
// before anything can be spawned, so it lies on the critical path at every level:
// the span is Θ(n) and the parallelism only Θ(log n): at ten million elements
// about 7 under --clock cost and 8 under the TSC (Cilkprof reports 5.6, Cilkview
// 21 in instructions for the same program), however many cores the machine has.
// That is the point of the example: the report says so without any knowledge of
// the algorithm.
//
// Backends: 'serial' runs every spawned body inline (the serial elision);
// 'threads' runs it on a new std::thread while the recursion is shallower than a
// cutoff derived from --threads, inline below it; 'tbb' (when oneTBB was found at
// build time) makes every spawn a task of a fs::tbb::task_group, at most
// --threads threads; 'openmp' (when OpenMP was found) makes every spawn an OpenMP
// task, synced by the end of a taskgroup, in a team of --threads threads. All are
// annotated so that the dag is the same, so under --clock cost (one unit per
// element a partition touches and per comparison of the insertion sort) all
// print the same numbers.
//
// Exit status: 0 sorted and reported; 1 the result is not sorted or forkscale
// found misuse; 2 bad command line or the report files cannot be written.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <forkscale/forkscale.hpp>

#include "example_args.hpp"

namespace fs = forkscale;
using example_args::backend;

namespace {

constexpr std::ptrdiff_t COARSENING = 32;

// A pivot index in [low, high), pseudo-random but a function of the range only
// (splitmix64 of its bounds), so that every run and every backend splits the same
// way; the paper's rand() would make the threads race on one generator.
std::ptrdiff_t pivot_index(std::ptrdiff_t low, std::ptrdiff_t high) noexcept {
  std::uint64_t z = static_cast<std::uint64_t>(low) * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(high);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return low + static_cast<std::ptrdiff_t>(z % static_cast<std::uint64_t>(high - low));
}

// Hoare's partition, as in the paper's Fig. 1: returns p with low < p < high,
// every element of [low, p) <= every element of [p, high). Charges one unit per
// element it touches.
std::ptrdiff_t partition(std::int64_t* a, std::ptrdiff_t low, std::ptrdiff_t high) noexcept {
  const std::int64_t pivot = a[pivot_index(low, high)];
  std::ptrdiff_t l = low - 1;
  std::ptrdiff_t r = high;
  std::uint64_t touched = 0;
  for (;;) {
    do {
      ++l;
      ++touched;
    } while (a[l] < pivot);
    do {
      --r;
      ++touched;
    } while (a[r] > pivot);
    if (l < r) {
      std::swap(a[l], a[r]);
    } else {
      fs::charge(touched);
      return l == low ? l + 1 : l;
    }
  }
}

// The base case. Charges one unit per comparison.
void insertion_sort(std::int64_t* a, std::ptrdiff_t low, std::ptrdiff_t high) noexcept {
  std::uint64_t comparisons = 0;
  for (std::ptrdiff_t i = low + 1; i < high; ++i) {
    const std::int64_t v = a[i];
    std::ptrdiff_t j = i;
    while (j > low) {
      ++comparisons;
      if (!(v < a[j - 1])) break;
      a[j] = a[j - 1];
      --j;
    }
    a[j] = v;
  }
  fs::charge(comparisons);
}

struct sorter {
  std::int64_t* a;
  backend be;
  unsigned thread_depth;  // spawns at a smaller depth go to a std::thread

  void pqsort(std::ptrdiff_t low, std::ptrdiff_t high, unsigned depth) const {
    if (high - low < COARSENING) {
      insertion_sort(a, low, high);
      return;
    }
    std::ptrdiff_t part;
    {
      // The report's what-if table: the program's parallelism if the partition
      // were k times faster (parallelized, or optimized). FORKSCALE_CALL makes the
      // call a call site named by the call: "partition" in the site tables.
      fs::what_if_region wi("partition");
      part = FORKSCALE_CALL(partition(a, low, high));
    }
    if (be == backend::threads && depth < thread_depth) {
      // A std::thread is one child joined on its own: bind it to a join handle.
      fs::join_handle h;
      std::thread t(fs::spawn(h, [this, low, part, depth] { pqsort(low, part, depth + 1); }));
      FORKSCALE_CALL(pqsort(part, high, depth + 1));
      {
        fs::sync_point sp(h);
        t.join();
      }
#ifdef FORKSCALE_EXAMPLES_HAVE_TBB
    } else if (be == backend::tbb) {
      // oneTBB: the lower part is a task of a task_group; wait() is the sync.
      fs::tbb::task_group g;
      g.run([this, low, part, depth] { pqsort(low, part, depth + 1); });
      FORKSCALE_CALL(pqsort(part, high, depth + 1));
      g.wait();
#endif
#ifdef FORKSCALE_EXAMPLES_HAVE_OPENMP
    } else if (be == backend::openmp) {
      // OpenMP: the lower part is a task, and the end of a taskgroup is the sync.
      // Not a taskwait: OpenMP's taskwait waits for every child of the running
      // task, and the call below runs in this task, so its taskwait would wait
      // for this lower part too — a dependence Cilk's sync, and the other
      // backends, do not have. A taskgroup waits only for the tasks created
      // inside it (and theirs).
      fs::omp::taskgroup([&] {
        auto tk = fs::omp::spawn_point();
#pragma omp task
        {
          fs::omp::task_scope ts(tk);
          pqsort(low, part, depth + 1);
        }
        fs::omp::call_site cs(fs::site::tagged("pqsort"));  // named as FORKSCALE_CALL names it
        pqsort(part, high, depth + 1);
      });
#endif
    } else {
      // Serial elision: the spawned body runs here and now; the sync waits for
      // nothing, but it is still the sync of the dag.
      fs::spawn([this, low, part, depth] { pqsort(low, part, depth + 1); })();
      FORKSCALE_CALL(pqsort(part, high, depth + 1));
      { fs::sync_point sp; }
    }
  }
};

int run(int argc, char** argv) {
  const std::string program = "quicksort";
  example_args::config cfg;
  try {
    // N is bounded by the index type and, in practice, by memory.
    cfg = example_args::parse(argc, argv, 10'000'000, std::uint64_t(1) << 40);
  } catch (const example_args::usage_error& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return 2;
  }
  if (cfg.help) {
    std::cout << example_args::usage(program, 10'000'000);
    return 0;
  }

  std::vector<std::int64_t> data;
  try {
    data.resize(static_cast<std::size_t>(cfg.n));
  } catch (const std::exception&) {
    std::cerr << program << ": cannot allocate " << cfg.n << " 64-bit integers\n";
    return 1;
  }
  std::mt19937_64 gen(42);
  std::uint64_t checksum = 0;  // the sum is kept by a permutation, mod 2^64
  for (auto& x : data) {
    x = static_cast<std::int64_t>(gen());
    checksum += static_cast<std::uint64_t>(x);
  }

  const unsigned cutoff = cfg.be == backend::threads ? example_args::thread_depth_cutoff(cfg.threads) : 0;
  const sorter s{data.data(), cfg.be, cutoff};
  fs::options opt;
  opt.clock = cfg.clock;
  opt.backend = example_args::library_of(cfg.be);  // its calibrated burden, if any

  std::cout << "quicksort: " << cfg.n << " integers, backend " << example_args::to_string(cfg.be);
  if (cfg.be == backend::threads)
    std::cout << " (" << cfg.threads << " threads: std::thread for spawns at depth < " << cutoff << ")";
  std::cout << example_args::runtime_note(cfg) << ", COARSENING " << COARSENING << "\n\n";

  fs::report rep;
  example_args::run_on_backend(cfg, [&] {
    rep = fs::measure(
        "quicksort", [&] { s.pqsort(0, static_cast<std::ptrdiff_t>(data.size()), 0); }, opt);
  });

  std::uint64_t after = 0;
  for (const auto x : data) after += static_cast<std::uint64_t>(x);
  if (!std::is_sorted(data.begin(), data.end()) || after != checksum) {
    std::cerr << program << ": the result is not sorted\n";
    return 1;
  }

  return example_args::finish(rep, cfg, "quicksort", program);
}

}  // namespace

int main(int argc, char** argv) { return example_args::guarded_main("quicksort", run, argc, argv); }
