// detail/engine/session.hpp: one measurement — its clock, burden and
// compensation, its labeled regions, its per-thread tables, and the misuse found.
// The event path touches it only through plain reads of its constants and the
// calling thread's own table.
#pragma once
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../../backend.hpp"
#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../report.hpp"
#include "../../site.hpp"
#include "../macro_scope.hpp"
#include "../profile/prof_records.hpp"
#include "../record/buffer.hpp"
#include "../record/mode.hpp"
#include "../util/spinlock.hpp"
#include "../util/strings.hpp"
#include "../what_if/offsets.hpp"
#include "compensation.hpp"
#include "load.hpp"
#include "path_value.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// A labeled region, interned per session so that tasks can refer to it after the
// guard that opened it has gone. Rows are summed over instances.
struct region_node {
  std::string label;
  std::string path;
  region_node* parent = nullptr;
  unsigned depth = 0;
  std::vector<std::unique_ptr<region_node>> children;
  std::uint64_t instances = 0;
  path_totals sum;  // spans summed over instances
};

class join_set;

// State a subsystem above the engine keeps per thread and measurement (the lock
// sums of detail/blame/ are one): the engine holds it and frees it with the
// session, and never looks into it. Made by its subsystem on first use.
struct observer_slot {
  void* state = nullptr;
  void (*destroy)(void*) noexcept = nullptr;

  observer_slot() = default;
  observer_slot(const observer_slot&) = delete;
  observer_slot& operator=(const observer_slot&) = delete;
  ~observer_slot() {
    if (destroy) destroy(state);
  }
  // The state, made as T{} the first time.
  template <class T>
  T& get() {
    if (FORKSCALE_DETAIL_UNLIKELY(state == nullptr)) {
      state = new T{};
      destroy = [](void* p) noexcept { delete static_cast<T*>(p); };
    }
    return *static_cast<T*>(state);
  }
  // The state if it was made.
  template <class T>
  const T* find() const noexcept {
    return static_cast<const T*>(state);
  }
};
enum class thread_observer : unsigned { locks, count };

// One thread's tables for one session. Only that thread writes them; the report
// reads them after every task has been joined (each write happens before the
// join that absorbs its task), and not at all when tasks may still be running.
struct thread_tables {
  std::vector<site_sums> on_work;  // per-site on-work sums of the site profile
  // What-if: outermost entries per region, and work inside regions (index 0: any
  // region; r + 1: region r).
  std::vector<std::uint64_t> what_if_entries;
  std::vector<std::uint64_t> what_if_work;
  observer_slot observers[static_cast<unsigned>(thread_observer::count)];
  observer_slot& observer(thread_observer o) noexcept { return observers[static_cast<unsigned>(o)]; }
  const observer_slot& observer(thread_observer o) const noexcept { return observers[static_cast<unsigned>(o)]; }
  // The task_group and join_handle sets this thread bound and nobody has
  // released yet (engine/tasks.hpp); a thread that releases one of them unlinks
  // it under `bound_lock`. `bound_net` is the binds minus the releases made on
  // this thread: only this thread writes it, and the sum over the threads is the
  // number still bound. Per thread, so that a task group per task (oneTBB
  // recursion) shares no lock and no counter across threads.
  spinlock bound_lock;
  join_set* bound_head = nullptr;
  std::atomic<std::int64_t> bound_net{0};
};

// What a stored calibration gives one backend in a session: the burden in
// ticks, its report::burden_source, and why a stored one is not used
// (report::burden_note).
struct burden_choice {
  std::uint64_t ticks = 0;
  std::string source = "default";
  std::string note;
};

struct session {
  clock_kind kind = clock_kind::cost;
  clock_info info;
  // Ticks. Set at the start; with options.backend automatic, set again once by
  // the first spawn through an adapter (note_backend), before the frames that
  // copy it later start.
  std::atomic<std::uint64_t> burden{0};
  // Ticks subtracted per strand: the share of the event that opens it and of
  // the one that closes it, by the events' kinds (compensation_table).
  compensation_table compensation;
  double compensation_call_exact = 0;  // a split-bounded strand's (a call site's), on average
  double compensation_exact = 0;       // a spawn/child/sync cycle's strand's, on average, before rounding
  double compensation_residual = 0;    // how far it may be off per strand (calibrate_compensation)
  unsigned max_processors = 32;
  // Where the burden came from (report::burden_source), and why a stored one
  // was not used (report::burden_note).
  std::string burden_source = "default";
  std::string burden_note;
  // The backend (report::backend): options.backend, and the libraries the
  // spawns came through, each told once by the first spawn through its adapter
  // (note_backend): their backend_bit, and the first one's.
  backend named_backend = backend::automatic;
  std::atomic<unsigned char> backends_seen{0};
  std::atomic<unsigned char> first_backend{0};
  // options.backend automatic under a timed clock without options.burden: the
  // first library's choice becomes the burden (index: its backend value); a
  // burden file that cannot be read is said once a library is known.
  bool burden_follows_backend = false;
  burden_choice backend_burden[4];
  std::string burden_problem;
  std::function<void(const diagnostic&)> on_diagnostic;
  bool profile = true;       // options.site_profiles
  std::uint64_t serial = 0;  // distinguishes sessions for per-thread caches
  // The scheduler's counters at the start (options.check_load, timed clocks).
  bool check_load = false;
  bool clock_chosen_for_load = false;
  unsigned runnable_at_start = 0;
  load_snapshot load_at_start;
  // Recording (options::record): null when off; frames copy `recording`.
  // Shared with the report's record (record_build.hpp), which builds from the
  // buffers when first read.
  std::shared_ptr<record_state> rec;
  recording_mode recording = recording_mode::off;
  // Events share clock readings (frame::fuse; readings_fuse in tasks.hpp).
  bool fuse_readings = false;
  bool fuse_joins = false;
  std::uint64_t process_cpu_at_start = 0;  // the process's CPU time (ns) at the start (timed clocks)  // a join that
                                           // waited for nothing shares a reading too

