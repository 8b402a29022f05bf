// study/html_sections.hpp: the bodies of the HTML report's built-in
// sections: a report's summary, speedup estimate, regions, call-site, spawn-site
// and what-if tables and diagnostics; a study's tables; the plots.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../config.hpp"
#include "../detail/output/format.hpp"
#include "../detail/output/html_blocks.hpp"
#include "../detail/output/text.hpp"
#include "../detail/output/what_if_tables.hpp"
#include "../report.hpp"
#include "html_ids.hpp"
#include "plot.hpp"
#include "study.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace html {

// ---- a report's sections -------------------------------------------------------------

inline std::string summary_body(const report& r) {
  const std::string u = r.unit;
  table t("fs-summary-table", "fs-summary", {"measure", "value"});
  if (r.empty()) return paragraph("Nothing was measured.");
  const region_result& g = r.root();
  t.add({text_cell("Work"), int_cell(g.work, u)}, "", "work");
  t.add({text_cell("Span"), int_cell(g.span, u)}, "", "span");
  t.add({text_cell("Burdened span"), int_cell(g.burdened_span, u)}, "", "burdened_span");
  t.add({text_cell("Parallelism"), g.span ? num_cell(g.parallelism()) : cell{"n/a", "", true}}, "", "parallelism");
  t.add(
      {text_cell("Burdened parallelism"), g.burdened_span ? num_cell(g.burdened_parallelism()) : cell{"n/a", "", true}},
      "", "burdened_parallelism");
  t.add({text_cell("Spawns"), int_cell(g.spawns)}, "", "spawns");
  t.add({text_cell("Syncs"), int_cell(g.syncs)}, "", "syncs");
  t.add({text_cell("Calls"), int_cell(g.calls)}, "", "calls");
  t.add({text_cell("Average maximal strand"), num_cell(g.average_maximal_strand(), 0, u)}, "",
        "average_maximal_strand");
  std::string o = t.render();
  std::string meta = "Clock " + std::string(to_string(r.clock)) + ", unit " + r.unit + "; burden " +
                     io::grouped(r.burden) + " " + r.unit + " per continuation edge" +
                     (r.burden_source.empty() ? std::string() : " (" + r.burden_source + ")") +
                     (r.backend.empty() ? std::string() : "; backend " + r.backend);
  if (r.compensation_per_strand > 0)
    meta += "; overhead compensation " + io::fixed(r.compensation_per_strand, 2) + " " + r.unit + " per strand (" +
            io::grouped(r.compensation_total) + " " + r.unit + " in total)";
  if (r.profiler_bytes) meta += "; profiler memory " + io::bytes_text(r.profiler_bytes);
  o += paragraph(meta + ".");
  for (const std::string& n : io::burden_notes(r, u)) o += paragraph(n);
  return o;
}

inline std::string estimate_body(const report& r) {
  if (r.empty()) return paragraph("Nothing was measured.");
  const std::vector<speedup_bound> bounds = r.speedup_estimate();
  if (bounds.empty()) return paragraph("None: max_processors is below 2.");
  if (r.span() == 0) return paragraph("None: the span is zero.");
  table t("fs-speedup-estimate-table", "fs-sortable", {"processors", "lower (burdened estimate)", "upper"});
  for (const auto& b : bounds)
    t.add({int_cell(b.processors), num_cell(b.lower), num_cell(b.upper)}, "", std::to_string(b.processors));
  return t.render() + paragraph(
                          "Upper: min(P, parallelism), the work and span laws. Lower: Cilkview's estimate "
                          "T1/(T1/P + 1.7 \u00b7 burdened span) for a work-stealing scheduler, not a guarantee.");
}

inline std::string regions_body(const report& r) {
  table t("fs-regions-table", "fs-sortable",
          {"path", "depth", "instances", "work", "span", "parallelism", "burdened par.", "spawns", "syncs", "calls"});
  for (const auto& g : r.regions)
    t.add({text_cell(g.path), int_cell(g.depth), int_cell(g.instances), int_cell(g.work), int_cell(g.span),
           g.span ? num_cell(g.parallelism()) : cell{"n/a", "", true},
           g.burdened_span ? num_cell(g.burdened_parallelism()) : cell{"n/a", "", true}, int_cell(g.spawns),
           int_cell(g.syncs), int_cell(g.calls)});
  return t.render() + paragraph("Work and span in " + r.unit + ". Click a column heading to sort.");
}

