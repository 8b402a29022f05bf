// tbb_partition.hpp: how oneTBB's partitioners cut a loop's range, as the oneTBB
// adapter (tbb.hpp) models them on the split tree of split_tree.hpp.
//
// Each model follows what oneTBB's partitioner does when no task is stolen, for
// the concurrency P of the arena the loop is called in, so that the split tree
// is a function of the range, the grain and P — never of who steals what:
//  - simple_partitioner (split_tree.hpp): split while is_divisible().
//  - static_partitioner: P pieces by proportional splits (the range's
//    proportional splitting constructor when it has one), one leaf each.
//  - auto_partitioner: 2P tasks by halving, one more "balancing" split per task
//    (and per task that split made, one fewer level each time), then each task
//    runs its range as consecutive leaves down to a depth of 5 levels, less the
//    balancing splits made above it (oneTBB's range pool).
//  - affinity_partitioner: 16 slots per thread: P pieces by proportional splits,
//    then each piece runs its range pool, handing its largest piece to a new task
//    while it has slots (halved at each hand-off), as oneTBB does.
// The splits oneTBB adds when a task is stolen (its demand-driven depth) are not
// modeled: they depend on timing.
//
// Opt-in: forkscale.hpp does not include this header (tbb.hpp does).
#pragma once
#include <cstddef>
#include <deque>
#include <type_traits>
#include <utility>

#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>

#include "split_tree.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace split_tree {

// oneTBB's constants: the range pool's depth and capacity, the auto
// partitioner's initial chunks per thread, the affinity partitioner's slots per thread.
inline constexpr unsigned pool_depth = 5;
inline constexpr std::size_t pool_capacity = 8;
inline constexpr std::size_t auto_chunks = 2;
inline constexpr std::size_t affinity_slots = 16;

struct static_partition {
  std::size_t pieces;
};
struct auto_partition {
  std::size_t divisor;
  unsigned depth = pool_depth;
  bool task_start = true;
};
struct affinity_partition {
  std::size_t divisor;
  unsigned depth = pool_depth;
  bool delay_passed = false;  // the first range of a task runs before any hand-off
  bool task_start = true;
};

// The second part of `r` for a split into left : right shares: the range's
// proportional splitting constructor, else its plain one (halves).
template <class Range>
Range split_in_proportion(Range& r, std::size_t left, std::size_t right) {
  if constexpr (std::is_constructible<Range, Range&, ::oneapi::tbb::proportional_split&>::value) {
    ::oneapi::tbb::proportional_split shares(left, right);
    return Range(r, shares);
  } else {
    return split_off(r);
  }
}

template <class Worker, class Range>
void run_task(Worker& w, Range& r, static_partition p) {
  if (p.pieces <= 1 || !r.is_divisible()) {
    w.leaf(r);
    return;
  }
  const std::size_t right_pieces = p.pieces / 2;
  const std::size_t left_pieces = p.pieces - right_pieces;
  Range right = split_in_proportion(r, left_pieces, right_pieces);
  w.fork([&](auto& rw) { run_task(rw, right, static_partition{right_pieces}); },
         [&] { run_task(w, r, static_partition{left_pieces}); });
}

// A task's range as consecutive leaves: halved down to `depth` levels while divisible.
template <class Worker, class Range>
void run_pool(Worker& w, Range& r, unsigned depth) {
  if (depth == 0 || !r.is_divisible()) {
    w.leaf(r);
    return;
  }
  Range right = split_off(r);
  run_pool(w, r, depth - 1);
  run_pool(w, right, depth - 1);
}

// Whether an auto-partitioned task splits once more: while it has chunks to
// make, and once more (the balancing split, one level of depth less) after.
inline bool auto_splits(auto_partition& p) {
  if (p.divisor > 1) return true;
  if (p.divisor == 1 && p.depth > 0) {
    --p.depth;
    p.divisor = 0;
    return true;
  }
  return false;
}

template <class Worker, class Range>
void run_task(Worker& w, Range& r, auto_partition p) {
  if (p.task_start && p.divisor == 0) p.divisor = 1;  // a task a balancing split made may balance once more
  p.task_start = false;
  if (r.is_divisible() && auto_splits(p)) {
    p.divisor /= 2;
    Range right = split_off(r);
    const auto_partition child{p.divisor, p.depth, true};
    w.fork([&](auto& rw) { run_task(rw, right, child); }, [&] { run_task(w, r, p); });
    return;
  }
  run_pool(w, r, p.depth);
}

