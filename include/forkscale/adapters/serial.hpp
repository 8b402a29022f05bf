// serial.hpp: the serial elision backend. Every spawn runs its body inline, at once,
// on the calling thread; every join then finds its children done. The dag is the
// one the parallel adapters record for the same program, so under the cost clock
// its numbers are the reference the parallel runs must equal — deterministically,
// with no thread involved.
//
// It offers the names of both parallel adapters, with their signatures:
//   from std_thread.hpp  serial::thread, serial::jthread (C++20), serial::async
//   from tbb.hpp         serial::task_group, serial::task_arena, serial::parallel_invoke,
//                        serial::parallel_for, serial::parallel_reduce
// and serial::backend gathers them for programs written against a backend type
// (fs::std_backend and fs::tbb::backend are the parallel ones):
//
//   template <class B> long sum(const std::vector<long>& v) {
//     return B::parallel_reduce(typename B::template blocked_range<std::size_t>(0, v.size(), 1024), 0L,
//                               [&](const auto& r, long s) { for (auto i : r) s += v[i]; return s; },
//                               std::plus<long>());
//   }
//   sum<fs::serial::backend>(v) == sum<fs::tbb::backend>(v), numbers included.
//
// Code that needs two tasks to run at the same time (one waits for the other) does
// not survive serial elision, here as anywhere.
//
// Opt-in: forkscale.hpp does not include this header.
#pragma once
#include <cstddef>
#include <exception>
#include <functional>
#include <future>
#include <system_error>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../forkscale.hpp"
#include "caller_site.hpp"
#include "split_tree.hpp"
#include "std_thread.hpp"

FORKSCALE_NAMESPACE_BEGIN

namespace serial {

// The serial fork of a split: the right half is spawned and runs now, the left
// half runs next in the calling task, then the join. An exception from the right
// half waits for the left half and the join, as oneTBB's task_group::wait()
// rethrows it after both.
struct fork_inline {
  template <class Clock, class Right, class Left>
  static void fork(const Right& right, const Left& left, const site& where) {
    basic_join_handle<Clock> handle;
    std::exception_ptr right_error;
    {
      auto task = forkscale::spawn(handle, right, where);
      try {
        std::move(task)();  // at once: the child starts at the spawn's reading
      } catch (...) {
        right_error = std::current_exception();
      }
    }
    try {
      left();
    } catch (...) {
      { basic_sync_point<Clock> sp(handle, where); }
      throw;
    }
    { basic_sync_point<Clock> sp(handle, where); }
    if (right_error) std::rethrow_exception(right_error);
  }
};

// oneTBB's task_group_status, for code that looks at what wait() returns.
enum task_group_status { not_complete, complete, canceled };

// tbb::task_group, serially: run(f) spawns f into the group and runs it at once;
// wait() is the group's join. After cancel() (or a task's exception) and until
// wait(), run() drops its task unrun, as a cancelled oneTBB group does; wait()
// rethrows the first exception.
template <class Clock = default_clock>
class basic_task_group {
 public:
  basic_task_group() = default;
  basic_task_group(const basic_task_group&) = delete;
  basic_task_group& operator=(const basic_task_group&) = delete;

  template <class F>
  void run(F&& f, const site& where = site::current()) {
    auto task = forkscale::spawn(group_, std::forward<F>(f), where);
    if (canceling_) return;  // destroyed unrun: the engine counts it as cancelled
    try {
      std::move(task)();  // at once: the child starts at the spawn's reading
    } catch (...) {
      if (!error_) error_ = std::current_exception();
      canceling_ = true;
    }
  }
  task_group_status wait(const site& where = site::current()) {
    { basic_sync_point<Clock> sp(group_, where); }
    const bool was_canceled = canceling_;
    canceling_ = false;
    if (error_) {
      std::exception_ptr e = std::move(error_);
      error_ = nullptr;
      std::rethrow_exception(e);
    }
    return was_canceled ? canceled : complete;
  }
  template <class F>
  task_group_status run_and_wait(const F& f, const site& where = site::current()) {
    run(f, where);
    return wait(where);
  }
  void cancel() noexcept { canceling_ = true; }

