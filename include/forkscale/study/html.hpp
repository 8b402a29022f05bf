// html.hpp: one self-contained HTML file for a report or a scaling study.
//
//   fs::write_html(rep, "fib.html");                 // a report
//   fs::write_html(study, "sort.html");              // a study (with its profile)
//   fs::html_report page("sort");                    // or build a page section by section
//   page.add_study(study).add_section("my-notes", "Notes", fs::html_escape(text), 850);
//
// The page needs nothing outside itself: no network, no external scripts,
// styles, fonts or images. Plots are inline SVG; the one script (sorting tables
// by a click on a column heading, filtering the site tables by a text box) and
// the one style sheet are inline, and a
// Content-Security-Policy allows exactly those two (by their SHA-256) and
// nothing else, so even markup that slipped through could neither run script
// nor load anything. Every user-supplied string (labels, paths, diagnostics,
// warnings) is escaped: "<img src=x onerror=alert(1)>" shows as that text.
//
// For tests and tools: every section is <section id="fs-..." class="fs-section">
// with a stable id (html_section_ids, in html_ids.hpp), tables have class "fs-table" (and
// "fs-sortable" when sortable), numeric cells carry data-sort-value with the
// exact number, and the markup is well-formed XML (polyglot HTML5), so an XML
// parser can read the page. A filterable table (class "fs-filterable") names
// the columns its filter searches in data-filter-columns ("0 1": the cells'
// text and title); its filter is <input class="fs-filter" data-table="TABLE-ID"
// data-status="STATUS-ID"/>, and rows that do not match get the hidden
// attribute. The column a table is first sorted by has aria-sort set.
//
// Sections are ordered by a number, so that later kinds of section (call-site
// and spawn-site tables, what-if tables) can be placed between the existing ones.
//
// Opt-in header: the umbrella forkscale.hpp does not include it. The types and
// functions are declared in html_page.hpp; this header adds the studies and
// plots, and (header-only form) the definitions.
#pragma once
#include "../config.hpp"
#include "html_page.hpp"
#include "plot.hpp"
#include "prediction_plot.hpp"
#include "study.hpp"

#if FORKSCALE_DETAIL_DEFINES(html)
#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "../detail/output/html_assets.hpp"
#include "../detail/output/html_blame.hpp"
#include "../detail/output/html_record.hpp"
#include "../detail/output/svg.hpp"
#include "../detail/util/atomic_file.hpp"
#include "../report.hpp"
#include "html_sections.hpp"

FORKSCALE_NAMESPACE_BEGIN

FORKSCALE_INLINE std::string html_escape(const std::string& s) { return detail::svg::escape(s); }

FORKSCALE_INLINE html_report& html_report::add_section(const std::string& id, const std::string& heading,
                                                       std::string body_html, int order) {
  if (id.empty() || !std::isalpha(static_cast<unsigned char>(id[0])) ||
      id.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != std::string::npos)
    throw error("forkscale: html_report: invalid section id '" + detail::printable_path(id) + "'");
  if (has_section(id)) throw error("forkscale: html_report: a section with id '" + id + "' is already there");
  sections_.push_back(section{id, heading, std::move(body_html), order});
  return *this;
}

FORKSCALE_INLINE html_report& html_report::add_report(const report& r) {
  add_profile_sections(r, "Summary");
  add_section(html_section_ids::plots, "Plots", detail::html::report_plots_body(r), html_order::plots);
  return *this;
}

FORKSCALE_INLINE void html_report::write(const std::string& path) const { detail::write_file_atomically(path, str()); }

FORKSCALE_INLINE void html_report::add_profile_sections(const report& r, const std::string& summary_heading) {
  namespace dh = detail::html;
  add_section(html_section_ids::summary, summary_heading, dh::summary_body(r), html_order::summary);
  add_section(html_section_ids::speedup_estimate, "Speedup estimate", dh::estimate_body(r),
              html_order::speedup_estimate);
  if (r.regions.size() > 1) add_section(html_section_ids::regions, "Regions", dh::regions_body(r), html_order::regions);
  if (!r.call_sites.empty())
    add_section(html_section_ids::call_sites, "Call sites", dh::call_sites_body(r), html_order::call_sites);
  if (!r.spawn_sites.empty())
    add_section(html_section_ids::spawn_sites, "Spawn sites", dh::spawn_sites_body(r), html_order::spawn_sites);
  if (!r.what_if.empty()) add_section(html_section_ids::what_if, "What if", dh::what_if_body(r), html_order::what_if);
  if (r.record && !r.record->empty()) {  // a recorded run (docs/record.md)
    add_section(html_section_ids::timeline, "Timeline", dh::timeline_body(r), html_order::timeline);
    add_section(html_section_ids::critical_path, "Critical path", dh::critical_path_body(r), html_order::critical_path);
  }
  if (r.record) {
    add_section(html_section_ids::parallelism, "Parallelism over time", dh::parallelism_body(r),
                html_order::parallelism);
    add_section(html_section_ids::idle_blame, "Idle blame", dh::idle_blame_body(r), html_order::idle_blame);
  }
  if (!r.locks.empty()) add_section(html_section_ids::locks, "Locks", dh::locks_body(r), html_order::locks);
  add_section(html_section_ids::diagnostics, "Diagnostics", dh::diagnostics_body(r), html_order::diagnostics);
}

