// Misuse of the guards is diagnosed — naming the site and the problem — and never
// crashes, hangs or leaves the engine in a state that spoils the next measurement.
#include <gtest/gtest.h>

#include <forkscale/detail/observers/list.hpp>
#include <forkscale/forkscale.hpp>

#include <atomic>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace fs = forkscale;

namespace {

struct captured {
  std::vector<fs::diagnostic> all;
  fs::options options() {
    fs::options o;
    o.clock = fs::clock_kind::cost;
    o.on_diagnostic = [this](const fs::diagnostic& d) { all.push_back(d); };
    return o;
  }
  bool has(const std::string& problem_part, const std::string& where_part = "test_misuse.cpp") const {
    for (const auto& d : all)
      if (d.problem.find(problem_part) != std::string::npos && d.where.find(where_part) != std::string::npos)
        return true;
    return false;
  }
  std::string dump() const {
    std::string s;
    for (const auto& d : all) s += d.where + ": " + d.problem + "\n";
    return s;
  }
};

// After any misuse, a clean measurement on this thread gives exact numbers.
void expect_engine_clean() {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.on_diagnostic = [](const fs::diagnostic& d) {
    ADD_FAILURE() << "unexpected diagnostic: " << d.where << ": " << d.problem;
  };
  const fs::report r = fs::measure(
      "clean",
      [] {
        fs::charge(3);
        auto t = fs::spawn([] { fs::charge(10); });
        t();
        fs::charge(4);
        { fs::sync_point sp; }
      },
      o);
  EXPECT_EQ(r.work(), 17u);
  EXPECT_EQ(r.span(), 13u);
  EXPECT_EQ(r.diagnostic_count, 0u);
}

TEST(Misuse, SyncWhileChildNeverReportedBack) {
  captured c;
  fs::spawn_token late;
  unsigned sync_line = 0;
  const fs::report r = fs::measure(
      "m",
      [&] {
        fs::charge(1);
        late = fs::spawn_point();  // the child's body is not run before the join
        {
          sync_line = __LINE__ + 1;  // the sync_point on the next line
          fs::sync_point sp;
        }
        {
          fs::spawn_scope child(std::move(late));
          fs::charge(7);
        }  // it reports late
        { fs::sync_point sp; }
      },
      c.options());
  EXPECT_TRUE(c.has("sync_point ended while 1 spawned task(s) had not reported back",
                    "test_misuse.cpp:" + std::to_string(sync_line)))
      << c.dump();
  EXPECT_EQ(r.diagnostic_count, c.all.size());
  EXPECT_EQ(r.work(), 8u);  // the late child is merged by the next join
  expect_engine_clean();
}

TEST(Misuse, ChildScopeWithoutSpawnPoint) {
  captured c;
  const fs::report r = fs::measure(
      "m",
      [&] {
        fs::spawn_token none;
        {
          fs::spawn_scope child(std::move(none));
          fs::charge(5);
        }
      },
      c.options());
  EXPECT_TRUE(c.has("spawn_scope opened with no spawn point")) << c.dump();
  EXPECT_EQ(r.work(), 5u);  // the body's cost stays with the running task
  expect_engine_clean();
}

// A handler that throws: the exception stops in forkscale (it is called from
// destructors), the diagnostic is still counted and printed with what it threw.
TEST(Misuse, ThrowingHandlerIsCaught) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  int calls = 0;
  o.on_diagnostic = [&calls](const fs::diagnostic&) {
    ++calls;
    throw std::runtime_error("handler says no");
  };
  testing::internal::CaptureStderr();
  const fs::report r = fs::measure(
      "m",
      [&] {
        fs::spawn_token none;
        {
          fs::spawn_scope child(std::move(none));
          fs::charge(5);
        }
      },
      o);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(r.work(), 5u);
  EXPECT_EQ(r.diagnostic_count, 1u);
  EXPECT_NE(err.find("spawn_scope opened with no spawn point"), std::string::npos) << err;
  EXPECT_NE(err.find("(options.on_diagnostic threw: handler says no)"), std::string::npos) << err;
  expect_engine_clean();
}

