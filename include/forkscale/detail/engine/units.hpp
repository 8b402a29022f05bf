// detail/engine/units.hpp: engine ticks to the report's unit.
#pragma once
#include <cmath>
#include <cstdint>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "session.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// The report's unit per engine tick. The TSC's rate is measured while the first
// measurement runs (clock.hpp), so it is looked up only when a report is made.
// A measurement that assumes call sites faster counts in 1/scale ticks.
inline double unit_per_tick(const session& s) noexcept {
  const double base = s.info.kind == clock_kind::tsc ? tsc_ns_per_tick() : s.info.unit_per_tick;
  return base / static_cast<double>(s.what_if.scale);
}

inline std::uint64_t to_unit(const session& s, std::uint64_t ticks) noexcept {
  const double upt = unit_per_tick(s);
  if (upt == 1.0) return ticks;  // exact for the cost clock
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(ticks) * upt));
}

inline std::int64_t to_unit_signed(const session& s, std::int64_t ticks) noexcept {
  return ticks < 0 ? -static_cast<std::int64_t>(to_unit(s, static_cast<std::uint64_t>(-ticks)))
                   : static_cast<std::int64_t>(to_unit(s, static_cast<std::uint64_t>(ticks)));
}

// Converts one column of tick values to the report's unit so that the converted
// values add up to the converted total: each is the difference of the rounded
// running sums (the self-checks stay exact with timed clocks too).
class column_rounding {
 public:
  explicit column_rounding(const session& s) : s_(s) {}
  std::int64_t next(std::int64_t ticks) {
    sum_ += ticks;
    const std::int64_t now = to_unit_signed(s_, sum_);
    const std::int64_t v = now - done_;
    done_ = now;
    return v;
  }

 private:
  const session& s_;
  std::int64_t sum_ = 0;
  std::int64_t done_ = 0;
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
