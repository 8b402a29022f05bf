// detail/output/prediction.hpp: a prediction as text (a table per P and the
// assumptions under it) and as JSON (schema "forkscale.prediction", version 1,
// docs/predict.md), and the write_* functions.
#pragma once
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../prediction.hpp"
#include "../util/atomic_file.hpp"
#include "format.hpp"
#include "json_writer.hpp"
#include "text_table.hpp"
#include "utf8.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

// The work-stealing spread over the seeds: (max - min) / median, in percent.
inline std::string spread_text(const replay_spread& s) {
  if (!(s.median > 0)) return "n/a";
  return fixed(100.0 * (s.max - s.min) / s.median, 1) + "%";
}

inline std::string os_threads_table(const prediction& p) {
  return fitted_columns([&](bool short_numbers) {
    text_table t({"P", "threads TP", "speedup", "threads", "peak runnable", "lower", "upper", "Brent TP"});
    for (const auto& pt : p.points)
      t.add({std::to_string(pt.processors), time_text(pt.os_threads_time, short_numbers), fixed(pt.speedup, 2),
             grouped(pt.threads), grouped(pt.peak_runnable), fixed(pt.cilkview.lower, 2), fixed(pt.cilkview.upper, 2),
             time_text(pt.brent_time, short_numbers)});
    return t;
  });
}

inline std::string prediction_table(const prediction& p) {
  if (p.model.scheduler == replay_scheduler::os_threads) return os_threads_table(p);
  return fitted_columns([&](bool short_numbers) {
    text_table t({"P", "greedy TP", "speedup", "stealing TP", "speedup", "spread", "lower", "upper", "Brent TP"});
    for (const auto& pt : p.points)
      t.add({std::to_string(pt.processors), time_text(pt.greedy_time, short_numbers), fixed(pt.greedy_speedup, 2),
             time_text(pt.stealing.median, short_numbers), fixed(pt.stealing_speedup, 2), spread_text(pt.stealing),
             fixed(pt.cilkview.lower, 2), fixed(pt.cilkview.upper, 2), time_text(pt.brent_time, short_numbers)});
    return t;
  });
}

inline std::string prediction_text(const prediction& p) {
  namespace io = output;
  const std::string u = io::printable(p.unit);
  std::string out = "forkscale prediction";
  if (!p.label.empty()) out += ": " + io::printable(p.label);
  out += "  (clock: " + std::string(to_string(p.clock)) + ", unit: " + u + ")\n";
  out += io::wrapped("Replayed graph: " + io::grouped(p.strands) + " strands, " + io::grouped(p.spawns) +
                         " spawns; work " + io::time_text(p.work) + " " + u + ", span " + io::time_text(p.span) + " " +
                         u + ", burdened span " + io::time_text(p.burdened_span) + " " + u + ".",
                     "  ", "  ");
  const bool threads = p.model.scheduler == replay_scheduler::os_threads;
  out += "Scheduler: " +
         std::string(threads ? "OS threads (a thread per spawn, the cores shared in time slices)"
                             : "work stealing (greedy list scheduling and randomized work stealing)") +
         "\n";
  out += "\nPredicted time TP on P processors (in " + u + ") and speedup T1/TP\n";
  out += prediction_table(p);
  out += io::wrapped(threads ? "threads TP: the OS-thread replay (a thread per spawn on P cores); threads: threads "
                               "started; peak runnable: most threads runnable at once; lower, upper: Cilkview's "
                               "speedup estimate T1/(T1/P + 1.7 x burdened span) and min(P, T1/Tinf); Brent TP: "
                               "T1/P + Tinf, the most a greedy schedule with a free runtime takes."
                             : "greedy: list scheduling; stealing: randomized work stealing, the median over the "
                               "seeds, spread = (max - min) / median; lower, upper: Cilkview's speedup estimate "
                               "T1/(T1/P + 1.7 x burdened span) and min(P, T1/Tinf); Brent TP: T1/P + Tinf, the "
                               "most a greedy schedule with a free runtime takes.",
                     "  ", "  ");
  out += "\nAssumptions\n";
  for (const auto& a : p.assumptions) out += io::wrapped(io::printable(a), "  - ", "    ");
  return out;
}

