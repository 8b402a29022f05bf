// ompt.hpp: OpenMP without annotations. Include this header in ONE translation
// unit of a program built with clang++ -fopenmp=libomp (LLVM's libomp, which
// implements the OpenMP tools interface, OMPT), and forkscale sees the program's
// OpenMP structure by itself: parallel regions and their implicit tasks, explicit
// tasks (deferred, undeferred, included), taskwait, taskgroup, barriers,
// worksharing loops (static, dynamic and guided schedules), taskloop, sections,
// single/master, task dependences and nested parallelism. Wrap the part to
// profile in fs::measure, or run the program with FORKSCALE_OMPT=1 to profile all
// of it (the report goes to FORKSCALE_REPORT=path.json|.txt|.csv|.html|.htm, the
// extension in any case, or to stderr):
//
//   #include <forkscale/ompt.hpp>
//   auto rep = fs::measure("cholesky", [&] { cholesky(a, n); });   // unchanged OpenMP code inside
//
// How it works (docs/ompt.md): OMPT is one more producer of the events the guards
// produce — spawns, child scopes, syncs — and the engine does not learn OpenMP.
// A parallel region spawns its threads' implicit tasks and joins them at each
// barrier; a worksharing loop's chunks are children of the implicit task that
// takes them, joined where it leaves the loop; a task is a spawn where it is
// created and a child scope where it runs; taskwait and the end of a taskgroup
// are syncs; a `depend` edge joins the predecessor's end into the successor's
// start. Call sites come from OMPT's code pointers, named file:line and function
// with addr2line (build with -g), or object+offset without debug info.
//
// What it defines (as weak symbols, so a second inclusion links): the OMPT entry
// point ompt_start_tool, and wrappers of libomp's __kmpc_dispatch_init_* /
// __kmpc_dispatch_next_* (libomp 14 does not report the chunks of dynamic and
// guided loops through OMPT: the wrappers see each one), __kmpc_fork_call,
// __kmpc_omp_task_alloc and __kmpc_taskloop* (for the line of a region, a task,
// a taskloop). They call the runtime's own functions, found with
// dlsym(RTLD_NEXT). Include it in the executable, not in a shared library.
//
// With GCC's libgomp (g++ -fopenmp), which has no OMPT, or when the runtime does
// not start the tool (OMP_TOOL=disabled, a runtime built without OMPT, a refused
// callback), the program runs unchanged and forkscale says so in one line on
// stderr at start-up. FORKSCALE_OMPT=0 turns the tool off silently.
//
// Opt-in: forkscale.hpp does not include this header. Do not combine it with the
// annotated adapter (forkscale/openmp.hpp) in one program: every construct would
// be counted twice.
#pragma once

#ifndef _OPENMP
#error \
    "forkscale/ompt.hpp profiles OpenMP programs: compile with -fopenmp=libomp (clang++, LLVM's libomp, which has the OpenMP tools interface)"
#endif

#include <omp.h>

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "../forkscale.hpp"

#if defined(__has_include)
#if __has_include(<omp-tools.h>)
#define FORKSCALE_DETAIL_OMPT_AVAILABLE 1
#endif
#endif
#ifndef FORKSCALE_DETAIL_OMPT_AVAILABLE
#define FORKSCALE_DETAIL_OMPT_AVAILABLE 0
#endif

// Where the tool itself (its callbacks, the whole-program mode, the site names)
// is compiled: in this translation unit (header-only form), or once in the
// compiled form's library, when that library was built with OMPT support (CMake
// defines FORKSCALE_COMPILED_OMPT for the users of forkscale::compiled then;
// src/forkscale_ompt.cpp) and this program keeps the library's clock policy.
// FORKSCALE_DETAIL_BUILDING_OMPT is the library's own source.
#if FORKSCALE_DETAIL_OMPT_AVAILABLE && FORKSCALE_ENABLE && !FORKSCALE_HEADER_ONLY &&          \
    defined(FORKSCALE_COMPILED_OMPT) && defined(FORKSCALE_DETAIL_DEFAULT_CLOCK_IS_RUNTIME) && \
    !defined(FORKSCALE_DETAIL_BUILDING_OMPT)
