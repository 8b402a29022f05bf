// detail/blame/lock_events.hpp: what fs::mutex and the forkscale lock guards
// (mutex.hpp) do around the lockable's own lock(), try_lock() and unlock().
//
// A thread that runs no task of a measurement (engine<Clock>::current() is
// null: one thread-local read) locks and unlocks as the lockable does, and only
// notes in the hold that it was not measured. A thread inside a measurement
// also reads the wall clock where the acquisition begins, ends and where the
// hold ends, adds the times to its lock table (lock_table.hpp) under (lock,
// acquire site), and, when the measurement records, keeps the hold in its
// record buffer (a raw_lock, charged to options.record_limit).
//
// Directed blame shifting (Tallent, Mellor-Crummey and Porterfield, PPoPP'10,
// as the Mellor-Crummey lecture presents it): a waiting thread is the symptom,
// the holder the cause. The holder publishes its (lock, site) in the lock's
// holder slot after acquiring and clears it before releasing; a contended
// acquisition reads it when its wait begins and charges its wait to that site.
//
// Which strand holds the lock: a strand never ends at a lock, so the hold lies
// in the open strand of the thread's running frame, and that strand is the next
// one the thread's buffer receives. Every strand the engine closes on a thread
// is the running frame's (engine/events.hpp: spawn, sync and call events close
// current()'s strand; begin_child closes the outer frame's strand before the
// child becomes current; end_child closes the child's, which is current), so no
// other strand can be appended on this thread in between. Hence the id
// strand_id(buffer, size) read at the event names it. A lock taken while the
// frame is blocked (inside a sync_point, e.g. by the library's own join) lies in
// no strand: its id is 0.
#pragma once
#include <atomic>
#include <cstdint>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../site.hpp"
#include "../engine/hooks.hpp"
#include "../engine/state.hpp"
#include "../macro_scope.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Who holds a lock, for the threads that wait for it. fs::mutex has a slot of
// its own; any other lockable shares one of a fixed table, chosen by its
// address (`owner` tells the lockables of one slot apart).
struct holder_slot {
  std::atomic<const void*> owner{nullptr};
  std::atomic<std::uint64_t> holder{0};   // (lock + 1) << 32 | (site + 1); 0: no measured holder
  std::atomic<std::uint32_t> waiting{0};  // measured acquisitions waiting now
};

inline holder_slot& shared_holder_slot(const void* lockable) noexcept {
  static holder_slot table[256];
  const std::uint64_t h =
      static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(lockable)) * 0x9E3779B97F4A7C15ull;
  return table[h >> 56];
}

// What a hold keeps from its acquisition to its release (in the fs::mutex for
// its own lock() and unlock(), in the guard otherwise). Written by the holder
// only, after acquiring.
struct lock_hold {
  std::uint64_t serial = 0;                    // the measurement's session serial; 0: not measured
  std::uint64_t wait_start = 0, acquired = 0;  // wall ticks (lock_table::wall)
  std::uint64_t first = 0;                     // recording: the id of the strand open at the acquisition
  std::uint32_t lock = 0, site = 0;            // call_tree site indices
  std::uint32_t holder = 0;                    // contended: the holder's site + 1 seen when the wait began
  bool contended = false;
};

// Nanoseconds per tick of a lock clock.
inline double lock_ns_per_tick(clock_kind k) noexcept {
  return k == clock_kind::tsc ? tsc_ns_per_tick() : k == clock_kind::arm_counter ? arm_ns_per_tick() : 1.0;
}

class lock_table;

// The measured side of an acquisition and a release, for any lockable: the
// lockable's own calls stay in lock_events (inline, templates); everything
// that reads the clock or writes the tables is here (compiled once in the
// compiled form; lock_measure.hpp).
struct lock_measure {
  // The site indices of an acquisition (and this thread's table), or null when
  // they cannot be had (out of memory): the acquisition is then not measured.
  FORKSCALE_INLINE static lock_table* prepare(frame& f, const site& name, const site& where, lock_hold& h) noexcept;
  // The lock clock of the table, now.
  FORKSCALE_INLINE static std::uint64_t now(const lock_table& t) noexcept;
  // A contended acquisition got the lock: its wait ends now; the holder seen
  // when it began (`by`, holder_slot::holder) is blamed for it.
  FORKSCALE_INLINE static void waited(lock_table& t, lock_hold& h, std::uint64_t by);
  // The lock is ours: publish the holder, count the acquisition, keep the hold.
  FORKSCALE_INLINE static void acquired(frame& f, lock_table& t, const void* l, holder_slot& slot, lock_hold& h,
                                        lock_hold& held);
  // The table of a release by frame `f` of a hold of measurement `serial`, or
  // null when that measurement has ended since.
  FORKSCALE_INLINE static lock_table* release_table(frame* f, std::uint64_t serial);
  // After the release at `released`: the hold's time, and the raw_lock when recording.
  FORKSCALE_INLINE static void released(frame& f, lock_table& t, const lock_hold& h, std::uint64_t released);
};

