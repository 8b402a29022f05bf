// bench_engine: what the forkscale engine costs and how well it measures.
//
//   bench_engine [--quick] [--out FILE]      (default FILE: bench/results/engine.json)
//
// Four sections, written to one JSON file (atomically: a temporary file renamed
// onto FILE) and printed as a table:
//   event_cost     ns per event (spawn and its parts, sync_point, call_site) against
//                  one raw clock read, with site profiles on (the default); best of
//                  5 in each of 3 whole runs (1 with --quick), loop overhead
//                  subtracted.
//   memory         the engine's memory high-water mark for many tasks and for
//                  fib(n) (with site profiles on, and fib also with them off), each
//                  case in a fresh child process (the pool is process-wide and never
//                  shrinks).
//   accuracy       busy-wait programs whose true work and span this program
//                  measures itself; measured/true with and without overhead
//                  compensation.
//   site_profiles  what the per-site profiles cost: every event of event_cost also
//                  measured with options.site_profiles = false, in runs alternating
//                  with the profiled ones, and on/off per event (goal: <= 1.5x); the
//                  call site's cost against a clock read (profiled, it reads the
//                  clock twice; unprofiled, never); profiler_bytes and peak RSS of
//                  fib at two sizes (goal: within 10% of each other).
//
// Nothing here asserts on a timing: goals are recorded ("goal_met"), never enforced.
// The exit status is 0 unless the arguments are bad (2) or something broke: the
// JSON could not be written, or a memory case's child process failed (1).
#include <forkscale/forkscale.hpp>

#include "bench_common.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <condition_variable>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace fs = forkscale;

namespace {

using namespace bench_common;  // bench_common.hpp

// ============================================================================
// Small helpers
// ============================================================================
inline void barrier() noexcept { asm volatile("" ::: "memory"); }
template <class T>
inline void keep(const T& v) noexcept {
  asm volatile("" : : "r"(v) : "memory");
}

inline std::uint64_t now_ns() noexcept { return fs::detail::steady_ticks(); }

// Busy-waits for `d` ns on steady_clock; returns the duration actually spun (last
// reading minus first), which is this strand's "true" length.
inline std::uint64_t spin(std::uint64_t d) noexcept {
  const std::uint64_t t0 = now_ns();
  std::uint64_t t = t0;
  do {
    t = now_ns();
  } while (t - t0 < d);
  return t - t0;
}

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

// Diagnostics found by forkscale during this benchmark (there should be none).
std::atomic<std::uint64_t> g_diagnostics{0};
std::mutex g_diag_mutex;
std::vector<std::string> g_diag_samples;

fs::options bench_options(bool compensate = true, bool site_profiles = true) {
  fs::options o;  // default clock: automatic (the invariant TSC on x86)
  o.compensate = compensate;
  o.site_profiles = site_profiles;  // on by default, as in fs::options
  o.on_diagnostic = [](const fs::diagnostic& d) {
    g_diagnostics.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard<std::mutex> g(g_diag_mutex);
    if (g_diag_samples.size() < 10) g_diag_samples.push_back(d.where + ": " + d.problem);
  };
  return o;
}

struct config {
  bool quick = false;
  std::string out = "bench/results/engine.json";
};

// ============================================================================
// 1. event_cost
// ============================================================================

// A clock policy that counts its readings, to state how many clock reads each
// event makes (measured, not assumed). Single-threaded use only.
struct counting_clock {
  static constexpr bool fixed = true;
  static constexpr fs::clock_kind kind = fs::clock_kind::tsc;
  static inline std::uint64_t reads = 0;
  static std::uint64_t now(fs::clock_kind) noexcept {
    ++reads;
    return fs::detail::tsc_ticks();
  }
};

struct clock_read_counts {
  double spawn = 0, spawn_wrapper = 0, spawn_point = 0, child_scope = 0, child_open = 0, child_close = 0, sync = 0,
         call = 0;
};

clock_read_counts count_clock_reads(bool site_profiles) {
  using C = counting_clock;
  clock_read_counts r;
  constexpr int n = 1000;
  fs::measure<C>(
      "count_clock_reads",
      [&] {
        std::uint64_t before = C::reads;
        for (int i = 0; i < n; ++i) {
          fs::basic_spawn_scope<C> c(fs::basic_spawn_point<C>());
        }
        r.spawn = double(C::reads - before) / n;
        { fs::basic_sync_point<C> sp; }

        before = C::reads;
        for (int i = 0; i < n; ++i) fs::spawn<C>([] { barrier(); })();
        r.spawn_wrapper = double(C::reads - before) / n;
        { fs::basic_sync_point<C> sp; }

        std::vector<fs::spawn_token> tokens;
        tokens.reserve(n);
        before = C::reads;
        for (int i = 0; i < n; ++i) tokens.push_back(fs::basic_spawn_point<C>());
        r.spawn_point = double(C::reads - before) / n;
        before = C::reads;
        for (int i = 0; i < n; ++i) {
          fs::basic_spawn_scope<C> c(std::move(tokens[static_cast<std::size_t>(i)]));
        }
        r.child_scope = double(C::reads - before) / n;
        tokens.clear();
        { fs::basic_sync_point<C> sp; }

        {
          fs::spawn_token tk = fs::basic_spawn_point<C>();
          before = C::reads;
          auto* c = new fs::basic_spawn_scope<C>(std::move(tk));
          r.child_open = double(C::reads - before);
          before = C::reads;
          delete c;
          r.child_close = double(C::reads - before);
        }

        before = C::reads;
        for (int i = 0; i < n; ++i) {
          fs::basic_sync_point<C> sp;
        }
        r.sync = double(C::reads - before) / n;

        before = C::reads;
        for (int i = 0; i < n; ++i) {
          fs::basic_call_site<C> cs;
        }
        r.call = double(C::reads - before) / n;
      },
      bench_options(true, site_profiles));
  return r;
}

constexpr std::size_t spawn_batch = 1000;  // spawns between two syncs
constexpr std::size_t nest_depth = 250;    // nested child scopes (open/close split)

// Raw storage for a batch of spawn tokens (spawn points made before their children run).
struct token_buffer {
  explicit token_buffer(std::size_t n)
      : mem(static_cast<fs::spawn_token*>(::operator new(n * sizeof(fs::spawn_token)))) {}
  ~token_buffer() { ::operator delete(mem); }
  token_buffer(const token_buffer&) = delete;
  token_buffer& operator=(const token_buffer&) = delete;
  fs::spawn_token* mem;
};

// Opens child scopes tk[i..n) nested in one another, notes the time at the deepest
// point, and closes them on the way back.
__attribute__((noinline)) void nest_scopes(fs::spawn_token* tk, std::size_t i, std::size_t n, std::uint64_t& t_mid) {
  if (i == n) {
    t_mid = now_ns();
    return;
  }
  {
    fs::spawn_scope c(std::move(tk[i]));
    barrier();
    nest_scopes(tk, i + 1, n, t_mid);
    barrier();
  }
  tk[i].~spawn_token();
}
// The same recursion with a frame of the same size and no scope: the overhead.
__attribute__((noinline)) void nest_empty(fs::spawn_token* tk, std::size_t i, std::size_t n, std::uint64_t& t_mid) {
  if (i == n) {
    t_mid = now_ns();
    return;
  }
  {
    alignas(fs::spawn_scope) unsigned char pad[sizeof(fs::spawn_scope)];
    keep(&pad[0]);
    barrier();
    nest_empty(tk, i + 1, n, t_mid);
    barrier();
  }
  keep(tk);
}

struct event_row {
  std::string name;
  std::string what;
  std::string role;  // "reference", "event" or "part"
  double ns = 0;
  double raw_ns = 0;       // before subtracting the loop overhead
  double overhead_ns = 0;  // the empty loop's cost per iteration
  double clock_reads = -1;
};

struct event_cost_result {
  bool site_profiles = true;
  std::uint64_t n = 0;
  int reps = 0;
  int rounds = 1;  // whole runs merged (best of each row over them)
  std::vector<event_row> rows;
  double tsc_read_ns = 0;
  std::string clock;
  double compensation_per_strand_ns = 0;
  std::uint64_t diagnostics = 0;
};

// One whole run of the event-cost loops, inside one fs::measure: each loop times
// n events, best of `reps`; the empty loops of the same structures give the
// overheads subtracted.
struct event_cost_run {
  std::uint64_t n = 0, batches = 0, nests = 0;
  int reps = 0;
  clock_read_counts reads;
  fs::spawn_token* tk = nullptr;  // room for max(spawn_batch, nest_depth) tokens
  std::vector<event_row>* rows = nullptr;
  double flat_empty = 0, batch_empty = 0, nest_open_empty = 0, nest_close_empty = 0;