TEST(Misuse, SpawnedTaskRunTwice) {
  captured c;
  const fs::report r = fs::measure(
      "m",
      [&] {
        auto t = fs::spawn([] { fs::charge(2); });
        t();
        t();
        { fs::sync_point sp; }
      },
      c.options());
  EXPECT_TRUE(c.has("no spawn point")) << c.dump();
  EXPECT_EQ(r.spawns(), 1u);
  expect_engine_clean();
}

TEST(Misuse, GuardsClosedOutOfOrder) {
  captured c;
  fs::measure(
      "m",
      [&] {
        std::optional<fs::call_site> a;
        std::optional<fs::call_site> b;
        a.emplace(FORKSCALE_HERE);  // (a default site here would name std::optional's line)
        b.emplace(FORKSCALE_HERE);
        a.reset();  // closes before b, which opened after it
        b.reset();
      },
      c.options());
  EXPECT_TRUE(c.has("call_site closed while a guard opened after it is still open")) << c.dump();
  EXPECT_EQ(c.all.size(), 1u) << c.dump();  // one misuse, one diagnostic
  expect_engine_clean();
}

TEST(Misuse, TaskScopeClosedOnAnotherThread) {
  captured c;
  const fs::report r = fs::measure(
      "m",
      [&] {
        fs::charge(1);
        fs::spawn_token tk = fs::spawn_point();
        std::unique_ptr<fs::spawn_scope> scope;
        // Opened on one thread (which then ends), closed on this one: an untied task.
        std::thread([&] { scope = std::make_unique<fs::spawn_scope>(std::move(tk)); }).join();
        scope.reset();
        fs::charge(2);
        fs::sync_point sp;
      },
      c.options());
  EXPECT_TRUE(c.has("spawn_scope closed on a thread that did not open it", "")) << c.dump();
  // This thread's strands are intact (the migrated scope's own cost mixes two
  // threads' clocks and is not meaningful).
  EXPECT_GE(r.work(), 3u);
  EXPECT_EQ(r.spawns(), 1u);
  EXPECT_EQ(r.syncs(), 1u);
  expect_engine_clean();
}

// What OMPT mode does for an untied task that the runtime resumes on another
// thread (detail/ompt/tasks.hpp): the task's frame leaves this thread unfinished
// (suspend_task) and goes on top of the other thread's (resume_task). Both
// threads' strands count, on their paths, and it is no misuse.
TEST(Misuse, ATaskSuspendedHereAndResumedOnAnotherThreadIsNoMisuse) {
  using E = fs::detail::engine<fs::runtime_clock>;
  captured c;
  const fs::report r = fs::measure(
      "m",
      [&] {
        fs::charge(1);
        fs::detail::spawn_token tk = E::spawn(nullptr, fs::site{});
        fs::detail::frame task;
        E::begin_child(task, tk, fs::site{});
        fs::charge(3);
        fs::detail::frame* top = E::suspend_task(task);
        EXPECT_EQ(top, &task);
        fs::charge(10);  // the spawner runs again here
        std::thread([&] {
          if (top) E::resume_task(task, *top);
          fs::charge(4);
          E::end_child(task);
        }).join();
        fs::sync_point sp;
      },
      c.options());
  EXPECT_TRUE(c.all.empty()) << c.dump();
  EXPECT_EQ(r.work(), 18u);
  EXPECT_EQ(r.span(), 11u);  // 1 + 10 against 1 + 3 + 4
  EXPECT_EQ(r.spawns(), 1u);
  EXPECT_EQ(r.syncs(), 1u);
  expect_engine_clean();
}

// Only misuse can make a cycle of frames; the engine's walk over a thread's
// frames (a misplaced end's check) ends on one all the same.
TEST(Misuse, AWalkOverACycleOfFramesEnds) {
  using E = fs::detail::engine<fs::runtime_clock>;
  fs::detail::frame a, b, alone, tail;
  a.outer = &b;
  b.outer = &a;
  tail.outer = &a;
  alone.outer = &alone;
  EXPECT_TRUE(E::among_frames(&a, b));
  EXPECT_FALSE(E::among_frames(&a, alone));
  EXPECT_TRUE(E::among_frames(&tail, b));
  EXPECT_FALSE(E::among_frames(&tail, alone));
  EXPECT_TRUE(E::among_frames(&alone, alone));
  EXPECT_FALSE(E::among_frames(&alone, a));
  EXPECT_FALSE(E::among_frames(nullptr, a));
}