template <class Clock>
struct lock_events {
  // lock(): acquires `l`, measured when this thread runs a task of a measurement.
  // `name` names the lock, `where` the acquisition.
  template <class L>
  static void lock(L& l, holder_slot& slot, const site& name, const site& where, lock_hold& held) {
    frame* f = current_frame<Clock>;
    if (FORKSCALE_DETAIL_LIKELY(f == nullptr)) {
      l.lock();
      held.serial = 0;
      return;
    }
    measured_lock(*f, l, slot, name, where, held);
  }

  // try_lock(): a failed try is no acquisition and counts nothing.
  template <class L>
  static bool try_lock(L& l, holder_slot& slot, const site& name, const site& where, lock_hold& held) {
    frame* f = current_frame<Clock>;
    if (FORKSCALE_DETAIL_LIKELY(f == nullptr)) {
      if (!l.try_lock()) return false;
      held.serial = 0;
      return true;
    }
    lock_hold h;
    lock_table* t = lock_measure::prepare(*f, name, where, h);
    if (!l.try_lock()) return false;
    if (!t) {
      held.serial = 0;
      return true;
    }
    h.wait_start = h.acquired = lock_measure::now(*t);
    lock_measure::acquired(*f, *t, &l, slot, h, held);
    return true;
  }

  // unlock(): releases `l`; a measured hold adds its time and, when recording,
  // its raw_lock. The hold is read before the release: afterwards the next
  // holder may overwrite it.
  template <class L>
  static void unlock(L& l, holder_slot& slot, lock_hold& held) {
    if (FORKSCALE_DETAIL_LIKELY(held.serial == 0)) {
      l.unlock();
      return;
    }
    const lock_hold h = held;
    held.serial = 0;
    clear_holder(slot, h);
    frame* f = current_frame<Clock>;
    lock_table* t = lock_measure::release_table(f, h.serial);
    if (!t) {
      l.unlock();
      return;
    }
    const std::uint64_t released = lock_measure::now(*t);
    l.unlock();
    lock_measure::released(*f, *t, h, released);
  }

  // A hold given up without unlocking (unique_lock::release): the lock stays
  // locked and is no longer measured.
  static void forget(holder_slot& slot, lock_hold& held) noexcept {
    if (held.serial != 0) clear_holder(slot, held);
    held.serial = 0;
  }

 private:
  template <class L>
  FORKSCALE_DETAIL_NOINLINE static void measured_lock(frame& f, L& l, holder_slot& slot, const site& name,
                                                      const site& where, lock_hold& held) {
    lock_hold h;
    lock_table* t = lock_measure::prepare(f, name, where, h);
    if (!t) {
      l.lock();
      held.serial = 0;
      return;
    }
    h.wait_start = lock_measure::now(*t);
    if (l.try_lock()) {
      h.acquired = h.wait_start;
    } else {
      h.contended = true;
      std::uint64_t by = 0;
      if (slot.owner.load(std::memory_order_relaxed) == static_cast<const void*>(&l))
        by = slot.holder.load(std::memory_order_relaxed);
      // Counted as waiting once the holder it saw is read: whoever sees this
      // wait (lock_waiters) sees one whose blame is settled.
      slot.waiting.fetch_add(1, std::memory_order_relaxed);
      try {
        l.lock();
      } catch (...) {
        slot.waiting.fetch_sub(1, std::memory_order_relaxed);
        throw;
      }
      slot.waiting.fetch_sub(1, std::memory_order_relaxed);
      lock_measure::waited(*t, h, by);
    }
    lock_measure::acquired(f, *t, &l, slot, h, held);
  }

  static void clear_holder(holder_slot& slot, const lock_hold& h) noexcept {
    std::uint64_t mine = (std::uint64_t(h.lock) + 1) << 32 | (std::uint64_t(h.site) + 1);
    slot.holder.compare_exchange_strong(mine, 0, std::memory_order_relaxed);
  }
};

// Measured acquisitions of `slot`'s lock waiting now (for tests that order
// threads by who waits for whom).
inline std::uint32_t lock_waiters(const holder_slot& slot) noexcept {
  return slot.waiting.load(std::memory_order_relaxed);
}

}  // namespace detail
FORKSCALE_NAMESPACE_END

#if FORKSCALE_DETAIL_DEFINES(measure)
#include "lock_measure.hpp"
#endif