#define FORKSCALE_DETAIL_OMPT_IN_LIBRARY 1
#else
#define FORKSCALE_DETAIL_OMPT_IN_LIBRARY 0
#endif
// The tool's entry points below: inline in a translation unit that compiles the
// tool, ordinary functions in the library's source.
#ifdef FORKSCALE_DETAIL_BUILDING_OMPT
#define FORKSCALE_DETAIL_OMPT_GLUE
#else
#define FORKSCALE_DETAIL_OMPT_GLUE inline
#endif

#if FORKSCALE_DETAIL_OMPT_AVAILABLE && FORKSCALE_ENABLE
#include <dlfcn.h>
#include <omp-tools.h>

#if !FORKSCALE_DETAIL_OMPT_IN_LIBRARY
#include "../detail/observers/list.hpp"  // the engine itself: the tool splits strands and joins
#include "../detail/ompt/tool.hpp"
#endif
#endif

#include "../detail/macro_scope.hpp"

FORKSCALE_NAMESPACE_BEGIN

namespace detail {
namespace ompt {

#if FORKSCALE_DETAIL_OMPT_IN_LIBRARY
// Defined in the compiled form's library (src/forkscale_ompt.cpp).
std::string why_off();
bool startup_check();
bool tool_active() noexcept;
void tool_set_enabled(bool on) noexcept;
#else
// Why the tool is off, or "" when it runs (or may still start).
FORKSCALE_DETAIL_OMPT_GLUE std::string why_off() {
#if !FORKSCALE_ENABLE
  return "";  // FORKSCALE_ENABLE=0: nothing is measured, by request
#elif !FORKSCALE_DETAIL_OMPT_AVAILABLE
  return "this program was compiled without the OpenMP tools interface (no <omp-tools.h>: GCC's libgomp has no "
         "OMPT); build it with clang++ -fopenmp=libomp to profile its OpenMP constructs without annotations "
         "(docs/ompt.md)";
#else
  if (detail::ompt::whole_program_switch() == detail::env_switch::off) return "";
  const tool_status& st = status();
  if (st.active) return "";
  if (!st.refused.empty()) return st.refused;
  if (st.start_tool_called) return "";  // started, not initialized yet
  const char* omp_tool = std::getenv("OMP_TOOL");
  if (omp_tool && std::strcmp(omp_tool, "disabled") == 0)
    return "OMP_TOOL=disabled turns the OpenMP tools interface off";
  if (!::dlsym(RTLD_DEFAULT, "__kmpc_fork_call") && ::dlsym(RTLD_DEFAULT, "GOMP_parallel"))
    return "the OpenMP runtime is GCC's libgomp, which has no tools interface (OMPT); build with clang++ "
           "-fopenmp=libomp (docs/ompt.md)";
  return "the OpenMP runtime did not start forkscale's tool (a runtime built without OMPT, or another tool's "
         "ompt_start_tool came first)";
#endif
}

// At start-up: one line when the tool will not run. libomp starts its tool when
// it initializes, at the program's first call into it (normally the first line
// of main); asking it a question here makes that happen now, so that the answer
// is known before the program runs.
FORKSCALE_DETAIL_OMPT_GLUE bool startup_check() {
#if FORKSCALE_DETAIL_OMPT_AVAILABLE && FORKSCALE_ENABLE
  status().in_startup_check.store(true);
  (void)omp_get_max_threads();
  status().in_startup_check.store(false);
  if (void (*started)() = status().runtime_started.exchange(nullptr)) {
    started();
    std::atexit([] {
      if (void (*exiting)() = status().program_exiting.exchange(nullptr)) exiting();
    });
  }
#else
  (void)omp_get_max_threads();
#endif
  const std::string why = why_off();
#if FORKSCALE_DETAIL_OMPT_AVAILABLE && FORKSCALE_ENABLE
  if (!why.empty() && status().refused.empty())  // a refusal was said when it happened
    std::fprintf(stderr, "forkscale: OMPT mode is off: %s; the program runs unmeasured by forkscale's OpenMP tool\n",
                 why.c_str());
#else
  if (!why.empty())
    std::fprintf(stderr, "forkscale: OMPT mode is off: %s; the program runs unmeasured by forkscale's OpenMP tool\n",
                 why.c_str());
#endif
  return why.empty();
}

FORKSCALE_DETAIL_OMPT_GLUE bool tool_active() noexcept {
#if FORKSCALE_DETAIL_OMPT_AVAILABLE && FORKSCALE_ENABLE
  return status().active.load();
#else
  return false;
#endif
}

FORKSCALE_DETAIL_OMPT_GLUE void tool_set_enabled(bool on) noexcept {
#if FORKSCALE_DETAIL_OMPT_AVAILABLE && FORKSCALE_ENABLE
  status().enabled.store(on);
#else
  (void)on;
#endif
}
#endif  // FORKSCALE_DETAIL_OMPT_IN_LIBRARY

// (The tool library of `forkscale-report run`, src/forkscale_ompt_tool.cpp,
// makes this check itself: libomp may be loading it, from its initialization.)
#if !defined(FORKSCALE_DETAIL_BUILDING_OMPT) && !defined(FORKSCALE_DETAIL_OMPT_TOOL_LIBRARY)
inline const bool startup_checked = startup_check();
#endif

}  // namespace ompt
}  // namespace detail

