// html.hpp: one self-contained HTML file for a report or a scaling study.
//
//   fs::write_html(rep, "fib.html");                 // a report
//   fs::write_html(study, "sort.html");              // a study (with its profile)
//   fs::html_report page("sort");                    // or build a page section by section
//   page.add_study(study).add_section("my-notes", "Notes", fs::html_escape(text), 850);
//
// The page needs nothing outside itself: no network, no external scripts,
// styles, fonts or images. Plots are inline SVG; the one script (sorting tables
// by a click on a column heading) and the one style sheet are inline, and a
// Content-Security-Policy allows exactly those two (by their SHA-256) and
// nothing else, so even markup that slipped through could neither run script
// nor load anything. Every user-supplied string (labels, paths, diagnostics,
// warnings) is escaped: "<img src=x onerror=alert(1)>" shows as that text.
//
// For tests and tools: every section is <section id="fs-..." class="fs-section">
// with a stable id (html_section_ids below), tables have class "fs-table" (and
// "fs-sortable" when sortable), numeric cells carry data-sort-value with the
// exact number, and the markup is well-formed XML (polyglot HTML5), so an XML
// parser can read the page.
//
// Sections are ordered by a number, so that later kinds of section (call-site
// and spawn-site tables, what-if tables) can be placed between the existing ones.
//
// Opt-in header: the umbrella forkscale.hpp does not include it.
#pragma once
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "config.hpp"
#include "plot.hpp"
#include "report.hpp"
#include "study.hpp"
#include "detail/atomic_file.hpp"
#include "detail/report_writers.hpp"
#include "detail/svg.hpp"

FORKSCALE_NAMESPACE_BEGIN

// Text as HTML character data or attribute value: valid UTF-8, control
// characters as visible escapes, & < > " ' as entities.
inline std::string html_escape(const std::string& s) { return detail::svg::escape(s); }

// Where the built-in sections go (add_section takes any number).
namespace html_order {
constexpr int study_summary = 100;
constexpr int warnings = 110;
constexpr int study_runs = 120;
constexpr int study_speedups = 130;
constexpr int bandwidth_probe = 140;
constexpr int summary = 200;
constexpr int speedup_estimate = 210;
constexpr int regions = 300;
constexpr int call_sites = 400;   // reserved
constexpr int spawn_sites = 450;  // reserved
constexpr int what_if = 500;      // reserved
constexpr int plots = 800;
constexpr int diagnostics = 900;
}  // namespace html_order

// The ids of the built-in sections and elements.
namespace html_section_ids {
inline const char* const study_summary = "fs-study-summary";
inline const char* const warnings = "fs-warnings";
inline const char* const study_runs = "fs-study-runs";
inline const char* const study_speedups = "fs-study-speedups";
inline const char* const bandwidth_probe = "fs-bandwidth-probe";
inline const char* const summary = "fs-summary";
inline const char* const speedup_estimate = "fs-speedup-estimate";
inline const char* const regions = "fs-regions";
inline const char* const plots = "fs-plots";
inline const char* const diagnostics = "fs-diagnostics";
}  // namespace html_section_ids

