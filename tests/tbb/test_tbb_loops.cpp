// The oneTBB adapter's loops in every form oneTBB has (forkscale/tbb.hpp,
// adapters/tbb_loops.hpp): the class-body parallel_reduce, ranges that model
// oneTBB's Range with no forkscale specialization, the partitioners, and
// parallel_deterministic_reduce. Values are checked against plain loops, the
// numbers against the range and grain arithmetic, and the partitioners' leaves
// against the leaves oneTBB itself makes when nothing is stolen.
#include <gtest/gtest.h>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <forkscale/adapters/serial.hpp>
#include <forkscale/adapters/tbb.hpp>
#include <forkscale/forkscale.hpp>

#include "../support/adapter_check.hpp"

namespace {

namespace fs = forkscale;
using adapter_check::expect_clean;
using adapter_check::expect_numbers;
using adapter_check::expect_same;

// The leaves blocked_range's arithmetic makes: halves while larger than the grain.
std::uint64_t leaves_of(std::uint64_t size, std::uint64_t grain) {
  if (size <= grain) return 1;
  return leaves_of(size / 2, grain) + leaves_of(size - size / 2, grain);
}

// A class body: sums its leaves, charges each leaf's size, and keeps the leaves it
// saw in the order the joins put them.
struct summing_body {
  long sum = 0;
  std::vector<std::pair<long, long>> leaves;
  int splits = 0;

  summing_body() = default;
  summing_body(summing_body& other, ::tbb::split) { ++other.splits; }
  void operator()(const ::tbb::blocked_range<long>& r) {
    for (long i = r.begin(); i != r.end(); ++i) sum += i;
    fs::charge(r.size());
    leaves.emplace_back(r.begin(), r.end());
  }
  void join(summing_body& right) {
    sum += right.sum;
    leaves.insert(leaves.end(), right.leaves.begin(), right.leaves.end());
    splits += right.splits;
  }
};

long plain_sum(long n) {
  long s = 0;
  for (long i = 0; i < n; ++i) s += i;
  return s;
}

void expect_in_order(const std::vector<std::pair<long, long>>& leaves, long n) {
  long next = 0;
  for (const auto& [b, e] : leaves) {
    EXPECT_EQ(b, next) << "a leaf joined out of order";
    next = e;
  }
  EXPECT_EQ(next, n);
}

class TbbLoops : public ::testing::Test {
 protected:
  ::tbb::global_control parallelism{::tbb::global_control::max_allowed_parallelism, 4};
  ::tbb::task_arena arena{4};
};

TEST_F(TbbLoops, ClassBodyReduceSumsInOrderAndIsMeasured) {
  constexpr long n = 100000;
  constexpr long grain = 1000;
  const std::uint64_t leaves = leaves_of(n, grain);  // 128
  for (int run = 0; run < 5; ++run) {
    summing_body body;
    adapter_check::run r;
    arena.execute([&] {
      r = adapter_check::measure(
          "class body", [&] { fs::tbb::parallel_reduce(::tbb::blocked_range<long>(0, n, grain), body); }, 10);
    });
    expect_clean(r, "class body");
    EXPECT_EQ(body.sum, plain_sum(n));
    expect_in_order(body.leaves, n);
    EXPECT_EQ(body.leaves.size(), leaves);
    EXPECT_EQ(static_cast<std::uint64_t>(body.splits), leaves - 1) << "one body split per spawned half";
    EXPECT_EQ(r.report.work(), static_cast<std::uint64_t>(n));
    EXPECT_EQ(r.report.spawns(), leaves - 1);
    EXPECT_EQ(r.report.syncs(), leaves - 1);
    EXPECT_EQ(r.report.span(), 782u) << "the largest leaf: 100000 halved seven times, rounded up";
  }
}

TEST(TbbLoopsSerial, ClassBodyReduceEqualsTheSerialBackend) {
  summing_body on_tbb;
  summing_body serially;
  const auto a = adapter_check::measure(
      "body", [&] { fs::tbb::parallel_reduce(::tbb::blocked_range<long>(0, 5000, 70), on_tbb); }, 10);
  const auto b = adapter_check::measure(
      "body", [&] { fs::serial::parallel_reduce(::tbb::blocked_range<long>(0, 5000, 70), serially); }, 10);
  expect_clean(a, "oneTBB");
  expect_same(b.report, a.report, "class body on oneTBB and serially");
  EXPECT_EQ(on_tbb.sum, plain_sum(5000));
  EXPECT_EQ(serially.sum, plain_sum(5000));
}

// A range that models oneTBB's Range and nothing else: a splitting constructor
// taking tbb::split, no fs::split_tag specialization.
class index_range {
 public:
  index_range(int lo, int hi) : lo_(lo), hi_(hi) {}
  index_range(index_range& r, ::tbb::split) : lo_(r.lo_ + (r.hi_ - r.lo_) / 2), hi_(r.hi_) { r.hi_ = lo_; }
  bool empty() const { return hi_ <= lo_; }
  bool is_divisible() const { return hi_ - lo_ > 2; }
  int lo() const { return lo_; }
  int hi() const { return hi_; }

