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
#include "leaf_stats.hpp"

FORKSCALE_NAMESPACE_BEGIN

// The tag of a splitting constructor, R(R& r, split): r keeps the first part, the
// new range takes the rest (oneTBB's tbb::split).
struct split {};

// Which tag splits a range (or a parallel_reduce body) type: forkscale::split
// unless specialized. tbb.hpp adds oneTBB's tbb::split for every type that has a
// tbb::split constructor and no forkscale::split one, so a range that models
// oneTBB's Range needs nothing; another tag can be given by specializing
// split_tag<Type> (its `type`).
template <class Type, class = void>
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

template <class Type>
using split_tag_t = typename split_tag<Type>::type;

// The second part of `r`, made by its splitting constructor (r keeps the first).
template <class Range>
Range split_off(Range& r) {
  static_assert(std::is_constructible<Range, Range&, split_tag_t<Range>>::value,
                "forkscale: this range (or reduce body) has no splitting constructor T(T&, tbb::split) nor "
                "T(T&, fs::split): give it one (oneTBB's Range and Body requirements), or specialize "
                "fs::split_tag<T> with the tag it takes");
  return Range(r, split_tag_t<Range>{});
}

// What a loop does at a leaf, at a fork and after a join. parallel_for's body is
// shared by every leaf; a reduce body is split for each spawned half (the body
// oneTBB would make for a stolen half) and joined into the left one after the
// join, in order.
template <class Clock, class Fork, class Body>
struct for_worker {
  const Body& body;
  const site& where;
  leaf_stats& stats;

  template <class Range>
  void leaf(Range& r) {
    timed_leaf<Clock>(stats, r, [&] { body(r); });
  }
  template <class Right, class Left>
  void fork(const Right& right, const Left& left) {
    for_worker spawned{body, where, stats};
    Fork::template fork<Clock>([&] { right(spawned); }, left, where);
  }
};

template <class Clock, class Fork, class Body>
struct reduce_worker {
  Body& body;
  const site& where;
  leaf_stats& stats;

  template <class Range>
  void leaf(Range& r) {
    timed_leaf<Clock>(stats, r, [&] { body(r); });
  }
  template <class Right, class Left>
  void fork(const Right& right, const Left& left) {
    static_assert(std::is_constructible<Body, Body&, split_tag_t<Body>>::value,
                  "forkscale: a parallel_reduce body needs a splitting constructor Body(Body&, tbb::split) and "
                  "join(Body&) (or specialize fs::split_tag<Body>)");
    Body right_body(body, split_tag_t<Body>{});
    reduce_worker spawned{right_body, where, stats};
    Fork::template fork<Clock>([&] { right(spawned); }, left, where);
    body.join(right_body);
  }
};

// oneTBB's functional reduce as a body: every split body starts from the
// identity, a leaf folds its subrange into the value, a join reduces left, right.
template <class Range, class Value, class RealBody, class Reduction>
class functional_body {
 public:
  functional_body(const Value& identity, const RealBody& real_body, const Reduction& reduction)
      : identity_(identity), value_(identity), real_body_(real_body), reduction_(reduction) {}
  functional_body(functional_body& other, forkscale::split)
      : identity_(other.identity_),
        value_(other.identity_),
        real_body_(other.real_body_),
        reduction_(other.reduction_) {}
  void operator()(const Range& r) { value_ = real_body_(r, static_cast<const Value&>(value_)); }
  void join(functional_body& right) {
    value_ = reduction_(static_cast<const Value&>(value_), static_cast<const Value&>(right.value_));
  }
  Value& value() { return value_; }

 private:
  const Value& identity_;
  Value value_;
  const RealBody& real_body_;
  const Reduction& reduction_;
};

// oneTBB's simple_partitioner: split while is_divisible(), one leaf per piece.
// The split tree is a function of the range alone.
struct simple_partition {};

template <class Worker, class Range>
void run_task(Worker& w, Range& r, simple_partition p) {
  if (!r.is_divisible()) {
    w.leaf(r);
    return;
  }
  Range right = split_off(r);
  w.fork([&](auto& rw) { run_task(rw, right, p); }, [&] { run_task(w, r, p); });
}

template <class Clock, class Fork, class Range, class Body, class Partition>
void parallel_for(const Range& range, const Body& body, Partition p, const site& where) {
  if (range.empty()) return;
  Range r(range);
  leaf_stats stats;
  for_worker<Clock, Fork, Body> w{body, where, stats};
  run_task(w, r, p);
  warn_if_short<Clock>(stats, "parallel_for", where);
}
template <class Clock, class Fork, class Range, class Body>
void parallel_for(const Range& range, const Body& body, const site& where) {
  parallel_for<Clock, Fork>(range, body, simple_partition{}, where);
}

// The index form, as oneTBB builds it: the iteration space 0..count-1 cut as a
// blocked_range with the grain, each leaf calling f(first + k * step) in order.
template <class Clock, class Fork, class Index, class Function, class Partition = simple_partition,
          template <class> class Range = blocked_range>
void parallel_for_index(Index first, Index last, Index step, std::size_t grain, const Function& f, const site& where,
                        Partition p = Partition{}) {
  if (step <= Index(0)) throw std::invalid_argument("forkscale: parallel_for step must be positive");
  if (!(first < last)) return;
  const Index count = (last - first - Index(1)) / step + Index(1);
  parallel_for<Clock, Fork>(
      Range<Index>(Index(0), count, grain),
      [&](const Range<Index>& leaf) {
        Index k = first + leaf.begin() * step;
        for (Index i = leaf.begin(); i < leaf.end(); ++i, k += step) f(k);
      },
      p, where);
}

// oneTBB's class-body reduce: body(leaf) per leaf, a split body per spawned half,
// left.join(right) after each join.
template <class Clock, class Fork, class Range, class Body, class Partition = simple_partition>
void parallel_reduce_body(const Range& range, Body& body, const site& where, Partition p = Partition{}) {
  if (range.empty()) return;
  Range r(range);
  leaf_stats stats;
  reduce_worker<Clock, Fork, Body> w{body, where, stats};
  run_task(w, r, p);
  warn_if_short<Clock>(stats, "parallel_reduce", where);
}

// oneTBB's functional form: every split body starts from the identity, and the
// two halves of a split are combined left-to-right after their join. (With
// simple_partition every leaf starts from the identity: the order of
// parallel_deterministic_reduce.)
template <class Clock, class Fork, class Range, class Value, class RealBody, class Reduction,
          class Partition = simple_partition>
Value parallel_reduce(const Range& range, const Value& identity, const RealBody& real_body, const Reduction& reduction,
                      const site& where, Partition p = Partition{}) {
  functional_body<Range, Value, RealBody, Reduction> body(identity, real_body, reduction);
  parallel_reduce_body<Clock, Fork>(range, body, where, p);
  return std::move(body.value());
}

}  // namespace split_tree
}  // namespace detail

FORKSCALE_NAMESPACE_END
