// detail/ompt/tool.hpp: the OMPT tool itself — the callbacks it registers (OpenMP
// 5.1, §4.5.2), its initializer and finalizer (§4.2.1), the whole-program mode
// (FORKSCALE_OMPT=1) and the start-up check that says, in one line, why the tool
// is off when it is.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "../../config.hpp"
#include "../../guards.hpp"
#include "../../options.hpp"
#include "../../report.hpp"
#if FORKSCALE_DETAIL_DEFINITIONS
#include "../../study/html.hpp"
#else
#include "../../study/html_page.hpp"  // to_html is in the library
#endif
#include "../macro_scope.hpp"
#include "../output/report_format.hpp"
#include "../util/clock_env.hpp"
#include "../util/env.hpp"
#include "regions.hpp"
#include "state.hpp"
#include "tasks.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace ompt {

// FORKSCALE_OMPT as a switch (detail/util/env.hpp): 1 (on, yes, true)
// measures the whole program, 0 (off, no, false) turns the tool off.
inline env_switch whole_program_switch() { return read_env_switch("FORKSCALE_OMPT"); }

// The callbacks, with the signatures of omp-tools.h; each forwards to the events.
// Off (fs::ompt::set_enabled(false)): every callback returns at once.
inline bool on() noexcept { return status().enabled.load(std::memory_order_relaxed); }

template <class Clock>
struct callbacks {
  using teams = team_events<Clock>;
  using tasks = task_events<Clock>;

  static void parallel_begin(ompt_data_t* encountering, const ompt_frame_t*, ompt_data_t* parallel, unsigned requested,
                             int flags, const void* ra) {
    if (on()) teams::parallel_begin(encountering, parallel, requested, flags, ra);
  }
  static void parallel_end(ompt_data_t* parallel, ompt_data_t*, int flags, const void*) {
    if (on()) teams::parallel_end(parallel, flags);
  }
  static void implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t* task, unsigned size,
                            unsigned index, int flags) {
    if (!on()) return;
    if (endpoint == ompt_scope_begin) {
      teams::implicit_begin(parallel, task, size, index, flags);
    } else if (endpoint == ompt_scope_end) {
      teams::implicit_end(task);
    }
  }
  static void task_create(ompt_data_t* encountering, const ompt_frame_t*, ompt_data_t* task, int flags,
                          int has_dependences, const void* ra) {
    if (on()) tasks::task_create(encountering, task, flags, has_dependences, ra);
  }
  static void task_schedule(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) {
    if (on()) tasks::schedule(prior, status, next);
  }
  static void dependences(ompt_data_t* task, const ompt_dependence_t* deps, int count) {
    if (on()) tasks::dependences(task, deps, count);
  }
  static void sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t* parallel,
                          ompt_data_t* task, const void* ra) {
    if (!on()) return;
    task_record* r = record(task);
    const bool begin = endpoint == ompt_scope_begin;
    switch (static_cast<int>(kind)) {
      case 1:  // ompt_sync_region_barrier (5.0)
      case 2:  // ompt_sync_region_barrier_implicit (5.0): libomp 14's implicit barriers
      case ompt_sync_region_barrier_explicit:
      case ompt_sync_region_barrier_implementation:
      case ompt_sync_region_barrier_implicit_workshare:
      case ompt_sync_region_barrier_implicit_parallel:
        if (begin) {
          teams::barrier_begin(r, ra);
        } else {
          teams::barrier_end(r, parallel, ra);
        }
        break;
      case ompt_sync_region_taskwait:
        if (begin) {
          tasks::taskwait_begin(r, ra);
        } else {
          tasks::taskwait_end(r, ra);
        }
        break;
      case ompt_sync_region_taskgroup:
        if (begin) {
          tasks::group_begin(r, ra);
        } else {
          tasks::group_end(r);
        }
        break;
      default:
        break;  // reductions, teams barriers
    }
  }
  static void sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t*, ompt_data_t* task,
                               const void*) {
    if (kind == ompt_sync_region_taskgroup && endpoint == ompt_scope_begin) tasks::group_wait_begin(record(task));
  }
  static void work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t*, ompt_data_t* task, std::uint64_t,
                   const void* ra) {
    if (!on() || (kind != ompt_work_loop && kind != ompt_work_sections))
      return;  // single, masked, taskloop: nothing to do
    if (endpoint == ompt_scope_begin) {
      teams::loop_begin(record(task), ra);
    } else if (endpoint == ompt_scope_end) {
      teams::loop_end(record(task));
    }
  }
  static void cancel(ompt_data_t* task, int flags, const void*) {
    if (on() && (flags & ompt_cancel_discarded_task)) tasks::discarded(task);
  }
};

