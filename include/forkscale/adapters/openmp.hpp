// openmp.hpp: forkscale adapter for OpenMP tasks, taskwait, taskgroup, depend,
// parallel regions, `parallel for` loops and taskloop, with GCC's libgomp and
// LLVM's libomp. (With libomp, forkscale/ompt.hpp measures the same constructs
// without annotations.)
//
// OpenMP's constructs are pragmas, so the adapter keeps them: the program still
// writes every `#pragma omp` line it had, with its clauses, and adds one line at
// each spawn point, each task body and each join:
//
//   #pragma omp task shared(x)               auto tk = fs::omp::spawn_point();     // spawn point
//   x = fib(n - 1);                          #pragma omp task shared(x)
//                                            { fs::omp::task_scope ts(tk); x = fib(n - 1); }
//   #pragma omp taskwait                     fs::omp::taskwait();                  // join
//
//   #pragma omp taskgroup                    fs::omp::taskgroup([&] {
//   { produce(); }                             produce();                          // its tasks, and theirs
//                                            });
//
//   #pragma omp parallel                     { fs::omp::team team;                 // fork of the region's
//   #pragma omp single                         #pragma omp parallel                //   work, and its join
//   { root(); }                                #pragma omp single
//                                              { fs::omp::task_scope ts(team); root(); }
//                                            }
//
//   #pragma omp parallel for \               fs::omp::parallel_for(0, n, 64,
//           schedule(dynamic, 64)                                 [&](int i) { f(i); });
//   for (int i = 0; i < n; ++i) f(i);
//
// The model of each construct (docs/openmp.md has the details):
//  - task: a spawn at spawn_point(); the child's scope is the task body, opened by
//    task_scope on whatever thread runs it. An undeferred task (if(0), final, a
//    team of one) runs at once on the spawning thread: the same dag.
//  - taskwait: the join of the children of the task. Wrap profiled calls in
//    fs::omp::call_site, which keeps that meaning; fs::call_site would make the
//    call a Cilk sync scope (docs/openmp.md says when the two differ).
//  - taskgroup: an fs::task_group. Tasks the encountering task creates inside it go
//    into the group; tasks those tasks create and leave unwaited are handed on to
//    the group when their parent ends (docs/model.md); the end of the taskgroup is
//    the group's join.
//  - parallel region: the team's work is one child of the encountering task,
//    spawned when the team is declared; the region's end (its implicit barrier) is
//    the join of that child and of every task left unwaited inside the region.
//    Code that every thread of the team runs outside the measured block is not
//    measured (it has no task scope on threads other than the master's).
//  - parallel_for: each chunk is a child of the calling task, spawned before the
//    loop starts, in index order; the loop's end is their join (a flat fork).
//    Schedules dynamic, static (round robin or one share per thread), guided.
//  - taskloop: a task per chunk, children in index order, joined where its
//    taskgroup ends.
//  - depend: spawn_point(deps, {in(&a), out(&b)}); a task joins the ends of its
//    predecessors as its scope opens (detail/ompt/depend.hpp).
//
// Tasks must be tied (the default). forkscale keeps the running task per thread;
// an untied task may resume on another thread after a task scheduling point and
// would close its scope on a thread that never opened it.
//
// Opt-in: forkscale.hpp does not include this header.
#pragma once

#ifndef _OPENMP
#error \
    "forkscale/openmp.hpp needs OpenMP: compile with -fopenmp (GCC: libgomp) or -fopenmp=libomp (Clang: LLVM's libomp), or link CMake's OpenMP::OpenMP_CXX"
#endif

#include <omp.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "../detail/engine/hooks.hpp"  // current_frame: the running task, as the guards see it
#include "../detail/ompt/schedule.hpp"
#include "../forkscale.hpp"
#if FORKSCALE_ENABLE
#include "../detail/ompt/depend.hpp"
#endif

// Functions whose own memory accesses ThreadSanitizer must not track (see
// basic_task_token's destructor).
#if defined(__SANITIZE_THREAD__)
#define FORKSCALE_DETAIL_OMP_NO_TSAN __attribute__((no_sanitize("thread")))
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FORKSCALE_DETAIL_OMP_NO_TSAN __attribute__((no_sanitize("thread")))
#endif
#endif
#ifndef FORKSCALE_DETAIL_OMP_NO_TSAN
#define FORKSCALE_DETAIL_OMP_NO_TSAN
#endif