 private:
  int lo_;
  int hi_;
};

TEST(TbbLoopsRanges, ARangeThatModelsOneTbbsRangeNeedsNoSpecialization) {
  std::vector<int> seen(40, 0);
  const auto r = adapter_check::measure(
      "custom",
      [&] {
        fs::tbb::parallel_for(index_range(0, 40), [&](const index_range& leaf) {
          for (int i = leaf.lo(); i < leaf.hi(); ++i) ++seen[static_cast<std::size_t>(i)];
          fs::charge(static_cast<std::uint64_t>(leaf.hi() - leaf.lo()));
        });
        const int total = fs::tbb::parallel_reduce(
            index_range(0, 40), 0, [](const index_range& leaf, int acc) { return acc + leaf.hi() - leaf.lo(); },
            std::plus<int>());
        EXPECT_EQ(total, 40);
      },
      10);
  expect_clean(r, "custom range");
  for (int count : seen) EXPECT_EQ(count, 1);
  // 40 -> 20 -> 10 -> 5 -> 2 | 3 -> 1 | 2: leaves of at most 2; sixteen leaves per loop.
  std::uint64_t pieces = 0;
  std::function<void(int)> count = [&](int size) {
    if (size > 2) {
      count(size / 2);
      count(size - size / 2);
    } else {
      ++pieces;
    }
  };
  count(40);
  EXPECT_EQ(r.report.spawns(), 2 * (pieces - 1));
  EXPECT_EQ(r.report.work(), 40u);
}

// A loop of many leaves shorter than the burden is said once, with its number
// of leaves and the grain that would make a leaf as long as the burden.
TEST(TbbLoopsLeaves, ShortLeavesAreSaid) {
  auto loop = [](std::size_t grain) {
    return adapter_check::measure(
        "leaves",
        [&] {
          fs::tbb::parallel_for(::tbb::blocked_range<int>(0, 1000, grain),
                                [](const ::tbb::blocked_range<int>& r) { fs::charge(r.size()); });
        },
        10);
  };
  const auto fine = loop(1);  // 1000 leaves of 1 unit: 10% of the burden
  ASSERT_EQ(fine.diagnostics.size(), 1u) << fine.diagnostics_text();
  const std::string& said = fine.diagnostics[0].problem;
  EXPECT_NE(said.find("parallel_for made 1000 leaves whose average is 10% of the burden"), std::string::npos) << said;
  EXPECT_NE(said.find("a grain of at least 10 "), std::string::npos) << said;
  EXPECT_EQ(fine.report.work(), 1000u) << "a notice changes no number";
  const auto coarse = loop(16);  // leaves of 15 or 16 units, longer than the burden
  EXPECT_EQ(leaves_of(1000, 16), 64u);
  expect_clean(coarse, "grain 16");
  const auto few = adapter_check::measure(
      "few",
      [] {
        fs::tbb::parallel_for(::tbb::blocked_range<int>(0, 32),
                              [](const ::tbb::blocked_range<int>& r) { fs::charge(r.size()); });
      },
      10);
  expect_clean(few, "32 short leaves are not many");
}

// ---- partitioners ----// ---- partitioners ---------------------------------------------------------------

using leaf_set = std::multiset<std::pair<int, int>>;

// The leaves of one loop over [0, n) with grain g: the adapter's, or oneTBB's own.
template <class Partitioner>
leaf_set leaves(bool adapter, Partitioner& p, int n, std::size_t g) {
  leaf_set out;
  std::mutex m;
  auto body = [&](const ::tbb::blocked_range<int>& r) {
    std::lock_guard<std::mutex> lock(m);
    out.insert({r.begin(), r.end()});
  };
  if (adapter)
    fs::tbb::parallel_for(::tbb::blocked_range<int>(0, n, g), body, p);
  else
    ::tbb::parallel_for(::tbb::blocked_range<int>(0, n, g), body, p);
  return out;
}

// With one thread nothing is stolen, and oneTBB's partitioners cut the range for
// the arena's concurrency alone: the model must make exactly oneTBB's leaves.
TEST(TbbLoopsPartitioners, LeavesAreOneTbbsWhenNothingIsStolen) {
  ::tbb::global_control one_thread(::tbb::global_control::max_allowed_parallelism, 1);
  for (int threads : {1, 2, 3, 4, 8}) {
    ::tbb::task_arena a(threads);
    a.execute([&] {
      for (int n : {1, 7, 100, 1000, 1024, 100000}) {
        for (std::size_t g : {1u, 3u, 64u}) {
          SCOPED_TRACE("P " + std::to_string(threads) + ", n " + std::to_string(n) + ", grain " + std::to_string(g));
          ::tbb::simple_partitioner simple;
          ::tbb::auto_partitioner automatic;
          ::tbb::static_partitioner fixed;
          ::tbb::affinity_partitioner ours;
          ::tbb::affinity_partitioner theirs;
          EXPECT_EQ(leaves(true, simple, n, g), leaves(false, simple, n, g)) << "simple_partitioner";
          EXPECT_EQ(leaves(true, automatic, n, g), leaves(false, automatic, n, g)) << "auto_partitioner";
          EXPECT_EQ(leaves(true, fixed, n, g), leaves(false, fixed, n, g)) << "static_partitioner";
          EXPECT_EQ(leaves(true, ours, n, g), leaves(false, theirs, n, g)) << "affinity_partitioner";
        }
      }
    });
  }
}

TEST_F(TbbLoops, AutoPartitionerNumbersByHand) {
  adapter_check::run r;
  arena.execute([&] {
    r = adapter_check::measure(
        "auto",
        [&] {
          fs::tbb::parallel_for(
              ::tbb::blocked_range<int>(0, 1024),
              [](const ::tbb::blocked_range<int>& leaf) { fs::charge(leaf.size()); }, ::tbb::auto_partitioner());
        },
        10);
  });
  // 256 leaves of 4 units, under the burden of 10: said once (ShortLeavesAreSaid).
  ASSERT_EQ(r.diagnostics.size(), 1u) << r.diagnostics_text();
  EXPECT_NE(r.diagnostics[0].problem.find("parallel_for made 256 leaves"), std::string::npos)
      << r.diagnostics[0].problem;
  // P = 4: 2P = 8 chunks of 128 (7 spawns). Each chunk splits once more (64 | 64)
  // and runs its left 64 as 16 leaves of 4 in one task (depth 4); the right task
  // splits once more at each depth (32, 16, 8, 4, then 4 alone): 5 more spawns
  // per chunk. 7 + 8 * 5 = 47 spawns; the longest task holds 64 units.
  EXPECT_EQ(r.report.work(), 1024u);
  EXPECT_EQ(r.report.spawns(), 47u);
  EXPECT_EQ(r.report.span(), 64u);
}

TEST_F(TbbLoops, StaticPartitionerMakesOnePiecePerThread) {
  adapter_check::run r;
  arena.execute([&] {
    r = adapter_check::measure(
        "static",
        [&] {
          fs::tbb::parallel_for(
              0, 1000, [](int) { fs::charge(1); }, ::tbb::static_partitioner());
        },
        10);
  });
  expect_clean(r, "static");
  expect_numbers(r.report, "static", {1000, 250, 250 + 2 * 10, 3, 3, 0});
}

TEST_F(TbbLoops, FunctionalReduceWithPartitionersSumsRight) {
  ::tbb::affinity_partitioner affinity;
  arena.execute([&] {
    const auto sum = [](const ::tbb::blocked_range<int>& r, long acc) {
      for (int i = r.begin(); i != r.end(); ++i) acc += i;
      return acc;
    };
    const ::tbb::blocked_range<int> range(0, 10000);
    EXPECT_EQ(fs::tbb::parallel_reduce(range, 0L, sum, std::plus<long>(), ::tbb::auto_partitioner()), plain_sum(10000));
    EXPECT_EQ(fs::tbb::parallel_reduce(range, 0L, sum, std::plus<long>(), ::tbb::static_partitioner()),
              plain_sum(10000));
    EXPECT_EQ(fs::tbb::parallel_reduce(range, 0L, sum, std::plus<long>(), affinity), plain_sum(10000));
    EXPECT_EQ(fs::tbb::parallel_deterministic_reduce(range, 0L, sum, std::plus<long>()), plain_sum(10000));
    summing_body body;
    fs::tbb::parallel_deterministic_reduce(::tbb::blocked_range<long>(0, 10000, 100), body,
                                           ::tbb::simple_partitioner());
    EXPECT_EQ(body.sum, plain_sum(10000));
    expect_in_order(body.leaves, 10000);
  });
}

}  // namespace