// Where a site is, for the site cell's title: "file:line in function (tag)".
template <class Site>
std::string site_location(const Site& s) {
  std::string o = s.file.empty() ? std::string("(no file)") : s.file;
  if (s.line) o += ":" + std::to_string(s.line);
  if (!s.function.empty()) o += " in " + s.function;
  if (!s.tag.empty()) o += " (tag " + s.tag + ")";
  return o;
}

// The text box that filters a site table by its site and function columns, and
// the table in a horizontally scrolling box.
inline std::string filterable(const table& t, const std::string& table_id, const std::string& filter_id,
                              const char* what) {
  const std::string status_id = filter_id + "-status";
  std::string o = "<p class=\"fs-filter-bar\"><label for=\"" + esc(filter_id) + "\">Filter " + esc(what) +
                  " by site or function:</label><input type=\"search\" id=\"" + esc(filter_id) +
                  "\" class=\"fs-filter\" data-table=\"" + esc(table_id) + "\" data-status=\"" + esc(status_id) +
                  "\" autocomplete=\"off\" disabled=\"disabled\"/><span id=\"" + esc(status_id) +
                  "\" class=\"fs-note\" aria-live=\"polite\">" + esc(std::to_string(t.size()) + " " + what) +
                  "</span></p>\n";
  return o + "<div class=\"fs-scroll\">\n" + t.render() + "</div>\n";
}

// A column of a site table: the heading, its data-key (the CSV column of
// docs/report-schema.md where there is one) and its full name (title).
struct column {
  const char* head;
  const char* key;
  const char* title;
};

inline table site_table(const char* id, const std::vector<column>& columns) {
  std::vector<std::string> head, keys, titles;
  for (const column& c : columns) {
    head.push_back(c.head);
    keys.push_back(c.key);
    titles.push_back(c.title);
  }
  table t(id, "fs-sortable fs-filterable", head);
  t.head_details(keys, titles);
  t.attribute("data-filter-columns", "0 1");  // site, function
  return t;
}

inline cell finite_cell(double v, int decimals, const std::string& unit = std::string()) {
  return std::isfinite(v) ? num_cell(v, decimals, unit) : cell{"n/a", "", true};
}

// The sites in the order their table is first shown: by key(site), largest
// first (ties in the report's order).
template <class Site, class Key>
std::vector<const Site*> largest_first(const std::vector<Site>& sites, Key key) {
  std::vector<const Site*> rows;
  for (const auto& s : sites) rows.push_back(&s);
  std::stable_sort(rows.begin(), rows.end(), [&key](const Site* a, const Site* b) { return key(*a) > key(*b); });
  return rows;
}

// The site cell (its name, with where it is as the title) and the row's class
// (the root row is in italics).
template <class Site>
cell site_cell(const Site& s) {
  cell c = text_cell(s.name);
  c.title = site_location(s);
  return c;
}
template <class Site>
const char* site_row_class(const Site& s) {
  return s.kind == site_kind::root ? "fs-root" : "";
}

// A site table under its filter, and the note under it ("Work and span in
// UNIT" and `note`).
inline std::string site_section(const table& t, const char* table_id, const char* filter_id, const char* what,
                                const std::string& unit, const char* note) {
  return filterable(t, table_id, filter_id, what) + paragraph("Work and span in " + unit + note);
}