FORKSCALE_NAMESPACE_BEGIN

namespace omp {
template <class Clock>
class basic_team;
template <class Clock>
class basic_task_scope;
}  // namespace omp

namespace detail {
namespace omp_adapter {
// Every spawn of this adapter names OpenMP (options.backend automatic).
inline constexpr unsigned char from_openmp = backend_bit(backend::openmp);
}  // namespace omp_adapter
}  // namespace detail

#if FORKSCALE_ENABLE
namespace detail {
namespace omp_adapter {

// An fs::omp::taskgroup open in a task: spawn points of that task (and only of
// that task: not of the tasks it creates, nor of tasks its thread runs while it
// waits) go into the group. One per taskgroup, on the stack of the thread that
// runs the task; they nest as the tied tasks of one thread do.
template <class Clock>
struct group_context {
  const void* task;  // the task that opened the taskgroup (its frame)
  basic_task_group<Clock>* group;
  group_context* outer;
  std::uint64_t spawned = 0;  // spawns into the group since its last join
  bool open = true;

  static group_context*& innermost() noexcept {
    static thread_local group_context* top = nullptr;
    return top;
  }
  explicit group_context(basic_task_group<Clock>& g) noexcept
      : task(detail::current_frame<Clock>), group(&g), outer(innermost()) {
    innermost() = this;
  }
  group_context(const group_context&) = delete;
  group_context& operator=(const group_context&) = delete;
  ~group_context() { close(); }
  void close() noexcept {
    if (open) {
      innermost() = outer;
      open = false;
    }
  }
};

}  // namespace omp_adapter
}  // namespace detail
#endif

namespace omp {

// The spawn point of one task, handed to the task body through OpenMP's data
// environment. A local variable is firstprivate in a task by default, and OpenMP
// copies it exactly once, when it creates the task: copying a task_token therefore
// *moves* the spawn point into the copy (the variable left behind is empty). The
// body's task_scope takes it from there. A token that reaches no task_scope
// reports a spawned task that never ran when it is destroyed.
template <class Clock = default_clock>
class basic_task_token {
 public:
  basic_task_token() noexcept { ::new (static_cast<void*>(&token_)) spawn_token(); }
  explicit basic_task_token(spawn_token&& tk, const site& where = site::current()) noexcept : where_(where) {
    ::new (static_cast<void*>(&token_)) spawn_token(std::move(tk));
  }
  basic_task_token(const basic_task_token& other) noexcept : where_(other.where_) {
    ::new (static_cast<void*>(&token_)) spawn_token(std::move(other.token_));
    take_dependences(other);
  }
  basic_task_token& operator=(const basic_task_token& other) noexcept {
    if (this != &other) {
      drop();
      token_ = std::move(other.token_);
      where_ = other.where_;
      take_dependences(other);
    }
    return *this;
  }
  // libomp (LLVM 14 at least) runs the destructors of a task's firstprivate copies
  // after it has published the task's completion, on memory it then gives to a new
  // task — maybe on another thread — through an allocator ThreadSanitizer does not
  // see. So the emptiness check here is not instrumented. A token that still holds
  // its spawn point (no task took it) reports a task that never ran, with its site.
  FORKSCALE_DETAIL_OMP_NO_TSAN ~basic_task_token() {
#if FORKSCALE_ENABLE
    if (token_.target != nullptr || node_ != nullptr || preds_ != nullptr) drop();
#endif
  }

  // True while it holds a spawn point not yet handed to a task scope.
  explicit operator bool() const noexcept { return static_cast<bool>(token_); }
  spawn_token take() noexcept { return std::move(token_); }

#if FORKSCALE_ENABLE
  // The task's place among its siblings' dependences (spawn_point with
  // dependences): its predecessors' ends, and its own node. task_scope takes them.
  detail::join_set* take_predecessors() noexcept { return std::exchange(preds_, nullptr); }
  detail::depend::node* take_node() noexcept { return std::exchange(node_, nullptr); }
  void set_dependences(detail::depend::node* n, detail::join_set* preds) noexcept {
    node_ = n;
    preds_ = preds;
  }
#endif

