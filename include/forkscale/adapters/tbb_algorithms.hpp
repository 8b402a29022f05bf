// tbb_algorithms.hpp: oneTBB's other algorithms in the oneTBB adapter (included
// by tbb.hpp, after its loops):
//
//   parallel_for_each(first, last, body) / (range, body)   one leaf per item; a
//        body(item, fs::tbb::feeder<Item>&) feeds items, each a task of one group
//   parallel_sort(first, last[, comp]) / (range[, comp])   quicksort: a split
//        partitions (in the parent, before the fork), leaves of 500 are sorted
//   parallel_scan(range, body[, partitioner]) / (range, identity, scan, reverse_join)
//        two passes over simple_partitioner's split tree: pre_scan of every leaf
//        and reverse_join up the tree, then final_scan of every leaf with its prefix
//   parallel_pipeline(max_tokens, filters)                  oneTBB's own, not modeled:
//        one diagnostic says so (its filters run on oneTBB's threads, outside the
//        measurement; the caller's strand holds the time it waited)
//
// oneTBB's feeder cannot be made outside oneTBB, so a feeding body takes
// fs::tbb::feeder<Item>& (or auto&).
#pragma once
#include <algorithm>
#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <oneapi/tbb/parallel_pipeline.h>
#include <oneapi/tbb/parallel_scan.h>

#include "split_tree.hpp"
#include "tbb_loops.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace tbb_adapter {
template <class Clock, class Item, class Body>
class feeder_impl;
}  // namespace tbb_adapter
}  // namespace detail

namespace tbb {

// What a parallel_for_each body adds work through: each item added is a task of
// the loop's group, joined before the loop returns.
template <class Item>
class feeder {
 public:
  feeder(const feeder&) = delete;
  feeder& operator=(const feeder&) = delete;
  void add(const Item& item) { add_copy(item); }
  void add(Item&& item) { add_move(std::move(item)); }

 private:
  feeder() = default;
  virtual ~feeder() = default;
  virtual void add_copy(const Item& item) = 0;
  virtual void add_move(Item&& item) = 0;
  template <class Clock, class I, class Body>
  friend class forkscale::detail::tbb_adapter::feeder_impl;
};

}  // namespace tbb

namespace detail {
namespace tbb_adapter {

template <class Body, class Ref, class Item>
inline constexpr bool feeds = std::is_invocable<const Body&, Ref, tbb::feeder<Item>&>::value;

template <class Clock, class Item, class Body>
class feeder_impl final : public tbb::feeder<Item> {
 public:
  feeder_impl(tbb::basic_task_group<Clock>& group, const Body& body, const site& where)
      : group_(group), body_(body), where_(where) {}
  ~feeder_impl() override = default;

  // One item, with or without the feeder.
  template <class Ref>
  void call(Ref&& item) {
    if constexpr (feeds<Body, Ref, Item>) {
      body_(std::forward<Ref>(item), static_cast<tbb::feeder<Item>&>(*this));
    } else {
      static_assert(std::is_invocable<const Body&, Ref>::value,
                    "forkscale: a parallel_for_each body takes (item) or (item, fs::tbb::feeder<Item>&); oneTBB's "
                    "tbb::feeder cannot be made outside oneTBB: write the feeder parameter as "
                    "fs::tbb::feeder<Item>& or auto&");
      body_(std::forward<Ref>(item));
    }
  }

 private:
  void add_copy(const Item& item) override { add_move(Item(item)); }
  void add_move(Item&& item) override {
    group_.run([this, fed = std::move(item)]() mutable { call(fed); }, where_);
  }

  tbb::basic_task_group<Clock>& group_;
  const Body& body_;
  site where_;
};

// The quicksort range of parallel_sort: divisible above 500 elements; a split
// partitions around a median of three, the left part keeps the smaller elements,
// the new range takes the larger ones, the equal ones stay in place between.
template <class RandomIt, class Compare>
class sort_range {
 public:
  static constexpr std::ptrdiff_t grain = 500;
  sort_range(RandomIt begin, RandomIt end, const Compare& comp) : begin_(begin), end_(end), comp_(&comp) {}
  sort_range(sort_range& r, forkscale::split) : comp_(r.comp_) {
    const auto pivot = median_of_three(r.begin_, r.end_);
    RandomIt less_end = std::partition(r.begin_, r.end_, [&](const auto& x) { return (*comp_)(x, pivot); });
    begin_ = std::partition(less_end, r.end_, [&](const auto& x) { return !(*comp_)(pivot, x); });
    end_ = r.end_;
    r.end_ = less_end;
  }
  bool empty() const { return end_ == begin_; }
  bool is_divisible() const { return end_ - begin_ > grain; }
  void sort() const { std::sort(begin_, end_, *comp_); }

