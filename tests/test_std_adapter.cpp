// The std adapter (forkscale/std_thread.hpp) against the serial elision backend
// (forkscale/serial.hpp): each program is written once against a backend type, run
// on real threads through fs::std_backend several times, and under the cost clock
// every number of every run must equal the serial run's. Hand-computed numbers
// check that both are right, not just equal.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <future>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <forkscale/adapters/serial.hpp>
#include <forkscale/adapters/std_thread.hpp>
#include <forkscale/forkscale.hpp>

#include "support/adapter_check.hpp"

namespace {

namespace fs = forkscale;
using adapter_check::expect_clean;
using adapter_check::expect_numbers;
using adapter_check::expect_same;
using adapter_check::thread_log;

constexpr double burden = 100;
constexpr int parallel_runs = 5;

// A short, random sleep, so that the runs interleave differently.
void nap() {
  thread_local std::minstd_rand rng(std::random_device{}());
  std::this_thread::sleep_for(std::chrono::microseconds(rng() % 300));
}

// Runs program<B> once serially and `parallel_runs` times on threads; every run
// must be free of diagnostics and equal to the serial one. Returns the serial report.
template <template <class> class Program>
fs::report compare_backends(const std::string& label) {
  thread_log serial_log;
  const adapter_check::run reference = adapter_check::measure(
      label, [&] { Program<fs::serial::backend>::run(serial_log); }, burden);
  expect_clean(reference, label + " (serial)");
  EXPECT_EQ(reference.report.backend, "") << label << ": the serial elision runs on no library";
  thread_log threads_log;
  for (int i = 0; i < parallel_runs; ++i) {
    const adapter_check::run r = adapter_check::measure(
        label, [&] { Program<fs::std_backend>::run(threads_log); }, burden);
    expect_clean(r, label + " (threads)");
    EXPECT_EQ(r.report.backend, "std_thread") << label << ": a thread's spawn sets the backend";
    expect_same(reference.report, r.report, label + " run " + std::to_string(i));
  }
  EXPECT_GE(threads_log.count(), 2u) << label << ": the program did not run on two threads";
  return reference.report;
}

// ---- std::thread -------------------------------------------------------------

void thread_leaf(int i, int& out, thread_log& log) {
  log.note();
  fs::region r("leaf");
  fs::charge(static_cast<std::uint64_t>(i + 1) * 10);
  nap();
  out = i;
}

template <class B>
struct thread_program {
  static void run(thread_log& log) {
    log.note();
    fs::charge(3);
    int out[3] = {-1, -1, -1};
    std::vector<typename B::thread> threads;
    threads.reserve(3);
    for (int i = 0; i < 3; ++i) threads.emplace_back(thread_leaf, i, std::ref(out[i]), std::ref(log));
    fs::charge(5);
    {
      fs::call_site cs;
      fs::charge(2);
    }
    for (int i = 2; i >= 0; --i) threads[static_cast<std::size_t>(i)].join();  // any order
    fs::charge(1);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(out[i], i);
  }
};

TEST(StdAdapter, ThreadJoinsEqualSerial) {
  const fs::report rep = compare_backends<thread_program>("threads");
  // Spawns at 3 (burdened 3, 103, 203); children of 10, 20, 30; the spawner's
  // strands add 7 then 1 after the last spawn's burden.
  expect_numbers(rep, "threads", {71, 34, 311, 3, 3, 1});
  expect_numbers(rep, "threads/leaf", {60, 60, 60, 0, 0, 0});
}

// ---- std::async and std::future -------------------------------------------------

int async_leaf(int cost, thread_log& log) {
  log.note();
  fs::charge(static_cast<std::uint64_t>(cost));
  nap();
  return cost;
}

template <class B>
struct async_program {
  static void run(thread_log& log) {
    fs::charge(2);
    auto f1 = B::async(std::launch::async, async_leaf, 40, std::ref(log));
    auto f2 = B::async(std::launch::deferred, async_leaf, 15, std::ref(log));
    auto f3 = B::async(async_leaf, 7, std::ref(log));  // both bits: a thread
    EXPECT_EQ(f2.wait_for(std::chrono::seconds(0)), std::future_status::deferred);
    fs::charge(5);
    EXPECT_EQ(f1.get(), 40);
    EXPECT_EQ(f2.get(), 15);  // spawned, run and joined here
    f3.wait();
    EXPECT_EQ(f3.get(), 7);  // already joined by wait()
    {
      auto f4 = B::async(std::launch::async, async_leaf, 9, std::ref(log));
    }  // joined by the future's destructor, which blocks as std::async's does
    auto never = B::async(std::launch::deferred, async_leaf, 1000, std::ref(log));  // never run
    fs::charge(1);
  }
};

TEST(StdAdapter, AsyncAndDeferredEqualSerial) {
  const fs::report rep = compare_backends<async_program>("async");
  // f1, f3 spawned at 2 (burdened 2, 102); f1 joined at 7 -> 42; the deferred f2
  // spawned at 42 (burdened 207 -> 307), runs 15 -> 57; f3 (9) joined; f4 spawned at
  // 57 (burdened 407), 66, joined; then 1.
  expect_numbers(rep, "async", {79, 67, 408, 4, 4, 0});
}

template <class B>
struct async_exception_program {
  static void run(thread_log& log) {
    fs::charge(1);
    auto failing = B::async(std::launch::async, [&log]() -> int {
      log.note();
      fs::charge(4);
      throw std::runtime_error("task failed");
    });
    auto fine = B::async(std::launch::async, async_leaf, 6, std::ref(log));
    fs::charge(2);
    EXPECT_THROW(failing.get(), std::runtime_error);
    EXPECT_EQ(fine.get(), 6);
  }
};

TEST(StdAdapter, ExceptionThroughGetEqualsSerial) {
  const fs::report rep = compare_backends<async_exception_program>("async_exception");
  expect_numbers(rep, "async_exception", {13, 7, 203, 2, 2, 0});
}

// ---- a recursive program mixing threads, async and deferred calls -------------

template <class B>
long fib(int n, thread_log& log) {
  fs::charge(1);
  if (n < 2) return n;
  long x = 0;
  long y = 0;
  if (n >= 7) {
    typename B::thread t([&x, &log, n] {
      log.note();
      x = fib<B>(n - 1, log);
    });
    {
      fs::call_site cs;
      y = fib<B>(n - 2, log);
    }
    t.join();
  } else {
    auto f = B::async(n % 2 ? std::launch::async : std::launch::deferred, [&log, n] { return fib<B>(n - 1, log); });
    {
      fs::call_site cs;
      y = fib<B>(n - 2, log);
    }
    x = f.get();
  }
  return x + y;
}

template <class B>
struct fib_program {
  static void run(thread_log& log) {
    log.note();
    EXPECT_EQ(fib<B>(11, log), 89);
  }
};

TEST(StdAdapter, RecursiveMixEqualsSerial) {
  const fs::report rep = compare_backends<fib_program>("fib");
  // fib(11) makes 2 fib(12) - 1 = 287 calls, 143 of which spawn, call and join.
  EXPECT_EQ(rep.work(), 287u);
  EXPECT_EQ(rep.spawns(), 143u);
  EXPECT_EQ(rep.syncs(), 143u);
  EXPECT_EQ(rep.calls(), 143u);
  EXPECT_GT(rep.parallelism(), 1.0);
}

#if defined(__cpp_lib_jthread)
// ---- std::jthread -------------------------------------------------------------

void token_leaf(std::stop_token token, int cost, thread_log& log) {
  log.note();
  EXPECT_TRUE(token.stop_possible());
  fs::charge(static_cast<std::uint64_t>(cost));
  nap();
}

template <class B>
struct jthread_program {
  static void run(thread_log& log) {
    log.note();
    fs::charge(1);
    {
      typename B::jthread a(token_leaf, 20, std::ref(log));  // gets the stop token
      typename B::jthread b(async_leaf, 30, std::ref(log));
      fs::charge(4);
      b.join();
    }  // a is joined by its destructor
    fs::charge(2);
  }
};

TEST(StdAdapter, JthreadEqualsSerial) {
  const fs::report rep = compare_backends<jthread_program>("jthread");
  expect_numbers(rep, "jthread", {57, 33, 207, 2, 2, 0});
}
#else
TEST(StdAdapter, JthreadEqualsSerial) {
  GTEST_SKIP() << "std::jthread needs C++20 (__cpp_lib_jthread); test_std_adapter_cxx20 covers it";
}
#endif

// ---- sites: every entry point names the caller's line -------------------------------
// Each call below is on the line after the insert that records it; under the cost
// clock the report's spawn-site rows must name exactly those lines of this file.

int site_leaf(int cost) {
  fs::charge(static_cast<std::uint64_t>(cost));
  return cost;
}

TEST(StdAdapterSites, ThreadAndAsyncNameTheCallersLine) {
  std::set<unsigned> lines;
  const adapter_check::run r = adapter_check::measure(
      "sites",
      [&] {
        lines.insert(__LINE__ + 1);
        fs::thread a(site_leaf, 1);
        lines.insert(__LINE__ + 1);
        fs::thread b([] { site_leaf(2); });
        lines.insert(__LINE__ + 1);
        auto f1 = fs::async(std::launch::async, site_leaf, 3);
        lines.insert(__LINE__ + 1);
        auto f2 = fs::async(site_leaf, 4);
        lines.insert(__LINE__ + 1);
        auto f3 = fs::async([] { return site_leaf(5); });
        lines.insert(__LINE__ + 1);
        auto f4 = fs::std_backend::async(site_leaf, 6);
        lines.insert(__LINE__ + 1);
        auto f5 = fs::std_backend::async(std::launch::async, site_leaf, 7);
        auto f6 = fs::async(std::launch::deferred, site_leaf, 8);
        lines.insert(__LINE__ + 1);
        EXPECT_EQ(f6.get(), 8);  // a deferred call is spawned where it runs
        a.join();
        b.join();
        EXPECT_EQ(f1.get() + f2.get() + f3.get() + f4.get() + f5.get(), 25);
      },
      burden);
  expect_clean(r, "sites");
  EXPECT_EQ(r.report.spawns(), 8u);
  adapter_check::expect_sites_at(r.report, __FILE__, lines, {}, "std adapter");
}

#if defined(__cpp_lib_jthread)
TEST(StdAdapterSites, JthreadNamesTheCallersLine) {
  std::set<unsigned> lines;
  const adapter_check::run r = adapter_check::measure(
      "sites",
      [&] {
        lines.insert(__LINE__ + 1);
        fs::jthread a([](std::stop_token, int cost) { site_leaf(cost); }, 1);
        lines.insert(__LINE__ + 1);
        fs::jthread b(site_leaf, 2);
        lines.insert(__LINE__ + 1);
        fs::serial::jthread c([](std::stop_token, int cost) { site_leaf(cost); }, 3);
        lines.insert(__LINE__ + 1);
        fs::serial::jthread d(site_leaf, 4);
        b.join();
      },
      burden);
  expect_clean(r, "sites");
  EXPECT_EQ(r.report.spawns(), 4u);
  adapter_check::expect_sites_at(r.report, __FILE__, lines, {}, "jthread");
}
#endif

// The call forms std::thread and std::async accept still compile and still name
// the caller's line: member functions, plain functions, lvalue callables, up to four
// arguments without a policy and any number with one.
struct counter {
  int n = 0;
  void add(int k) {
    fs::charge(static_cast<std::uint64_t>(k));
    n += k;
  }
};
int sum4(int a, int b, int c, int d) { return site_leaf(a + b + c + d); }
int sum5(int a, int b, int c, int d, int e) { return site_leaf(a + b + c + d + e); }
void unit_leaf() { site_leaf(1); }

TEST(StdAdapterSites, EveryCallFormNamesTheCallersLine) {
  std::set<unsigned> lines;
  const adapter_check::run r = adapter_check::measure(
      "forms",
      [&] {
        counter c;
        auto named = [&c] { c.add(1); };
        lines.insert(__LINE__ + 1);
        fs::thread a(&counter::add, &c, 2);
        a.join();
        lines.insert(__LINE__ + 1);
        fs::thread b(named);
        b.join();
        lines.insert(__LINE__ + 1);
        auto f4 = fs::async(sum4, 1, 2, 3, 4);
        lines.insert(__LINE__ + 1);
        auto f5 = fs::async(std::launch::async, sum5, 1, 2, 3, 4, 5);
        auto f6 = fs::async<fs::default_clock>(std::launch::deferred, unit_leaf);
        lines.insert(__LINE__ + 1);
        f6.get();  // a deferred call is spawned where it runs
        lines.insert(__LINE__ + 1);
        fs::serial::parallel_invoke(unit_leaf, unit_leaf);
        lines.insert(__LINE__ + 1);
        fs::serial::parallel_invoke<fs::default_clock>(named, unit_leaf);
        EXPECT_EQ(c.n, 4);
        EXPECT_EQ(f4.get(), 10);
        EXPECT_EQ(f5.get(), 15);
      },
      burden);
  expect_clean(r, "forms");
  adapter_check::expect_sites_at(r.report, __FILE__, lines, {}, "call forms");

  // Without a policy, five arguments or more are a call form the caller's line does
  // not reach (the adapter names its own): it still runs, once.
  const adapter_check::run more = adapter_check::measure(
      "more", [] { EXPECT_EQ(fs::async(sum5, 1, 2, 3, 4, 5).get(), 15); }, burden);
  expect_clean(more, "more");
  expect_numbers(more.report, "more", {15, 15, 100, 1, 1, 0});
}

TEST(SerialBackendSites, EveryEntryPointNamesTheCallersLine) {
  std::set<unsigned> lines;
  const adapter_check::run r = adapter_check::measure(
      "sites",
      [&] {
        auto body = [](const fs::blocked_range<int>& range) { site_leaf(range.end() - range.begin()); };
        auto index_body = [](int i) { site_leaf(i); };
        auto keep = [](const auto&, int v) { return v; };
        lines.insert(__LINE__ + 1);
        fs::serial::thread a(site_leaf, 1);
        lines.insert(__LINE__ + 1);
        auto f1 = fs::serial::async(std::launch::async, site_leaf, 2);
        lines.insert(__LINE__ + 1);
        auto f2 = fs::serial::async(site_leaf, 3);
        lines.insert(__LINE__ + 1);
        fs::serial::parallel_invoke([] { site_leaf(1); }, [] { site_leaf(2); }, [] { site_leaf(3); });
        lines.insert(__LINE__ + 1);
        fs::serial::parallel_for(fs::blocked_range<int>(0, 8, 2), body);
        lines.insert(__LINE__ + 1);
        fs::serial::parallel_for(0, 4, index_body);
        lines.insert(__LINE__ + 1);
        fs::serial::parallel_for(0, 9, 3, index_body);
        lines.insert(__LINE__ + 1);
        fs::serial::parallel_for(0, 9, index_body, fs::grainsize(3));
        lines.insert(__LINE__ + 1);
        fs::serial::parallel_reduce(fs::blocked_range<int>(0, 8, 2), 0, keep, std::plus<>());
        fs::serial::task_group g;
        lines.insert(__LINE__ + 1);
        g.run([] { site_leaf(1); });
        lines.insert(__LINE__ + 1);
        g.run_and_wait([] { site_leaf(2); });
        lines.insert(__LINE__ + 1);
        fs::serial::task_arena().execute([] { site_leaf(3); });
        a.join();
        EXPECT_EQ(f1.get() + f2.get(), 5);
      },
      burden);
  expect_clean(r, "sites");
  adapter_check::expect_sites_at(r.report, __FILE__, lines, {}, "serial backend");
}

TEST(SerialBackendSites, TheBackendTypeNamesTheCallersLine) {
  using B = fs::serial::backend;
  std::set<unsigned> lines;
  const adapter_check::run r = adapter_check::measure(
      "sites",
      [&] {
        auto body = [](const B::blocked_range<int>& range) { site_leaf(range.end() - range.begin()); };
        auto index_body = [](int i) { site_leaf(i); };
        auto keep = [](const auto&, int v) { return v; };
        lines.insert(__LINE__ + 1);
        B::parallel_invoke([] { site_leaf(1); }, [] { site_leaf(2); });
        lines.insert(__LINE__ + 1);
        B::parallel_for(B::blocked_range<int>(0, 8, 2), body);
        lines.insert(__LINE__ + 1);
        B::parallel_for(0, 4, index_body);
        lines.insert(__LINE__ + 1);
        B::parallel_for(0, 9, 3, index_body);
        lines.insert(__LINE__ + 1);
        B::parallel_for(0, 9, index_body, fs::grainsize(3));
        lines.insert(__LINE__ + 1);
        B::parallel_reduce(B::blocked_range<int>(0, 8, 2), 0, keep, std::plus<>());
        lines.insert(__LINE__ + 1);
        auto f1 = B::async(site_leaf, 1);
        lines.insert(__LINE__ + 1);
        auto f2 = B::async(std::launch::async, site_leaf, 2);
        lines.insert(__LINE__ + 1);
        B::thread t(site_leaf, 3);
        t.join();
        EXPECT_EQ(f1.get() + f2.get(), 3);
      },
      burden);
  expect_clean(r, "sites");
  adapter_check::expect_sites_at(r.report, __FILE__, lines, {}, "serial::backend");
}

// ---- edges -----------------------------------------------------------------------

TEST(StdAdapter, RefusedJoinRecordsNothing) {
  const adapter_check::run r = adapter_check::measure(
      "refused",
      [] {
        fs::thread never_started;
        EXPECT_FALSE(never_started.joinable());
        EXPECT_THROW(never_started.join(), std::system_error);
        fs::serial::thread serial_never_started;
        EXPECT_THROW(serial_never_started.join(), std::system_error);
      },
      burden);
  expect_clean(r, "refused");
  EXPECT_EQ(r.report.syncs(), 0u);
  EXPECT_EQ(r.report.spawns(), 0u);
}

TEST(StdAdapter, MovedThreadJoinsItsChild) {
  thread_log log;
  const adapter_check::run r = adapter_check::measure(
      "moved",
      [&] {
        fs::thread a(async_leaf, 12, std::ref(log));
        fs::thread b(std::move(a));
        EXPECT_FALSE(a.joinable());  // NOLINT(bugprone-use-after-move): a moved-from thread is checked on purpose
        fs::thread c;
        c = std::move(b);
        fs::charge(3);
        c.join();
      },
      burden);
  expect_clean(r, "moved");
  expect_numbers(r.report, "moved", {15, 12, 103, 1, 1, 0});
}

// A detached thread is never joined: its work is in no path, and the adapter says
// so when the thread object dies — on both backends alike.
template <class B>
void detach_program(std::promise<void>& done) {
  fs::charge(2);
  typename B::thread t([&done] {
    fs::charge(50);
    done.set_value();
  });
  t.detach();
  fs::charge(3);
}

TEST(StdAdapter, DetachIsReportedOnBothBackends) {
  std::promise<void> serial_done;
  const adapter_check::run s = adapter_check::measure(
      "detach", [&] { detach_program<fs::serial::backend>(serial_done); }, burden);
  std::promise<void> thread_done;
  std::future<void> finished = thread_done.get_future();
  const adapter_check::run t = adapter_check::measure(
      "detach", [&] { detach_program<fs::std_backend>(thread_done); }, burden);
  finished.wait();
  EXPECT_EQ(s.report.diagnostic_count, 1u) << s.diagnostics_text();
  EXPECT_EQ(t.report.diagnostic_count, 1u) << t.diagnostics_text();
  expect_same(s.report, t.report, "detach");
  expect_numbers(t.report, "detach", {5, 5, 105, 1, 0, 0});  // the detached 50 is not counted
}

}  // namespace
