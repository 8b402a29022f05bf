// detail/engine/state.hpp: what the guards hold — a running task's frame, a
// spawn's token and the state of each guard between its two events — and
// nothing else. The annotation header (annotate.hpp) includes this file only:
// the engine that acts on these types is reached through hooks.hpp.
#pragma once
#include <atomic>
#include <cstdint>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../site.hpp"
#include "../macro_scope.hpp"
#include "../profile/prof_records.hpp"
#include "../record/mode.hpp"
#include "compensation.hpp"
#include "path_value.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

struct session;
class join_set;
struct region_node;
struct region_state;
struct site_context;
class record_state;
struct what_if_vec;
struct prof_node;
struct spawn_token;

// What the guards of task groups, join handles and spawn tokens call in the
// engine (engine/tasks.hpp). A file that only annotates (annotate.hpp) does not
// compile the engine: it reaches it through this table, which the engine
// installs when a measurement starts — before any of these can have something
// to do, since every token, group set and handle set belongs to a measurement.
struct task_hooks {
  void (*drop_token)(spawn_token& tk) noexcept;  // a token destroyed unused
  void (*drop_unrun)(spawn_token& tk, const site& where) noexcept;
  join_set* (*group_join_set)(std::atomic<join_set*>& slot, site& group_site, session* s, const site& where);
  void (*close_group)(join_set* j, const site& where) noexcept;
  void (*release_handle)(join_set* j, const site& where, const char* why) noexcept;
  join_set* (*bind_handle)(session* s);
};
inline std::atomic<const task_hooks*> installed_task_hooks{nullptr};
inline const task_hooks* task_hooks_now() noexcept { return installed_task_hooks.load(std::memory_order_acquire); }

// Called as a measurement starts, before its root frame runs (null: nothing to
// do): the OMPT tool (detail/ompt/tool.hpp) registers its callbacks with the
// OpenMP runtime there, the first time a measurement needs them.
using measurement_start_fn = void (*)() noexcept;
inline std::atomic<measurement_start_fn> measurement_start_hook{nullptr};

// One running task body (or the root of a measurement) on one thread. Frames
// live inside the guards that open them, on the running thread's stack; a
// thread's frames form a stack through `outer` (a task run while another is
// blocked in a join, or run inline by its spawner).
struct region_state;

struct frame {
  enum class run_state : unsigned char { running, suspended, blocked };

  path_totals totals;              // the path value at the start of the open strand
  std::uint64_t strand_start = 0;  // clock reading at the start of the open strand
  // Overhead compensation (session::compensation): a strand is charged its
  // opening event's share and its closing event's, by the events' kinds
  // (compensation_table). The share its opening event charged is in comp_open.
  std::uint64_t comp_open = 0;
  const compensation_table* comp = &no_compensation;  // the session's table
  std::uint64_t burden = 0;
  clock_kind kind = clock_kind::cost;
  run_state state = run_state::running;
  unsigned open_guards = 0;  // guards open in this frame, for order checks
  frame* outer = nullptr;
  session* sess = nullptr;
  join_set* sync_block = nullptr;        // the children a plain sync_point joins (made lazily)
  join_set* report_to = nullptr;         // where this task's totals go; null for a root
  region_node* region = nullptr;         // innermost region, inherited by children
  region_state* open_regions = nullptr;  // the innermost region guard open in this frame
  site where;                            // the guard that opened the frame

  // The subsystems' slots: observers/ keeps them, the engine holds them and
  // never looks into them.
  task_profile profile;            // site profiles (docs/model.md; profile/prof_records.hpp)
  std::uint64_t what_if_mask = 0;  // what-if regions open here, inherited by children
  task_recording recording;        // options::record (record/mode.hpp)

  // Call sites take the slow path: the session names what-if call sites (1) or
  // records its execution (2).
  unsigned char call_events = 0;
  // The libraries the session knew its spawns came through (backend_bit) when
  // this frame last looked: a spawn through another one tells it (note_backend).
  unsigned char backends = 0;
  // Readings shared between events (the session's fuse_readings): a child run at
  // once starts at its spawn's reading, and a sync that waited for nothing
  // starts the next strand at the reading that ended the last.
  bool fuse = false;
  bool fuse_join = false;  // the sync half of `fuse` (not under thread_cpu: joins_fuse)
  // A task ran on this thread while this frame was not running (a join that ran
  // other tasks while it waited), and the reading at which the last of them
  // ended (0 while one runs): the join's next strand may start there. Set by
  // begin_sync and begin_child, read by end_sync only.
  bool lent = false;
  std::uint64_t lent_end = 0;
};

