// split_tree.hpp: how the loop adapters cut a range into leaves — shared by the
// oneTBB adapter (forkscale/tbb.hpp) and the serial elision backend
// (forkscale/serial.hpp), so that both build the same dag.
//
// parallel_for and parallel_reduce are modeled as divide and conquer. A range that
// is_divisible() is split in two by its splitting constructor; the right half is
// spawned, the left half goes on in the same task, and the two are joined: one
// spawn and one sync per split. Every leaf is one call of the body, a strand of its
// own; a reduction runs after the join of the two halves it combines.
//
// This is oneTBB's simple_partitioner: the split tree is a function of the range
// and its grain alone, never of the number of threads or of who steals what, so
// under the cost clock every number is the same on every backend and every run.
// (auto_partitioner and affinity_partitioner split adaptively; modeling them
// would make the span depend on timing.)
//
// Opt-in: forkscale.hpp does not include this header.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "../forkscale.hpp"

FORKSCALE_NAMESPACE_BEGIN

// The tag of a splitting constructor, R(R& r, split): r keeps the first part, the
// new range takes the rest (oneTBB's tbb::split).
struct split {};

// Which tag splits a range type. forkscale::split unless specialized; tbb.hpp
// specializes it for oneTBB's ranges, and a user range that only has a
// tbb::split constructor can do the same.
template <class Range>
struct split_tag {
  using type = split;
};

// [begin, end) with a grain: divisible while larger than the grain, split in the
// middle. The same arithmetic as oneTBB's blocked_range, so a program gets the
// same leaves with either. A grain of 0 is taken as 1.
template <class Value>
class blocked_range {
 public:
  using const_iterator = Value;
  using size_type = std::size_t;

  blocked_range(Value begin, Value end, size_type grainsize = 1)
      : end_(end), begin_(begin), grainsize_(grainsize ? grainsize : 1) {}
  blocked_range(blocked_range& r, split)
      : end_(r.end_), begin_(r.begin_ + (r.end_ - r.begin_) / 2u), grainsize_(r.grainsize_) {
    r.end_ = begin_;
  }

  const_iterator begin() const { return begin_; }
  const_iterator end() const { return end_; }
  size_type size() const { return size_type(end_ - begin_); }
  size_type grainsize() const { return grainsize_; }
  bool empty() const { return !(begin_ < end_); }
  bool is_divisible() const { return grainsize_ < size(); }

 private:
  Value end_;  // before begin_, as in oneTBB: the splitting constructor reads it first
  Value begin_;
  size_type grainsize_;
};

// The grain of the index form of parallel_for, given last so that it cannot be
// mistaken for oneTBB's step: parallel_for(0, n, body, fs::grainsize(64)).
struct grainsize {
  std::size_t value = 1;
  constexpr explicit grainsize(std::size_t g) noexcept : value(g) {}
};

namespace detail {
namespace split_tree {

// A Fork policy has
//   template <class Clock, class Right, class Left>
//   static void fork(const Right& right, const Left& left, const site& where);
// which spawns right(), runs left() in the calling task, then joins the spawn.

template <class Range>
Range split_off(Range& r) {
  return Range(r, typename split_tag<Range>::type{});
}

template <class Clock, class Fork, class Range, class Body>
void for_each_leaf(Range& r, const Body& body, const site& where) {
  if (!r.is_divisible()) {
    body(r);
    return;
  }
  Range right = split_off(r);
  Fork::template fork<Clock>([&] { for_each_leaf<Clock, Fork>(right, body, where); },
                             [&] { for_each_leaf<Clock, Fork>(r, body, where); }, where);
}

// oneTBB's functional form: every leaf starts from the identity, and the two halves
// of a split are combined left-to-right after their join. (This is
// parallel_deterministic_reduce's order; tbb::parallel_reduce may combine fewer,
// larger pieces, which gives the same value for an associative reduction.)
template <class Clock, class Fork, class Range, class Value, class RealBody, class Reduction>
Value reduce(Range& r, const Value& identity, const RealBody& body, const Reduction& reduction, const site& where) {
  if (!r.is_divisible()) return body(r, identity);
  Range right = split_off(r);
  Value right_value = identity;
  Value left_value = identity;
  Fork::template fork<Clock>([&] { right_value = reduce<Clock, Fork>(right, identity, body, reduction, where); },
                             [&] { left_value = reduce<Clock, Fork>(r, identity, body, reduction, where); }, where);
  return reduction(static_cast<const Value&>(left_value), static_cast<const Value&>(right_value));
}

template <class Clock, class Fork, class Range, class Body>
void parallel_for(const Range& range, const Body& body, const site& where) {
  if (range.empty()) return;
  Range r(range);
  for_each_leaf<Clock, Fork>(r, body, where);
}

// The index form, as oneTBB builds it: the iteration space 0..count-1 cut as a
// blocked_range with the grain, each leaf calling f(first + k * step) in order.
template <class Clock, class Fork, class Index, class Function>
void parallel_for_index(Index first, Index last, Index step, std::size_t grain, const Function& f, const site& where) {
  if (step <= Index(0)) throw std::invalid_argument("forkscale: parallel_for step must be positive");
  if (!(first < last)) return;
  const Index count = (last - first - Index(1)) / step + Index(1);
  blocked_range<Index> r(Index(0), count, grain);
  for_each_leaf<Clock, Fork>(
      r,
      [&](const blocked_range<Index>& leaf) {
        Index k = first + leaf.begin() * step;
        for (Index i = leaf.begin(); i < leaf.end(); ++i, k += step) f(k);
      },
      where);
}

template <class Clock, class Fork, class Range, class Value, class RealBody, class Reduction>
Value parallel_reduce(const Range& range, const Value& identity, const RealBody& body, const Reduction& reduction,
                      const site& where) {
  if (range.empty()) return identity;
  Range r(range);
  return reduce<Clock, Fork>(r, identity, body, reduction, where);
}

}  // namespace split_tree
}  // namespace detail

FORKSCALE_NAMESPACE_END
