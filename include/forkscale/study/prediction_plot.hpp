// study/prediction_plot.hpp: a study's prediction drawn and tabled
// (docs/predict.md): the predicted speedup curve T1/TP of the replay, with the
// spread over the seeds as bars, the greedy replay, the bounds of the recorded
// graph (work law, span law, Cilkview's burdened estimate) and the measured
// T1/TP at every P the study ran; and the HTML section that shows it with the
// error at each measured P and the assumptions.
//
//   std::string svg = fs::prediction_svg(study);   // empty when there is no prediction
//
// Included by study/html.hpp (the HTML page shows it as the section
// html_section_ids::study_prediction).
#pragma once
#include <string>

#include "../config.hpp"
#include "plot.hpp"
#include "result.hpp"

#if FORKSCALE_DETAIL_DEFINES(html)
#include <cmath>
#include <vector>
#include "../detail/output/html_blocks.hpp"
#include "../detail/output/svg.hpp"
#endif

FORKSCALE_NAMESPACE_BEGIN
// The prediction plot of a study as SVG; empty when the study has no prediction.
FORKSCALE_INLINE std::string prediction_svg(const study_result& s, const plot_options& opt = {});

#if FORKSCALE_DETAIL_DEFINES(html)
namespace detail {
namespace plot {

inline svg::series predicted_series(const study_result& s) {
  const study_prediction& p = s.prediction;
  const double t1 = s.t1();
  svg::series out =
      make_series("predicted", "predicted T1/TP, work stealing (bars: seeds' min–max)", "#6a1b9a", "", "diamond");
  for (const auto& pt : p.points) {
    out.xs.push_back(pt.processors);
    out.ys.push_back(scaling::ratio(t1, pt.time));
    out.low.push_back(scaling::ratio(t1, pt.time_max));
    out.high.push_back(scaling::ratio(t1, pt.time_min));
    out.tips.push_back("predicted T1/TP at " + pts(pt.processors) + ": " + svg::short_number(out.ys.back()) +
                       (pt.was_measured() ? " (error " + io::fixed(100 * pt.error, 1) + "%)" : ""));
  }
  return out;
}

inline svg::chart prediction_chart(const study_result& s, const plot_options& opt) {
  const study_prediction& p = s.prediction;
  svg::chart c;
  c.id = opt.id_prefix + "-plot-prediction";
  c.title = "Predicted speedup" + (s.label.empty() ? std::string() : ": " + s.label);
  c.x_label = "processors P";
  c.y_label = "speedup T1/TP";
  const unsigned pmax = p.points.empty() ? 1u : p.points.back().processors;
  c.x_min = 0;
  c.x_max = x_top(pmax, false);
  c.x_tick_step = x_step(pmax);
  const double t1 = s.t1(), parallelism = scaling::ratio(p.work, p.span);
  svg::series work = make_series("work-law", "work law (upper): speedup ≤ P", "#444444", "6 4", "none");
  svg::series span = make_series("span-law", "span law (upper): ≤ parallelism " + svg::short_number(parallelism),
                                 "#1f5fbf", "6 4", "none");
  svg::series lower = make_series("burdened-lower-bound", "burdened estimate (lower): T1/(T1/P + 1.7·burdened span)",
                                  "#2e7d32", "", "none");
  svg::series greedy = make_series("greedy", "predicted T1/TP, greedy list scheduling", "#6a1b9a", "2 3", "none");
  svg::series measured = make_series("measured", "measured T1/TP (bars: min–max)", color_actual, "", "circle");
  measured.line = false;
  double ymax = 1;
  for (const auto& pt : p.points) {
    const double x = pt.processors;
    lower.xs.push_back(x);
    lower.ys.push_back(scaling::burdened_lower_bound(pt.processors, p.work, p.burdened_span));
    ymax = std::max(ymax, scaling::ratio(t1, pt.time_min));
    if (std::isnan(pt.greedy_time)) continue;  // the OS-thread replay has none
    greedy.xs.push_back(x);
    greedy.ys.push_back(scaling::ratio(t1, pt.greedy_time));
    ymax = std::max(ymax, greedy.ys.back());
  }
  for (const auto& pt : s.points) {
    measured.xs.push_back(pt.processors);
    measured.ys.push_back(pt.self_speedup);
    measured.low.push_back(pt.self_low);
    measured.high.push_back(pt.self_high);
    measured.hollow.push_back(pt.oversubscribed);
    measured.tips.push_back("measured T1/TP at " + pts(pt.processors) + ": " + svg::short_number(pt.self_speedup));
    ymax = finite_max({pt.self_high}, ymax);
  }
  if (std::isfinite(parallelism) && parallelism <= 2.5 * ymax) {
    ymax = std::max(ymax, parallelism);
    span.xs = {1, static_cast<double>(pmax)};
    span.ys = {parallelism, parallelism};
  }
  c.y_min = 0;
  c.y_max = nice_top(std::min(ymax, static_cast<double>(pmax)) * 1.05);
  work.xs = {1, std::min(static_cast<double>(pmax), c.y_max)};  // the work law up to the top of the plot
  work.ys = work.xs;
  for (const svg::series& k : {work, span, lower, greedy, predicted_series(s), measured})
    if (!k.xs.empty() || k.id != "greedy") c.curves.push_back(k);
  c.notes.push_back(
      "The 1-thread run's strand graph replayed on P virtual processors (docs/predict.md); times "
      "scaled by the measured T1.");
  c.notes.push_back("Bounds of the recorded graph: work law P, span law T1/T∞ (parallelism " +
                    svg::short_number(parallelism) + "), Cilkview's burdened estimate.");
  return c;
}

}  // namespace plot

namespace html {

// The prediction's section: the table of predicted and measured times, the plot
// and the assumptions.
inline std::string study_prediction_body(const study_result& s) {
  const study_prediction& p = s.prediction;
  if (p.empty()) return paragraph("No prediction: " + (p.note.empty() ? std::string("not made") : p.note) + ".");
  table t("fs-study-prediction-table", "fs-sortable",
          {"P", "measured TP", "predicted TP", "error", "seeds min", "seeds max", "greedy TP", "T1/TP predicted"});
  for (const auto& pt : p.points) {
    const study_point* m = s.at(pt.processors);
    std::vector<cell> row{
        cell{std::to_string(pt.processors) + (m && m->oversubscribed ? " *" : ""), std::to_string(pt.processors), true},
        pt.was_measured() ? ns_cell(pt.measured) : cell{"-", "", true},
        ns_cell(pt.time),
        pt.was_measured() ? num_cell(100 * pt.error, 1, "%") : cell{"-", "", true},
        ns_cell(pt.time_min),
        ns_cell(pt.time_max),
        ns_cell(pt.greedy_time),
        num_cell(scaling::ratio(s.t1(), pt.time))};
    t.add(std::move(row), pt.was_measured() ? "fs-measured" : "", std::to_string(pt.processors));
  }
  plot_options po;
  po.standalone = false;
  std::string o = t.render();
  o += paragraph("error = (predicted \u2212 measured) / measured at each P the study ran; " +
                 study::scheduler_sentence(p) + "; times scaled by the measured T1 over the replayed T1 (" +
                 output::fixed(p.scale, 3) + ").");
  o += figure(svg::render(plot::prediction_chart(s, po), false),
              "Predicted speedup from the 1-thread record, with the bounds of its graph and the measured T1/TP.");
  o += "<ul class=\"fs-assumptions\">\n";
  for (const auto& a : p.assumptions) o += "<li>" + esc(a) + "</li>\n";
  return o + "</ul>\n";
}

}  // namespace html
}  // namespace detail

FORKSCALE_INLINE std::string prediction_svg(const study_result& s, const plot_options& opt) {
  if (s.prediction.empty()) return std::string();
  return detail::svg::render(detail::plot::prediction_chart(s, opt), opt.standalone);
}

#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
