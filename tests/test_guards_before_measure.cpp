// Guard objects made before a measurement and used inside it — a task group
// declared before the timer starts, a join handle, a mutex — are measured as if
// made inside: the numbers and the site rows are those of the same program with
// the objects made inside, in every measurement that uses them.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <forkscale/forkscale.hpp>

namespace {

namespace fs = forkscale;

fs::options cost_clock() {
  fs::options opt;
  opt.clock = fs::clock_kind::cost;
  opt.burden = 10;
  return opt;
}

unsigned first_spawn_line = 0;

// Two tasks of 3 and 4 units spawned into `g`, 1 unit meanwhile, the group's
// join, then a profiled call of 2 units and a task of 5 behind `h` taking `m`.
void program(fs::task_group& g, fs::join_handle& h, fs::mutex& m) {
  first_spawn_line = __LINE__ + 1;
  fs::spawn(g, [] { fs::charge(3); })();
  fs::spawn(g, [] { fs::charge(4); })();
  fs::charge(1);
  { fs::sync_point sp(g); }
  {
    fs::call_site cs;
    fs::charge(2);
  }
  std::thread t(fs::spawn(h, [&] {
    std::lock_guard<fs::mutex> hold(m);
    fs::charge(5);
  }));
  fs::sync_point sp(h);
  t.join();
}

const fs::spawn_site_profile* spawn_row(const fs::report& r, unsigned line) {
  for (const auto& row : r.spawn_sites)
    if (row.line == line && row.kind == fs::site_kind::spawn) return &row;
  return nullptr;
}

void expect_whole(const fs::report& r, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(r.diagnostic_count, 0u);
  EXPECT_EQ(r.work(), 3u + 4u + 1u + 2u + 5u);
  EXPECT_EQ(r.span(), 4u + 2u + 5u);
  EXPECT_EQ(r.spawns(), 3u);
  // The root row, the two lines that spawn into the group, the handle's line.
  EXPECT_EQ(r.spawn_sites.size(), 4u);
  const fs::spawn_site_profile* three = spawn_row(r, first_spawn_line);
  const fs::spawn_site_profile* four = spawn_row(r, first_spawn_line + 1);
  ASSERT_NE(three, nullptr);
  ASSERT_NE(four, nullptr);
  EXPECT_EQ(three->tasks, 1u);
  EXPECT_EQ(three->work, 3u);
  EXPECT_EQ(four->work, 4u);
  EXPECT_FALSE(r.call_sites.empty());
  EXPECT_EQ(r.locks.size(), 1u);
  EXPECT_EQ(r.check_profile(), "");
}

TEST(GuardsBeforeMeasure, AreMeasuredAsIfMadeInside) {
  const fs::report inside = fs::measure(
      "inside",
      [] {
        fs::task_group g;
        fs::join_handle h;
        fs::mutex m{"m"};
        program(g, h, m);
      },
      cost_clock());
  expect_whole(inside, "made inside");

  fs::task_group g;
  fs::join_handle h;
  fs::mutex m{"m"};
  for (int i = 0; i < 3; ++i)
    expect_whole(fs::measure(
                     "before", [&] { program(g, h, m); }, cost_clock()),
                 "made before, measurement " + std::to_string(i));
}

// A task left unjoined in a group made before: that measurement says so (once)
// and leaves its tasks out; the next measurement with the same group is whole,
// even when it joins the group before spawning into it.
TEST(GuardsBeforeMeasure, AnUnjoinedTaskIsSaidOnceAndTheNextMeasurementIsWhole) {
  fs::task_group g;
  fs::join_handle h;
  fs::mutex m{"m"};
  std::vector<fs::diagnostic> said;
  fs::options opt = cost_clock();
  opt.on_diagnostic = [&](const fs::diagnostic& d) { said.push_back(d); };
  const fs::report left = fs::measure(
      "left", [&] { fs::spawn(g, [] { fs::charge(3); })(); }, opt);
  EXPECT_EQ(left.diagnostic_count, 1u);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].problem.find("not been joined inside it"), std::string::npos) << said[0].problem;
  // A join of the group before anything is spawned into it here takes nothing
  // of the earlier measurement's.
  const auto join_first = [&] {
    { fs::sync_point sp(g); }
    program(g, h, m);
  };
  expect_whole(fs::measure("next", join_first, cost_clock()), "after an unjoined task");
}

}  // namespace