namespace detail {
namespace html {

// ---- SHA-256 and base64, for the Content-Security-Policy hashes ------------------

inline std::string sha256(const std::string& msg) {
  static const std::uint32_t k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  std::uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string m = msg;
  const std::uint64_t bits = static_cast<std::uint64_t>(msg.size()) * 8;
  m += static_cast<char>(0x80);
  while (m.size() % 64 != 56) m += '\0';
  for (int i = 7; i >= 0; --i) m += static_cast<char>((bits >> (8 * i)) & 0xff);
  const auto rotr = [](std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (std::size_t off = 0; off < m.size(); off += 64) {
    std::uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = (static_cast<std::uint32_t>(static_cast<unsigned char>(m[off + 4 * i])) << 24) |
             (static_cast<std::uint32_t>(static_cast<unsigned char>(m[off + 4 * i + 1])) << 16) |
             (static_cast<std::uint32_t>(static_cast<unsigned char>(m[off + 4 * i + 2])) << 8) |
             static_cast<std::uint32_t>(static_cast<unsigned char>(m[off + 4 * i + 3]));
    for (int i = 16; i < 64; ++i) {
      const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
      const std::uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const std::uint32_t ch = (e & f) ^ (~e & g);
      const std::uint32_t t1 = hh + S1 + ch + k[i] + w[i];
      const std::uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const std::uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
      const std::uint32_t t2 = S0 + maj;
      hh = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
  }
  std::string out;
  for (const std::uint32_t v : h)
    for (int i = 3; i >= 0; --i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

inline std::string base64(const std::string& bytes) {
  static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v = (static_cast<unsigned char>(bytes[i]) << 16) |
                            (static_cast<unsigned char>(bytes[i + 1]) << 8) | static_cast<unsigned char>(bytes[i + 2]);
    out += table[(v >> 18) & 63];
    out += table[(v >> 12) & 63];
    out += table[(v >> 6) & 63];
    out += table[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const std::uint32_t v = static_cast<unsigned char>(bytes[i]) << 16;
    out += table[(v >> 18) & 63];
    out += table[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const std::uint32_t v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8);
    out += table[(v >> 18) & 63];
    out += table[(v >> 12) & 63];
    out += table[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

// ---- the page's fixed parts ----------------------------------------------------------

// Written without '<' and '&' so that the page stays well-formed XML.
inline const std::string& style_sheet() {
  static const std::string css = R"css(
body { font-family: sans-serif; margin: 0 auto; max-width: 1100px; padding: 0 16px 40px; color: #222; }
h1 { font-size: 1.5em; margin: 20px 0 4px; }
h2 { font-size: 1.2em; margin: 28px 0 8px; border-bottom: 1px solid #ccc; padding-bottom: 3px; }
.fs-meta { color: #555; margin: 0 0 8px; }
nav#fs-toc ul { list-style: none; padding: 0; margin: 8px 0; }
nav#fs-toc li { display: inline-block; margin-right: 14px; }
a { color: #1f5fbf; }
table.fs-table { border-collapse: collapse; margin: 6px 0 10px; font-size: 0.92em; }
table.fs-table th, table.fs-table td { border: 1px solid #ddd; padding: 3px 8px; }
table.fs-table th { background: #f3f3f3; text-align: left; }
table.fs-table td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.fs-sortable th { cursor: pointer; }
table.fs-sortable th[aria-sort="ascending"]::after { content: " \25B2"; }
table.fs-sortable th[aria-sort="descending"]::after { content: " \25BC"; }
tr.fs-oversubscribed td { background: #fbeeee; }
ul.fs-warnings li { color: #8a3b00; }
.fs-note { color: #555; font-size: 0.9em; }
.fs-plot { max-width: 100%; height: auto; display: block; margin: 10px 0; }
code { font-size: 0.95em; }
)css";
  return css;
}

inline const std::string& sort_script() {
  static const std::string js = R"js(
(function () {
  'use strict';
  function key(cell) {
    var v = cell.getAttribute('data-sort-value');
    if (v !== null) {
      if (v === '') { return { n: null, s: '' }; }
      var n = Number(v);
      if (!isNaN(n)) { return { n: n, s: '' }; }
    }
    return { n: null, s: cell.textContent };
  }
  function compare(x, y) {
    if (x.n !== null) {
      if (y.n !== null) { return x.n - y.n; }
      return -1;
    }
    if (y.n !== null) { return 1; }
    return x.s.localeCompare(y.s);
  }
  function sortBy(table, column, th) {
    var ascending = th.getAttribute('aria-sort') !== 'ascending';
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) {
      c.setAttribute('aria-sort', 'none');
    });
    th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).map(function (r, i) {
      return { row: r, index: i, key: key(r.cells[column]) };
    });
    rows.sort(function (a, b) {
      var c = compare(a.key, b.key);
      if (c === 0) { return a.index - b.index; }
      return ascending ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r.row); });
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.fs-sortable'), function (table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
      th.setAttribute('tabindex', '0');
      th.setAttribute('aria-sort', 'none');
      th.addEventListener('click', function () { sortBy(table, column, th); });
      th.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(table, column, th); }
      });
    });
  });
})();
)js";
  return js;
}

// ---- building blocks -----------------------------------------------------------------

namespace io = report_io;

inline std::string esc(const std::string& s) { return html_escape(s); }

struct cell {
  std::string text;        // shown (escaped when rendered)
  std::string sort_value;  // data-sort-value; empty: none
  bool numeric = false;
};

inline cell text_cell(const std::string& s) { return cell{s, "", false}; }
inline cell int_cell(std::uint64_t v, const std::string& unit = std::string()) {
  return cell{io::grouped(v) + (unit.empty() ? "" : " " + unit), std::to_string(v), true};
}
inline cell num_cell(double v, int decimals = 2, const std::string& unit = std::string()) {
  if (std::isnan(v)) return cell{"n/a", "", true};
  return cell{io::fixed(v, decimals) + (unit.empty() ? "" : " " + unit), io::round_trip(v), true};
}
// A time in ns, grouped to whole ns.
inline cell ns_cell(double v) {
  if (std::isnan(v)) return cell{"n/a", "", true};
  return cell{(v < 0 ? "-" + io::grouped_round(-v) : io::grouped_round(v)) + " ns", io::round_trip(v), true};
}

class table {
 public:
  table(std::string id, std::string classes, std::vector<std::string> head)
      : id_(std::move(id)), classes_(std::move(classes)), head_(std::move(head)) {}
  void add(std::vector<cell> row, std::string row_class = std::string(), std::string row_key = std::string()) {
    rows_.push_back(std::move(row));
    row_classes_.push_back(std::move(row_class));
    row_keys_.push_back(std::move(row_key));
  }
  std::string render() const {
    std::string o = "<table";
    if (!id_.empty()) o += " id=\"" + esc(id_) + "\"";
    o += " class=\"fs-table" + (classes_.empty() ? std::string() : " " + classes_) + "\">\n<thead><tr>";
    for (const auto& h : head_) o += "<th scope=\"col\">" + esc(h) + "</th>";
    o += "</tr></thead>\n<tbody>\n";
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      o += "<tr";
      if (!row_classes_[r].empty()) o += " class=\"" + esc(row_classes_[r]) + "\"";
      if (!row_keys_[r].empty()) o += " data-key=\"" + esc(row_keys_[r]) + "\"";
      o += ">";
      for (const auto& c : rows_[r]) {
        o += "<td";
        if (c.numeric) o += " class=\"num\"";
        if (c.numeric || !c.sort_value.empty()) o += " data-sort-value=\"" + esc(c.sort_value) + "\"";
        o += ">" + esc(c.text) + "</td>";
      }
      o += "</tr>\n";
    }
    o += "</tbody>\n</table>\n";
    return o;
  }

 private:
  std::string id_, classes_;
  std::vector<std::string> head_;
  std::vector<std::vector<cell>> rows_;
  std::vector<std::string> row_classes_, row_keys_;
};

inline std::string paragraph(const std::string& text, const char* cls = "fs-note") {
  return std::string("<p class=\"") + cls + "\">" + esc(text) + "</p>\n";
}

inline std::string summary_body(const report& r) {
  const std::string u = r.unit;
  table t("fs-summary-table", "fs-summary", {"measure", "value"});
  if (r.empty()) return paragraph("Nothing was measured.");
  const region_result& g = r.root();
  t.add({text_cell("Work"), int_cell(g.work, u)}, "", "work");
  t.add({text_cell("Span"), int_cell(g.span, u)}, "", "span");
  t.add({text_cell("Burdened span"), int_cell(g.burdened_span, u)}, "", "burdened_span");
  t.add({text_cell("Parallelism"), g.span ? num_cell(g.parallelism()) : cell{"n/a", "", true}}, "", "parallelism");
  t.add({text_cell("Burdened parallelism"),
         g.burdened_span ? num_cell(g.burdened_parallelism()) : cell{"n/a", "", true}},
        "", "burdened_parallelism");
  t.add({text_cell("Spawns"), int_cell(g.spawns)}, "", "spawns");
  t.add({text_cell("Syncs"), int_cell(g.syncs)}, "", "syncs");
  t.add({text_cell("Calls"), int_cell(g.calls)}, "", "calls");
  t.add({text_cell("Average maximal strand"), num_cell(g.average_maximal_strand(), 0, u)}, "",
        "average_maximal_strand");
  std::string o = t.render();
  std::string meta = "Clock " + std::string(to_string(r.clock)) + ", unit " + r.unit + "; burden " +
                     io::grouped(r.burden) + " " + r.unit + " per continuation edge";
  if (r.compensation_per_strand > 0)
    meta += "; overhead compensation " + io::fixed(r.compensation_per_strand, 2) + " " + r.unit +
            " per strand (" + io::grouped(r.compensation_total) + " " + r.unit + " in total)";
  if (r.profiler_bytes) meta += "; profiler memory " + io::bytes_text(r.profiler_bytes);
  o += paragraph(meta + ".");
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
  return t.render() +
         paragraph("Upper: min(P, parallelism), the work and span laws. Lower: Cilkview's estimate "
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

inline std::string diagnostics_body(const report& r) {
  const std::uint64_t count = std::max<std::uint64_t>(r.diagnostic_count, r.diagnostics.size());
  if (count == 0) return paragraph("None: no misuse of the guards was found.");
  std::string o = paragraph(io::grouped(count) + " misuse diagnostic(s)" +
                            (count > r.diagnostics.size()
                                 ? "; the first " + std::to_string(r.diagnostics.size()) + " are listed"
                                 : std::string()) +
                            ". The numbers may not be trustworthy.");
  o += "<ul class=\"fs-diagnostics\">\n";
  for (const auto& d : r.diagnostics)
    o += "<li><code>" + esc(d.where) + "</code>: " + esc(d.problem) + "</li>\n";
  return o + "</ul>\n";
}

}  // namespace html
}  // namespace detail

// A page built from sections.
class html_report {
 public:
  explicit html_report(std::string title) : title_(std::move(title)) {}

  // Adds a section. `body_html` is markup and is inserted as it is: build it
  // with html_escape() for every piece of text. Throws forkscale::error when the
  // id is taken or is not of the form [A-Za-z][A-Za-z0-9_-]*.
  html_report& add_section(const std::string& id, const std::string& heading, std::string body_html, int order) {
    if (id.empty() || !std::isalpha(static_cast<unsigned char>(id[0])) ||
        id.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != std::string::npos)
      throw error("forkscale: html_report: invalid section id '" + detail::printable_path(id) + "'");
    if (has_section(id))
      throw error("forkscale: html_report: a section with id '" + id + "' is already there");
    sections_.push_back(section{id, heading, std::move(body_html), order});
    return *this;
  }

  bool has_section(const std::string& id) const noexcept {
    for (const auto& s : sections_)
      if (s.id == id) return true;
    return false;
  }

  // A line under the title (escaped).
  html_report& add_meta(const std::string& text) {
    meta_.push_back(text);
    return *this;
  }

  // Summary, speedup estimate, regions (when more than the root), the
  // scalability bounds plot and the diagnostics of one report.
  html_report& add_report(const report& r) {
    add_profile_sections(r);
    plot_options po;
    po.standalone = false;
    add_section(html_section_ids::plots, "Plots",
                figure(scalability_svg(r, po),
                       "Cilkview's scalability bounds from this run: work law, span law and the burdened "
                       "estimate."),
                html_order::plots);
    return *this;
  }

  // The study's tables and plots, and its profile (the engine's report of the
  // median 1-thread run).
  html_report& add_study(const study_result& s);

  std::string str() const;

  // Writes the page atomically; throws forkscale::error.
  void write(const std::string& path) const { detail::write_file_atomically(path, str()); }

 private:
  struct section {
    std::string id, heading, body;
    int order;
  };

  static std::string figure(const std::string& svg, const std::string& caption) {
    return "<figure>\n" + svg + "<figcaption class=\"fs-note\">" + html_escape(caption) + "</figcaption>\n</figure>\n";
  }

  void add_profile_sections(const report& r, const std::string& summary_heading = "Summary") {
    namespace dh = detail::html;
    add_section(html_section_ids::summary, summary_heading, dh::summary_body(r), html_order::summary);
    add_section(html_section_ids::speedup_estimate, "Speedup estimate", dh::estimate_body(r),
                html_order::speedup_estimate);
    if (r.regions.size() > 1)
      add_section(html_section_ids::regions, "Regions", dh::regions_body(r), html_order::regions);
    add_section(html_section_ids::diagnostics, "Diagnostics", dh::diagnostics_body(r), html_order::diagnostics);
  }

  std::string title_;
  std::vector<std::string> meta_;
  std::vector<section> sections_;
};

inline html_report& html_report::add_study(const study_result& s) {
  namespace dh = detail::html;
  // Summary of the study.
  {
    dh::table t("fs-study-summary-table", "", {"time", "mean", "median", "min", "max", "stddev", "runs"});
    const auto row = [&](const char* name, const char* key, const sample_stats& st) {
      t.add({dh::text_cell(name), dh::ns_cell(st.mean), dh::ns_cell(st.median), dh::ns_cell(st.min),
             dh::ns_cell(st.max), dh::ns_cell(st.stddev), dh::int_cell(st.count())},
            "", key);
    };
    row("Ts: sequential baseline", "ts", s.baseline);
    if (s.has_elision()) row("Te: serial elision", "te", s.elision);
    if (!s.points.empty()) row("T1: parallel program on 1 thread", "t1", s.points.front().time);
    std::string body = t.render();
    body += dh::paragraph(
        "Clock " + std::string(to_string(s.clock)) + "; " + std::to_string(s.repetitions) + " timed runs of each kind after " +
        std::to_string(s.warmup) + " warm-up run(s), round robin; " +
        (s.hardware_threads ? std::to_string(s.hardware_threads) + " hardware threads" : std::string("hardware threads unknown")) +
        ". WP is the engine's work " + (s.compensated_work ? "after" : "before") +
        " overhead compensation, summed over all threads. Speedups are ratios of means (Acar et al. \u00a72.7).");
    add_section(html_section_ids::study_summary, "Scaling study", body, html_order::study_summary);
  }
  // Warnings.
  {
    std::string body;
    if (s.warnings.empty()) {
      body = dh::paragraph("None.");
    } else {
      body = "<ul class=\"fs-warnings\">\n";
      for (const auto& w : s.warnings) body += "<li>" + html_escape(w) + "</li>\n";
      body += "</ul>\n";
    }
    add_section(html_section_ids::warnings, "Warnings", body, html_order::warnings);
  }
  // Per P.
  {
    dh::table t("fs-study-runs-table", "fs-sortable",
                {"P", "TP mean", "TP median", "TP min", "TP max", "WP", "IP", "FP", "IP / (P\u00b7TP)", "T1/TP",
                 "spawns"});
    for (const auto& pt : s.points) {
      const double budget = pt.processors * pt.time.mean;
      dh::cell p{std::to_string(pt.processors) + (pt.oversubscribed ? " *" : ""), std::to_string(pt.processors), true};
      t.add({p, dh::ns_cell(pt.time.mean), dh::ns_cell(pt.time.median), dh::ns_cell(pt.time.min),
             dh::ns_cell(pt.time.max), dh::ns_cell(pt.parallel_work), dh::ns_cell(pt.idle_time),
             dh::ns_cell(pt.work_inflation),
             std::isnan(pt.idle_time) || !(budget > 0) ? dh::cell{"n/a", "", true}
                                                       : dh::num_cell(100 * pt.idle_time / budget, 1, "%"),
             dh::num_cell(pt.self_speedup), dh::num_cell(pt.spawns.mean, 0)},
            pt.oversubscribed ? "fs-oversubscribed" : "", std::to_string(pt.processors));
    }
    std::string body = t.render();
    body += dh::paragraph("IP = P\u00b7TP \u2212 WP (idle time), FP = WP \u2212 T1 (work inflation), from the means. " +
                          std::string("* more threads than the ") + std::to_string(s.hardware_threads) +
                          " hardware threads: not meaningful.");
    add_section(html_section_ids::study_runs, "Runs per thread count", body, html_order::study_runs);
  }
  // Factored speedups.
  {
    std::vector<std::string> head{"P", "linear"};
    if (s.has_elision()) head.push_back("elision");
    for (const char* h : {"maximal", "idle-time-specific", "inflation-specific", "actual", "actual min", "actual max"})
      head.push_back(h);
    dh::table t("fs-study-speedups-table", "fs-sortable", head);
    for (const auto& pt : s.points) {
      std::vector<dh::cell> row{
          dh::cell{std::to_string(pt.processors) + (pt.oversubscribed ? " *" : ""), std::to_string(pt.processors), true},
          dh::num_cell(pt.speedup.linear)};
      if (s.has_elision()) row.push_back(dh::num_cell(pt.speedup.elision));
      row.push_back(dh::num_cell(pt.speedup.maximal));
      row.push_back(dh::num_cell(pt.speedup.idle_specific));
      row.push_back(dh::num_cell(pt.speedup.inflation_specific));
      row.push_back(dh::num_cell(pt.speedup.actual));
      row.push_back(dh::num_cell(pt.actual_low));
      row.push_back(dh::num_cell(pt.actual_high));
      t.add(row, pt.oversubscribed ? "fs-oversubscribed" : "", std::to_string(pt.processors));
    }
    std::string body = t.render();
    body += dh::paragraph(std::string("linear P; ") + (s.has_elision() ? "elision P\u00b7Ts/Te; " : "") +
                          "maximal P\u00b7Ts/T1; idle-time-specific P\u00b7Ts/(T1+IP); inflation-specific "
                          "P\u00b7Ts/(P\u00b7TP\u2212IP); actual Ts/TP (min and max over the runs).");
    add_section(html_section_ids::study_speedups, "Factored speedups", body, html_order::study_speedups);
  }
  // Bandwidth probe.
  {
    std::string body;
    if (s.bandwidth.empty()) {
      body = dh::paragraph("Not run: the workload has no baseline_copy, or no P above 1 was studied.");
    } else {
      dh::table t("fs-bandwidth-probe-table", "fs-sortable", {"copies", "time of one copy", "alone", "slowdown"});
      for (const auto& b : s.bandwidth)
        t.add({dh::cell{std::to_string(b.copies) + (b.oversubscribed ? " *" : ""), std::to_string(b.copies), true},
               dh::ns_cell(b.together.mean), dh::ns_cell(s.probe_alone.mean), dh::num_cell(b.slowdown, 2, "x")},
              b.oversubscribed ? "fs-oversubscribed" : "", std::to_string(b.copies));
      body = t.render() + dh::paragraph(
                              "Cilkview \u00a75: P copies of the serial baseline run at once, each on its own "
                              "thread, against one copy alone (mean time of one copy). A slowdown well above 1 "
                              "suggests that memory bandwidth limits scaling.");
    }
    add_section(html_section_ids::bandwidth_probe, "Memory-bandwidth probe", body, html_order::bandwidth_probe);
  }
  // The engine's profile.
  if (!s.profile.empty()) add_profile_sections(s.profile, "Profile of the median 1-thread run");
  // Plots.
  {
    plot_options po;
    po.standalone = false;
    std::string body = figure(factored_speedup_svg(s, po),
                              "Factored speedup plot (Acar, Charguéraud, Rainey \u00a72.3): the gaps A\u2013E "
                              "are explained under the plot.");
    body += figure(scalability_svg(s, po),
                   "Scalability (Cilkview Fig. 2): work-law and span-law upper bounds, the burdened estimated "
                   "lower bound, and the measured T1/TP.");
    add_section(html_section_ids::plots, "Plots", body, html_order::plots);
  }
  if (!s.label.empty() && meta_.empty()) add_meta("Scaling study of " + s.label);
  return *this;
}

inline std::string html_report::str() const {
  namespace dh = detail::html;
  std::vector<const section*> order;
  for (const auto& s : sections_) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [](const section* a, const section* b) { return a->order < b->order; });

  const std::string css = dh::style_sheet();
  const std::string js = dh::sort_script();
  const std::string csp = "default-src 'none'; style-src 'sha256-" + dh::base64(dh::sha256(css)) +
                          "'; script-src 'sha256-" + dh::base64(dh::sha256(js)) +
                          "'; img-src data:; base-uri 'none'; form-action 'none'";

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

inline std::string to_html(const report& r) {
  html_report page(r.label.empty() ? std::string("report") : r.label);
  page.add_meta("Clock " + std::string(to_string(r.clock)) + ", times in " + r.unit);
  page.add_report(r);
  return page.str();
}

inline std::string to_html(const study_result& s) {
  html_report page(s.label.empty() ? std::string("scaling study") : s.label);
  page.add_study(s);
  return page.str();
}

inline void write_html(const report& r, const std::string& path) {
  detail::write_file_atomically(path, to_html(r));
}

inline void write_html(const study_result& s, const std::string& path) {
  detail::write_file_atomically(path, to_html(s));
}

FORKSCALE_NAMESPACE_END
