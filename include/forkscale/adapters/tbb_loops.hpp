// tbb_loops.hpp: the oneTBB adapter's loops (included by tbb.hpp, after the fork
// policy fork_task_group): parallel_for and parallel_reduce in every form oneTBB
// has, with its partitioners, and parallel_deterministic_reduce.
//
//   parallel_for(range, body[, partitioner])             body(subrange) per leaf
//   parallel_for(first, last[, step], f[, partitioner])  f(i) for each index
//   parallel_for(first, last, f, fs::grainsize(g))       f(i), leaves of at most g indices
//   parallel_reduce(range, body[, partitioner])          body(leaf), Body(b, split), join
//   parallel_reduce(range, identity, real_body, reduction[, partitioner])
//   parallel_deterministic_reduce(...)                   as parallel_reduce, simple or static
//
// Without a partitioner the split tree is simple_partitioner's (a function of the
// range alone: the serial backend builds the same); with one, it is the model of
// tbb_partition.hpp for the arena's concurrency. A range is anything that models
// oneTBB's Range (its splitting constructor is used as it is), a reduce body
// anything that models its Body.
#pragma once
#include <cstddef>
#include <type_traits>
#include <utility>

#include "split_tree.hpp"
#include "tbb_partition.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace tbb {

template <class Partitioner>
using if_partitioner = forkscale::detail::tbb_adapter::partition_t<Partitioner>;

template <class Clock = default_clock, class Range, class Body>
void parallel_for(const Range& range, const Body& body, const site& where = site::current()) {
  forkscale::detail::split_tree::parallel_for<Clock, fork_task_group>(range, body, where);
}
template <class Clock = default_clock, class Range, class Body, class Partitioner, class = if_partitioner<Partitioner>>
void parallel_for(const Range& range, const Body& body, Partitioner&& partitioner,
                  const site& where = site::current()) {
  forkscale::detail::split_tree::parallel_for<Clock, fork_task_group>(
      range, body, forkscale::detail::tbb_adapter::partition_of(partitioner), where);
}
template <class Clock = default_clock, class Index, class Function>
void parallel_for(Index first, Index last, const Function& f, const site& where = site::current()) {
  forkscale::detail::split_tree::parallel_for_index<Clock, fork_task_group>(first, last, Index(1), 1, f, where);
}
template <class Clock = default_clock, class Index, class Function, class Partitioner,
          class = if_partitioner<Partitioner>>
void parallel_for(Index first, Index last, const Function& f, Partitioner&& partitioner,
                  const site& where = site::current()) {
  using partition = forkscale::detail::tbb_adapter::partition_t<Partitioner>;
  forkscale::detail::split_tree::parallel_for_index<Clock, fork_task_group, Index, Function, partition,
                                                    ::oneapi::tbb::blocked_range>(
      first, last, Index(1), 1, f, where, forkscale::detail::tbb_adapter::partition_of(partitioner));
}
template <class Clock = default_clock, class Index, class Function>
void parallel_for(Index first, Index last, Index step, const Function& f, const site& where = site::current()) {
  forkscale::detail::split_tree::parallel_for_index<Clock, fork_task_group>(first, last, step, 1, f, where);
}
template <class Clock = default_clock, class Index, class Function, class Partitioner,
          class = if_partitioner<Partitioner>>
void parallel_for(Index first, Index last, Index step, const Function& f, Partitioner&& partitioner,
                  const site& where = site::current()) {
  using partition = forkscale::detail::tbb_adapter::partition_t<Partitioner>;
  forkscale::detail::split_tree::parallel_for_index<Clock, fork_task_group, Index, Function, partition,
                                                    ::oneapi::tbb::blocked_range>(
      first, last, step, 1, f, where, forkscale::detail::tbb_adapter::partition_of(partitioner));
}
template <class Clock = default_clock, class Index, class Function>
void parallel_for(Index first, Index last, const Function& f, grainsize grain, const site& where = site::current()) {
  forkscale::detail::split_tree::parallel_for_index<Clock, fork_task_group>(first, last, Index(1), grain.value, f,
                                                                            where);
}

