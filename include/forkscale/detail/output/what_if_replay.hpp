// detail/output/what_if_replay.hpp: the what-if table's lines through the
// replay (report::what_if_text, when the report has a whole record): for each
// region at its largest factor, the time P processors would take if the
// region's strands ran that much faster, P being the report's max_processors.
#pragma once
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../prediction.hpp"
#include "../../report.hpp"
#include "format.hpp"
#include "text_table.hpp"
#include "utf8.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

// The report with only the optimized rows at each region's largest factor.
inline report largest_factor_rows(const report& rep) {
  report r = rep;
  r.what_if.clear();
  for (const what_if_result& w : rep.what_if) {
    if (w.model != what_if_model::optimized || !w.executed) continue;
    double top = -1;
    for (const what_if_result& v : rep.what_if)
      if (v.region == w.region && v.source == w.source && v.file == w.file && v.line == w.line)
        top = std::max(top, v.factor);
    if (w.factor == top) r.what_if.push_back(w);
  }
  return r;
}

// The text report leaves out the analyses of a record that grow with it (the
// timeline, idle blame, the replay) above options.trace_limit strands, the
// bound the trace keeps too (docs/record.md, "The bound"): for a record of
// millions of strands they would take many times the measured run.
inline bool record_over_text_bound(const report& rep) {
  if (!rep.record) return false;
  const execution_record& r = *rep.record;
  return r.trace_limit != 0 && r.strands.size() > r.trace_limit;
}
inline std::string record_over_text_bound_note(const report& rep) {
  return wrapped("Left out: the record holds " + grouped(rep.record->strands.size()) +
                     " strands, more than options.trace_limit (" + grouped(rep.record->trace_limit) +
                     "), above which the text report does not analyse it (docs/record.md, \"The bound\"). "
                     "fs::timeline_text(rep) and fs::predict_what_if(rep, P) do, on the same report; "
                     "options.trace_limit = 0 puts them here.",
                 "  ", "  ");
}

inline std::string replay_what_if_text(const report& rep) {
  if (!rep.record || !rep.record->complete || rep.record->empty() || rep.what_if.empty()) return std::string();
  if (record_over_text_bound(rep))
    return wrapped("Through the replay: left out, the record's " + grouped(rep.record->strands.size()) +
                       " strands being more than options.trace_limit (see \"Parallelism over time and idle "
                       "blame\" below).",
                   "  ", "  ");
  const unsigned p = rep.max_processors ? rep.max_processors : 32;
  replay_model m;
  m.scheduler = replay_scheduler::work_stealing;  // what the sentence below says, whatever the backend
  m.seeds = 3;
  std::vector<what_if_prediction> rows;
  try {
    rows = predict_what_if(largest_factor_rows(rep), p, m);
  } catch (const error&) {
    return std::string();  // a record the replay cannot take: the table stands alone
  }
  if (rows.empty()) return std::string();
  const std::string u = printable(rep.unit);
  std::string out = wrapped("Through the replay (docs/predict.md): on " + std::to_string(p) +
                                " processors the recorded program takes " + time_text(rows[0].measured_time) + " " + u +
                                " (work stealing, median of 3 seeds, steals costing the burden); if "
                                "the region ran k times faster (optimized):",
                            "  ", "  ");
  text_table t({"region", "k", "TP", "faster by"});
  for (const auto& r : rows)
    t.add({printable(r.region), factor_text(r.factor), time_text(r.time),
           std::isinf(r.speedup) ? std::string("inf") : fixed(r.speedup, 2) + "x"});
  return out + t.render();
}

}  // namespace output
}  // namespace detail
FORKSCALE_NAMESPACE_END
