// clock.hpp: where strand costs come from.
//
// A strand's cost is the difference of two clock readings taken at the fork-join
// events that bound it. Four sources are offered:
//  - cost:   a deterministic per-thread counter advanced only by charge(n); every
//            number is then exactly reproducible (the basis of the test suite);
//  - tsc:    the x86 time-stamp counter, used only when it is invariant, calibrated
//            against steady_clock to convert ticks to nanoseconds;
//  - arm_counter: the AArch64 virtual counter (cntvct_el0, frequency in cntfrq_el0);
//  - steady: std::chrono::steady_clock, the portable fallback;
//  - thread_cpu: the running thread's CPU time, which does not advance while the
//            thread waits for a CPU, so a busy machine does not inflate the
//            numbers. With an invariant TSC a reading is the TSC less the time the
//            thread was found off its CPU (cpu_time_clock below: a system call
//            only after a long gap); else CLOCK_THREAD_CPUTIME_ID, a system call
//            per reading.
#pragma once
#include <chrono>
#include <cstdint>
#include <thread>

#if defined(__unix__) || defined(__APPLE__)
#include <time.h>
#include <unistd.h>
#endif
#if defined(CLOCK_THREAD_CPUTIME_ID)
#define FORKSCALE_DETAIL_THREAD_CPU 1
#else
#define FORKSCALE_DETAIL_THREAD_CPU 0
#endif

#include "config.hpp"
#include "detail/macro_scope.hpp"
#if FORKSCALE_HEADER_ONLY
// Not needed here; kept in the header-only form for files that have always had
// it through forkscale. The compiled form leaves it out (a lighter parse).
#include <cmath>
#endif

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#define FORKSCALE_DETAIL_X86 1
#if defined(_MSC_VER)
#include <intrin.h>
#else
// <cpuid.h> only: the TSC is read with a compiler builtin, because
// <x86intrin.h> (every intrinsic) doubles the parse time of an annotated file.
#include <cpuid.h>
#endif
#else
#define FORKSCALE_DETAIL_X86 0
#endif
#if defined(__aarch64__)
#define FORKSCALE_DETAIL_ARM64 1
#else
#define FORKSCALE_DETAIL_ARM64 0
#endif

FORKSCALE_NAMESPACE_BEGIN

enum class clock_kind : unsigned char {
  automatic,    // tsc when invariant, arm_counter on AArch64, else steady
  cost,         // charge(n) units, deterministic
  tsc,          // x86 time-stamp counter, reported in ns
  steady,       // std::chrono::steady_clock, reported in ns
  arm_counter,  // AArch64 cntvct_el0, reported in ns
  thread_cpu,   // the thread's CPU time, reported in ns: not fooled by a busy machine
};

inline const char* to_string(clock_kind k) noexcept {
  switch (k) {
    case clock_kind::automatic:
      return "automatic";
    case clock_kind::cost:
      return "cost";
    case clock_kind::tsc:
      return "tsc";
    case clock_kind::steady:
      return "steady";
    case clock_kind::arm_counter:
      return "arm_counter";
    case clock_kind::thread_cpu:
      return "thread_cpu";
  }
  return "unknown";
}