// Cilkprof's call-site profile (docs/model.md, "Per-site profiles"), one row per
// site (the root row included), first sorted by local span on span, largest
// first (ties in the report's order).
inline std::string call_sites_body(const report& r) {
  const char* const id = "fs-call-sites-table";
  table t = site_table(
      id, {{"site", "name", "the tag, or file:line"},
           {"function", "function", "the function the site is in"},
           {"kind", "kind", "root, call or spawn"},
           {"rec.", "recursive", "recursive: some invocation ran inside another invocation of the same site"},
           {"local span", "local_on_span_span", "local span on span"},
           {"% of span", "local_on_span_span_percent", "local span on span as a percentage of the span"},
           {"local work", "local_on_span_work", "local work on span"},
           {"top-call-site work", "top_call_site_on_work_work", "top-call-site work on work"},
           {"top-call-site span", "top_call_site_on_work_span", "top-call-site span on work"},
           {"top-call-site par.", "top_call_site_on_work_parallelism", "top-call-site parallelism on work"},
           {"top-caller work", "top_caller_on_work_work", "top-caller work on work"},
           {"top-caller span", "top_caller_on_work_span", "top-caller span on work"},
           {"local work", "local_on_work_work", "local work on work"},
           {"local span", "local_on_work_span", "local span on work"},
           {"count", "local_on_work_count", "invocations of the site"}});
  t.group_head({{"", 4}, {"on span", 3}, {"on work", 8}});
  t.sorted_by(4, true);
  const double span = static_cast<double>(r.span());
  for (const call_site_profile* s :
       largest_first(r.call_sites, [](const call_site_profile& c) { return c.local_on_span.span; })) {
    const site_measure& tcs = s->top_call_site_on_work;
    t.add({site_cell(*s), text_cell(s->function), text_cell(to_string(s->kind)), text_cell(s->recursive ? "yes" : ""),
           signed_cell(s->local_on_span.span), percent_cell(static_cast<double>(s->local_on_span.span), span),
           int_cell(s->local_on_span.work), int_cell(tcs.work), signed_cell(tcs.span),
           tcs.span > 0 ? num_cell(tcs.parallelism()) : cell{"n/a", "", true}, int_cell(s->top_caller_on_work.work),
           signed_cell(s->top_caller_on_work.span), int_cell(s->local_on_work.work), signed_cell(s->local_on_work.span),
           int_cell(s->local_on_work.count)},
          site_row_class(*s));
  }
  return site_section(t, id, html_section_ids::call_sites_filter, "call sites", r.unit,
                      ". Every call_site guard and every spawned task is an invocation of its site; the root row "
                      "(in italics) is the measurement itself. On span: the invocations that end on the critical "
                      "path; on work: all of them. Local: the invocation's own strands, without the invocations it "
                      "makes. Top-call-site: invocations with no enclosing invocation of the same site; top-caller: "
                      "with none of a site in the same function. Count: all invocations. Local span on span summed "
                      "over all rows is the span, local work on work the work. Click a column heading to sort.");
}

// TaskProf's spawn-site profile, first sorted by critical span, largest first.
inline std::string spawn_sites_body(const report& r) {
  const char* const id = "fs-spawn-sites-table";
  table t = site_table(id, {{"site", "name", "the tag, or file:line of the spawn point"},
                            {"function", "function", "the function the spawn point is in"},
                            {"tasks", "tasks", "tasks spawned here"},
                            {"work", "work", "work of the top-call-site tasks"},
                            {"span", "span", "span of the top-call-site tasks"},
                            {"parallelism", "parallelism", "work / span"},
                            {"exclusive work", "exclusive_work", "the tasks' own strands"},
                            {"critical span", "critical_span", "the tasks' own strands on the critical path"},
                            {"critical %", "critical_percent", "critical span as a percentage of the span"}});
  t.sorted_by(7, true);
  for (const spawn_site_profile* s :
       largest_first(r.spawn_sites, [](const spawn_site_profile& p) { return p.critical_span; })) {
    t.add({site_cell(*s), text_cell(s->function), int_cell(s->tasks), int_cell(s->work), int_cell(s->span),
           s->span ? num_cell(s->parallelism()) : cell{"n/a", "", true}, int_cell(s->exclusive_work),
           signed_cell(s->critical_span), finite_cell(s->critical_percent, 1, "%")},
          site_row_class(*s));
  }
  return site_section(t, id, html_section_ids::spawn_sites_filter, "spawn sites", r.unit,
                      ". Work, span and parallelism of the tasks spawned at the site (a task inside another task of "
                      "the same site is not counted twice); exclusive work: the tasks' own strands, without their "
                      "child tasks; critical span: the tasks' own strands on the critical path, also as a share of "
                      "the span. The root row (in italics) is the measured program's own task. Click a column "
                      "heading to sort.");
}

