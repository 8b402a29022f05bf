// leaf_stats.hpp: how long a loop's leaves were, for the loop adapters
// (split_tree.hpp): each leaf is timed on the measurement's clock, and a loop
// of more than `many_leaves` leaves whose average leaf is shorter than the
// burden (what one spawn costs on the burdened span) is said in one diagnostic
// with its number of leaves and a grain that would make them as long as the
// burden. Outside a measurement nothing is read.
#pragma once
#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "../forkscale.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace split_tree {

// Fewer leaves than this are not warned about: a few short leaves cost a few
// burdens. (The speedup estimate's default extent, 32 processors.)
inline constexpr std::uint64_t many_leaves = 32;

template <class Range, class = void>
struct has_size : std::false_type {};
template <class Range>
struct has_size<Range, std::void_t<decltype(std::declval<const Range&>().size())>> : std::true_type {};

struct leaf_stats {
  std::atomic<std::uint64_t> leaves{0};
  std::atomic<std::uint64_t> ticks{0};
  std::atomic<std::uint64_t> items{0};  // the leaves' sizes, for ranges that have size()
};

// Runs one leaf (`run()`) over `r`, counted and timed.
template <class Clock, class Range, class Run>
void timed_leaf(leaf_stats& stats, const Range& r, const Run& run) {
#if FORKSCALE_ENABLE
  frame* f = current_frame<Clock>;
  if (f == nullptr) {
    run();
    return;
  }
  const clock_kind kind = f->kind;
  const std::uint64_t start = Clock::now(kind);
  run();
  const std::uint64_t end = Clock::now(kind);
  stats.ticks.fetch_add(end > start ? end - start : 0, std::memory_order_relaxed);
  stats.leaves.fetch_add(1, std::memory_order_relaxed);
  if constexpr (has_size<Range>::value) stats.items.fetch_add(r.size(), std::memory_order_relaxed);
#else
  (void)stats;
  (void)r;
  run();
#endif
}

// After the loop, on the thread that called it.
template <class Clock>
void warn_if_short(const leaf_stats& stats, const char* loop, const site& where) {
#if FORKSCALE_ENABLE
  const frame* f = current_frame<Clock>;
  const std::uint64_t leaves = stats.leaves.load(std::memory_order_relaxed);
  const std::uint64_t ticks = stats.ticks.load(std::memory_order_relaxed);
  if (f == nullptr || leaves <= many_leaves || ticks == 0 || f->burden == 0) return;
  const double average = static_cast<double>(ticks) / static_cast<double>(leaves);
  if (average >= static_cast<double>(f->burden)) return;
  const double share = 100.0 * average / static_cast<double>(f->burden);
  std::string problem = std::string(loop) + " made " + std::to_string(leaves) + " leaves whose average is " +
                        std::to_string(static_cast<long long>(std::llround(share))) +
                        "% of the burden (one spawn's cost on the burdened span)";
  const std::uint64_t items = stats.items.load(std::memory_order_relaxed);
  if (items > 0) {
    const double per_leaf = static_cast<double>(items) / static_cast<double>(leaves);
    const auto grain = static_cast<long long>(std::ceil(per_leaf * static_cast<double>(f->burden) / average));
    problem += ": a grain of at least " + std::to_string(grain) + " (now leaves of " +
               std::to_string(static_cast<long long>(std::llround(per_leaf))) +
               " on average), or oneTBB's auto_partitioner, would make them longer";
  } else {
    problem += ": a coarser grain, or oneTBB's auto_partitioner, would make them longer";
  }
  region_api<Clock>::notice(where, problem);
#else
  (void)stats;
  (void)loop;
  (void)where;
#endif
}

}  // namespace split_tree
}  // namespace detail
FORKSCALE_NAMESPACE_END
