// detail/output/html_blame.hpp: the HTML report's sections for a recorded run
// and for locks: parallelism over time (running and ready strands, a step plot,
// and each thread's busy / profiler / idle time as bars), idle blame (the sites
// blamed for idle time and the sync points threads waited at) and the lock
// profile. Inline SVG only, every text escaped (study/html.hpp).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../../timeline.hpp"
#include "format.hpp"
#include "html_blocks.hpp"
#include "svg.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace html {

// A time axis unit for `wall` ns: its name and ns per unit.
struct time_scale {
  const char* name;
  double ns;
};
inline time_scale scale_for(std::uint64_t wall) {
  if (wall >= 10000000000ull) return {"s", 1e9};
  if (wall >= 10000000ull) return {"ms", 1e6};
  if (wall >= 10000ull) return {"\u00b5s", 1e3};
  return {"ns", 1.0};
}

// The samples as steps; more than `most` changes are averaged over `most` / 2
// equal bins (time-weighted), so that the page stays small.
inline void step_series(const timeline_analysis& a, svg::series& running, svg::series& ready, double unit,
                        std::size_t most, std::string& note) {
  const auto add = [&](double t, double run, double rdy) {
    if (!running.xs.empty()) {  // the step: the previous values up to t
      running.xs.push_back(t);
      running.ys.push_back(running.ys.back());
      ready.xs.push_back(t);
      ready.ys.push_back(ready.ys.back());
    }
    running.xs.push_back(t);
    running.ys.push_back(run);
    ready.xs.push_back(t);
    ready.ys.push_back(rdy);
  };
  if (a.samples.size() <= most || a.wall_ns == 0) {
    for (const parallelism_sample& s : a.samples) add(static_cast<double>(s.time_ns) / unit, s.running, s.ready);
  } else {
    const std::size_t bins = most / 2;
    const double width = static_cast<double>(a.wall_ns) / static_cast<double>(bins);
    std::vector<double> run(bins, 0), rdy(bins, 0);
    for (std::size_t i = 0; i < a.samples.size(); ++i) {
      const double t0 = static_cast<double>(a.samples[i].time_ns);
      const double t1 = static_cast<double>(i + 1 < a.samples.size() ? a.samples[i + 1].time_ns : a.wall_ns);
      const std::size_t b0 = std::min(bins - 1, static_cast<std::size_t>(t0 / width));
      const std::size_t b1 = std::min(bins - 1, static_cast<std::size_t>(t1 / width));
      for (std::size_t b = b0; b <= b1; ++b) {
        const double lo = std::max(t0, static_cast<double>(b) * width);
        const double hi = b + 1 == bins ? t1 : std::min(t1, static_cast<double>(b + 1) * width);
        if (hi <= lo) continue;
        run[b] += a.samples[i].running * (hi - lo) / width;
        rdy[b] += a.samples[i].ready * (hi - lo) / width;
      }
    }
    for (std::size_t b = 0; b < bins; ++b) add(static_cast<double>(b) * width / unit, run[b], rdy[b]);
    note = "More than " + std::to_string(most) + " changes: averaged over " + std::to_string(bins) +
           " equal stretches of time (the CSV has every change).";
  }
  if (!running.xs.empty()) add(static_cast<double>(a.wall_ns) / unit, running.ys.back(), ready.ys.back());
}

inline std::string parallelism_plot(const timeline_analysis& a) {
  const time_scale sc = scale_for(a.wall_ns);
  svg::chart c;
  c.id = "fs-plot-parallelism";
  c.title = "Strands running and ready over time";
  c.x_label = std::string("wall time since the start (") + sc.name + ")";
  c.y_label = "strands";
  c.x_max = a.wall_ns ? static_cast<double>(a.wall_ns) / sc.ns : 1.0;
  svg::series running, ready, threads;
  running.id = "running";
  running.name = "running";
  running.color = "#1f5fbf";
  running.marker = "none";
  ready.id = "ready";
  ready.name = "ready, not started";
  ready.color = "#d9822b";
  ready.dash = "5,3";
  ready.marker = "none";
  threads.id = "threads";
  threads.name = "P = " + std::to_string(a.processors) + " threads";
  threads.color = "#888888";
  threads.dash = "2,3";
  threads.marker = "none";
  threads.width = 1.2;
  threads.xs = {0.0, c.x_max};
  threads.ys = {static_cast<double>(a.processors), static_cast<double>(a.processors)};
  std::string note;
  step_series(a, running, ready, sc.ns, 2000, note);
  double top = a.processors;
  for (double v : running.ys) top = std::max(top, v);
  for (double v : ready.ys) top = std::max(top, v);
  c.y_max = std::max(1.0, std::ceil(top * 1.1));
  c.curves = {threads, ready, running};
  c.notes.push_back("Average: " + io::fixed(a.average_running(), 2) + " running, " + io::fixed(a.average_ready(), 2) +
                    " ready (predecessors done, not started) over " + io::grouped(a.wall_ns) + " ns.");
  if (!note.empty()) c.notes.push_back(note);
  return svg::render(c, false);
}