FORKSCALE_INLINE html_report& html_report::add_study(const study_result& s) {
  namespace dh = detail::html;
  add_section(html_section_ids::study_summary, "Scaling study", dh::study_summary_body(s), html_order::study_summary);
  add_section(html_section_ids::warnings, "Warnings", dh::warnings_body(s), html_order::warnings);
  add_section(html_section_ids::study_runs, "Runs per thread count", dh::study_runs_body(s), html_order::study_runs);
  add_section(html_section_ids::study_speedups, "Factored speedups", dh::study_speedups_body(s),
              html_order::study_speedups);
  add_section(html_section_ids::bandwidth_probe, "Memory-bandwidth probe", dh::bandwidth_probe_body(s),
              html_order::bandwidth_probe);
  if (!s.prediction.empty() || !s.prediction.note.empty())
    add_section(html_section_ids::study_prediction, "Prediction from the 1-thread record", dh::study_prediction_body(s),
                html_order::study_prediction);
  // The engine's profile.
  if (!s.profile.empty()) add_profile_sections(s.profile, "Profile of the median 1-thread run");
  add_section(html_section_ids::plots, "Plots", dh::study_plots_body(s), html_order::plots);
  if (!s.label.empty() && meta_.empty()) add_meta("Scaling study of " + s.label);
  return *this;
}

FORKSCALE_INLINE std::string html_report::str() const {
  namespace dh = detail::html;
  std::vector<const section*> order;
  for (const auto& s : sections_) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [](const section* a, const section* b) { return a->order < b->order; });

  const std::string& css = dh::style_sheet();
  const std::string& js = dh::sort_script();
  const std::string csp = dh::content_security_policy();

  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n";
  o += "<meta http-equiv=\"Content-Security-Policy\" content=\"" + html_escape(csp) + "\"/>\n";
  o += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n";
  o += "<meta name=\"generator\" content=\"forkscale " FORKSCALE_VERSION_STRING "\"/>\n";
  o += "<title>" + html_escape("forkscale: " + title_) + "</title>\n";
  o += "<style>" + css + "</style>\n</head>\n<body>\n";
  o += "<header id=\"fs-header\">\n<h1 id=\"fs-title\">" + html_escape("forkscale: " + title_) + "</h1>\n";
  for (const auto& m : meta_) o += "<p class=\"fs-meta\">" + html_escape(m) + "</p>\n";
  o += "</header>\n<nav id=\"fs-toc\">\n<ul>\n";
  for (const section* s : order)
    o += "<li><a href=\"#" + html_escape(s->id) + "\">" + html_escape(s->heading) + "</a></li>\n";
  o += "</ul>\n</nav>\n<main>\n";
  for (const section* s : order) {
    o += "<section id=\"" + html_escape(s->id) + "\" class=\"fs-section\">\n<h2>" + html_escape(s->heading) +
         "</h2>\n" + s->body + "</section>\n";
  }
  o += "</main>\n<footer class=\"fs-note\">Generated by forkscale " FORKSCALE_VERSION_STRING
       ". This file is self-contained: it loads nothing from anywhere.</footer>\n";
  o += "<script>" + js + "</script>\n</body>\n</html>\n";
  return o;
}

FORKSCALE_INLINE std::string to_html(const report& r) {
  html_report page(r.label.empty() ? std::string("report") : r.label);
  page.add_meta("Clock " + std::string(to_string(r.clock)) + ", times in " + r.unit);
  page.add_report(r);
  return page.str();
}

FORKSCALE_INLINE std::string to_html(const study_result& s) {
  html_report page(s.label.empty() ? std::string("scaling study") : s.label);
  page.add_study(s);
  return page.str();
}

FORKSCALE_INLINE void write_html(const report& r, const std::string& path) {
  detail::write_file_atomically(path, to_html(r));
}

FORKSCALE_INLINE void write_html(const study_result& s, const std::string& path) {
  detail::write_file_atomically(path, to_html(s));
}

FORKSCALE_NAMESPACE_END
#endif  // FORKSCALE_DETAIL_DEFINES