 private:
  forkscale::basic_task_group<Clock> group_;
  std::exception_ptr error_;
  bool canceling_ = false;
};

// tbb::task_arena, serially: execute(f) is f spawned and joined at once, as the
// oneTBB adapter models it (f may run on another thread there).
template <class Clock = default_clock>
class basic_task_arena {
 public:
  static constexpr int automatic = -1;

  explicit basic_task_arena(int max_concurrency = automatic, unsigned reserved_for_masters = 1) noexcept
      : max_concurrency_(max_concurrency) {
    (void)reserved_for_masters;
  }
  void initialize() noexcept {}
  void initialize(int max_concurrency, unsigned reserved_for_masters = 1) noexcept {
    max_concurrency_ = max_concurrency;
    (void)reserved_for_masters;
  }
  void terminate() noexcept {}
  bool is_active() const noexcept { return true; }
  int max_concurrency() const noexcept { return max_concurrency_ > 0 ? max_concurrency_ : 1; }

  template <class F>
  decltype(auto) execute(F&& f, const site& where = site::current()) {
    basic_join_handle<Clock> handle;
    auto task = forkscale::spawn(
        handle, [&f]() -> decltype(auto) { return std::forward<F>(f)(); }, where);
    basic_sync_point<Clock> sp(handle, where);
    return task();
  }

