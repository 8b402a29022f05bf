// plot.hpp: forkscale's plots, drawn without any plotting dependency, as SVG and
// as gnuplot data + script.
//
//  - The factored speedup plot of a study (Acar, Charguéraud, Rainey §2.3–2.5,
//    2.8): linear P, elision P·Ts/Te, maximal P·Ts/T1, idle-time-specific
//    P·Ts/(T1+IP), inflation-specific P·Ts/(P·TP−IP) and actual Ts/TP, with the
//    gaps between them labeled at the largest P:
//      A  linear − maximal          the parallel code's own overhead (T1 > Ts)
//      E  elision − maximal         spawn and scheduling cost at one thread (T1 > Te)
//      B  maximal − idle-specific   idle time
//      C  maximal − inflation-sp.   work inflation
//      D  maximal − actual          idle time and work inflation together
//  - The scalability plot (Cilkview SPAA'10 Fig. 2): the work-law bound P and the
//    span-law bound T1/T∞ (both upper bounds on T1/TP; the span law with the
//    plain span, not the burdened one), Cilkview's burdened estimate
//    T1/(T1/P + 1.7·burdened span) as an estimated lower bound, and — for a
//    study — the measured T1/TP with its min–max spread over the runs.
//
//   fs::write_plots(study, "out/sort");  // out/sort-factored.svg/.dat/.gp,
//                                        // out/sort-scalability.svg/.dat/.gp
//
// Opt-in header: the umbrella forkscale.hpp does not include it.
#pragma once
#include <string>

#include "../config.hpp"
#include "../report.hpp"
#include "study.hpp"

#if FORKSCALE_DETAIL_DEFINES(html)
#include <algorithm>
#include <cmath>
#include <vector>
#include "../detail/output/report_writers.hpp"
#include "../detail/output/svg.hpp"
#include "../detail/util/atomic_file.hpp"
#endif

FORKSCALE_NAMESPACE_BEGIN
struct plot_options {
  bool standalone = true;        // XML declaration and namespace (a .svg file); false to inline in HTML
  std::string id_prefix = "fs";  // element ids start with it (several plots in one page)
};

// ---- gnuplot --------------------------------------------------------------------
struct gnuplot_files {
  std::string data;    // whitespace-separated columns, '#' header
  std::string script;  // reads the data file by the name given
};

// ---- SVG ------------------------------------------------------------------------
FORKSCALE_INLINE std::string factored_speedup_svg(const study_result& s, const plot_options& opt = {});

FORKSCALE_INLINE std::string scalability_svg(const study_result& s, const plot_options& opt = {});

// Bounds only, from one report (Cilkview's profile without benchmark runs), up
// to the report's max_processors.
FORKSCALE_INLINE std::string scalability_svg(const report& r, const plot_options& opt = {});

// `data_file` is the name the script uses for the data (relative to where gnuplot
// runs); the script writes `<output>` as SVG ("gnuplot -e \"out='x.svg'\"" to
// choose another name).
FORKSCALE_INLINE gnuplot_files factored_speedup_gnuplot(const study_result& s, const std::string& data_file,
                                                        const std::string& output = "factored.svg");

FORKSCALE_INLINE gnuplot_files scalability_gnuplot(const study_result& s, const std::string& data_file,
                                                   const std::string& output = "scalability.svg");

FORKSCALE_INLINE gnuplot_files scalability_gnuplot(const report& r, const std::string& data_file,
                                                   const std::string& output = "scalability.svg");

// Writes <stem>-factored.svg/.dat/.gp and <stem>-scalability.svg/.dat/.gp, all
// six or none (detail::write_files_atomically: on failure the old files are left
// as they were). Throws forkscale::error.
FORKSCALE_INLINE void write_plots(const study_result& s, const std::string& stem);

