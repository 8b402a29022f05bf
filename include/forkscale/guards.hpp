// guards.hpp: the RAII guards a program wraps around its library's spawn, sync and
// call points, the regions that label parts of a run, and measure().
//
//   tg.run(fs::spawn([&] { x = fib(n - 1); }));   // spawn point now, child scope when it runs
//   { fs::call_site cs; y = fib(n - 2); }          // a profiled call
//   { fs::sync_point sp; tg.wait(); }              // strand ends before the join, merges after
//
// Every guard is a template over the clock policy (clock.hpp); the unprefixed names
// use FORKSCALE_DEFAULT_CLOCK (runtime_clock unless defined otherwise), which reads
// the clock chosen by each measurement's options. With FORKSCALE_ENABLE=0 every
// guard is an empty type and measure() simply runs the callable.
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>

#include "clock.hpp"
#include "config.hpp"
#include "detail/macro_scope.hpp"
#include "report.hpp"
#include "site.hpp"

#if FORKSCALE_ENABLE
#include "detail/engine/engine.hpp"
#include "detail/engine/session_ops.hpp"
#include "detail/engine/state.hpp"
#else
#include <functional>
#endif

#ifndef FORKSCALE_DEFAULT_CLOCK
#define FORKSCALE_DEFAULT_CLOCK ::forkscale::runtime_clock
#endif

FORKSCALE_NAMESPACE_BEGIN

using default_clock = FORKSCALE_DEFAULT_CLOCK;

#if FORKSCALE_ENABLE

using spawn_token = detail::spawn_token;

template <class Clock>
class basic_sync_point;

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
    detail::join_set* j = set_.load(std::memory_order_acquire);
    if (!j) return;
    detail::session* s = j->owner_session;
    j->lock.lock();
    const std::int64_t remaining = j->remaining();
    const std::uint64_t finished = j->finished;
    j->lock.unlock();
    if (remaining != 0)
      detail::misuse(s, where_,
                     "task_group destroyed while " + std::to_string(remaining) +
                         " of its tasks had not finished");
    else if (finished != 0)
      detail::misuse(s, where_,
                     "task_group destroyed with " + std::to_string(finished) +
                         " finished task(s) that no sync_point joined");
    detail::release_owner(j, nullptr);
    s->bound_objects.fetch_sub(1, std::memory_order_release);
  }

  // The group's join set, created by the first spawn made inside a measurement.
  detail::join_set* join_set_for(detail::session* s, const site& where) {
    detail::join_set* j = set_.load(std::memory_order_acquire);
    if (FORKSCALE_DETAIL_LIKELY(j != nullptr)) return j;
    detail::join_set* fresh = detail::new_join_set(s);
    if (set_.compare_exchange_strong(j, fresh, std::memory_order_acq_rel)) {
      where_ = where;
      s->bound_objects.fetch_add(1, std::memory_order_relaxed);
      return fresh;
    }
    detail::delete_join_set(fresh);
    return j;
  }
  detail::join_set* current_set() const noexcept { return set_.load(std::memory_order_acquire); }

 private:
  std::atomic<detail::join_set*> set_{nullptr};
  site where_;
};

// The one child behind a std::thread, a std::future or a TBB task_handle, joined on
// its own: spawn(handle, f) ... { sync_point sp(handle); t.join(); }.
template <class Clock>
class basic_join_handle {
 public:
  basic_join_handle() noexcept = default;
  basic_join_handle(basic_join_handle&& o) noexcept : set_(o.set_), where_(o.where_) {
    o.set_ = nullptr;
  }
  basic_join_handle& operator=(basic_join_handle&& o) noexcept {
    if (this != &o) {
      drop("join_handle overwritten before its task was joined");
      set_ = o.set_;
      where_ = o.where_;
      o.set_ = nullptr;
    }
    return *this;
  }
  ~basic_join_handle() { drop("join_handle destroyed before its task was joined"); }

