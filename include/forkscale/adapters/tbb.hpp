// tbb.hpp: forkscale adapter for oneTBB. The same names as oneTBB, in
// forkscale::tbb, with the spawns and joins recorded:
//
//   tbb::task_group g;                       fs::tbb::task_group g;
//   g.run([&] { a(); });                     g.run([&] { a(); });       // spawn into the group
//   g.wait();                                g.wait();                  // the group's join
//   tbb::parallel_invoke(f, g);              fs::tbb::parallel_invoke(f, g);
//   tbb::parallel_for(0, n, body);           fs::tbb::parallel_for(0, n, body);
//   tbb::parallel_reduce(r, 0, body, plus);  fs::tbb::parallel_reduce(r, 0, body, plus);
//   arena.execute(f);                        fs_arena.execute(f);
//
//  - task_group: run(f) spawns f into the group, from any task — including a task
//    of the same group; wait() is the group's join; cancel() is forwarded (a task
//    cancelled before it ran is reported by the engine and counts as empty).
//  - parallel_invoke(f1, ..., fn): f1..fn-1 spawned, fn run by the caller, one join.
//  - parallel_for / parallel_reduce / parallel_deterministic_reduce
//    (tbb_loops.hpp): divide and conquer on a tbb::task_group per split, with the
//    split tree of split_tree.hpp. Without a partitioner: simple_partitioner's
//    tree, a function of the range alone (the serial backend, serial.hpp, builds
//    the same); with oneTBB's simple, auto, static or affinity partitioner, the
//    tree oneTBB makes when nothing is stolen (tbb_partition.hpp). Any range that
//    models oneTBB's Range, the class-body reduce and the functional one.
//  - task_arena: execute(f) may run f on the calling thread or hand it to a thread
//    of the arena while the caller waits, so f is spawned and joined around the
//    call either way: one spawn and one join, whoever runs it.
//
// Inside namespace forkscale, `tbb` names this namespace: oneTBB is ::tbb (or
// ::oneapi::tbb) there.
//
// Opt-in: forkscale.hpp does not include this header.
#pragma once
#include <cstddef>
#include <exception>
#include <tuple>
#include <type_traits>
#include <utility>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/blocked_range2d.h>
#include <oneapi/tbb/blocked_range3d.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include "../forkscale.hpp"

#if !FORKSCALE_ENABLE
#include "tbb_disabled.hpp"  // every fs::tbb:: name is oneTBB's own
#else
#include "caller_site.hpp"
#include "split_tree.hpp"

#if defined(__SANITIZE_THREAD__)
#define FORKSCALE_DETAIL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FORKSCALE_DETAIL_TSAN 1
#endif
#endif
#ifndef FORKSCALE_DETAIL_TSAN
#define FORKSCALE_DETAIL_TSAN 0
#endif
#if FORKSCALE_DETAIL_TSAN
#include <sanitizer/tsan_interface.h>
#endif

FORKSCALE_NAMESPACE_BEGIN

// A type (a range, a reduce body) with oneTBB's splitting constructor T(T&,
// tbb::split) and not forkscale's splits with tbb::split: every range that
// models oneTBB's Range (blocked_range, 2d, 3d, and the user's) without a
// specialization.
template <class Type>
struct split_tag<Type, std::enable_if_t<std::is_constructible<Type, Type&, ::oneapi::tbb::split>::value &&
                                        !std::is_constructible<Type, Type&, forkscale::split>::value>> {
  using type = ::oneapi::tbb::split;
};

