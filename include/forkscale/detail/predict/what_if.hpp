// detail/predict/what_if.hpp: fs::predict_what_if — the what-if regions through
// the replay. The strands that ran inside a region (record_strand::what_if)
// take 1/factor of their time (the optimized model: "if this region were 4x
// faster"), and the graph is replayed on P processors.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../prediction.hpp"
#include "../../report.hpp"
#include "graph.hpp"
#include "run.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace predict {

// The region bits of a what-if row in the record (all regions: every bit);
// 0 when the record does not know the region.
inline std::uint64_t region_mask(const execution_record& r, const what_if_result& w) {
  if (w.source == what_if_source::all) {
    const std::size_t n = r.what_if_regions.size();
    return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
  }
  for (std::size_t i = 0; i < r.what_if_regions.size() && i < 64; ++i) {
    const record_what_if_region& g = r.what_if_regions[i];
    if (g.name == w.region && g.call_site == (w.source == what_if_source::call_site) && g.file == w.file &&
        g.line == w.line && g.function == w.function && g.tag == w.tag)
      return std::uint64_t{1} << i;
  }
  return 0;
}

// The graph with the strands inside `mask` `factor` times faster.
inline replay_graph faster(const replay_graph& base, const execution_record& r, std::uint64_t mask, double factor,
                           double burden) {
  replay_graph g = base;
  g.work = g.span = g.burdened_span = 0;
  for (std::uint32_t i = 0; i < g.strands; ++i) {
    if (r.strands[i].what_if & mask) g.cost[i] = std::isinf(factor) ? 0.0 : g.cost[i] / factor;
    g.work += g.cost[i];
  }
  graph_paths(g, burden);
  return g;
}

// The resolved model's time on P processors (predicted_point::time).
inline double model_time(const replay_graph& g, const replay_model& m, unsigned p) {
  predicted_point pt;
  pt.processors = p;
  if (m.scheduler == replay_scheduler::os_threads)
    return os_threads_replay_run(g, p, m.spawn_cost, m.thread_start_cost, m.core_wake_cost).time;
  replay_stealing(g, m, pt);
  return pt.stealing.median;
}

}  // namespace predict
}  // namespace detail

#if FORKSCALE_DETAIL_DEFINES(analyses)
FORKSCALE_INLINE std::vector<what_if_prediction> predict_what_if(const report& rep, unsigned processors,
                                                                 const replay_model& model) {
  namespace dp = detail::predict;
  const execution_record& r = dp::replayable_record(rep);
  dp::check_processors({processors});
  std::vector<what_if_prediction> out;
  if (rep.what_if.empty()) return out;
  const double burden = static_cast<double>(rep.burden);
  const replay_model m = dp::resolve_model(model, burden, rep.burden_source, rep.backend);
  const dp::replay_graph base =
      dp::make_graph(r, burden, [&](std::uint32_t i) { return static_cast<double>(r.strands[i].span); });
  const double measured = dp::model_time(base, m, processors);
  for (const what_if_result& w : rep.what_if) {
    if (!w.executed || w.model != what_if_model::optimized) continue;
    const std::uint64_t mask = dp::region_mask(r, w);
    if (mask == 0) continue;
    const dp::replay_graph g = dp::faster(base, r, mask, w.factor, burden);
    what_if_prediction p;
    p.region = w.region;
    p.source = w.source;
    p.factor = w.factor;
    p.processors = processors;
    p.time = dp::model_time(g, m, processors);
    if (m.scheduler == replay_scheduler::work_stealing)
      p.greedy_time = dp::greedy_replay(g, processors, dp::costs_of(m)).time;
    p.measured_time = measured;
    p.speedup = p.time > 0 ? measured / p.time : std::numeric_limits<double>::infinity();
    out.push_back(std::move(p));
  }
  return out;
}
#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
