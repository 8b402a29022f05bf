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
// measurement runs (clock.hpp), so it is looked up only when a report is made
// (for tsc, and for thread_cpu read from the TSC).
// A measurement that assumes call sites faster counts in 1/scale ticks.
inline double unit_per_tick(const session& s) noexcept {
  const double base = counts_tsc_ticks(s.info.kind) ? tsc_ns_per_tick() : s.info.unit_per_tick;
  return base / static_cast<double>(s.what_if.scale);
}

// std::llround(x), as unsigned: the nearest integer, halves away from zero;
// without the library call where x is a non-negative number below 2^63 (the
// truncation is then the floor, and x minus it is exact).
inline std::uint64_t round_half_away(double x) noexcept {
  if (x >= 0 && x < 9223372036854775808.0) {
    const auto whole = static_cast<std::uint64_t>(x);
    return whole + (x - static_cast<double>(whole) >= 0.5 ? 1u : 0u);
  }
  return static_cast<std::uint64_t>(std::llround(x));
}

// Ticks to the unit at `upt` units per tick (unit_per_tick).
inline std::uint64_t to_unit_at(double upt, std::uint64_t ticks) noexcept {
  if (upt == 1.0) return ticks;  // exact for the cost clock
  return round_half_away(static_cast<double>(ticks) * upt);
}

inline std::int64_t to_unit_signed_at(double upt, std::int64_t ticks) noexcept {
  return ticks < 0 ? -static_cast<std::int64_t>(to_unit_at(upt, static_cast<std::uint64_t>(-ticks)))
                   : static_cast<std::int64_t>(to_unit_at(upt, static_cast<std::uint64_t>(ticks)));
}

inline std::uint64_t to_unit(const session& s, std::uint64_t ticks) noexcept {
  return to_unit_at(unit_per_tick(s), ticks);
}

inline std::int64_t to_unit_signed(const session& s, std::int64_t ticks) noexcept {
  return to_unit_signed_at(unit_per_tick(s), ticks);
}

// Converts one column of tick values to the report's unit so that the converted
// values add up to the converted total: each is the difference of the rounded
// running sums (the self-checks stay exact with timed clocks too).
class column_rounding {
 public:
  explicit column_rounding(const session& s) : upt_(unit_per_tick(s)) {}
  explicit column_rounding(double unit_per_tick) : upt_(unit_per_tick) {}
  std::int64_t next(std::int64_t ticks) {
    sum_ += ticks;
    const std::int64_t now = to_unit_signed_at(upt_, sum_);
    const std::int64_t v = now - done_;
    done_ = now;
    return v;
  }

 private:
  double upt_;  // the report's unit per tick, looked up once
  std::int64_t sum_ = 0;
  std::int64_t done_ = 0;
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
