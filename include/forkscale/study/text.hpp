// study/text.hpp: a study for people (study_result::to_text, write_text; the
// layout may change) and for spreadsheets (to_csv, write_csv: one row per P).
#pragma once
#include <string>

#include "../config.hpp"
#include "result.hpp"

#if FORKSCALE_DETAIL_DEFINES(studies)
#include <algorithm>
#include <cmath>
#include <vector>
#include "../clock.hpp"
#include "../detail/output/csv.hpp"
#include "../detail/output/text_table.hpp"
#include "../detail/output/utf8.hpp"
#include "../detail/util/atomic_file.hpp"
#include "format.hpp"
#include "prediction_io.hpp"
#include "scaling.hpp"
#endif

FORKSCALE_NAMESPACE_BEGIN

#if FORKSCALE_DETAIL_DEFINES(studies)
namespace detail {
namespace study {

// The title line: label, clock, repetitions, hardware threads.
inline std::string text_title(const study_result& s) {
  std::string out = "forkscale scaling study";
  if (!s.label.empty()) out += ": " + output::printable(s.label);
  out += "  (clock: " + std::string(to_string(s.clock)) + ", times in ns, " + std::to_string(s.repetitions) +
         " repetitions";
  out += s.hardware_threads ? ", " + std::to_string(s.hardware_threads) + " hardware threads)\n"
                            : ", hardware threads unknown)\n";
  return out;
}

// 1) Ts, Te and T1.
inline std::string text_times(const study_result& s) {
  std::string out = "\n1) Times\n";
  out += stats_line("Ts  baseline:        ", s.baseline);
  if (s.has_elision()) out += stats_line("Te  serial elision:  ", s.elision);
  if (!s.points.empty()) out += stats_line("T1  1 thread:        ", s.points.front().time);
  return out;
}

// 2) TP, WP, IP and FP at every P.
inline std::string text_per_thread_count(const study_result& s) {
  std::string out = "\n2) Per thread count (means; WP from the engine's " +
                    std::string(s.compensated_work ? "compensated work" : "work before compensation") + ")\n";
  output::text_table t({"P", "TP", "spread", "WP", "IP", "FP", "IP/(P·TP)", "T1/TP"});
  bool any_over = false;
  for (const auto& pt : s.points) {
    any_over = any_over || pt.oversubscribed;
    const double budget = pt.processors * pt.time.mean;
    t.add({count_cell(pt.processors, pt.oversubscribed), ns_text(pt.time.mean), spread_text(pt.time),
           ns_text(pt.parallel_work), ns_text(pt.idle_time), ns_text(pt.work_inflation),
           std::isnan(pt.idle_time) || !(budget > 0) ? "n/a" : percent(pt.idle_time / budget),
           ratio_cell(pt.self_speedup)});
  }
  out += t.render();
  out += "  spread: the whole range of TP over the runs, " + std::string(spread_definition) + "\n";
  if (any_over) out += "  * more threads than the " + std::to_string(s.hardware_threads) + " hardware threads\n";
  return out;
}

// 3) The factored speedups at every P.
inline std::string text_factored(const study_result& s) {
  std::string out = "\n3) Factored speedups (Acar, Charguéraud, Rainey §2.3; ratios of means)\n";
  std::vector<std::string> head{"P", "linear"};
  if (s.has_elision()) head.push_back("elision");
  for (const char* h : {"maximal", "idle-sp.", "infl.-sp.", "actual", "actual range"}) head.push_back(h);
  output::text_table f(head);
  for (const auto& pt : s.points) {
    std::vector<std::string> row{count_cell(pt.processors, pt.oversubscribed), ratio_cell(pt.speedup.linear)};
    if (s.has_elision()) row.push_back(ratio_cell(pt.speedup.elision));
    row.push_back(ratio_cell(pt.speedup.maximal));
    row.push_back(ratio_cell(pt.speedup.idle_specific));
    row.push_back(ratio_cell(pt.speedup.inflation_specific));
    row.push_back(ratio_cell(pt.speedup.actual));
    row.push_back(ratio_cell(pt.actual_low) + " - " + ratio_cell(pt.actual_high));
    f.add(row);
  }
  out += f.render();
  out += "  linear P; ";
  if (s.has_elision()) out += "elision P·Ts/Te; ";
  out += "maximal P·Ts/T1; idle-specific P·Ts/(T1+IP);\n  inflation-specific P·Ts/(P·TP-IP); actual Ts/TP\n";
  return out;
}

// 4) Cilkview's bounds next to the measured T1/TP.
inline std::string text_bounds(const study_result& s) {
  std::string out = "\n4) Scalability bounds (Cilkview; engine numbers of the median 1-thread run)\n";
  if (s.profile.empty()) return out + "  n/a (the engine measured nothing)\n";
  out += "  Parallelism T1/Tinf:       " + ratio_cell(s.bounds.parallelism) + "   (span-law bound)\n";
  out += "  Burdened parallelism:      " + ratio_cell(s.bounds.burdened_parallelism) + "\n";
  output::text_table b({"P", "lower (burdened)", "upper", "measured T1/TP"});
  for (const auto& pt : s.points) {
    const double lower = scaling::burdened_lower_bound(pt.processors, s.bounds.work, s.bounds.burdened_span);
    const double upper = std::min(scaling::work_law(pt.processors), s.bounds.parallelism);
    b.add({count_cell(pt.processors, pt.oversubscribed), ratio_cell(lower), ratio_cell(upper),
           ratio_cell(pt.self_speedup)});
  }
  return out + b.render();
}

// 5) The memory-bandwidth probe.
inline std::string text_bandwidth(const study_result& s) {
  std::string out = "\n5) Memory-bandwidth probe (Cilkview §5: P copies of the baseline at once vs one alone)\n";
  if (s.bandwidth.empty()) return out + "  not run (no study_workload::baseline_copy, or no P above 1)\n";
  out += stats_line("one copy alone:      ", s.probe_alone);
  output::text_table b({"copies", "time of one copy", "slowdown"});
  for (const auto& bp : s.bandwidth)
    b.add({count_cell(bp.copies, bp.oversubscribed), ns_text(bp.together.mean), ratio_cell(bp.slowdown) + "x"});
  return out + b.render();
}

inline std::string text_warnings(const study_result& s) {
  if (s.warnings.empty()) return "\nWarnings: none.\n";
  std::string out = "\nWarnings:\n";
  for (const auto& wmsg : s.warnings) out += "  - " + output::printable(wmsg) + "\n";
  return out;
}

}  // namespace study
}  // namespace detail