// FORKSCALE_OMPT=1: the whole program is one measurement, from the tool's start
// to the runtime's shutdown, written to FORKSCALE_REPORT (or shown on stderr).
template <class Clock>
struct whole_program {
  static basic_region<Clock>*& region() {
    static basic_region<Clock>* r = nullptr;
    return r;
  }
  static std::thread::id& owner() {
    static std::thread::id id;
    return id;
  }
  // The process's CPU time when the measurement started (ns).
  static std::uint64_t& cpu_at_start() {
    static std::uint64_t ns = 0;
    return ns;
  }
  static std::uint64_t process_cpu_ns() noexcept {
    timespec ts{};
    if (::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
  }

  // Work is time the program's threads ran: it cannot exceed the CPU time the
  // process used meanwhile, unless a wall clock counted waits for a CPU (a busy
  // machine). The report says so then.
  static void check_work_against_cpu(report& rep, std::uint64_t cpu_ns) {
    if (rep.unit != "ns" || cpu_ns == 0 || rep.work() <= cpu_ns) return;
    for (const diagnostic& d : rep.diagnostics)  // said already by the measurement's own check
      if (d.problem.find("exceeds the CPU time") != std::string::npos) return;
    rep.diagnostics.push_back(diagnostic{
        "(OpenMP program)", "the work (" + std::to_string(rep.work()) +
                                " ns) exceeds the CPU time the process used during the "
                                "measurement (" +
                                std::to_string(cpu_ns) + " ns): the " + to_string(rep.clock) +
                                " clock counted time the threads waited for a CPU (a busy machine); work and span are "
                                "inflated (FORKSCALE_OMPT_CLOCK=thread_cpu counts CPU time only)"});
    ++rep.diagnostic_count;
  }

  // FORKSCALE_OMPT_CLOCK, else FORKSCALE_CLOCK (the variable every measurement
  // whose options leave the clock automatic reads).
  static options from_environment() {
    options o;
    o.clock = clock_from_environment({"FORKSCALE_OMPT_CLOCK", "FORKSCALE_CLOCK"});
    return o;
  }

  static void start() {
    if (engine<Clock>::current() != nullptr) return;
    try {
      region() = new basic_region<Clock>("program", from_environment(), site{"(OpenMP program)", 0, "", nullptr});
      owner() = std::this_thread::get_id();
      cpu_at_start() = process_cpu_ns();
      if (status().in_startup_check.load()) {
        status().program_exiting.store(&program_exiting);
        status().runtime_started.store(&runtime_initialized);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "forkscale: FORKSCALE_OMPT=1: %s; the program runs unmeasured\n", e.what());
    }
  }

  // The runtime started the tool in the middle of its own initialization, which
  // the program's start-up check asked for: the root strand starts again when
  // the runtime is done (libomp's serial and middle initialization, the
  // machine's topology among it, are not the program's serial work). Under the
  // cost clock nothing was charged meanwhile.
  static void runtime_initialized() noexcept {
    if (!region() || owner() != std::this_thread::get_id()) return;
    frame* f = engine<Clock>::current();
    if (!f || f->state != frame::run_state::running) return;
    f->strand_start = engine<Clock>::now(*f);
    cpu_at_start() = process_cpu_ns();
  }

  // The program's exit begins (atexit, before the runtime's own handler): the
  // root strand open now ends here at the measurement's end, and what follows —
  // the tool's and the runtime's shutdown (addr2line, the worker threads) — is
  // in no strand. Under the cost clock nothing is dropped: the program's own
  // charges in its static destructors count.
  struct exit_point {
    frame* root = nullptr;
    std::uint64_t at = 0;   // the root's clock then
    std::uint64_t cpu = 0;  // the process's CPU time then
  };
  static exit_point& exit_noted() {
    static exit_point p;
    return p;
  }
  static void program_exiting() noexcept {
    if (!region() || owner() != std::this_thread::get_id()) return;
    frame* f = engine<Clock>::current();
    if (!f || f->state != frame::run_state::running || f->kind == clock_kind::cost) return;
    exit_noted() = exit_point{f, engine<Clock>::now(*f), process_cpu_ns()};
  }
  // At the end: the root strand still open since the exit began loses the time
  // since. Returns the process's CPU time to hold the work to.
  static std::uint64_t drop_shutdown(std::uint64_t cpu_now) noexcept {
    const exit_point p = exit_noted();
    frame* f = engine<Clock>::current();
    if (!p.root || f != p.root || f->state != frame::run_state::running || f->strand_start > p.at) return cpu_now;
    f->strand_start += engine<Clock>::now(*f) - p.at;
    return p.cpu;
  }

  static void finish() {
    basic_region<Clock>* r = region();
    if (!r) return;
    region() = nullptr;
    if (owner() != std::this_thread::get_id()) {
      std::fprintf(stderr,
                   "forkscale: FORKSCALE_OMPT=1: the OpenMP runtime shut down on another thread than the one it "
                   "started on; no report\n");
      return;  // the measurement's frames belong to that thread: left as they are
    }
    try {
      const std::uint64_t cpu = drop_shutdown(process_cpu_ns());
      report rep = r->stop();
      check_work_against_cpu(rep, cpu > cpu_at_start() ? cpu - cpu_at_start() : 0);
      write(rep, std::getenv("FORKSCALE_REPORT"));
    } catch (const std::exception& e) {
      const std::string what = e.what();  // forkscale's errors say "forkscale: " already
      std::fprintf(stderr, "%s%s\n", what.rfind("forkscale: ", 0) == 0 ? "" : "forkscale: ", what.c_str());
    }
    delete r;
  }

  // FORKSCALE_REPORT: the format by detail/output/report_format.hpp's rule; the
  // report on stderr when it is unset or names no format (nothing is lost).
  static void write(const report& rep, const char* path) {
    if (write_report_or_show(rep, path))
      std::fprintf(stderr, "forkscale: report written to %s\n", printable_path(path).c_str());
  }
};

template <class Clock>
struct tool {
  struct wanted {
    ompt_callbacks_t event;
    ompt_callback_t callback;
    const char* name;
    bool required;  // without it the tool cannot keep its dag right, so it stays off
  };