// Each thread's wall time as one bar: busy, in the profiler, idle.
inline std::string thread_bars(const timeline_analysis& a) {
  const double left = 190, bar = 520, row = 24, top = 44;
  const double height = top + row * static_cast<double>(a.threads.size()) + 16;
  std::string o = "<svg id=\"fs-plot-thread-times\" class=\"fs-plot\" width=\"820\" height=\"" + svg::px(height) +
                  "\" viewBox=\"0 0 820 " + svg::px(height) +
                  "\" role=\"img\" aria-labelledby=\"fs-plot-thread-times-title\" font-family=\"sans-serif\" "
                  "font-size=\"12\">\n<title id=\"fs-plot-thread-times-title\">Each thread's wall time: busy, in "
                  "the profiler, idle</title>\n<rect x=\"0\" y=\"0\" width=\"820\" height=\"" +
                  svg::px(height) + "\" fill=\"#ffffff\"/>\n";
  struct part {
    const char* id;
    const char* name;
    const char* color;
  };
  const part parts[] = {{"busy", "busy", "#1f5fbf"}, {"profiler", "profiler", "#d9822b"}, {"idle", "idle", "#cccccc"}};
  double lx = left;
  for (const part& p : parts) {
    o += "<rect x=\"" + svg::px(lx) + "\" y=\"14\" width=\"12\" height=\"12\" fill=\"" + p.color + "\"/><text x=\"" +
         svg::px(lx + 16) + "\" y=\"24\">" + p.name + "</text>\n";
    lx += 100;
  }
  double y = top;
  for (const thread_time& t : a.threads) {
    const double wall = static_cast<double>(std::max<std::uint64_t>(t.wall_ns(), 1));
    o += "<text x=\"8\" y=\"" + svg::px(y + 15) + "\">" +
         svg::escape("thread " + std::to_string(t.thread) + " (tid " + std::to_string(t.os_id) + ")") + "</text>\n";
    double x = left;
    const std::uint64_t values[] = {t.busy_ns, t.profiler_ns, t.idle_ns};
    for (std::size_t k = 0; k < 3; ++k) {
      const double w = bar * static_cast<double>(values[k]) / wall;
      o += "<rect class=\"bar\" data-thread=\"" + std::to_string(t.thread) + "\" data-part=\"" + parts[k].id +
           "\" data-ns=\"" + std::to_string(values[k]) + "\" x=\"" + svg::px(x) + "\" y=\"" + svg::px(y + 3) +
           "\" width=\"" + svg::px(w) + "\" height=\"" + svg::px(row - 6) + "\" fill=\"" + parts[k].color +
           "\"><title>" +
           svg::escape(std::string(parts[k].name) + ": " + io::grouped(values[k]) + " ns (" +
                       io::percent_text(100.0 * static_cast<double>(values[k]) / wall) + "%)") +
           "</title></rect>\n";
      x += w;
    }
    o += "<text x=\"" + svg::px(left + bar + 8) + "\" y=\"" + svg::px(y + 15) + "\">" +
         svg::escape(io::percent_text(t.busy_percent()) + "% busy") + "</text>\n";
    y += row;
  }
  return o + "</svg>\n";
}

inline std::string parallelism_body(const report& r) {
  const timeline_analysis a = analyze_timeline(r);
  if (!a.recorded || a.processors == 0) return paragraph("No recorded strands.");
  std::string o = figure(parallelism_plot(a),
                         "Strands running, and strands ready (all predecessors done) but not started, at each "
                         "moment of the run.");
  o += figure(thread_bars(a),
              "Per thread: busy = in strands of the measurement, less the profiler's overhead compensation; "
              "idle = the rest of the wall time. P = " +
                  std::to_string(a.processors) + " threads ran strands (a worker that never got a task is not seen).");
  table t("fs-thread-times-table", "fs-sortable",
          {"thread", "tid", "strands", "busy", "busy %", "profiler", "idle", "idle %"});
  for (const thread_time& h : a.threads)
    t.add({int_cell(h.thread), int_cell(h.os_id), int_cell(h.strands), ns_cell(static_cast<double>(h.busy_ns)),
           num_cell(h.busy_percent(), 1, "%"), ns_cell(static_cast<double>(h.profiler_ns)),
           ns_cell(static_cast<double>(h.idle_ns)), num_cell(h.idle_percent(), 1, "%")},
          "", std::to_string(h.thread));
  o += t.render();
  if (!a.complete) o += paragraph("The record is partial (options.record_limit): so are these views.");
  return o;
}