namespace ompt {

// Whether forkscale's OMPT tool runs in this process: the runtime started it and
// accepted every callback it needs.
inline bool active() noexcept { return detail::ompt::tool_active(); }

// Why it does not ("" when it does), in the words of the start-up line.
inline std::string why_inactive() { return detail::ompt::why_off(); }

// Turns the tool off (false) and on again (true) for the OpenMP code that
// follows: code run while it is off is not seen, as if it ran outside every
// measurement (for a part profiled with the annotated adapter instead). Change it
// only where no parallel region, task or worksharing loop is in progress.
inline void set_enabled(bool on) noexcept { detail::ompt::tool_set_enabled(on); }

}  // namespace ompt

FORKSCALE_NAMESPACE_END

#if FORKSCALE_DETAIL_OMPT_AVAILABLE && FORKSCALE_ENABLE
namespace forkscale {
namespace detail {
namespace ompt {

#if FORKSCALE_DETAIL_OMPT_IN_LIBRARY
ompt_start_tool_result_t* start_tool(unsigned int omp_version, const char* runtime_version);
void note_dispatch_ra(const void* ra) noexcept;
int dispatch_next(int (*next)(void*), void* call);
void note_fork(const void* ra, const void* loc) noexcept;
void note_task_alloc(const void* loc) noexcept;
struct taskloop_marks {
  const void* ra;
  const void* loc;
};
taskloop_marks enter_taskloop(const void* ra, const void* loc) noexcept;
void leave_taskloop(taskloop_marks saved) noexcept;
bool untied_parts_wanted() noexcept;
void note_untied_alloc(void** record_slot) noexcept;
struct untied_part_marks {
  const void* task;
  bool left;
};
untied_part_marks begin_untied_part(const void* record) noexcept;
void end_untied_part(const void* record, untied_part_marks saved);
#else
using ompt_clock = ::forkscale::default_clock;
#ifdef FORKSCALE_DETAIL_OMPT_TOOL_LIBRARY
// Whether the tool library of `forkscale-report run` measures this program: not
// when the program measures itself (src/forkscale_ompt_tool.cpp).
bool tool_library_wanted() noexcept;
#endif
FORKSCALE_DETAIL_OMPT_GLUE ompt_start_tool_result_t* start_tool(unsigned int omp_version, const char* runtime_version) {
#ifdef FORKSCALE_DETAIL_OMPT_TOOL_LIBRARY
  if (!tool_library_wanted()) return nullptr;
#endif
  return tool<ompt_clock>::start(omp_version, runtime_version);
}
// The program's return address while the runtime's loop dispatch starts a loop.
FORKSCALE_DETAIL_OMPT_GLUE void note_dispatch_ra(const void* ra) noexcept { notes().dispatch_ra = ra; }
// Around the runtime's __kmpc_dispatch_next_*: next(call) is the real one.
FORKSCALE_DETAIL_OMPT_GLUE int dispatch_next(int (*next)(void*), void* call) {
  return team_events<ompt_clock>::dispatch_next([&] { return next(call); });
}
// The program's return address and the compiler's source location (an
// ident_t*) of the region __kmpc_fork_call starts, for parallel_begin
// (detail/ompt/regions.hpp); null, null after it.
FORKSCALE_DETAIL_OMPT_GLUE void note_fork(const void* ra, const void* loc) noexcept {
  thread_notes& n = notes();
  n.fork_ra = ra;
  n.fork_loc = loc;
}
// The source location of the task __kmpc_omp_task_alloc allocates (task-create
// comes when the program hands it to the runtime).
FORKSCALE_DETAIL_OMPT_GLUE void note_task_alloc(const void* loc) noexcept { notes().task_loc = loc; }
// The program's return address and source location while the runtime's
// taskloop runs; returns the ones they replace (a taskloop inside a taskloop's
// task), for leave_taskloop.
struct taskloop_marks {
  const void* ra;
  const void* loc;
};
FORKSCALE_DETAIL_OMPT_GLUE taskloop_marks enter_taskloop(const void* ra, const void* loc) noexcept {
  thread_notes& n = notes();
  const taskloop_marks saved{n.taskloop_ra, n.taskloop_loc};
  n.taskloop_ra = ra;
  n.taskloop_loc = loc;
  n.task_loc = nullptr;  // the loop's pattern task: allocated, never created
  return saved;
}
FORKSCALE_DETAIL_OMPT_GLUE void leave_taskloop(taskloop_marks saved) noexcept {
  thread_notes& n = notes();
  n.taskloop_ra = saved.ra;
  n.taskloop_loc = saved.loc;
}
// Untied tasks: the runtime calls each part of one through untied_part (below),
// which tells the tool where the part ends (tasks.hpp, part_returned).
FORKSCALE_DETAIL_OMPT_GLUE bool untied_parts_wanted() noexcept {
  return status().callbacks_live.load(std::memory_order_relaxed) && on();
}
FORKSCALE_DETAIL_OMPT_GLUE void note_untied_alloc(void** record_slot) noexcept {
  notes().untied_record_slot = record_slot;
}
struct untied_part_marks {
  const void* task;
  bool left;
};
FORKSCALE_DETAIL_OMPT_GLUE untied_part_marks begin_untied_part(const void* record) noexcept {
  thread_notes& n = notes();
  const untied_part_marks saved{n.part_task, n.part_left};
  n.part_task = record;
  n.part_left = false;
  return saved;
}
FORKSCALE_DETAIL_OMPT_GLUE void end_untied_part(const void* record, untied_part_marks saved) {
  thread_notes& n = notes();
  const bool left = n.part_left;
  n.part_task = saved.task;
  n.part_left = saved.left;
  if (record && on())
    task_events<ompt_clock>::part_returned(static_cast<task_record*>(const_cast<void*>(record)), left);
}
#endif

// The runtime's own definition of an entry point this header wraps.
template <class Fn>
Fn next_symbol(const char* name) {
  void* f = ::dlsym(RTLD_NEXT, name);
  if (!f) {
    std::fprintf(stderr, "forkscale: %s not found in the OpenMP runtime (forkscale/ompt.hpp needs LLVM's libomp)\n",
                 name);
    std::abort();
  }
  return reinterpret_cast<Fn>(f);
}

// __kmpc_fork_call is variadic: the `argc` arguments after `microtask` (the
// region's shared variables, each pointer-sized) are passed on as they came, to
// a call with at least as many (the runtime reads `argc`).
using fork_call_t = void (*)(void*, std::int32_t, void*, ...);
template <std::size_t... I>
void fork_with(fork_call_t real, void* loc, std::int32_t argc, void* microtask, void* const* a,
               std::index_sequence<I...>) {
  real(loc, argc, microtask, a[I]...);
}

}  // namespace ompt
}  // namespace detail
}  // namespace forkscale

