// study/run_checks.hpp: the thread counts a study runs (processor_list) and the
// warnings that follow from a study's numbers alone (add_derived_warnings).
// run_study (run.hpp) uses both; they are kept apart so that they can be tested
// on their own.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../config.hpp"
#include "format.hpp"
#include "options.hpp"
#include "result.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace study {

inline std::vector<unsigned> processor_list(const study_options& opt, unsigned hw) {
  std::vector<unsigned> ps = opt.processors;
  if (ps.empty()) {
    const unsigned top = hw ? hw : 1;
    for (unsigned p = 1; p <= top; p *= 2) {
      ps.push_back(p);
      if (p > top / 2) break;
    }
    ps.push_back(top);
  }
  ps.push_back(1);
  std::sort(ps.begin(), ps.end());
  ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
  return ps;
}

// The warnings that follow from the numbers alone.
inline void add_derived_warnings(study_result& s) {
  const auto P = [](unsigned p) { return "P = " + std::to_string(p); };
  std::vector<unsigned> over;
  for (const auto& pt : s.points)
    if (pt.oversubscribed) over.push_back(pt.processors);
  if (!over.empty()) {
    std::string list;
    for (const unsigned p : over) list += (list.empty() ? "" : ", ") + std::to_string(p);
    s.warnings.push_back("P = " + list + (over.size() > 1 ? " are" : " is") + " more than the " +
                         std::to_string(s.hardware_threads) +
                         " hardware threads: threads waited for a core, which the timed clock counts as "
                         "work, so TP, IP and FP there describe oversubscription, not the program "
                         "(marked * and drawn hollow)");
  }
  for (const auto& pt : s.points) {
    if (pt.diagnostic_count)
      s.warnings.push_back("forkscale found " + std::to_string(pt.diagnostic_count) +
                           " misuse diagnostic(s) in the runs at " + P(pt.processors) + ": WP there may be wrong");
    if (pt.processors > 1 && !pt.spawns.empty() && pt.spawns.max == 0)
      s.warnings.push_back("no spawns were recorded at " + P(pt.processors) +
                           ": is the parallel workload annotated with forkscale's guards? WP then counts "
                           "only the calling thread");
    const double budget = pt.processors * pt.time.mean;
    if (!std::isnan(pt.idle_time) && budget > 0 && pt.idle_time < -0.02 * budget)
      s.warnings.push_back("IP is negative at " + P(pt.processors) + " (" + percent(pt.idle_time / budget) +
                           " of P·TP): the engine counted more work than " + std::to_string(pt.processors) +
                           " threads had time for; the workload may run more threads than P, or threads "
                           "were preempted");
    if (pt.time.count() >= 2 && spread_of(pt.time) > 0.25)
      s.warnings.push_back("TP at " + P(pt.processors) + " has a spread of " + spread_text(pt.time) +
                           " over the runs (" + spread_definition +
                           ", above 25%): the machine may be busy; quiet it or raise the repetitions "
                           "(Cilkview §4)");
  }
  if (s.baseline.count() >= 2 && spread_of(s.baseline) > 0.25)
    s.warnings.push_back("Ts has a spread of " + spread_text(s.baseline) + " over the runs (" + spread_definition +
                         ", above 25%): the machine may be busy");
  for (const auto& b : s.bandwidth)
    if (!std::isnan(b.slowdown) && b.slowdown > 1.2 && !b.oversubscribed)
      s.warnings.push_back(std::to_string(b.copies) + " copies of the baseline at once take " + fmt(b.slowdown) +
                           "x as long as one alone: memory bandwidth (or other load on the "
                           "machine) may limit scaling (Cilkview §5)");
}

}  // namespace study
}  // namespace detail
FORKSCALE_NAMESPACE_END
