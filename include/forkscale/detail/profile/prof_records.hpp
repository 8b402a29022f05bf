// detail/profile/prof_records.hpp: what one finished invocation contributes to the
// per-site profiles (docs/model.md, "Per-site profiles"; Cilkprof SPAA'15 §4–§6,
// TaskProf FSE'17), and the task ids that break ties between equal paths.
#pragma once
#include <cstdint>

#include "../../config.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// SplitMix64's finalizer: task ids for the deterministic tie-break at joins.
inline std::uint64_t mix64(std::uint64_t z) noexcept {
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ull;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z;
}
// The id of the k-th task spawned by `parent`: a function of the program's
// structure only, so ties break the same way whatever the interleaving.
inline std::uint64_t child_task_id(std::uint64_t parent, std::uint64_t k) noexcept {
  return mix64(parent + k * 0x9E3779B97F4A7C15ull) | 1u;
}
constexpr std::uint64_t root_task_id = 1;

// Does the path (span, task) beat (other_span, other_task) at a join? The longer
// one wins; between equal ones, the one from the task with the larger id.
inline bool path_beats(std::uint64_t span, std::uint64_t task, std::uint64_t other_span,
                       std::uint64_t other_task) noexcept {
  return span > other_span || (span == other_span && task > other_task);
}

// Which measurements an invocation counts in (Cilkprof §6).
enum : unsigned char { prof_top_call_site = 1, prof_top_caller = 2, prof_task = 4 };

// One finished invocation, or several of one site with the same flags that
// follow each other on one path, summed (`merged` more than one; append_record,
// observers/profile.hpp). Times in clock ticks. No default member initializers:
// frames and chain nodes hold arrays of these that must cost nothing to construct
// (make one with prof_record r{}).
struct prof_record {
  std::uint32_t site;
  unsigned char flags;
  std::uint16_t merged;  // invocations summed here besides the first
  std::uint64_t work;
  std::int64_t span;
  std::uint64_t local_work;
  std::int64_t local_span;
  std::uint64_t task_work;  // tasks only: the task's own strands
  std::int64_t task_span;   // tasks only: exclusive span
};

// Sums `r` into `into` when both are of one site with the same flags (and the
// count of invocations summed still fits); returns whether it did.
inline bool merge_record(prof_record& into, const prof_record& r) noexcept {
  if (into.site != r.site || into.flags != r.flags || into.merged >= 0xFFFFu - r.merged) return false;
  into.merged = static_cast<std::uint16_t>(into.merged + 1u + r.merged);
  into.work += r.work;
  into.span += r.span;
  into.local_work += r.local_work;
  into.local_span += r.local_span;
  into.task_work += r.task_work;
  into.task_span += r.task_span;
  return true;
}

// Count, work and span summed over invocations (one of Cilkprof's measurements).
struct measure_sum {
  std::uint64_t count = 0;
  std::uint64_t work = 0;
  std::int64_t span = 0;

  void add(std::uint64_t w, std::int64_t s, std::uint64_t n = 1) noexcept {
    count += n;
    work += w;
    span += s;
  }
  void add(const measure_sum& o) noexcept {
    count += o.count;
    work += o.work;
    span += o.span;
  }
};

// Per-site sums of records: the top-call-site, top-caller and local
// measurements, and a spawn site's exclusive work and span.
struct site_sums {
  measure_sum top_call_site, top_caller, local;
  std::uint64_t task_work = 0;
  std::int64_t task_span = 0;

  void add(const prof_record& r) noexcept {
    const std::uint64_t n = 1u + r.merged;
    if (r.flags & prof_top_call_site) top_call_site.add(r.work, r.span, n);
    if (r.flags & prof_top_caller) top_caller.add(r.work, r.span, n);
    local.add(r.local_work, r.local_span, n);
    task_work += r.task_work;
    task_span += r.task_span;
  }
  void add(const site_sums& o) noexcept {
    top_call_site.add(o.top_call_site);
    top_caller.add(o.top_caller);
    local.add(o.local);
    task_work += o.task_work;
    task_span += o.task_span;
  }
};

// Records a frame holds before it pushes them onto its chain (prof_node).
inline constexpr unsigned prof_records_per_node = 4;

// Copies `n` records, at most prof_records_per_node, one at a time: a loop over
// `n` would be compiled to a call of memcpy, which costs more than the copy.
inline void copy_records(prof_record* to, const prof_record* from, unsigned n) noexcept {
  static_assert(prof_records_per_node == 4, "copy_records copies at most 4");
  if (n == 0) return;
  to[0] = from[0];
  if (n == 1) return;
  to[1] = from[1];
  if (n == 2) return;
  to[2] = from[2];
  if (n == 3) return;
  to[3] = from[3];
}

struct prof_node;

// What a path carries for the on-span profile: the id of the task it arrives
// from (the tie-break at joins), the running sums whose differences are local
// and exclusive (task) spans, and the chain of records.
struct path_prof {
  std::uint64_t task = 0;
  std::uint64_t local_span = 0;
  std::uint64_t task_span = 0;
  prof_node* chain = nullptr;
};

// The records a task's path has on top of its chain when the task ends, still
// in its frame: the join set it reports to copies them only when that path
// wins there (join_set::report), so that a task end makes no chain node, and
// one that loses copies nothing.
struct pending_records {
  const prof_record* at = nullptr;
  unsigned count = 0;
};

struct site_context;

// What a spawn hands its child for the site profiles: a spawn token's
// `profile` slot (observers/profile.hpp fills it at the spawn and reads it at
// the child's start): the child's id, its invocation and the spawner's path.
struct spawn_profile {
  bool on = false;
  unsigned char flags = 0;
  std::uint32_t site_id = 0;
  std::uint64_t task_id = 0;
  const site_context* context = nullptr;
  path_prof path;  // owns one reference to path.chain

  // A token moved: the slot goes to `to` with its reference.
  void hand_on(spawn_profile& to) noexcept {
    to = *this;
    path.chain = nullptr;
  }
};

// The site profiles' state in one running task: a frame's `profile` slot, which
// the engine holds and never looks into (observers/profile.hpp keeps it). The
// task's path value is (totals.span, task_id) plus `path` and the records in
// `records` not yet pushed onto its chain.
struct task_profile {
  bool on = false;               // the measurement profiles sites
  unsigned char task_flags = 0;  // this task's own invocation
  unsigned record_count = 0;
  std::uint32_t task_site = 0;
  std::uint64_t task_id = root_task_id;
  std::uint64_t spawn_count = 0;    // spawns made by this task, for its children's ids
  std::uint64_t local_work = 0;     // cost of the strands of the innermost open invocation
  std::uint64_t task_work = 0;      // cost of this task's own strands
  std::uint64_t span_at_start = 0;  // at the task's start
  std::uint64_t local_span_at_start = 0;
  std::uint64_t task_span_at_start = 0;
  const site_context* context = nullptr;  // sites of the invocations open here
  path_prof path;
  std::int64_t chain_credits = 0;  // references to path.chain taken in advance, for spawns
  prof_record records[prof_records_per_node];
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