  detail::join_set* bind(detail::session* s, const site& where) {
    drop("join_handle reused before its task was joined");
    set_ = detail::new_join_set(s);
    where_ = where;
    s->bound_objects.fetch_add(1, std::memory_order_relaxed);
    return set_;
  }
  detail::join_set* current_set() const noexcept { return set_; }
  // Called by the sync_point that joined it.
  void joined() noexcept {
    if (!set_) return;
    detail::session* s = set_->owner_session;
    detail::release_owner(set_, nullptr);
    set_ = nullptr;
    s->bound_objects.fetch_sub(1, std::memory_order_release);
  }

 private:
  void drop(const char* why) noexcept {
    if (!set_) return;
    detail::session* s = set_->owner_session;
    set_->lock.lock();
    const bool unjoined = set_->remaining() != 0 || set_->finished != 0;
    set_->lock.unlock();
    if (unjoined) detail::misuse(s, where_, why);
    detail::release_owner(set_, nullptr);
    set_ = nullptr;
    s->bound_objects.fetch_sub(1, std::memory_order_release);
  }

  detail::join_set* set_ = nullptr;
  site where_;
};

// The parent half of a spawn: records the spawn point in the running task and
// returns the token the child half needs. Outside a measurement the token is empty
// and the child runs unmeasured.
template <class Clock = default_clock>
spawn_token basic_spawn_point(const site& where = site::current()) noexcept {
  return basic_engine<Clock>::spawn(nullptr, where);
}
template <class Clock>
spawn_token basic_spawn_point(basic_task_group<Clock>& g, const site& where = site::current()) {
  detail::frame* f = basic_engine<Clock>::current();
  if (!f) return spawn_token{};
  return basic_engine<Clock>::spawn(g.join_set_for(f->s, where), where);
}
template <class Clock>
spawn_token basic_spawn_point(basic_join_handle<Clock>& h, const site& where = site::current()) {
  detail::frame* f = basic_engine<Clock>::current();
  if (!f) return spawn_token{};
  return basic_engine<Clock>::spawn(h.bind(f->s, where), where);
}

// The child half of a spawn: open it when the task body starts, on whatever thread
// runs it; it closes when the body ends (also by an exception).
template <class Clock>
class basic_spawn_scope {
 public:
  explicit basic_spawn_scope(spawn_token&& tk, const site& where = site::current()) noexcept {
    basic_engine<Clock>::begin_child(frame_, tk, where);
  }
  basic_spawn_scope(const basic_spawn_scope&) = delete;
  basic_spawn_scope& operator=(const basic_spawn_scope&) = delete;
  ~basic_spawn_scope() { basic_engine<Clock>::end_child(frame_); }

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
  basic_spawned(spawn_token&& tk, const F& fn, const site& where)
      : token_(std::move(tk)), fn_(fn), where_(where) {}
  basic_spawned(basic_spawned&&) noexcept(std::is_nothrow_move_constructible<F>::value) = default;
  basic_spawned& operator=(basic_spawned&&) = default;
  basic_spawned(const basic_spawned&) = delete;
  basic_spawned& operator=(const basic_spawned&) = delete;
  ~basic_spawned() {
    if (FORKSCALE_DETAIL_UNLIKELY(static_cast<bool>(token_))) detail::drop_unrun(token_, where_);
  }

  decltype(auto) operator()() const {
    basic_spawn_scope<Clock> scope(std::move(token_), where_);
    return fn_();
  }

 private:
  mutable spawn_token token_;
  mutable F fn_;
  site where_;
};

template <class Clock = default_clock, class F>
basic_spawned<Clock, std::decay_t<F>> spawn(F&& fn, const site& where = site::current()) {
  return basic_spawned<Clock, std::decay_t<F>>(basic_engine<Clock>::spawn(nullptr, where),
                                               std::forward<F>(fn), where);
}
template <class Clock, class F>
basic_spawned<Clock, std::decay_t<F>> spawn(basic_task_group<Clock>& g, F&& fn,
                                            const site& where = site::current()) {
  return basic_spawned<Clock, std::decay_t<F>>(basic_spawn_point<Clock>(g, where),
                                               std::forward<F>(fn), where);
}
template <class Clock, class F>
basic_spawned<Clock, std::decay_t<F>> spawn(basic_join_handle<Clock>& h, F&& fn,
                                            const site& where = site::current()) {
  return basic_spawned<Clock, std::decay_t<F>>(basic_spawn_point<Clock>(h, where),
                                               std::forward<F>(fn), where);
}

