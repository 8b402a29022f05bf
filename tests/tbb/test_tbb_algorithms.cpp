// oneTBB's other algorithms through the adapter (adapters/tbb_algorithms.hpp):
// parallel_for_each (with a feeder), parallel_sort, parallel_scan, and the
// diagnostic of parallel_pipeline, which is run but not modeled. Values against
// plain loops; numbers under the cost clock against the split arithmetic.
#include <gtest/gtest.h>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_pipeline.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <forkscale/adapters/tbb.hpp>
#include <forkscale/adapters/tbb_flow.hpp>
#include <forkscale/forkscale.hpp>

#include "../support/adapter_check.hpp"

namespace {

// parallel_pipeline and flow::graph are oneTBB's own calls (not modeled): their
// bodies run on oneTBB's threads, handed over inside the distributed libtbb,
// which ThreadSanitizer does not see, and forkscale adds no code there for TSan
// to check. Under TSan these two tests are skipped rather than suppressed.
#if defined(__SANITIZE_THREAD__)
constexpr bool under_tsan = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool under_tsan = true;
#else
constexpr bool under_tsan = false;
#endif
#else
constexpr bool under_tsan = false;
#endif

namespace fs = forkscale;
using adapter_check::expect_clean;

std::uint64_t leaves_of(std::uint64_t size, std::uint64_t grain) {
  if (size <= grain) return 1;
  return leaves_of(size / 2, grain) + leaves_of(size - size / 2, grain);
}
std::uint64_t largest_leaf(std::uint64_t size, std::uint64_t grain) {
  if (size <= grain) return size;
  return largest_leaf(size - size / 2, grain);
}

class TbbAlgorithms : public ::testing::Test {
 protected:
  ::tbb::global_control parallelism{::tbb::global_control::max_allowed_parallelism, 4};
  ::tbb::task_arena arena{4};

