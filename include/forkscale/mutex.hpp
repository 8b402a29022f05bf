// mutex.hpp: lock blame (docs/blame.md). fs::mutex is a std::mutex that, while
// the locking thread runs a task of a measurement, times each acquisition's wait
// and each hold, per lock and acquisition site, and charges every wait to the
// critical section that held the lock when the wait began. fs::lock_guard and
// fs::unique_lock are the std guards for any lockable, naming the acquisition
// by their own line.
//
//   fs::mutex queue_lock{"queue"};                  // named in reports by its label
//   { fs::lock_guard g(queue_lock); q.push(x); }     // this line is the acquisition site
//   { std::lock_guard<fs::mutex> g(queue_lock); }   // the std guards work too: site "queue"
//   std::shared_mutex sm;  { fs::lock_guard g(sm); } // any lockable
//
// The report lists the locks by total wait (report::locks, locks_text(),
// locks_csv()), and with options.record calls out holds on the critical path.
// Outside a measurement each call costs one thread-local read more than the
// lockable's own; with FORKSCALE_ENABLE=0 fs::mutex is a std::mutex and the
// guards are the std guards, with nothing added.
#pragma once
#include <mutex>
#include <system_error>
#include <utility>

#include "config.hpp"
#include "guards.hpp"
#include "site.hpp"

#if FORKSCALE_ENABLE
#include "detail/blame/lock_events.hpp"
#endif

FORKSCALE_NAMESPACE_BEGIN

#if FORKSCALE_ENABLE

// A std::mutex that measures (see above). Its name in reports is its label, or
// where it was made. A label must be a string literal or other text that never
// changes while the program runs (sites are cached by address, as tags are).
// lock() and try_lock() without a site name the acquisition by the mutex's name:
// std::lock_guard, std::scoped_lock and std::unique_lock call them so.
template <class Clock>
class basic_mutex {
 public:
  constexpr explicit basic_mutex(const site& where = site::current()) noexcept : name_(where) {}
  constexpr explicit basic_mutex(const char* label, const site& where = site::current()) noexcept
      : name_(site::tagged(label, where)) {}
  basic_mutex(const basic_mutex&) = delete;
  basic_mutex& operator=(const basic_mutex&) = delete;

  void lock() { lock(name_); }
  void lock(const site& where) { detail::lock_events<Clock>::lock(m_, slot_, name_, where, hold_); }
  bool try_lock() { return try_lock(name_); }
  bool try_lock(const site& where) { return detail::lock_events<Clock>::try_lock(m_, slot_, name_, where, hold_); }
  void unlock() { detail::lock_events<Clock>::unlock(m_, slot_, hold_); }

  // What names the mutex in reports.
  const site& name() const noexcept { return name_; }
  // For tests: measured acquisitions waiting for it now.
  std::uint32_t waiting() const noexcept { return detail::lock_waiters(slot_); }
  // Internal (the guards): a hold given up without unlocking.
  void forget_hold() noexcept { detail::lock_events<Clock>::forget(slot_, hold_); }

 private:
  std::mutex m_;
  site name_;
  detail::holder_slot slot_;
  detail::lock_hold hold_;  // the holder's; written after acquiring
};

namespace detail {

// How a guard takes a lockable: fs::mutex keeps its own hold; any other
// lockable is named by the guard's site, and its hold lives in the guard.
template <class L>
struct lock_access {
  static void lock(L& l, const site& where, lock_hold& h) {
    lock_events<default_clock>::lock(l, shared_holder_slot(&l), where, where, h);
  }
  static bool try_lock(L& l, const site& where, lock_hold& h) {
    return lock_events<default_clock>::try_lock(l, shared_holder_slot(&l), where, where, h);
  }
  static void unlock(L& l, lock_hold& h) { lock_events<default_clock>::unlock(l, shared_holder_slot(&l), h); }
  static void forget(L& l, lock_hold& h) noexcept { lock_events<default_clock>::forget(shared_holder_slot(&l), h); }
};
template <class Clock>
struct lock_access<basic_mutex<Clock>> {
  using M = basic_mutex<Clock>;
  static void lock(M& m, const site& where, lock_hold&) { m.lock(where); }
  static bool try_lock(M& m, const site& where, lock_hold&) { return m.try_lock(where); }
  static void unlock(M& m, lock_hold&) { m.unlock(); }
  static void forget(M& m, lock_hold&) noexcept { m.forget_hold(); }
};

}  // namespace detail

// std::lock_guard for any BasicLockable; the guard's line names the acquisition
// (of an fs::mutex: the lock keeps its own name; of any other lockable: the
// line names the lock too).
template <class L>
class lock_guard {
 public:
  using mutex_type = L;
  explicit lock_guard(L& l, const site& where = site::current()) : l_(l) {
    detail::lock_access<L>::lock(l_, where, hold_);
  }
  // Takes over a lock the caller holds (not measured, unless it is an fs::mutex
  // locked by this thread).
  lock_guard(L& l, std::adopt_lock_t) noexcept : l_(l) {}
  lock_guard(const lock_guard&) = delete;
  lock_guard& operator=(const lock_guard&) = delete;
  ~lock_guard() { detail::lock_access<L>::unlock(l_, hold_); }

