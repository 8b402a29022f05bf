// annotate.hpp: the guards a program wraps around its library's spawn, sync and
// call points, and nothing else — for the files a program annotates. They parse
// in about the time of a few standard headers (bench/bench_compile.py); the
// engine they report to is compiled where a measurement starts, in a file that
// includes forkscale.hpp (or guards.hpp), and the guards reach it from there.
//
//   tg.run(fs::spawn([&] { x = fib(n - 1); }));   // spawn point now, child scope when it runs
//   { fs::call_site cs; y = fib(n - 2); }          // a profiled call
//   { fs::sync_point sp; tg.wait(); }              // strand ends before the join, merges after
//
// Every guard is a template over the clock policy (clock.hpp); the unprefixed names
// use FORKSCALE_DEFAULT_CLOCK (runtime_clock unless defined otherwise), which reads
// the clock chosen by each measurement's options. With FORKSCALE_ENABLE=0 every
// guard is an empty type.
#pragma once
#include <atomic>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "clock.hpp"
#include "config.hpp"
#include "detail/macro_scope.hpp"
#include "site.hpp"

#if FORKSCALE_ENABLE
#include "detail/engine/hooks.hpp"
#include "detail/engine/state.hpp"
#endif

#ifndef FORKSCALE_DEFAULT_CLOCK
#define FORKSCALE_DEFAULT_CLOCK ::forkscale::runtime_clock
#define FORKSCALE_DETAIL_DEFAULT_CLOCK_IS_RUNTIME 1  // (the compiled OMPT tool uses this clock)
#endif

FORKSCALE_NAMESPACE_BEGIN

using default_clock = FORKSCALE_DEFAULT_CLOCK;

#if FORKSCALE_ENABLE

using spawn_token = detail::spawn_token;

// A set of tasks waited for together, wherever they were spawned from: nested
// calls, or tasks of the group itself (oneTBB task_group, OpenMP taskgroup).
// Spawn into it with spawn(group, f); wait with sync_point sp(group).
template <class Clock>
class basic_task_group {
 public:
  basic_task_group() noexcept = default;
  basic_task_group(const basic_task_group&) = delete;
  basic_task_group& operator=(const basic_task_group&) = delete;
  ~basic_task_group() {
    if (detail::join_set* j = set_.load(std::memory_order_acquire)) detail::task_hooks_now()->close_group(j, where_);
  }

  // The group's join set, created by the first spawn made inside a measurement.
  // A group made before the measurement (or used by an earlier one) is bound
  // to this measurement at its first spawn here, as if made inside it.
  detail::join_set* join_set_for(detail::session* s, const site& where) {
    if (FORKSCALE_DETAIL_UNLIKELY(owner_.load(std::memory_order_acquire) != s)) bind_to(s);
    return detail::task_hooks_now()->group_join_set(set_, where_, s, where);
  }
  detail::join_set* current_set() const noexcept { return set_.load(std::memory_order_acquire); }
  // The set a join in measurement `s` waits for: none while the group's set
  // is an earlier measurement's (nothing spawned into it here yet).
  detail::join_set* set_to_join(const detail::session* s) const noexcept {
    return owner_.load(std::memory_order_acquire) == s ? current_set() : nullptr;
  }

 private:
  // Lets go of the set of an earlier measurement (its tasks, if any are left,
  // are said there) so that the next spawn makes one in `s`. Spawns racing
  // into a group as it changes measurement wait here, briefly.
  void bind_to(detail::session* s) {
    while (binding_.test_and_set(std::memory_order_acquire)) {
    }
    if (owner_.load(std::memory_order_relaxed) != s) {
      if (detail::join_set* old = set_.exchange(nullptr, std::memory_order_acq_rel))
        detail::task_hooks_now()->close_group(old, where_);
      owner_.store(s, std::memory_order_release);
    }
    binding_.clear(std::memory_order_release);
  }

  std::atomic<detail::join_set*> set_{nullptr};
  std::atomic<detail::session*> owner_{nullptr};  // the measurement set_ belongs to
  std::atomic_flag binding_ = ATOMIC_FLAG_INIT;
  site where_;
};