 private:
  void take_dependences(const basic_task_token& other) noexcept {
#if FORKSCALE_ENABLE
    node_ = std::exchange(other.node_, nullptr);
    preds_ = std::exchange(other.preds_, nullptr);
#else
    (void)other;
#endif
  }
  void drop() noexcept {
#if FORKSCALE_ENABLE
    if (token_) detail::task_hooks_now()->drop_unrun(token_, where_);
    if (node_) detail::depend::publish(node_, detail::depend::snapshot{});  // successors must not wait for it
    detail::depend::drop(std::exchange(node_, nullptr));
    if (preds_) std::exchange(preds_, nullptr)->release(nullptr);
#endif
  }

  union {
    mutable spawn_token token_;  // a union member: its destructor runs only from ours
  };
  site where_;
#if FORKSCALE_ENABLE
  mutable detail::depend::node* node_ = nullptr;
  mutable detail::join_set* preds_ = nullptr;
#endif
};

// The spawn point of a task: call it right before `#pragma omp task`, in the
// task that creates it. Inside an fs::omp::taskgroup opened by this task the
// child goes into that group, as OpenMP's taskgroup collects it.
template <class Clock = default_clock>
basic_task_token<Clock> spawn_point(const site& where = site::current()) {
#if FORKSCALE_ENABLE
  auto* ctx = detail::omp_adapter::group_context<Clock>::innermost();
  if (ctx && ctx->task == static_cast<const void*>(detail::current_frame<Clock>)) {
    ++ctx->spawned;
    return basic_task_token<Clock>(
        detail::adapter_spawn_point<Clock>(detail::omp_adapter::from_openmp, *ctx->group, where), where);
  }
#endif
  return basic_task_token<Clock>(detail::adapter_spawn_point<Clock>(detail::omp_adapter::from_openmp, where), where);
}

// The spawn point of a task joined by an fs::sync_point on `group`.
template <class Clock>
basic_task_token<Clock> spawn_point(basic_task_group<Clock>& group, const site& where = site::current()) {
  return basic_task_token<Clock>(detail::adapter_spawn_point<Clock>(detail::omp_adapter::from_openmp, group, where),
                                 where);
}

// A parallel region's fork and join. Declare it right before `#pragma omp
// parallel`, in a block that ends right after the region: the team's measured
// work — the block that opens `task_scope ts(team)`, normally a `single` or a
// `master` block — is one child spawned here, and the end of the block joins it
// together with every task the region left unwaited (the region's implicit
// barrier waited for them). The encountering task is blocked meanwhile: what its
// thread does in the region outside the measured block is not measured.
template <class Clock = default_clock>
class basic_team {
 public:
  explicit basic_team(const site& where = site::current())
      : token_(detail::adapter_spawn_point<Clock>(detail::omp_adapter::from_openmp, group_, where), where) {
    join_.emplace(group_, where);
  }
  basic_team(const basic_team&) = delete;
  basic_team& operator=(const basic_team&) = delete;
  // Members go in reverse order: an unused token is reported as a task that never
  // ran (and counts as empty), then the join, then the group.
  ~basic_team() = default;

 private:
  friend class basic_task_scope<Clock>;
  // The first block to open a scope on the team gets its spawn point; any other
  // (a task_scope in code every thread runs) gets none, without a data race.
  spawn_token take() noexcept {
    if (taken_.exchange(true, std::memory_order_acq_rel)) return spawn_token{};
    return token_.take();
  }

  basic_task_group<Clock> group_;
  std::optional<basic_sync_point<Clock>> join_;
  basic_task_token<Clock> token_;
  std::atomic<bool> taken_{false};
};

// The child half: the first line of the task body (or of the team's measured
// block). It closes when the body ends.
template <class Clock = default_clock>
class basic_task_scope {
 public:
  explicit basic_task_scope(basic_task_token<Clock>& tk, const site& where = site::current()) noexcept
      : scope_(tk.take(), where) {
    open_dependences(tk, where);
  }
  explicit basic_task_scope(basic_task_token<Clock>&& tk, const site& where = site::current()) noexcept
      : scope_(tk.take(), where) {
    open_dependences(tk, where);
  }
  explicit basic_task_scope(basic_team<Clock>& team, const site& where = site::current()) noexcept
      : scope_(team.take(), where) {}
  basic_task_scope(const basic_task_scope&) = delete;
  basic_task_scope& operator=(const basic_task_scope&) = delete;
  // A task with dependences hands its end to its successors (detail/ompt/depend.hpp)
  // before its scope closes.
  ~basic_task_scope() {
#if FORKSCALE_ENABLE
    if (!node_) return;
    detail::frame* f = detail::current_frame<Clock>;
    if (f && f->sess) {
      detail::depend::end_predecessor<Clock>(node_, *f);
    } else {
      detail::depend::publish(node_, detail::depend::snapshot{});
      detail::depend::drop(node_);
    }
#endif
  }

