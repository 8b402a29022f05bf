// std_thread.hpp: forkscale adapter for std::thread, std::jthread and std::async.
// Each thread or asynchronous call is one child behind its own join handle; its
// join is what the model calls a join of that one child.
//
//   std::thread t(work, 42);                 fs::thread t(work, 42);        // spawn point here
//   ...                                      ...                            // work(42) runs in its own child scope
//   t.join();                                t.join();                      // join of that one child
//
//   auto f = std::async(policy, work, 42);   auto f = fs::async(policy, work, 42);
//   int v = f.get();                         int v = f.get();               // join
//
// std::launch::async (or both bits: this adapter, like libstdc++ and libc++,
// then starts a thread) spawns at the call and joins at get(), wait() or the
// future's destruction, which blocks as std::async's does. std::launch::deferred
// runs the body inline at the first get() or wait(): a spawn there, the child run
// at once, and its join.
//
// A detached thread is never joined: its work is in no path of the measurement,
// and its join handle reports that when the fs::thread object is destroyed.
//
// Opt-in: forkscale.hpp does not include this header.
#pragma once
#include <chrono>
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

FORKSCALE_NAMESPACE_BEGIN

namespace detail {
namespace std_adapter {

// INVOKE(decay-copy(f), decay-copy(args)...), the call std::thread and std::async
// make, with the copies taken on the constructing thread.
template <class F, class... Args>
class bound_call {
 public:
  template <class FF, class... AA>
  explicit bound_call(std::in_place_t, FF&& f, AA&&... args)
      : fn_(std::forward<FF>(f)), args_(std::forward<AA>(args)...) {}

  decltype(auto) operator()() { return std::apply(std::move(fn_), std::move(args_)); }

  // std::jthread's form: the stop token first when the callable accepts one.
  template <class Token>
  decltype(auto) with_token(Token&& token) {
    return std::apply(
        [&](auto&&... args) -> decltype(auto) {
          return std::invoke(std::move(fn_), std::forward<Token>(token), std::forward<decltype(args)>(args)...);
        },
        std::move(args_));
  }

 private:
  F fn_;
  std::tuple<Args...> args_;
};

template <class F, class... Args>
bound_call<std::decay_t<F>, std::decay_t<Args>...> bind(F&& f, Args&&... args) {
  return bound_call<std::decay_t<F>, std::decay_t<Args>...>(std::in_place, std::forward<F>(f),
                                                            std::forward<Args>(args)...);
}

template <class F, class... Args>
using result_t = std::invoke_result_t<std::decay_t<F>, std::decay_t<Args>...>;

// A launch policy with the caller's line: the first argument of fs::async(policy,
// f, args...), which converts from the std::launch the caller passes (see
// caller_site.hpp).
struct launch_at {
  launch_at(std::launch p, const site& w = site::current()) noexcept : policy(p), where(w) {}
  std::launch policy;
  site where;
};

// std::async's policy when the caller gives none: both bits.
constexpr std::launch any_launch = std::launch::async | std::launch::deferred;

template <class F>
using enable_if_callable_t = std::enable_if_t<!std::is_same<std::decay_t<F>, std::launch>::value &&
                                              !std::is_same<std::decay_t<F>, launch_at>::value>;

struct future_access;

// The spawns of this adapter that start a thread name std::thread (options.backend
// automatic); a deferred or inline call starts none and names nothing.
inline constexpr unsigned char from_std_thread = backend_bit(backend::std_thread);

}  // namespace std_adapter
}  // namespace detail

// std::thread with its spawn recorded at construction and its join() a
// sync_point on the thread's own join handle. Everything else is std::thread's:
// destroying or move-assigning over a joinable thread calls std::terminate.
template <class Clock = default_clock>
class basic_thread {
 public:
  using id = std::thread::id;
  using native_handle_type = std::thread::native_handle_type;

  basic_thread() noexcept = default;
  // f(args...) spawned here, at the caller's line (caller_site.hpp).
  template <class... Args>
  explicit basic_thread(detail::caller::thread_start<basic_thread, detail::caller::identity_t<Args>...> f,
                        Args&&... args) {
    f(*this, std::forward<Args>(args)...);
  }
  basic_thread(basic_thread&&) noexcept = default;
  basic_thread& operator=(basic_thread&& o) noexcept {
    if (thread_.joinable()) std::terminate();
    thread_ = std::move(o.thread_);
    handle_ = std::move(o.handle_);
    return *this;
  }
  ~basic_thread() = default;  // std::thread's destructor: std::terminate if joinable