inline cell blame_site_cell(const idle_blame_row& b) {
  cell c = text_cell(b.name);
  if (b.kind == idle_blame_row::kind_type::site) {
    c.title = b.file.empty() ? std::string("(no file)") : b.file;
    if (b.line) c.title += ":" + std::to_string(b.line);
    if (!b.function.empty()) c.title += " in " + b.function;
    if (!b.tag.empty()) c.title += " (tag " + b.tag + ")";
  }
  return c;
}

inline std::string idle_blame_body(const report& r) {
  const timeline_analysis a = analyze_timeline(r);
  if (!a.recorded || a.processors == 0) return paragraph("No recorded strands.");
  const double idle = static_cast<double>(a.idle_ns());
  table blamed("fs-idle-blame-table", "fs-sortable", {"site", "function", "idle blame", "% of idle", "strands"});
  blamed.sorted_by(2, true);
  table waited("fs-sync-wait-table", "fs-sortable", {"sync point", "function", "wait", "% of idle", "waits"});
  std::vector<const idle_blame_row*> waits;
  for (const idle_blame_row& b : a.blame) {
    if (b.idle_ns > 0)
      blamed.add({blame_site_cell(b), text_cell(b.function), ns_cell(static_cast<double>(b.idle_ns)),
                  percent_cell(static_cast<double>(b.idle_ns), idle), int_cell(b.strands)},
                 b.kind == idle_blame_row::kind_type::site ? "" : "fs-root");
    if (b.sync_wait_ns > 0) waits.push_back(&b);
  }
  std::stable_sort(waits.begin(), waits.end(),
                   [](const idle_blame_row* x, const idle_blame_row* y) { return x->sync_wait_ns > y->sync_wait_ns; });
  waited.sorted_by(2, true);
  for (const idle_blame_row* b : waits)
    waited.add({blame_site_cell(*b), text_cell(b->function), ns_cell(static_cast<double>(b->sync_wait_ns)),
                percent_cell(static_cast<double>(b->sync_wait_ns), idle), int_cell(b->syncs)});
  std::string o =
      paragraph("Total idle " + io::grouped(a.idle_ns()) + " ns over " + std::to_string(a.processors) +
                " threads. HPCToolkit's blame shifting: while k of the P threads run strands, the other "
                "threads' idle time is charged to the k running strands equally, and so to their sites "
                "(a strand's innermost call or spawn site; (root): the measured function's own code) \u2014 "
                "the serial stretches that left the others nothing to do; (nothing running): no thread "
                "ran a strand. The column adds up to the total idle time.");
  o += "<div class=\"fs-scroll\">\n" + blamed.render() + "</div>\n";
  o += paragraph(
      "Where threads waited: the time a thread waited at a sync point for its children, less the time it ran "
      "other strands meanwhile (a part of the idle time above).");
  o += "<div class=\"fs-scroll\">\n" + waited.render() + "</div>\n";
  return o;
}

inline std::string locks_body(const report& r) {
  table t("fs-locks-table", "fs-sortable",
          {"lock", "site", "function", "acquisitions", "contended", "wait", "max wait", "hold", "max hold",
           "caused wait", "critical holds", "critical hold"});
  t.sorted_by(5, true);
  std::string callouts;
  for (const lock_site_profile& l : r.locks) {
    cell where = text_cell(l.name);
    where.title = (l.file.empty() ? std::string("(no file)") : l.file) + (l.line ? ":" + std::to_string(l.line) : "") +
                  (l.function.empty() ? "" : " in " + l.function);
    const bool on_path = l.critical_holds > 0;
    t.add({text_cell(l.lock), where, text_cell(l.function), int_cell(l.acquisitions), int_cell(l.contended),
           ns_cell(static_cast<double>(l.wait_ns)), ns_cell(static_cast<double>(l.max_wait_ns)),
           ns_cell(static_cast<double>(l.hold_ns)), ns_cell(static_cast<double>(l.max_hold_ns)),
           ns_cell(static_cast<double>(l.blamed_wait_ns)), int_cell(l.critical_holds),
           ns_cell(static_cast<double>(l.critical_hold_ns))},
          on_path ? "fs-critical" : "");
    if (on_path)
      callouts += "<li>" + esc(l.lock + " at " + l.name) + ": held " + esc(io::grouped(l.critical_holds)) +
                  " time(s) in strands on the critical path, " + esc(io::grouped(l.critical_hold_ns)) +
                  " ns of hold there: a shorter critical section shortens the span.</li>\n";
  }
  std::string o = "<div class=\"fs-scroll\">\n" + t.render() + "</div>\n";
  if (!callouts.empty()) o += "<ul class=\"fs-lock-callouts\">\n" + callouts + "</ul>\n";
  o += paragraph(
      "Wall-clock ns. Acquisitions by threads running tasks of the measurement, by total wait. Caused wait: the "
      "waits of others that began while this site held the lock (directed blame shifting: the holder is the "
      "cause). Critical: holds inside strands on the critical path (from the record: 0 without options.record).");
  return o;
}

}  // namespace html
}  // namespace detail
FORKSCALE_NAMESPACE_END
