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
// with a stable id (html_section_ids below), tables have class "fs-table" (and
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
// Opt-in header: the umbrella forkscale.hpp does not include it.
#pragma once
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../config.hpp"
#include "plot.hpp"
#include "../report.hpp"
#include "study.hpp"
#include "../detail/util/atomic_file.hpp"
#include "../detail/output/report_writers.hpp"
#include "../detail/output/svg.hpp"

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
constexpr int call_sites = 400;
constexpr int spawn_sites = 450;
constexpr int what_if = 500;
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
inline const char* const call_sites = "fs-call-sites";          // table fs-call-sites-table
inline const char* const call_sites_filter = "fs-call-sites-filter";
inline const char* const spawn_sites = "fs-spawn-sites";        // table fs-spawn-sites-table
inline const char* const spawn_sites_filter = "fs-spawn-sites-filter";
inline const char* const what_if = "fs-what-if";                // table fs-what-if-table
inline const char* const what_if_filter = "fs-what-if-filter";
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
table.fs-table td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.fs-table tr.fs-group th { text-align: center; font-weight: normal; font-style: italic; }
table.fs-sortable tr.fs-group th { cursor: default; }
table.fs-filterable th, table.fs-filterable td { padding: 3px 5px; }
table.fs-sortable th { cursor: pointer; }
table.fs-sortable th[aria-sort="ascending"]::after { content: " \25B2"; }
table.fs-sortable th[aria-sort="descending"]::after { content: " \25BC"; }
table.fs-table tr[hidden] { display: none; }
.fs-scroll { overflow-x: auto; max-width: 100%; }
.fs-filter-bar { margin: 6px 0; }
.fs-filter-bar input { margin: 0 8px; min-width: 18em; }
tr.fs-oversubscribed td { background: #fbeeee; }
tr.fs-root td { font-style: italic; }
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
  // The last heading row has one cell per column (rows above it group columns).
  function headings(table) { return table.tHead.rows[table.tHead.rows.length - 1]; }
  function sortBy(table, column, th) {
    var ascending = th.getAttribute('aria-sort') !== 'ascending';
    Array.prototype.forEach.call(headings(table).cells, function (c) {
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
    Array.prototype.forEach.call(headings(table).cells, function (th, column) {
      th.setAttribute('tabindex', '0');
      if (!th.hasAttribute('aria-sort')) { th.setAttribute('aria-sort', 'none'); }
      th.addEventListener('click', function () { sortBy(table, column, th); });
      th.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(table, column, th); }
      });
    });
  });
  function cellText(cell) {
    if (!cell) { return ''; }
    return cell.textContent + ' ' + (cell.getAttribute('title') || '');
  }
  Array.prototype.forEach.call(document.querySelectorAll('input.fs-filter'), function (input) {
    var table = document.getElementById(input.getAttribute('data-table') || '');
    if (!table || !table.tBodies.length) { return; }
    var columns = (table.getAttribute('data-filter-columns') || '0').split(' ').map(Number);
    var status = document.getElementById(input.getAttribute('data-status') || '');
    function apply() {
      var needle = input.value.trim().toLowerCase();
      var rows = table.tBodies[0].rows;
      var shown = 0;
      Array.prototype.forEach.call(rows, function (row) {
        var text = columns.map(function (c) { return cellText(row.cells[c]); }).join(' ').toLowerCase();
        var match = needle === '' || text.indexOf(needle) !== -1;
        row.hidden = !match;
        if (match) { shown += 1; }
      });
      if (status) { status.textContent = shown + ' of ' + rows.length + ' shown'; }
    }
    input.addEventListener('input', apply);
    input.disabled = false;
    apply();
  });
})();
)js";
  return js;
}

// ---- building blocks -----------------------------------------------------------------

namespace io = report_io;

inline std::string esc(const std::string& s) { return html_escape(s); }

struct cell {
  cell(std::string text_ = std::string(), std::string sort_value_ = std::string(), bool numeric_ = false,
       std::string title_ = std::string())
      : text(std::move(text_)), sort_value(std::move(sort_value_)), numeric(numeric_), title(std::move(title_)) {}
  std::string text;        // shown (escaped when rendered)
  std::string sort_value;  // data-sort-value; empty: none
  bool numeric = false;
  std::string title;       // title attribute (escaped when rendered); empty: none
};

