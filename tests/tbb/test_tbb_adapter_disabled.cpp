// FORKSCALE_ENABLE=0: the oneTBB adapter still compiles and does what oneTBB does;
// nothing is measured.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
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

}  // namespace