#if FORKSCALE_DETAIL_DEFINES(html)
namespace detail {
namespace plot {

namespace io = output;

inline const char* const color_linear = "#888888";
inline const char* const color_elision = "#7b3fa0";
inline const char* const color_maximal = "#000000";
inline const char* const color_idle = "#1f5fbf";
inline const char* const color_inflation = "#d9822b";
inline const char* const color_actual = "#c62828";

inline double finite_max(std::initializer_list<double> vs, double start) {
  double m = start;
  for (const double v : vs)
    if (std::isfinite(v) && v > m) m = v;
  return m;
}

// Axis end: a nice round value above `v` (at least 1).
inline double nice_top(double v) {
  if (!(v > 1)) return 1;
  const double step = svg::nice_step(v, 5);
  return std::ceil(v * 1.04 / step) * step;
}

// The end of the x axis: room right of the last P for the gap arrows, or a
// small margin.
inline double x_top(unsigned pmax, bool room_for_gaps = true) {
  return pmax + (room_for_gaps ? std::max(0.6, 0.28 * pmax) : std::max(0.3, 0.04 * pmax));
}

inline double x_step(unsigned pmax) {
  if (pmax <= 8) return 1;
  const double s = svg::nice_step(static_cast<double>(pmax), 8);
  return std::max(1.0, std::round(s));
}

// gnuplot's x ticks: at whole numbers of processors, never at 0.5.
inline std::string gp_xtics(unsigned pmax) {
  return "set xtics 0," + std::to_string(static_cast<unsigned>(x_step(pmax))) + "\nset mxtics 1\n";
}

inline std::string oversubscribed_label(unsigned hw) {
  return "P above the " + std::to_string(hw) + " hardware threads";
}

inline svg::series make_series(const std::string& id, const std::string& name, const char* color, const char* dash,
                               const char* marker) {
  svg::series s;
  s.id = id;
  s.name = name;
  s.color = color;
  s.dash = dash;
  s.marker = marker;
  return s;
}

inline std::string pts(unsigned p) { return "P=" + std::to_string(p); }

// The gaps between the factored curves at the largest P, labeled A–E.
inline void add_factored_gaps(svg::chart& c, const study_result& s) {
  if (s.points.empty()) return;
  const study_point& last = s.points.back();
  c.gap_x = last.processors;
  const auto gap = [&](const char* letter, double from, double to, const std::string& what) {
    svg::gap g;
    g.letter = letter;
    g.y_from = from;
    g.y_to = to;
    g.description = svg::short_number(from) + " − " + svg::short_number(to) + " = " + svg::short_number(from - to) +
                    " at " + pts(last.processors) + (last.oversubscribed ? " (oversubscribed)" : "") + ": " + what;
    c.gaps.push_back(g);
  };
  const scaling::factored_speedups& f = last.speedup;
  gap("A", f.linear, f.maximal, "linear − maximal, the parallel code's own overhead (T1 vs Ts)");
  if (s.has_elision()) gap("E", f.elision, f.maximal, "elision − maximal, spawn and scheduling cost (T1 vs Te)");
  gap("B", f.maximal, f.idle_specific, "maximal − idle-time-specific, idle time IP");
  gap("C", f.maximal, f.inflation_specific, "maximal − inflation-specific, work inflation FP");
  gap("D", f.maximal, f.actual, "maximal − actual, idle time and work inflation together");
}

inline svg::chart factored_chart(const study_result& s, const plot_options& opt) {
  svg::chart c;
  c.id = opt.id_prefix + "-plot-factored";
  c.title = "Factored speedups" + (s.label.empty() ? std::string() : ": " + s.label);
  c.x_label = "threads P";
  c.y_label = "speedup over the baseline Ts";
  const unsigned pmax = std::max(1u, s.max_processors());
  c.x_min = 0;
  c.x_max = x_top(pmax);
  c.x_tick_step = x_step(pmax);

  svg::series linear = make_series("linear", "linear: P", color_linear, "6 4", "none");
  svg::series elision = make_series("elision", "elision: P·Ts/Te", color_elision, "2 3", "diamond");
  svg::series maximal = make_series("maximal", "maximal: P·Ts/T1", color_maximal, "", "square");
  svg::series idle = make_series("idle-specific", "idle-time-specific: P·Ts/(T1+IP)", color_idle, "", "triangle");
  svg::series infl =
      make_series("inflation-specific", "inflation-specific: P·Ts/(P·TP−IP)", color_inflation, "", "diamond");
  svg::series actual = make_series("actual", "actual: Ts/TP (bars: min–max)", color_actual, "", "circle");
  linear.width = 1.2;
  double ymax = pmax;
  bool any_over = false;
  for (const auto& pt : s.points) {
    const double x = pt.processors;
    any_over = any_over || pt.oversubscribed;
    const auto add = [&](svg::series& se, double y, const std::string& what) {
      se.xs.push_back(x);
      se.ys.push_back(y);
      se.hollow.push_back(pt.oversubscribed);
      se.tips.push_back(what + " at " + pts(pt.processors) + ": " + svg::short_number(y) +
                        (pt.oversubscribed ? " (more threads than hardware threads)" : ""));
    };
    add(linear, pt.speedup.linear, "linear speedup");
    if (s.has_elision()) add(elision, pt.speedup.elision, "elision speedup");
    add(maximal, pt.speedup.maximal, "maximal speedup");
    add(idle, pt.speedup.idle_specific, "idle-time-specific speedup");
    add(infl, pt.speedup.inflation_specific, "inflation-specific speedup");
    add(actual, pt.speedup.actual, "actual speedup");
    actual.low.push_back(pt.actual_low);
    actual.high.push_back(pt.actual_high);
    ymax = finite_max({pt.speedup.elision, pt.speedup.maximal, pt.speedup.idle_specific, pt.speedup.inflation_specific,
                       pt.speedup.actual, pt.actual_high},
                      ymax);
  }
  c.curves.push_back(linear);
  if (s.has_elision()) c.curves.push_back(elision);
  c.curves.push_back(maximal);
  c.curves.push_back(idle);
  c.curves.push_back(infl);
  c.curves.push_back(actual);
  c.y_min = 0;
  c.y_max = nice_top(ymax);

  add_factored_gaps(c, s);
  if (any_over) {
    c.shade_from_x = s.hardware_threads + 0.5;
    c.shade_label = oversubscribed_label(s.hardware_threads);
    c.notes.push_back("Hollow markers: P above the " + std::to_string(s.hardware_threads) +
                      " hardware threads (oversubscribed; not meaningful).");
  }
  c.notes.push_back("Means of " + std::to_string(s.repetitions) +
                    " runs; speedups are ratios of means. WP from the engine (" +
                    (s.compensated_work ? "compensated work" : "work before compensation") + ").");
  return c;
}

inline svg::chart scalability_chart(const std::string& title_label, const study_bounds& b, unsigned pmax,
                                    const study_result* s, const plot_options& opt) {
  svg::chart c;
  c.id = opt.id_prefix + "-plot-scalability";
  c.title = "Scalability" + (title_label.empty() ? std::string() : ": " + title_label);
  c.x_label = "processors P";
  c.y_label = s ? "speedup T1/TP" : "speedup bound";
  pmax = std::max(1u, pmax);
  c.x_min = 0;
  c.x_max = x_top(pmax, false);
  c.x_tick_step = x_step(pmax);

  // The bounds are functions of P: sampled at every integer P (at most ~200 vertices).
  std::vector<double> xs;
  const unsigned stride = pmax > 200 ? (pmax + 199) / 200 : 1;
  for (unsigned p = 1; p <= pmax; p += stride) xs.push_back(p);
  if (xs.back() != pmax) xs.push_back(pmax);

  svg::series work = make_series("work-law", "work law (upper): speedup ≤ P", "#444444", "6 4", "none");
  svg::series span = make_series("span-law", "span law (upper): ≤ parallelism " + svg::short_number(b.parallelism),
                                 "#1f5fbf", "6 4", "none");
  svg::series lower = make_series("burdened-lower-bound", "burdened estimate (lower): T1/(T1/P + 1.7·burdened span)",
                                  "#2e7d32", "", "none");
  double ymax = pmax;
  for (const double x : xs) {
    work.xs.push_back(x);
    work.ys.push_back(x);
    lower.xs.push_back(x);
    lower.ys.push_back(scaling::burdened_lower_bound(static_cast<unsigned>(x), b.work, b.burdened_span));
  }
  svg::series measured = make_series("measured", "measured T1/TP (bars: min–max)", color_actual, "", "circle");
  measured.line = false;
  bool any_over = false;
  if (s) {
    for (const auto& pt : s->points) {
      any_over = any_over || pt.oversubscribed;
      measured.xs.push_back(pt.processors);
      measured.ys.push_back(pt.self_speedup);
      measured.low.push_back(pt.self_low);
      measured.high.push_back(pt.self_high);
      measured.hollow.push_back(pt.oversubscribed);
      measured.tips.push_back("measured T1/TP at " + pts(pt.processors) + ": " + svg::short_number(pt.self_speedup) +
                              " (runs: " + svg::short_number(pt.self_low) + " – " + svg::short_number(pt.self_high) +
                              ")" + (pt.oversubscribed ? ", more threads than hardware threads" : ""));
      ymax = finite_max({pt.self_speedup, pt.self_high}, ymax);
    }
  }
  // The span-law line is drawn when it is on a sensible scale; far above the
  // measurements it is named in the legend and notes instead.
  const bool span_on_scale = std::isfinite(b.parallelism) && b.parallelism <= 2.5 * ymax;
  if (span_on_scale) {
    ymax = std::max(ymax, b.parallelism);
    span.xs = {1, static_cast<double>(pmax)};
    span.ys = {b.parallelism, b.parallelism};
  }
  c.curves.push_back(work);
  c.curves.push_back(span);
  c.curves.push_back(lower);
  if (s) c.curves.push_back(measured);
  c.y_min = 0;
  c.y_max = nice_top(ymax);

  if (!std::isfinite(b.parallelism))
    c.notes.push_back("Span law: no span was measured, so there is no span bound.");
  else if (!span_on_scale)
    c.notes.push_back("Span law: the parallelism " + svg::short_number(b.parallelism) +
                      " is far above this range; the line is left out.");
  c.notes.push_back("Upper bounds: work law T1/TP ≤ P and span law T1/TP ≤ T1/T∞ (plain span, parallelism " +
                    svg::short_number(b.parallelism) + ").");
  c.notes.push_back("Lower curve: Cilkview's estimate (Corollary 2, span coefficient 0.85) with the burdened span;");
  c.notes.push_back("an estimate for a work-stealing scheduler, not a guarantee. Burdened parallelism " +
                    svg::short_number(b.burdened_parallelism) + ".");
  if (any_over && s) {
    c.shade_from_x = s->hardware_threads + 0.5;
    c.shade_label = oversubscribed_label(s->hardware_threads);
    c.notes.push_back("Hollow markers: P above the " + std::to_string(s->hardware_threads) +
                      " hardware threads (oversubscribed; not meaningful).");
  }
  return c;
}

inline study_bounds bounds_of(const report& r) {
  study_bounds b;
  if (r.empty()) return b;
  const region_result& g = r.root();
  b.work = static_cast<double>(g.work);
  b.span = static_cast<double>(g.span);
  b.burdened_span = static_cast<double>(g.burdened_span);
  b.parallelism = scaling::ratio(b.work, b.span);
  b.burdened_parallelism = scaling::ratio(b.work, b.burdened_span);
  return b;
}

// ---- gnuplot --------------------------------------------------------------------

// A gnuplot single-quoted string: one line, quotes doubled.
inline std::string gp_string(const std::string& s) {
  const std::string v = io::printable(s);
  std::string out = "'";
  for (const char c : v) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

inline std::string gp_number(double v) { return std::isfinite(v) ? io::round_trip(v) : "NaN"; }

}  // namespace plot
}  // namespace detail

FORKSCALE_INLINE std::string factored_speedup_svg(const study_result& s, const plot_options& opt) {
  return detail::svg::render(detail::plot::factored_chart(s, opt), opt.standalone);
}
FORKSCALE_INLINE std::string scalability_svg(const study_result& s, const plot_options& opt) {
  return detail::svg::render(detail::plot::scalability_chart(s.label, s.bounds, s.max_processors(), &s, opt),
                             opt.standalone);
}

FORKSCALE_INLINE std::string scalability_svg(const report& r, const plot_options& opt) {
  return detail::svg::render(
      detail::plot::scalability_chart(r.label, detail::plot::bounds_of(r), r.max_processors, nullptr, opt),
      opt.standalone);
}

FORKSCALE_INLINE gnuplot_files factored_speedup_gnuplot(const study_result& s, const std::string& data_file,
                                                        const std::string& output) {
  namespace gp = detail::plot;
  gnuplot_files f;
  f.data = "# forkscale factored speedups: " + detail::output::printable(s.label) + "\n";
  f.data +=
      "# P linear elision maximal idle_specific inflation_specific actual actual_low actual_high oversubscribed\n";
  for (const auto& pt : s.points) {
    const double cols[] = {pt.speedup.linear,
                           pt.speedup.elision,
                           pt.speedup.maximal,
                           pt.speedup.idle_specific,
                           pt.speedup.inflation_specific,
                           pt.speedup.actual,
                           pt.actual_low,
                           pt.actual_high};
    f.data += std::to_string(pt.processors);
    for (const double v : cols) f.data += " " + gp::gp_number(v);
    f.data += pt.oversubscribed ? " 1\n" : " 0\n";
  }
  const unsigned pmax = std::max(1u, s.max_processors());
  std::string g = "# forkscale factored speedup plot (Acar, Chargueraud, Rainey 2.3)\n";
  g += "if (!exists(\"out\")) out = " + gp::gp_string(output) + "\n";
  g += "set terminal svg size 820,520 dynamic font 'sans,11'\nset output out\n";
  g += "set title " + gp::gp_string("Factored speedups" + (s.label.empty() ? std::string() : ": " + s.label)) +
       " noenhanced\n";
  g += "set xlabel 'threads P'\nset ylabel 'speedup over the baseline Ts'\n";
  g += "set key left top noenhanced\nset grid\n";
  g += "set xrange [0:" + gp::gp_number(gp::x_top(pmax)) + "]\nset yrange [0:*]\n" + gp::gp_xtics(pmax);
  if (!s.points.empty()) {
    const study_point& last = s.points.back();
    const auto arrow = [&](int k, const char* letter, double a, double b) {
      if (!std::isfinite(a) || !std::isfinite(b)) return;
      const double room = gp::x_top(pmax) - last.processors;
      const std::string x = gp::gp_number(last.processors + (k + 1) * room / 6);
      g += "set arrow from " + x + "," + gp::gp_number(a) + " to " + x + "," + gp::gp_number(b) + " heads\n";
      g += "set label '" + std::string(letter) + "' at " + x + "," + gp::gp_number((a + b) / 2) + " offset 0.5,0\n";
    };
    int k = 0;
    arrow(k++, "A", last.speedup.linear, last.speedup.maximal);
    if (s.has_elision()) arrow(k++, "E", last.speedup.elision, last.speedup.maximal);
    arrow(k++, "B", last.speedup.maximal, last.speedup.idle_specific);
    arrow(k++, "C", last.speedup.maximal, last.speedup.inflation_specific);
    arrow(k++, "D", last.speedup.maximal, last.speedup.actual);
  }
  const std::string d = gp::gp_string(data_file);
  g += "plot " + d + " using 1:2 with lines dt 2 lc rgb '#888888' title 'linear: P', \\\n";
  if (s.has_elision()) g += "     '' using 1:3 with linespoints pt 12 lc rgb '#7b3fa0' title 'elision: P*Ts/Te', \\\n";
  g += "     '' using 1:4 with linespoints pt 5 lc rgb '#000000' title 'maximal: P*Ts/T1', \\\n";
  g += "     '' using 1:5 with linespoints pt 9 lc rgb '#1f5fbf' title 'idle-time-specific: P*Ts/(T1+IP)', \\\n";
  g += "     '' using 1:6 with linespoints pt 13 lc rgb '#d9822b' title 'inflation-specific: P*Ts/(P*TP-IP)', \\\n";
  g += "     '' using 1:7 with linespoints pt 7 lc rgb '#c62828' title 'actual: Ts/TP', \\\n";
  g += "     '' using 1:7:8:9 with yerrorbars pt 7 lc rgb '#c62828' notitle\n";
  f.script = g;
  return f;
}

namespace detail {
namespace plot {

inline gnuplot_files scalability_gnuplot(const std::string& label, const study_bounds& b, unsigned pmax,
                                         const study_result* s, const std::string& data_file,
                                         const std::string& output) {
  gnuplot_files f;
  f.data = "# forkscale scalability: " + io::printable(label) + "\n";
  f.data +=
      "# parallelism " + gp_number(b.parallelism) + " burdened_parallelism " + gp_number(b.burdened_parallelism) + "\n";
  f.data += "# P work_law span_law burdened_lower_bound measured measured_low measured_high oversubscribed\n";
  pmax = std::max(1u, pmax);
  for (unsigned p = 1; p <= pmax; ++p) {
    const study_point* pt = s ? s->at(p) : nullptr;
    f.data += std::to_string(p) + " " + gp_number(scaling::work_law(p)) + " " + gp_number(b.parallelism) + " " +
              gp_number(scaling::burdened_lower_bound(p, b.work, b.burdened_span)) + " " +
              gp_number(pt ? pt->self_speedup : scaling::nan()) + " " + gp_number(pt ? pt->self_low : scaling::nan()) +
              " " + gp_number(pt ? pt->self_high : scaling::nan()) + (pt && pt->oversubscribed ? " 1\n" : " 0\n");
  }
  std::string g = "# forkscale scalability plot (Cilkview SPAA'10 Fig. 2)\n";
  g += "if (!exists(\"out\")) out = " + gp_string(output) + "\n";
  g += "set terminal svg size 820,520 dynamic font 'sans,11'\nset output out\n";
  g += "set title " + gp_string("Scalability" + (label.empty() ? std::string() : ": " + label)) + " noenhanced\n";
  g += std::string("set xlabel 'processors P'\nset ylabel '") + (s ? "speedup T1/TP" : "speedup bound") +
       "'\nset key left top noenhanced\nset grid\n";
  g += "set xrange [0:" + gp_number(x_top(pmax, false)) + "]\nset yrange [0:*]\n" + gp_xtics(pmax);
  const std::string d = gp_string(data_file);
  g += "plot " + d + " using 1:2 with lines dt 2 lc rgb '#444444' title 'work law (upper): P', \\\n";
  g += "     '' using 1:3 with lines dt 2 lc rgb '#1f5fbf' title 'span law (upper): parallelism " +
       gp_number(b.parallelism) + "', \\\n";
  g += "     '' using 1:4 with lines lc rgb '#2e7d32' title 'burdened estimate (lower)'";
  if (s) g += ", \\\n     '' using 1:5:6:7 with yerrorbars pt 7 lc rgb '#c62828' title 'measured T1/TP (min-max)'";
  g += "\n";
  f.script = g;
  return f;
}

}  // namespace plot
}  // namespace detail
FORKSCALE_INLINE gnuplot_files scalability_gnuplot(const study_result& s, const std::string& data_file,
                                                   const std::string& output) {
  return detail::plot::scalability_gnuplot(s.label, s.bounds, s.max_processors(), &s, data_file, output);
}
FORKSCALE_INLINE gnuplot_files scalability_gnuplot(const report& r, const std::string& data_file,
                                                   const std::string& output) {
  return detail::plot::scalability_gnuplot(r.label, detail::plot::bounds_of(r), r.max_processors, nullptr, data_file,
                                           output);
}

FORKSCALE_INLINE void write_plots(const study_result& s, const std::string& stem) {
  const auto base = [](const std::string& p) {
    const std::size_t slash = p.find_last_of("/\\");
    return slash == std::string::npos ? p : p.substr(slash + 1);
  };
  const gnuplot_files f =
      factored_speedup_gnuplot(s, base(stem) + "-factored.dat", base(stem) + "-factored-gnuplot.svg");
  const gnuplot_files g =
      scalability_gnuplot(s, base(stem) + "-scalability.dat", base(stem) + "-scalability-gnuplot.svg");
  detail::write_files_atomically({{stem + "-factored.svg", factored_speedup_svg(s)},
                                  {stem + "-scalability.svg", scalability_svg(s)},
                                  {stem + "-factored.dat", f.data},
                                  {stem + "-factored.gp", f.script},
                                  {stem + "-scalability.dat", g.data},
                                  {stem + "-scalability.gp", g.script}});
}

#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
