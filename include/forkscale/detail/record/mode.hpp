// detail/record/mode.hpp: whether a measurement records its execution, which a
// session sets and each frame copies, and what a running task keeps for the
// recording.
#pragma once
#include <cstdint>

#include "../../config.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Whether a measurement records its execution (options::record, detail/record/),
// and where the record's wall clock comes from.
enum class recording_mode : unsigned char {
  off,
  on,               // the measurement's clock is the wall clock
  with_wall_clock,  // the wall clock is read beside the measurement's clock
};

class record_state;

// The recording's state in one running task: a frame's `recording` slot, which
// the engine holds and never looks into (observers/record.hpp keeps it). The
// fields after `state` describe the open strand: how it began, where it runs,
// what it follows.
struct task_recording {
  recording_mode mode = recording_mode::off;  // a copy of the session's
  record_state* state = nullptr;              // the measurement's record
  std::uint32_t call_path = 0;                // (call_tree)
  std::uint32_t flags = 0;                    // rec_after_spawn, rec_task_start
  std::uint32_t join_round = 0;               // the join it starts after, if join_uid != 0
  std::uint32_t join_site = 0;                // that sync_point's site + 1
  std::uint64_t join_uid = 0;
  std::uint64_t prev = 0;        // the task's previous strand, or the spawner's
  std::uint64_t wall_start = 0;  // with_wall_clock: the wall clock at the start
  std::uint64_t end_uid = 0;     // finished children merged at the task's end
  std::uint32_t end_round = 0;
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