template <class Range>
struct pool_piece {
  Range range;
  unsigned depth;
};

// oneTBB's range pool under the affinity partitioner: the last (leftmost) piece
// is halved down to the depth, the first (largest) piece is handed to a new
// task while the task has slots, the last one runs.
template <class Range>
void fill_pool(std::deque<pool_piece<Range>>& pool, unsigned depth) {
  while (pool.size() < pool_capacity && pool.back().depth < depth && pool.back().range.is_divisible()) {
    pool_piece<Range>& last = pool.back();
    Range right = split_off(last.range);
    pool_piece<Range> left{last.range, last.depth + 1};
    last = pool_piece<Range>{std::move(right), left.depth};
    pool.push_back(std::move(left));
  }
}

inline bool affinity_hands_off(affinity_partition& p) {
  if (!p.delay_passed) {
    p.delay_passed = true;
    return false;
  }
  if (p.divisor > 1) return true;
  if (p.divisor == 1 && p.depth > 0) {
    p.divisor = 0;
    return true;
  }
  return false;
}

template <class Worker, class Range>
void run_task(Worker& w, Range& r, affinity_partition p);

template <class Worker, class Range>
void run_affinity_pool(Worker& w, std::deque<pool_piece<Range>>& pool, affinity_partition& p) {
  while (!pool.empty()) {
    fill_pool(pool, p.depth);
    if (affinity_hands_off(p)) {
      if (pool.size() > 1) {
        pool_piece<Range> first = std::move(pool.front());
        pool.pop_front();
        p.divisor /= 2;
        const affinity_partition child{p.divisor, p.depth - first.depth, true, true};
        w.fork([&](auto& rw) { run_task(rw, first.range, child); }, [&] { run_affinity_pool(w, pool, p); });
        return;
      }
      if (pool.back().depth < p.depth && pool.back().range.is_divisible()) continue;
    }
    w.leaf(pool.back().range);
    pool.pop_back();
  }
}

template <class Worker, class Range>
void run_task(Worker& w, Range& r, affinity_partition p) {
  if (p.task_start && p.divisor < affinity_slots) p.divisor = 1;  // not one of the first P tasks
  p.task_start = false;
  if (r.is_divisible() && p.divisor > affinity_slots) {
    const std::size_t n = p.divisor / affinity_slots;
    const std::size_t right_pieces = n / 2;
    const std::size_t portion = right_pieces * affinity_slots;
    p.divisor -= portion;
    Range right = split_in_proportion(r, n - right_pieces, right_pieces);
    const affinity_partition child{portion, p.depth, false, true};
    w.fork([&](auto& rw) { run_task(rw, right, child); }, [&] { run_task(w, r, p); });
    return;
  }
  if (!r.is_divisible() || p.depth == 0) {
    w.leaf(r);
    return;
  }
  std::deque<pool_piece<Range>> pool;
  pool.push_back(pool_piece<Range>{r, 0});
  run_affinity_pool(w, pool, p);
}

}  // namespace split_tree

namespace tbb_adapter {

// The concurrency oneTBB's partitioners divide by: the current arena's.
inline std::size_t arena_threads() {
  const int p = ::oneapi::tbb::this_task_arena::max_concurrency();
  return p > 0 ? static_cast<std::size_t>(p) : 1u;
}

inline split_tree::simple_partition partition_of(const ::oneapi::tbb::simple_partitioner&) { return {}; }
inline split_tree::static_partition partition_of(const ::oneapi::tbb::static_partitioner&) { return {arena_threads()}; }
inline split_tree::auto_partition partition_of(const ::oneapi::tbb::auto_partitioner&) {
  return {split_tree::auto_chunks * arena_threads()};
}
inline split_tree::affinity_partition partition_of(::oneapi::tbb::affinity_partitioner&) {
  return {split_tree::affinity_slots * arena_threads()};
}

// The model of a partitioner type (SFINAE: only oneTBB's four are partitioners).
template <class Partitioner>
using partition_t = decltype(partition_of(std::declval<std::remove_reference_t<Partitioner>&>()));

}  // namespace tbb_adapter
}  // namespace detail
FORKSCALE_NAMESPACE_END