 private:
  L& l_;
  detail::lock_hold hold_;
};

// std::unique_lock for any Lockable, with the acquisition named by the line
// that made it. Works with std::condition_variable_any (which unlocks and
// locks it again: the time spent waiting for the condition is no lock wait).
template <class L>
class unique_lock {
 public:
  using mutex_type = L;
  unique_lock() noexcept = default;
  explicit unique_lock(L& l, const site& where = site::current()) : l_(&l), where_(where) { lock(); }
  unique_lock(L& l, std::defer_lock_t, const site& where = site::current()) noexcept : l_(&l), where_(where) {}
  unique_lock(L& l, std::try_to_lock_t, const site& where = site::current()) : l_(&l), where_(where) { try_lock(); }
  unique_lock(L& l, std::adopt_lock_t, const site& where = site::current()) noexcept
      : l_(&l), where_(where), owns_(true) {}
  unique_lock(const unique_lock&) = delete;
  unique_lock& operator=(const unique_lock&) = delete;
  unique_lock(unique_lock&& o) noexcept : l_(o.l_), where_(o.where_), hold_(o.hold_), owns_(o.owns_) {
    o.l_ = nullptr;
    o.owns_ = false;
  }
  unique_lock& operator=(unique_lock&& o) noexcept {
    if (this != &o) {
      if (owns_) detail::lock_access<L>::unlock(*l_, hold_);
      l_ = o.l_;
      where_ = o.where_;
      hold_ = o.hold_;
      owns_ = o.owns_;
      o.l_ = nullptr;
      o.owns_ = false;
    }
    return *this;
  }
  ~unique_lock() {
    if (owns_) detail::lock_access<L>::unlock(*l_, hold_);
  }

  void lock() {
    check(false);
    detail::lock_access<L>::lock(*l_, where_, hold_);
    owns_ = true;
  }
  bool try_lock() {
    check(false);
    owns_ = detail::lock_access<L>::try_lock(*l_, where_, hold_);
    return owns_;
  }
  void unlock() {
    check(true);
    detail::lock_access<L>::unlock(*l_, hold_);
    owns_ = false;
  }
  // Gives up the lock without unlocking it (the hold is no longer measured).
  L* release() noexcept {
    if (owns_) detail::lock_access<L>::forget(*l_, hold_);
    L* l = l_;
    l_ = nullptr;
    owns_ = false;
    return l;
  }
  void swap(unique_lock& o) noexcept {
    unique_lock t(std::move(o));
    o = std::move(*this);
    *this = std::move(t);
  }
  bool owns_lock() const noexcept { return owns_; }
  explicit operator bool() const noexcept { return owns_; }
  L* mutex() const noexcept { return l_; }

 private:
  // As std::unique_lock: no lockable is operation_not_permitted, locking twice
  // resource_deadlock_would_occur, unlocking what it does not own
  // operation_not_permitted.
  void check(bool must_own) const {
    if (!l_) throw std::system_error(std::make_error_code(std::errc::operation_not_permitted));
    if (must_own && !owns_) throw std::system_error(std::make_error_code(std::errc::operation_not_permitted));
    if (!must_own && owns_) throw std::system_error(std::make_error_code(std::errc::resource_deadlock_would_occur));
  }

  L* l_ = nullptr;
  site where_;
  detail::lock_hold hold_;
  bool owns_ = false;
};

#else  // FORKSCALE_ENABLE == 0: the std types, with the same constructors.

template <class Clock>
class basic_mutex : public std::mutex {
 public:
  constexpr explicit basic_mutex(const site& = site::current()) noexcept {}
  constexpr explicit basic_mutex(const char*, const site& = site::current()) noexcept {}
  using std::mutex::lock;
  using std::mutex::try_lock;
  void lock(const site&) { std::mutex::lock(); }
  bool try_lock(const site&) { return std::mutex::try_lock(); }
};

template <class L>
class lock_guard : public std::lock_guard<L> {
 public:
  explicit lock_guard(L& l, const site& = site::current()) : std::lock_guard<L>(l) {}
  lock_guard(L& l, std::adopt_lock_t a) noexcept : std::lock_guard<L>(l, a) {}
};

template <class L>
class unique_lock : public std::unique_lock<L> {
  using base = std::unique_lock<L>;

 public:
  unique_lock() noexcept = default;
  explicit unique_lock(L& l, const site& = site::current()) : base(l) {}
  unique_lock(L& l, std::defer_lock_t t, const site& = site::current()) noexcept : base(l, t) {}
  unique_lock(L& l, std::try_to_lock_t t, const site& = site::current()) : base(l, t) {}
  unique_lock(L& l, std::adopt_lock_t t, const site& = site::current()) noexcept : base(l, t) {}
};

#endif  // FORKSCALE_ENABLE

// The names a program uses, on the default clock policy.
using mutex = basic_mutex<default_clock>;

FORKSCALE_NAMESPACE_END