namespace detail {
namespace tbb_adapter {

// Every spawn of this adapter names oneTBB (options.backend automatic).
inline constexpr unsigned char from_tbb = backend_bit(backend::tbb);

// What oneTBB's hand-offs look like to ThreadSanitizer. oneTBB gives a task to the
// thread that runs it, and recycles the task's memory for later tasks, through
// atomics inside libtbb; the distributed libtbb is not instrumented, so TSan sees
// the task's bytes written on one thread and used on another with nothing in
// between. Under TSan, `publish` wraps each task so that those edges are stated
// where TSan sees them: released when the task object is built and acquired when
// it starts (the hand-off), released when it dies and acquired by whatever is
// built next in the same place (the recycling: the wrapper always sits at the
// same offset of oneTBB's task block). Everywhere else `publish` is the identity.
#if FORKSCALE_DETAIL_TSAN
class tsan_edges {
 protected:
  tsan_edges() noexcept { __tsan_acquire(this); }  // after the bytes' previous owner
  ~tsan_edges() { __tsan_release(this); }
  void handed_off() const noexcept { __tsan_release(const_cast<tsan_edges*>(this)); }
  void taken_over() const noexcept { __tsan_acquire(const_cast<tsan_edges*>(this)); }
};

template <class F>
class published : tsan_edges {
 public:
  explicit published(F&& fn) : fn_(std::move(fn)) { handed_off(); }
  published(published&& o) : fn_(std::move(o.fn_)) { handed_off(); }
  published(const published&) = delete;
  published& operator=(const published&) = delete;
  published& operator=(published&&) = delete;

  decltype(auto) operator()() const {
    taken_over();
    return fn_();
  }

 private:
  F fn_;
};

template <class F>
published<std::decay_t<F>> publish(F&& fn) {
  return published<std::decay_t<F>>(std::forward<F>(fn));
}
#else
template <class F>
F&& publish(F&& fn) noexcept {
  return std::forward<F>(fn);
}
#endif

template <class Clock, class Tuple, std::size_t... I>
void spawn_all_but_last(::oneapi::tbb::task_group& tasks, basic_task_group<Clock>& group, const Tuple& fns,
                        const site& where, std::index_sequence<I...>) {
  (tasks.run(publish(forkscale::detail::adapter_spawn<Clock>(
       forkscale::detail::tbb_adapter::from_tbb, group, [&fn = std::get<I>(fns)] { fn(); }, where))),
   ...);
}
}  // namespace tbb_adapter
}  // namespace detail

namespace tbb {

// The fork of a split: the right half goes to a oneTBB task, the left half runs on
// in the calling task, and the wait for the task is the join. oneTBB's wait may
// run that task (or any other) on this thread meanwhile; those run in their own
// child scopes.
struct fork_task_group {
  template <class Clock, class Right, class Left>
  static void fork(const Right& right, const Left& left, const site& where) {
    basic_join_handle<Clock> handle;
    ::oneapi::tbb::task_group tasks;
    tasks.run(forkscale::detail::tbb_adapter::publish(
        forkscale::detail::adapter_spawn<Clock>(forkscale::detail::tbb_adapter::from_tbb, handle, right, where)));
    try {
      left();
    } catch (...) {
      {
        basic_sync_point<Clock> sp(handle, where);
        try {
          tasks.wait();
        } catch (...) {  // the left half's exception is the one that propagates
        }
      }
      throw;
    }
    basic_sync_point<Clock> sp(handle, where);
    tasks.wait();  // rethrows the right half's exception
  }
};

using task_group_status = ::oneapi::tbb::task_group_status;

// tbb::task_group with run() as a spawn into the group and wait() as its join.
template <class Clock = default_clock>
class basic_task_group {
 public:
  basic_task_group() = default;
  explicit basic_task_group(::oneapi::tbb::task_group_context& context) : tasks_(context) {}
  basic_task_group(const basic_task_group&) = delete;
  basic_task_group& operator=(const basic_task_group&) = delete;

  template <class F>
  void run(F&& f, const site& where = site::current()) {
    tasks_.run(forkscale::detail::tbb_adapter::publish(forkscale::detail::adapter_spawn<Clock>(
        forkscale::detail::tbb_adapter::from_tbb, group_, std::forward<F>(f), where)));
  }
  task_group_status wait(const site& where = site::current()) {
    basic_sync_point<Clock> sp(group_, where);
    return tasks_.wait();
  }
  // f is a task of the group that oneTBB runs on the calling thread, then waits.
  template <class F>
  task_group_status run_and_wait(const F& f, const site& where = site::current()) {
    auto task = forkscale::detail::adapter_spawn<Clock>(
        forkscale::detail::tbb_adapter::from_tbb, group_, [&f] { f(); }, where);
    basic_sync_point<Clock> sp(group_, where);
    return tasks_.run_and_wait(task);
  }
  void cancel() { tasks_.cancel(); }

