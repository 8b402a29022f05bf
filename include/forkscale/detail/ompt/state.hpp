// detail/ompt/state.hpp: what the OMPT tool knows about the process (whether the
// runtime started it, the runtime's entry points), what it keeps per thread
// (the code pointer of the runtime call in progress), one-line messages, and the
// lookups every callback starts with.
#pragma once
#include <omp-tools.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../../config.hpp"
#include "../../site.hpp"
#include "../macro_scope.hpp"
#include "../observers/list.hpp"
#include "../util/strings.hpp"
#include "sites.hpp"
#include "task_records.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace ompt {

struct tool_status {
  std::atomic<bool> start_tool_called{false};  // the runtime asked for a tool (ompt_start_tool)
  std::atomic<bool> initialized{false};        // ... and initialized it
  std::atomic<bool> active{false};             // every callback the tool needs was accepted
  std::atomic<bool> enabled{true};             // fs::ompt::set_enabled
  std::atomic<bool> callbacks_live{false};     // registered (the first measurement, or FORKSCALE_OMPT=1)
  std::string refused;                         // why not, when not
  ompt_get_parallel_info_t get_parallel_info = nullptr;
  ompt_set_callback_t set_callback = nullptr;  // to register them then
  // FORKSCALE_OMPT=1 (tool.hpp, whole_program): the program's start-up check
  // (adapters/ompt.hpp) makes the runtime initialize, and the measurement starts
  // inside that initialization; the check calls `runtime_started` when the
  // runtime returns, so that the root strand starts there, not in the runtime,
  // and has `program_exiting` called when the program's exit begins (an atexit
  // handler it registers after the runtime's and the tool's own), so that the
  // root strand ends there: the runtime's shutdown is not the program's work.
  std::atomic<bool> in_startup_check{false};
  std::atomic<void (*)()> runtime_started{nullptr};
  std::atomic<void (*)()> program_exiting{nullptr};
};

inline tool_status& status() {
  static tool_status s;
  return s;
}

// Set by the wrappers of the runtime's entry points (adapters/ompt.hpp) while the
// real one runs: the program's return address, for the callbacks inside, whose
// own codeptr_ra points into the wrapper or into the runtime.
struct thread_notes {
  const void* dispatch_ra = nullptr;   // __kmpc_dispatch_init_*: a loop whose chunks come from dispatch_next
  const void* taskloop_ra = nullptr;   // __kmpc_taskloop*: the tasks it creates
  const void* taskloop_loc = nullptr;  // ... and its source location (an ident_t*)
  const void* fork_ra = nullptr;       // __kmpc_fork_call: the region it starts
  const void* fork_loc = nullptr;      // ... and its source location
  const void* task_loc = nullptr;      // __kmpc_omp_task_alloc: the source location of the task it makes
  loop_state* loop = nullptr;          // the innermost worksharing loop open on this thread
  team* open_teams = nullptr;          // the regions this thread began and has not ended, innermost first
  // Untied tasks (tasks.hpp, adapters/ompt.hpp): where the task allocated last
  // on this thread keeps its record for the runtime's calls of its parts, and
  // the part this thread runs now (whether its task left the thread in it).
  void** untied_record_slot = nullptr;
  const void* part_task = nullptr;
  bool part_left = false;
  // libomp 14 keeps a stand-in's task data per thread (ompt_thread_info.task_data)
  // and asserts that its pointer is null when a stand-in begins: a thread that
  // runs, while it waits in one, a task that makes another would fail that
  // assertion if the tool kept its record there. The stand-ins a thread waits
  // in are kept here instead, innermost first (tasks.hpp).
  task_record* stand_ins = nullptr;
  const ompt_data_t* stand_in_data = nullptr;  // the runtime's data for them
};
inline thread_notes& notes() noexcept {
  static thread_local thread_notes n;
  return n;
}

// A one-line message on stderr, at most once per process per kind.
enum class notice : unsigned { nested_off, dependences_off, waits_off, count };
inline void say_once(notice kind, const std::string& text) {
  static std::atomic<unsigned> said{0};
  const unsigned bit = 1u << static_cast<unsigned>(kind);
  if (said.fetch_or(bit, std::memory_order_relaxed) & bit) return;
  std::fprintf(stderr, "forkscale: %s\n", text.c_str());
}

inline std::string describe_where(const site& s) { return short_site_name(s.file ? s.file : "", s.line); }

// The tool's record of an OpenMP task. A task the tool has not seen begin (the
// initial task of a thread) gets one on first use.
inline task_record* record(ompt_data_t* d) {
  if (!d) return nullptr;
  if (!d->ptr) d->ptr = new_task(task_kind::initial);
  return static_cast<task_record*>(d->ptr);
}

// The code site of code pointer `ra`, cached per thread. Resolving a new one may
// take a round trip to addr2line: that time is taken out of the running strand,
// as the engine does for a site it registers (events.hpp).
template <class Clock>
code_site code_site_for(const void* ra, const char* enclosing) {
  struct entry {
    const void* ra = nullptr;
    code_site s;
  };
  static thread_local entry cache[128];
  entry& e = cache[(reinterpret_cast<std::uintptr_t>(ra) >> 3) & 127u];
  if (FORKSCALE_DETAIL_LIKELY(e.ra == ra && ra != nullptr)) return e.s;
  frame* f = engine<Clock>::current();
  const bool running = f && f->state == frame::run_state::running;
  const std::uint64_t t0 = running ? engine<Clock>::now(*f) : 0;
  const code_site s = code_sites::instance().find(ra, enclosing);
  if (running) f->strand_start += engine<Clock>::now(*f) - t0;
  e.ra = ra;
  e.s = s;
  return s;
}

// The site of the construct whose runtime call returns to `ra`, with its source
// location `loc` (an ident_t*, or null when the entry point has none): the
// location the compiler passed when it names one (clang does with -g: exact even
// where the return address is not the construct's — a call the program made by
// a tail call returns to its caller's caller, or into the runtime, and a call
// several constructs share has no line of its own); else the line table's site
// of `ra`; else, for an address in the runtime, the site of the task running on
// this thread — the construct whose code the runtime is running (a taskloop's,
// for the tasks its splitting creates).
template <class Clock>
site construct_site(const void* ra, const void* loc, const char* enclosing) {
  const code_site c = code_site_for<Clock>(ra, enclosing);
  if (loc) {
    struct entry {
      const void* loc = nullptr;
      const void* ra = nullptr;
      bool named = false;
      site s;
    };
    static thread_local entry cache[64];
    entry& e = cache[(reinterpret_cast<std::uintptr_t>(loc) >> 4) & 63u];
    if (e.loc != loc || e.ra != ra) {
      e.loc = loc;
      e.ra = ra;
      e.named = code_sites::instance().location(loc, c.where, e.s);
    }
    if (e.named) return e.s;
  }
  if (FORKSCALE_DETAIL_LIKELY(!c.runtime)) return c.where;
  const frame* f = engine<Clock>::current();
  if (f && f->sess) return f->where;
  return c.where;
}

// The site of code pointer `ra`: construct_site without a source location.
template <class Clock>
site site_for(const void* ra, const char* enclosing) {
  return construct_site<Clock>(ra, nullptr, enclosing);
}

inline const char* enclosing_function(const task_record* r) noexcept {
  return r && r->where.function && *r->where.function ? r->where.function : nullptr;
}

}  // namespace ompt
}  // namespace detail
FORKSCALE_NAMESPACE_END