// A predicted parallelism or gain: "inf" when infinite, sorted above every
// number (its sort value is the largest double, written exactly, so that the
// sort script compares two of them as equal).
inline const char* infinity_sort_value() noexcept { return "1.7976931348623157e+308"; }
inline cell unbounded_cell(double v, const std::string& suffix = std::string()) {
  if (std::isinf(v) && v > 0) return cell{"inf", infinity_sort_value(), true};
  if (!std::isfinite(v)) return cell{"n/a", "", true};
  return cell{io::fixed(v, 2) + suffix, io::round_trip(v), true};
}

// The what-if predictions (docs/model.md, "What-if regions"): one row per
// region and factor with both models, in the report's order (the all-regions
// rows first); one row for a named call site that never ran.
inline std::string what_if_body(const report& r) {
  const char* const id = "fs-what-if-table";
  table t = site_table(
      id, {{"region", "region", "the region's tag or file:line, the named call site, or (all regions)"},
           {"function", "function", "the function the region is in"},
           {"source", "source",
            "all (every region together), region (a what_if_region guard) or call_site "
            "(a call site named at run time)"},
           {"k", "factor", "how many times faster the region's strands are assumed to be"},
           {"entries", "entries", "outermost entries of the region"},
           {"region work", "region_work", "work of the strands inside the region, as measured"},
           {"span", "span", "predicted span (both models)"},
           {"parallelism", "parallelized_parallelism", "predicted parallelism, parallelized model (work unchanged)"},
           {"par. / now", "parallelized_gain",
            "parallelized parallelism / measured parallelism (a ratio of parallelism, not of time)"},
           {"work", "optimized_work", "predicted work, optimized model (the region's work divides by k)"},
           {"parallelism", "optimized_parallelism", "predicted parallelism, optimized model"},
           {"par. / now", "optimized_gain",
            "optimized parallelism / measured parallelism (a ratio of parallelism, not of time)"}});
  t.group_head({{"", 7}, {"parallelized", 2}, {"optimized", 3}});
  const bool measured = r.span() > 0;
  const auto gain = [measured](const what_if_result* w) {
    if (!w) return cell{"", "", true};
    return measured ? unbounded_cell(w->gain, "x") : cell{"n/a", "", true};
  };
  const auto blank = [] { return cell{"", "", true}; };
  std::size_t never = 0;
  for (const io::what_if_block& b : io::what_if_blocks(r.what_if)) {
    const what_if_result& f = *b.first;
    cell region = text_cell(f.region);
    if (!f.file.empty() || !f.tag.empty()) region.title = site_location(f);
    const std::string key = std::string(to_string(f.source)) + ":" + f.region;
    if (!b.executed) {
      ++never;
      t.add({region, text_cell(f.function), text_cell(to_string(f.source)), blank(), int_cell(0), blank(),
             cell{"never executed", "", true}, blank(), blank(), blank(), blank(), blank()},
            "fs-never", key);
      continue;
    }
    for (const io::what_if_line& l : b.lines) {
      const what_if_result& a = l.any();
      const cell k{io::factor_text(l.factor),
                   std::isinf(l.factor) ? std::string(infinity_sort_value()) : io::round_trip(l.factor), true};
      t.add(
          {region, text_cell(f.function), text_cell(to_string(f.source)), k, int_cell(a.entries),
           int_cell(a.region_work), cell{io::grouped_round(a.span), io::round_trip(a.span), true},
           l.parallelized ? unbounded_cell(l.parallelized->parallelism) : blank(), gain(l.parallelized),
           l.optimized ? cell{io::grouped_round(l.optimized->work), io::round_trip(l.optimized->work), true} : blank(),
           l.optimized ? unbounded_cell(l.optimized->parallelism) : blank(), gain(l.optimized)},
          f.source == what_if_source::all ? "fs-root" : "", key + "@" + io::factor_text(l.factor));
    }
  }
  std::string note = "Times in " + r.unit + "; measured: span " + io::grouped(r.span()) + ", parallelism " +
                     io::ratio_text(r.span(), r.parallelism()) +
                     ". Predicted span and parallelism of the whole program if the strands of a region were k "
                     "times faster. Parallelized: the region's contribution to every path divides by k and the "
                     "work stays; optimized: its work divides too. Par. / now: predicted / measured parallelism, "
                     "a ratio of parallelism and not of time (an optimized region shortens the work too, so it "
                     "can fall below 1 while both times drop); inf: the predicted span is 0. The first rows (in "
                     "italics) take every region together.";
  if (never) note += " Never executed: a named call site that did not run.";
  return filterable(t, id, html_section_ids::what_if_filter, "what-if rows") +
         paragraph(note + " Click a column heading to sort.");
}