  std::mutex m;  // guards everything below (not on the event path)
  region_node root;
  std::vector<diagnostic> diagnostics;
  std::uint64_t diagnostic_count = 0;
  // The diagnostics that may leave tasks out of the numbers (misuse of the
  // guards): with any, the report has no site profile and no what-if rows. The
  // others (what_if_notice) leave the numbers whole.
  std::uint64_t misuse_count = 0;
  // task_group and join_handle objects bound to this session and not yet
  // released are counted and listed in the threads' tables (bound_head,
  // bound_net); a session that ends while some remain is kept alive for them.
  std::vector<std::unique_ptr<thread_tables>> tables;
  // What-if: the configuration (fixed at the start), whether call sites are
  // looked up (named ones or assumed ones), and the regions known so far (named
  // call sites first, then guards in the order of their first entry).
  what_if_config what_if;
  bool what_if_calls = false;
  std::uint64_t what_if_root_mask = 0;
  std::vector<what_if_known_region> what_if_regions;
  // Regions entered after the most a measurement analyses, each diagnosed once.
  std::vector<what_if_known_region> what_if_dropped;
  // A bad FORKSCALE_WHAT_IF: no region is analysed (fixed before the measurement
  // starts).
  bool what_if_off = false;
};

inline std::uint64_t next_session_serial() noexcept {
  static std::atomic<std::uint64_t> n{0};
  return n.fetch_add(1, std::memory_order_relaxed) + 1;
}

// This thread's tables for `s`: a compare on the hot path (every profiled
// record), the registration out of line.
struct tables_slot {
  std::uint64_t serial = 0;
  thread_tables* tables = nullptr;
};
inline thread_local tables_slot tables_cached;

FORKSCALE_DETAIL_NOINLINE inline thread_tables& register_tables(session* s) {
  std::lock_guard<std::mutex> g(s->m);
  s->tables.push_back(std::make_unique<thread_tables>());
  tables_cached.serial = s->serial;
  tables_cached.tables = s->tables.back().get();
  return *tables_cached.tables;
}

inline thread_tables& tables_for(session* s) {
  if (FORKSCALE_DETAIL_LIKELY(tables_cached.serial == s->serial)) return *tables_cached.tables;
  return register_tables(s);
}

// Sessions that ended while tasks or groups still referred to them. They are
// kept (and reachable) so that late tasks can still report their misuse safely.
inline void keep_orphan(std::unique_ptr<session> s) {
  static std::mutex m;
  static auto* orphans = new std::vector<std::unique_ptr<session>>;
  std::lock_guard<std::mutex> g(m);
  orphans->push_back(std::move(s));
}

inline constexpr std::size_t max_kept_diagnostics = 100;

// A diagnostic to the user's handler, or to stderr as one line. The handler is
// called where nothing may throw (destructors, noexcept events): an exception
// from it stops here, said in the same line.
inline void deliver_diagnostic(const std::function<void(const diagnostic&)>& handler, const diagnostic& d) noexcept {
  std::string threw;  // why the line is printed although there is a handler
  if (handler) {
    try {
      handler(d);
      return;
    } catch (const std::exception& e) {
      threw = std::string(" (options.on_diagnostic threw: ") + e.what() + ")";
    } catch (...) {
      threw = " (options.on_diagnostic threw)";
    }
  }
  std::fprintf(stderr, "forkscale: %s: %s%s\n", d.where.c_str(), d.problem.c_str(), threw.c_str());
}

// A diagnostic: counted in the report (the first ones kept), passed to the
// user's handler or printed as one line. `misuse` says whether it may leave tasks
// out of the numbers.
FORKSCALE_DETAIL_NOINLINE inline void diagnose(session* s, const site& where, std::string problem, bool misuse) {
  if (!s) return;
  diagnostic d{describe_site(where), std::move(problem)};
  std::function<void(const diagnostic&)> handler;
  {
    std::lock_guard<std::mutex> g(s->m);
    ++s->diagnostic_count;
    if (misuse) ++s->misuse_count;
    if (s->diagnostics.size() < max_kept_diagnostics) s->diagnostics.push_back(d);
    handler = s->on_diagnostic;
  }
  deliver_diagnostic(handler, d);
}

// Misuse found while the program ran.
inline void misuse(session* s, const site& where, std::string problem) { diagnose(s, where, std::move(problem), true); }

// A what-if analysis asked for and not done — a region past the most a
// measurement analyses, a bad FORKSCALE_WHAT_IF. Reported as misuse is, but the
// numbers, the site profiles and the other what-if rows stay.
inline void what_if_notice(session* s, const site& where, std::string problem) {
  diagnose(s, where, std::move(problem), false);
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