// The one child behind a std::thread, a std::future or a TBB task_handle, joined on
// its own: spawn(handle, f) ... { sync_point sp(handle); t.join(); }.
template <class Clock>
class basic_join_handle {
 public:
  basic_join_handle() noexcept = default;
  basic_join_handle(basic_join_handle&& o) noexcept : set_(o.set_), where_(o.where_) { o.set_ = nullptr; }
  basic_join_handle& operator=(basic_join_handle&& o) noexcept {
    if (this != &o) {
      release("join_handle overwritten before its task was joined");
      set_ = o.set_;
      where_ = o.where_;
      o.set_ = nullptr;
    }
    return *this;
  }
  ~basic_join_handle() { release("join_handle destroyed before its task was joined"); }

  detail::join_set* bind(detail::session* s, const site& where) {
    release("join_handle reused before its task was joined");
    set_ = detail::task_hooks_now()->bind_handle(s);
    where_ = where;
    return set_;
  }
  detail::join_set* current_set() const noexcept { return set_; }
  // Called by the sync_point that joined it.
  void joined() noexcept { release(nullptr); }

 private:
  void release(const char* why) noexcept {
    if (!set_) return;
    detail::task_hooks_now()->release_handle(set_, where_, why);
    set_ = nullptr;
  }

  detail::join_set* set_ = nullptr;
  site where_;
};

// The parent half of a spawn: records the spawn point in the running task and
// returns the token the child half needs. Outside a measurement the token is empty
// and the child runs unmeasured.
template <class Clock = default_clock>
spawn_token basic_spawn_point(const site& where = site::current()) noexcept {
  return detail::guard_events<Clock>::spawn(nullptr, where);
}
template <class Clock>
spawn_token basic_spawn_point(basic_task_group<Clock>& g, const site& where = site::current()) {
  detail::frame* f = detail::current_frame<Clock>;
  if (!f) return spawn_token{};
  return detail::guard_events<Clock>::spawn(g.join_set_for(f->sess, where), where);
}
template <class Clock>
spawn_token basic_spawn_point(basic_join_handle<Clock>& h, const site& where = site::current()) {
  detail::frame* f = detail::current_frame<Clock>;
  if (!f) return spawn_token{};
  return detail::guard_events<Clock>::spawn(h.bind(f->sess, where), where);
}

// The child half of a spawn: open it when the task body starts, on whatever thread
// runs it; it closes when the body ends (also by an exception).
template <class Clock>
class basic_spawn_scope {
 public:
  explicit basic_spawn_scope(spawn_token&& tk, const site& where = site::current()) noexcept {
    detail::guard_events<Clock>::begin_child(frame_, tk, where);
  }
  basic_spawn_scope(const basic_spawn_scope&) = delete;
  basic_spawn_scope& operator=(const basic_spawn_scope&) = delete;
  ~basic_spawn_scope() { detail::guard_events<Clock>::end_child(frame_); }

 private:
  detail::frame frame_;
};

// A task body bound to its spawn point: the callable handed to the library.
// Move-only (a spawn is consumed once); callable through a const reference, as
// oneTBB invokes its tasks. Destroyed without running, it releases its join.
template <class Clock, class F>
class basic_spawned {
 public:
  basic_spawned(spawn_token&& tk, F&& fn, const site& where)
      : token_(std::move(tk)), fn_(std::move(fn)), where_(where) {}
  basic_spawned(spawn_token&& tk, const F& fn, const site& where) : token_(std::move(tk)), fn_(fn), where_(where) {}
  basic_spawned(basic_spawned&&) noexcept(std::is_nothrow_move_constructible<F>::value) = default;
  basic_spawned& operator=(basic_spawned&&) = default;
  basic_spawned(const basic_spawned&) = delete;
  basic_spawned& operator=(const basic_spawned&) = delete;
  ~basic_spawned() {
    if (FORKSCALE_DETAIL_UNLIKELY(static_cast<bool>(token_))) detail::task_hooks_now()->drop_unrun(token_, where_);
  }

  decltype(auto) operator()() const& {
    basic_spawn_scope<Clock> scope(std::move(token_), where_);
    return fn_();
  }
  // Called as it is made (`spawn(f)()`, the serial adapter): the child runs at
  // once, and where nothing happened in the spawner since the spawn, its first
  // strand starts at the spawn's clock reading instead of a reading of its own.
  decltype(auto) operator()() && {
    token_.at_once = true;
    return static_cast<const basic_spawned&>(*this)();
  }

 private:
  mutable spawn_token token_;
  mutable F fn_;
  site where_;
};