  static constexpr std::size_t wanted_count = 10;
  static const wanted* table() noexcept {
    using cb = callbacks<Clock>;
    static const wanted t[wanted_count] = {
        {ompt_callback_parallel_begin, reinterpret_cast<ompt_callback_t>(&cb::parallel_begin), "parallel_begin", true},
        {ompt_callback_parallel_end, reinterpret_cast<ompt_callback_t>(&cb::parallel_end), "parallel_end", true},
        {ompt_callback_implicit_task, reinterpret_cast<ompt_callback_t>(&cb::implicit_task), "implicit_task", true},
        {ompt_callback_task_create, reinterpret_cast<ompt_callback_t>(&cb::task_create), "task_create", true},
        {ompt_callback_task_schedule, reinterpret_cast<ompt_callback_t>(&cb::task_schedule), "task_schedule", true},
        {ompt_callback_sync_region, reinterpret_cast<ompt_callback_t>(&cb::sync_region), "sync_region", true},
        {ompt_callback_work, reinterpret_cast<ompt_callback_t>(&cb::work), "work", true},
        {ompt_callback_dependences, reinterpret_cast<ompt_callback_t>(&cb::dependences), "dependences", false},
        {ompt_callback_sync_region_wait, reinterpret_cast<ompt_callback_t>(&cb::sync_region_wait), "sync_region_wait",
         false},
        {ompt_callback_cancel, reinterpret_cast<ompt_callback_t>(&cb::cancel), "cancel", false},
    };
    return t;
  }

