// ompt_workloads.cpp: the OpenMP programs of the OMPT overhead bench (bench_ompt.cpp),
// compiled three times with clang++ and LLVM's libomp:
//   BENCH_OMPT_PLAIN      the program as written, no forkscale at all;
//   BENCH_OMPT_TOOL       the same source with forkscale/ompt.hpp included, the
//                         work wrapped in fs::measure (OMPT mode);
//   BENCH_OMPT_ANNOTATED  the same program annotated by hand with the adapter
//                         (forkscale/openmp.hpp), wrapped in fs::measure.
//
//   bench_ompt_<mode> <workload> [--quick] [--clock auto|tsc|steady|thread_cpu] [--bare]
//
// prints one line: RESULT workload=<name> seconds=<s> cpu_seconds=<s>
// first_seconds=<s> ok=<0|1> events=<n> diagnostics=<n>, the seconds measured
// with steady_clock around the work (in the profiled modes, around the whole
// fs::measure call), cpu_seconds the process's CPU time over the same stretch. Exit status 0
// when the result is right and forkscale reported nothing, 1 otherwise, 2 bad
// arguments. --bare: no fs::measure, the work alone is timed (in the tool's
// build, FORKSCALE_OMPT=1 then measures the whole program, and with it unset the
// tool is linked and measures nothing; bench_ompt's goal rows). The plain
// build with BENCH_OMPT_NULL_TOOL=1 loads a tool that registers no callback.
#if defined(BENCH_OMPT_TOOL)
#include <forkscale/ompt.hpp>
#elif defined(BENCH_OMPT_ANNOTATED)
#include <forkscale/adapters/openmp.hpp>
#elif !defined(BENCH_OMPT_PLAIN)
#error "define BENCH_OMPT_PLAIN, BENCH_OMPT_TOOL or BENCH_OMPT_ANNOTATED"
#endif

#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#if !defined(BENCH_OMPT_PLAIN)
namespace fs = forkscale;
#endif