inline std::string diagnostics_body(const report& r) {
  const std::uint64_t count = std::max<std::uint64_t>(r.diagnostic_count, r.diagnostics.size());
  if (count == 0) return paragraph("None: no misuse of the guards was found.");
  std::string o =
      paragraph(io::grouped(count) + " misuse diagnostic(s)" +
                (count > r.diagnostics.size() ? "; the first " + std::to_string(r.diagnostics.size()) + " are listed"
                                              : std::string()) +
                ". The numbers may not be trustworthy.");
  o += "<ul class=\"fs-diagnostics\">\n";
  for (const auto& d : r.diagnostics) o += "<li><code>" + esc(d.where) + "</code>: " + esc(d.problem) + "</li>\n";
  return o + "</ul>\n";
}

// Cilkview's scalability bounds from one run.
inline std::string report_plots_body(const report& r) {
  plot_options po;
  po.standalone = false;
  return figure(scalability_svg(r, po),
                "Cilkview's scalability bounds from this run: work law, span law and the burdened estimate.");
}

// ---- a scaling study's sections ------------------------------------------------------

// A row of a study table keyed by a thread or copy count: the count first (with
// " *" when there were more threads than hardware threads), the row marked so.
inline void add_count_row(table& t, unsigned count, bool oversubscribed, std::vector<cell> rest) {
  rest.insert(rest.begin(), cell{std::to_string(count) + (oversubscribed ? " *" : ""), std::to_string(count), true});
  t.add(std::move(rest), oversubscribed ? "fs-oversubscribed" : "", std::to_string(count));
}

inline std::string study_summary_body(const study_result& s) {
  table t("fs-study-summary-table", "", {"time", "mean", "median", "min", "max", "stddev", "runs"});
  const auto row = [&](const char* name, const char* key, const sample_stats& st) {
    t.add({text_cell(name), ns_cell(st.mean), ns_cell(st.median), ns_cell(st.min), ns_cell(st.max), ns_cell(st.stddev),
           int_cell(st.count())},
          "", key);
  };
  row("Ts: sequential baseline", "ts", s.baseline);
  if (s.has_elision()) row("Te: serial elision", "te", s.elision);
  if (!s.points.empty()) row("T1: parallel program on 1 thread", "t1", s.points.front().time);
  const std::string threads = s.hardware_threads ? std::to_string(s.hardware_threads) + " hardware threads"
                                                 : std::string("hardware threads unknown");
  return t.render() +
         paragraph("Clock " + std::string(to_string(s.clock)) + "; " + std::to_string(s.repetitions) +
                   " timed runs of each kind after " + std::to_string(s.warmup) + " warm-up run(s), round robin; " +
                   threads + ". WP is the engine's work " + (s.compensated_work ? "after" : "before") +
                   " overhead compensation, summed over all threads. Speedups are ratios of means (Acar et al. "
                   "\u00a72.7).");
}

inline std::string warnings_body(const study_result& s) {
  if (s.warnings.empty()) return paragraph("None.");
  std::string o = "<ul class=\"fs-warnings\">\n";
  for (const auto& w : s.warnings) o += "<li>" + esc(w) + "</li>\n";
  return o + "</ul>\n";
}

