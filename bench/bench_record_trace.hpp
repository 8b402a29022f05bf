// bench_record_trace.hpp: the trace's part of bench_record — what writing a
// trace costs per strand (time, bytes, memory above the record) and what the
// recorded quicksort with FORKSCALE_TRACE set costs against the unrecorded one.
//
// The quicksort is the example's (examples/quicksort.cpp) run serially: Hoare's
// partition as a call site inside a what-if region, the lower part spawned and
// run inline, the upper part a call site, a sync; insertion sort below 32
// elements. Memory: the peak resident set (VmHWM, reset through
// /proc/self/clear_refs before the write) less the resident set before it.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <forkscale/forkscale.hpp>
#include <forkscale/views.hpp>  // FORKSCALE_TRACE writes the trace in a header-only build too

namespace bench_trace {

namespace fs = forkscale;

inline std::ptrdiff_t partition(std::int64_t* a, std::ptrdiff_t low, std::ptrdiff_t high) noexcept {
  const std::int64_t pivot = a[low + (high - low) / 2];
  std::ptrdiff_t l = low - 1, r = high;
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
    if (l >= r) {
      fs::charge(touched);
      return l == low ? l + 1 : l;
    }
    std::swap(a[l], a[r]);
  }
}

inline void pqsort(std::int64_t* a, std::ptrdiff_t low, std::ptrdiff_t high) {
  if (high - low < 32) {
    for (std::ptrdiff_t i = low + 1; i < high; ++i)
      for (std::ptrdiff_t j = i; j > low && a[j] < a[j - 1]; --j) std::swap(a[j], a[j - 1]);
    return;
  }
  std::ptrdiff_t part;
  {
    fs::what_if_region wi("partition");
    part = FORKSCALE_CALL(partition(a, low, high));
  }
  fs::spawn([a, low, part] { pqsort(a, low, part); })();
  FORKSCALE_CALL(pqsort(a, part, high));
  fs::sync_point sp;
}

inline std::vector<std::int64_t> random_data(std::size_t n) {
  std::vector<std::int64_t> v(n);
  std::mt19937_64 gen(42);
  for (auto& x : v) x = static_cast<std::int64_t>(gen());
  return v;
}

inline double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The calling thread's CPU time, s: what the work took whatever else the machine
// runs (wall time on a shared machine also counts the waits for a CPU, and the
// disk's for the file's sync).
inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// One kB figure of /proc/self/status ("VmRSS", "VmHWM"); 0 where there is none.
inline std::uint64_t status_kb(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string k = std::string(key) + ":";
  while (std::getline(in, line))
    if (line.compare(0, k.size(), k) == 0) return std::strtoull(line.c_str() + k.size(), nullptr, 10);
  return 0;
}

inline bool reset_peak() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

// The whole quicksort measurement (fs::measure, record and views included).
inline double quicksort_seconds(std::size_t n, bool record, fs::report* keep = nullptr, double* cpu_s = nullptr,
                                fs::clock_kind clock = fs::clock_kind::automatic) {
  std::vector<std::int64_t> data = random_data(n);
  fs::options o;
  o.record = record;
  o.clock = clock;
  o.check_load = false;
  o.record_limit = std::uint64_t(4) << 30;
  o.on_diagnostic = [](const fs::diagnostic&) {};
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = thread_cpu_seconds();
  fs::report rep = fs::measure(
      "quicksort", [&] { pqsort(data.data(), 0, static_cast<std::ptrdiff_t>(n)); }, o);
  if (cpu_s) *cpu_s = thread_cpu_seconds() - c0;
  const double s = seconds(t0);
  if (!std::is_sorted(data.begin(), data.end())) std::fprintf(stderr, "bench_record: quicksort did not sort\n");
  if (keep) *keep = std::move(rep);
  return s;
}

struct write_row {
  std::string workload;
  std::uint64_t strands = 0, limit = 0, written = 0, bytes = 0;
  double ns_per_strand = 0, cpu_ns_per_strand = 0;
  std::uint64_t memory_above_record = 0;  // bytes
  bool memory_measured = false;
};