 private:
  void open_dependences(basic_task_token<Clock>& tk, const site& where) noexcept {
#if FORKSCALE_ENABLE
    node_ = tk.take_node();
    detail::join_set* preds = tk.take_predecessors();
    // The predecessors' ends join the task's path as it starts (one sync).
    if (preds && detail::current_frame<Clock>) detail::depend::join_predecessors<Clock>(preds, where, true);
    if (preds) preds->release(nullptr);
#else
    (void)tk;
    (void)where;
#endif
  }

  basic_spawn_scope<Clock> scope_;
#if FORKSCALE_ENABLE
  detail::depend::node* node_ = nullptr;
#endif
};

// `#pragma omp taskwait`, with its join: the task's strand ends before the wait
// and a new one starts after it, after every child the task created since its
// last join. Inside fs::omp::taskgroup blocks opened by this task, the children
// in those groups are joined too (one more sync for each group that has some).
template <class Clock = default_clock>
void taskwait(const site& where = site::current()) {
  {
    basic_sync_point<Clock> sp(where);
#pragma omp taskwait
  }
#if FORKSCALE_ENABLE
  const void* task = detail::current_frame<Clock>;
  for (auto* ctx = detail::omp_adapter::group_context<Clock>::innermost(); ctx && ctx->task == task; ctx = ctx->outer) {
    if (ctx->spawned != 0) {
      ctx->spawned = 0;
      basic_sync_point<Clock> sp(*ctx->group, where);
    }
  }
#endif
}

// `#pragma omp taskgroup { body(); }`, with its join: an fs::task_group that
// collects the tasks this task creates in `body` (with their descendants), joined
// where the taskgroup ends. `body` must not throw (OpenMP forbids leaving a
// structured block by an exception).
template <class Clock = default_clock, class Body>
void taskgroup(Body&& body, const site& where = site::current()) {
  basic_task_group<Clock> group;
  std::optional<basic_sync_point<Clock>> join;
  {
#if FORKSCALE_ENABLE
    detail::omp_adapter::group_context<Clock> ctx(group);
#endif
#pragma omp taskgroup
    {
      std::forward<Body>(body)();
#if FORKSCALE_ENABLE
      ctx.close();  // tasks this thread runs while the taskgroup waits are not its own
#endif
      join.emplace(group, where);  // the strand ends before the taskgroup's wait
    }
  }
  join.reset();  // ... and merges the group after it
}

// How parallel_for cuts the loop and hands the chunks to threads (each chunk is
// one child of the calling task, whatever the schedule):
//  - dynamic:       `schedule(dynamic, chunk)`: chunks of `chunk` indices, taken in order;
//  - static_chunks: `schedule(static, chunk)`: the same chunks, dealt round robin;
//  - static_even:   `schedule(static)`: one contiguous share per thread (`chunk`
//                   is not used), as libomp cuts it (detail/ompt/schedule.hpp);
//  - guided:        `schedule(guided, chunk)`: chunks that shrink with what is
//                   left, down to `chunk`, as libomp cuts them, taken in order.
enum class loop_schedule { dynamic, static_chunks, static_even, guided };

// `#pragma omp parallel for schedule(...)` over [first, last), calling body(i) for
// each index. Each chunk of the schedule is one child of the calling task, spawned
// before the loop starts, in index order (so chunk k's spawn comes after k others:
// its path carries k burdens), and the loop's end joins them all, with whatever
// tasks they left unwaited. num_threads <= 0 means omp_get_max_threads(). `body`
// must not throw.
template <class Clock = default_clock, class First, class Last, class Chunk, class Body>
void parallel_for(First first, Last last, Chunk chunk, Body&& body, loop_schedule kind = loop_schedule::dynamic,
                  int num_threads = 0, const site& where = site::current()) {
  using Index = std::common_type_t<First, Last>;
  static_assert(std::is_integral<Index>::value && std::is_integral<Chunk>::value,
                "fs::omp::parallel_for: first, last and chunk must be integers");
  const Index lo = static_cast<Index>(first);
  const Index hi = static_cast<Index>(last);
  if (!(lo < hi)) return;
  const auto count = static_cast<std::uint64_t>(hi - lo);
  const std::uint64_t size = chunk > 0 ? static_cast<std::uint64_t>(chunk) : 1u;
  const int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
  const std::vector<detail::schedule::chunk> parts =
      kind == loop_schedule::static_even ? detail::schedule::static_shares(count, static_cast<unsigned>(threads))
      : kind == loop_schedule::guided    ? detail::schedule::guided(count, static_cast<unsigned>(threads), size)
                                         : detail::schedule::fixed(count, size);
  const auto chunks = static_cast<std::int64_t>(parts.size());
  const bool dealt = kind == loop_schedule::static_chunks || kind == loop_schedule::static_even;
  auto run = [&](std::int64_t k) {
    const detail::schedule::chunk& c = parts[static_cast<std::size_t>(k)];
    for (std::uint64_t i = c.begin; i < c.end; ++i) body(static_cast<Index>(lo + static_cast<Index>(i)));
  };

#if FORKSCALE_ENABLE
  if (detail::current_frame<Clock> != nullptr) {
    basic_task_group<Clock> group;
    std::vector<spawn_token> tokens;
    tokens.reserve(parts.size());
    for (std::int64_t k = 0; k < chunks; ++k)
      tokens.push_back(detail::adapter_spawn_point<Clock>(detail::omp_adapter::from_openmp, group, where));
    std::optional<basic_sync_point<Clock>> join;
    join.emplace(group, where);
    auto run_chunk = [&](std::int64_t k) {
      basic_spawn_scope<Clock> scope(std::move(tokens[static_cast<std::size_t>(k)]), where);
      run(k);
    };
    if (dealt) {
#pragma omp parallel for schedule(static, 1) num_threads(threads)
      for (std::int64_t k = 0; k < chunks; ++k) run_chunk(k);
    } else {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
      for (std::int64_t k = 0; k < chunks; ++k) run_chunk(k);
    }
    join.reset();
    return;
  }
#endif
  (void)where;
  if (dealt) {
#pragma omp parallel for schedule(static, 1) num_threads(threads)
    for (std::int64_t k = 0; k < chunks; ++k) run(k);
  } else {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (std::int64_t k = 0; k < chunks; ++k) run(k);
  }
}

// The size of taskloop's tasks: grainsize(g) iterations or num_tasks(k) tasks;
// neither (taskloop_size{}) is 10 tasks per thread of the team, as libomp does.
struct taskloop_size {
  std::uint64_t grainsize = 0;
  std::uint64_t num_tasks = 0;
};
inline taskloop_size grainsize(std::uint64_t g) noexcept { return taskloop_size{g, 0}; }
inline taskloop_size num_tasks(std::uint64_t k) noexcept { return taskloop_size{0, k}; }

// `#pragma omp taskloop grainsize(g)` (or num_tasks(k)) over [first, last), run by
// one task of a team (a `single` block, a task): it creates one task per chunk,
// cut as libomp cuts them (detail/ompt/schedule.hpp), each a child spawned in
// index order into a taskgroup that ends with the loop — taskloop's implicit
// taskgroup. With `nogroup` the tasks are plain children of the calling task,
// joined by its next taskwait or the region's end. The tasks share one copy of
// `body`, which must not throw.
template <class Clock = default_clock, class First, class Last, class Body>
void taskloop(First first, Last last, taskloop_size size, Body&& body, bool nogroup = false,
              const site& where = site::current()) {
  using Index = std::common_type_t<First, Last>;
  static_assert(std::is_integral<Index>::value, "fs::omp::taskloop: first and last must be integers");
  const Index lo = static_cast<Index>(first);
  const Index hi = static_cast<Index>(last);
  if (!(lo < hi)) return;
  const std::vector<detail::schedule::chunk> parts =
      detail::schedule::taskloop(static_cast<std::uint64_t>(hi - lo), size.grainsize, size.num_tasks,
                                 static_cast<unsigned>(omp_get_num_threads()));
  auto fn = std::make_shared<std::decay_t<Body>>(std::forward<Body>(body));
  const site at = where;
  auto create = [&] {
    for (const detail::schedule::chunk& c : parts) {
      basic_task_token<Clock> tk = spawn_point<Clock>(at);
      const std::uint64_t b = c.begin, e = c.end;
#pragma omp task firstprivate(tk, b, e, fn, lo, at)
      {
        basic_task_scope<Clock> ts(tk, at);
        for (std::uint64_t i = b; i < e; ++i) (*fn)(static_cast<Index>(lo + static_cast<Index>(i)));
      }
    }
  };
  if (nogroup) {
    create();
  } else {
    taskgroup<Clock>(create, at);
  }
}

// One `depend` clause of a task: the variable (its address, as OpenMP compares
// them) and the dependence type.
enum class depend_type { in, out, inout, mutexinoutset, inoutset };
struct dependence {
  const void* address = nullptr;
  depend_type type = depend_type::in;
};
inline dependence in(const void* v) noexcept { return dependence{v, depend_type::in}; }
inline dependence out(const void* v) noexcept { return dependence{v, depend_type::out}; }
inline dependence inout(const void* v) noexcept { return dependence{v, depend_type::inout}; }
inline dependence mutexinoutset(const void* v) noexcept { return dependence{v, depend_type::mutexinoutset}; }
inline dependence inoutset(const void* v) noexcept { return dependence{v, depend_type::inoutset}; }

// The dependences among the tasks one task creates (siblings, as `depend`
// relates them): declare one in the creating task before its first task with a
// depend clause, and give it to spawn_point with that task's clauses. A task
// with predecessors joins their ends as it starts (docs/openmp.md, "depend").
template <class Clock = default_clock>
class basic_dependences {
 public:
  basic_dependences() = default;
  basic_dependences(const basic_dependences&) = delete;
  basic_dependences& operator=(const basic_dependences&) = delete;
#if FORKSCALE_ENABLE
  detail::depend::tracker& tracker() noexcept { return tracker_; }