template <class Clock = default_clock, class F>
basic_spawned<Clock, std::decay_t<F>> spawn(F&& fn, const site& where = site::current()) {
  return basic_spawned<Clock, std::decay_t<F>>(detail::guard_events<Clock>::spawn(nullptr, where), std::forward<F>(fn),
                                               where);
}
template <class Clock, class F>
basic_spawned<Clock, std::decay_t<F>> spawn(basic_task_group<Clock>& g, F&& fn, const site& where = site::current()) {
  return basic_spawned<Clock, std::decay_t<F>>(basic_spawn_point<Clock>(g, where), std::forward<F>(fn), where);
}
template <class Clock, class F>
basic_spawned<Clock, std::decay_t<F>> spawn(basic_join_handle<Clock>& h, F&& fn, const site& where = site::current()) {
  return basic_spawned<Clock, std::decay_t<F>>(basic_spawn_point<Clock>(h, where), std::forward<F>(fn), where);
}

namespace detail {

// The spawns of forkscale's adapters (adapters/*.hpp, the OMPT tool): as
// basic_spawn_point and spawn, and each names the library it came through
// (`from`: backend_bit in backend.hpp), which sets the measurement's backend
// when options.backend is automatic (report::backend).
template <class Clock>
spawn_token adapter_spawn_point(unsigned char from, const site& where) noexcept {
  return guard_events<Clock>::spawn(nullptr, where, from);
}
template <class Clock>
spawn_token adapter_spawn_point(unsigned char from, basic_task_group<Clock>& g, const site& where) {
  frame* f = current_frame<Clock>;
  if (!f) return spawn_token{};
  return guard_events<Clock>::spawn(g.join_set_for(f->sess, where), where, from);
}
template <class Clock>
spawn_token adapter_spawn_point(unsigned char from, basic_join_handle<Clock>& h, const site& where) {
  frame* f = current_frame<Clock>;
  if (!f) return spawn_token{};
  return guard_events<Clock>::spawn(h.bind(f->sess, where), where, from);
}
template <class Clock, class Set, class F>
basic_spawned<Clock, std::decay_t<F>> adapter_spawn(unsigned char from, Set& set, F&& fn, const site& where) {
  return basic_spawned<Clock, std::decay_t<F>>(adapter_spawn_point<Clock>(from, set, where), std::forward<F>(fn),
                                               where);
}

}  // namespace detail

// Wrap the library's join: the strand ends when the guard opens, and the joined
// children merge into the task when it closes. Without an argument it joins every
// child the task spawned with spawn(f) (Cilk's sync); with a task group or a join
// handle it joins exactly those.
template <class Clock>
class basic_sync_point {
 public:
  explicit basic_sync_point(const site& where = site::current()) noexcept : where_(where) {
    detail::guard_events<Clock>::begin_sync(state_, where_);
  }
  explicit basic_sync_point(basic_task_group<Clock>& g, const site& where = site::current()) noexcept
      : group_(&g), where_(where) {
    detail::guard_events<Clock>::begin_sync(state_, where_);
  }
  explicit basic_sync_point(basic_join_handle<Clock>& h, const site& where = site::current()) noexcept
      : handle_(&h), where_(where) {
    detail::guard_events<Clock>::begin_sync(state_, where_);
  }
  basic_sync_point(const basic_sync_point&) = delete;
  basic_sync_point& operator=(const basic_sync_point&) = delete;
  ~basic_sync_point() {
    if (!state_.task) return;
    if (group_) {
      detail::guard_events<Clock>::end_sync(state_, group_->set_to_join(state_.task->sess), false, where_);
    } else if (handle_) {
      detail::guard_events<Clock>::end_sync(state_, handle_->current_set(), false, where_);
      handle_->joined();
    } else {
      detail::guard_events<Clock>::end_sync(state_, nullptr, true, where_);
    }
  }

 private:
  detail::sync_state state_;
  basic_task_group<Clock>* group_ = nullptr;
  basic_join_handle<Clock>* handle_ = nullptr;
  site where_;
};

// Marks a call as a profiled site (per-site profiles build on it). A call_site is
// also a sync scope, as a Cilk function is: a plain sync_point inside it joins only
// the children spawned inside it, and children it leaves unjoined pass to its
// caller. For libraries whose join waits for every child of the task — OpenMP's
// taskwait inside a called function waits for the caller's tasks too — use
// task_call_site, which only counts the call.
template <class Clock, bool OpensSyncScope = true>
class basic_call_site {
 public:
  explicit basic_call_site(const site& where = site::current()) noexcept : where_(where) {
    detail::guard_events<Clock>::begin_call(state_, OpensSyncScope, where_);
  }
  basic_call_site(const basic_call_site&) = delete;
  basic_call_site& operator=(const basic_call_site&) = delete;
  ~basic_call_site() { detail::guard_events<Clock>::end_call(state_, OpensSyncScope, where_); }