namespace detail {

// The cost clock: a per-thread counter. Strand costs are differences of it, so a
// task run by a thread that is blocked in a join is charged to that task alone.
inline thread_local std::uint64_t cost_counter = 0;

inline std::uint64_t steady_ticks() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

inline std::uint64_t tsc_ticks() noexcept {
#if FORKSCALE_DETAIL_X86 && defined(_MSC_VER)
  return __rdtsc();
#elif FORKSCALE_DETAIL_X86
  return __builtin_ia32_rdtsc();
#else
  return steady_ticks();
#endif
}

// The calling thread's CPU time in ns (POSIX CLOCK_THREAD_CPUTIME_ID; on Linux a
// system call, about 25 TSC reads). Without it, steady_clock.
inline std::uint64_t thread_cpu_ns() noexcept {
#if FORKSCALE_DETAIL_THREAD_CPU
  timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
#endif
  return steady_ticks();
}

inline std::uint64_t arm_ticks() noexcept {
#if FORKSCALE_DETAIL_ARM64
  std::uint64_t v;
  asm volatile("mrs %0, cntvct_el0" : "=r"(v));
  return v;
#else
  return steady_ticks();
#endif
}

// CPUID 0x80000007 EDX bit 8: the TSC runs at a constant rate in every P-, C- and
// T-state, so tick differences measure time (Intel SDM vol. 3, 18.17.1).
inline bool invariant_tsc() noexcept {
#if FORKSCALE_DETAIL_X86 && !defined(_MSC_VER)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000u, nullptr)) < 0x80000007u) return false;
  __cpuid(0x80000007u, a, b, c, d);
  return (d & (1u << 8)) != 0;
#elif FORKSCALE_DETAIL_X86
  int r[4] = {0, 0, 0, 0};
  __cpuid(r, static_cast<int>(0x80000000u));
  if (static_cast<unsigned>(r[0]) < 0x80000007u) return false;
  __cpuid(r, static_cast<int>(0x80000007u));
  return (static_cast<unsigned>(r[3]) & (1u << 8)) != 0;
#else
  return false;
#endif
}

// A (steady_clock, TSC) pair read as close together as possible: the TSC is read
// just before and just after steady_clock, and of five tries the one with the
// narrowest bracket wins (a preemption in between widens the bracket).
struct clock_pair {
  std::uint64_t steady = 0;
  std::uint64_t tsc = 0;
};
inline clock_pair read_clock_pair() noexcept {
  clock_pair best;
  std::uint64_t best_width = ~std::uint64_t(0);
  for (int i = 0; i < 5; ++i) {
    const std::uint64_t a = tsc_ticks();
    const std::uint64_t s = steady_ticks();
    const std::uint64_t b = tsc_ticks();
    if (b >= a && b - a < best_width) {
      best_width = b - a;
      best.steady = s;
      best.tsc = a + (b - a) / 2;
    }
  }
  return best;
}

// Where the TSC's rate starts being measured: the first call (the first
// measurement on the TSC opens with it).
inline const clock_pair& tsc_calibration_start() noexcept {
  static const clock_pair p = read_clock_pair();
  return p;
}

// Nanoseconds per TSC tick, measured once per process against steady_clock over
// at least 20 ms from tsc_calibration_start(). Reports need it only when they are
// made, so a first measurement that lasts 20 ms or more pays nothing for it; a
// shorter one waits out the rest.
inline double tsc_ns_per_tick() noexcept {
  static const double value = [] {
    const clock_pair p0 = tsc_calibration_start();
    std::uint64_t s = steady_ticks();
    while (s - p0.steady < 20'000'000) s = steady_ticks();
    const clock_pair p1 = read_clock_pair();
    if (p1.tsc <= p0.tsc || p1.steady <= p0.steady) return 1.0;
    return static_cast<double>(p1.steady - p0.steady) / static_cast<double>(p1.tsc - p0.tsc);
  }();
  return value;
}

// ---- thread_cpu from the TSC ---------------------------------------------------
// A thread's CPU time read as the TSC less the time the thread was found off its
// CPU. A reading is one TSC read. The thread's CPU time (a system call) is read
// only at a check: when the TSC has moved more than cpu_check_gap ticks since the
// thread's previous reading — an interval long enough to hold a preemption, a
// blocking wait or the time before a task starts on a worker, none of which is
// shorter — and at least every cpu_check_every ticks. At a check, the TSC time
// since the previous check less the CPU time since then is the time the thread
// spent off its CPU: after a long gap it is taken out of that gap (never more
// than the gap), where it lies; a periodic check (the last interval short) takes
// nothing out and only moves the reference. Time off the CPU inside intervals
// shorter than cpu_check_gap stays where it was, as under a wall clock. A check's
// own time (between its two TSC reads, a preemption at the system call's return
// included) is taken out as well. As with CLOCK_THREAD_CPUTIME_ID, only
// differences of two readings on one thread mean anything.
struct cpu_time_clock {
  std::uint64_t last = 0;        // TSC at this thread's previous reading (0: none yet)
  std::uint64_t check_tsc = 0;   // TSC just before the last check's system call
  std::uint64_t check_span = 0;  // ticks from there to the check's end (taken out)
  std::uint64_t check_cpu = 0;   // the thread's CPU time, ns, read by that call
  std::uint64_t removed = 0;     // ticks taken out so far: a reading is the TSC less this
};
inline thread_local cpu_time_clock cpu_time_state;

// 2^16 ticks: 27 us at 2.4 GHz, 22 us at 3 GHz; 2^22: 1.7 ms, 1.4 ms.
inline constexpr std::uint64_t cpu_check_gap = std::uint64_t(1) << 16;
inline constexpr std::uint64_t cpu_check_every = std::uint64_t(1) << 22;

// What a check reads, in this order: the TSC (the reading itself), the thread's
// CPU time (ns), the TSC again; and the TSC's rate so far.
struct cpu_check_readings {
  std::uint64_t tsc = 0, cpu = 0, tsc_after = 0;
  double ns_per_tick = 0;  // 0: not known yet
};

// The ticks a check takes out of the interval since the previous reading.
inline std::uint64_t off_cpu_ticks(const cpu_time_clock& c, const cpu_check_readings& r) noexcept {
  if (c.last == 0 || r.tsc <= c.last || c.last < c.check_tsc || !(r.ns_per_tick > 0)) return 0;
  const std::uint64_t gap = r.tsc - c.last;
  if (gap <= cpu_check_gap || r.cpu < c.check_cpu) return 0;
  // From the last check's first TSC read to this one's: the TSC time, the CPU
  // time, and the last check's own time (already taken out).
  const double wall = static_cast<double>(r.tsc - c.check_tsc) * r.ns_per_tick;
  const double on = static_cast<double>(r.cpu - c.check_cpu);
  const double off = wall - on - static_cast<double>(c.check_span) * r.ns_per_tick;
  // Below 1 us plus 0.1% of the time: the clocks' disagreement, not time away.
  if (!(off >= 1000.0 + wall / 1024.0)) return 0;
  const double ticks = off / r.ns_per_tick;
  return ticks >= static_cast<double>(gap) ? gap : static_cast<std::uint64_t>(ticks);
}

// A check's readings applied to `c`; returns the reading (the TSC at r.tsc less
// what was taken out before it).
inline std::uint64_t apply_cpu_check(cpu_time_clock& c, const cpu_check_readings& r) noexcept {
  c.removed += off_cpu_ticks(c, r);
  const std::uint64_t reading = r.tsc > c.removed ? r.tsc - c.removed : 0;
  const std::uint64_t end = r.tsc_after > r.tsc ? r.tsc_after : r.tsc;
  c.removed += end - r.tsc;  // the check's own time
  c.check_tsc = r.tsc;
  c.check_span = end - r.tsc;
  c.check_cpu = r.cpu;
  c.last = end;
  return reading;
}

// The TSC's rate from the start of its calibration to now (0 in the first 10 us).
inline double tsc_rate_so_far(std::uint64_t tsc, std::uint64_t wall) noexcept {
  const clock_pair& p = tsc_calibration_start();
  if (tsc <= p.tsc || wall < p.steady + 10000) return 0;
  return static_cast<double>(wall - p.steady) / static_cast<double>(tsc - p.tsc);
}

FORKSCALE_DETAIL_NOINLINE inline std::uint64_t cpu_time_check(cpu_time_clock& c, std::uint64_t t) noexcept {
  cpu_check_readings r;
  r.tsc = t;
  r.cpu = thread_cpu_ns();
  r.tsc_after = tsc_ticks();
  r.ns_per_tick = tsc_rate_so_far(r.tsc_after, steady_ticks());
  return apply_cpu_check(c, r);
}

// Whether thread_cpu is read from the TSC (x86 with an invariant TSC and a
// thread CPU clock); else each reading is CLOCK_THREAD_CPUTIME_ID.
inline bool thread_cpu_from_tsc() noexcept {
#if FORKSCALE_DETAIL_X86 && FORKSCALE_DETAIL_THREAD_CPU
  static const bool v = invariant_tsc();
  return v;
#else
  return false;
#endif
}

// A reading of the thread_cpu clock: TSC ticks (thread_cpu_from_tsc()) or ns.
inline std::uint64_t thread_cpu_ticks() noexcept {
  if (!thread_cpu_from_tsc()) return thread_cpu_ns();
  const std::uint64_t t = tsc_ticks();
  cpu_time_clock& c = cpu_time_state;
  if (FORKSCALE_DETAIL_UNLIKELY(t - c.last > cpu_check_gap || t - c.check_tsc > cpu_check_every))
    return cpu_time_check(c, t);
  c.last = t;
  return t - c.removed;
}

// Time the profiler spends on a thread in a slow path of its own — a new chunk
// of the record, whose slab is mapped and faulted in (hundreds of microseconds
// on a virtual machine, more under load) — is taken out of the thread's
// thread_cpu readings from the TSC, as a check's own time is: the strand it
// lands in does not count it, and the next reading does not take it for time
// off the CPU. Under the other clocks it stays in that strand.
// own_time_begin() before the slow path (0: nothing to take out), and
// own_time_end() with that value after it; returns the ticks taken out.
inline std::uint64_t own_time_begin() noexcept { return thread_cpu_from_tsc() ? tsc_ticks() : 0; }
inline std::uint64_t own_time_end(std::uint64_t began) noexcept {
  if (began == 0) return 0;
  const std::uint64_t end = tsc_ticks();
  if (end <= began) return 0;
  cpu_time_clock& c = cpu_time_state;
  c.removed += end - began;
  if (c.last != 0 && end > c.last) c.last = end;
  return end - began;
}

// Whether the ticks of clock `k` are TSC ticks (converted at tsc_ns_per_tick()).
inline bool counts_tsc_ticks(clock_kind k) noexcept {
  return k == clock_kind::tsc || (k == clock_kind::thread_cpu && thread_cpu_from_tsc());
}

inline double arm_ns_per_tick() noexcept {
#if FORKSCALE_DETAIL_ARM64
  std::uint64_t f;
  asm volatile("mrs %0, cntfrq_el0" : "=r"(f));
  return f ? 1e9 / static_cast<double>(f) : 1.0;
#else
  return 1.0;
#endif
}

}  // namespace detail