  template <class Fn>
  adapter_check::run measure(const std::string& label, Fn&& fn) {
    adapter_check::run r;
    arena.execute([&] { r = adapter_check::measure(label, fn, 10); });
    return r;
  }
};

TEST_F(TbbAlgorithms, ForEachWithAFeederRunsEveryItemOnce) {
  std::vector<int> items(20);
  for (int i = 0; i < 20; ++i) items[static_cast<std::size_t>(i)] = i;
  for (int run = 0; run < 5; ++run) {
    std::atomic<long> sum{0};
    const auto r = measure("for_each", [&] {
      fs::tbb::parallel_for_each(items, [&](int x, fs::tbb::feeder<int>& feeder) {
        sum += x;
        fs::charge(1);
        if (x % 5 == 0 && x < 100) feeder.add(x + 100);  // 0, 5, 10, 15 feed 100, 105, 110, 115
      });
    });
    expect_clean(r, "for_each");
    long want = 0;
    for (int x : items) want += x + (x % 5 == 0 ? x + 100 : 0);
    EXPECT_EQ(sum.load(), want);
    EXPECT_EQ(r.report.work(), 24u);
    EXPECT_EQ(r.report.spawns(), 19u + 4u) << "one leaf per item (19 splits), one task per fed item";
    EXPECT_EQ(r.report.span(), 2u) << "an item and the item it fed";
  }
}

TEST_F(TbbAlgorithms, ForEachOverIteratorsWithoutAFeeder) {
  std::vector<long> v(100, 3);
  const auto r = measure("plain", [&] { fs::tbb::parallel_for_each(v.begin(), v.end(), [](long& x) { x *= 2; }); });
  expect_clean(r, "plain");
  EXPECT_EQ(std::count(v.begin(), v.end(), 6), 100);
  EXPECT_EQ(r.report.spawns(), 99u);
}

TEST_F(TbbAlgorithms, SortSortsAndForks) {
  std::mt19937 rng(7);
  std::vector<int> v(20000);
  for (int& x : v) x = static_cast<int>(rng() % 5000);
  std::vector<int> want = v;
  std::sort(want.begin(), want.end(), std::greater<int>());
  const auto r = measure("sort", [&] { fs::tbb::parallel_sort(v.begin(), v.end(), std::greater<int>()); });
  expect_clean(r, "sort");
  EXPECT_EQ(v, want);
  EXPECT_GE(r.report.spawns(), 20000u / 500u / 2u) << "leaves of at most 500 elements";
  EXPECT_EQ(r.report.syncs(), r.report.spawns());
  std::vector<int> equal(3000, 1);
  fs::tbb::parallel_sort(equal);
  EXPECT_EQ(std::count(equal.begin(), equal.end(), 1), 3000);
}

// Prefix sums with a class body; each pass charges its leaf's size.
struct prefix_body {
  long sum = 0;
  std::vector<long>* out;
  explicit prefix_body(std::vector<long>* o) : out(o) {}
  prefix_body(prefix_body& b, ::tbb::split) : out(b.out) {}
  template <class Tag>
  void operator()(const ::tbb::blocked_range<int>& r, Tag tag) {
    long s = sum;
    for (int i = r.begin(); i != r.end(); ++i) {
      s += i;
      if (tag.is_final_scan()) (*out)[static_cast<std::size_t>(i)] = s;
    }
    sum = s;
    fs::charge(r.size());
  }
  void reverse_join(prefix_body& left) { sum = left.sum + sum; }
  void assign(prefix_body& b) { sum = b.sum; }
};

TEST_F(TbbAlgorithms, ScanGivesEveryPrefixInTwoPasses) {
  constexpr int n = 1000;
  constexpr std::size_t grain = 100;
  std::vector<long> out(n);
  prefix_body body(&out);
  const auto r = measure("scan", [&] { fs::tbb::parallel_scan(::tbb::blocked_range<int>(0, n, grain), body); });
  expect_clean(r, "scan");
  long s = 0;
  for (int i = 0; i < n; ++i) {
    s += i;
    ASSERT_EQ(out[static_cast<std::size_t>(i)], s) << "prefix " << i;
  }
  EXPECT_EQ(body.sum, s);
  EXPECT_EQ(r.report.work(), 2u * n);
  EXPECT_EQ(r.report.spawns(), 2 * (leaves_of(n, grain) - 1));
  EXPECT_EQ(r.report.span(), 2 * largest_leaf(n, grain));

  std::vector<long> functional(n);
  const long total = fs::tbb::parallel_scan(
      ::tbb::blocked_range<int>(0, n, 7), 0L,
      [&](const ::tbb::blocked_range<int>& range, long acc, bool final_scan) {
        for (int i = range.begin(); i != range.end(); ++i) {
          acc += i;
          if (final_scan) functional[static_cast<std::size_t>(i)] = acc;
        }
        return acc;
      },
      [](long left, long right) { return left + right; });
  EXPECT_EQ(total, s);
  EXPECT_EQ(functional, out);
}

TEST_F(TbbAlgorithms, PipelineRunsAndSaysItIsNotModeled) {
  if (under_tsan) GTEST_SKIP() << "oneTBB's own pipeline: its hand-offs are invisible to TSan";
  std::atomic<int> seen{0};
  const auto r = measure("pipeline", [&] {
    int next = 0;
    fs::tbb::parallel_pipeline(
        4, ::tbb::make_filter<void, int>(::tbb::filter_mode::serial_in_order, [&](::tbb::flow_control& fc) {
             if (next == 10) fc.stop();
             return next++;
           }) & ::tbb::make_filter<int, void>(::tbb::filter_mode::parallel, [&](int x) { seen += x; }));
  });
  EXPECT_EQ(seen.load(), 45) << "the items 0..9 (what the first filter returns with stop() is dropped)";
  EXPECT_EQ(r.report.diagnostic_count, 1u);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_NE(r.diagnostics[0].problem.find("parallel_pipeline is not modeled"), std::string::npos);
}

TEST_F(TbbAlgorithms, FlowGraphRunsAndSaysItIsNotModeled) {
  if (under_tsan) GTEST_SKIP() << "oneTBB's own flow graph: its hand-offs are invisible to TSan";
  std::atomic<int> seen{0};
  const auto r = measure("graph", [&] {
    fs::tbb::flow::graph g;
    ::tbb::flow::function_node<int> node(g, ::tbb::flow::unlimited, [&](int x) {
      seen += x;
      return ::tbb::flow::continue_msg();
    });
    for (int i = 1; i <= 10; ++i) node.try_put(i);
    g.wait_for_all();
  });
  EXPECT_EQ(seen.load(), 55);
  EXPECT_EQ(r.report.diagnostic_count, 1u);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_NE(r.diagnostics[0].problem.find("flow::graph is not modeled"), std::string::npos);
}

}  // namespace
