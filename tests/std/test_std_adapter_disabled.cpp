// FORKSCALE_ENABLE=0: the std adapter and the serial backend still compile and do
// what the wrapped library does; nothing is measured.
#include <gtest/gtest.h>

#include <functional>
#include <future>
#include <numeric>
#include <thread>
#include <vector>

#include <forkscale/adapters/serial.hpp>
#include <forkscale/adapters/std_thread.hpp>

namespace {

namespace fs = forkscale;

static_assert(FORKSCALE_ENABLE == 0, "this test is built with FORKSCALE_ENABLE=0");

int twice(int x) { return 2 * x; }

template <class B>
int program() {
  int a = 0;
  typename B::thread t([&a](int x) { a = x; }, 5);
  auto f = B::async(std::launch::async, twice, 10);
  auto g = B::async(std::launch::deferred, twice, 20);
  t.join();
  return a + f.get() + g.get();
}

TEST(StdAdapterDisabled, ProgramsStillRun) {
  fs::report rep = fs::measure("disabled", [] {
    EXPECT_EQ(program<fs::std_backend>(), 65);
    EXPECT_EQ(program<fs::serial::backend>(), 65);
  });
  EXPECT_TRUE(rep.empty());
}

TEST(StdAdapterDisabled, SerialLoopsStillRun) {
  std::vector<int> v(100);
  fs::serial::parallel_for(
      0, 100, [&](int i) { v[static_cast<std::size_t>(i)] = i; }, fs::grainsize(8));
  const long sum = fs::serial::parallel_reduce(
      fs::blocked_range<std::size_t>(0, v.size(), 7), 0L,
      [&](const fs::blocked_range<std::size_t>& r, long s) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) s += v[i];
        return s;
      },
      std::plus<long>());
  EXPECT_EQ(sum, 4950);
  int calls = 0;
  fs::serial::parallel_invoke([&] { ++calls; }, [&] { ++calls; });
  fs::serial::task_group g;
  g.run([&] { ++calls; });
  g.wait();
  EXPECT_EQ(fs::serial::task_arena().execute([&] { return ++calls; }), 4);
}

}  // namespace