// Charges `units` to the strand running on this thread (cost clock only; under a
// timed clock it does nothing that shows up in any number).
#if FORKSCALE_ENABLE
inline void charge(std::uint64_t units) noexcept { detail::cost_counter += units; }
#else
inline void charge(std::uint64_t) noexcept {}
#endif

// What a resolved clock is: its kind, how to turn its ticks into the report's unit,
// and the report's unit name ("ns" for timed clocks, "units" for the cost clock).
struct clock_info {
  clock_kind kind = clock_kind::cost;
  double unit_per_tick = 1.0;
  const char* unit = "units";
  // 15,000 cycles (Cilkview §3's burden) in this clock's ticks.
  std::uint64_t default_burden_ticks = 15000;
};

namespace detail {

// The wall clock `automatic` stands for where a wall clock is wanted (a
// recording's timeline, lock waits): the TSC when invariant, the AArch64
// counter, else steady_clock.
inline clock_kind resolve_automatic() noexcept {
#if FORKSCALE_DETAIL_X86
  return invariant_tsc() ? clock_kind::tsc : clock_kind::steady;
#elif FORKSCALE_DETAIL_ARM64
  return clock_kind::arm_counter;
#else
  return clock_kind::steady;
#endif
}

// The clock a measurement whose options leave the clock `automatic` uses:
// thread_cpu read from the TSC where it can be (one TSC read per event; the
// thread's CPU time read only after long intervals, so that time a thread spent
// off its CPU is taken out of every strand for the whole run, whatever the load
// when the run started), else the wall clock above.
inline clock_kind resolve_default() noexcept {
  return thread_cpu_from_tsc() ? clock_kind::thread_cpu : resolve_automatic();
}

// Cycles per nanosecond, for expressing the 15,000-cycle burden in ns. The invariant
// TSC runs at the nominal core frequency; without one, 3 GHz is assumed.
inline double cycles_per_ns() noexcept {
#if FORKSCALE_DETAIL_X86
  if (invariant_tsc()) return 1.0 / tsc_ns_per_tick();
#endif
  return 3.0;
}

// With `rate_now` false the TSC's rate is left for later (unit_per_tick 0; see
// tsc_ns_per_tick()) and only its measurement is started. thread_cpu read from
// the TSC counts TSC ticks too.
inline clock_info describe(clock_kind k, bool rate_now = true) noexcept {
  clock_info info;
  if (k == clock_kind::automatic) k = resolve_default();
  info.kind = k;
  switch (k) {
    case clock_kind::automatic:
    case clock_kind::cost:
      info.unit_per_tick = 1.0;
      info.unit = "units";
      info.default_burden_ticks = 15000;
      break;
    case clock_kind::thread_cpu:
      if (!thread_cpu_from_tsc()) {
        info.unit_per_tick = 1.0;
        info.unit = "ns";
        info.default_burden_ticks = static_cast<std::uint64_t>(15000.0 / cycles_per_ns());
        break;
      }
      [[fallthrough]];  // TSC ticks, as the tsc clock's
    case clock_kind::tsc:
      if (rate_now) {
        info.unit_per_tick = tsc_ns_per_tick();
      } else {
        (void)tsc_calibration_start();
        info.unit_per_tick = 0;
      }
      info.unit = "ns";
      info.default_burden_ticks = 15000;
      break;
    case clock_kind::steady:
      info.unit_per_tick = 1.0;
      info.unit = "ns";
      info.default_burden_ticks = static_cast<std::uint64_t>(15000.0 / cycles_per_ns());
      break;
    case clock_kind::arm_counter: {
      info.unit_per_tick = arm_ns_per_tick();
      info.unit = "ns";
      const double ns = 15000.0 / cycles_per_ns();
      info.default_burden_ticks =
          static_cast<std::uint64_t>(ns / info.unit_per_tick + 0.5);  // ns > 0: rounds to nearest
      if (info.default_burden_ticks == 0) info.default_burden_ticks = 1;
      break;
    }
  }
  return info;
}

inline std::uint64_t read_clock(clock_kind k) noexcept {
  switch (k) {
    case clock_kind::cost:
      return cost_counter;
    case clock_kind::tsc:
      return tsc_ticks();
    case clock_kind::arm_counter:
      return arm_ticks();
    case clock_kind::thread_cpu:
      return thread_cpu_ticks();
    default:
      return steady_ticks();
  }
}

}  // namespace detail