inline void spread_json(json_writer& j, const replay_spread& s) {
  j.begin_object();
  j.member("min", s.min);
  j.member("median", s.median);
  j.member("max", s.max);
  j.member("mean", s.mean);
  j.end_object();
}

inline void point_json(json_writer& j, const predicted_point& pt, replay_scheduler scheduler) {
  j.begin_object();
  j.member("processors", static_cast<std::uint64_t>(pt.processors));
  j.member("time", pt.time);
  j.member("speedup", pt.speedup);
  if (scheduler == replay_scheduler::os_threads) {
    j.key("os_threads");
    j.begin_object();
    j.member("time", pt.os_threads_time);
    j.member("threads", pt.threads);
    j.member("peak_runnable", pt.peak_runnable);
    j.end_object();
  } else {
    j.key("greedy");
    j.begin_object();
    j.member("time", pt.greedy_time);
    j.member("speedup", pt.greedy_speedup);
    j.member("migrations", pt.greedy_migrations);
    j.end_object();
    j.key("work_stealing");
    j.begin_object();
    j.key("time");
    spread_json(j, pt.stealing);
    j.member("speedup", pt.stealing_speedup);
    j.member("speedup_min", pt.stealing_speedup_min);
    j.member("speedup_max", pt.stealing_speedup_max);
    j.member("steals", pt.steals);
    j.member("failed_steals", pt.failed_steals);
    j.end_object();
  }
  j.key("bounds");
  j.begin_object();
  j.member("lower_time", pt.lower_time);
  j.member("brent_time", pt.brent_time);
  j.member("cilkview_lower", pt.cilkview.lower);
  j.member("cilkview_upper", pt.cilkview.upper);
  j.end_object();
  j.end_object();
}

// The replay's model and its assumptions: "model" and "assumptions" of a
// prediction's JSON and of a study's "prediction".
inline void model_json(json_writer& j, const replay_model& m, const std::vector<std::string>& assumptions) {
  j.key("model");
  j.begin_object();
  j.member("scheduler", to_string(m.scheduler));
  j.member("spawn_cost", m.spawn_cost);
  j.member("steal_cost", m.steal_cost);
  j.member("steal_attempt_cost", m.steal_attempt_cost);
  j.member("thread_start_cost", m.thread_start_cost);
  j.member("core_wake_cost", m.core_wake_cost);
  j.member("seeds", static_cast<std::uint64_t>(m.seeds));
  j.member("seed", m.seed);
  j.end_object();
  j.key("assumptions");
  j.begin_array();
  for (const auto& a : assumptions) j.value(a);
  j.end_array();
}

inline std::string prediction_json(const prediction& p) {
  json_writer j;
  j.begin_object();
  j.member("schema", "forkscale.prediction");
  j.member("schema_version", std::uint64_t{1});
  j.member("label", p.label);
  j.member("unit", p.unit);
  j.member("clock", to_string(p.clock));
  j.member("strands", p.strands);
  j.member("spawns", p.spawns);
  j.member("work", p.work);
  j.member("span", p.span);
  j.member("burdened_span", p.burdened_span);
  j.member("burden", p.burden);
  j.member("burden_source", p.burden_source);
  model_json(j, p.model, p.assumptions);
  j.key("points");
  j.begin_array();
  for (const auto& pt : p.points) point_json(j, pt, p.model.scheduler);
  j.end_array();
  j.end_object();
  return j.finish();
}

}  // namespace output
}  // namespace detail

#if FORKSCALE_DETAIL_DEFINES(analyses)
FORKSCALE_INLINE std::string prediction::to_text() const { return detail::output::prediction_text(*this); }
FORKSCALE_INLINE std::string prediction::to_json() const { return detail::output::prediction_json(*this); }
FORKSCALE_INLINE void prediction::write_text(const std::string& path) const {
  detail::write_file_atomically(path, to_text());
}
FORKSCALE_INLINE void prediction::write_json(const std::string& path) const {
  detail::write_file_atomically(path, to_json());
}
#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