 private:
  detail::call_state state_;
  site where_;
};

// Marks code whose speedup the what-if analysis predicts (docs/model.md, "What-if
// regions"): the report says what the whole program's span and parallelism would
// be if the strands inside were k× faster, for every factor k of
// options.what_if.factors. A region is its site (file:line, or the tag when one is
// given); every entry of it, from any task on any thread, counts, and so do the
// tasks spawned inside it. Nested regions count once. Outside a measurement it
// does nothing.
//
//   { fs::what_if_region wi("partition"); p = partition(a, lo, hi); }
template <class Clock>
class basic_what_if_region {
 public:
  explicit basic_what_if_region(const site& where = site::current()) noexcept : where_(where) {
    detail::guard_events<Clock>::begin_what_if(state_, where_);
  }
  // `tag` names the region in reports; it must be a string literal or other text
  // that never changes while the program runs.
  explicit basic_what_if_region(const char* tag, const site& where = site::current()) noexcept
      : where_(site::tagged(tag, where)) {
    detail::guard_events<Clock>::begin_what_if(state_, where_);
  }
  basic_what_if_region(const basic_what_if_region&) = delete;
  basic_what_if_region& operator=(const basic_what_if_region&) = delete;
  ~basic_what_if_region() { detail::guard_events<Clock>::end_what_if(state_, where_); }

 private:
  detail::what_if_state state_;
  site where_;
};

#else   // FORKSCALE_ENABLE == 0: the same names, compiled to nothing.

struct spawn_token {
  explicit operator bool() const noexcept { return false; }
};
template <class Clock>
class basic_task_group {};
template <class Clock>
class basic_join_handle {};
template <class Clock = default_clock>
constexpr spawn_token basic_spawn_point(const site& = site::current()) noexcept {
  return {};
}
template <class Clock>
constexpr spawn_token basic_spawn_point(basic_task_group<Clock>&, const site& = site::current()) noexcept {
  return {};
}
template <class Clock>
constexpr spawn_token basic_spawn_point(basic_join_handle<Clock>&, const site& = site::current()) noexcept {
  return {};
}
template <class Clock>
class basic_spawn_scope {
 public:
  explicit basic_spawn_scope(spawn_token&&, const site& = site::current()) noexcept {}
};
template <class Clock = default_clock, class F>
std::decay_t<F> spawn(F&& fn, const site& = site::current()) {
  return std::forward<F>(fn);
}
template <class Clock, class F>
std::decay_t<F> spawn(basic_task_group<Clock>&, F&& fn, const site& = site::current()) {
  return std::forward<F>(fn);
}
template <class Clock, class F>
std::decay_t<F> spawn(basic_join_handle<Clock>&, F&& fn, const site& = site::current()) {
  return std::forward<F>(fn);
}
namespace detail {
// (The enclosing namespace's spawn_token: detail may declare one of its own.)
template <class Clock>
constexpr auto adapter_spawn_point(unsigned char, const site& where) noexcept
    -> decltype(basic_spawn_point<Clock>(where)) {
  return {};
}
template <class Clock, class Set>
constexpr auto adapter_spawn_point(unsigned char, Set&, const site& where) noexcept
    -> decltype(basic_spawn_point<Clock>(where)) {
  return {};
}
template <class Clock, class Set, class F>
std::decay_t<F> adapter_spawn(unsigned char, Set&, F&& fn, const site&) {
  return std::forward<F>(fn);
}
}  // namespace detail
template <class Clock>
class basic_sync_point {
 public:
  explicit basic_sync_point(const site& = site::current()) noexcept {}
  explicit basic_sync_point(basic_task_group<Clock>&, const site& = site::current()) noexcept {}
  explicit basic_sync_point(basic_join_handle<Clock>&, const site& = site::current()) noexcept {}
};
template <class Clock, bool OpensSyncScope = true>
class basic_call_site {
 public:
  explicit basic_call_site(const site& = site::current()) noexcept {}
};
template <class Clock>
class basic_what_if_region {
 public:
  explicit basic_what_if_region(const site& = site::current()) noexcept {}
  explicit basic_what_if_region(const char*, const site& = site::current()) noexcept {}
};
#endif  // FORKSCALE_ENABLE