  // The oneTBB group itself, for what the adapter does not wrap (its spawns and
  // joins are then not recorded).
  ::oneapi::tbb::task_group& native() noexcept { return tasks_; }

 private:
  forkscale::basic_task_group<Clock> group_;  // destroyed after tasks_ has waited
  ::oneapi::tbb::task_group tasks_;
};

// tbb::task_arena whose execute() is a spawn and a join of f (f may run on another
// thread of the arena, which the measurement must reach through a spawn). Not
// wrapped: enqueue() (fire and forget, never joined) — use a task_group inside
// execute() instead.
template <class Clock = default_clock>
class basic_task_arena {
 public:
  static constexpr int automatic = ::oneapi::tbb::task_arena::automatic;
  using priority = ::oneapi::tbb::task_arena::priority;

  explicit basic_task_arena(int max_concurrency = automatic, unsigned reserved_for_masters = 1,
                            priority a_priority = priority::normal)
      : arena_(max_concurrency, reserved_for_masters, a_priority) {}

  void initialize() { arena_.initialize(); }
  void initialize(int max_concurrency, unsigned reserved_for_masters = 1, priority a_priority = priority::normal) {
    arena_.initialize(max_concurrency, reserved_for_masters, a_priority);
  }
  void terminate() { arena_.terminate(); }
  bool is_active() const { return arena_.is_active(); }
  int max_concurrency() const { return arena_.max_concurrency(); }

  template <class F>
  decltype(auto) execute(F&& f, const site& where = site::current()) {
    basic_join_handle<Clock> handle;
    auto task = forkscale::detail::tbb_adapter::publish(forkscale::detail::adapter_spawn<Clock>(
        forkscale::detail::tbb_adapter::from_tbb, handle, [&f]() -> decltype(auto) { return std::forward<F>(f)(); },
        where));
    basic_sync_point<Clock> sp(handle, where);
    return arena_.execute(task);
  }

  ::oneapi::tbb::task_arena& native() noexcept { return arena_; }

 private:
  ::oneapi::tbb::task_arena arena_;
};

// tbb::parallel_invoke(f1, ..., fn): f1..fn-1 spawned, fn run by the calling task,
// one join (oneTBB, too, runs the last one on the calling thread). f1 carries the
// caller's line (caller_site.hpp).
template <class Clock = default_clock, class... F>
void parallel_invoke(forkscale::detail::caller::first_invocable f1, const F&... f) {
  static_assert(sizeof...(F) >= 1, "parallel_invoke needs at least two callables");
  const site where = f1.where();
  forkscale::basic_task_group<Clock> group;
  ::oneapi::tbb::task_group tasks;
  const auto fns = std::forward_as_tuple(f1, f...);
  forkscale::detail::tbb_adapter::spawn_all_but_last<Clock>(tasks, group, fns, where,
                                                            std::make_index_sequence<sizeof...(F)>{});
  try {
    std::get<sizeof...(F)>(fns)();
  } catch (...) {
    {
      basic_sync_point<Clock> sp(group, where);
      try {
        tasks.wait();
      } catch (...) {
      }
    }
    throw;
  }
  basic_sync_point<Clock> sp(group, where);
  tasks.wait();
}

}  // namespace tbb
FORKSCALE_NAMESPACE_END

#include "tbb_algorithms.hpp"  // parallel_for_each, parallel_sort, parallel_scan, parallel_pipeline
#include "tbb_loops.hpp"       // parallel_for, parallel_reduce, parallel_deterministic_reduce

