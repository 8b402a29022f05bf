// study/prediction.hpp: what a scaling study predicts from its 1-thread record
// (study_result::prediction, docs/predict.md): the replay of the recorded
// strand graph on P = 1 .. study_options::predict_up_to processors, next to
// the times the study measured at every P it ran.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "../config.hpp"
#include "../predict.hpp"
#include "scaling.hpp"

FORKSCALE_NAMESPACE_BEGIN

// The prediction at one P. Times in ns: the replay's times scaled by the
// study's measured T1 over the replayed T1 (study_prediction::scale), so that
// the prediction at P = 1 is the measured T1 and the replay predicts how the
// time shrinks.
struct study_prediction_point {
  unsigned processors = 0;
  double time = scaling::nan();         // work stealing, median over the seeds
  double time_min = scaling::nan();     // ... fastest seed
  double time_max = scaling::nan();     // ... slowest seed
  double greedy_time = scaling::nan();  // greedy list scheduling
  double lower_time = scaling::nan();   // no schedule is faster: max(T1/P, T∞)
  double upper_time = scaling::nan();   // Cilkview's estimate: T1/P + 1.7 · burdened span
  double measured = scaling::nan();     // the study's mean TP at this P; NaN where it did not run
  double error = scaling::nan();        // (time − measured) / measured

  bool was_measured() const noexcept { return !std::isnan(measured); }
};

struct study_prediction {
  // Why there is no prediction (the study was asked for none, the record is
  // partial, nothing was measured); empty when there is one.
  std::string note;
  double scale = scaling::nan();  // the measured T1 over the replayed T1
  // The recorded graph, in ns, unscaled.
  double work = scaling::nan();
  double span = scaling::nan();
  double burdened_span = scaling::nan();
  replay_model model;                          // the costs resolved, in ns
  std::vector<std::string> assumptions;        // fs::prediction's, one sentence each
  std::vector<study_prediction_point> points;  // ascending P

  bool empty() const noexcept { return points.empty(); }
  const study_prediction_point* at(unsigned p) const noexcept {
    for (const auto& pt : points)
      if (pt.processors == p) return &pt;
    return nullptr;
  }
};

namespace detail {
namespace study {

// What "predicted TP" is, for the tables under the prediction.
inline std::string scheduler_sentence(const study_prediction& p) {
  if (p.model.scheduler == replay_scheduler::os_threads)
    return "predicted TP: OS threads (a thread per spawn, the cores shared in time slices), one deterministic replay";
  return "predicted TP: work stealing, the median over " + std::to_string(p.model.seeds) + " seeds";
}

}  // namespace study
}  // namespace detail

FORKSCALE_NAMESPACE_END
