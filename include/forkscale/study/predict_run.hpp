// study/predict_run.hpp: the study's prediction (study_result::prediction,
// docs/predict.md) — the recorded 1-thread run replayed on P = 1, 2, 4, ...
// study_options::predict_up_to and on every P the study ran, scaled to the
// measured T1.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../config.hpp"
#include "../detail/output/format.hpp"
#include "../predict.hpp"
#include "../report.hpp"
#include "options.hpp"
#include "result.hpp"
#include "scaling.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace study {

inline std::vector<unsigned> predicted_processors(const study_result& s, unsigned up_to) {
  std::vector<unsigned> ps;
  up_to = std::min(up_to, 65536u);
  for (unsigned p = 1; p < up_to; p *= 2) ps.push_back(p);
  ps.push_back(up_to);
  for (const auto& pt : s.points)
    if (pt.processors <= 65536u) ps.push_back(pt.processors);
  std::sort(ps.begin(), ps.end());
  ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
  return ps;
}

// Why `recorded` cannot be replayed, or empty.
inline std::string unreplayable(const study_result& s, const report& recorded, const study_options& opt) {
  if (opt.predict_up_to == 0) return "not asked for (study_options::predict_up_to is 0)";
  if (recorded.empty()) return "the engine measured nothing (FORKSCALE_ENABLE=0?)";
  if (!recorded.record) return "the 1-thread run was not recorded (FORKSCALE_RECORD=0?)";
  if (!recorded.record->complete)
    return "the record of the 1-thread run is partial (it stopped at options.record_limit)";
  if (!(s.t1() > 0)) return "T1 was not measured";
  return std::string();
}

inline study_prediction_point scaled_point(const predicted_point& p, const prediction& pr, double scale) {
  study_prediction_point o;
  o.processors = p.processors;
  o.time = p.time * scale;
  if (pr.model.scheduler == replay_scheduler::os_threads) {
    o.time_min = o.time_max = o.time;  // one deterministic replay; no greedy one
  } else {
    o.time_min = p.stealing.min * scale;
    o.time_max = p.stealing.max * scale;
    o.greedy_time = p.greedy_time * scale;
  }
  o.lower_time = p.lower_time * scale;
  o.upper_time = (pr.work / p.processors + 1.7 * pr.burdened_span) * scale;
  return o;
}

// Fills s.prediction from the recorded run (before s.recompute(), which adds
// the measured times and the errors).
inline void add_prediction(study_result& s, const report& recorded, const study_options& opt) {
  study_prediction& out = s.prediction;
  out = study_prediction{};
  out.note = unreplayable(s, recorded, opt);
  if (!out.note.empty()) return;
  prediction p;
  try {
    p = forkscale::predict(recorded, predicted_processors(s, opt.predict_up_to), opt.replay);
  } catch (const error& e) {
    out.note = e.what();
    return;
  }
  // The replayed T1 is the graph's work: the 1-thread run the study timed. (It
  // is the work-stealing replay's time at P = 1 with free spawns; the OS-thread
  // replay at P = 1 would add thread starts the serial run did not have.)
  out.scale = scaling::ratio(s.t1(), p.work);
  if (std::isnan(out.scale)) {
    out.note = "the recorded run has no work to replay";
    return;
  }
  out.work = p.work;
  out.span = p.span;
  out.burdened_span = p.burdened_span;
  out.model = p.model;
  out.assumptions = p.assumptions;
  out.assumptions.push_back("Times are the replay's scaled by the measured T1 over the replayed T1 (" +
                            output::fixed(out.scale, 3) + "): the replay predicts how the time shrinks with P.");
  for (const auto& pt : p.points) out.points.push_back(scaled_point(pt, p, out.scale));
}

// The warnings about the prediction: none was made (though asked for), or it
// is more than 15% off what was measured at a P above 1 within the hardware.
inline void add_prediction_warnings(study_result& s, const study_options& opt) {
  if (opt.predict_up_to > 0 && s.prediction.empty() && !s.prediction.note.empty())
    s.warnings.push_back("no prediction from the 1-thread record: " + s.prediction.note);
  for (const auto& pp : s.prediction.points) {
    const study_point* m = s.at(pp.processors);
    if (!m || m->oversubscribed || pp.processors < 2 || !(std::fabs(pp.error) > 0.15)) continue;
    s.warnings.push_back("the replay of the 1-thread record predicts TP at P = " + std::to_string(pp.processors) + " " +
                         output::fixed(100 * std::fabs(pp.error), 1) + "% " + (pp.error > 0 ? "above" : "below") +
                         " the measured time (predicted " + output::grouped_round(pp.time) + " ns, measured " +
                         output::grouped_round(pp.measured) +
                         " ns): the replay leaves out caches, memory bandwidth, the machine's other load and the "
                         "runtime's own scheduling (docs/predict.md)");
  }
}

}  // namespace study
}  // namespace detail
FORKSCALE_NAMESPACE_END