 private:
  int max_concurrency_;
};

// tbb::parallel_invoke(f1, ..., fn), serially: f1..fn-1 spawned and run in turn,
// fn run in the calling task, one join — Cilk's spawn, spawn, call, sync. f1
// carries the caller's line (caller_site.hpp).
template <class Clock = default_clock, class... F>
void parallel_invoke(forkscale::detail::caller::first_invocable f1, const F&... f) {
  static_assert(sizeof...(F) >= 1, "parallel_invoke needs at least two callables");
  const site where = f1.where();
  forkscale::basic_task_group<Clock> group;
  std::exception_ptr first_error;
  std::size_t i = 0;
  auto one = [&](const auto& fn) {
    if (++i == sizeof...(F) + 1) {
      try {
        fn();
      } catch (...) {
        if (!first_error) first_error = std::current_exception();
      }
      return;
    }
    auto task = forkscale::spawn(
        group, [&fn] { fn(); }, where);
    try {
      std::move(task)();  // at once: the child starts at the spawn's reading
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  };
  one(f1);
  (one(f), ...);
  { basic_sync_point<Clock> sp(group, where); }
  if (first_error) std::rethrow_exception(first_error);
}

// tbb::parallel_for, serially, with the adapter's split tree (split_tree.hpp):
//   parallel_for(range, body)                 body(subrange) per leaf
//   parallel_for(first, last, f)              f(i), grain 1
//   parallel_for(first, last, step, f)        f(first), f(first + step), ...
//   parallel_for(first, last, f, grainsize(g))
template <class Clock = default_clock, class Range, class Body>
void parallel_for(const Range& range, const Body& body, const site& where = site::current()) {
  detail::split_tree::parallel_for<Clock, fork_inline>(range, body, where);
}
template <class Clock = default_clock, class Index, class Function>
void parallel_for(Index first, Index last, const Function& f, const site& where = site::current()) {
  detail::split_tree::parallel_for_index<Clock, fork_inline>(first, last, Index(1), 1, f, where);
}
template <class Clock = default_clock, class Index, class Function>
void parallel_for(Index first, Index last, Index step, const Function& f, const site& where = site::current()) {
  detail::split_tree::parallel_for_index<Clock, fork_inline>(first, last, step, 1, f, where);
}
template <class Clock = default_clock, class Index, class Function>
void parallel_for(Index first, Index last, const Function& f, grainsize grain, const site& where = site::current()) {
  detail::split_tree::parallel_for_index<Clock, fork_inline>(first, last, Index(1), grain.value, f, where);
}

// tbb::parallel_reduce's functional form, serially: real_body(leaf, identity) per
// leaf, reduction(left, right) after each join.
template <class Clock = default_clock, class Range, class Value, class RealBody, class Reduction>
Value parallel_reduce(const Range& range, const Value& identity, const RealBody& real_body, const Reduction& reduction,
                      const site& where = site::current()) {
  return detail::split_tree::parallel_reduce<Clock, fork_inline>(range, identity, real_body, reduction, where);
}

// tbb::parallel_reduce's class-body form, serially: body(leaf) per leaf, a body
// split for each spawned half, left.join(right) after each join.
template <class Clock = default_clock, class Range, class Body>
void parallel_reduce(const Range& range, Body& body, const site& where = site::current()) {
  detail::split_tree::parallel_reduce_body<Clock, fork_inline>(range, body, where);
}

// std::thread, serially: the body runs to its end inside the constructor, spawned
// behind the thread's join handle; join() is the join. As with std::thread, an
// exception leaving the body, or destroying a joinable thread, calls
// std::terminate.
template <class Clock = default_clock>
class basic_thread {
 public:
  using id = std::thread::id;

  basic_thread() noexcept = default;
  // f(args...) spawned here, at the caller's line (caller_site.hpp), and run.
  template <class... Args>
  explicit basic_thread(
      forkscale::detail::caller::thread_start<basic_thread, forkscale::detail::caller::identity_t<Args>...> f,
      Args&&... args) {
    f(*this, std::forward<Args>(args)...);
    joinable_ = true;
  }
  basic_thread(basic_thread&& o) noexcept
      : handle_(std::move(o.handle_)), joinable_(std::exchange(o.joinable_, false)) {}
  basic_thread& operator=(basic_thread&& o) noexcept {
    if (joinable_) std::terminate();
    handle_ = std::move(o.handle_);
    joinable_ = std::exchange(o.joinable_, false);
    return *this;
  }
  ~basic_thread() {
    if (joinable_) std::terminate();
  }

  void join(const site& where = site::current()) {
    if (!joinable_) throw std::system_error(std::make_error_code(std::errc::invalid_argument));
    joinable_ = false;
    basic_sync_point<Clock> sp(handle_, where);
  }
  void detach() {
    if (!joinable_) throw std::system_error(std::make_error_code(std::errc::invalid_argument));
    joinable_ = false;
  }
  bool joinable() const noexcept { return joinable_; }
  id get_id() const noexcept { return id(); }
  static unsigned hardware_concurrency() noexcept { return 1; }

 private:
  template <class, class...>
  friend class forkscale::detail::caller::thread_start;
  template <class F, class... Args>
  static void start(basic_thread& t, F&& f, const site& where, Args&&... args) {
    auto task = forkscale::spawn(
        t.handle_, forkscale::detail::std_adapter::bind(std::forward<F>(f), std::forward<Args>(args)...), where);
    run_or_terminate(task);
  }
  template <class Task>
  static void run_or_terminate(Task& task) noexcept {
    task();  // noexcept: an escaping exception terminates, as on a std::thread
  }

  basic_join_handle<Clock> handle_;
  bool joinable_ = false;
};

#if defined(__cpp_lib_jthread)
// std::jthread, serially: the body gets a stop token that is never stopped while
// it runs (it runs inside the constructor); the destructor is the join (recorded
// at the line that constructed the jthread, as fs::jthread's).
template <class Clock = default_clock>
class basic_jthread {
 public:
  using id = std::thread::id;

  basic_jthread() noexcept = default;
  template <class... Args>
  explicit basic_jthread(
      forkscale::detail::caller::thread_start<basic_jthread, forkscale::detail::caller::identity_t<Args>...> f,
      Args&&... args) {
    f(*this, std::forward<Args>(args)...);
    joinable_ = true;
  }
  basic_jthread(basic_jthread&& o) noexcept
      : handle_(std::move(o.handle_)),
        stop_(std::move(o.stop_)),
        joinable_(std::exchange(o.joinable_, false)),
        where_(o.where_) {}
  basic_jthread& operator=(basic_jthread&& o) noexcept {
    if (this != &o) {
      stop_and_join();
      handle_ = std::move(o.handle_);
      stop_ = std::move(o.stop_);
      joinable_ = std::exchange(o.joinable_, false);
      where_ = o.where_;
    }
    return *this;
  }
  ~basic_jthread() { stop_and_join(); }

  void join(const site& where = site::current()) {
    if (!joinable_) throw std::system_error(std::make_error_code(std::errc::invalid_argument));
    joinable_ = false;
    basic_sync_point<Clock> sp(handle_, where);
  }
  void detach() {
    if (!joinable_) throw std::system_error(std::make_error_code(std::errc::invalid_argument));
    joinable_ = false;
  }
  bool joinable() const noexcept { return joinable_; }
  id get_id() const noexcept { return id(); }
  std::stop_source get_stop_source() noexcept { return stop_; }
  std::stop_token get_stop_token() const noexcept { return stop_.get_token(); }
  bool request_stop() noexcept { return stop_.request_stop(); }
  static unsigned hardware_concurrency() noexcept { return 1; }

 private:
  template <class, class...>
  friend class forkscale::detail::caller::thread_start;
  template <class F, class... Args>
  static void start(basic_jthread& t, F&& f, const site& where, Args&&... args) {
    t.where_ = where;
    auto call = forkscale::detail::std_adapter::bind(std::forward<F>(f), std::forward<Args>(args)...);
    if constexpr (std::is_invocable<std::decay_t<F>, std::stop_token, std::decay_t<Args>...>::value) {
      auto task = forkscale::spawn(
          t.handle_, [&call, token = t.stop_.get_token()]() mutable { return call.with_token(std::move(token)); },
          where);
      run_or_terminate(task);
    } else {
      auto task = forkscale::spawn(t.handle_, std::move(call), where);
      run_or_terminate(task);
    }
  }
  template <class Task>
  static void run_or_terminate(Task& task) noexcept {
    task();
  }
  void stop_and_join() noexcept {
    if (!joinable_) return;
    stop_.request_stop();
    joinable_ = false;
    basic_sync_point<Clock> sp(handle_, where_);
  }

  basic_join_handle<Clock> handle_;
  std::stop_source stop_;
  bool joinable_ = false;
  site where_;  // where it was constructed: the line its destructor's join names
};
#endif  // __cpp_lib_jthread

// std::async, serially. std::launch::async (or both bits): spawned and run now,
// joined at get(), wait() or the future's destruction; std::launch::deferred: as
// fs::async, spawned, run and joined at the first get() or wait(). The caller's
// line is named as by fs::async.
template <class Clock = default_clock, class F, class... Args>
forkscale::detail::std_adapter::future_t<Clock, F, Args...> async(forkscale::detail::std_adapter::launch_at policy,
                                                                  F&& f, Args&&... args) {
  return forkscale::detail::std_adapter::async_forms<Clock, true>::async(policy, std::forward<F>(f),
                                                                         std::forward<Args>(args)...);
}
template <class Clock = default_clock, class F, class = forkscale::detail::std_adapter::enable_if_callable_t<F>>
forkscale::detail::std_adapter::future_t<Clock, F> async(F&& f, const site& where = site::current()) {
  return forkscale::detail::std_adapter::async_forms<Clock, true>::at(where, std::forward<F>(f));
}
template <class Clock = default_clock, class F, class A1,
          class = forkscale::detail::std_adapter::enable_if_callable_t<F>>
forkscale::detail::std_adapter::future_t<Clock, F, A1> async(F&& f, A1&& a1, const site& where = site::current()) {
  return forkscale::detail::std_adapter::async_forms<Clock, true>::at(where, std::forward<F>(f), std::forward<A1>(a1));
}
template <class Clock = default_clock, class F, class A1, class A2,
          class = forkscale::detail::std_adapter::enable_if_callable_t<F>>
forkscale::detail::std_adapter::future_t<Clock, F, A1, A2> async(F&& f, A1&& a1, A2&& a2,
                                                                 const site& where = site::current()) {
  return forkscale::detail::std_adapter::async_forms<Clock, true>::at(where, std::forward<F>(f), std::forward<A1>(a1),
                                                                      std::forward<A2>(a2));
}
template <class Clock = default_clock, class F, class A1, class A2, class A3,
          class = forkscale::detail::std_adapter::enable_if_callable_t<F>>
forkscale::detail::std_adapter::future_t<Clock, F, A1, A2, A3> async(F&& f, A1&& a1, A2&& a2, A3&& a3,
                                                                     const site& where = site::current()) {
  return forkscale::detail::std_adapter::async_forms<Clock, true>::at(where, std::forward<F>(f), std::forward<A1>(a1),
                                                                      std::forward<A2>(a2), std::forward<A3>(a3));
}
template <class Clock = default_clock, class F, class A1, class A2, class A3, class A4,
          class = forkscale::detail::std_adapter::enable_if_callable_t<F>>
forkscale::detail::std_adapter::future_t<Clock, F, A1, A2, A3, A4> async(F&& f, A1&& a1, A2&& a2, A3&& a3, A4&& a4,
                                                                         const site& where = site::current()) {
  return forkscale::detail::std_adapter::async_forms<Clock, true>::at(where, std::forward<F>(f), std::forward<A1>(a1),
                                                                      std::forward<A2>(a2), std::forward<A3>(a3),
                                                                      std::forward<A4>(a4));
}
template <class Clock = default_clock, class F, class... Args,
          class = forkscale::detail::std_adapter::enable_if_callable_t<F>>
forkscale::detail::std_adapter::future_t<Clock, F, Args...> async(F&& f, Args&&... args) {
  return forkscale::detail::std_adapter::async_forms<Clock, true>::at(site::current(), std::forward<F>(f),
                                                                      std::forward<Args>(args)...);
}

using task_group = basic_task_group<default_clock>;
using task_arena = basic_task_arena<default_clock>;
using thread = basic_thread<default_clock>;
#if defined(__cpp_lib_jthread)
using jthread = basic_jthread<default_clock>;
#endif
using forkscale::blocked_range;
using forkscale::grainsize;
using forkscale::split;

// Every name above, for programs written against a backend type; each entry point
// names the caller's line, as the free functions do (async as fs::async).
template <class Clock = default_clock>
struct basic_backend : forkscale::detail::std_adapter::async_forms<Clock, true> {
  using task_group = serial::basic_task_group<Clock>;
  using task_arena = serial::basic_task_arena<Clock>;
  using thread = serial::basic_thread<Clock>;
#if defined(__cpp_lib_jthread)
  using jthread = serial::basic_jthread<Clock>;
#endif
  template <class T>
  using future = basic_future<Clock, T>;
  template <class Value>
  using blocked_range = forkscale::blocked_range<Value>;
  using split = forkscale::split;

  template <class... F>
  static void parallel_invoke(forkscale::detail::caller::first_invocable f1, const F&... f) {
    serial::parallel_invoke<Clock>(f1, f...);
  }
  template <class Range, class Body>
  static void parallel_for(const Range& range, const Body& body, const site& where = site::current()) {
    serial::parallel_for<Clock>(range, body, where);
  }
  template <class Index, class Function>
  static void parallel_for(Index first, Index last, const Function& f, const site& where = site::current()) {
    serial::parallel_for<Clock>(first, last, f, where);
  }
  template <class Index, class Function>
  static void parallel_for(Index first, Index last, Index step, const Function& f,
                           const site& where = site::current()) {
    serial::parallel_for<Clock>(first, last, step, f, where);
  }
  template <class Index, class Function>
  static void parallel_for(Index first, Index last, const Function& f, grainsize grain,
                           const site& where = site::current()) {
    serial::parallel_for<Clock>(first, last, f, grain, where);
  }
  template <class Range, class Body>
  static void parallel_reduce(const Range& range, Body& body, const site& where = site::current()) {
    serial::parallel_reduce<Clock>(range, body, where);
  }
  template <class Range, class Value, class RealBody, class Reduction>
  static Value parallel_reduce(const Range& range, const Value& identity, const RealBody& real_body,
                               const Reduction& reduction, const site& where = site::current()) {
    return serial::parallel_reduce<Clock>(range, identity, real_body, reduction, where);
  }
};
using backend = basic_backend<default_clock>;

}  // namespace serial

FORKSCALE_NAMESPACE_END