// The class-body form: body(leaf) per leaf; each spawned half gets a body split
// from its left neighbour's (Body(body, tbb::split), made before the spawn), which
// is joined back (left.join(right)) after the join, in order. oneTBB splits a
// body only when the half is stolen; the model takes every spawn to be one.
template <class Clock = default_clock, class Range, class Body>
void parallel_reduce(const Range& range, Body& body, const site& where = site::current()) {
  forkscale::detail::split_tree::parallel_reduce_body<Clock, fork_task_group>(range, body, where);
}
template <class Clock = default_clock, class Range, class Body, class Partitioner, class = if_partitioner<Partitioner>>
void parallel_reduce(const Range& range, Body& body, Partitioner&& partitioner, const site& where = site::current()) {
  forkscale::detail::split_tree::parallel_reduce_body<Clock, fork_task_group>(
      range, body, where, forkscale::detail::tbb_adapter::partition_of(partitioner));
}

// The functional form: each split body starts from the identity, a leaf folds its
// subrange into its body's value (real_body(leaf, value)), reduction(left, right)
// after each join. Without a partitioner every leaf starts from the identity:
// tbb::parallel_deterministic_reduce's order, so the value is reproducible too.
template <class Clock = default_clock, class Range, class Value, class RealBody, class Reduction>
Value parallel_reduce(const Range& range, const Value& identity, const RealBody& real_body, const Reduction& reduction,
                      const site& where = site::current()) {
  return forkscale::detail::split_tree::parallel_reduce<Clock, fork_task_group>(range, identity, real_body, reduction,
                                                                                where);
}
template <class Clock = default_clock, class Range, class Value, class RealBody, class Reduction, class Partitioner,
          class = if_partitioner<Partitioner>>
Value parallel_reduce(const Range& range, const Value& identity, const RealBody& real_body, const Reduction& reduction,
                      Partitioner&& partitioner, const site& where = site::current()) {
  return forkscale::detail::split_tree::parallel_reduce<Clock, fork_task_group>(
      range, identity, real_body, reduction, where, forkscale::detail::tbb_adapter::partition_of(partitioner));
}

// tbb::parallel_deterministic_reduce: oneTBB splits the body at every split, as
// the model does; it takes simple_partitioner (the default) or static_partitioner.
template <class Partitioner>
inline constexpr bool deterministic_partitioner =
    std::is_same<std::decay_t<Partitioner>, ::oneapi::tbb::simple_partitioner>::value ||
    std::is_same<std::decay_t<Partitioner>, ::oneapi::tbb::static_partitioner>::value;

template <class Clock = default_clock, class Range, class Body>
void parallel_deterministic_reduce(const Range& range, Body& body, const site& where = site::current()) {
  tbb::parallel_reduce<Clock>(range, body, where);
}
template <class Clock = default_clock, class Range, class Body, class Partitioner,
          class = std::enable_if_t<deterministic_partitioner<Partitioner>>>
void parallel_deterministic_reduce(const Range& range, Body& body, Partitioner&& partitioner,
                                   const site& where = site::current()) {
  tbb::parallel_reduce<Clock>(range, body, partitioner, where);
}
template <class Clock = default_clock, class Range, class Value, class RealBody, class Reduction>
Value parallel_deterministic_reduce(const Range& range, const Value& identity, const RealBody& real_body,
                                    const Reduction& reduction, const site& where = site::current()) {
  return tbb::parallel_reduce<Clock>(range, identity, real_body, reduction, where);
}
template <class Clock = default_clock, class Range, class Value, class RealBody, class Reduction, class Partitioner,
          class = std::enable_if_t<deterministic_partitioner<Partitioner>>>
Value parallel_deterministic_reduce(const Range& range, const Value& identity, const RealBody& real_body,
                                    const Reduction& reduction, Partitioner&& partitioner,
                                    const site& where = site::current()) {
  return tbb::parallel_reduce<Clock>(range, identity, real_body, reduction, partitioner, where);
}

}  // namespace tbb
FORKSCALE_NAMESPACE_END
