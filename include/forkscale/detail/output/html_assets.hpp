// detail/output/html_assets.hpp: the HTML report's fixed parts: its one style
// sheet, its one script (table sorting and filtering; the record's views add
// theirs, html_record_assets.hpp), and the
// Content-Security-Policy that allows exactly those two by their SHA-256.
#pragma once
#include <string>

#include "../../config.hpp"
#include "../util/base64.hpp"
#include "../util/sha256.hpp"
#include "html_record_assets.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace html {

// The page's hashes, under the names the tests and older code use.
using detail::base64;
using detail::sha256;

// Written without '<' and '&' so that the page stays well-formed XML.
inline const std::string& style_sheet() {
  static const std::string css = std::string(R"css(
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
)css") + record_views_style();
  return css;
}

inline const std::string& sort_script() {
  static const std::string js = std::string(R"js(
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
)js") + record_views_script();
  return js;
}

// The page's policy: nothing may load or run but the style sheet and the script
// above, named by their hashes (the attribute value, before escaping).
inline std::string content_security_policy() {
  return "default-src 'none'; style-src 'sha256-" + base64(sha256(style_sheet())) + "'; script-src 'sha256-" +
         base64(sha256(sort_script())) + "'; img-src data:; base-uri 'none'; form-action 'none'";
}

}  // namespace html
}  // namespace detail
FORKSCALE_NAMESPACE_END