  // Until a measurement needs them, the callbacks are not registered: with
  // FORKSCALE_OMPT unset and no fs::measure running, the program pays only what
  // the runtime does for a tool that listens to nothing. They are checked at
  // start-up (a refusal is said then), unregistered, and registered again by
  // the first measurement that starts (measurement_start_hook), for good.
  static int initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
    tool_status& st = status();
    st.initialized = true;
    auto set = lookup ? reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback")) : nullptr;
    if (!set) return refuse("the runtime offers no ompt_set_callback");
    st.get_parallel_info = reinterpret_cast<ompt_get_parallel_info_t>(lookup("ompt_get_parallel_info"));
    const wanted* wanted_table = table();
    for (std::size_t i = 0; i < wanted_count; ++i) {
      const wanted& w = wanted_table[i];
      const ompt_set_result_t r = set(w.event, w.callback);
      if (r != ompt_set_never && r != ompt_set_error) continue;
      if (w.required)
        return refuse(std::string("the runtime refused the callback ompt_callback_") + w.name +
                      " (ompt_set_callback answered '" + (r == ompt_set_never ? "never" : "error") + "')");
      if (w.event == ompt_callback_dependences)
        say_once(notice::dependences_off,
                 "the OpenMP runtime does not report task dependences: depend clauses are not in the measured dag");
    }
    st.active = true;
    code_sites::instance().start();
    if (whole_program_switch() == env_switch::on) {
      st.callbacks_live = true;
      whole_program<Clock>::start();
      return 1;
    }
    for (std::size_t i = 0; i < wanted_count; ++i) set(wanted_table[i].event, nullptr);
    st.set_callback = set;
    measurement_start_hook.store(&wake, std::memory_order_release);
    return 1;
  }

  // A measurement starts: the callbacks are registered (once).
  static void wake() noexcept {
    tool_status& st = status();
    static std::mutex m;
    std::lock_guard<std::mutex> g(m);
    if (st.callbacks_live.load() || !st.set_callback || !st.active.load()) return;
    const wanted* wanted_table = table();
    for (std::size_t i = 0; i < wanted_count; ++i) st.set_callback(wanted_table[i].event, wanted_table[i].callback);
    st.callbacks_live = true;
    measurement_start_hook.store(nullptr, std::memory_order_release);
  }

  static void finalize(ompt_data_t*) {
    measurement_start_hook.store(nullptr, std::memory_order_release);  // the runtime is shutting down
    whole_program<Clock>::finish();
    status().active = false;
  }

  static ompt_start_tool_result_t* start(unsigned int, const char*) {
    status().start_tool_called = true;
    if (whole_program_switch() == env_switch::off) return nullptr;
    static ompt_start_tool_result_t result = {&initialize, &finalize, {0}};
    return &result;
  }

 private:
  static int refuse(const std::string& why) {
    status().refused = why;
    std::fprintf(stderr, "forkscale: OMPT mode is off: %s; the program runs unmeasured by forkscale's OpenMP tool\n",
                 why.c_str());
    return 0;
  }
};

}  // namespace ompt
}  // namespace detail
FORKSCALE_NAMESPACE_END
