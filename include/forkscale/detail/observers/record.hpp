// detail/observers/record.hpp: what the engine's points add to the record when
// recording is on. Each is called from one place in list.hpp, behind a
// predicted-false test of the frame's recording mode.
#pragma once
#include <cstdint>

#include "../../config.hpp"
#include "../../site.hpp"
#include "../engine/frame.hpp"
#include "../engine/join_set.hpp"
#include "../macro_scope.hpp"
#include "../record/buffer.hpp"
#include "../record/call_tree.hpp"
#include "what_if.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// The open strand of `f` ends at clock reading `t` with costs `c`. It becomes
// the task's previous strand and the end of the longest path through `f`. Its
// entry is written whole, in one store, into the thread's buffer. Inlined into
// the engine's one out-of-line path for watched strands.
FORKSCALE_DETAIL_ALWAYS_INLINE void keep_strand(frame& f, std::uint64_t t, const strand_cost& c) noexcept {
  record_state& rs = *f.recording.state;
  record_buffer& b = rs.buffer();
  raw_strand* r = b.strands.next(rs);
  if (FORKSCALE_DETAIL_UNLIKELY(!r)) {
    ++b.dropped;
    f.recording.prev = 0;
    f.totals.last_strand = 0;
    return;
  }
  const bool own_wall = f.recording.mode == recording_mode::with_wall_clock;
  *r = raw_strand{f.recording.prev,
                  f.totals.last_strand,
                  f.recording.join_uid,
                  own_wall ? f.recording.wall_start : f.strand_start,
                  own_wall ? rs.wall_now() : t,
                  c.work,
                  c.path,
                  f.recording.join_round,
                  f.recording.call_path,
                  f.recording.flags,
                  f.recording.join_site,
                  f.what_if_mask & what_if_region_bits};
  const std::uint64_t id = strand_id(b, b.strands.size() - 1);
  f.recording.prev = id;
  f.totals.last_strand = id;
  f.recording.flags = 0;
  f.recording.join_uid = 0;
  f.recording.join_site = 0;
}

// A spawn: the child starts after the strand that just ended, in the call path
// the spawn site opens; the spawner's next strand is the continuation. Returns
// whether a call path was interned just now (its cost is then in no strand).
FORKSCALE_DETAIL_NOINLINE inline bool keep_spawn(frame& f, spawn_token& tk, const site& where) noexcept {
  tk.rec_from = f.recording.prev;
  f.recording.flags |= rec_after_spawn;
  bool missed = false;
  try {
    tk.rec_call_path =
        call_tree::instance().child(f.recording.call_path, where, record_frame::kind_type::spawn, missed);
  } catch (...) {
    tk.rec_call_path = f.recording.call_path;
  }
  return missed;
}

// A sync_point's join took round `c.round` of its set: the next strand starts
// after that join.
FORKSCALE_DETAIL_NOINLINE inline void keep_join(frame& f, const join_contents& c, const site& where) noexcept {
  f.recording.join_uid = c.uid;
  f.recording.join_round = c.round;
  bool missed = false;
  try {
    f.recording.join_site = call_tree::instance().site_index(where, missed) + 1;
  } catch (...) {
    f.recording.join_site = 0;
  }
}

// A call opens: the strands inside run in the call path its site opens.
// Returns whether the path was interned just now.
FORKSCALE_DETAIL_NOINLINE inline bool keep_call_open(frame& f, call_state& cs, const site& where) noexcept {
  cs.caller_call_path = f.recording.call_path;
  bool missed = false;
  try {
    f.recording.call_path =
        call_tree::instance().child(f.recording.call_path, where, record_frame::kind_type::call, missed);
  } catch (...) {
  }
  return missed;
}

// A labeled region's instance closes on this thread.
FORKSCALE_DETAIL_NOINLINE inline void keep_region_instance(frame& f, const region_state& rs) noexcept {
  record_state& r = *f.recording.state;
  if (!r.on()) return;
  try {
    r.buffer().regions.push_back(raw_region{rs.node, rs.rec_wall_open, r.wall_now()});
  } catch (...) {
  }
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