FORKSCALE_INLINE std::string study_result::to_text() const {
  namespace ds = detail::study;
  return ds::text_title(*this) + ds::text_times(*this) + ds::text_per_thread_count(*this) + ds::text_factored(*this) +
         ds::text_bounds(*this) + ds::text_bandwidth(*this) + ds::text_prediction(*this) + ds::text_warnings(*this);
}

FORKSCALE_INLINE std::string study_result::to_csv() const {
  namespace io = detail::output;
  std::string out =
      "processors,oversubscribed,time_mean,time_median,time_min,time_max,time_stddev,parallel_work,"
      "idle_time,work_inflation,speedup_linear,speedup_elision,speedup_maximal,speedup_idle_specific,"
      "speedup_inflation_specific,speedup_actual,self_speedup,bandwidth_slowdown,ts,te,t1,unit\n";
  for (const auto& pt : points) {
    double slowdown = scaling::nan();
    for (const auto& b : bandwidth)
      if (b.copies == pt.processors) slowdown = b.slowdown;
    const double nums[] = {pt.time.mean,
                           pt.time.median,
                           pt.time.min,
                           pt.time.max,
                           pt.time.stddev,
                           pt.parallel_work,
                           pt.idle_time,
                           pt.work_inflation,
                           pt.speedup.linear,
                           pt.speedup.elision,
                           pt.speedup.maximal,
                           pt.speedup.idle_specific,
                           pt.speedup.inflation_specific,
                           pt.speedup.actual,
                           pt.self_speedup,
                           slowdown,
                           ts(),
                           te(),
                           t1()};
    out += std::to_string(pt.processors);
    out += pt.oversubscribed ? ",true" : ",false";
    for (const double v : nums) out += "," + io::csv_number(v);
    out += "," + io::csv_text(unit) + "\n";
  }
  return out;
}

FORKSCALE_INLINE void study_result::write_text(const std::string& path) const {
  detail::write_file_atomically(path, to_text());
}
FORKSCALE_INLINE void study_result::write_csv(const std::string& path) const {
  detail::write_file_atomically(path, to_csv());
}

#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
