// detail/blame/lock_measure.hpp: the measured side of fs::mutex and the lock
// guards (lock_events.hpp): the lock's clock, the acquisition's and the hold's
// times in this thread's lock table, the blame of the holder a wait saw, and the
// hold kept in the record. Inline in the header-only form, compiled once in the
// compiled form.
#pragma once
#include <cstdint>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../site.hpp"
#include "../engine/frame.hpp"
#include "../engine/session.hpp"
#include "../macro_scope.hpp"
#include "../record/buffer.hpp"
#include "../record/call_tree.hpp"
#include "lock_events.hpp"
#include "lock_table.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// The clock of a measurement's lock times: the record's wall clock when it
// records; else the measurement's clock when it is a wall clock; else (cost,
// thread_cpu) the wall clock automatic would choose.
inline clock_kind lock_wall_kind(const session& s) noexcept {
  if (s.rec) return s.rec->wall_kind();
  if (s.kind == clock_kind::tsc || s.kind == clock_kind::steady || s.kind == clock_kind::arm_counter) return s.kind;
  const clock_kind k = resolve_automatic();
  return k == clock_kind::automatic ? clock_kind::steady : k;
}

// The id the open strand of `f` will have in this thread's buffer; 0 when the
// frame is not running or recording is off.
inline std::uint64_t open_strand_id(frame& f) {
  if (f.recording.mode == recording_mode::off || !f.recording.state || !f.recording.state->on() ||
      f.state != frame::run_state::running)
    return 0;
  record_buffer& b = f.recording.state->buffer();
  return strand_id(b, b.strands.size());
}

inline lock_table& lock_table_for(session* s) {
  lock_table& t = tables_for(s).observer(thread_observer::locks).get<lock_table>();
  if (FORKSCALE_DETAIL_UNLIKELY(!t.ready)) {
    t.wall = lock_wall_kind(*s);
    t.ready = true;
  }
  return t;
}

FORKSCALE_INLINE lock_table* lock_measure::prepare(frame& f, const site& name, const site& where,
                                                   lock_hold& h) noexcept {
  try {
    lock_table& t = lock_table_for(f.sess);
    bool missed = false;
    h.lock = call_tree::instance().site_index(name, missed);
    h.site = call_tree::instance().site_index(where, missed);
    h.serial = f.sess->serial;
    return &t;
  } catch (...) {
    return nullptr;
  }
}

FORKSCALE_INLINE std::uint64_t lock_measure::now(const lock_table& t) noexcept { return read_clock(t.wall); }

FORKSCALE_INLINE void lock_measure::waited(lock_table& t, lock_hold& h, std::uint64_t by) {
  h.acquired = read_clock(t.wall);
  if (by != 0) {
    h.holder = static_cast<std::uint32_t>(by & 0xffffffffu);
    lock_sums& cause = t.at(static_cast<std::uint32_t>((by >> 32) - 1), h.holder - 1);
    cause.blamed += h.acquired > h.wait_start ? h.acquired - h.wait_start : 0;
    ++cause.blamed_waits;
  }
}

FORKSCALE_INLINE void lock_measure::acquired(frame& f, lock_table& t, const void* l, holder_slot& slot, lock_hold& h,
                                             lock_hold& held) {
  slot.owner.store(l, std::memory_order_relaxed);
  slot.holder.store((std::uint64_t(h.lock) + 1) << 32 | (std::uint64_t(h.site) + 1), std::memory_order_relaxed);
  lock_sums& row = t.at(h.lock, h.site);
  ++row.acquisitions;
  if (h.contended) {
    const std::uint64_t wait = h.acquired > h.wait_start ? h.acquired - h.wait_start : 0;
    ++row.contended;
    row.wait += wait;
    if (wait > row.max_wait) row.max_wait = wait;
  }
  try {
    h.first = open_strand_id(f);
  } catch (...) {
    h.first = 0;
  }
  held = h;
}

FORKSCALE_INLINE lock_table* lock_measure::release_table(frame* f, std::uint64_t serial) {
  // The measurement that saw the acquisition may have ended since.
  if (!f || f->sess->serial != serial) return nullptr;
  return &lock_table_for(f->sess);
}

FORKSCALE_INLINE void lock_measure::released(frame& f, lock_table& t, const lock_hold& h, std::uint64_t released) {
  lock_sums& row = t.at(h.lock, h.site);
  const std::uint64_t hold = released > h.acquired ? released - h.acquired : 0;
  row.hold += hold;
  if (hold > row.max_hold) row.max_hold = hold;
  // Recording: the hold as a raw_lock in this thread's buffer.
  if (f.recording.mode == recording_mode::off || !f.recording.state || !f.recording.state->on()) return;
  try {
    record_buffer& b = f.recording.state->buffer();
    raw_lock* e = b.locks.next(*f.recording.state);
    if (!e) return;
    e->wait_start = h.wait_start;
    e->acquired = h.acquired;
    e->released = released;
    e->first = h.first;
    e->last = f.state == frame::run_state::running ? strand_id(b, b.strands.size()) : 0;
    e->lock = h.lock;
    e->site = h.site;
    e->holder = h.holder;
    e->contended = h.contended;
  } catch (...) {
  }
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