  // The join of this one child: the strand ends before blocking, and the thread's
  // totals merge when it returns. A join std::thread refuses throws as it does,
  // with nothing recorded.
  void join(const site& where = site::current()) {
    if (!thread_.joinable() || thread_.get_id() == std::this_thread::get_id()) {
      thread_.join();  // throws std::system_error
      return;
    }
    basic_sync_point<Clock> sp(handle_, where);
    thread_.join();
  }
  void detach() { thread_.detach(); }
  bool joinable() const noexcept { return thread_.joinable(); }
  id get_id() const noexcept { return thread_.get_id(); }
  native_handle_type native_handle() { return thread_.native_handle(); }
  void swap(basic_thread& o) noexcept {
    std::swap(thread_, o.thread_);
    std::swap(handle_, o.handle_);
  }
  static unsigned hardware_concurrency() noexcept { return std::thread::hardware_concurrency(); }

 private:
  template <class, class...>
  friend class detail::caller::thread_start;
  template <class F, class... Args>
  static void start(basic_thread& t, F&& f, const site& where, Args&&... args) {
    t.thread_ = std::thread(detail::adapter_spawn<Clock>(
        detail::std_adapter::from_std_thread, t.handle_,
        detail::std_adapter::bind(std::forward<F>(f), std::forward<Args>(args)...), where));
  }

  basic_join_handle<Clock> handle_;  // before thread_: the spawn binds it
  std::thread thread_;
};

template <class Clock>
void swap(basic_thread<Clock>& a, basic_thread<Clock>& b) noexcept {
  a.swap(b);
}

#if defined(__cpp_lib_jthread)
// std::jthread: like basic_thread, and its destructor asks the thread to stop and
// joins it (a join recorded at the line that constructed the jthread: a destructor
// cannot know the caller's). A callable whose first parameter is a
// std::stop_token gets the thread's token, as with std::jthread.
template <class Clock = default_clock>
class basic_jthread {
 public:
  using id = std::jthread::id;
  using native_handle_type = std::jthread::native_handle_type;

  basic_jthread() noexcept = default;
  template <class... Args>
  explicit basic_jthread(detail::caller::thread_start<basic_jthread, detail::caller::identity_t<Args>...> f,
                         Args&&... args) {
    f(*this, std::forward<Args>(args)...);
  }
  basic_jthread(basic_jthread&&) noexcept = default;
  basic_jthread& operator=(basic_jthread&& o) noexcept {
    if (this != &o) {
      stop_and_join();
      thread_ = std::move(o.thread_);
      handle_ = std::move(o.handle_);
      where_ = o.where_;
    }
    return *this;
  }
  ~basic_jthread() { stop_and_join(); }

  void join(const site& where = site::current()) {
    if (!thread_.joinable() || thread_.get_id() == std::this_thread::get_id()) {
      thread_.join();  // throws std::system_error
      return;
    }
    basic_sync_point<Clock> sp(handle_, where);
    thread_.join();
  }
  void detach() { thread_.detach(); }
  bool joinable() const noexcept { return thread_.joinable(); }
  id get_id() const noexcept { return thread_.get_id(); }
  native_handle_type native_handle() { return thread_.native_handle(); }
  std::stop_source get_stop_source() noexcept { return thread_.get_stop_source(); }
  std::stop_token get_stop_token() const noexcept { return thread_.get_stop_token(); }
  bool request_stop() noexcept { return thread_.request_stop(); }
  void swap(basic_jthread& o) noexcept {
    std::swap(thread_, o.thread_);
    std::swap(handle_, o.handle_);
  }
  static unsigned hardware_concurrency() noexcept { return std::thread::hardware_concurrency(); }