TEST(Misuse, SyncInsideSync) {
  captured c;
  fs::measure(
      "m",
      [&] {
        fs::sync_point outer;
        fs::sync_point inner;
      },
      c.options());
  EXPECT_TRUE(c.has("sync_point opened inside another sync_point")) << c.dump();
  expect_engine_clean();
}

TEST(Misuse, SpawnedTaskDestroyedWithoutRunning) {
  captured c;
  unsigned line = 0;
  const fs::report r = fs::measure(
      "m",
      [&] {
        {
          line = __LINE__ + 1;  // the spawn on the next line
          auto t = fs::spawn([] { fs::charge(100); });
        }  // dropped, as a cancelled task
        fs::charge(1);
        { fs::sync_point sp; }
      },
      c.options());
  EXPECT_TRUE(c.has("destroyed without running", "test_misuse.cpp:" + std::to_string(line))) << c.dump();
  EXPECT_EQ(r.work(), 1u);
  EXPECT_EQ(r.spawns(), 1u);
  expect_engine_clean();
}

TEST(Misuse, MeasurementEndsWhileTaskStillRunning) {
  captured c;
  std::optional<std::thread> straggler;
  fs::join_handle h;
  const fs::report r = fs::measure(
      "m",
      [&] {
        fs::charge(1);
        auto t = fs::spawn([] { fs::charge(9); });
        // The task runs on a thread nobody joins inside the measurement.
        straggler.emplace([t = std::move(t)]() mutable {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          t();
        });
      },
      c.options());
  EXPECT_TRUE(c.has("the measurement ended while 1 spawned task(s) had not finished")) << c.dump();
  EXPECT_EQ(r.work(), 1u);
  straggler->join();  // reports to the ended measurement: no crash
  expect_engine_clean();
}

// A join handle or task group outlives the measurement: a task spawned into it
// and not joined inside is diagnosed, and the message says the numbers are partial.
TEST(Misuse, MeasurementEndsBeforeAJoinHandlesTaskIsJoined) {
  captured c;
  fs::join_handle h;
  std::atomic<bool> go{false};
  std::optional<std::thread> worker;
  const fs::report r = fs::measure(
      "m",
      [&] {
        fs::charge(1);
        worker.emplace(fs::spawn(h, [&] {
          while (!go.load()) std::this_thread::yield();
          fs::charge(9);
        }));
      },
      c.options());
  go = true;
  worker->join();
  EXPECT_TRUE(c.has("measurement ended while 1 task(s) spawned into a task_group or join_handle")) << c.dump();
  EXPECT_TRUE(c.has("partial")) << c.dump();
  EXPECT_GE(r.diagnostic_count, 1u);
  EXPECT_EQ(r.work(), 1u);
}

TEST(Misuse, MeasurementEndsBeforeAGroupsFinishedTaskIsJoined) {
  captured c;
  fs::task_group g;
  const fs::report r = fs::measure(
      "m",
      [&] {
        auto t = fs::spawn(g, [] { fs::charge(3); });
        t();  // finished, but no sync_point(g) inside the measurement
      },
      c.options());
  EXPECT_TRUE(c.has("measurement ended while 1 task(s) spawned into a task_group or join_handle")) << c.dump();
  EXPECT_EQ(r.work(), 0u);
  { fs::sync_point sp(g); }  // outside any measurement: nothing to do
}

// A group declared outside and joined inside is not partial.
TEST(Misuse, GroupJoinedInsideTheMeasurementIsFine) {
  captured c;
  fs::task_group g;
  const fs::report r = fs::measure(
      "m",
      [&] {
        auto t = fs::spawn(g, [] { fs::charge(3); });
        t();
        fs::sync_point sp(g);
      },
      c.options());
  EXPECT_EQ(r.diagnostic_count, 0u) << c.dump();
  EXPECT_EQ(r.work(), 3u);
}