// Wrap the library's join: the strand ends when the guard opens, and the joined
// children merge into the task when it closes. Without an argument it joins every
// child the task spawned with spawn(f) (Cilk's sync); with a task group or a join
// handle it joins exactly those.
template <class Clock>
class basic_sync_point {
 public:
  explicit basic_sync_point(const site& where = site::current()) noexcept : where_(where) {
    frame_ = basic_engine<Clock>::begin_sync(depth_, where_);
  }
  explicit basic_sync_point(basic_task_group<Clock>& g, const site& where = site::current()) noexcept
      : group_(&g), where_(where) {
    frame_ = basic_engine<Clock>::begin_sync(depth_, where_);
  }
  explicit basic_sync_point(basic_join_handle<Clock>& h, const site& where = site::current()) noexcept
      : handle_(&h), where_(where) {
    frame_ = basic_engine<Clock>::begin_sync(depth_, where_);
  }
  basic_sync_point(const basic_sync_point&) = delete;
  basic_sync_point& operator=(const basic_sync_point&) = delete;
  ~basic_sync_point() {
    if (!frame_) return;
    if (group_) {
      detail::join_set* j = group_->current_set();
      if (!j) {  // nothing was ever spawned into the group: an empty join
        basic_engine<Clock>::end_sync(frame_, empty_set(), depth_, where_);
        return;
      }
      basic_engine<Clock>::end_sync(frame_, j, depth_, where_);
    } else if (handle_) {
      detail::join_set* j = handle_->current_set();
      basic_engine<Clock>::end_sync(frame_, j ? j : empty_set(), depth_, where_);
      handle_->joined();
    } else {
      basic_engine<Clock>::end_sync(frame_, nullptr, depth_, where_);
    }
  }

 private:
  // A join set with nothing in it, for joins of groups and handles never spawned into.
  static detail::join_set* empty_set() noexcept {
    static thread_local detail::join_set empty;
    return &empty;
  }

  detail::frame* frame_ = nullptr;
  basic_task_group<Clock>* group_ = nullptr;
  basic_join_handle<Clock>* handle_ = nullptr;
  unsigned depth_ = 0;
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
    frame_ = basic_engine<Clock>::begin_call(depth_, saved_, OpensSyncScope, state_, where_);
  }
  basic_call_site(const basic_call_site&) = delete;
  basic_call_site& operator=(const basic_call_site&) = delete;
  ~basic_call_site() {
    basic_engine<Clock>::end_call(frame_, depth_, saved_, OpensSyncScope, state_, where_);
  }

 private:
  detail::frame* frame_ = nullptr;
  detail::join_set* saved_ = nullptr;  // the caller's sync block
  detail::call_state state_;           // for the site profile
  unsigned depth_ = 0;
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
  explicit basic_what_if_region(const site& where = site::current()) noexcept : where_(where) { open(); }
  // `tag` names the region in reports; it must be a string literal or other text
  // that never changes while the program runs.
  explicit basic_what_if_region(const char* tag, const site& where = site::current()) noexcept
      : where_(site::tagged(tag, where)) {
    open();
  }
  basic_what_if_region(const basic_what_if_region&) = delete;
  basic_what_if_region& operator=(const basic_what_if_region&) = delete;
  ~basic_what_if_region() {
    using E = basic_engine<Clock>;
    detail::frame* f = frame_;
    if (!f) return;
    if (FORKSCALE_DETAIL_UNLIKELY(E::current() != f || f->guards != depth_))
      E::close_out_of_order(f, depth_, where_, "what_if_region");
    if (f->guards >= depth_) f->guards = depth_ - 1;
    if (!changed_) return;
    if (FORKSCALE_DETAIL_LIKELY(f->state == detail::frame::run_state::running)) {
      const std::uint64_t t = E::now(*f);
      E::close_strand(*f, t);
      f->t0 = t;
    }
    f->wi_mask = saved_;
  }

 private:
  void open() noexcept {
    using E = basic_engine<Clock>;
    detail::frame* f = E::current();
    if (!f) return;
    std::uint64_t bit = 0;
    try {
      bit = detail::wi_site_bits(f->s, where_, false);
    } catch (...) {
      return;  // out of memory registering the region: it is not analysed
    }
    frame_ = f;
    depth_ = ++f->guards;
    if (!bit || (f->wi_mask & bit)) return;  // inside this region already: counts once
    detail::record_wi_entries(f->s, bit);
    if (FORKSCALE_DETAIL_LIKELY(f->state == detail::frame::run_state::running)) {
      const std::uint64_t t = E::now(*f);
      E::close_strand(*f, t);
      f->t0 = t;
    }
    saved_ = f->wi_mask;
    f->wi_mask |= bit;
    changed_ = true;
  }

  detail::frame* frame_ = nullptr;
  std::uint64_t saved_ = 0;
  unsigned depth_ = 0;
  bool changed_ = false;
  site where_;
};