// The entry points are defined in the program (not in the library: an archive
// member that defined __kmpc_dispatch_* would be linked into every OpenMP
// program that links forkscale::compiled).
#ifndef FORKSCALE_DETAIL_BUILDING_OMPT
#define FORKSCALE_DETAIL_OMPT_ENTRY extern "C" __attribute__((weak, visibility("default")))

FORKSCALE_DETAIL_OMPT_ENTRY ompt_start_tool_result_t* ompt_start_tool(unsigned int omp_version,
                                                                      const char* runtime_version) {
  return ::forkscale::detail::ompt::start_tool(omp_version, runtime_version);
}

// libomp's loop dispatch (kmp.h): a dynamic, guided or runtime-scheduled loop
// starts with __kmpc_dispatch_init_<T> and takes each chunk with
// __kmpc_dispatch_next_<T>, which returns 0 when the thread's part is done.
#define FORKSCALE_DETAIL_OMPT_DISPATCH(suffix, Int, Stride)                                                       \
  FORKSCALE_DETAIL_OMPT_ENTRY void __kmpc_dispatch_init_##suffix(void* loc, std::int32_t gtid, std::int32_t kind, \
                                                                 Int lb, Int ub, Stride st, Stride chunk) {       \
    using real_t = void (*)(void*, std::int32_t, std::int32_t, Int, Int, Stride, Stride);                         \
    static const real_t real = ::forkscale::detail::ompt::next_symbol<real_t>("__kmpc_dispatch_init_" #suffix);   \
    ::forkscale::detail::ompt::note_dispatch_ra(__builtin_return_address(0));                                     \
    real(loc, gtid, kind, lb, ub, st, chunk);                                                                     \
    ::forkscale::detail::ompt::note_dispatch_ra(nullptr);                                                         \
  }                                                                                                               \
  FORKSCALE_DETAIL_OMPT_ENTRY int __kmpc_dispatch_next_##suffix(void* loc, std::int32_t gtid, std::int32_t* last, \
                                                                Int* lb, Int* ub, Stride* st) {                   \
    using real_t = int (*)(void*, std::int32_t, std::int32_t*, Int*, Int*, Stride*);                              \
    static const real_t real = ::forkscale::detail::ompt::next_symbol<real_t>("__kmpc_dispatch_next_" #suffix);   \
    struct call_t {                                                                                               \
      void* loc;                                                                                                  \
      std::int32_t gtid;                                                                                          \
      std::int32_t* last;                                                                                         \
      Int* lb;                                                                                                    \
      Int* ub;                                                                                                    \
      Stride* st;                                                                                                 \
      static int run(void* p) {                                                                                   \
        call_t& c = *static_cast<call_t*>(p);                                                                     \
        return real(c.loc, c.gtid, c.last, c.lb, c.ub, c.st);                                                     \
      }                                                                                                           \
    } call{loc, gtid, last, lb, ub, st};                                                                          \
    return ::forkscale::detail::ompt::dispatch_next(&call_t::run, &call);                                         \
  }
FORKSCALE_DETAIL_OMPT_DISPATCH(4, std::int32_t, std::int32_t)
FORKSCALE_DETAIL_OMPT_DISPATCH(4u, std::uint32_t, std::int32_t)
FORKSCALE_DETAIL_OMPT_DISPATCH(8, std::int64_t, std::int64_t)
FORKSCALE_DETAIL_OMPT_DISPATCH(8u, std::uint64_t, std::int64_t)
#undef FORKSCALE_DETAIL_OMPT_DISPATCH

// `parallel` (kmp_csupport.cpp): the code pointer libomp reports for a region is
// the return address of this call, which is in the runtime when the program
// reached it by a tail call (an outlined function whose last statement is a
// nested `parallel`), and shared by every region whose call the compiler merged
// into one. The wrapper notes the program's return address and the source
// location the compiler passes (`loc`, an ident_t*) for parallel_begin.
FORKSCALE_DETAIL_OMPT_ENTRY void __kmpc_fork_call(void* loc, std::int32_t argc, void* microtask, ...) {
  namespace o = ::forkscale::detail::ompt;
  static const o::fork_call_t real = o::next_symbol<o::fork_call_t>("__kmpc_fork_call");
  constexpr std::int32_t most = 256;
  if (argc < 0 || argc > most) {
    std::fprintf(stderr,
                 "forkscale: a parallel region with %d shared variables: forkscale/ompt.hpp passes at most %d on "
                 "to the OpenMP runtime\n",
                 static_cast<int>(argc), static_cast<int>(most));
    std::abort();
  }
  void* a[most] = {};  // those past argc are passed too, and not read
  std::va_list ap;
  va_start(ap, microtask);
  for (std::int32_t i = 0; i < argc; ++i) a[i] = va_arg(ap, void*);
  va_end(ap);
  o::note_fork(__builtin_return_address(0), loc);
  if (argc <= 16) {
    o::fork_with(real, loc, argc, microtask, a, std::make_index_sequence<16>{});
  } else if (argc <= 64) {
    o::fork_with(real, loc, argc, microtask, a, std::make_index_sequence<64>{});
  } else {
    o::fork_with(real, loc, argc, microtask, a, std::make_index_sequence<most>{});
  }
  o::note_fork(nullptr, nullptr);  // (consumed by parallel_begin, unless the tool is off)
}

namespace forkscale {
namespace detail {
namespace ompt {
// An untied task's own record of its routine and of the tool's record, kept in
// the task's memory right before its shared variables (kmp.h: kmp_task_t begins
// with `shareds` and `routine`; libomp places the shareds right after the
// task's size, rounded to a pointer).
struct untied_slot {
  void* routine;
  void* record;
};
inline untied_slot* slot_of(void* task) noexcept {
  return reinterpret_cast<untied_slot*>(static_cast<char*>(*static_cast<void**>(task)) - sizeof(untied_slot));
}
// The routine of an untied task: the runtime calls it once per part of the task
// (clang splits its body at its task scheduling points). The record is read
// before the part runs: once a part has queued the next one, the task may end
// on another thread and be freed.
inline std::int32_t untied_part(std::int32_t gtid, void* task) {
  const untied_slot* s = slot_of(task);
  const void* record = s->record;
  using routine_t = std::int32_t (*)(std::int32_t, void*);
  const routine_t routine = reinterpret_cast<routine_t>(s->routine);
  const untied_part_marks saved = begin_untied_part(record);
  const std::int32_t rc = routine(gtid, task);
  end_untied_part(record, saved);
  return rc;
}
// A taskloop's pattern task: libomp copies it into the loop's tasks, which are
// created without __kmpc_omp_task_alloc: they keep the compiler's routine.
inline void untied_pattern(void* task) noexcept {
  void** t = static_cast<void**>(task);
  if (!t || t[1] != reinterpret_cast<void*>(&untied_part)) return;
  t[1] = slot_of(task)->routine;
  note_untied_alloc(nullptr);
}
}  // namespace ompt
}  // namespace detail
}  // namespace forkscale

// `task` (kmp_tasking.cpp): the compiler allocates each task with
// __kmpc_omp_task_alloc, passing the construct's source location, then hands it
// to the runtime (task-create comes then): the location names the task where its
// return address does not (a tail call, a call shared by several constructs).
// An untied task (flags bit 0 clear: kmp_tasking_flags_t's tiedness) gets room
// for an untied_slot, and its parts are called through untied_part.
FORKSCALE_DETAIL_OMPT_ENTRY void* __kmpc_omp_task_alloc(void* loc, std::int32_t gtid, std::int32_t flags,
                                                        std::size_t sizeof_task, std::size_t sizeof_shareds,
                                                        void* task_entry) {
  namespace o = ::forkscale::detail::ompt;
  using real_t = void* (*)(void*, std::int32_t, std::int32_t, std::size_t, std::size_t, void*);
  static const real_t real = o::next_symbol<real_t>("__kmpc_omp_task_alloc");
  o::note_task_alloc(loc);
  if ((flags & 1) != 0 || !task_entry || !o::untied_parts_wanted())
    return real(loc, gtid, flags, sizeof_task, sizeof_shareds, task_entry);
  const std::size_t own = (sizeof_task + sizeof(void*) - 1) / sizeof(void*) * sizeof(void*) + sizeof(o::untied_slot);
  void* t = real(loc, gtid, flags, own, sizeof_shareds ? sizeof_shareds : sizeof(void*), task_entry);
  void** fields = static_cast<void**>(t);
  if (!t || fields[0] != static_cast<char*>(t) + own) return t;  // not the layout expected: left as it is
  o::untied_slot* s = o::slot_of(t);
  s->routine = task_entry;
  s->record = nullptr;
  fields[1] = reinterpret_cast<void*>(&o::untied_part);
  o::note_untied_alloc(&s->record);
  return t;
}

// `taskloop` (kmp_tasking.cpp): the tasks it creates report a code pointer inside
// the runtime; the program's own return address (or, after a tail call, the
// source location) names the taskloop's line.
FORKSCALE_DETAIL_OMPT_ENTRY void __kmpc_taskloop(void* loc, int gtid, void* task, int if_val, std::uint64_t* lb,
                                                 std::uint64_t* ub, std::int64_t st, int nogroup, int sched,
                                                 std::uint64_t grainsize, void* task_dup) {
  using real_t =
      void (*)(void*, int, void*, int, std::uint64_t*, std::uint64_t*, std::int64_t, int, int, std::uint64_t, void*);
  static const real_t real = ::forkscale::detail::ompt::next_symbol<real_t>("__kmpc_taskloop");
  ::forkscale::detail::ompt::untied_pattern(task);
  const auto saved = ::forkscale::detail::ompt::enter_taskloop(__builtin_return_address(0), loc);
  real(loc, gtid, task, if_val, lb, ub, st, nogroup, sched, grainsize, task_dup);
  ::forkscale::detail::ompt::leave_taskloop(saved);
}
FORKSCALE_DETAIL_OMPT_ENTRY void __kmpc_taskloop_5(void* loc, int gtid, void* task, int if_val, std::uint64_t* lb,
                                                   std::uint64_t* ub, std::int64_t st, int nogroup, int sched,
                                                   std::uint64_t grainsize, int modifier, void* task_dup) {
  using real_t = void (*)(void*, int, void*, int, std::uint64_t*, std::uint64_t*, std::int64_t, int, int, std::uint64_t,
                          int, void*);
  static const real_t real = ::forkscale::detail::ompt::next_symbol<real_t>("__kmpc_taskloop_5");
  ::forkscale::detail::ompt::untied_pattern(task);
  const auto saved = ::forkscale::detail::ompt::enter_taskloop(__builtin_return_address(0), loc);
  real(loc, gtid, task, if_val, lb, ub, st, nogroup, sched, grainsize, modifier, task_dup);
  ::forkscale::detail::ompt::leave_taskloop(saved);
}
#undef FORKSCALE_DETAIL_OMPT_ENTRY
#endif  // FORKSCALE_DETAIL_BUILDING_OMPT
#endif  // FORKSCALE_DETAIL_OMPT_AVAILABLE && FORKSCALE_ENABLE

#undef FORKSCALE_DETAIL_OMPT_GLUE
#include "../detail/macro_unscope.hpp"