 private:
  template <class, class...>
  friend class detail::caller::thread_start;
  template <class F, class... Args>
  static void start(basic_jthread& t, F&& f, const site& where, Args&&... args) {
    t.where_ = where;
    t.thread_ = std::jthread(t.make_task(where, std::forward<F>(f), std::forward<Args>(args)...));
  }
  template <class F, class... Args>
  auto make_task(const site& where, F&& f, Args&&... args) {
    auto call = detail::std_adapter::bind(std::forward<F>(f), std::forward<Args>(args)...);
    if constexpr (std::is_invocable<std::decay_t<F>, std::stop_token, std::decay_t<Args>...>::value) {
      return [token = detail::adapter_spawn_point<Clock>(detail::std_adapter::from_std_thread, handle_, where),
              call = std::move(call), where](std::stop_token st) mutable -> decltype(auto) {
        basic_spawn_scope<Clock> scope(std::move(token), where);
        return call.with_token(std::move(st));
      };
    } else {
      return detail::adapter_spawn<Clock>(detail::std_adapter::from_std_thread, handle_, std::move(call), where);
    }
  }
  void stop_and_join() noexcept {
    if (!thread_.joinable()) return;
    thread_.request_stop();
    basic_sync_point<Clock> sp(handle_, where_);
    thread_.join();
  }

  basic_join_handle<Clock> handle_;  // before thread_: the spawn binds it
  std::jthread thread_;
  site where_;  // where it was constructed: the line its destructor's join names
};
#endif  // __cpp_lib_jthread

// The future of fs::async (and of fs::serial::async). get() and wait() are the
// join of the call's one child; wait_for() and wait_until() only look. Move-only,
// like std::future; there is no share().
template <class Clock, class T>
class basic_future {
 public:
  basic_future() noexcept = default;
  basic_future(basic_future&&) noexcept = default;
  basic_future& operator=(basic_future&& o) noexcept {
    if (this != &o) {
      finish();
      handle_ = std::move(o.handle_);
      future_ = std::move(o.future_);
      deferred_ = std::move(o.deferred_);
      joined_ = o.joined_;
      where_ = o.where_;
    }
    return *this;
  }
  // Blocks for an asynchronous call's thread, as std::async's future does: that is
  // its join, recorded at the line of the fs::async call (a destructor cannot know
  // the caller's). A deferred call that never ran is simply dropped.
  ~basic_future() { finish(); }

  decltype(auto) get(const site& where = site::current()) {
    join(where);
    return future_.get();
  }
  void wait(const site& where = site::current()) {
    join(where);
    future_.wait();
  }
  template <class Rep, class Period>
  std::future_status wait_for(const std::chrono::duration<Rep, Period>& d) const {
    if (deferred_.valid()) return std::future_status::deferred;
    return future_.wait_for(d);
  }
  template <class C, class D>
  std::future_status wait_until(const std::chrono::time_point<C, D>& t) const {
    if (deferred_.valid()) return std::future_status::deferred;
    return future_.wait_until(t);
  }
  bool valid() const noexcept { return future_.valid(); }

 private:
  friend struct detail::std_adapter::future_access;

  void join(const site& where) {
    if (!future_.valid() || joined_) return;
    joined_ = true;
    if (deferred_.valid()) {
      // std::launch::deferred: spawned here, run here, joined here.
      spawn_token token = basic_spawn_point(handle_, where);
      {
        basic_spawn_scope<Clock> scope(std::move(token), where);
        deferred_();  // a throw is kept in the future, for get()
      }
      deferred_ = std::packaged_task<T()>();
      basic_sync_point<Clock> sp(handle_, where);
      return;
    }
    basic_sync_point<Clock> sp(handle_, where);
    future_.wait();
  }
  void finish() noexcept {
    if (future_.valid() && !joined_ && !deferred_.valid()) {
      joined_ = true;
      basic_sync_point<Clock> sp(handle_, where_);
      future_.wait();
    }
  }

  basic_join_handle<Clock> handle_;
  std::future<T> future_;
  std::packaged_task<T()> deferred_;  // a deferred call not yet run
  bool joined_ = false;
  site where_;  // the fs::async call's line
};

template <class T>
using future = basic_future<default_clock, T>;