 private:
  detail::depend::tracker tracker_;
#endif
};

// The spawn point of a task with depend clauses:
//   auto tk = fs::omp::spawn_point(deps, {fs::omp::in(&a), fs::omp::out(&b)});
//   #pragma omp task depend(in: a) depend(out: b)
//   { fs::omp::task_scope ts(tk); ... }
template <class Clock>
basic_task_token<Clock> spawn_point(basic_dependences<Clock>& deps, std::initializer_list<dependence> clauses,
                                    const site& where = site::current()) {
  basic_task_token<Clock> tk = spawn_point<Clock>(where);
#if FORKSCALE_ENABLE
  detail::frame* f = detail::current_frame<Clock>;
  if (!f || !f->sess || !tk) return tk;
  static_assert(static_cast<int>(depend_type::inoutset) == static_cast<int>(detail::depend::dep_type::inoutset),
                "depend_type and detail::depend::dep_type list the same types in the same order");
  detail::depend::node* n = detail::depend::make_node();
  std::vector<detail::depend::node*> preds;
  for (const dependence& d : clauses)
    deps.tracker().add(n, d.address, static_cast<detail::depend::dep_type>(d.type), preds);
  detail::join_set* set = nullptr;
  detail::depend::connect_all(preds, n, set, f->sess);
  tk.set_dependences(n, set);
#else
  (void)deps;
  (void)clauses;
#endif
  return tk;
}

// The names a program uses, on the default clock policy.
// A profiled call with OpenMP's semantics: a taskwait inside the called function
// waits for every child of the task, the caller's too (fs::call_site would make the
// call a Cilk sync scope instead).
template <class Clock = default_clock>
using basic_call_site = ::forkscale::basic_call_site<Clock, false>;
using call_site = basic_call_site<default_clock>;

using task_token = basic_task_token<default_clock>;
using task_scope = basic_task_scope<default_clock>;
using team = basic_team<default_clock>;
using dependences = basic_dependences<default_clock>;

}  // namespace omp

FORKSCALE_NAMESPACE_END

#include "../detail/burden/openmp.hpp"  // calibrate_burden(backend::openmp)