// A labeled region. Outside any measurement it starts one (stop() returns the
// report; without stop() the report goes to last_report()). Inside one it adds a
// row, joined to the enclosing region by its path: everything that completes
// between its opening and its closing in this task — the task's own strands and
// every child it joins in between — summed over all instances.
template <class Clock>
class basic_region {
 public:
  explicit basic_region(std::string label, const options& opt = options{},
                        const site& where = site::current())
      : where_(where) {
    using E = basic_engine<Clock>;
    detail::frame* f = E::current();
    if (!f) {
      owned_ = detail::open_session<Clock>(label, opt);
      detail::init_root(root_, owned_.get(), where);
      E::current() = &root_;
      root_.t0 = E::now(root_);
      return;
    }
    frame_ = f;
    node_ = detail::intern_region(f->s, f->region, label);
    if (f->state == detail::frame::run_state::running) {
      const std::uint64_t t = E::now(*f);
      E::close_strand(*f, t);
      f->t0 = t;
    }
    at_open_ = f->t;
    saved_ = f->region;
    f->region = node_;
    depth_ = ++f->guards;
  }
  basic_region(const basic_region&) = delete;
  basic_region& operator=(const basic_region&) = delete;
  ~basic_region() {
    if (stopped_) return;
    report r = stop();
    if (!r.empty() && r.regions.front().depth == 0) {
      std::lock_guard<std::mutex> g(detail::last_report_mutex());
      detail::last_report_slot() = std::move(r);
    }
  }

  // Ends the region. The outermost region returns the whole report; a nested one
  // returns a report whose only row is this instance.
  report stop() {
    using E = basic_engine<Clock>;
    if (stopped_) return report{};
    stopped_ = true;
    if (owned_) {
      if (E::current() != &root_)
        detail::misuse(owned_.get(), where_,
                       "measurement ended while a task scope opened inside it is still open on "
                       "this thread (guards closed out of order)");
      if (root_.guards != 0)
        detail::misuse(owned_.get(), where_,
                       "measurement ended with " + std::to_string(root_.guards) +
                           " guard(s) still open");
      if (root_.state == detail::frame::run_state::running) E::close_strand(root_, E::now(root_));
      E::current() = nullptr;
      return detail::finish_session(std::move(owned_), root_);
    }
    detail::frame* f = frame_;
    if (E::current() != f || f->guards != depth_)
      E::close_out_of_order(f, depth_, where_, "region");
    if (f->state == detail::frame::run_state::running) {
      const std::uint64_t t = E::now(*f);
      E::close_strand(*f, t);
      f->t0 = t;
    }
    const detail::path_totals d = detail::difference(f->t, at_open_);
    detail::record_region(f->s, node_, d);
    f->region = saved_;
    if (f->guards >= depth_) f->guards = depth_ - 1;
    report rep = detail::make_report_shell(*f->s);
    rep.label = node_->path;
    rep.regions.push_back(detail::make_row(*f->s, *node_, 1, d));
    rep.compensation_total = rep.regions.front().raw_work - rep.regions.front().work;
    return rep;
  }