// The names a program uses, on the default clock policy.
using task_group = basic_task_group<default_clock>;
using join_handle = basic_join_handle<default_clock>;
using spawn_scope = basic_spawn_scope<default_clock>;
using sync_point = basic_sync_point<default_clock>;
using call_site = basic_call_site<default_clock>;
using task_call_site = basic_call_site<default_clock, false>;
using what_if_region = basic_what_if_region<default_clock>;

inline spawn_token spawn_point(const site& where = site::current()) noexcept {
  return basic_spawn_point<default_clock>(where);
}
inline spawn_token spawn_point(task_group& g, const site& where = site::current()) {
  return basic_spawn_point<default_clock>(g, where);
}
inline spawn_token spawn_point(join_handle& h, const site& where = site::current()) {
  return basic_spawn_point<default_clock>(h, where);
}

namespace detail {

// The tag FORKSCALE_CALL gives its call site, made at compile time from the
// expression's text: the text up to its first '(', without the spaces before it
// ("partition" for "partition(a, lo, hi)"), or the whole text when that leaves
// nothing. Held in static storage (FORKSCALE_DETAIL_CALL_NAME), as a tag must be.
template <std::size_t N>
struct call_name {
  char chars[N] = {};
  constexpr explicit call_name(const char (&expr)[N]) noexcept {
    std::size_t end = 0;
    while (end + 1 < N && expr[end] != '(') ++end;
    while (end > 0 && expr[end - 1] == ' ') --end;
    if (end == 0) end = N - 1;
    for (std::size_t i = 0; i < end; ++i) chars[i] = expr[i];
  }
};

// FORKSCALE_CALL's call: `call()` inside a call_site at `where`, with its value (a
// reference stays one; none for a void call).
template <class Call>
decltype(auto) profiled_call(const site& where, Call&& call) {
  call_site cs(where);
  return std::forward<Call>(call)();
}

}  // namespace detail

FORKSCALE_NAMESPACE_END

// Guards with unique variable names, for code that prefers one line per guard.
#if FORKSCALE_ENABLE
#define FORKSCALE_CALL_SITE() ::forkscale::call_site FORKSCALE_DETAIL_UNIQUE(forkscale_call_site_)(FORKSCALE_HERE)
#define FORKSCALE_TAGGED_CALL_SITE(tag)                                 \
  ::forkscale::call_site FORKSCALE_DETAIL_UNIQUE(forkscale_call_site_)( \
      ::forkscale::site{__FILE__, static_cast<unsigned>(__LINE__), __func__, (tag)})
#define FORKSCALE_SYNC_POINT() ::forkscale::sync_point FORKSCALE_DETAIL_UNIQUE(forkscale_sync_point_)(FORKSCALE_HERE)
#define FORKSCALE_WHAT_IF_REGION(tag)                                             \
  ::forkscale::what_if_region FORKSCALE_DETAIL_UNIQUE(forkscale_what_if_region_)( \
      ::forkscale::site{__FILE__, static_cast<unsigned>(__LINE__), __func__, (tag)})
// A profiled call named by its call: FORKSCALE_CALL(partition(a, lo, hi)) runs the
// call inside an fs::call_site tagged "partition" (the expression's text up to its
// first '(') and has the call's value: `auto p = FORKSCALE_CALL(f(x));`, or a
// statement for a void call. The site's function is the enclosing one. The
// expression is evaluated in a lambda that captures by reference (in C++17 it
// cannot name a structured binding).
#define FORKSCALE_CALL(...)                                                                                 \
  ::forkscale::detail::profiled_call(::forkscale::site{__FILE__, static_cast<unsigned>(__LINE__), __func__, \
                                                       FORKSCALE_DETAIL_CALL_NAME(#__VA_ARGS__)},           \
                                     [&]() -> decltype(auto) { return __VA_ARGS__; })
#define FORKSCALE_DETAIL_CALL_NAME(expr_text)                                                     \
  ([]() noexcept -> const char* {                                                                 \
    static constexpr ::forkscale::detail::call_name<sizeof(expr_text)> forkscale_name(expr_text); \
    return forkscale_name.chars;                                                                  \
  }())
#else
#define FORKSCALE_CALL_SITE() (void)0
#define FORKSCALE_TAGGED_CALL_SITE(tag) (void)0
#define FORKSCALE_SYNC_POINT() (void)0
#define FORKSCALE_WHAT_IF_REGION(tag) (void)0
#define FORKSCALE_CALL(...) (__VA_ARGS__)
#endif
