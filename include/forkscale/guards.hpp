// guards.hpp: every guard (annotate.hpp), the regions that label parts of a run,
// and measure() — with, in the header-only form, the engine the guards report
// to (in the compiled form it is in the library: detail/measurement/region_api.hpp).
// A file that starts a measurement includes this header (or forkscale.hpp, which
// adds the writers and analyses); a file that only annotates can include
// annotate.hpp instead.
//
//   fs::report rep = fs::measure("fib", [&] { fib(30); });
//   { fs::region r("phase 1"); phase1(); }      // a labeled row of the report
//
// With FORKSCALE_ENABLE=0 a region is an empty type and measure() simply runs the
// callable.
#pragma once
#include <string>
#include <utility>

#include "annotate.hpp"
#include "clock.hpp"
#include "config.hpp"
#include "detail/macro_scope.hpp"
#include "options.hpp"
#include "report.hpp"
#include "site.hpp"

#if FORKSCALE_ENABLE
#include "detail/measurement/region_api.hpp"
#if FORKSCALE_DETAIL_DEFINES(measure) || FORKSCALE_DETAIL_DEFINES(finish)
#include "detail/measurement/measure.hpp"
#endif
#endif

FORKSCALE_NAMESPACE_BEGIN

#if FORKSCALE_ENABLE

// A labeled region. Outside any measurement it starts one (stop() returns the
// report; without stop() the report goes to last_report()). Inside one it adds a
// row, joined to the enclosing region by its path: everything that completes
// between its opening and its closing in this task — the task's own strands and
// every child it joins in between — summed over all instances.
template <class Clock>
class basic_region {
 public:
  explicit basic_region(std::string label, const options& opt = options{}, const site& where = site::current())
      : state_(detail::region_api<Clock>::open(std::move(label), opt, where)) {}
  basic_region(const basic_region&) = delete;
  basic_region& operator=(const basic_region&) = delete;
  ~basic_region() { detail::region_api<Clock>::close(state_); }

  // Ends the region. The outermost region returns the whole report; a nested one
  // returns a report whose only row is this instance.
  report stop() { return detail::region_api<Clock>::stop(state_); }

 private:
  detail::region_state* state_;
};

// Runs `fn` as a measured region and returns its report (nested inside another
// measurement, the report of this instance).
template <class Clock = default_clock, class Fn>
report measure(std::string label, Fn&& fn, const options& opt = options{}, const site& where = site::current()) {
  basic_region<Clock> r(std::move(label), opt, where);
  std::forward<Fn>(fn)();
  return r.stop();
}

#else  // FORKSCALE_ENABLE == 0: the same names, compiled to nothing.

// Labels and options are taken as they come (templates, no default options{}):
// a disabled region or measure() allocates nothing and builds nothing.
template <class Clock>
class basic_region {
 public:
  template <class Label>
  explicit basic_region(const Label&, const site& = site::current()) noexcept {}
  template <class Label>
  basic_region(const Label&, const options&, const site& = site::current()) noexcept {}
  report stop() const noexcept { return report{}; }
};
template <class Clock = default_clock, class Label, class Fn>
report measure(const Label&, Fn&& fn) {
  std::forward<Fn>(fn)();
  return report{};
}
template <class Clock = default_clock, class Label, class Fn>
report measure(const Label&, Fn&& fn, const options&, const site& = site::current()) {
  std::forward<Fn>(fn)();
  return report{};
}
inline report last_report() { return report{}; }

#endif  // FORKSCALE_ENABLE

using region = basic_region<default_clock>;

FORKSCALE_NAMESPACE_END

#if FORKSCALE_ENABLE
#define FORKSCALE_REGION(label) \
  ::forkscale::region FORKSCALE_DETAIL_UNIQUE(forkscale_region_)((label), ::forkscale::options{}, FORKSCALE_HERE)
#else
#define FORKSCALE_REGION(label) (void)0
#endif