// Per thread count: the times, work, idle time and inflation.
inline std::string study_runs_body(const study_result& s) {
  table t("fs-study-runs-table", "fs-sortable",
          {"P", "TP mean", "TP median", "TP min", "TP max", "WP", "IP", "FP", "IP / (P\u00b7TP)", "T1/TP", "spawns"});
  for (const auto& pt : s.points) {
    const double budget = pt.processors * pt.time.mean;
    add_count_row(t, pt.processors, pt.oversubscribed,
                  {ns_cell(pt.time.mean), ns_cell(pt.time.median), ns_cell(pt.time.min), ns_cell(pt.time.max),
                   ns_cell(pt.parallel_work), ns_cell(pt.idle_time), ns_cell(pt.work_inflation),
                   std::isnan(pt.idle_time) || !(budget > 0) ? cell{"n/a", "", true}
                                                             : num_cell(100 * pt.idle_time / budget, 1, "%"),
                   num_cell(pt.self_speedup), num_cell(pt.spawns.mean, 0)});
  }
  return t.render() +
         paragraph("IP = P\u00b7TP \u2212 WP (idle time), FP = WP \u2212 T1 (work inflation), from the means. " +
                   std::string("* more threads than the ") + std::to_string(s.hardware_threads) +
                   " hardware threads: not meaningful.");
}

// The factored speedups (Acar et al. §2) per thread count.
inline std::string study_speedups_body(const study_result& s) {
  std::vector<std::string> head{"P", "linear"};
  if (s.has_elision()) head.push_back("elision");
  for (const char* h : {"maximal", "idle-time-specific", "inflation-specific", "actual", "actual min", "actual max"})
    head.push_back(h);
  table t("fs-study-speedups-table", "fs-sortable", head);
  for (const auto& pt : s.points) {
    std::vector<cell> row{num_cell(pt.speedup.linear)};
    if (s.has_elision()) row.push_back(num_cell(pt.speedup.elision));
    for (const double v : {pt.speedup.maximal, pt.speedup.idle_specific, pt.speedup.inflation_specific,
                           pt.speedup.actual, pt.actual_low, pt.actual_high})
      row.push_back(num_cell(v));
    add_count_row(t, pt.processors, pt.oversubscribed, std::move(row));
  }
  return t.render() + paragraph(std::string("linear P; ") + (s.has_elision() ? "elision P\u00b7Ts/Te; " : "") +
                                "maximal P\u00b7Ts/T1; idle-time-specific P\u00b7Ts/(T1+IP); inflation-specific "
                                "P\u00b7Ts/(P\u00b7TP\u2212IP); actual Ts/TP (min and max over the runs).");
}

// Cilkview's memory-bandwidth probe: P copies of the baseline at once.
inline std::string bandwidth_probe_body(const study_result& s) {
  if (s.bandwidth.empty()) return paragraph("Not run: the workload has no baseline_copy, or no P above 1 was studied.");
  table t("fs-bandwidth-probe-table", "fs-sortable", {"copies", "time of one copy", "alone", "slowdown"});
  for (const auto& b : s.bandwidth)
    add_count_row(t, b.copies, b.oversubscribed,
                  {ns_cell(b.together.mean), ns_cell(s.probe_alone.mean), num_cell(b.slowdown, 2, "x")});
  return t.render() + paragraph(
                          "Cilkview \u00a75: P copies of the serial baseline run at once, each on its own "
                          "thread, against one copy alone (mean time of one copy). A slowdown well above 1 "
                          "suggests that memory bandwidth limits scaling.");
}

// The factored speedup plot and the scalability plot of a study.
inline std::string study_plots_body(const study_result& s) {
  plot_options po;
  po.standalone = false;
  std::string o = figure(factored_speedup_svg(s, po),
                         "Factored speedup plot (Acar, Charguéraud, Rainey \u00a72.3): the gaps A\u2013E "
                         "are explained under the plot.");
  o += figure(scalability_svg(s, po),
              "Scalability (Cilkview Fig. 2): work-law and span-law upper bounds, the burdened estimated "
              "lower bound, and the measured T1/TP.");
  return o;
}

}  // namespace html
}  // namespace detail
FORKSCALE_NAMESPACE_END