// Clock policies for the engine templates. `runtime_clock` (the default) reads the
// clock chosen by the session's options; the others fix one source at compile time.
struct runtime_clock {
  static constexpr bool fixed = false;
  static constexpr clock_kind kind = clock_kind::automatic;
  // thread_cpu from the TSC (what `automatic` resolves to on x86), the TSC and
  // the cost clock without a call or a switch.
  // (The cost clock first: one comparison, and the tests' clock reads no
  // further.)
  FORKSCALE_DETAIL_ALWAYS_INLINE static std::uint64_t now(clock_kind k) noexcept {
    if (k == clock_kind::cost) return detail::cost_counter;
    if (FORKSCALE_DETAIL_LIKELY(k == clock_kind::thread_cpu)) return detail::thread_cpu_ticks();
    if (k == clock_kind::tsc) return detail::tsc_ticks();
    return detail::read_clock(k);
  }
};
struct cost_clock {
  static constexpr bool fixed = true;
  static constexpr clock_kind kind = clock_kind::cost;
  static std::uint64_t now(clock_kind) noexcept { return detail::cost_counter; }
};
struct tsc_clock {
  static constexpr bool fixed = true;
  static constexpr clock_kind kind = clock_kind::tsc;
  static std::uint64_t now(clock_kind) noexcept { return detail::tsc_ticks(); }
};
struct steady_clock_source {
  static constexpr bool fixed = true;
  static constexpr clock_kind kind = clock_kind::steady;
  static std::uint64_t now(clock_kind) noexcept { return detail::steady_ticks(); }
};
struct thread_cpu_clock {
  static constexpr bool fixed = true;
  static constexpr clock_kind kind = clock_kind::thread_cpu;
  static std::uint64_t now(clock_kind) noexcept { return detail::thread_cpu_ticks(); }
};
struct arm_counter_clock {
  static constexpr bool fixed = true;
  static constexpr clock_kind kind = clock_kind::arm_counter;
  static std::uint64_t now(clock_kind) noexcept { return detail::arm_ticks(); }
};

FORKSCALE_NAMESPACE_END
