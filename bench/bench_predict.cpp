// bench_predict: does the replay of a 1-thread record predict the 2-thread time?
//
// Five kernels — fib, quicksort, treesum (TaskProf Fig. 2), a Jacobi stencil and
// a divide-and-conquer matmul — each on two backends: std::thread (a thread per
// spawn at the top four levels, 16 threads per tree: eight per core at P = 2;
// plain calls below; at P = 1 the same spawns run inline, the program's serial
// elision) and oneTBB (a fs::tbb::task_group at every level; P set with
// tbb::global_control). Each runs as a scaling study (fs::run_study) at P = 1
// and 2, which records the last warm-up run at P = 1 and replays its strand
// graph (fs::predict, docs/predict.md) up to 64 processors: std::thread's with
// the OS-thread replay (a thread per spawn, the cores shared in time slices),
// oneTBB's with work stealing — the scheduler fs::predict chooses by the
// report's calibrated burden. The burden is measured first
// (fs::calibrate_burden for each backend, stored in a temporary burden file
// named by FORKSCALE_BURDEN_FILE), so the replay's steal cost and, for
// std::thread, its thread start (with a free core), core wake and spawn cost
// are the machine's. Goal: the predicted 2-thread time within 15% of the
// measured one for every kernel and backend. The cores the machine gives the
// program (two threads spinning) are measured before and after each
// backend's cases: on a shared machine "2 threads" may have had one core.
//
//   bench_predict [--quick] [--repetitions N] [--case KERNEL] [--backend std_thread|tbb] [--out FILE]
//                 (default bench/results/predict.json)
//
// The figures are timed on a shared machine: read them with their spread.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <forkscale/forkscale.hpp>
#include <forkscale/study/study.hpp>

#ifdef BENCH_PREDICT_HAVE_TBB
#include <oneapi/tbb/global_control.h>

#include <forkscale/adapters/tbb.hpp>
#endif

#include "bench_common.hpp"

namespace fs = forkscale;
using bench_common::json_out;

namespace {

std::atomic<std::uint64_t> sink{0};
void keep(std::uint64_t x) { sink.fetch_add(x, std::memory_order_relaxed); }

// ---- how a kernel forks: the backend and P of one run ---------------------------
struct forker {
  fs::backend backend = fs::backend::std_thread;
  unsigned threads = 1;
  // std::thread: the forks at a depth below this are spawns, the others plain
  // calls; the spawns start threads (P >= 2) or run inline (P = 1).
  int thread_depth = 0;
  bool on_threads = false;