  // Best of `reps` of fn(), which returns the ns taken by n events.
  template <class Fn>
  double best(Fn&& fn) const {
    double b = std::numeric_limits<double>::infinity();
    for (int r = 0; r < reps; ++r) b = std::min(b, static_cast<double>(fn()));
    return b / static_cast<double>(n);
  }
  // The same for fn(a, b), which adds to two totals.
  template <class Fn>
  void best2(Fn&& fn, double& a_out, double& b_out) const {
    double ba = std::numeric_limits<double>::infinity(), bb = std::numeric_limits<double>::infinity();
    for (int r = 0; r < reps; ++r) {
      std::uint64_t a = 0, b = 0;
      fn(a, b);
      ba = std::min(ba, static_cast<double>(a));
      bb = std::min(bb, static_cast<double>(b));
    }
    a_out = ba / static_cast<double>(n);
    b_out = bb / static_cast<double>(n);
  }

  void add(const char* name, const char* what, const char* role, double raw, double overhead,
           double clock_reads) const {
    event_row row;
    row.name = name;
    row.what = what;
    row.role = role;
    row.raw_ns = raw;
    row.overhead_ns = overhead;
    row.ns = std::max(0.0, raw - overhead);
    row.clock_reads = clock_reads;
    rows->push_back(row);
  }

  void all() {
    loop_overheads();
    clock_reads();
    whole_spawns();
    spawn_parts();
    child_open_close();
    sync_and_call();
  }

  // Loop overheads: the same loop structures with nothing in them.
  void loop_overheads() {
    flat_empty = best([&] {
      const std::uint64_t t0 = now_ns();
      for (std::uint64_t i = 0; i < n; ++i) barrier();
      return now_ns() - t0;
    });
    batch_empty = best([&] {
      std::uint64_t total = 0;
      for (std::uint64_t b = 0; b < batches; ++b) {
        const std::uint64_t t0 = now_ns();
        for (std::size_t i = 0; i < spawn_batch; ++i) barrier();
        total += now_ns() - t0;
      }
      return total;
    });
    best2(
        [&](std::uint64_t& open, std::uint64_t& close) {
          for (std::uint64_t b = 0; b < nests; ++b) {
            std::uint64_t mid = 0;
            const std::uint64_t t0 = now_ns();
            nest_empty(tk, 0, nest_depth, mid);
            const std::uint64_t t1 = now_ns();
            open += mid - t0;
            close += t1 - mid;
          }
        },
        nest_open_empty, nest_close_empty);
  }

  // Raw clock reads.
  void clock_reads() const {
    add("clock_read_tsc", "fs::detail::tsc_ticks()", "reference", best([&] {
          const std::uint64_t t0 = now_ns();
          for (std::uint64_t i = 0; i < n; ++i) keep(fs::detail::tsc_ticks());
          return now_ns() - t0;
        }),
        flat_empty, 1);
    add("clock_read_steady", "fs::detail::steady_ticks()", "reference", best([&] {
          const std::uint64_t t0 = now_ns();
          for (std::uint64_t i = 0; i < n; ++i) keep(fs::detail::steady_ticks());
          return now_ns() - t0;
        }),
        flat_empty, 1);
  }

  // A whole spawn run inline: spawn point, child scope open and close; a sync
  // (untimed) after every batch.
  void whole_spawns() const {
    add("spawn", "spawn_point() + spawn_scope open/close (child run inline)", "event", best([&] {
          std::uint64_t total = 0;
          for (std::uint64_t b = 0; b < batches; ++b) {
            const std::uint64_t t0 = now_ns();
            for (std::size_t i = 0; i < spawn_batch; ++i) {
              fs::spawn_scope c(fs::spawn_point());
              barrier();
            }
            total += now_ns() - t0;
            fs::sync_point sp;
          }
          return total;
        }),
        batch_empty, reads.spawn);
    add("spawn_wrapper", "fs::spawn(f)() with an empty f", "event", best([&] {
          std::uint64_t total = 0;
          for (std::uint64_t b = 0; b < batches; ++b) {
            const std::uint64_t t0 = now_ns();
            for (std::size_t i = 0; i < spawn_batch; ++i) fs::spawn([] { barrier(); })();
            total += now_ns() - t0;
            fs::sync_point sp;
          }
          return total;
        }),
        batch_empty, reads.spawn_wrapper);
  }

  // The parts: a batch of spawn points, then their child scopes, then a sync.
  void spawn_parts() const {
    double sp_raw = 0, child_raw = 0;
    best2(
        [&](std::uint64_t& t_sp, std::uint64_t& t_child) {
          for (std::uint64_t b = 0; b < batches; ++b) {
            std::uint64_t t0 = now_ns();
            for (std::size_t i = 0; i < spawn_batch; ++i) {
              new (&tk[i]) fs::spawn_token(fs::spawn_point());
              barrier();
            }
            t_sp += now_ns() - t0;
            t0 = now_ns();
            for (std::size_t i = 0; i < spawn_batch; ++i) {
              { fs::spawn_scope c(std::move(tk[i])); }
              tk[i].~spawn_token();
              barrier();
            }
            t_child += now_ns() - t0;
            fs::sync_point sp;
          }
        },
        sp_raw, child_raw);
    add("spawn_point", "parent side: auto tk = fs::spawn_point()", "part", sp_raw, batch_empty, reads.spawn_point);
    add("child_scope", "child side: { fs::spawn_scope c(std::move(tk)); }", "part", child_raw, batch_empty,
        reads.child_scope);
  }

  // Child open and close apart: scopes nested nest_depth deep.
  void child_open_close() const {
    double open_raw = 0, close_raw = 0;
    best2(
        [&](std::uint64_t& open, std::uint64_t& close) {
          for (std::uint64_t b = 0; b < nests; ++b) {
            for (std::size_t i = 0; i < nest_depth; ++i) new (&tk[i]) fs::spawn_token(fs::spawn_point());
            std::uint64_t mid = 0;
            const std::uint64_t t0 = now_ns();
            nest_scopes(tk, 0, nest_depth, mid);
            const std::uint64_t t1 = now_ns();
            open += mid - t0;
            close += t1 - mid;
            fs::sync_point sp;
          }
        },
        open_raw, close_raw);
    add("child_open", "spawn_scope constructor (nested scopes)", "part", open_raw, nest_open_empty, reads.child_open);
    add("child_close", "spawn_scope destructor (nested scopes)", "part", close_raw, nest_close_empty,
        reads.child_close);
  }