namespace {

bool quick = false;

// ---- fib: a task per call (fine), or serial below n = 12 (coarse) ----------------
long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

long fib(int n, int cutoff) {
  if (n < 2) return n;
  if (n < cutoff) return fib_serial(n);
  long x = 0, y = 0;
#if defined(BENCH_OMPT_ANNOTATED)
  auto tk = fs::omp::spawn_point();
#pragma omp task shared(x) firstprivate(tk)
  {
    fs::omp::task_scope ts(tk);
    x = fib(n - 1, cutoff);
  }
  {
    fs::omp::call_site cs;
    y = fib(n - 2, cutoff);
  }
  fs::omp::taskwait();
#else
#pragma omp task shared(x)
  x = fib(n - 1, cutoff);
  y = fib(n - 2, cutoff);
#pragma omp taskwait
#endif
  return x + y;
}

bool run_fib(int n, int cutoff) {
  long r = 0;
#if defined(BENCH_OMPT_ANNOTATED)
  fs::omp::team team;
#pragma omp parallel shared(r, team)
#pragma omp single
  {
    fs::omp::task_scope ts(team);
    r = fib(n, cutoff);
  }
#else
#pragma omp parallel shared(r)
#pragma omp single
  r = fib(n, cutoff);
#endif
  return r == fib_serial(n);
}

// ---- a dynamic loop of small uneven iterations --------------------------------------
double spin(int i) {
  double s = 0;
  for (int k = 0; k < 200 + (i % 7) * 50; ++k) s += std::sqrt(static_cast<double>(k + i));
  return s;
}

bool run_dynamic_loop(int n) {
  std::vector<double> out(static_cast<std::size_t>(n));
#if defined(BENCH_OMPT_ANNOTATED)
  fs::omp::parallel_for(0, n, 1, [&](int i) { out[static_cast<std::size_t>(i)] = spin(i); });
#else
#pragma omp parallel for schedule(dynamic, 1)
  for (int i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = spin(i);
#endif
  for (int i = 0; i < n; i += 97)
    if (out[static_cast<std::size_t>(i)] != spin(i)) return false;
  return true;
}

// ---- a stencil: one `parallel for schedule(static)` per step -------------------------
void stencil_row(const std::vector<double>& a, std::vector<double>& b, int n, int i) {
  for (int j = 1; j + 1 < n; ++j) {
    const std::size_t k = static_cast<std::size_t>(i) * n + j;
    b[k] = (a[k] + a[k - 1] + a[k + 1] + a[k - n] + a[k + n]) * 0.2;
  }
}

bool run_stencil(int n, int steps) {
  std::vector<double> a(static_cast<std::size_t>(n) * n, 1.0), b = a;
  for (int s = 0; s < steps; ++s) {
#if defined(BENCH_OMPT_ANNOTATED)
    fs::omp::parallel_for(
        1, n - 1, 0, [&](int i) { stencil_row(a, b, n, i); }, fs::omp::loop_schedule::static_even);
#else
#pragma omp parallel for schedule(static)
    for (int i = 1; i < n - 1; ++i) stencil_row(a, b, n, i);
#endif
    a.swap(b);
  }
  return a[static_cast<std::size_t>(n / 2) * n + n / 2] <= 1.0 && a[static_cast<std::size_t>(n) + 1] > 0;
}

}  // namespace

#include "ompt_workloads_cholesky.hpp"

#if defined(BENCH_OMPT_PLAIN)
// The plain program with BENCH_OMPT_NULL_TOOL=1: libomp starts a tool that
// registers no callback — what the runtime itself costs with any tool loaded
// (bench_ompt's goal rows). Without it, no tool, as if this were not here.
#include <omp-tools.h>

#include <cstdlib>
namespace {
int null_tool_initialize(ompt_function_lookup_t, int, ompt_data_t*) { return 1; }
void null_tool_finalize(ompt_data_t*) {}
}  // namespace
extern "C" ompt_start_tool_result_t* ompt_start_tool(unsigned int, const char*) {
  static ompt_start_tool_result_t result = {&null_tool_initialize, &null_tool_finalize, {0}};
  const char* v = std::getenv("BENCH_OMPT_NULL_TOOL");
  return v && std::strcmp(v, "1") == 0 ? &result : nullptr;
}
#endif

namespace {

std::function<bool()> workload(const std::string& name, bool small) {
  if (name == "fib_fine") return [small] { return run_fib(small ? 16 : 24, 0); };
  if (name == "fib") return [small] { return run_fib(small ? 20 : 34, 14); };
  if (name == "fib22") return [small] { return run_fib(small ? 12 : 22, 0); };
  if (name == "dynamic_loop") return [small] { return run_dynamic_loop(small ? 2000 : 200000); };
  if (name == "stencil") return [small] { return run_stencil(small ? 128 : 2048, small ? 2 : 20); };
  if (name == "cholesky") return [small] { return run_cholesky(small ? 128 : 1024, small ? 32 : 64); };
  return nullptr;
}

double process_cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct timing {
  double seconds = 0, cpu_seconds = 0;
  std::uint64_t events = 0, diagnostics = 0;
  bool ok = false;
};

// One run of the work, timed around the whole fs::measure call when profiled.
timing timed(const std::function<bool()>& work, const char* clock, bool bare) {
  timing t;
  const double c0 = process_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
#if defined(BENCH_OMPT_PLAIN)
  (void)clock;
  (void)bare;
  t.ok = work();
#else
  if (bare) {
    t.ok = work();
    t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t.cpu_seconds = process_cpu_seconds() - c0;
    return t;
  }
  fs::options o;
  if (std::strcmp(clock, "tsc") == 0) o.clock = fs::clock_kind::tsc;
  if (std::strcmp(clock, "steady") == 0) o.clock = fs::clock_kind::steady;
  if (std::strcmp(clock, "thread_cpu") == 0) o.clock = fs::clock_kind::thread_cpu;
  const fs::report rep = fs::measure(
      "work", [&] { t.ok = work(); }, o);
  t.events = rep.spawns() + rep.syncs() + rep.calls();
  t.diagnostics = rep.diagnostic_count;
#endif
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.cpu_seconds = process_cpu_seconds() - c0;
  return t;
}

}  // namespace

// The first run (the small input) pays what a process pays once: the runtime's
// threads, forkscale's calibration, and in OMPT mode the first lookup of each
// call site (addr2line). The second run is the one compared.
int main(int argc, char** argv) {
  const char* clock = "auto";
  bool bare = false;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--clock") == 0 && i + 1 < argc) {
      clock = argv[++i];
    } else if (std::strcmp(argv[i], "--bare") == 0) {
      bare = true;
    } else {
      argc = 0;
    }
  }
  const auto work = argc >= 2 ? workload(argv[1], quick) : nullptr;
  if (!work) {
    std::fprintf(stderr,
                 "usage: bench_ompt_<mode> fib_fine|fib|fib22|dynamic_loop|stencil|cholesky [--quick] [--clock "
                 "auto|tsc|steady|thread_cpu] [--bare]\n");
    return 2;
  }
  const timing first = timed(workload(argv[1], true), clock, bare);
  const timing t = timed(work, clock, bare);
  std::printf(
      "RESULT workload=%s seconds=%.6f cpu_seconds=%.6f first_seconds=%.6f ok=%d events=%llu diagnostics=%llu\n",
      argv[1], t.seconds, t.cpu_seconds, first.seconds, t.ok && first.ok ? 1 : 0,
      static_cast<unsigned long long>(t.events), static_cast<unsigned long long>(t.diagnostics + first.diagnostics));
  return t.ok && first.ok && t.diagnostics + first.diagnostics == 0 ? 0 : 1;
}
