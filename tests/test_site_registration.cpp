// The first measurement at a new site registers it (a lock, allocations): that
// cost must land in no strand. A clock policy that jumps by 1,000,000 units every
// time a site is registered shows it exactly: with the registration outside the
// strands, the numbers are the charged units alone.
#include <gtest/gtest.h>

#include <forkscale/detail/profile/sites.hpp>  // site_registry
#include <forkscale/forkscale.hpp>

#include <cstdint>

namespace fs = forkscale;

namespace {

struct registry_clock {
  static constexpr bool fixed = true;
  static constexpr fs::clock_kind kind = fs::clock_kind::cost;
  static std::uint64_t now(fs::clock_kind) noexcept {
    return fs::detail::cost_counter + 1'000'000ull * fs::detail::site_registry::instance().count();
  }
};

using spawn_scope = fs::basic_spawn_scope<registry_clock>;
using sync_point = fs::basic_sync_point<registry_clock>;
using call_site = fs::basic_call_site<registry_clock>;

// Every site here is new to the process the first time it runs (each lambda is a
// new set of lines).
fs::report fresh_sites() {
  return fs::measure<registry_clock>("fresh", [] {
    fs::charge(2);
    {
      spawn_scope child(fs::basic_spawn_point<registry_clock>());
      fs::charge(10);
      {
        call_site cs;
        fs::charge(5);
      }
    }
    fs::charge(3);
    {
      call_site cs;
      fs::charge(7);
    }
    sync_point sp;
  });
}

TEST(SiteRegistration, CostsNothingInTheStrands) {
  const std::uint32_t before = fs::detail::site_registry::instance().count();
  const fs::report first = fresh_sites();
  ASSERT_GT(fs::detail::site_registry::instance().count(), before) << "the sites were registered before the test";
  EXPECT_EQ(first.work(), 27u);
  EXPECT_EQ(first.span(), 2u + 10u + 5u);
  // A second run finds every site in the cache: the same numbers.
  const fs::report second = fresh_sites();
  EXPECT_EQ(second.work(), 27u);
  EXPECT_EQ(second.span(), first.span());
}

}  // namespace