// Writes the trace of `rep` (its record's bound set to `limit`) to `path`,
// timed; its size and the memory it took above what was resident before.
inline write_row write_trace_cost(const fs::report& rep, std::uint64_t limit, const std::string& path,
                                  const std::string& workload) {
  auto r = std::make_shared<fs::execution_record>(*rep.record);
  r->trace_limit = limit;
  fs::report b = rep;
  b.record = r;
  write_row w;
  w.workload = workload;
  w.strands = r->strands.size();
  w.limit = limit;
  const std::uint64_t rss = status_kb("VmRSS");
  w.memory_measured = reset_peak() && rss != 0;
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = thread_cpu_seconds();
  b.write_trace(path);
  const double per = 1e9 / static_cast<double>(std::max<std::uint64_t>(1, w.strands));
  w.cpu_ns_per_strand = (thread_cpu_seconds() - c0) * per;
  w.ns_per_strand = seconds(t0) * per;
  const std::uint64_t peak = status_kb("VmHWM");
  w.memory_above_record = peak > rss ? (peak - rss) * 1024 : 0;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  w.bytes = static_cast<std::uint64_t>(in.tellg());
  std::remove(path.c_str());
  return w;
}

struct run_row {
  std::size_t n = 0;
  std::string clock;                                      // the clock the measurements used
  double unrecorded_s = 1e300, traced_s = 1e300;          // wall
  double unrecorded_cpu_s = 1e300, traced_cpu_s = 1e300;  // the thread's CPU time
  std::uint64_t strands = 0, trace_bytes = 0;
  // Peak resident memory of each run (VmHWM, reset before it; the least of the
  // rounds), and the record's own size (execution_record::bytes, what the
  // threads' buffers held): the goal is a traced peak of at most 1.5x the record
  // plus the unrecorded run's.
  std::uint64_t unrecorded_peak = 0, traced_peak = 0, record_bytes = 0;
  bool memory_measured = false;
};

// The peak resident memory of `run()`, bytes (0 where it cannot be read).
template <class F>
std::uint64_t peak_of(F&& run) {
  const bool reset = reset_peak();
  run();
  return reset ? status_kb("VmHWM") * 1024 : 0;
}

// The quicksort of n unrecorded and with FORKSCALE_TRACE set, alternating, best
// of `rounds` each.
inline run_row traced_quicksort(std::size_t n, int rounds, const std::string& path, fs::clock_kind clock) {
  run_row row;
  row.n = n;
  for (int k = 0; k < rounds; ++k) {
    double cpu = 0;
    fs::report plain;
    const std::uint64_t plain_peak = peak_of(
        [&] { row.unrecorded_s = std::min(row.unrecorded_s, quicksort_seconds(n, false, &plain, &cpu, clock)); });
    row.clock = fs::to_string(plain.clock);
    row.unrecorded_cpu_s = std::min(row.unrecorded_cpu_s, cpu);
    plain = fs::report();
    setenv("FORKSCALE_TRACE", path.c_str(), 1);
    fs::report rep;
    const std::uint64_t traced_peak =
        peak_of([&] { row.traced_s = std::min(row.traced_s, quicksort_seconds(n, false, &rep, &cpu, clock)); });
    row.traced_cpu_s = std::min(row.traced_cpu_s, cpu);
    unsetenv("FORKSCALE_TRACE");
    row.memory_measured = plain_peak != 0 && traced_peak != 0;
    row.unrecorded_peak = k == 0 ? plain_peak : std::min(row.unrecorded_peak, plain_peak);
    row.traced_peak = k == 0 ? traced_peak : std::min(row.traced_peak, traced_peak);
    row.strands = rep.record ? rep.record->strands.size() : 0;
    row.record_bytes = rep.record ? rep.record->bytes : 0;
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    row.trace_bytes = static_cast<std::uint64_t>(in.tellg());
    std::remove(path.c_str());
  }
  return row;
}

}  // namespace bench_trace
