// FORKSCALE_ENABLE=0: the oneTBB adapter still compiles and does what oneTBB does;
// nothing is measured.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <type_traits>
#include <vector>

#include <forkscale/adapters/tbb.hpp>

namespace {

namespace fs = forkscale;

static_assert(FORKSCALE_ENABLE == 0, "this test is built with FORKSCALE_ENABLE=0");

TEST(TbbAdapterDisabled, ProgramsStillRun) {
  fs::report rep = fs::measure("disabled", [] {
    std::vector<int> v(1000);
    fs::tbb::parallel_for(
        0, 1000, [&](int i) { v[static_cast<std::size_t>(i)] = i; }, fs::grainsize(16));
    const long sum = fs::tbb::parallel_reduce(
        fs::tbb::blocked_range<std::size_t>(0, v.size(), 64), 0L,
        [&](const fs::tbb::blocked_range<std::size_t>& r, long s) {
          for (std::size_t i = r.begin(); i != r.end(); ++i) s += v[i];
          return s;
        },
        std::plus<long>());
    EXPECT_EQ(sum, 499500);
    std::atomic<int> calls{0};
    fs::tbb::parallel_invoke([&] { ++calls; }, [&] { ++calls; }, [&] { ++calls; });
    fs::tbb::task_group g;
    g.run([&] { g.run([&] { ++calls; }); });
    g.wait();
    fs::tbb::task_arena arena(2);
    EXPECT_EQ(arena.execute([&] { return ++calls; }), 5);
  });
  EXPECT_TRUE(rep.empty());
}

// Every form the enabled adapter takes still compiles, and is oneTBB's call.
struct sum_body {
  long sum = 0;
  sum_body() = default;
  sum_body(sum_body&, fs::tbb::split) {}
  void operator()(const fs::tbb::blocked_range<long>& r) {
    for (long i = r.begin(); i != r.end(); ++i) sum += i;
  }
  void join(sum_body& right) { sum += right.sum; }
};

static_assert(std::is_base_of<::tbb::task_group, fs::tbb::task_group>::value, "oneTBB's task_group");
static_assert(std::is_same<fs::tbb::blocked_range<int>, ::tbb::blocked_range<int>>::value, "oneTBB's range");

TEST(TbbAdapterDisabled, EveryFormIsOneTbbs) {
  sum_body body;
  fs::tbb::parallel_reduce(fs::tbb::blocked_range<long>(0, 10000, 100), body, fs::tbb::auto_partitioner());
  EXPECT_EQ(body.sum, 49995000);
  std::atomic<long> total{0};
  fs::tbb::parallel_for(
      0L, 100L, [&](long i) { total += i; }, fs::tbb::static_partitioner());
  EXPECT_EQ(total.load(), 4950);
  sum_body deterministic;
  fs::tbb::parallel_deterministic_reduce(fs::tbb::blocked_range<long>(0, 100), deterministic);
  EXPECT_EQ(deterministic.sum, 4950);
  std::vector<int> v{3, 1, 2};
  fs::tbb::parallel_sort(v.begin(), v.end());
  EXPECT_EQ(v, (std::vector<int>{1, 2, 3}));
  std::atomic<int> fed{0};
  std::vector<int> items{1, 2};
  fs::tbb::parallel_for_each(items, [&](int x, fs::tbb::feeder<int>& feeder) {
    fed += x;
    if (x < 10) feeder.add(x + 10);
  });
  EXPECT_EQ(fed.load(), 1 + 2 + 11 + 12);
  sum_body via_backend;
  fs::tbb::backend::parallel_reduce(fs::tbb::blocked_range<long>(0, 100), via_backend);
  EXPECT_EQ(via_backend.sum, 4950);
}

}  // namespace