 private:
  typename std::iterator_traits<RandomIt>::value_type median_of_three(RandomIt b, RandomIt e) const {
    const Compare& c = *comp_;
    auto x = *b;
    auto y = *(b + (e - b) / 2);
    auto z = *(e - 1);
    if (c(y, x)) std::swap(x, y);
    if (c(z, y)) std::swap(y, z);
    if (c(y, x)) std::swap(x, y);
    return y;
  }

  RandomIt begin_;
  RandomIt end_;
  const Compare* comp_;
};

// parallel_scan's two passes over one split tree. A node keeps its range's
// split and, after the first pass, the summary (a pre-scanned body) of its left
// half, which the second pass folds into the right half's prefix.
template <class Range, class Body>
struct scan_node {
  explicit scan_node(const Range& r) : range(r) {}
  Range range;
  std::unique_ptr<scan_node> left;
  std::unique_ptr<scan_node> right;
  std::unique_ptr<Body> left_summary;
};

template <class Clock, class Fork, class Range, class Body>
void pre_scan(scan_node<Range, Body>& n, Body& body, const site& where) {
  if (!n.range.is_divisible()) {
    body(n.range, ::oneapi::tbb::pre_scan_tag());
    return;
  }
  n.right = std::make_unique<scan_node<Range, Body>>(split_tree::split_off(n.range));
  n.left = std::make_unique<scan_node<Range, Body>>(n.range);
  n.left_summary = std::make_unique<Body>(body, ::oneapi::tbb::split());
  Body right_body(body, ::oneapi::tbb::split());
  Fork::template fork<Clock>([&] { pre_scan<Clock, Fork>(*n.right, right_body, where); },
                             [&] { pre_scan<Clock, Fork>(*n.left, *n.left_summary, where); }, where);
  right_body.reverse_join(*n.left_summary);
  body.reverse_join(right_body);
}

// `body` holds the prefix of everything left of the node; on return, through it.
template <class Clock, class Fork, class Range, class Body>
void final_scan(scan_node<Range, Body>& n, Body& body, const site& where) {
  if (!n.left) {
    body(n.range, ::oneapi::tbb::final_scan_tag());
    return;
  }
  Body right_prefix(body, ::oneapi::tbb::split());
  right_prefix.reverse_join(*n.left_summary);
  right_prefix.reverse_join(body);
  Fork::template fork<Clock>([&] { final_scan<Clock, Fork>(*n.right, right_prefix, where); },
                             [&] { final_scan<Clock, Fork>(*n.left, body, where); }, where);
  body.assign(right_prefix);
}

// The functional form as a body: value = scan(range, value, is_final).
template <class Range, class Value, class Scan, class ReverseJoin>
class scan_body {
 public:
  scan_body(const Value& identity, const Scan& scan, const ReverseJoin& reverse_join)
      : identity_(identity), value_(identity), scan_(scan), reverse_join_(reverse_join) {}
  scan_body(scan_body& other, ::oneapi::tbb::split)
      : identity_(other.identity_), value_(other.identity_), scan_(other.scan_), reverse_join_(other.reverse_join_) {}
  template <class Tag>
  void operator()(const Range& r, Tag tag) {
    value_ = scan_(r, static_cast<const Value&>(value_), tag.is_final_scan());
  }
  void reverse_join(scan_body& left) { value_ = reverse_join_(left.value_, value_); }
  void assign(scan_body& other) { value_ = other.value_; }
  Value& value() { return value_; }

 private:
  const Value& identity_;
  Value value_;
  const Scan& scan_;
  const ReverseJoin& reverse_join_;
};

}  // namespace tbb_adapter
}  // namespace detail

namespace tbb {

template <class Clock = default_clock, class Iterator, class Body,
          class = typename std::iterator_traits<Iterator>::iterator_category>
void parallel_for_each(Iterator first, Iterator last, const Body& body, const site& where = site::current()) {
  using item = typename std::iterator_traits<Iterator>::value_type;
  std::vector<Iterator> items;
  for (; first != last; ++first) items.push_back(first);
  basic_task_group<Clock> group;
  forkscale::detail::tbb_adapter::feeder_impl<Clock, item, Body> feed(group, body, where);
  tbb::parallel_for<Clock>(
      forkscale::blocked_range<std::size_t>(0, items.size()),
      [&](const forkscale::blocked_range<std::size_t>& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) feed.call(*items[i]);
      },
      where);
  group.wait(where);
}
template <class Clock = default_clock, class Range, class Body, class = decltype(std::begin(std::declval<Range&>()))>
void parallel_for_each(Range& range, const Body& body, const site& where = site::current()) {
  tbb::parallel_for_each<Clock>(std::begin(range), std::end(range), body, where);
}
template <class Clock = default_clock, class Range, class Body,
          class = decltype(std::begin(std::declval<const Range&>()))>