namespace detail {
namespace std_adapter {

struct future_access {
  // On a new thread, spawned now.
  template <class Clock, class R, class Call>
  static basic_future<Clock, R> launch_async(Call&& call, const site& where) {
    basic_future<Clock, R> out;
    out.where_ = where;
    out.future_ = std::async(std::launch::async,
                             adapter_spawn<Clock>(from_std_thread, out.handle_, std::forward<Call>(call), where));
    return out;
  }
  // Spawned, run and joined at the first get() or wait().
  template <class Clock, class R, class Call>
  static basic_future<Clock, R> launch_deferred(Call&& call, const site& where) {
    basic_future<Clock, R> out;
    out.where_ = where;
    out.deferred_ = std::packaged_task<R()>(std::forward<Call>(call));
    out.future_ = out.deferred_.get_future();
    return out;
  }
  // Spawned and run now, inline (the serial elision of launch_async); joined later.
  template <class Clock, class R, class Call>
  static basic_future<Clock, R> run_inline(Call&& call, const site& where) {
    basic_future<Clock, R> out;
    out.where_ = where;
    std::packaged_task<R()> task(std::forward<Call>(call));
    out.future_ = task.get_future();
    spawn_token token = basic_spawn_point(out.handle_, where);
    basic_spawn_scope<Clock> scope(std::move(token), where);
    task();
    return out;
  }
};

template <class Clock, class F, class... Args>
using future_t = basic_future<Clock, result_t<F, Args...>>;

// async's forms, on a clock, with std::launch::async calls run on a thread or, for
// the serial backend, inline (`Inline`): fs::async and fs::serial::async call them,
// and the backends inherit them as B::async. Each names the caller's line: the
// policy form through launch_at, the policy-less form (both bits) through a
// defaulted site after up to four arguments. A policy-less call with more
// arguments names this header's line.
template <class Clock, bool Inline>
struct async_forms {
  template <class F, class... Args>
  static future_t<Clock, F, Args...> async(launch_at policy, F&& f, Args&&... args) {
    using R = result_t<F, Args...>;
    auto call = std_adapter::bind(std::forward<F>(f), std::forward<Args>(args)...);
    if ((policy.policy & std::launch::async) != std::launch::async)
      return future_access::launch_deferred<Clock, R>(std::move(call), policy.where);
    if constexpr (Inline)
      return future_access::run_inline<Clock, R>(std::move(call), policy.where);
    else
      return future_access::launch_async<Clock, R>(std::move(call), policy.where);
  }
  // The policy-less form, both bits, named at `where`.
  template <class F, class... Args>
  static future_t<Clock, F, Args...> at(const site& where, F&& f, Args&&... args) {
    return async(launch_at(any_launch, where), std::forward<F>(f), std::forward<Args>(args)...);
  }
  template <class F, class = enable_if_callable_t<F>>
  static future_t<Clock, F> async(F&& f, const site& where = site::current()) {
    return at(where, std::forward<F>(f));
  }
  template <class F, class A1, class = enable_if_callable_t<F>>
  static future_t<Clock, F, A1> async(F&& f, A1&& a1, const site& where = site::current()) {
    return at(where, std::forward<F>(f), std::forward<A1>(a1));
  }
  template <class F, class A1, class A2, class = enable_if_callable_t<F>>
  static future_t<Clock, F, A1, A2> async(F&& f, A1&& a1, A2&& a2, const site& where = site::current()) {
    return at(where, std::forward<F>(f), std::forward<A1>(a1), std::forward<A2>(a2));
  }
  template <class F, class A1, class A2, class A3, class = enable_if_callable_t<F>>
  static future_t<Clock, F, A1, A2, A3> async(F&& f, A1&& a1, A2&& a2, A3&& a3, const site& where = site::current()) {
    return at(where, std::forward<F>(f), std::forward<A1>(a1), std::forward<A2>(a2), std::forward<A3>(a3));
  }
  template <class F, class A1, class A2, class A3, class A4, class = enable_if_callable_t<F>>
  static future_t<Clock, F, A1, A2, A3, A4> async(F&& f, A1&& a1, A2&& a2, A3&& a3, A4&& a4,
                                                  const site& where = site::current()) {
    return at(where, std::forward<F>(f), std::forward<A1>(a1), std::forward<A2>(a2), std::forward<A3>(a3),
              std::forward<A4>(a4));
  }
  template <class F, class... Args, class = enable_if_callable_t<F>>
  static future_t<Clock, F, Args...> async(F&& f, Args&&... args) {
    return at(site::current(), std::forward<F>(f), std::forward<Args>(args)...);
  }
};

}  // namespace std_adapter
}  // namespace detail

