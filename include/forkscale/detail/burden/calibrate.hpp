// detail/burden/calibrate.hpp: fs::calibrate_burden — the micro-benchmarks that
// time a spawn and a steal. Each round hands an empty child to the library and
// keeps the spawning thread busy (spinning) until another thread starts the
// child: the time the library's call took is the spawn, the time from the call
// to the child's first instruction on the other thread is the steal (the
// migration Cilkview's burden stands for). A few warm-up rounds come first,
// then four batches of 100 rounds; a round whose child does not start
// elsewhere within 20 ms is left out. The spawn is the median over all the
// rounds. The steal comes from the batch with the smallest median (runtimes
// put idle threads to sleep and wake them slowly at first, and other programs
// take the cores in bursts): its lower decile is the time when the other
// thread is on a core and looking for work, as thieves are while a parallel
// program runs; its median is kept as steal_median_ns (far above the decile on
// a busy machine: the scheduler kept the other thread off a core).
//
// std::thread's micro-benchmark is here; oneTBB's and OpenMP's are in their
// adapters (detail/burden/tbb.hpp, openmp.hpp), which register them when
// included, so that this header needs neither library.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "../../config.hpp"
#include "../../measured_burden.hpp"
#include "../../report.hpp"
#include "../engine/load.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace burden {

inline constexpr unsigned warmup_rounds = 20;
inline constexpr unsigned timed_rounds = 400;
inline constexpr unsigned batch_rounds = 100;
inline constexpr std::int64_t round_timeout_ns = 20'000'000;

using calibrator = measured_burden (*)();

inline calibrator& calibrator_slot(backend b) noexcept {
  static calibrator slots[4] = {nullptr, nullptr, nullptr, nullptr};
  return slots[static_cast<unsigned>(b) & 3u];
}

// Called by an adapter header (an inline variable's initializer).
inline bool register_calibrator(backend b, calibrator c) noexcept {
  calibrator_slot(b) = c;
  return true;
}

inline std::int64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Spins until `started` is set (returns its value) or the round times out (0).
inline std::int64_t wait_for_start(const std::atomic<std::int64_t>& started, std::int64_t from) noexcept {
  for (;;) {
    const std::int64_t s = started.load(std::memory_order_acquire);
    if (s != 0) return s;
    if (now_ns() - from > round_timeout_ns) return 0;
  }
}

inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

inline double lower_decile(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 10];
}

inline std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
#if defined(_WIN32)
  gmtime_s(&tm, &t);
#else
  gmtime_r(&t, &tm);
#endif
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The samples of one backend's rounds, as its measured_burden.
struct samples {
  std::vector<double> spawn;
  std::vector<std::vector<double>> steal;  // per batch
  unsigned runnable_elsewhere = runnable_threads();

  void add(std::int64_t before, std::int64_t after, std::int64_t started) {
    spawn.push_back(static_cast<double>(after - before));
    if (steal.empty() || (spawn.size() - 1) % batch_rounds == 0) steal.emplace_back();
    if (started != 0) steal.back().push_back(static_cast<double>(std::max<std::int64_t>(0, started - before)));
  }

  measured_burden result(backend b) const {
    std::size_t stolen = 0;
    const std::vector<double>* quietest = nullptr;
    for (const auto& batch : steal) {
      stolen += batch.size();
      if (batch.size() >= batch_rounds / 2 && (!quietest || median_of(batch) < median_of(*quietest))) quietest = &batch;
    }
    if (!quietest)
      throw error(std::string("forkscale: calibrate_burden(") + to_string(b) + "): in " +
                  std::to_string(spawn.size() - stolen) + " of " + std::to_string(spawn.size()) +
                  " rounds no other thread started the child within 20 ms; the machine is too busy to measure a "
                  "steal");
    measured_burden m;
    m.backend = b;
    m.spawn_ns = median_of(spawn);
    m.steal_ns = lower_decile(*quietest);
    m.steal_median_ns = median_of(*quietest);
    m.rounds = static_cast<unsigned>(stolen);
    const machine_identity here = this_machine();
    m.cpu_model = here.cpu_model;
    m.hardware_threads = here.hardware_threads;
    m.runnable_elsewhere = runnable_elsewhere;
    m.measured_at = utc_now();
    return m;
  }
};

// std::thread: a spawn is the constructor; the steal is the new thread's start.
inline measured_burden calibrate_std_thread() {
  samples out;
  for (unsigned r = 0; r < warmup_rounds + timed_rounds; ++r) {
    std::atomic<std::int64_t> started{0};
    const std::int64_t before = now_ns();
    std::thread t([&started] { started.store(now_ns(), std::memory_order_release); });
    const std::int64_t after = now_ns();
    const std::int64_t s = wait_for_start(started, before);
    t.join();
    if (r >= warmup_rounds) out.add(before, after, s);
  }
  measured_burden m = out.result(backend::std_thread);
  // The start when a core is free: the creator waits at once, so the new
  // thread can run on the creator's own core. The lower decile, as for the
  // steal: on a virtual machine some of these starts wait for a timer tick
  // too (the kernel placed the thread on another, sleeping or busy, core).
  std::vector<double> free_core;
  for (unsigned r = 0; r < warmup_rounds + batch_rounds; ++r) {
    std::int64_t started = 0;
    const std::int64_t before = now_ns();
    std::thread t([&started] { started = now_ns(); });
    t.join();
    if (r >= warmup_rounds) free_core.push_back(static_cast<double>(std::max<std::int64_t>(0, started - before)));
  }
  m.thread_start_ns = lower_decile(free_core);
  return m;
}

}  // namespace burden
}  // namespace detail

#if FORKSCALE_DETAIL_DEFINES(measure)
FORKSCALE_INLINE machine_identity this_machine() {
  static const machine_identity here = [] {
    machine_identity id;
    id.hardware_threads = std::thread::hardware_concurrency();
#if defined(__linux__)
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
      const std::size_t colon = line.find(':');
      if (line.compare(0, 10, "model name") != 0 || colon == std::string::npos) continue;
      const std::size_t first = line.find_first_not_of(" \t", colon + 1);
      const std::size_t last = line.find_last_not_of(" \t\r");
      if (first != std::string::npos && last >= first) id.cpu_model = line.substr(first, last + 1 - first);
      break;
    }
#endif
    return id;
  }();
  return here;
}

FORKSCALE_INLINE measured_burden calibrate_burden(backend b) {
  if (detail::backend_bit(b) == 0)
    throw error(std::string("forkscale: calibrate_burden: no backend named (backend::") + to_string(b) + ")");
  if (std::thread::hardware_concurrency() < 2)
    throw error(std::string("forkscale: calibrate_burden(") + to_string(b) +
                "): this machine has one hardware thread; a steal needs two");
  if (b == backend::std_thread) return detail::burden::calibrate_std_thread();
  const detail::burden::calibrator c = detail::burden::calibrator_slot(b);
  if (!c)
    throw error(std::string("forkscale: calibrate_burden(") + to_string(b) + ") needs " +
                (b == backend::tbb ? "forkscale/adapters/tbb.hpp included (and oneTBB linked)"
                                   : "forkscale/adapters/openmp.hpp included in a file compiled with OpenMP") +
                " in this program");
  return c();
}
#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