void parallel_for_each(const Range& range, const Body& body, const site& where = site::current()) {
  tbb::parallel_for_each<Clock>(std::begin(range), std::end(range), body, where);
}

template <class Clock = default_clock, class RandomIt, class Compare,
          class = typename std::iterator_traits<RandomIt>::iterator_category>
void parallel_sort(RandomIt first, RandomIt last, const Compare& comp, const site& where = site::current()) {
  using range = forkscale::detail::tbb_adapter::sort_range<RandomIt, Compare>;
  tbb::parallel_for<Clock>(
      range(first, last, comp), [](const range& leaf) { leaf.sort(); }, where);
}
template <class Clock = default_clock, class RandomIt,
          class = typename std::iterator_traits<RandomIt>::iterator_category>
void parallel_sort(RandomIt first, RandomIt last, const site& where = site::current()) {
  tbb::parallel_sort<Clock>(first, last, std::less<typename std::iterator_traits<RandomIt>::value_type>(), where);
}
template <class Clock = default_clock, class Range, class Compare, class = decltype(std::begin(std::declval<Range&>()))>
void parallel_sort(Range&& range, const Compare& comp, const site& where = site::current()) {
  tbb::parallel_sort<Clock>(std::begin(range), std::end(range), comp, where);
}
template <class Clock = default_clock, class Range, class = decltype(std::begin(std::declval<Range&>()))>
void parallel_sort(Range&& range, const site& where = site::current()) {
  tbb::parallel_sort<Clock>(std::begin(range), std::end(range), where);
}

// oneTBB's scan partitioners (simple, auto) are accepted; the model's split tree
// is simple_partitioner's either way.
template <class Partitioner>
inline constexpr bool scan_partitioner =
    std::is_same<std::decay_t<Partitioner>, ::oneapi::tbb::simple_partitioner>::value ||
    std::is_same<std::decay_t<Partitioner>, ::oneapi::tbb::auto_partitioner>::value;

template <class Clock = default_clock, class Range, class Body>
void parallel_scan(const Range& range, Body& body, const site& where = site::current()) {
  using node = forkscale::detail::tbb_adapter::scan_node<Range, Body>;
  if (range.empty()) return;
  node root(range);
  {
    Body summary(body, ::oneapi::tbb::split());
    forkscale::detail::tbb_adapter::pre_scan<Clock, fork_task_group>(root, summary, where);
  }
  forkscale::detail::tbb_adapter::final_scan<Clock, fork_task_group>(root, body, where);
}
template <class Clock = default_clock, class Range, class Body, class Partitioner,
          class = std::enable_if_t<scan_partitioner<Partitioner>>>
void parallel_scan(const Range& range, Body& body, const Partitioner&, const site& where = site::current()) {
  tbb::parallel_scan<Clock>(range, body, where);
}
template <class Clock = default_clock, class Range, class Value, class Scan, class ReverseJoin>
Value parallel_scan(const Range& range, const Value& identity, const Scan& scan, const ReverseJoin& reverse_join,
                    const site& where = site::current()) {
  forkscale::detail::tbb_adapter::scan_body<Range, Value, Scan, ReverseJoin> body(identity, scan, reverse_join);
  tbb::parallel_scan<Clock>(range, body, where);
  return std::move(body.value());
}
template <class Clock = default_clock, class Range, class Value, class Scan, class ReverseJoin, class Partitioner,
          class = std::enable_if_t<scan_partitioner<Partitioner>>>
Value parallel_scan(const Range& range, const Value& identity, const Scan& scan, const ReverseJoin& reverse_join,
                    const Partitioner&, const site& where = site::current()) {
  return tbb::parallel_scan<Clock>(range, identity, scan, reverse_join, where);
}

// oneTBB's pipeline, run as it is; the measurement is told what it misses.
template <class Clock = default_clock>
void parallel_pipeline(std::size_t max_number_of_live_tokens, const ::oneapi::tbb::filter<void, void>& filter_chain,
                       const site& where = site::current()) {
  forkscale::detail::region_api<Clock>::notice(
      where,
      "parallel_pipeline is not modeled: the work its filters do on oneTBB's threads is not counted, and the time "
      "the caller waited for them is its own strand's");
  ::oneapi::tbb::parallel_pipeline(max_number_of_live_tokens, filter_chain);
}

}  // namespace tbb
FORKSCALE_NAMESPACE_END
