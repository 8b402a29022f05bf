// detail/profile/records.hpp: what one finished invocation contributes to the
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

// One finished invocation. Times in clock ticks. No default member initializers:
// frames and chain nodes hold arrays of these that must cost nothing to construct
// (make one with prof_record r{}).
struct prof_record {
  std::uint32_t site;
  unsigned char flags;
  std::uint64_t work;
  std::int64_t span;
  std::uint64_t local_work;
  std::int64_t local_span;
  std::uint64_t task_work;  // tasks only: the task's own strands
  std::int64_t task_span;   // tasks only: exclusive span
};

// Count, work and span summed over invocations (one of Cilkprof's measurements).
struct measure_sum {
  std::uint64_t count = 0;
  std::uint64_t work = 0;
  std::int64_t span = 0;

  void add(std::uint64_t w, std::int64_t s) noexcept {
    ++count;
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
    if (r.flags & prof_top_call_site) top_call_site.add(r.work, r.span);
    if (r.flags & prof_top_caller) top_caller.add(r.work, r.span);
    local.add(r.local_work, r.local_span);
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

}  // namespace detail
FORKSCALE_NAMESPACE_END
