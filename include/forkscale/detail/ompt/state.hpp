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
#include "../engine/events.hpp"
#include "../macro_scope.hpp"
#include "records.hpp"
#include "sites.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace ompt {

struct tool_status {
  std::atomic<bool> start_tool_called{false};  // the runtime asked for a tool (ompt_start_tool)
  std::atomic<bool> initialized{false};        // ... and initialized it
  std::atomic<bool> active{false};             // every callback the tool needs was accepted
  std::atomic<bool> enabled{true};             // fs::ompt::set_enabled
  std::string refused;                         // why not, when not
  ompt_get_parallel_info_t get_parallel_info = nullptr;
};

inline tool_status& status() {
  static tool_status s;
  return s;
}

// Set by the wrappers of the runtime's entry points (adapters/ompt.hpp) while the
// real one runs: the program's return address, for the callbacks inside, whose
// own codeptr_ra points into the wrapper or into the runtime.
struct thread_notes {
  const void* dispatch_ra = nullptr;  // __kmpc_dispatch_init_*: a loop whose chunks come from dispatch_next
  const void* taskloop_ra = nullptr;  // __kmpc_taskloop*: the tasks it creates
  loop_state* loop = nullptr;         // the innermost worksharing loop open on this thread
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

inline std::string describe_where(const site& s) {
  std::string w = s.file ? s.file : "";
  const auto slash = w.find_last_of('/');
  if (slash != std::string::npos) w = w.substr(slash + 1);
  if (s.line) w += ":" + std::to_string(s.line);
  return w;
}

// The tool's record of an OpenMP task. A task the tool has not seen begin (the
// initial task of a thread) gets one on first use.
inline task_record* record(ompt_data_t* d) {
  if (!d) return nullptr;
  if (!d->ptr) d->ptr = new_task(task_kind::initial);
  return static_cast<task_record*>(d->ptr);
}

// The site of code pointer `ra`, cached per thread. Resolving a new one may take
// a round trip to addr2line: that time is taken out of the running strand, as
// the engine does for a site it registers (events.hpp).
template <class Clock>
site site_for(const void* ra, const char* enclosing) {
  struct entry {
    const void* ra = nullptr;
    site s;
  };
  static thread_local entry cache[128];
  entry& e = cache[(reinterpret_cast<std::uintptr_t>(ra) >> 3) & 127u];
  if (FORKSCALE_DETAIL_LIKELY(e.ra == ra && ra != nullptr)) return e.s;
  frame* f = engine<Clock>::current();
  const bool running = f && f->state == frame::run_state::running;
  const std::uint64_t t0 = running ? engine<Clock>::now(*f) : 0;
  const site s = code_sites::instance().find(ra, enclosing);
  if (running) f->strand_start += engine<Clock>::now(*f) - t0;
  e.ra = ra;
  e.s = s;
  return s;
}

inline const char* enclosing_function(const task_record* r) noexcept {
  return r && r->where.function && *r->where.function ? r->where.function : nullptr;
}

}  // namespace ompt
}  // namespace detail
FORKSCALE_NAMESPACE_END
