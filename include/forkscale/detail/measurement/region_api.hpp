// detail/measurement/region_api.hpp: what a region guard (guards.hpp) asks of the
// engine — open a region or a whole measurement, stop it, forget it — as
// functions per clock policy over a region whose state the guard never looks
// into. The header-only form defines them inline (detail/measurement/measure.hpp);
// the compiled form declares them here and the library (src/lib/measure.cpp,
// or src/forkscale.cpp) defines them once
// for every clock policy forkscale ships (a policy of the user's own needs the
// header-only form).
#pragma once
#include <string>

#include "../../config.hpp"
#include "../../options.hpp"
#include "../../report.hpp"
#include "../../site.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

struct region_state;

template <class Clock>
struct region_api {
  // A new region: outside any measurement on this thread, a measurement of its
  // own (throws forkscale::error for bad options); inside one, a labeled row.
  static region_state* open(std::string label, const options& opt, const site& where);
  // Ends the region (once; later calls return an empty report): the whole
  // report for a measurement, the instance's own for a nested region.
  static report stop(region_state* r);
  // Ends the region if it is still open (an outermost one's report goes to
  // last_report()) and frees it.
  static void close(region_state* r) noexcept;
  // A diagnostic (not misuse) of the measurement the calling thread runs in —
  // what an adapter could not model; nothing outside a measurement.
  static void notice(const site& where, const std::string& problem);
};

}  // namespace detail

// The report of the last outermost region that ended without stop() being called.
FORKSCALE_INLINE report last_report();

FORKSCALE_NAMESPACE_END