TEST(Misuse, TaskGroupDestroyedWithUnjoinedTasks) {
  captured c;
  fs::measure(
      "m",
      [&] {
        fs::task_group g;
        auto t = fs::spawn(g, [] { fs::charge(3); });
        t();
      },
      c.options());
  EXPECT_TRUE(c.has("task_group destroyed with 1 finished task(s) that no sync_point joined")) << c.dump();
  expect_engine_clean();
}

TEST(Misuse, JoinHandleDestroyedBeforeJoin) {
  captured c;
  fs::measure(
      "m",
      [&] {
        fs::join_handle h;
        auto t = fs::spawn(h, [] { fs::charge(3); });
        t();
      },
      c.options());
  EXPECT_TRUE(c.has("join_handle destroyed before its task was joined")) << c.dump();
  expect_engine_clean();
}

TEST(Misuse, ExceptionUnwindsThroughGuards) {
  captured c;
  const fs::report r = fs::measure(
      "m",
      [&] {
        fs::charge(2);
        try {
          fs::call_site cs;
          fs::region inner("inner");
          auto t = fs::spawn([] {
            fs::charge(5);
            throw std::runtime_error("boom");
          });
          t();
        } catch (const std::runtime_error&) {
        }
        { fs::sync_point sp; }
      },
      c.options());
  EXPECT_EQ(c.all.size(), 0u) << c.dump();
  EXPECT_EQ(r.work(), 7u);
  EXPECT_EQ(r.span(), 7u);
  ASSERT_NE(r.find("m/inner"), nullptr);
  expect_engine_clean();
}

TEST(Misuse, ExceptionLeavesTheMeasurement) {
  EXPECT_THROW(fs::measure("m",
                           [] {
                             fs::region inner("inner");
                             auto t = fs::spawn([] { fs::charge(1); });
                             t();
                             throw std::logic_error("out");
                           }),
               std::logic_error);
  expect_engine_clean();
}

TEST(Misuse, GuardsOutsideAMeasurementDoNothing) {
  fs::call_site cs;
  auto t = fs::spawn([] { fs::charge(1); });
  t();
  { fs::sync_point sp; }
  fs::task_group g;
  auto u = fs::spawn(g, [] {});
  u();
  { fs::sync_point sp(g); }
  expect_engine_clean();
}

TEST(Misuse, ClockContradictingTheFixedPolicyIsAnError) {
  fs::options o;
  o.clock = fs::clock_kind::steady;
  try {
    fs::measure<fs::cost_clock>(
        "m", [] {}, o);
    FAIL() << "no error";
  } catch (const fs::error& e) {
    EXPECT_NE(std::string(e.what()).find("options.clock is 'steady'"), std::string::npos) << e.what();
  }
}

TEST(Misuse, NotANumberBurdenIsAnError) {
  fs::options o;
  o.burden = std::nan("");
  EXPECT_THROW(fs::measure(
                   "m", [] {}, o),
               fs::error);
}

// Values no measurement can mean: one error naming the option.
TEST(Misuse, OutOfRangeOptionsAreErrors) {
  auto message = [](const fs::options& o) -> std::string {
    try {
      fs::measure(
          "m", [] {}, o);
    } catch (const fs::error& e) {
      return e.what();
    }
    return "no error";
  };
  fs::options inf;
  inf.burden = std::numeric_limits<double>::infinity();
  EXPECT_NE(message(inf).find("options.burden is inf"), std::string::npos) << message(inf);
  fs::options huge;
  huge.burden = 1e30;
  EXPECT_NE(message(huge).find("above 10^15"), std::string::npos) << message(huge);
  fs::options clock;
  clock.clock = static_cast<fs::clock_kind>(99);
  EXPECT_NE(message(clock).find("options.clock is not a clock_kind (value 99)"), std::string::npos) << message(clock);
  fs::options fine;
  fine.burden = 1e15;
  fine.clock = fs::clock_kind::cost;
  EXPECT_EQ(message(fine), "no error");
}

}  // namespace