// std::async with the call's spawn and join recorded, at the caller's line. With
// both launch bits the call gets a thread (what libstdc++ and libc++ do when they
// can); a policy with neither bit is taken as deferred. Without a policy, the
// caller's line is named for up to four arguments after the callable; with more,
// pass a policy (see async_forms).
template <class Clock = default_clock, class F, class... Args>
detail::std_adapter::future_t<Clock, F, Args...> async(detail::std_adapter::launch_at policy, F&& f, Args&&... args) {
  return detail::std_adapter::async_forms<Clock, false>::async(policy, std::forward<F>(f), std::forward<Args>(args)...);
}
template <class Clock = default_clock, class F, class = detail::std_adapter::enable_if_callable_t<F>>
detail::std_adapter::future_t<Clock, F> async(F&& f, const site& where = site::current()) {
  return detail::std_adapter::async_forms<Clock, false>::at(where, std::forward<F>(f));
}
template <class Clock = default_clock, class F, class A1, class = detail::std_adapter::enable_if_callable_t<F>>
detail::std_adapter::future_t<Clock, F, A1> async(F&& f, A1&& a1, const site& where = site::current()) {
  return detail::std_adapter::async_forms<Clock, false>::at(where, std::forward<F>(f), std::forward<A1>(a1));
}
template <class Clock = default_clock, class F, class A1, class A2,
          class = detail::std_adapter::enable_if_callable_t<F>>
detail::std_adapter::future_t<Clock, F, A1, A2> async(F&& f, A1&& a1, A2&& a2, const site& where = site::current()) {
  return detail::std_adapter::async_forms<Clock, false>::at(where, std::forward<F>(f), std::forward<A1>(a1),
                                                            std::forward<A2>(a2));
}
template <class Clock = default_clock, class F, class A1, class A2, class A3,
          class = detail::std_adapter::enable_if_callable_t<F>>
detail::std_adapter::future_t<Clock, F, A1, A2, A3> async(F&& f, A1&& a1, A2&& a2, A3&& a3,
                                                          const site& where = site::current()) {
  return detail::std_adapter::async_forms<Clock, false>::at(where, std::forward<F>(f), std::forward<A1>(a1),
                                                            std::forward<A2>(a2), std::forward<A3>(a3));
}
template <class Clock = default_clock, class F, class A1, class A2, class A3, class A4,
          class = detail::std_adapter::enable_if_callable_t<F>>
detail::std_adapter::future_t<Clock, F, A1, A2, A3, A4> async(F&& f, A1&& a1, A2&& a2, A3&& a3, A4&& a4,
                                                              const site& where = site::current()) {
  return detail::std_adapter::async_forms<Clock, false>::at(where, std::forward<F>(f), std::forward<A1>(a1),
                                                            std::forward<A2>(a2), std::forward<A3>(a3),
                                                            std::forward<A4>(a4));
}
template <class Clock = default_clock, class F, class... Args, class = detail::std_adapter::enable_if_callable_t<F>>
detail::std_adapter::future_t<Clock, F, Args...> async(F&& f, Args&&... args) {
  return detail::std_adapter::async_forms<Clock, false>::at(site::current(), std::forward<F>(f),
                                                            std::forward<Args>(args)...);
}

using thread = basic_thread<default_clock>;
#if defined(__cpp_lib_jthread)
using jthread = basic_jthread<default_clock>;
#endif

// The names above, gathered for programs written against a backend (see
// serial.hpp and tbb.hpp for the others): B::thread, B::async(...).
template <class Clock = default_clock>
struct basic_std_backend : detail::std_adapter::async_forms<Clock, false> {  // B::async, as fs::async
  using thread = basic_thread<Clock>;
#if defined(__cpp_lib_jthread)
  using jthread = basic_jthread<Clock>;
#endif
  template <class T>
  using future = basic_future<Clock, T>;
};
using std_backend = basic_std_backend<default_clock>;

FORKSCALE_NAMESPACE_END