FORKSCALE_NAMESPACE_BEGIN
namespace tbb {

using task_group = basic_task_group<default_clock>;
using task_arena = basic_task_arena<default_clock>;
template <class Value>
using blocked_range = ::oneapi::tbb::blocked_range<Value>;
using split = ::oneapi::tbb::split;
using simple_partitioner = ::oneapi::tbb::simple_partitioner;
using auto_partitioner = ::oneapi::tbb::auto_partitioner;
using static_partitioner = ::oneapi::tbb::static_partitioner;
using affinity_partitioner = ::oneapi::tbb::affinity_partitioner;
using forkscale::grainsize;

// Every name above, for programs written against a backend type (the serial one is
// fs::serial::backend); each entry point names the caller's line, as the free
// functions do.
template <class Clock = default_clock>
struct basic_backend {
  using task_group = tbb::basic_task_group<Clock>;
  using task_arena = tbb::basic_task_arena<Clock>;
  template <class Value>
  using blocked_range = ::oneapi::tbb::blocked_range<Value>;
  using split = ::oneapi::tbb::split;
  using simple_partitioner = ::oneapi::tbb::simple_partitioner;
  using auto_partitioner = ::oneapi::tbb::auto_partitioner;
  using static_partitioner = ::oneapi::tbb::static_partitioner;
  using affinity_partitioner = ::oneapi::tbb::affinity_partitioner;

  template <class... F>
  static void parallel_invoke(forkscale::detail::caller::first_invocable f1, const F&... f) {
    tbb::parallel_invoke<Clock>(f1, f...);
  }
  template <class Range, class Body>
  static void parallel_for(const Range& range, const Body& body, const site& where = site::current()) {
    tbb::parallel_for<Clock>(range, body, where);
  }
  template <class Range, class Body, class P, class = if_partitioner<P>>
  static void parallel_for(const Range& range, const Body& body, P&& p, const site& where = site::current()) {
    tbb::parallel_for<Clock>(range, body, p, where);
  }
  template <class Index, class Function>
  static void parallel_for(Index first, Index last, const Function& f, const site& where = site::current()) {
    tbb::parallel_for<Clock>(first, last, f, where);
  }
  template <class Index, class Function, class P, class = if_partitioner<P>>
  static void parallel_for(Index first, Index last, const Function& f, P&& p, const site& where = site::current()) {
    tbb::parallel_for<Clock>(first, last, f, p, where);
  }
  template <class Index, class Function>
  static void parallel_for(Index first, Index last, Index step, const Function& f,
                           const site& where = site::current()) {
    tbb::parallel_for<Clock>(first, last, step, f, where);
  }
  template <class Index, class Function>
  static void parallel_for(Index first, Index last, const Function& f, grainsize grain,
                           const site& where = site::current()) {
    tbb::parallel_for<Clock>(first, last, f, grain, where);
  }
  template <class Range, class Body>
  static void parallel_reduce(const Range& range, Body& body, const site& where = site::current()) {
    tbb::parallel_reduce<Clock>(range, body, where);
  }
  template <class Range, class Body, class P, class = if_partitioner<P>>
  static void parallel_reduce(const Range& range, Body& body, P&& p, const site& where = site::current()) {
    tbb::parallel_reduce<Clock>(range, body, p, where);
  }
  template <class Range, class Value, class RealBody, class Reduction>
  static Value parallel_reduce(const Range& range, const Value& identity, const RealBody& real_body,
                               const Reduction& reduction, const site& where = site::current()) {
    return tbb::parallel_reduce<Clock>(range, identity, real_body, reduction, where);
  }
  template <class Range, class Value, class RealBody, class Reduction, class P, class = if_partitioner<P>>
  static Value parallel_reduce(const Range& range, const Value& identity, const RealBody& real_body,
                               const Reduction& reduction, P&& p, const site& where = site::current()) {
    return tbb::parallel_reduce<Clock>(range, identity, real_body, reduction, p, where);
  }
};
using backend = basic_backend<default_clock>;

}  // namespace tbb

FORKSCALE_NAMESPACE_END

#include "../detail/burden/tbb.hpp"  // calibrate_burden(backend::tbb)
#endif                               // FORKSCALE_ENABLE

#undef FORKSCALE_DETAIL_TSAN
