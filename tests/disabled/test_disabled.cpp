// Built with -DFORKSCALE_ENABLE=0 (see tests/CMakeLists.txt): every guard and
// macro a user writes must still compile warning-free, the program must still
// compute its own results, the guards must be empty types, and the report of a
// measurement must be all zeros.
#include <forkscale/forkscale.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <shared_mutex>
#include <thread>
#include <type_traits>
#include <utility>

#if !defined(FORKSCALE_ENABLE) || FORKSCALE_ENABLE != 0
#error "test_disabled must be compiled with -DFORKSCALE_ENABLE=0"
#endif

namespace fs = forkscale;

// Every heap allocation of the program, counted: a disabled guard must make none.
// (GCC at -O1 takes the replaced pair for a mismatch of new and free; it is not:
// this operator new allocates with malloc.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
static std::atomic<long> heap_allocations{0};
void* operator new(std::size_t n) {
  heap_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

static_assert(std::is_empty<fs::sync_point>::value, "a disabled sync_point must be an empty type");
static_assert(std::is_empty<fs::call_site>::value, "a disabled call_site must be an empty type");
static_assert(std::is_empty<fs::spawn_scope>::value, "a disabled spawn_scope must be an empty type");
static_assert(std::is_empty<fs::task_group>::value, "a disabled task_group must be an empty type");
static_assert(std::is_empty<fs::join_handle>::value, "a disabled join_handle must be an empty type");
static_assert(std::is_empty<fs::region>::value, "a disabled region must be an empty type");
static_assert(std::is_empty<fs::spawn_token>::value, "a disabled spawn token must be empty");
// A disabled fs::mutex is a std::mutex, and the lock guards the std ones.
static_assert(std::is_base_of<std::mutex, fs::mutex>::value, "a disabled fs::mutex must be a std::mutex");
static_assert(sizeof(fs::mutex) == sizeof(std::mutex), "a disabled fs::mutex must add nothing to a std::mutex");
static_assert(sizeof(fs::lock_guard<fs::mutex>) == sizeof(std::lock_guard<std::mutex>),
              "a disabled fs::lock_guard must be a std::lock_guard");
static_assert(sizeof(fs::unique_lock<fs::mutex>) == sizeof(std::unique_lock<std::mutex>),
              "a disabled fs::unique_lock must be a std::unique_lock");
static_assert(std::is_base_of<std::unique_lock<std::shared_mutex>, fs::unique_lock<std::shared_mutex>>::value,
              "a disabled fs::unique_lock must be a std::unique_lock");
static_assert(std::is_empty<fs::session>::value, "a disabled session must be an empty type");
// A disabled spawn hands the library the user's own callable, unchanged.
inline auto disabled_body = [] { return 7; };
static_assert(std::is_same<decltype(fs::spawn(disabled_body)), decltype(disabled_body)>::value,
              "a disabled spawn must return the callable itself");

namespace {

// Cilk-style fib with every guard a user would write around their own library.
long fib(int n) {
  if (n < 2) {
    fs::charge(1);
    return n;
  }
  long x = 0;
  long y = 0;
  auto task = fs::spawn([&] { x = fib(n - 1); });
  std::thread worker(std::move(task));
  {
    fs::call_site cs;
    y = fib(n - 2);
  }
  {
    fs::sync_point sp;
    worker.join();
  }
  return x + y;
}

long fib_inline(int n) {
  if (n < 2) return n;
  long x = 0;
  long y = 0;
  auto task = fs::spawn([&] { x = fib_inline(n - 1); });
  task();
  {
    // Two macro guards of each kind in one scope must not clash (__COUNTER__ names).
    FORKSCALE_CALL_SITE();
    FORKSCALE_CALL_SITE();
    y = fib_inline(n - 2);
  }
  {
    FORKSCALE_SYNC_POINT();
    FORKSCALE_SYNC_POINT();
  }
  return x + y;
}

TEST(Disabled, GuardsStillRunTheProgram) {
  EXPECT_EQ(fib(10), 55);
  EXPECT_EQ(fib_inline(20), 6765);
}

// FORKSCALE_CALL(expr) is the expression itself: its value, its type (a reference
// stays one), usable in a constant expression, and a statement for a void call.
constexpr int square(int x) { return x * x; }
static_assert(FORKSCALE_CALL(square(3)) == 9, "a disabled FORKSCALE_CALL must be the expression");
int counter = 0;
int& counted() { return ++counter, counter; }
void bump(int by) { counter += by; }

TEST(Disabled, ForkscaleCallIsTheExpression) {
  static_assert(std::is_same<decltype(FORKSCALE_CALL(counted())), int&>::value, "a reference stays one");
  counter = 0;
  FORKSCALE_CALL(bump(5));
  const auto r = FORKSCALE_CALL(square(4));
  FORKSCALE_CALL(counted()) += 10;
  EXPECT_EQ(r, 16);
  EXPECT_EQ(counter, 16);
}

TEST(Disabled, RegionsCompileAndDoNothing) {
  long sum = 0;
  {
    fs::region r("x");
    FORKSCALE_REGION("x");
    FORKSCALE_REGION("y");
    for (int i = 1; i <= 100; ++i) sum += i;
  }
  EXPECT_EQ(sum, 5050);
}

TEST(Disabled, MeasureRunsTheCallableAndReportsZeros) {
  fs::options opt;
  opt.clock = fs::clock_kind::cost;
  int calls = 0;
  long result = 0;
  fs::report rep = fs::measure(
      "disabled",
      [&] {
        ++calls;
        fs::charge(1000);
        result = fib_inline(15);
      },
      opt);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(result, 610);
  EXPECT_EQ(rep.work(), std::uint64_t{0});
  EXPECT_EQ(rep.span(), std::uint64_t{0});
  EXPECT_EQ(rep.spawns(), std::uint64_t{0});
  EXPECT_EQ(rep.syncs(), std::uint64_t{0});
  EXPECT_TRUE(rep.parallelism() == 0) << "parallelism() = " << rep.parallelism();
}

// fs::mutex, its labels and the lock guards around any lockable.
fs::mutex global_lock{"global"};  // constant-initialized, as a std::mutex is

TEST(Disabled, LocksStillLock) {
  fs::mutex m{"queue"};
  fs::mutex unnamed;
  std::shared_mutex shared;
  long counter = 0;
  const long before = heap_allocations.load();
  for (int i = 0; i < 100; ++i) {
    {
      fs::lock_guard g(m);
      ++counter;
    }
    {
      std::lock_guard<fs::mutex> g(unnamed);
      ++counter;
    }
    {
      std::scoped_lock g(m, global_lock);
      ++counter;
    }
    {
      fs::lock_guard g(shared);
      ++counter;
    }
    {
      fs::unique_lock u(m, std::defer_lock);
      u.lock();
      ++counter;
      u.unlock();
      EXPECT_TRUE(u.try_lock());
    }
    {
      fs::unique_lock u(m, std::try_to_lock);
      EXPECT_TRUE(u.owns_lock());
      m.unlock();
      u.release();
    }
    m.lock(FORKSCALE_HERE);
    fs::lock_guard adopt(m, std::adopt_lock);
  }
  EXPECT_EQ(heap_allocations.load() - before, 0);
  EXPECT_EQ(counter, 500);
  // With std::condition_variable_any, as the enabled fs::unique_lock.
  std::condition_variable_any cv;
  bool ready = false;
  std::thread t([&] {
    fs::lock_guard g(m);
    ready = true;
    cv.notify_one();
  });
  {
    fs::unique_lock u(m);
    cv.wait(u, [&] { return ready; });
  }
  t.join();
  const fs::report rep = fs::measure("locks", [&] { fs::lock_guard g(m); });
  EXPECT_TRUE(rep.locks.empty());
}

// Regions, measure() and the guards, entered many times: no allocation at all
// (a default options{} would build a vector of what-if factors on every entry).
TEST(Disabled, GuardsAndRegionsAllocateNothing) {
  long sum = 0;
  const long before = heap_allocations.load();
  for (int i = 0; i < 1000; ++i) {
    fs::region r("a region label longer than any small-string buffer");
    FORKSCALE_REGION("macro");
    fs::call_site cs;
    fs::what_if_region w("tag");
    fs::report rep = fs::measure("a measurement label longer than any small-string buffer", [&] { sum += i; });
    sum += static_cast<long>(rep.work());
    auto t = fs::spawn([&] { sum += 1; });
    t();
    fs::sync_point sp;
  }
  const long after = heap_allocations.load();
  EXPECT_EQ(sum, 999L * 1000 / 2 + 1000);
  EXPECT_EQ(after - before, 0) << "disabled guards allocated " << (after - before) << " times";
}

// A session measures nothing, keeps nothing, writes nothing and allocates
// nothing; its measure() still runs the callable.
TEST(Disabled, SessionRunsTheCallableAndKeepsNothing) {
  long sum = 0;
  const long before = heap_allocations.load();
  {
    fs::session s("a session label longer than any small-string buffer");
    for (int i = 0; i < 100; ++i) {
      const fs::report r = s.measure("a request label longer than any small-string buffer", [&] { sum += i; });
      sum += static_cast<long>(r.work());
    }
    EXPECT_TRUE(s.snapshot().empty());
    s.write_snapshot();
    s.write_snapshot("disabled-session-snapshot.json");
    EXPECT_EQ(s.finished(), 0u);
    EXPECT_EQ(s.running(), 0u);
    EXPECT_TRUE(s.records().empty());
  }
  EXPECT_EQ(heap_allocations.load() - before, 0) << "a disabled session allocated";
  EXPECT_EQ(sum, 4950);

  // With options and a snapshot path every second: still nothing is written.
  fs::snapshot_options snap;
  snap.path = "disabled-session-snapshot.json";
  snap.every = std::chrono::seconds(1);
  {
    fs::session s("server", fs::options{}, snap);
    s.measure("request", [&] { sum += 1; });
  }
  EXPECT_EQ(sum, 4951);
  EXPECT_EQ(std::fopen("disabled-session-snapshot.json", "rb"), nullptr);
}

}  // namespace