  // Sync with the task's join set present (as after any spawn), nothing pending;
  // then a call_site.
  void sync_and_call() const {
    add("sync_point", "{ fs::sync_point sp; }", "event", best([&] {
          const std::uint64_t t0 = now_ns();
          for (std::uint64_t i = 0; i < n; ++i) {
            fs::sync_point sp;
            barrier();
          }
          return now_ns() - t0;
        }),
        flat_empty, reads.sync);
    add("call_site", "{ fs::call_site cs; }", "event", best([&] {
          const std::uint64_t t0 = now_ns();
          for (std::uint64_t i = 0; i < n; ++i) {
            fs::call_site cs;
            barrier();
          }
          return now_ns() - t0;
        }),
        flat_empty, reads.call);
  }
};

event_cost_result run_event_cost(const config& cfg, bool site_profiles) {
  event_cost_result res;
  res.site_profiles = site_profiles;
  std::uint64_t n = cfg.quick ? 100'000 : 2'000'000;
  if (BENCH_SANITIZED && cfg.quick) n = 20'000;
  static_assert(spawn_batch % nest_depth == 0, "n must be a multiple of both");
  n = std::max<std::uint64_t>(n / spawn_batch, 1) * spawn_batch;
  const int reps = 5;
  res.n = n;
  res.reps = reps;

  event_cost_run run;
  run.n = n;
  run.batches = n / spawn_batch;
  run.nests = n / nest_depth;
  run.reps = reps;
  run.reads = count_clock_reads(site_profiles);
  const std::uint64_t diag_before = g_diagnostics.load();
  token_buffer buf(std::max(spawn_batch, nest_depth));
  run.tk = buf.mem;
  run.rows = &res.rows;

  fs::report rep = fs::measure(
      "event_cost", [&] { run.all(); }, bench_options(true, site_profiles));

  res.clock = fs::to_string(rep.clock);
  res.compensation_per_strand_ns = rep.compensation_per_strand;
  res.diagnostics = g_diagnostics.load() - diag_before;
  for (const auto& r : res.rows)
    if (r.name == "clock_read_tsc") res.tsc_read_ns = r.ns;
  return res;
}

// The event costs with site profiles on and off, measured in the same process in
// alternating whole runs (on, off, off, on, on, off, ...) so that a change in the
// machine's load falls on both; each row keeps its best run.
struct event_cost_pair {
  event_cost_result on, off;
};

void keep_best(event_cost_result& into, const event_cost_result& r) {
  into.rounds += 1;
  into.diagnostics += r.diagnostics;
  for (auto& row : into.rows)
    for (const auto& other : r.rows)
      if (other.name == row.name && other.ns < row.ns) row = other;
  for (const auto& row : into.rows)
    if (row.name == "clock_read_tsc") into.tsc_read_ns = row.ns;
}

event_cost_pair run_event_costs(const config& cfg) {
  const int rounds = cfg.quick ? 1 : 3;
  event_cost_pair p;
  bool have_on = false, have_off = false;
  auto one = [&](bool profiles) {
    event_cost_result r = run_event_cost(cfg, profiles);
    event_cost_result& into = profiles ? p.on : p.off;
    bool& have = profiles ? have_on : have_off;
    if (!have) {
      into = std::move(r);
      have = true;
    } else {
      keep_best(into, r);
    }
  };
  for (int i = 0; i < rounds; ++i) {
    const bool on_first = i % 2 == 0;
    one(on_first);
    one(!on_first);
  }
  return p;
}

// ---- what-if -------------------------------------------------------------------
// What the what-if analysis adds to every event while 8 regions × 5 factors are
// active: a spawn + child + call_site + sync cycle, measured with every strand
// inside 8 nested what-if regions (each path value then carries (8 + 1) × 5
// offsets, copied at each spawn and merged at each join), against the same cycle
// with no region entered. Runs alternate (none, active, active, none, ...); each
// keeps its best of 5 repetitions. Also the cost of entering and leaving one
// region (the guard reads the clock twice).
struct what_if_result_row {
  double none_ns = 0, active_ns = 0, guard_ns = 0;
  std::uint64_t n = 0;
  int rounds = 0;
};

template <int Depth>
struct nested_regions {
  static void run(const std::function<void()>& body) {
    static const char* const tags[8] = {"wi0", "wi1", "wi2", "wi3", "wi4", "wi5", "wi6", "wi7"};
    fs::what_if_region r(tags[Depth - 1]);
    nested_regions<Depth - 1>::run(body);
  }
};
template <>
struct nested_regions<0> {
  static void run(const std::function<void()>& body) { body(); }
};

what_if_result_row run_what_if_cost(const config& cfg) {
  what_if_result_row res;
  std::uint64_t n = cfg.quick ? 50'000 : 1'000'000;
  if (BENCH_SANITIZED && cfg.quick) n = 10'000;
  res.n = n;
  const int reps = 5, rounds = cfg.quick ? 1 : 3;
  res.rounds = rounds;
  const double inf = std::numeric_limits<double>::infinity();
  auto cycle_loop = [&]() {
    const std::uint64_t t0 = now_ns();
    for (std::uint64_t i = 0; i < n; ++i) {
      {
        fs::spawn_token tk = fs::spawn_point();
        fs::spawn_scope c(std::move(tk));
        fs::call_site cs;
        barrier();
      }
      fs::sync_point sp;
    }
    return now_ns() - t0;
  };
  fs::options o = bench_options(true, true);
  o.what_if.factors = {2, 4, 8, 16, inf};
  o.what_if.read_environment = false;
  double none = inf, active = inf, guard = inf;
  for (int round = 0; round < 2 * rounds; ++round) {
    const bool with_regions = (round % 4 == 1) || (round % 4 == 2);
    fs::measure(
        "what_if_cost",
        [&] {
          if (with_regions) {
            nested_regions<8>::run([&] {
              for (int r = 0; r < reps; ++r) active = std::min(active, static_cast<double>(cycle_loop()) / n);
            });
            // One region entered and left, inside the 8 (every strand is in regions).
            nested_regions<8>::run([&] {
              for (int r = 0; r < reps; ++r) {
                const std::uint64_t t0 = now_ns();
                for (std::uint64_t i = 0; i < n; ++i) {
                  fs::what_if_region g("wi-guard");
                  barrier();
                }
                guard = std::min(guard, static_cast<double>(now_ns() - t0) / n);
              }
            });
          } else {
            for (int r = 0; r < reps; ++r) none = std::min(none, static_cast<double>(cycle_loop()) / n);
          }
        },
        o);
  }
  res.none_ns = none;
  res.active_ns = active;
  res.guard_ns = guard;
  return res;
}

void what_if_json(json_out& j, const what_if_result_row& r, double clock_read_ns) {
  j.begin_object("what_if");
  j.kv("what",
       "ns per spawn + child + call_site + sync cycle: every strand inside 8 nested what-if regions "
       "with 5 factors (2, 4, 8, 16, inf), against no region entered; best of 5 repetitions in each "
       "of `rounds` alternating runs, loop overhead not subtracted");
  j.kv("n", r.n);
  j.kv("rounds", r.rounds);
  j.kv("regions", 8);
  j.kv("factors", 5);
  j.kv("cycle_none_ns", r.none_ns);
  j.kv("cycle_active_ns", r.active_ns);
  j.kv("ratio", r.none_ns > 0 ? r.active_ns / r.none_ns : 0.0);
  j.kv("goal", "ratio <= 2");
  j.kv("goal_met", r.none_ns > 0 && r.active_ns / r.none_ns <= 2.0);
  j.kv("region_enter_leave_ns", r.guard_ns);
  j.kv("region_enter_leave_vs_clock_read", clock_read_ns > 0 ? r.guard_ns / clock_read_ns : 0.0);
  j.end_object();
}

void event_cost_json(json_out& j, const event_cost_result& r) {
  j.begin_object("event_cost");
  j.kv("n", r.n);
  j.kv("repetitions", r.reps);
  j.kv("rounds", r.rounds);
  j.kv("site_profiles", r.site_profiles);
  j.kv("statistic",
       "best of repetitions (in each of `rounds` whole runs, alternating with site profiles "
       "off); empty-loop overhead of the same structure subtracted");
  j.kv("spawn_batch", static_cast<std::uint64_t>(spawn_batch));
  j.kv("nest_depth", static_cast<std::uint64_t>(nest_depth));
  j.kv("clock", r.clock);
  j.kv("compensate", true);
  j.kv("compensation_per_strand_ns", r.compensation_per_strand_ns);
  j.kv("goal", "each event <= 2.5 x one TSC read");
  j.kv("clock_read_ns", r.tsc_read_ns);
  j.kv("diagnostics", r.diagnostics);
  j.begin_object("events");
  for (const auto& row : r.rows) {
    j.begin_object(row.name.c_str());
    j.kv("what", row.what);
    j.kv("role", row.role);
    j.kv("ns", row.ns);
    j.kv("ratio_to_clock_read", r.tsc_read_ns > 0 ? row.ns / r.tsc_read_ns : 0.0);
    if (row.role != "reference") j.kv("goal_met", row.ns <= 2.5 * r.tsc_read_ns);
    j.kv("clock_reads", row.clock_reads);
    if (row.role != "reference") j.kv("ns_beyond_clock_reads", row.ns - row.clock_reads * r.tsc_read_ns);
    j.kv("raw_ns", row.raw_ns);
    j.kv("loop_overhead_ns", row.overhead_ns);
    j.end_object();
  }
  j.end_object();
  j.end_object();
}

// ============================================================================
// 2. memory
// ============================================================================

struct mem_numbers {
  std::uint64_t baseline_bytes = 0;  // pool size before the case (fresh process: 0)
  std::uint64_t reserved_bytes = 0;  // the join-set pool's reserved bytes after the run
  std::uint64_t profiler_bytes = 0;  // report.profiler_bytes
  std::uint64_t spawns = 0;
  std::uint64_t syncs = 0;
  std::uint64_t diagnostics = 0;
  std::uint64_t max_rss_kb = 0;
  std::int64_t value = 0;  // fib's result, or tasks run
  double elapsed_ms = 0;
};

struct mem_case {
  std::string name;   // e.g. "tasks_inline"
  std::string shape;  // tasks_inline, tasks_2_threads, fib
  std::uint64_t size = 0;
  bool ok = false;
  std::string error;
  mem_numbers m;
};

long fib(int n) {
  if (n < 2) return n;
  long x = 0, y = 0;
  fs::spawn([&] { x = fib(n - 1); })();
  {
    fs::call_site cs;
    y = fib(n - 2);
  }
  { fs::sync_point sp; }
  return x + y;
}

mem_numbers mem_tasks_inline(std::uint64_t count) {
  mem_numbers m;
  std::uint64_t ran = 0;
  m.baseline_bytes = fs::detail::object_pool<fs::detail::join_set>::instance().reserved_bytes();
  const std::uint64_t t0 = now_ns();
  fs::report r = fs::measure(
      "tasks_inline",
      [&] {
        for (std::uint64_t i = 0; i < count; ++i)
          fs::spawn([&] {
            ++ran;
            barrier();
          })();
        fs::sync_point sp;
      },
      bench_options());
  m.elapsed_ms = double(now_ns() - t0) / 1e6;
  m.reserved_bytes = fs::detail::object_pool<fs::detail::join_set>::instance().reserved_bytes();
  m.profiler_bytes = r.profiler_bytes;
  m.spawns = r.spawns();
  m.syncs = r.syncs();
  m.diagnostics = r.diagnostic_count;
  m.value = static_cast<std::int64_t>(ran);
  return m;
}

struct tiny_task {
  std::atomic<std::uint64_t>* ran;
  void operator()() const { ran->fetch_add(1, std::memory_order_relaxed); }
};
using spawned_tiny = decltype(fs::spawn(std::declval<tiny_task>()));

mem_numbers mem_tasks_threads(std::uint64_t count) {
  mem_numbers m;
  std::atomic<std::uint64_t> ran{0};
  m.baseline_bytes = fs::detail::object_pool<fs::detail::join_set>::instance().reserved_bytes();
  const std::uint64_t t0 = now_ns();
  fs::report r = fs::measure(
      "tasks_2_threads",
      [&] {
        std::mutex mu;
        std::condition_variable cv;
        std::deque<spawned_tiny> queue;
        bool done = false;
        auto worker = [&] {
          for (;;) {
            std::unique_lock<std::mutex> lk(mu);
            cv.wait(lk, [&] { return done || !queue.empty(); });
            if (queue.empty()) return;  // done and drained
            spawned_tiny t = std::move(queue.front());
            queue.pop_front();
            lk.unlock();
            t();
          }
        };
        std::thread w0(worker), w1(worker);
        for (std::uint64_t i = 0; i < count; ++i) {
          spawned_tiny t = fs::spawn(tiny_task{&ran});
          {
            std::lock_guard<std::mutex> g(mu);
            queue.push_back(std::move(t));
          }
          cv.notify_one();
        }
        fs::sync_point sp;
        {
          std::lock_guard<std::mutex> g(mu);
          done = true;
        }
        cv.notify_all();
        w0.join();
        w1.join();
      },
      bench_options());
  m.elapsed_ms = double(now_ns() - t0) / 1e6;
  m.reserved_bytes = fs::detail::object_pool<fs::detail::join_set>::instance().reserved_bytes();
  m.profiler_bytes = r.profiler_bytes;
  m.spawns = r.spawns();
  m.syncs = r.syncs();
  m.diagnostics = r.diagnostic_count;
  m.value = static_cast<std::int64_t>(ran.load());
  return m;
}

mem_numbers mem_fib(int n, bool site_profiles) {
  mem_numbers m;
  long v = 0;
  m.baseline_bytes = fs::detail::object_pool<fs::detail::join_set>::instance().reserved_bytes();
  const std::uint64_t t0 = now_ns();
  fs::report r = fs::measure(
      "fib", [&] { v = fib(n); }, bench_options(true, site_profiles));
  m.elapsed_ms = double(now_ns() - t0) / 1e6;
  m.reserved_bytes = fs::detail::object_pool<fs::detail::join_set>::instance().reserved_bytes();
  m.profiler_bytes = r.profiler_bytes;
  m.spawns = r.spawns();
  m.syncs = r.syncs();
  m.diagnostics = r.diagnostic_count;
  m.value = v;
  return m;
}

bool write_all(int fd, const void* p, std::size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n) {
    const ssize_t w = ::write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}
std::size_t read_all(int fd, void* p, std::size_t n) {
  char* c = static_cast<char*>(p);
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, c + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

// Runs fn() in a fresh child process (fork) and brings its numbers back over a pipe.
template <class Fn>
void run_isolated(mem_case& c, Fn fn) {
  std::fflush(stdout);
  std::fflush(stderr);
  int p[2];
  if (::pipe(p) != 0) {
    c.error = std::string("pipe: ") + std::strerror(errno);
    return;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    c.error = std::string("fork: ") + std::strerror(errno);
    ::close(p[0]);
    ::close(p[1]);
    return;
  }
  if (pid == 0) {
    ::close(p[0]);
    int code = 0;
    try {
      mem_numbers m = fn();
      rusage ru{};
      if (::getrusage(RUSAGE_SELF, &ru) == 0) m.max_rss_kb = static_cast<std::uint64_t>(ru.ru_maxrss);
      if (!write_all(p[1], &m, sizeof m)) code = 4;
    } catch (...) {
      code = 3;
    }
    ::close(p[1]);
    ::_exit(code);
  }
  ::close(p[1]);
  mem_numbers m;
  const std::size_t got = read_all(p[0], &m, sizeof m);
  ::close(p[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    c.error = fmt("child process killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    c.error = fmt("child process exited with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  } else if (got != sizeof m) {
    c.error = "child process sent incomplete results";
  } else {
    c.ok = true;
    c.m = m;
  }
}

struct memory_result {
  std::vector<mem_case> cases;
  std::uint64_t tasks_small = 0, tasks_big = 0;
  int fib_small = 0, fib_big = 0;
};

memory_result run_memory(const config& cfg) {
  memory_result res;
  res.tasks_small = cfg.quick ? 10'000 : 100'000;
  res.tasks_big = cfg.quick ? 100'000 : 1'000'000;
  res.fib_small = cfg.quick ? 15 : 20;
  res.fib_big = cfg.quick ? 20 : 27;
  auto add = [&](const std::string& shape, std::uint64_t size, auto fn) {
    mem_case c;
    c.shape = shape;
    c.size = size;
    c.name = shape + "(" + std::to_string(size) + ")";
    run_isolated(c, fn);
    res.cases.push_back(std::move(c));
  };
  for (std::uint64_t n : {res.tasks_small, res.tasks_big}) add("tasks_inline", n, [n] { return mem_tasks_inline(n); });
  for (std::uint64_t n : {res.tasks_small, res.tasks_big})
    add("tasks_2_threads", n, [n] { return mem_tasks_threads(n); });
  for (int n : {res.fib_small, res.fib_big})
    add("fib", static_cast<std::uint64_t>(n), [n] { return mem_fib(n, true); });
  // The same with options.site_profiles = false: what the profiles hold.
  for (int n : {res.fib_small, res.fib_big})
    add("fib_no_profiles", static_cast<std::uint64_t>(n), [n] { return mem_fib(n, false); });
  return res;
}

const mem_case* find_case(const memory_result& r, const std::string& shape, std::uint64_t size) {
  for (const auto& c : r.cases)
    if (c.shape == shape && c.size == size) return &c;
  return nullptr;
}

// One memory case.
void memory_case_json(json_out& j, const mem_case& c) {
  j.begin_object();
  j.kv("name", c.name);
  j.kv("shape", c.shape);
  const bool is_fib = c.shape.rfind("fib", 0) == 0;
  j.kv(is_fib ? "n" : "tasks", c.size);
  j.kv("site_profiles", c.shape != "fib_no_profiles");
  j.kv("ok", c.ok);
  if (!c.ok) {
    j.kv("error", c.error);
  } else {
    j.kv("engine_reserved_bytes", c.m.reserved_bytes);
    j.kv("baseline_reserved_bytes", c.m.baseline_bytes);
    j.kv("profiler_bytes", c.m.profiler_bytes);
    j.kv("spawns", c.m.spawns);
    j.kv("syncs", c.m.syncs);
    j.kv(is_fib ? "fib_value" : "tasks_run", c.m.value);
    j.kv("diagnostics", c.m.diagnostics);
    j.kv("max_rss_kb", c.m.max_rss_kb);
    j.kv("elapsed_ms", c.m.elapsed_ms);
  }
  j.end_object();
}

void memory_json(json_out& j, const memory_result& r) {
  j.begin_object("memory");
  j.kv("isolation", "each case runs in a fresh child process (fork + pipe)");
  j.kv("join_set_bytes", static_cast<std::uint64_t>(sizeof(fs::detail::join_set)));
  j.kv("pool_batch", static_cast<std::uint64_t>(fs::detail::object_pool<fs::detail::join_set>::batch));
  j.kv("goal", "engine memory does not grow with the number of tasks (big/small ratio ~1)");
  j.begin_array("cases");
  for (const auto& c : r.cases) memory_case_json(j, c);
  j.end_array();

  j.begin_object("big_over_small");
  auto ratio = [&](const char* key, const std::string& shape, std::uint64_t small, std::uint64_t big) {
    const mem_case* a = find_case(r, shape, small);
    const mem_case* b = find_case(r, shape, big);
    j.begin_object(key);
    j.kv("small", small);
    j.kv("big", big);
    if (a && b && a->ok && b->ok && a->m.reserved_bytes > 0 && a->m.profiler_bytes > 0) {
      const double rr = double(b->m.reserved_bytes) / double(a->m.reserved_bytes);
      j.kv("task_count_ratio", b->m.spawns && a->m.spawns ? double(b->m.spawns) / double(a->m.spawns) : 0.0);
      j.kv("engine_reserved_bytes_ratio", rr);
      j.kv("profiler_bytes_ratio", double(b->m.profiler_bytes) / double(a->m.profiler_bytes));
      j.kv("max_rss_ratio", a->m.max_rss_kb ? double(b->m.max_rss_kb) / double(a->m.max_rss_kb) : 0.0);
      j.kv("goal_met", rr <= 1.0 + 1e-9);
    } else {
      j.null("engine_reserved_bytes_ratio");
      j.null("goal_met");
    }
    j.end_object();
  };
  ratio("tasks_inline", "tasks_inline", r.tasks_small, r.tasks_big);
  ratio("tasks_2_threads", "tasks_2_threads", r.tasks_small, r.tasks_big);
  ratio("fib", "fib", static_cast<std::uint64_t>(r.fib_small), static_cast<std::uint64_t>(r.fib_big));
  ratio("fib_no_profiles", "fib_no_profiles", static_cast<std::uint64_t>(r.fib_small),
        static_cast<std::uint64_t>(r.fib_big));
  j.end_object();
  j.end_object();
}

// ============================================================================
// 3. accuracy
// ============================================================================

struct truth {
  std::uint64_t work = 0;
  std::uint64_t span = 0;
  std::uint64_t strands = 0;  // spun strands
};

struct run_numbers {
  truth t;
  std::uint64_t work = 0, span = 0, raw_work = 0, raw_span = 0;
  double comp_ns = 0;
  std::uint64_t spawns = 0, syncs = 0, diagnostics = 0;
  std::uint64_t involuntary_switches = 0;  // the process was preempted this often during the run
};

std::uint64_t involuntary_switches() {
  rusage ru{};
  if (::getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return static_cast<std::uint64_t>(ru.ru_nivcsw);
}

void empty_task() {}

// A chain of `strands` spins separated alternately by a spawn of an empty task (run
// inline) and by a sync.
run_numbers run_serial(std::uint64_t grain, std::uint64_t strands, bool compensate) {
  run_numbers out;
  std::uint64_t w = 0;
  const std::uint64_t switches = involuntary_switches();
  fs::report r = fs::measure(
      "serial",
      [&] {
        for (std::uint64_t s = 0; s < strands; ++s) {
          w += spin(grain);
          if (s + 1 == strands) break;
          if (s % 2 == 0) {
            fs::spawn(empty_task)();
          } else {
            fs::sync_point sp;
          }
        }
      },
      bench_options(compensate));
  out.t.work = w;
  out.t.span = w;
  out.t.strands = strands;
  out.work = r.work();
  out.span = r.span();
  out.raw_work = r.regions[0].raw_work;
  out.raw_span = r.regions[0].raw_span;
  out.comp_ns = r.compensation_per_strand;
  out.spawns = r.spawns();
  out.syncs = r.syncs();
  out.diagnostics = r.diagnostic_count;
  out.involuntary_switches = involuntary_switches() - switches;
  return out;
}

// A child of the fork-join shape: `m` spins separated by syncs (with nothing to join).
struct child_body {
  std::uint64_t m;
  std::uint64_t grain;
  std::uint64_t* out;
  void operator()() const {
    std::uint64_t sum = 0;
    for (std::uint64_t j = 0; j < m; ++j) {
      sum += spin(grain);
      if (j + 1 < m) {
        fs::sync_point sp;
      }
    }
    *out = sum;
  }
};
using spawned_child = decltype(fs::spawn(std::declval<fs::task_group&>(), std::declval<child_body>()));

// `rounds` times: the parent spins one strand, spawns k children (each m spins)
// into a task group, and joins them while two std::threads run them (children
// 0,2,4.. on one, 1,3,5.. on the other). A last parent strand follows. The true
// span follows the dag: per round, the parent strand plus the longest child (the
// parent's strands between spawns are empty).
run_numbers run_fork_join(std::uint64_t grain, std::uint64_t rounds, std::uint64_t k, std::uint64_t m,
                          bool compensate) {
  run_numbers out;
  std::vector<std::uint64_t> child_true(k, 0);
  std::vector<spawned_child> tasks;
  tasks.reserve(k);
  truth t;
  const std::uint64_t switches = involuntary_switches();
  fs::report r = fs::measure(
      "fork_join",
      [&] {
        for (std::uint64_t round = 0; round < rounds; ++round) {
          const std::uint64_t p = spin(grain);
          fs::task_group tg;
          for (std::uint64_t c = 0; c < k; ++c) tasks.push_back(fs::spawn(tg, child_body{m, grain, &child_true[c]}));
          {
            fs::sync_point sp(tg);
            auto run = [&](std::uint64_t first) {
              for (std::uint64_t c = first; c < k; c += 2) tasks[c]();
            };
            std::thread a(run, 0), b(run, 1);
            a.join();
            b.join();
          }
          tasks.clear();
          std::uint64_t longest = 0;
          for (std::uint64_t c = 0; c < k; ++c) {
            t.work += child_true[c];
            longest = std::max(longest, child_true[c]);
          }
          t.work += p;
          t.span += p + longest;
        }
        const std::uint64_t p = spin(grain);
        t.work += p;
        t.span += p;
      },
      bench_options(compensate));
  t.strands = rounds * (1 + k * m) + 1;
  out.t = t;
  out.work = r.work();
  out.span = r.span();
  out.raw_work = r.regions[0].raw_work;
  out.raw_span = r.regions[0].raw_span;
  out.comp_ns = r.compensation_per_strand;
  out.spawns = r.spawns();
  out.syncs = r.syncs();
  out.diagnostics = r.diagnostic_count;
  out.involuntary_switches = involuntary_switches() - switches;
  return out;
}

struct accuracy_row {
  std::string grain_name;
  std::uint64_t grain = 0;
  std::string shape;
  bool compensate = true;
  double tolerance = 0;
  std::string params;
  std::vector<run_numbers> runs;
  double work_ratio = 0, span_ratio = 0;  // medians over runs
  double work_ratio_min = 0, work_ratio_max = 0, span_ratio_min = 0, span_ratio_max = 0;
  bool goal_met = false;
};

struct accuracy_result {
  int reps = 0;
  std::vector<accuracy_row> rows;
  // How much longer a spin really is than its own steady_clock measurement says
  // (the part of the bracketing clock reads that falls outside them, call overhead):
  // the median of TSC-bracketed spins, per grain. Not forkscale's error.
  double truth_gap_fine_ns = 0, truth_gap_coarse_ns = 0;
};

double truth_gap_ns(std::uint64_t grain, int samples) {
  const double ns_per_tick = fs::detail::tsc_ns_per_tick();
  std::vector<double> gap;
  for (int i = 0; i < samples; ++i) {
    const std::uint64_t a = fs::detail::tsc_ticks();
    const std::uint64_t d = spin(grain);
    const std::uint64_t b = fs::detail::tsc_ticks();
    gap.push_back(double(b - a) * ns_per_tick - double(d));
  }
  return median(gap);
}

accuracy_result run_accuracy(const config& cfg) {
  accuracy_result res;
  const int reps = cfg.quick ? 1 : 5;
  res.reps = reps;
  res.truth_gap_fine_ns = truth_gap_ns(1'000, cfg.quick ? 200 : 2000);
  res.truth_gap_coarse_ns = truth_gap_ns(100'000, cfg.quick ? 10 : 50);
  struct grain_cfg {
    const char* name;
    std::uint64_t ns;
    double tol;
    std::uint64_t serial_strands, rounds, k, m;
  };
  const grain_cfg grains[] = {
      {"coarse", 100'000, 0.05, cfg.quick ? 40u : 200u, cfg.quick ? 2u : 10u, 4, 5},
      {"fine", 1'000, 0.25, cfg.quick ? 4000u : 20000u, cfg.quick ? 40u : 200u, 8, 10},
  };
  for (const auto& g : grains) {
    for (const char* shape : {"serial", "fork_join_2_threads"}) {
      for (bool comp : {true, false}) {
        accuracy_row row;
        row.grain_name = g.name;
        row.grain = g.ns;
        row.shape = shape;
        row.compensate = comp;
        row.tolerance = g.tol;
        const bool serial = std::string(shape) == "serial";
        row.params = serial
                         ? fmt("%" PRIu64 " strands", g.serial_strands)
                         : fmt("%" PRIu64 " rounds x %" PRIu64 " children x %" PRIu64 " strands", g.rounds, g.k, g.m);
        std::vector<double> wr, sr;
        for (int rep = 0; rep < reps; ++rep) {
          run_numbers n =
              serial ? run_serial(g.ns, g.serial_strands, comp) : run_fork_join(g.ns, g.rounds, g.k, g.m, comp);
          wr.push_back(n.t.work ? double(n.work) / double(n.t.work) : 0.0);
          sr.push_back(n.t.span ? double(n.span) / double(n.t.span) : 0.0);
          row.runs.push_back(n);
        }
        row.work_ratio = median(wr);
        row.span_ratio = median(sr);
        row.work_ratio_min = *std::min_element(wr.begin(), wr.end());
        row.work_ratio_max = *std::max_element(wr.begin(), wr.end());
        row.span_ratio_min = *std::min_element(sr.begin(), sr.end());
        row.span_ratio_max = *std::max_element(sr.begin(), sr.end());
        row.goal_met = std::fabs(row.work_ratio - 1.0) <= g.tol && std::fabs(row.span_ratio - 1.0) <= g.tol;
        res.rows.push_back(std::move(row));
      }
    }
  }
  return res;
}

// One run of an accuracy case: the truth and what forkscale measured.
void accuracy_run_json(json_out& j, const run_numbers& n) {
  j.begin_object();
  j.kv("true_work_ns", n.t.work);
  j.kv("true_span_ns", n.t.span);
  j.kv("spun_strands", n.t.strands);
  j.kv("work_ns", n.work);
  j.kv("span_ns", n.span);
  j.kv("raw_work_ns", n.raw_work);
  j.kv("raw_span_ns", n.raw_span);
  j.kv("compensation_per_strand_ns", n.comp_ns);
  j.kv("spawns", n.spawns);
  j.kv("syncs", n.syncs);
  j.kv("diagnostics", n.diagnostics);
  j.kv("involuntary_context_switches", n.involuntary_switches);
  j.end_object();
}

void accuracy_json(json_out& j, const accuracy_result& r) {
  j.begin_object("accuracy");
  j.kv("repetitions", r.reps);
  j.kv("statistic", "median of repetitions (min and max also given)");
  j.kv("clock", "default options (automatic: the invariant TSC on x86)");
  j.kv("truth",
       "each strand is a busy-wait on steady_clock timed by this program; true span "
       "follows the dag from those timings");
  j.kv("goal", "|measured/true - 1| <= 0.05 for coarse (100 us) strands, <= 0.25 for fine (1 us)");
  j.begin_object("truth_measurement_gap");
  j.kv("what",
       "median of (TSC-bracketed spin - the spin's own steady_clock duration): time a strand "
       "really spends beyond its 'true' length, from the truth measurement itself");
  j.kv("fine_ns", r.truth_gap_fine_ns);
  j.kv("coarse_ns", r.truth_gap_coarse_ns);
  j.end_object();
  j.begin_array("cases");
  for (const auto& a : r.rows) {
    j.begin_object();
    j.kv("name", a.grain_name + "_" + a.shape + (a.compensate ? "_compensated" : "_uncompensated"));
    j.kv("grain", a.grain_name);
    j.kv("strand_ns", a.grain);
    j.kv("shape", a.shape);
    j.kv("compensate", a.compensate);
    j.kv("params", a.params);
    j.kv("tolerance", a.tolerance);
    j.kv("work_ratio", a.work_ratio);
    j.kv("span_ratio", a.span_ratio);
    j.kv("work_ratio_min", a.work_ratio_min);
    j.kv("work_ratio_max", a.work_ratio_max);
    j.kv("span_ratio_min", a.span_ratio_min);
    j.kv("span_ratio_max", a.span_ratio_max);
    j.kv("goal_met", a.goal_met);
    j.begin_array("runs");
    for (const auto& n : a.runs) accuracy_run_json(j, n);
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

// ============================================================================
// 4. site_profiles: the cost of the per-site profiles (options.site_profiles)
// ============================================================================

// The events compared with profiles on and off, in the order printed.
const char* const profile_events[] = {"spawn_point", "child_open", "child_close", "child_scope",
                                      "sync_point",  "call_site",  "spawn",       "spawn_wrapper"};
constexpr double profile_event_goal = 1.5;    // on/off per event
constexpr double profile_memory_goal = 0.10;  // |big/small - 1| for fib with profiles on

const event_row* find_row(const event_cost_result& r, const std::string& name) {
  for (const auto& row : r.rows)
    if (row.name == name) return &row;
  return nullptr;
}

// on/off, or NaN (written as null) when the off cost is not positive.
double on_off_ratio(double on, double off) { return off > 0 ? on / off : std::numeric_limits<double>::quiet_NaN(); }

struct memory_pair {
  const mem_case* small = nullptr;
  const mem_case* big = nullptr;
  bool ok() const { return small && big && small->ok && big->ok; }
  double bytes_ratio() const {
    return ok() && small->m.profiler_bytes ? double(big->m.profiler_bytes) / double(small->m.profiler_bytes)
                                           : std::numeric_limits<double>::quiet_NaN();
  }
  double rss_ratio() const {
    return ok() && small->m.max_rss_kb ? double(big->m.max_rss_kb) / double(small->m.max_rss_kb)
                                       : std::numeric_limits<double>::quiet_NaN();
  }
};

memory_pair fib_pair(const memory_result& mem, const std::string& shape) {
  return {find_case(mem, shape, static_cast<std::uint64_t>(mem.fib_small)),
          find_case(mem, shape, static_cast<std::uint64_t>(mem.fib_big))};
}

// call_site: with profiles on it reads the clock when it opens and when it
// closes; with profiles off it reads none, so its on/off ratio compares two clock
// reads with almost nothing. Its absolute cost against one clock read says more.
void call_site_cost_json(json_out& j, const event_cost_pair& ev, const event_row& on) {
  const event_row* off = find_row(ev.off, "call_site");
  j.begin_object("call_site");
  j.kv("note", "profiles on: two clock reads (open and close); off: none");
  j.kv("on_ns", on.ns);
  j.kv("off_ns", off ? off->ns : 0.0);
  j.kv("clock_read_ns", ev.on.tsc_read_ns);
  j.kv("on_clock_reads", on.clock_reads);
  j.kv("off_clock_reads", off ? off->clock_reads : -1.0);
  j.kv("on_ratio_to_clock_read", ev.on.tsc_read_ns > 0 ? on.ns / ev.on.tsc_read_ns : 0.0);
  j.kv("on_ns_beyond_clock_reads", on.ns - on.clock_reads * ev.on.tsc_read_ns);
  j.end_object();
}

// profiler_bytes and peak RSS of fib at two sizes, with profiles on and off.
void profile_memory_json(json_out& j, const memory_result& mem) {
  j.begin_object("memory");
  j.kv("goal", "report.profiler_bytes for fib(small) and fib(big) with profiles on differ by under 10%");
  j.kv("fib_small", mem.fib_small);
  j.kv("fib_big", mem.fib_big);
  for (const char* shape : {"fib", "fib_no_profiles"}) {
    const memory_pair p = fib_pair(mem, shape);
    j.begin_object(std::string(shape) == "fib" ? "profiles_on" : "profiles_off");
    j.kv("site_profiles", std::string(shape) == "fib");
    j.kv("ok", p.ok());
    if (p.ok()) {
      j.kv("small_spawns", p.small->m.spawns);
      j.kv("big_spawns", p.big->m.spawns);
      j.kv("small_profiler_bytes", p.small->m.profiler_bytes);
      j.kv("big_profiler_bytes", p.big->m.profiler_bytes);
      j.kv("profiler_bytes_ratio", p.bytes_ratio());
      j.kv("small_max_rss_kb", p.small->m.max_rss_kb);
      j.kv("big_max_rss_kb", p.big->m.max_rss_kb);
      j.kv("max_rss_ratio", p.rss_ratio());
    }
    j.end_object();
  }
  const memory_pair on = fib_pair(mem, "fib");
  const double br = on.bytes_ratio();
  if (std::isfinite(br)) {
    j.kv("goal_met", std::fabs(br - 1.0) < profile_memory_goal);
  } else {
    j.null("goal_met");
  }
  const memory_pair off = fib_pair(mem, "fib_no_profiles");
  if (on.ok() && off.ok() && off.big->m.profiler_bytes) {
    j.kv("big_on_over_off_profiler_bytes", double(on.big->m.profiler_bytes) / double(off.big->m.profiler_bytes));
  }
  j.end_object();
}

void site_profiles_json(json_out& j, const event_cost_pair& ev, const memory_result& mem) {
  j.begin_object("site_profiles");
  j.kv("what",
       "the same events as event_cost with options.site_profiles on (the default) and off, "
       "measured in the same process in alternating whole runs");
  j.kv("goal", "the profile adds at most 1.5x to the engine-only cost per event (on_ns / off_ns <= 1.5)");
  j.kv("rounds", ev.on.rounds);
  j.kv("clock_read_ns", ev.on.tsc_read_ns);
  j.kv("clock_read_ns_profiles_off_runs", ev.off.tsc_read_ns);
  j.begin_object("events");
  int met = 0, compared = 0;
  for (const char* name : profile_events) {
    const event_row* on = find_row(ev.on, name);
    const event_row* off = find_row(ev.off, name);
    if (!on || !off) continue;
    j.begin_object(name);
    j.kv("on_ns", on->ns);
    j.kv("off_ns", off->ns);
    const double ratio = on_off_ratio(on->ns, off->ns);
    j.kv("ratio", ratio);
    j.kv("added_ns", on->ns - off->ns);
    j.kv("on_clock_reads", on->clock_reads);
    j.kv("off_clock_reads", off->clock_reads);
    const bool ok = std::isfinite(ratio) && ratio <= profile_event_goal;
    j.kv("goal_met", ok);
    ++compared;
    met += ok ? 1 : 0;
    j.end_object();
  }
  j.end_object();
  j.kv("events_meeting_goal", met);
  j.kv("events_compared", compared);
  if (const event_row* on = find_row(ev.on, "call_site")) call_site_cost_json(j, ev, *on);
  profile_memory_json(j, mem);
  j.end_object();
}

// ============================================================================
// Output
// ============================================================================

std::string human_bytes(std::uint64_t b) {
  if (b >= (1u << 20)) return fmt("%.2f MiB", double(b) / (1 << 20));
  if (b >= 1024) return fmt("%.1f KiB", double(b) / 1024);
  return fmt("%" PRIu64 " B", b);
}

void print_summary(const config& cfg, const std::string& loadavg, const event_cost_pair& evp, const memory_result& mem,
                   const accuracy_result& acc, const std::string& model, unsigned cpus) {
  const event_cost_result& ev = evp.on;
  std::printf("forkscale engine benchmark (%s)\n", cfg.quick ? "quick" : "full");
  std::printf("  machine: %s, %u cpu(s), load %s; %s%s; clock %s, %.5f ns/tick\n", model.c_str(), cpus,
              loadavg.substr(0, 14).c_str(), compiler_string().c_str(),
              std::string(sanitizer_name()) == "none" ? "" : (std::string(", sanitizer ") + sanitizer_name()).c_str(),
              ev.clock.c_str(), fs::detail::tsc_ns_per_tick());

  std::printf("\n1) event cost  (site profiles on; N=%" PRIu64
              ", best of %d x %d run(s), loop overhead subtracted; "
              "compensation %.2f ns/strand)\n",
              ev.n, ev.reps, ev.rounds, ev.compensation_per_strand_ns);
  std::printf("  %-18s %9s %10s %11s %10s\n", "event", "ns", "x clock", "clock reads", "<=2.5x");
  for (const auto& r : ev.rows) {
    const double ratio = ev.tsc_read_ns > 0 ? r.ns / ev.tsc_read_ns : 0;
    std::printf("  %-18s %9.2f %10.2f %11.2g %10s\n", r.name.c_str(), r.ns, ratio, r.clock_reads,
                r.role == "reference" ? "-" : (r.ns <= 2.5 * ev.tsc_read_ns ? "yes" : "NO"));
  }
  if (ev.diagnostics) std::printf("  (forkscale reported %" PRIu64 " diagnostic(s))\n", ev.diagnostics);

  std::printf("\n2) memory  (each case in a fresh process)\n");
  std::printf("  %-24s %10s %14s %14s %12s %10s\n", "case", "spawns", "engine bytes", "profiler_bytes", "max RSS",
              "ms");
  for (const auto& c : mem.cases) {
    if (!c.ok) {
      std::printf("  %-24s FAILED: %s\n", c.name.c_str(), c.error.c_str());
      continue;
    }
    std::printf("  %-24s %10" PRIu64 " %14s %14s %12s %10.1f\n", c.name.c_str(), c.m.spawns,
                human_bytes(c.m.reserved_bytes).c_str(), human_bytes(c.m.profiler_bytes).c_str(),
                human_bytes(c.m.max_rss_kb * 1024).c_str(), c.m.elapsed_ms);
  }
  auto print_ratio = [&](const char* label, const std::string& shape, std::uint64_t a, std::uint64_t b) {
    const mem_case* x = find_case(mem, shape, a);
    const mem_case* y = find_case(mem, shape, b);
    if (!x || !y || !x->ok || !y->ok || !x->m.reserved_bytes || !x->m.spawns) {
      std::printf("  %-16s big/small: n/a\n", label);
      return;
    }
    const double rr = double(y->m.reserved_bytes) / double(x->m.reserved_bytes);
    std::printf("  %-16s big/small: tasks x%.1f, engine bytes x%.2f  -> %s\n", label,
                double(y->m.spawns) / double(x->m.spawns), rr, rr <= 1.0 + 1e-9 ? "does not grow" : "GROWS");
  };
  print_ratio("tasks_inline", "tasks_inline", mem.tasks_small, mem.tasks_big);
  print_ratio("tasks_2_threads", "tasks_2_threads", mem.tasks_small, mem.tasks_big);
  print_ratio("fib", "fib", static_cast<std::uint64_t>(mem.fib_small), static_cast<std::uint64_t>(mem.fib_big));
  print_ratio("fib_no_profiles", "fib_no_profiles", static_cast<std::uint64_t>(mem.fib_small),
              static_cast<std::uint64_t>(mem.fib_big));

  std::printf("\n3) accuracy  (measured / true; %s of %d run(s))\n", acc.reps > 1 ? "median" : "one", acc.reps);
  std::printf("  (a spin is ~%.0f ns (1 us) / ~%.0f ns (100 us) longer than its own steady_clock timing says)\n",
              acc.truth_gap_fine_ns, acc.truth_gap_coarse_ns);
  std::printf("  %-7s %-20s %-6s %-38s %8s %8s %6s %5s\n", "grain", "shape", "comp", "program", "work", "span", "tol",
              "goal");
  for (const auto& a : acc.rows) {
    std::printf("  %-7s %-20s %-6s %-38s %8.4f %8.4f %5.0f%% %5s\n", a.grain_name.c_str(), a.shape.c_str(),
                a.compensate ? "on" : "off", a.params.c_str(), a.work_ratio, a.span_ratio, a.tolerance * 100,
                a.goal_met ? "yes" : "NO");
  }
}

void print_site_profiles(const event_cost_pair& evp, const memory_result& mem) {
  const double clk = evp.on.tsc_read_ns;
  std::printf("\n4) site profiles: on (default) vs off  (same N and statistic as 1; %d alternating run(s) each)\n",
              evp.on.rounds);
  std::printf("  %-14s %9s %9s %9s %8s %8s %9s\n", "event", "on ns", "off ns", "on/off", "reads on", "reads off",
              "<=1.5x");
  for (const char* name : profile_events) {
    const event_row* on = find_row(evp.on, name);
    const event_row* off = find_row(evp.off, name);
    if (!on || !off) continue;
    const double ratio = on_off_ratio(on->ns, off->ns);
    std::printf("  %-14s %9.2f %9.2f %9s %8.2g %9.2g %9s\n", name, on->ns, off->ns,
                std::isfinite(ratio) ? fmt("%.2f", ratio).c_str() : "n/a", on->clock_reads, off->clock_reads,
                std::isfinite(ratio) && ratio <= profile_event_goal ? "yes" : "NO");
  }
  if (const event_row* cs = find_row(evp.on, "call_site")) {
    std::printf(
        "  call_site with profiles on: %.2f ns = %.2f x one clock read (%.2f ns); it reads the clock %.2g "
        "times (off: none), %.2f ns beyond those reads\n",
        cs->ns, clk > 0 ? cs->ns / clk : 0.0, clk, cs->clock_reads, cs->ns - cs->clock_reads * clk);
  }
  const memory_pair on = fib_pair(mem, "fib");
  const memory_pair off = fib_pair(mem, "fib_no_profiles");
  if (on.ok()) {
    const double br = on.bytes_ratio();
    std::printf(
        "  memory, profiles on: fib(%d) %s, fib(%d) %s profiler_bytes -> x%.3f (%s 10%%); max RSS %s -> %s "
        "(x%.3f)\n",
        mem.fib_small, human_bytes(on.small->m.profiler_bytes).c_str(), mem.fib_big,
        human_bytes(on.big->m.profiler_bytes).c_str(), br,
        std::isfinite(br) && std::fabs(br - 1.0) < profile_memory_goal ? "within" : "NOT within",
        human_bytes(on.small->m.max_rss_kb * 1024).c_str(), human_bytes(on.big->m.max_rss_kb * 1024).c_str(),
        on.rss_ratio());
  } else {
    std::printf("  memory, profiles on: n/a (a fib case failed)\n");
  }
  if (off.ok()) {
    std::printf("  memory, profiles off: fib(%d) %s, fib(%d) %s profiler_bytes; max RSS %s -> %s\n", mem.fib_small,
                human_bytes(off.small->m.profiler_bytes).c_str(), mem.fib_big,
                human_bytes(off.big->m.profiler_bytes).c_str(), human_bytes(off.small->m.max_rss_kb * 1024).c_str(),
                human_bytes(off.big->m.max_rss_kb * 1024).c_str());
  }
}

constexpr const char* usage = "usage: bench_engine [--quick] [--out FILE]";

// Fills `cfg` from the arguments; returns -1 to go on, else main's exit status.
int parse_arguments(int argc, char** argv, config& cfg) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      cfg.quick = true;
    } else if (a == "--out") {
      if (i + 1 >= argc || argv[i + 1][0] == '\0') {
        std::fprintf(stderr, "bench_engine: --out needs a file name (%s)\n", usage);
        return 2;
      }
      cfg.out = argv[++i];
    } else if (a.rfind("--out=", 0) == 0) {
      if (a.size() == 6) {
        std::fprintf(stderr, "bench_engine: --out needs a file name (%s)\n", usage);
        return 2;
      }
      cfg.out = a.substr(6);
    } else {
      return help_or_unknown_argument("bench_engine", a, usage);
    }
  }
  return -1;
}

// What the sections ran on, besides their results.
struct run_context {
  std::string model, loadavg;
  unsigned cpus = 0;
  double ns_per_tick = 0;
};

void machine_json(json_out& j, const run_context& ctx) {
  j.begin_object("machine");
  j.kv("nproc", ctx.cpus);
  j.kv("hardware_concurrency", std::thread::hardware_concurrency());
  j.kv("cpu_model", ctx.model);
  j.kv("loadavg_at_start", ctx.loadavg);
  j.kv("clocksource", read_first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource"));
  j.end_object();
}

void build_json(json_out& j) {
  j.begin_object("build");
  j.kv("cplusplus", static_cast<long long>(__cplusplus));
#if defined(__OPTIMIZE__)
  j.kv("optimized", true);
#else
  j.kv("optimized", false);
#endif
  j.kv("sanitizer", sanitizer_name());
  j.end_object();
}

void calibration_json(json_out& j, const run_context& ctx, const event_cost_result& ev) {
  j.begin_object("tsc_calibration");
  j.kv("invariant_tsc", fs::detail::invariant_tsc());
  j.kv("tsc_ns_per_tick", ctx.ns_per_tick);
  j.kv("tsc_ghz", ctx.ns_per_tick > 0 ? 1.0 / ctx.ns_per_tick : 0.0);
  j.kv("compensation_per_strand_ns", ev.compensation_per_strand_ns);
  j.end_object();
}

// The diagnostics forkscale reported during the whole benchmark (a few samples).
void diagnostics_json(json_out& j) {
  j.begin_object("diagnostics");
  j.kv("count", g_diagnostics.load());
  {
    std::lock_guard<std::mutex> g(g_diag_mutex);
    j.strings("samples", g_diag_samples);
  }
  j.end_object();
}

// The whole document.
std::string engine_json(const config& cfg, const run_context& ctx, const event_cost_pair& evp, const memory_result& mem,
                        const accuracy_result& acc, const what_if_result_row& wi) {
  const event_cost_result& ev = evp.on;
  json_out j;
  j.begin_object();
  j.kv("benchmark", "forkscale engine");
  j.kv("forkscale_version", FORKSCALE_VERSION_STRING);
  j.kv("mode", cfg.quick ? "quick" : "full");
  machine_json(j, ctx);
  j.kv("compiler", compiler_string());
  build_json(j);
  j.kv("date", utc_now());
  j.kv("clock", ev.clock);
  calibration_json(j, ctx, ev);
  event_cost_json(j, ev);
  memory_json(j, mem);
  accuracy_json(j, acc);
  site_profiles_json(j, evp, mem);
  what_if_json(j, wi, ev.tsc_read_ns);
  diagnostics_json(j);
  j.end_object();
  return j.str();
}

}  // namespace

int main(int argc, char** argv) {
  config cfg;
  const int status = parse_arguments(argc, argv, cfg);
  if (status >= 0) return status;

  run_context ctx;
  ctx.model = cpu_model();
  ctx.loadavg = read_first_line("/proc/loadavg");
  ctx.cpus = cores();
  ctx.ns_per_tick = fs::detail::tsc_ns_per_tick();

  // Memory first: its children are forked before this process has touched the
  // engine (or started a thread), so each starts with an empty pool.
  const memory_result mem = run_memory(cfg);
  const event_cost_pair evp = run_event_costs(cfg);
  const accuracy_result acc = run_accuracy(cfg);
  const what_if_result_row wi = run_what_if_cost(cfg);

  const std::string json_text = engine_json(cfg, ctx, evp, mem, acc, wi);

  print_summary(cfg, ctx.loadavg, evp, mem, acc, ctx.model, ctx.cpus);
  print_site_profiles(evp, mem);
  std::printf(
      "\nwhat-if: spawn+child+call+sync cycle %.2f ns with 8 regions x 5 factors active, %.2f ns with "
      "none (%.2fx; goal <= 2x); entering and leaving a region %.2f ns\n",
      wi.active_ns, wi.none_ns, wi.none_ns > 0 ? wi.active_ns / wi.none_ns : 0.0, wi.guard_ns);

  std::string err;
  if (!write_results_file(cfg.out, json_text, err)) {
    std::fprintf(stderr, "bench_engine: %s\n", err.c_str());
    return 1;
  }
  std::printf("\nwrote %s\n", cfg.out.c_str());

  bool failed = false;
  for (const auto& c : mem.cases)
    if (!c.ok) failed = true;
  if (failed) {
    std::fprintf(stderr, "bench_engine: a memory case failed (see %s)\n", cfg.out.c_str());
    return 1;
  }
  return 0;
}
