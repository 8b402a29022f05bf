// study/prediction_io.hpp: a study's prediction (study_result::prediction) in
// its JSON ("prediction", docs/study-schema.md), read back with the measured
// times and errors checked, and in its text (section 6).
#pragma once
#include <cstdint>
#include <string>

#include "../config.hpp"
#include "../detail/input/json_reader.hpp"
#include "../detail/output/json_writer.hpp"
#include "../detail/output/prediction.hpp"
#include "../detail/output/text_table.hpp"
#include "format.hpp"
#include "result.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace study {

inline void write_prediction(output::json_writer& j, const study_prediction& p) {
  j.key("prediction");
  j.begin_object();
  j.member("note", p.note);
  j.member("scale", p.scale);
  j.member("work", p.work);
  j.member("span", p.span);
  j.member("burdened_span", p.burdened_span);
  output::model_json(j, p.model, p.assumptions);
  j.key("points");
  j.begin_array();
  for (const auto& pt : p.points) {
    j.begin_object();
    j.member("processors", static_cast<std::uint64_t>(pt.processors));
    j.member("time", pt.time);
    j.member("time_min", pt.time_min);
    j.member("time_max", pt.time_max);
    j.member("greedy_time", pt.greedy_time);
    j.member("lower_time", pt.lower_time);
    j.member("upper_time", pt.upper_time);
    j.member("measured", pt.measured);
    j.member("error", pt.error);
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

// "prediction", when the file has it (older files do not): everything but the
// measured times and errors, which recompute() derives.
inline void read_prediction(const json::object_reader& top, study_result& s) {
  const json::value* v = top.optional("prediction");
  if (!v) return;
  const json::object_reader r(*v, "prediction");
  study_prediction& p = s.prediction;
  p.note = r.str("note");
  p.scale = r.number("scale", true);
  p.work = r.number("work", true);
  p.span = r.number("span", true);
  p.burdened_span = r.number("burdened_span", true);
  const json::object_reader m(r.object("model"), r.path("model"));
  p.model.scheduler = replay_scheduler::work_stealing;  // older files
  if (const json::value* k = m.optional("scheduler")) {
    bool known = false;
    for (const replay_scheduler kind :
         {replay_scheduler::automatic, replay_scheduler::work_stealing, replay_scheduler::os_threads})
      if (k->is(json::kind::string) && k->text == to_string(kind)) {
        p.model.scheduler = kind;  // automatic: a study that made no prediction
        known = true;
      }
    if (!known)
      throw json::json_error(k->offset,
                             m.path("scheduler") + ": expected \"automatic\", \"work_stealing\" or \"os_threads\"");
  }
  if (m.optional("thread_start_cost")) p.model.thread_start_cost = m.number("thread_start_cost");
  if (m.optional("core_wake_cost")) p.model.core_wake_cost = m.number("core_wake_cost");
  p.model.spawn_cost = m.number("spawn_cost");
  p.model.steal_cost = m.number("steal_cost");
  p.model.steal_attempt_cost = m.number("steal_attempt_cost");
  p.model.seeds = m.u32("seeds");
  p.model.seed = m.u64("seed");
  const json::value& assumptions = r.array("assumptions");
  for (std::size_t i = 0; i < assumptions.items.size(); ++i) {
    const json::value& a = assumptions.items[i];
    if (!a.is(json::kind::string))
      throw json::json_error(a.offset, r.path("assumptions") + "[" + std::to_string(i) + "]: expected a string");
    p.assumptions.push_back(a.text);
  }
  const json::value& points = r.array("points");
  for (std::size_t i = 0; i < points.items.size(); ++i) {
    const json::object_reader q(points.items[i], r.path("points") + "[" + std::to_string(i) + "]");
    study_prediction_point pt;
    pt.processors = q.u32("processors");
    if (pt.processors == 0 || (!p.points.empty() && pt.processors <= p.points.back().processors))
      throw json::json_error(q.required("processors").offset,
                             q.path("processors") + ": the processor counts must be positive and ascending");
    pt.time = q.number("time", true);
    pt.time_min = q.number("time_min", true);
    pt.time_max = q.number("time_max", true);
    pt.greedy_time = q.number("greedy_time", true);
    pt.lower_time = q.number("lower_time", true);
    pt.upper_time = q.number("upper_time", true);
    p.points.push_back(pt);
  }
}

// The measured times and errors the file states must be what its runs give.
inline void check_prediction(const json::object_reader& top, const study_result& s) {
  const json::value* v = top.optional("prediction");
  if (!v) return;
  const json::object_reader r(*v, "prediction");
  const json::value& points = r.array("points");
  for (std::size_t i = 0; i < points.items.size(); ++i) {
    const json::object_reader q(points.items[i], r.path("points") + "[" + std::to_string(i) + "]");
    json::check_derived(q.required("measured"), q.path("measured"), q.number("measured", true),
                        s.prediction.points[i].measured);
    json::check_derived(q.required("error"), q.path("error"), q.number("error", true), s.prediction.points[i].error);
  }
}

// 6) The prediction next to the measured times.
inline std::string text_prediction(const study_result& s) {
  const study_prediction& p = s.prediction;
  if (p.empty() && p.note.empty()) return std::string();  // a study made by hand, or an older file
  std::string out = "\n6) Predicted from the 1-thread record (replay, docs/predict.md)\n";
  if (p.empty()) return out + "  none: " + output::printable(p.note) + "\n";
  out += "  Replayed graph: work " + ns_text(p.work) + " ns, span " + ns_text(p.span) + " ns; scaled by measured " +
         "T1 / replayed T1 = " + fmt(p.scale, 3) + "\n";
  output::text_table t({"P", "measured TP", "predicted TP", "error", "T1/TP", "spread", "bounds T1/TP"});
  const double t1 = s.t1();
  for (const auto& pt : p.points) {
    const study_point* m = s.at(pt.processors);
    const double spread = pt.time > 0 ? (pt.time_max - pt.time_min) / pt.time : scaling::nan();
    t.add({count_cell(pt.processors, m && m->oversubscribed), pt.was_measured() ? ns_text(pt.measured) : "-",
           ns_text(pt.time), pt.was_measured() ? (pt.error > 0 ? "+" : "") + percent(pt.error) : "-",
           ratio_cell(scaling::ratio(t1, pt.time)), std::isnan(spread) ? "n/a" : percent(spread),
           ratio_cell(scaling::ratio(t1, pt.upper_time)) + " - " + ratio_cell(scaling::ratio(t1, pt.lower_time))});
  }
  out += t.render();
  out += output::wrapped(scheduler_sentence(p) +
                             " (spread: (max - min) / median); error: (predicted - measured) / measured; "
                             "bounds: Cilkview's estimate T1/(T1/P + 1.7 x burdened span) and min(P, T1/Tinf), of "
                             "the recorded graph. Assumptions:",
                         "  ", "  ");
  for (const auto& a : p.assumptions) out += output::wrapped(output::printable(a), "  - ", "    ");
  return out;
}

}  // namespace study
}  // namespace detail
FORKSCALE_NAMESPACE_END