inline cell text_cell(const std::string& s) { return cell{s, "", false}; }
inline cell int_cell(std::uint64_t v, const std::string& unit = std::string()) {
  return cell{io::grouped(v) + (unit.empty() ? "" : " " + unit), std::to_string(v), true};
}
inline cell num_cell(double v, int decimals = 2, const std::string& unit = std::string()) {
  if (std::isnan(v)) return cell{"n/a", "", true};
  return cell{io::fixed(v, decimals) + (unit.empty() ? "" : " " + unit), io::round_trip(v), true};
}
// A signed integer ("-1,234").
inline cell signed_cell(std::int64_t v) {
  const std::uint64_t magnitude =
      v < 0 ? static_cast<std::uint64_t>(-(v + 1)) + 1 : static_cast<std::uint64_t>(v);
  return cell{(v < 0 ? "-" : "") + io::grouped(magnitude), std::to_string(v), true};
}
// A percentage of `whole` with one decimal; n/a when whole is zero.
inline cell percent_cell(double part, double whole) {
  if (!(whole != 0)) return cell{"n/a", "", true};
  return num_cell(100 * part / whole, 1, "%");
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
  // Another attribute of the <table> element (the value is escaped).
  void attribute(std::string name, std::string value) { attributes_.emplace_back(std::move(name), std::move(value)); }
  // A heading row above the column headings: (text, number of columns) pairs.
  void group_head(std::vector<std::pair<std::string, std::size_t>> groups) { groups_ = std::move(groups); }
  // Per column: a stable key (data-key on its heading) and a longer title.
  void head_details(std::vector<std::string> keys, std::vector<std::string> titles) {
    head_keys_ = std::move(keys);
    head_titles_ = std::move(titles);
  }
  // Marks the column the rows are already sorted by (aria-sort on its heading).
  void sorted_by(std::size_t column, bool descending) {
    sorted_column_ = column;
    sorted_descending_ = descending;
  }
  std::size_t size() const noexcept { return rows_.size(); }
  std::string render() const {
    std::string o = "<table";
    if (!id_.empty()) o += " id=\"" + esc(id_) + "\"";
    o += " class=\"fs-table" + (classes_.empty() ? std::string() : " " + classes_) + "\"";
    for (const auto& a : attributes_) o += " " + a.first + "=\"" + esc(a.second) + "\"";
    o += ">\n<thead>";
    if (!groups_.empty()) {
      o += "<tr class=\"fs-group\">";
      for (const auto& g : groups_) {
        o += "<th scope=\"colgroup\"";
        if (g.second != 1) o += " colspan=\"" + std::to_string(g.second) + "\"";
        o += ">" + esc(g.first) + "</th>";
      }
      o += "</tr>\n";
    }
    o += "<tr>";
    for (std::size_t c = 0; c < head_.size(); ++c) {
      o += "<th scope=\"col\"";
      if (c < head_keys_.size() && !head_keys_[c].empty()) o += " data-key=\"" + esc(head_keys_[c]) + "\"";
      if (c < head_titles_.size() && !head_titles_[c].empty()) o += " title=\"" + esc(head_titles_[c]) + "\"";
      if (c == sorted_column_) o += sorted_descending_ ? " aria-sort=\"descending\"" : " aria-sort=\"ascending\"";
      o += ">" + esc(head_[c]) + "</th>";
    }
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
        if (!c.title.empty()) o += " title=\"" + esc(c.title) + "\"";
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
  std::vector<std::pair<std::string, std::string>> attributes_;
  std::vector<std::pair<std::string, std::size_t>> groups_;
  std::vector<std::string> head_keys_, head_titles_;
  std::size_t sorted_column_ = static_cast<std::size_t>(-1);
  bool sorted_descending_ = false;
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
  std::vector<const call_site_profile*> rows;
  for (const auto& s : r.call_sites) rows.push_back(&s);
  std::stable_sort(rows.begin(), rows.end(), [](const call_site_profile* a, const call_site_profile* b) {
    return a->local_on_span.span > b->local_on_span.span;
  });
  const double span = static_cast<double>(r.span());
  for (const call_site_profile* s : rows) {
    cell site = text_cell(s->name);
    site.title = site_location(*s);
    const site_measure& tcs = s->top_call_site_on_work;
    t.add({site, text_cell(s->function), text_cell(to_string(s->kind)), text_cell(s->recursive ? "yes" : ""),
           signed_cell(s->local_on_span.span), percent_cell(static_cast<double>(s->local_on_span.span), span),
           int_cell(s->local_on_span.work), int_cell(tcs.work), signed_cell(tcs.span),
           tcs.span > 0 ? num_cell(tcs.parallelism()) : cell{"n/a", "", true}, int_cell(s->top_caller_on_work.work),
           signed_cell(s->top_caller_on_work.span), int_cell(s->local_on_work.work),
           signed_cell(s->local_on_work.span), int_cell(s->local_on_work.count)},
          s->kind == site_kind::root ? "fs-root" : "");
  }
  return filterable(t, id, html_section_ids::call_sites_filter, "call sites") +
         paragraph("Work and span in " + r.unit +
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
  std::vector<const spawn_site_profile*> rows;
  for (const auto& s : r.spawn_sites) rows.push_back(&s);
  std::stable_sort(rows.begin(), rows.end(), [](const spawn_site_profile* a, const spawn_site_profile* b) {
    return a->critical_span > b->critical_span;
  });
  for (const spawn_site_profile* s : rows) {
    cell site = text_cell(s->name);
    site.title = site_location(*s);
    t.add({site, text_cell(s->function), int_cell(s->tasks), int_cell(s->work), int_cell(s->span),
           s->span ? num_cell(s->parallelism()) : cell{"n/a", "", true}, int_cell(s->exclusive_work),
           signed_cell(s->critical_span), finite_cell(s->critical_percent, 1, "%")},
          s->kind == site_kind::root ? "fs-root" : "");
  }
  return filterable(t, id, html_section_ids::spawn_sites_filter, "spawn sites") +
         paragraph("Work and span in " + r.unit +
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
           {"source", "source", "all (every region together), region (a what_if_region guard) or call_site "
                                "(a call site named at run time)"},
           {"k", "factor", "how many times faster the region's strands are assumed to be"},
           {"entries", "entries", "outermost entries of the region"},
           {"region work", "region_work", "work of the strands inside the region, as measured"},
           {"span", "span", "predicted span (both models)"},
           {"parallelism", "parallelized_parallelism", "predicted parallelism, parallelized model (work unchanged)"},
           {"gain", "parallelized_gain", "parallelized parallelism / measured parallelism"},
           {"work", "optimized_work", "predicted work, optimized model (the region's work divides by k)"},
           {"parallelism", "optimized_parallelism", "predicted parallelism, optimized model"},
           {"gain", "optimized_gain", "optimized parallelism / measured parallelism"}});
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
                   std::isinf(l.factor) ? std::string(infinity_sort_value()) : io::round_trip(l.factor),
                   true};
      t.add({region, text_cell(f.function), text_cell(to_string(f.source)), k, int_cell(a.entries),
             int_cell(a.region_work), cell{io::grouped_round(a.span), io::round_trip(a.span), true},
             l.parallelized ? unbounded_cell(l.parallelized->parallelism) : blank(), gain(l.parallelized),
             l.optimized ? cell{io::grouped_round(l.optimized->work), io::round_trip(l.optimized->work), true}
                         : blank(),
             l.optimized ? unbounded_cell(l.optimized->parallelism) : blank(), gain(l.optimized)},
            f.source == what_if_source::all ? "fs-root" : "", key + "@" + io::factor_text(l.factor));
    }
  }
  std::string note = "Times in " + r.unit + "; measured: span " + io::grouped(r.span()) + ", parallelism " +
                     io::ratio_text(r.span(), r.parallelism()) +
                     ". Predicted span and parallelism of the whole program if the strands of a region were k "
                     "times faster. Parallelized: the region's contribution to every path divides by k and the "
                     "work stays; optimized: its work divides too. Gain: predicted / measured parallelism; inf: "
                     "the predicted span is 0. The first rows (in italics) take every region together.";
  if (never) note += " Never executed: a named call site that did not run.";
  return filterable(t, id, html_section_ids::what_if_filter, "what-if rows") +
         paragraph(note + " Click a column heading to sort.");
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
    if (!r.call_sites.empty())
      add_section(html_section_ids::call_sites, "Call sites", dh::call_sites_body(r), html_order::call_sites);
    if (!r.spawn_sites.empty())
      add_section(html_section_ids::spawn_sites, "Spawn sites", dh::spawn_sites_body(r), html_order::spawn_sites);
    if (!r.what_if.empty())
      add_section(html_section_ids::what_if, "What if", dh::what_if_body(r), html_order::what_if);
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
