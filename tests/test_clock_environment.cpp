// FORKSCALE_CLOCK: the environment chooses the clock of a measurement whose
// options leave it automatic; options that name a clock, and a clock policy
// fixed at compile time, win; a bad value is one line on stderr.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

#include <forkscale/forkscale.hpp>

namespace {

namespace fs = forkscale;

// Sets FORKSCALE_CLOCK for one test and unsets it after.
class ClockEnvironment : public ::testing::Test {
 protected:
  void set(const char* value) { ::setenv("FORKSCALE_CLOCK", value, 1); }
  void TearDown() override { ::unsetenv("FORKSCALE_CLOCK"); }
};

// Two halves of 300 and 200 charged units, one joined spawn.
void two_halves() {
  fs::spawn([] { fs::charge(300); })();
  fs::charge(200);
  fs::sync_point sp;
}

TEST_F(ClockEnvironment, CostGivesTheCostClockToAProgramThatSetsNone) {
  set("cost");
  const fs::report rep = fs::measure("env", two_halves);  // default options: clock automatic
  EXPECT_EQ(rep.clock, fs::clock_kind::cost);
  EXPECT_EQ(rep.unit, "units");
  EXPECT_EQ(rep.work(), 500u);
  EXPECT_EQ(rep.span(), 300u);
  EXPECT_EQ(rep.spawns(), 1u);
}

TEST_F(ClockEnvironment, NamesAreReadInAnyCaseWithBlanks) {
  for (const auto& [value, kind] :
       {std::pair{" Cost ", fs::clock_kind::cost}, std::pair{"steady", fs::clock_kind::steady},
        std::pair{"THREAD_CPU", fs::clock_kind::thread_cpu}}) {
    set(value);
    fs::options opt;
    opt.check_load = false;
    EXPECT_EQ(fs::measure("env", two_halves, opt).clock, kind) << "FORKSCALE_CLOCK=" << value;
  }
}

TEST_F(ClockEnvironment, AutomaticIsNotTheCostClock) {
  for (const char* value : {"automatic", "auto", ""}) {
    set(value);
    fs::options opt;
    opt.check_load = false;
    const fs::report rep = fs::measure("env", two_halves, opt);
    EXPECT_NE(rep.clock, fs::clock_kind::cost) << "FORKSCALE_CLOCK=" << value;
    EXPECT_NE(rep.clock, fs::clock_kind::automatic) << "a report names the clock automatic chose";
  }
}

TEST_F(ClockEnvironment, OptionsThatNameAClockWin) {
  set("cost");
  fs::options opt;
  opt.clock = fs::clock_kind::steady;
  opt.check_load = false;
  EXPECT_EQ(fs::measure("env", two_halves, opt).clock, fs::clock_kind::steady);
  set("steady");
  opt.clock = fs::clock_kind::cost;
  EXPECT_EQ(fs::measure("env", two_halves, opt).work(), 500u);
}

TEST_F(ClockEnvironment, AFixedClockPolicyWins) {
  set("steady");
  const fs::report rep = fs::measure<fs::cost_clock>("env", [] { fs::charge(7); });
  EXPECT_EQ(rep.clock, fs::clock_kind::cost);
  EXPECT_EQ(rep.work(), 7u);
}

TEST_F(ClockEnvironment, ABadValueIsOneLineAndTheClockIsAutomatic) {
  set("sundial");
  fs::options opt;
  opt.check_load = false;
  testing::internal::CaptureStderr();
  const fs::report first = fs::measure("env", two_halves, opt);
  const fs::report second = fs::measure("env", two_halves, opt);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(first.clock, fs::clock_kind::cost);
  EXPECT_NE(second.clock, fs::clock_kind::cost);
  EXPECT_EQ(first.diagnostic_count + second.diagnostic_count, 0u);
  EXPECT_EQ(err.find("forkscale: FORKSCALE_CLOCK=sundial is not a clock"), 0u) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << "one line for the process:\n" << err;
}

TEST_F(ClockEnvironment, SessionsFollowIt) {
  set("cost");
  fs::session s("server");
  for (int i = 0; i < 3; ++i) s.measure("request", two_halves);
  const fs::report snap = s.snapshot();
  EXPECT_EQ(snap.clock, fs::clock_kind::cost);
  EXPECT_EQ(snap.work(), 1500u);
  EXPECT_EQ(snap.span(), 900u);
}

}  // namespace