  // a() and b() in parallel: a spawned, b called, then the join.
  template <class A, class B>
  void fork2(int depth, A&& a, B&& b) const {
#ifdef BENCH_PREDICT_HAVE_TBB
    if (backend == fs::backend::tbb) {
      fs::tbb::task_group g;
      g.run([&] { a(); });
      {
        fs::call_site cs;
        b();
      }
      g.wait();
      return;
    }
#endif
    if (depth >= thread_depth) {
      a();
      b();
      return;
    }
    if (on_threads) {
      fs::join_handle h;
      std::thread t(fs::spawn(h, [&] { a(); }));
      {
        fs::call_site cs;
        b();
      }
      fs::sync_point sp(h);
      t.join();
      return;
    }
    fs::spawn([&] { a(); })();
    {
      fs::call_site cs;
      b();
    }
    fs::sync_point sp;
  }
};

// ---- the kernels ------------------------------------------------------------------
struct kernel {
  std::string name;
  std::function<void()> setup, baseline;
  std::function<void(const forker&)> parallel;
};

std::uint64_t fib_serial(int n) {
  return n < 2 ? static_cast<std::uint64_t>(n) : fib_serial(n - 1) + fib_serial(n - 2);
}

std::uint64_t fib_par(const forker& f, int n, int depth, int cutoff) {
  if (n <= cutoff) return fib_serial(n);
  std::uint64_t x = 0, y = 0;
  f.fork2(
      depth, [&] { x = fib_par(f, n - 1, depth + 1, cutoff); }, [&] { y = fib_par(f, n - 2, depth + 1, cutoff); });
  return x + y;
}

kernel fib_kernel(bool quick) {
  const int n = quick ? 24 : 35, cutoff = quick ? 16 : 21;
  kernel k;
  k.name = "fib";
  k.setup = [] {};
  k.baseline = [n] { keep(fib_serial(n)); };
  k.parallel = [n, cutoff](const forker& f) { keep(fib_par(f, n, 0, cutoff)); };
  return k;
}

void qsort_par(const forker& f, int* a, std::int64_t n, int depth, std::int64_t cutoff) {
  if (n <= cutoff) {
    std::sort(a, a + n);
    return;
  }
  const int pivot = a[n / 2];
  int* mid1 = std::partition(a, a + n, [pivot](int v) { return v < pivot; });
  int* mid2 = std::partition(mid1, a + n, [pivot](int v) { return v == pivot; });
  f.fork2(
      depth, [&] { qsort_par(f, a, mid1 - a, depth + 1, cutoff); },
      [&] { qsort_par(f, mid2, a + n - mid2, depth + 1, cutoff); });
}

kernel quicksort_kernel(bool quick) {
  const std::size_t n = quick ? 200000 : 4000000;
  auto input = std::make_shared<std::vector<int>>(n), data = std::make_shared<std::vector<int>>(n);
  std::mt19937 rng(42);
  for (auto& v : *input) v = static_cast<int>(rng());
  kernel k;
  k.name = "quicksort";
  k.setup = [input, data] { *data = *input; };
  k.baseline = [data] { std::sort(data->begin(), data->end()); };
  k.parallel = [data](const forker& f) {
    qsort_par(f, data->data(), static_cast<std::int64_t>(data->size()), 0, 32768);
  };
  return k;
}

// TaskProf Fig. 2: the tree is built serially, then summed in parallel.
struct node {
  std::uint64_t value = 0;
  std::unique_ptr<node> left, right;
};

std::unique_ptr<node> make_tree(int depth, std::uint64_t& seed) {
  auto t = std::make_unique<node>();
  seed = seed * 6364136223846793005ull + 1442695040888963407ull;
  t->value = seed >> 33;
  if (depth > 0) {
    t->left = make_tree(depth - 1, seed);
    t->right = make_tree(depth - 1, seed);
  }
  return t;
}

std::uint64_t tree_sum(const node* t) { return t ? t->value + tree_sum(t->left.get()) + tree_sum(t->right.get()) : 0; }

std::uint64_t tree_sum_par(const forker& f, const node* t, int depth, int cutoff) {
  if (!t || depth >= cutoff) return tree_sum(t);
  std::uint64_t x = 0, y = 0;
  f.fork2(
      depth, [&] { x = tree_sum_par(f, t->left.get(), depth + 1, cutoff); },
      [&] { y = tree_sum_par(f, t->right.get(), depth + 1, cutoff); });
  return t->value + x + y;
}

kernel treesum_kernel(bool quick) {
  const int depth = quick ? 14 : 20;
  kernel k;
  k.name = "treesum";
  k.setup = [] {};
  k.baseline = [depth] {
    std::uint64_t seed = 1;
    const auto t = make_tree(depth, seed);
    keep(tree_sum(t.get()));
  };
  k.parallel = [depth](const forker& f) {
    std::uint64_t seed = 1;
    std::unique_ptr<node> t;
    {
      fs::call_site build(fs::site::tagged("create_tree"));
      t = make_tree(depth, seed);
    }
    keep(tree_sum_par(f, t.get(), 0, depth - 9));
  };
  return k;
}

// Jacobi: each sweep averages every inner cell's four neighbours into the
// other grid; rows are split in halves down to a grain of 16 rows.
struct grid2 {
  std::size_t n = 0;
  std::vector<double> a, b;
};

void sweep_rows(grid2& g, std::size_t lo, std::size_t hi) {
  const std::size_t n = g.n;
  for (std::size_t i = std::max<std::size_t>(lo, 1); i < std::min(hi, n - 1); ++i)
    for (std::size_t j = 1; j + 1 < n; ++j)
      g.b[i * n + j] = 0.25 * (g.a[(i - 1) * n + j] + g.a[(i + 1) * n + j] + g.a[i * n + j - 1] + g.a[i * n + j + 1]);
}

void sweep_par(const forker& f, grid2& g, std::size_t lo, std::size_t hi, int depth) {
  if (hi - lo <= 16) {
    sweep_rows(g, lo, hi);
    return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  f.fork2(
      depth, [&] { sweep_par(f, g, lo, mid, depth + 1); }, [&] { sweep_par(f, g, mid, hi, depth + 1); });
}

kernel stencil_kernel(bool quick) {
  const std::size_t n = quick ? 128 : 1024;
  const int sweeps = quick ? 4 : 24;
  auto g = std::make_shared<grid2>();
  g->n = n;
  kernel k;
  k.name = "stencil";
  k.setup = [g, n] {
    g->a.assign(n * n, 0.0);
    g->b.assign(n * n, 0.0);
    for (std::size_t j = 0; j < n; ++j) g->a[j] = g->b[j] = 100.0;  // a hot edge
  };
  k.baseline = [g, sweeps] {
    for (int s = 0; s < sweeps; ++s) {
      sweep_rows(*g, 0, g->n);
      std::swap(g->a, g->b);
    }
    keep(static_cast<std::uint64_t>(g->a[g->n + 1]));
  };
  k.parallel = [g, sweeps](const forker& f) {
    for (int s = 0; s < sweeps; ++s) {
      sweep_par(f, *g, 0, g->n, 0);
      std::swap(g->a, g->b);
    }
    keep(static_cast<std::uint64_t>(g->a[g->n + 1]));
  };
  return k;
}

// C += A·B on n×n blocks of row length `ld`, in two phases of four products
// (Cilk's matmul without a temporary), serial below 64×64.
void mm_serial(const double* a, const double* b, double* c, std::size_t n, std::size_t ld) {
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k) {
      const double aik = a[i * ld + k];
      for (std::size_t j = 0; j < n; ++j) c[i * ld + j] += aik * b[k * ld + j];
    }
}

void mm_par(const forker& f, const double* a, const double* b, double* c, std::size_t n, std::size_t ld, int depth) {
  if (n <= 64) {
    mm_serial(a, b, c, n, ld);
    return;
  }
  const std::size_t h = n / 2;
  const auto A = [&](int i, int j) { return a + i * h * ld + j * h; };
  const auto B = [&](int i, int j) { return b + i * h * ld + j * h; };
  const auto C = [&](int i, int j) { return c + i * h * ld + j * h; };
  for (int phase = 0; phase < 2; ++phase) {
    const int k = phase;
    f.fork2(
        depth,
        [&] {
          f.fork2(
              depth + 1, [&] { mm_par(f, A(0, k), B(k, 0), C(0, 0), h, ld, depth + 2); },
              [&] { mm_par(f, A(0, k), B(k, 1), C(0, 1), h, ld, depth + 2); });
        },
        [&] {
          f.fork2(
              depth + 1, [&] { mm_par(f, A(1, k), B(k, 0), C(1, 0), h, ld, depth + 2); },
              [&] { mm_par(f, A(1, k), B(k, 1), C(1, 1), h, ld, depth + 2); });
        });
  }
}

kernel matmul_kernel(bool quick) {
  const std::size_t n = quick ? 128 : 512;
  auto a = std::make_shared<std::vector<double>>(n * n), b = std::make_shared<std::vector<double>>(n * n),
       c = std::make_shared<std::vector<double>>(n * n);
  for (std::size_t i = 0; i < n * n; ++i) {
    (*a)[i] = static_cast<double>(i % 7) - 3;
    (*b)[i] = static_cast<double>(i % 5) - 2;
  }
  kernel k;
  k.name = "matmul";
  k.setup = [c] { std::fill(c->begin(), c->end(), 0.0); };
  k.baseline = [a, b, c, n] { mm_serial(a->data(), b->data(), c->data(), n, n); };
  k.parallel = [a, b, c, n](const forker& f) { mm_par(f, a->data(), b->data(), c->data(), n, n, 0); };
  return k;
}

std::vector<kernel> kernels(bool quick) {
  return {fib_kernel(quick), quicksort_kernel(quick), treesum_kernel(quick), stencil_kernel(quick),
          matmul_kernel(quick)};
}

// ---- one case: a kernel on a backend, as a scaling study ------------------------
struct outcome {
  std::string kernel, backend;
  fs::study_result study;
};

// std::thread: four levels of spawns, 16 threads to a tree — eight per core at
// P = 2, so that the operating system balances them as a scheduler would. The
// spawns do not depend on P: the 1-thread record has the spawns that start
// threads at P = 2 (docs/predict.md, "The graph is the recorded one").
constexpr int std_thread_depth = 4;

fs::study_workload workload(const kernel& k, fs::backend b) {
  fs::study_workload w;
  w.setup = k.setup;
  w.baseline = k.baseline;
  w.parallel = [k, b](unsigned p) {
    forker f;
    f.backend = b;
    f.threads = p;
    f.thread_depth = std_thread_depth;
    f.on_threads = p > 1;
#ifdef BENCH_PREDICT_HAVE_TBB
    if (b == fs::backend::tbb) {
      oneapi::tbb::global_control limit(oneapi::tbb::global_control::max_allowed_parallelism, p);
      k.parallel(f);
      return;
    }
#endif
    k.parallel(f);
  };
  return w;
}

// The std::thread kernels' 1-thread record runs their spawns inline: the
// std::thread constructor's time (calibrated: spawn_ns) is in none of its
// strands, so the replay charges it to each spawn. oneTBB's record runs its
// task_group calls: their time is in the strands already.
outcome run_case(const kernel& k, fs::backend b, unsigned repetitions, const fs::measured_burden& calibrated) {
  fs::study_options so;
  so.processors = {1, 2};
  so.repetitions = repetitions;
  so.warmup = 1;
  so.hardware_threads = std::max(2u, bench_common::cores());
  so.bandwidth_probe = false;
  so.predict_up_to = 64;
  so.measure.backend = b;  // the burden calibrated for it (FORKSCALE_BURDEN_FILE)
  if (b == fs::backend::std_thread) {
    so.replay.spawn_cost = calibrated.spawn_ns;
    so.replay.thread_start_cost = calibrated.thread_start_ns;
    so.replay.core_wake_cost = calibrated.core_wake_ns();
  }
  so.show_progress = fs::progress_mode::off;
  return {k.name, fs::to_string(b), fs::run_study(k.name + " (" + fs::to_string(b) + ")", workload(k, b), so)};
}

// ---- the cores the machine gives ---------------------------------------------------
// Two threads spin for 300 ms: the CPU time they got over the wall time, the
// cores this program had (2 on a machine that gives it both; less while other
// programs hold a core). Context for the figures, not part of any prediction.
double cores_given() {
  static constexpr std::int64_t spin_ns = 300'000'000;
  std::atomic<double> cpu{0};
  const auto spin = [&cpu] {
    const auto end = std::chrono::steady_clock::now() + std::chrono::nanoseconds(spin_ns);
    while (std::chrono::steady_clock::now() < end) {
    }
    timespec t{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    double expected = cpu.load();
    while (!cpu.compare_exchange_weak(expected, expected + static_cast<double>(t.tv_sec) + t.tv_nsec * 1e-9)) {
    }
  };
  std::thread a(spin), b(spin);
  a.join();
  b.join();
  return cpu.load() / (static_cast<double>(spin_ns) * 1e-9);
}

// ---- output -------------------------------------------------------------------------
void write_case(json_out& j, const outcome& o, double goal) {
  const fs::study_result& s = o.study;
  const fs::study_prediction& p = s.prediction;
  const fs::study_point* two = s.at(2);
  const fs::study_prediction_point* pred = p.at(2);
  j.begin_object().kv("kernel", o.kernel).kv("backend", o.backend);
  j.kv("t1_ns", s.t1());
  if (two) j.kv("t2_ns", two->time.mean).kv("t2_min_ns", two->time.min).kv("t2_max_ns", two->time.max);
  j.kv("burden_ns", static_cast<double>(s.profile.burden)).kv("burden_source", s.profile.burden_source);
  j.kv("prediction_note", p.note).kv("scheduler", fs::to_string(p.model.scheduler));
  j.kv("thread_start_ns", p.model.thread_start_cost).kv("spawn_cost_ns", p.model.spawn_cost);
  j.kv("core_wake_ns", p.model.core_wake_cost);
  if (pred && two) {
    j.kv("predicted_t2_ns", pred->time).kv("predicted_t2_min_ns", pred->time_min);
    j.kv("predicted_t2_max_ns", pred->time_max).kv("predicted_t2_greedy_ns", pred->greedy_time);
    j.kv("error", pred->error).kv("within_goal", std::fabs(pred->error) <= goal);
  }
  j.kv("replay_work_ns", p.work).kv("replay_span_ns", p.span).kv("replay_burdened_span_ns", p.burdened_span);
  j.kv("scale", p.scale).kv("steal_cost_ns", p.model.steal_cost);
  j.begin_array("predicted_speedup");
  for (const auto& pt : p.points) {
    j.begin_object().kv("processors", pt.processors).kv("speedup", s.t1() / pt.time);
    j.kv("speedup_min", s.t1() / pt.time_max).kv("speedup_max", s.t1() / pt.time_min).end_object();
  }
  j.end_array();
  j.strings("warnings", s.warnings);
  j.end_object();
}

void write_calibration(json_out& j, const fs::measured_burden& m) {
  j.begin_object().kv("backend", fs::to_string(m.backend)).kv("spawn_ns", m.spawn_ns).kv("steal_ns", m.steal_ns);
  j.kv("steal_median_ns", m.steal_median_ns).kv("thread_start_ns", m.thread_start_ns);
  j.kv("core_wake_ns", m.core_wake_ns()).kv("rounds", m.rounds);
}

const char* const usage =
    "usage: bench_predict [--quick] [--repetitions N] [--case fib|quicksort|treesum|stencil|matmul]\n"
    "                     [--backend std_thread|tbb] [--out FILE]";

struct args {
  bool quick = false;
  unsigned repetitions = 5;
  std::string only_case, only_backend, out = "bench/results/predict.json";
};

int parse(int argc, char** argv, args& a) {
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--quick")
      a.quick = true;
    else if (s == "--repetitions" && i + 1 < argc)
      a.repetitions = static_cast<unsigned>(std::max(1, std::atoi(argv[++i])));
    else if (s == "--case" && i + 1 < argc)
      a.only_case = argv[++i];
    else if (s == "--backend" && i + 1 < argc)
      a.only_backend = argv[++i];
    else if (s == "--out" && i + 1 < argc)
      a.out = argv[++i];
    else
      return bench_common::help_or_unknown_argument("bench_predict", s, usage) == 0 ? 0 : 2;
  }
  if (a.quick) a.repetitions = 1;
  return -1;
}

std::vector<fs::backend> backends() {
  std::vector<fs::backend> v{fs::backend::std_thread};
#ifdef BENCH_PREDICT_HAVE_TBB
  v.push_back(fs::backend::tbb);
#endif
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  args a;
  if (const int rc = parse(argc, argv, a); rc >= 0) return rc;
  const std::string burden_file = "/tmp/forkscale-bench-predict-" + std::to_string(::getpid()) + ".json";
  ::setenv("FORKSCALE_BURDEN_FILE", burden_file.c_str(), 1);
  const double goal = 0.15;
  std::vector<fs::measured_burden> calibrations;
  std::vector<double> cores_before, cores_after;
  std::vector<outcome> done;
  try {
    for (fs::backend b : backends()) {
      if (!a.only_backend.empty() && a.only_backend != fs::to_string(b)) continue;
      cores_before.push_back(cores_given());
      calibrations.push_back(fs::calibrate_burden(b));
      std::printf("%-10s cores given %.2f, calibrated: spawn %.0f ns, steal %.0f ns (median %.0f ns)", fs::to_string(b),
                  cores_before.back(), calibrations.back().spawn_ns, calibrations.back().steal_ns,
                  calibrations.back().steal_median_ns);
      if (b == fs::backend::std_thread)
        std::printf(", thread start %.0f ns, core wake %.0f ns", calibrations.back().thread_start_ns,
                    calibrations.back().core_wake_ns());
      std::printf("\n");
      fs::store_burden(calibrations.back());
      for (const kernel& k : kernels(a.quick)) {
        if (!a.only_case.empty() && a.only_case != k.name) continue;
        done.push_back(run_case(k, b, a.repetitions, calibrations.back()));
        const fs::study_result& s = done.back().study;
        const auto* pred = s.prediction.at(2);
        const auto* two = s.at(2);
        std::printf("%-10s %-10s T1 %12.0f  T2 %12.0f  predicted %12.0f  error %+6.1f%%  (%s) %s\n", k.name.c_str(),
                    fs::to_string(b), s.t1(), two ? two->time.mean : NAN, pred ? pred->time : NAN,
                    pred ? 100 * pred->error : NAN, fs::to_string(s.prediction.model.scheduler),
                    s.prediction.note.c_str());
        std::fflush(stdout);
      }
      cores_after.push_back(cores_given());
    }
  } catch (const std::exception& e) {
    std::remove(burden_file.c_str());
    std::fprintf(stderr, "bench_predict: %s\n", e.what());
    return 1;
  }
  std::remove(burden_file.c_str());
  json_out j;
  j.begin_object().kv("benchmark", "predict").kv("quick", a.quick).kv("repetitions", a.repetitions);
  j.kv("machine", bench_common::cpu_model()).kv("cores", bench_common::cores());
  j.kv("compiler", bench_common::compiler_string()).kv("date", bench_common::utc_now());
  j.kv("loadavg", bench_common::read_first_line("/proc/loadavg"));
  j.kv("goal", "predicted 2-thread time within 15% of the measured one (mean of the runs)");
  j.begin_array("calibrations");
  for (std::size_t i = 0; i < calibrations.size(); ++i) {
    write_calibration(j, calibrations[i]);
    j.kv("cores_given_before", cores_before[i]).kv("cores_given_after", cores_after[i]).end_object();
  }
  j.end_array();
  j.begin_array("cases");
  bool all_met = !done.empty();
  for (const auto& o : done) {
    write_case(j, o, goal);
    const auto* pred = o.study.prediction.at(2);
    all_met = all_met && pred && std::fabs(pred->error) <= goal;
  }
  j.end_array();
  j.kv("goal_met", all_met);
  j.end_object();
  std::string err;
  if (!bench_common::write_results_file(a.out, j.str(), err)) {
    std::fprintf(stderr, "bench_predict: %s\n", err.c_str());
    return 1;
  }
  std::printf("goal (every case within 15%%): %s\nwrote %s\n", all_met ? "met" : "NOT met", a.out.c_str());
  return 0;
}