 private:
  std::unique_ptr<detail::session> owned_;  // set for an outermost region
  detail::frame root_;
  detail::frame* frame_ = nullptr;          // set for a nested region
  detail::region_node* node_ = nullptr;
  detail::region_node* saved_ = nullptr;
  detail::path_totals at_open_;
  unsigned depth_ = 0;
  bool stopped_ = false;
  site where_;
};

// Runs `fn` as a measured region and returns its report (nested inside another
// measurement, the report of this instance).
template <class Clock = default_clock, class Fn>
report measure(std::string label, Fn&& fn, const options& opt = options{},
               const site& where = site::current()) {
  basic_region<Clock> r(std::move(label), opt, where);
  std::forward<Fn>(fn)();
  return r.stop();
}

#else  // FORKSCALE_ENABLE == 0: the same names, compiled to nothing.

struct options {
  clock_kind clock = clock_kind::automatic;
  double burden = -1;
  bool compensate = true;
  bool site_profiles = true;
  unsigned max_processors = 0;
  what_if_options what_if;
  std::function<void(const diagnostic&)> on_diagnostic;
};
struct spawn_token {
  explicit operator bool() const noexcept { return false; }
};
template <class Clock>
class basic_task_group {};
template <class Clock>
class basic_join_handle {};
template <class Clock = default_clock>
constexpr spawn_token basic_spawn_point(const site& = site::current()) noexcept { return {}; }
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
template <class Clock>
class basic_region {
 public:
  explicit basic_region(const std::string&, const options& = options{},
                        const site& = site::current()) noexcept {}
  report stop() const { return report{}; }
};
template <class Clock = default_clock, class Fn>
report measure(const std::string&, Fn&& fn, const options& = options{},
               const site& = site::current()) {
  std::forward<Fn>(fn)();
  return report{};
}
inline report last_report() { return report{}; }

#endif  // FORKSCALE_ENABLE

// The names a program uses, on the default clock policy.
using task_group = basic_task_group<default_clock>;
using join_handle = basic_join_handle<default_clock>;
using spawn_scope = basic_spawn_scope<default_clock>;
using sync_point = basic_sync_point<default_clock>;
using call_site = basic_call_site<default_clock>;
using task_call_site = basic_call_site<default_clock, false>;
using region = basic_region<default_clock>;
using what_if_region = basic_what_if_region<default_clock>;

inline spawn_token spawn_point(const site& where = site::current()) noexcept {
  return basic_spawn_point<default_clock>(where);
}

FORKSCALE_NAMESPACE_END

// Guards with unique variable names, for code that prefers one line per guard.
#if FORKSCALE_ENABLE
#define FORKSCALE_CALL_SITE() \
  ::forkscale::call_site FORKSCALE_DETAIL_UNIQUE(forkscale_call_site_)(FORKSCALE_HERE)
#define FORKSCALE_TAGGED_CALL_SITE(tag)                                \
  ::forkscale::call_site FORKSCALE_DETAIL_UNIQUE(forkscale_call_site_)( \
      ::forkscale::site{__FILE__, static_cast<unsigned>(__LINE__), __func__, (tag)})
#define FORKSCALE_SYNC_POINT() \
  ::forkscale::sync_point FORKSCALE_DETAIL_UNIQUE(forkscale_sync_point_)(FORKSCALE_HERE)
#define FORKSCALE_REGION(label)                                    \
  ::forkscale::region FORKSCALE_DETAIL_UNIQUE(forkscale_region_)( \
      (label), ::forkscale::options{}, FORKSCALE_HERE)
#define FORKSCALE_WHAT_IF_REGION(tag)                                              \
  ::forkscale::what_if_region FORKSCALE_DETAIL_UNIQUE(forkscale_what_if_region_)( \
      ::forkscale::site{__FILE__, static_cast<unsigned>(__LINE__), __func__, (tag)})
#else
#define FORKSCALE_CALL_SITE() (void)0
#define FORKSCALE_TAGGED_CALL_SITE(tag) (void)0
#define FORKSCALE_SYNC_POINT() (void)0
#define FORKSCALE_REGION(label) (void)0
#define FORKSCALE_WHAT_IF_REGION(tag) (void)0
#endif