// What a spawn hands to its child: where to report and the path value at the
// spawn point. Move-only: a spawn is consumed exactly once.
struct spawn_token {
  join_set* target = nullptr;
  region_node* region = nullptr;
  std::uint64_t span = 0, burdened_span = 0, raw_span = 0;
  spawn_profile profile;  // the site profiles' slot (profile/prof_records.hpp)
  std::uint64_t what_if_mask = 0;
  what_if_vec* what_if = nullptr;  // the spawner's what-if offsets (a copy the child takes)
  std::uint64_t last_strand = 0;   // path_totals::last_strand at the spawn
  // Recording: the spawner's strand that ended at the spawn; where readings are
  // shared instead (never in a recording measurement, tasks.hpp), the reading
  // the spawner's continuation started at (0: none). One field: a token sits
  // in every task a library queues, and its size is the queue's memory.
  union {
    std::uint64_t rec_from = 0;
    std::uint64_t spawned_at;
  };
  std::uint32_t rec_call_path = 0;  // recording: the child's call path
  // The callable was invoked as it was made (basic_spawned's rvalue call, the
  // serial adapter): a child that starts on the spawner's thread with no event
  // in the spawner since the spawn (its strand still starts at `spawned_at`)
  // starts at that reading (engine::begin_child).
  bool at_once = false;

  spawn_token() = default;
  spawn_token(const spawn_token&) = delete;
  spawn_token& operator=(const spawn_token&) = delete;
  spawn_token(spawn_token&& o) noexcept { take(o); }
  ~spawn_token() {  // a token never used releases its join
    if (FORKSCALE_DETAIL_UNLIKELY(target != nullptr || what_if != nullptr)) task_hooks_now()->drop_token(*this);
  }
  spawn_token& operator=(spawn_token&& o) noexcept {
    if (this != &o) {
      this->~spawn_token();
      take(o);
    }
    return *this;
  }
  void take(spawn_token& o) noexcept {
    target = o.target;
    region = o.region;
    span = o.span;
    burdened_span = o.burdened_span;
    raw_span = o.raw_span;
    o.profile.hand_on(profile);
    what_if_mask = o.what_if_mask;
    what_if = o.what_if;
    last_strand = o.last_strand;
    rec_from = o.rec_from;  // (or spawned_at)
    rec_call_path = o.rec_call_path;
    at_once = o.at_once;
    o.target = nullptr;
    o.what_if = nullptr;
  }
  explicit operator bool() const noexcept { return target != nullptr; }
};

// A path value kept at a point of a task for the successors of its depend
// edges (detail/ompt/depend.hpp): the path lengths, with the what-if offsets
// and the site profile of that path. Owns `what_if` and one reference to
// `prof.chain`.
struct kept_path {
  std::uint64_t span = 0, burdened_span = 0, raw_span = 0;
  what_if_vec* what_if = nullptr;
  path_prof prof;
};

// What a sync_point keeps between its two events.
struct sync_state {
  frame* task = nullptr;
  unsigned depth = 0;
  std::uint64_t began = 0;  // the reading that ended the strand before the join
};

// What a call_site keeps: its scope, and what makes its invocation's record.
struct call_state {
  frame* task = nullptr;
  unsigned depth = 0;
  join_set* caller_block = nullptr;  // the caller's sync block, while the call has its own
  const site_context* caller_context = nullptr;
  std::uint64_t caller_local_work = 0;
  std::uint64_t span_at_open = 0, work_at_open = 0, local_span_at_open = 0;
  std::uint32_t site_id = 0;
  unsigned char flags = 0;
  bool what_if_set = false;  // the call entered what-if regions (or an assumed site)
  std::uint64_t caller_what_if_mask = 0;
  std::uint32_t caller_call_path = 0;  // recording: the caller's call path
};

// What a what_if_region keeps.
struct what_if_state {
  frame* task = nullptr;
  unsigned depth = 0;
  bool changed = false;  // this instance added its region to the task's mask
  std::uint64_t saved_mask = 0;
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
