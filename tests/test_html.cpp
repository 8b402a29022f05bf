// The HTML report (html.hpp): one self-contained file, every user string
// escaped (an injected tag shows as text), no external URL of any kind, a
// Content-Security-Policy that allows exactly the page's own script and style,
// stable ids and table classes for browser tests. The page is well-formed XML,
// so Python's xml.etree reads it as an independent check (skipped without
// python3).
#include <forkscale/detail/output/html_assets.hpp>  // base64 and sha256 of the page's assets
#include <forkscale/forkscale.hpp>
#include <forkscale/study/html.hpp>
#include <forkscale/study/study.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace fs = forkscale;
namespace stdfs = std::filesystem;

namespace {

const std::string evil = "<img src=x onerror=alert(1)>";

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

fs::report evil_report() {
  fs::report r;
  r.label = evil;
  r.unit = "units";
  r.burden = 15000;
  r.max_processors = 8;
  fs::region_result root;
  root.label = root.path = evil;
  root.instances = 1;
  root.work = root.raw_work = 100000;
  root.span = root.raw_span = 2500;
  root.burdened_span = 40000;
  root.spawns = root.syncs = 100;
  r.regions.push_back(root);
  fs::region_result child = root;
  child.label = "</section><script>alert(2)</script>";
  child.path = evil + "/" + child.label;
  child.parent = evil;
  child.depth = 1;
  child.work = 60000;
  r.regions.push_back(child);
  fs::region_result other = child;
  other.label = "\" onmouseover=\"alert(3)";
  other.path = evil + "/" + other.label;
  other.work = 30000;
  r.regions.push_back(other);
  r.diagnostics.push_back({"evil.cpp:1 in <f>", "problem with <b>markup</b> & 'quotes'"});
  r.diagnostic_count = 1;
  return r;
}

fs::site_measure measure(std::uint64_t count, std::uint64_t work, std::int64_t span) {
  fs::site_measure m;
  m.count = count;
  m.work = work;
  m.span = span;
  return m;
}

fs::call_site_profile call_row(const std::string& name, const std::string& function, fs::site_kind kind,
                               std::int64_t local_span_on_span, std::uint64_t local_work_on_work) {
  fs::call_site_profile c;
  c.name = name;
  c.file = "dir/" + name + ".cpp";
  c.line = 7;
  c.function = function;
  c.kind = kind;
  c.local_on_span = measure(1, 10, local_span_on_span);
  c.local_on_work = measure(3, local_work_on_work, 40);
  c.top_call_site_on_work = measure(2, 5000, 250);
  c.top_caller_on_work = measure(2, 5000, 250);
  return c;
}

// evil_report() with a call-site and a spawn-site profile: markup in the names,
// functions, tags and files; rows in an order other than the page's default
// (local span on span, largest first); a negative local span.
fs::report evil_site_report() {
  fs::report r = evil_report();
  fs::call_site_profile root = call_row("root", "main", fs::site_kind::root, 300, 60000);
  fs::call_site_profile tagged = call_row(evil, "f<T>()", fs::site_kind::call, 2000, 30000);
  tagged.tag = evil;
  tagged.file = "</td><td>x.cpp";
  tagged.recursive = true;
  fs::call_site_profile negative = call_row("neg", "g", fs::site_kind::spawn, -100, 9000);
  fs::call_site_profile quoted = call_row("\" onclick=\"alert(5)", "h & 'i'", fs::site_kind::call, 300, 1000);
  r.call_sites = {root, negative, tagged, quoted};  // local span on span: 300 - 100 + 2000 + 300 = 2500
  fs::spawn_site_profile task;
  task.name = "<script>alert(6)</script>";
  task.function = evil;
  task.file = "t.cpp";
  task.line = 3;
  task.tasks = 100;
  task.work = 40000;
  task.span = 2000;
  task.exclusive_work = 40000;
  task.critical_span = 2200;
  task.critical_percent = 88;
  fs::spawn_site_profile own = task;
  own.name = "root";
  own.function = "main";
  own.kind = fs::site_kind::root;
  own.tasks = 1;
  own.work = 100000;
  own.span = 2500;
  own.exclusive_work = 60000;
  own.critical_span = 300;
  own.critical_percent = 12;
  r.spawn_sites = {own, task};
  return r;
}

// The markup of the element with this id, up to its end tag (no nesting of the
// same element inside).
std::string element(const std::string& html, const std::string& tag, const std::string& id) {
  const std::size_t start = html.find("<" + tag + " id=\"" + id + "\"");
  if (start == std::string::npos) return std::string();
  const std::size_t end = html.find("</" + tag + ">", start);
  return end == std::string::npos ? std::string() : html.substr(start, end + tag.size() + 3 - start);
}

// The text of the first cell of each body row of a rendered table, unescaped
// for the few entities html_escape writes.
std::vector<std::string> first_cells(const std::string& table) {
  std::vector<std::string> out;
  for (std::size_t at = table.find("<tr", table.find("<tbody>")); at != std::string::npos;
       at = table.find("<tr", at + 1)) {
    const std::size_t open = table.find(">", table.find("<td", at)) + 1;
    std::string text = table.substr(open, table.find("</td>", open) - open);
    for (const auto& e : std::vector<std::pair<std::string, std::string>>{
             {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}})
      for (std::size_t p = text.find(e.first); p != std::string::npos; p = text.find(e.first, p + 1))
        text.replace(p, e.first.size(), e.second);
    out.push_back(text);
  }
  return out;
}

fs::study_result evil_study() {
  fs::study_result s;
  s.label = evil;
  s.clock = fs::clock_kind::tsc;
  s.hardware_threads = 2;
  s.repetitions = 2;
  s.baseline = fs::sample_stats::of({1000, 1010});
  for (const unsigned p : {1u, 2u, 4u}) {
    fs::study_point pt;
    pt.processors = p;
    pt.oversubscribed = p > 2;
    pt.time = fs::sample_stats::of({1200.0 / p + 40, 1200.0 / p + 50});
    pt.raw_work = fs::sample_stats::of({1200, 1210});
    pt.work = pt.raw_work;
    pt.spawns = fs::sample_stats::of({10, 10});
    s.points.push_back(pt);
  }
  s.profile = evil_report();
  s.warnings.push_back("warning: " + evil);
  s.recompute();
  return s;
}

// What no self-contained page may contain.
void expect_self_contained(const std::string& html) {
  EXPECT_FALSE(contains(html, "http:"));
  EXPECT_FALSE(contains(html, "https:"));
  EXPECT_FALSE(contains(html, "://"));
  EXPECT_FALSE(contains(html, "\"//"));  // no protocol-relative URL either
  EXPECT_FALSE(contains(html, "'//"));
  EXPECT_FALSE(contains(html, "(//"));
  EXPECT_FALSE(contains(html, "url("));
  EXPECT_FALSE(contains(html, "@import"));
  EXPECT_FALSE(contains(html, " src=\""));  // (the escaped text "&lt;img src=x" is fine)
  EXPECT_FALSE(contains(html, " src='"));
  EXPECT_FALSE(contains(html, "<link"));
  EXPECT_FALSE(contains(html, "<iframe"));
  EXPECT_FALSE(contains(html, "<img"));
  EXPECT_EQ(count(html, "<script"), 1u);
  EXPECT_EQ(count(html, "<style"), 1u);
  // Every link is an anchor in the page.
  for (std::size_t at = html.find("href=\""); at != std::string::npos; at = html.find("href=\"", at + 1))
    EXPECT_EQ(html[at + 6], '#') << html.substr(at, 40);
}

class Html : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<unsigned> counter{0};
    dir_ = stdfs::temp_directory_path() /
           ("forkscale_html_test_" + std::to_string(std::random_device{}()) + "_" + std::to_string(counter++));
    stdfs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    stdfs::remove_all(dir_, ec);
  }
  bool python_available() {
    return std::system(("python3 -c \"import xml.etree.ElementTree, hashlib, base64\" > \"" +
                        (dir_ / "probe").string() + "\" 2>&1")
                           .c_str()) == 0;
  }
  int run_python(const std::string& script, const std::string& arg, std::string& output) {
    const stdfs::path py = dir_ / "check.py", out = dir_ / "out.txt";
    std::ofstream(py) << script;
    const int rc =
        std::system(("python3 \"" + py.string() + "\" \"" + arg + "\" > \"" + out.string() + "\" 2>&1").c_str());
    std::ifstream in(out);
    output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return rc;
  }
  stdfs::path dir_;
};

// Reads the page as XML; checks ids, classes, the escaped texts as the DOM sees
// them, that nothing user-supplied became an element or attribute, and the CSP.
const char* const check_page = R"py(
import base64, hashlib, re, sys
import xml.etree.ElementTree as ET
text = open(sys.argv[1], encoding='utf-8').read()
root = ET.fromstring(text)
evil = '<img src=x onerror=alert(1)>'
problems = []
ids = {e.get('id'): e for e in root.iter() if e.get('id')}
for want in sys.argv[2].split(','):
    if want not in ids:
        problems.append('missing id ' + want)
# The label is text: in the <title>, the <h1> and the table of regions.
h1 = ids['fs-title']
if ''.join(h1.itertext()) != 'forkscale: ' + evil:
    problems.append('h1: %r' % ''.join(h1.itertext()))
if root.find('head/title').text != 'forkscale: ' + evil:
    problems.append('title: %r' % root.find('head/title').text)
tags = {e.tag for e in root.iter()}
for bad in ('img', 'iframe', 'object', 'embed', 'link', 'base', 'form'):
    if bad in tags or '{http://www.w3.org/2000/svg}' + bad in tags:
        problems.append('element ' + bad)
scripts = list(root.iter('script'))
if len(scripts) != 1:
    problems.append('%d scripts' % len(scripts))
for e in root.iter():
    for k, v in e.attrib.items():
        if k.startswith('on') or k in ('src', 'srcset', 'action', 'formaction', 'xlink:href'):
            problems.append('attribute %s=%r on %s' % (k, v, e.tag))
        if k == 'href' and not v.startswith('#'):
            problems.append('href %r' % v)
# Tables: class fs-table; sortable ones have a head and a body, numeric cells a sort value.
tables = list(root.iter('table'))
if not tables:
    problems.append('no tables')
for t in tables:
    cls = (t.get('class') or '').split()
    if 'fs-table' not in cls:
        problems.append('table without fs-table: %r' % t.get('id'))
    if 'fs-sortable' in cls:
        if t.find('thead') is None or t.find('tbody') is None:
            problems.append('sortable table without thead/tbody: %r' % t.get('id'))
    for td in t.iter('td'):
        if 'num' in (td.get('class') or '').split():
            v = td.get('data-sort-value')
            if v is None or (v != '' and not re.fullmatch(r'-?[0-9.]+(e[-+]?[0-9]+)?', v)):
                problems.append('numeric cell %r with sort value %r' % (td.text, v))
# The CSP allows exactly this script and this style.
csp = [m.get('content') for m in root.iter('meta') if m.get('http-equiv') == 'Content-Security-Policy'][0]
def h(s):
    return "'sha256-" + base64.b64encode(hashlib.sha256(s.encode('utf-8')).digest()).decode() + "'"
if "default-src 'none'" not in csp:
    problems.append('csp: ' + csp)
if 'script-src ' + h(scripts[0].text) not in csp:
    problems.append('script hash not in the csp')
if 'style-src ' + h(root.find('head/style').text) not in csp:
    problems.append('style hash not in the csp')
if 'unsafe-inline' in csp:
    problems.append('unsafe-inline in the csp')
extra = sys.argv[3] if len(sys.argv) > 3 else ''
if extra == 'report':
    rows = [''.join(tr.find('td').itertext()) for tr in ids['fs-regions-table'].find('tbody')]
    want = [evil, evil + '/</section><script>alert(2)</script>', evil + '/" onmouseover="alert(3)']
    if rows != want:
        problems.append('regions: %r' % rows)
    li = ids['fs-diagnostics'].find('ul/li')
    if ''.join(li.itertext()) != "evil.cpp:1 in <f>: problem with <b>markup</b> & 'quotes'":
        problems.append('diagnostic: %r' % ''.join(li.itertext()))
    summary = {tr.get('data-key'): tr.findall('td')[1] for tr in ids['fs-summary-table'].find('tbody')}
    if summary['work'].get('data-sort-value') != '100000' or summary['work'].text != '100,000 units':
        problems.append('work cell: %r %r' % (summary['work'].get('data-sort-value'), summary['work'].text))
if extra == 'sites':
    def cells(table_id, column):
        return [''.join(tr.findall('td')[column].itertext()) for tr in ids[table_id].find('tbody')]
    want = [evil, 'root', '" onclick="alert(5)', 'neg']
    if cells('fs-call-sites-table', 0) != want:
        problems.append('call sites: %r' % cells('fs-call-sites-table', 0))
    if cells('fs-call-sites-table', 1) != ['f<T>()', 'main', "h & 'i'", 'g']:
        problems.append('functions: %r' % cells('fs-call-sites-table', 1))
    title = ids['fs-call-sites-table'].find('tbody').find('tr').find('td').get('title')
    if title != '</td><td>x.cpp:7 in f<T>() (tag ' + evil + ')':
        problems.append('site title: %r' % title)
    if cells('fs-spawn-sites-table', 0) != ['<script>alert(6)</script>', 'root']:
        problems.append('spawn sites: %r' % cells('fs-spawn-sites-table', 0))
    if cells('fs-spawn-sites-table', 1) != [evil, 'main']:
        problems.append('spawn functions: %r' % cells('fs-spawn-sites-table', 1))
    heads = ids['fs-call-sites-table'].find('thead').findall('tr')[-1].findall('th')
    sorted_heads = [th.get('data-key') for th in heads if th.get('aria-sort')]
    if sorted_heads != ['local_on_span_span'] or len(heads) != 15:
        problems.append('call-site headings: %d, sorted by %r' % (len(heads), sorted_heads))
    for f, t in (('fs-call-sites-filter', 'fs-call-sites-table'), ('fs-spawn-sites-filter', 'fs-spawn-sites-table')):
        box = ids[f]
        if box.tag != 'input' or box.get('data-table') != t or box.get('data-status') not in ids:
            problems.append('filter %s: %r' % (f, box.attrib))
        if ids[t].get('data-filter-columns') != '0 1':
            problems.append('filter columns of %s: %r' % (t, ids[t].get('data-filter-columns')))
if extra == 'whatif':
    def cells(column):
        return [''.join(tr.findall('td')[column].itertext()) for tr in ids['fs-what-if-table'].find('tbody')]
    if cells(0) != ['(all regions)', '(all regions)', evil, evil, 'missing.cpp:12']:
        problems.append('what-if regions: %r' % cells(0))
    if cells(3) != ['2', 'inf', '2', 'inf', '']:
        problems.append('what-if factors: %r' % cells(3))
    if cells(7) != ['16.67', 'inf', '12.50', '25.00', '']:
        problems.append('what-if parallelism: %r' % cells(7))
    if cells(6)[4] != 'never executed':
        problems.append('never executed row: %r' % cells(6))
    title = ids['fs-what-if-table'].find('tbody').findall('tr')[2].find('td').get('title')
    if title != '</td>.cpp:57 in f<T>() (tag ' + evil + ')':
        problems.append('what-if title: %r' % title)
    box = ids['fs-what-if-filter']
    if box.get('data-table') != 'fs-what-if-table' or ids['fs-what-if-table'].get('data-filter-columns') != '0 1':
        problems.append('what-if filter: %r' % box.attrib)
if extra == 'study':
    li = ids['fs-warnings'].find('ul/li')
    if li.text != 'warning: ' + evil:
        problems.append('warning: %r' % li.text)
    rows = ids['fs-study-runs-table'].find('tbody').findall('tr')
    keys = [tr.get('data-key') for tr in rows]
    if keys != ['1', '2', '4']:
        problems.append('runs: %r' % keys)
    if rows[2].get('class') != 'fs-oversubscribed' or rows[1].get('class') is not None:
        problems.append('oversubscribed rows: %r' % [tr.get('class') for tr in rows])
    svgs = [e for e in root.iter() if e.tag.endswith('svg')]
    if [s.get('id') for s in svgs] != ['fs-plot-factored', 'fs-plot-scalability']:
        problems.append('svgs: %r' % [s.get('id') for s in svgs])
print('\n'.join(problems) if problems else 'ok')
sys.exit(1 if problems else 0)
)py";

}  // namespace

TEST(HtmlEscape, MarkupIsText) {
  EXPECT_EQ(fs::html_escape(evil), "&lt;img src=x onerror=alert(1)&gt;");
  EXPECT_EQ(fs::html_escape("a & b \"c\" 'd'"), "a &amp; b &quot;c&quot; &#39;d&#39;");
  EXPECT_EQ(fs::html_escape("line\nbreak\x7f"), "line\\nbreak\\x7f");
  EXPECT_EQ(fs::html_escape("\xC3\xA9t\xC3\xA9 \xFF"), "\xC3\xA9t\xC3\xA9 \xEF\xBF\xBD");
}

TEST(HtmlEscape, Sha256AndBase64) {
  namespace dh = fs::detail::html;
  EXPECT_EQ(dh::base64(dh::sha256("")), "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
  EXPECT_EQ(dh::base64(dh::sha256("abc")), "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
  EXPECT_EQ(dh::base64(dh::sha256(std::string(1000, 'a'))), "Qe3s5C1j6Nm/UVqbppMuHCDLyfWl0TRkWttdsblzfqM=");
  EXPECT_EQ(dh::base64("f"), "Zg==");
  EXPECT_EQ(dh::base64("fo"), "Zm8=");
  EXPECT_EQ(dh::base64("foo"), "Zm9v");
}

TEST_F(Html, ReportPageEscapesEverythingAndLoadsNothing) {
  const std::string html = fs::to_html(evil_report());
  expect_self_contained(html);
  EXPECT_TRUE(contains(html, "&lt;img src=x onerror=alert(1)&gt;"));
  EXPECT_FALSE(contains(html, "alert(2)</script>"));
  EXPECT_TRUE(contains(html, "&lt;/section&gt;&lt;script&gt;alert(2)&lt;/script&gt;"));
  EXPECT_TRUE(contains(html, "&quot; onmouseover=&quot;alert(3)"));
  for (const char* id : {"id=\"fs-summary\"", "id=\"fs-speedup-estimate\"", "id=\"fs-regions\"", "id=\"fs-plots\"",
                         "id=\"fs-diagnostics\"", "id=\"fs-plot-scalability\"", "class=\"fs-table fs-sortable\""})
    EXPECT_TRUE(contains(html, id)) << id;
  // Summary before the estimate before the regions before the plots before the diagnostics.
  EXPECT_LT(html.find("id=\"fs-summary\""), html.find("id=\"fs-speedup-estimate\""));
  EXPECT_LT(html.find("id=\"fs-speedup-estimate\""), html.find("id=\"fs-regions\""));
  EXPECT_LT(html.find("id=\"fs-regions\""), html.find("id=\"fs-plots\""));
  EXPECT_LT(html.find("id=\"fs-plots\""), html.find("id=\"fs-diagnostics\""));

  if (!python_available()) GTEST_SKIP() << "python3 is not available: the XML checks are skipped";
  const stdfs::path file = dir_ / "report.html";
  fs::write_html(evil_report(), file.string());
  std::string out;
  EXPECT_EQ(run_python(check_page,
                       file.string() + "\" \"fs-title,fs-summary,fs-summary-table,fs-speedup-estimate,"
                                       "fs-speedup-estimate-table,fs-regions,fs-regions-table,fs-plots,"
                                       "fs-plot-scalability,fs-diagnostics,fs-toc\" \"report",
                       out),
            0)
      << out;
}

TEST_F(Html, SiteTablesEscapeSortAndFilter) {
  const fs::report rep = evil_site_report();
  const std::string html = fs::to_html(rep);
  expect_self_contained(html);
  // Sections in their reserved places: after the regions, before the plots.
  for (const char* id : {"fs-regions", "fs-call-sites", "fs-spawn-sites", "fs-plots"})
    EXPECT_TRUE(contains(html, std::string("<section id=\"") + id + "\"")) << id;
  EXPECT_LT(html.find("<section id=\"fs-regions\""), html.find("<section id=\"fs-call-sites\""));
  EXPECT_LT(html.find("<section id=\"fs-call-sites\""), html.find("<section id=\"fs-spawn-sites\""));
  EXPECT_LT(html.find("<section id=\"fs-spawn-sites\""), html.find("<section id=\"fs-plots\""));
  EXPECT_TRUE(contains(html, "<li><a href=\"#fs-call-sites\">Call sites</a></li>"));
  EXPECT_EQ(std::string(fs::html_section_ids::call_sites), "fs-call-sites");
  EXPECT_EQ(std::string(fs::html_section_ids::spawn_sites), "fs-spawn-sites");

  const std::string calls = element(html, "table", "fs-call-sites-table");
  const std::string spawns = element(html, "table", "fs-spawn-sites-table");
  ASSERT_FALSE(calls.empty());
  ASSERT_FALSE(spawns.empty());
  EXPECT_TRUE(contains(calls, "class=\"fs-table fs-sortable fs-filterable\""));
  // One row per site; the call sites by local span on span, largest first (ties
  // in the report's order), the spawn sites by critical span.
  EXPECT_EQ(count(calls, "<tr"), 2u + rep.call_sites.size());  // two heading rows
  EXPECT_EQ(count(spawns, "<tr"), 1u + rep.spawn_sites.size());
  EXPECT_EQ(first_cells(calls), (std::vector<std::string>{evil, "root", "\" onclick=\"alert(5)", "neg"}));
  EXPECT_EQ(first_cells(spawns), (std::vector<std::string>{"<script>alert(6)</script>", "root"}));
  // Every string is escaped: names, functions, tags and files.
  EXPECT_TRUE(contains(calls, ">&lt;img src=x onerror=alert(1)&gt;</td>"));
  EXPECT_TRUE(contains(
      calls, "title=\"&lt;/td&gt;&lt;td&gt;x.cpp:7 in f&lt;T&gt;() (tag &lt;img src=x onerror=alert(1)&gt;)\""));
  EXPECT_TRUE(contains(calls, ">f&lt;T&gt;()</td>"));
  EXPECT_TRUE(contains(calls, ">&quot; onclick=&quot;alert(5)</td>"));
  EXPECT_TRUE(contains(calls, ">h &amp; &#39;i&#39;</td>"));
  EXPECT_TRUE(contains(spawns, ">&lt;script&gt;alert(6)&lt;/script&gt;</td>"));
  EXPECT_FALSE(contains(html, "alert(6)</script>"));
  EXPECT_FALSE(contains(html, "onclick=\"alert"));
  // Numbers: exact sort values, signed spans, the share of the span.
  EXPECT_TRUE(contains(calls, "<td class=\"num\" data-sort-value=\"-100\">-100</td>"));
  EXPECT_TRUE(contains(calls, "<td class=\"num\" data-sort-value=\"2000\">2,000</td>"));
  EXPECT_TRUE(contains(calls, ">80.0 %</td>"));  // 2000 of the span 2500
  EXPECT_TRUE(contains(spawns, ">88.0 %</td>"));
  // The default column is marked, every column has a stable key, the recursive mark shows.
  EXPECT_TRUE(contains(calls, "data-key=\"local_on_span_span\" title=\"local span on span\" aria-sort=\"descending\""));
  EXPECT_TRUE(contains(spawns,
                       "data-key=\"critical_span\" title=\"the tasks&#39; own strands on the critical path\" "
                       "aria-sort=\"descending\""));
  EXPECT_EQ(count(calls, "aria-sort="), 1u);
  EXPECT_EQ(count(calls, "<th scope=\"col\" data-key="), 15u);
  EXPECT_EQ(count(spawns, "<th scope=\"col\" data-key="), 9u);
  EXPECT_EQ(count(calls, "<td>yes</td>"), 1u);
  EXPECT_EQ(count(calls, "<tr class=\"fs-root\">"), 1u);
  // The filter boxes name their tables; the script filters and sorts.
  EXPECT_TRUE(contains(html,
                       "<input type=\"search\" id=\"fs-call-sites-filter\" class=\"fs-filter\" "
                       "data-table=\"fs-call-sites-table\" data-status=\"fs-call-sites-filter-status\""));
  EXPECT_TRUE(contains(html, "id=\"fs-spawn-sites-filter\" class=\"fs-filter\" data-table=\"fs-spawn-sites-table\""));
  EXPECT_TRUE(contains(calls, "data-filter-columns=\"0 1\""));
  namespace dh = fs::detail::html;
  const std::string& js = dh::sort_script();
  EXPECT_TRUE(contains(js, "input.fs-filter"));
  EXPECT_TRUE(contains(js, "table.fs-sortable"));
  EXPECT_TRUE(contains(html, "<script>" + js + "</script>"));
  // The one inline script is the one the CSP allows (by its hash), and nothing inline else.
  EXPECT_TRUE(contains(html, "script-src &#39;sha256-" + dh::base64(dh::sha256(js)) + "&#39;"));
  EXPECT_FALSE(contains(html, "unsafe-inline"));
  EXPECT_FALSE(contains(js, "<"));  // keeps the page well-formed XML
  EXPECT_FALSE(contains(js, "&"));

  if (!python_available()) GTEST_SKIP() << "python3 is not available: the XML checks are skipped";
  const stdfs::path file = dir_ / "sites.html";
  fs::write_html(rep, file.string());
  std::string out;
  EXPECT_EQ(run_python(check_page,
                       file.string() + "\" \"fs-title,fs-call-sites,fs-call-sites-table,fs-call-sites-filter,"
                                       "fs-spawn-sites,fs-spawn-sites-table,fs-spawn-sites-filter,fs-plots\" \"sites",
                       out),
            0)
      << out;
}

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

fs::what_if_result what_if_row(const std::string& region, fs::what_if_source source, fs::what_if_model model,
                               double factor, double work, double span) {
  fs::what_if_result w;
  w.region = region;
  w.source = source;
  w.model = model;
  w.factor = factor;
  w.executed = true;
  w.entries = 3;
  w.region_work = 600;
  w.work = work;
  w.span = span;
  w.burdened_span = span + 100;
  w.parallelism = span > 0 ? work / span : inf;
  w.gain = w.parallelism / 40.0;
  return w;
}

// evil_report() (work 100,000, span 2,500: parallelism 40) with what-if rows:
// the all-regions rows (infinite parallelism at inf), a region whose tag,
// file and function carry markup, and a named call site that never ran.
fs::report evil_what_if_report() {
  fs::report r = evil_report();
  using M = fs::what_if_model;
  using S = fs::what_if_source;
  r.what_if = {what_if_row("(all regions)", S::all, M::parallelized, 2, 100000, 6000),
               what_if_row("(all regions)", S::all, M::optimized, 2, 80000, 6000),
               what_if_row("(all regions)", S::all, M::parallelized, inf, 100000, 0),
               what_if_row("(all regions)", S::all, M::optimized, inf, 60000, 0),
               what_if_row(evil, S::region, M::parallelized, 2, 100000, 8000),
               what_if_row(evil, S::region, M::optimized, 2, 80000, 8000),
               what_if_row(evil, S::region, M::parallelized, inf, 100000, 4000),
               what_if_row(evil, S::region, M::optimized, inf, 60000, 4000)};
  for (std::size_t i = 4; i < 8; ++i) {
    r.what_if[i].file = "</td>.cpp";
    r.what_if[i].line = 57;
    r.what_if[i].function = "f<T>()";
    r.what_if[i].tag = evil;
  }
  for (const double k : {2.0, inf})
    for (const M m : {M::parallelized, M::optimized}) {
      fs::what_if_result w;
      w.region = "missing.cpp:12";
      w.source = S::call_site;
      w.model = m;
      w.factor = k;
      r.what_if.push_back(w);
    }
  return r;
}

}  // namespace

TEST_F(Html, WhatIfTableEscapesSortsAndFilters) {
  const fs::report rep = evil_what_if_report();
  const std::string html = fs::to_html(rep);
  expect_self_contained(html);
  EXPECT_EQ(std::string(fs::html_section_ids::what_if), "fs-what-if");
  EXPECT_TRUE(contains(html, "<li><a href=\"#fs-what-if\">What if</a></li>"));
  // In its reserved place: after the regions (and site tables), before the plots.
  EXPECT_LT(html.find("<section id=\"fs-regions\""), html.find("<section id=\"fs-what-if\""));
  EXPECT_LT(html.find("<section id=\"fs-what-if\""), html.find("<section id=\"fs-plots\""));
  const std::string table = element(html, "table", "fs-what-if-table");
  ASSERT_FALSE(table.empty());
  EXPECT_TRUE(contains(table, "class=\"fs-table fs-sortable fs-filterable\" data-filter-columns=\"0 1\""));
  // One row per region and factor (both models on it); one for the call site that never ran.
  EXPECT_EQ(count(table, "<tr"), 2u + 2u + 2u + 1u);
  EXPECT_EQ(first_cells(table),
            (std::vector<std::string>{"(all regions)", "(all regions)", evil, evil, "missing.cpp:12"}));
  EXPECT_EQ(count(table, "<tr class=\"fs-never\""), 1u);
  EXPECT_EQ(count(table, ">never executed</td>"), 1u);
  EXPECT_EQ(count(table, "<tr class=\"fs-root\""), 2u);
  // Escaped: the region's name, its title (file, function, tag) and its key.
  EXPECT_TRUE(contains(table, ">&lt;img src=x onerror=alert(1)&gt;</td>"));
  EXPECT_TRUE(contains(table, "title=\"&lt;/td&gt;.cpp:57 in f&lt;T&gt;() (tag &lt;img src=x onerror=alert(1)&gt;)\""));
  EXPECT_TRUE(contains(table, ">f&lt;T&gt;()</td>"));
  EXPECT_FALSE(contains(table, "<img"));
  // Infinity shows as inf and sorts above every number.
  EXPECT_TRUE(contains(table, "<td class=\"num\" data-sort-value=\"1.7976931348623157e+308\">inf</td>"));
  EXPECT_TRUE(contains(table, "<td class=\"num\" data-sort-value=\"12.5\">12.50</td>"));
  EXPECT_TRUE(contains(table, "<td class=\"num\" data-sort-value=\"0.625\">0.62x</td>"));  // optimized gain: 10 / 40
  EXPECT_TRUE(contains(html,
                       "<input type=\"search\" id=\"fs-what-if-filter\" class=\"fs-filter\" "
                       "data-table=\"fs-what-if-table\" data-status=\"fs-what-if-filter-status\""));
  EXPECT_EQ(count(table, "<th scope=\"col\" data-key="), 12u);

  // No rows, no section; a study shows its profile's.
  EXPECT_FALSE(contains(fs::to_html(evil_report()), "fs-what-if"));
  fs::study_result s = evil_study();
  s.profile = rep;
  EXPECT_TRUE(contains(fs::to_html(s), "<section id=\"fs-what-if\""));

  if (!python_available()) GTEST_SKIP() << "python3 is not available: the XML checks are skipped";
  const stdfs::path file = dir_ / "what_if.html";
  fs::write_html(rep, file.string());
  std::string out;
  EXPECT_EQ(run_python(check_page,
                       file.string() + "\" \"fs-title,fs-what-if,fs-what-if-table,fs-what-if-filter\" \"whatif", out),
            0)
      << out;
}

TEST(HtmlPage, NoSiteSectionsWithoutProfiles) {
  const std::string html = fs::to_html(evil_report());
  EXPECT_FALSE(contains(html, "fs-call-sites"));
  EXPECT_FALSE(contains(html, "fs-spawn-sites"));
  EXPECT_FALSE(contains(html, "<input"));
  // Only spawn sites: only that section.
  fs::report r = evil_site_report();
  r.call_sites.clear();
  const std::string spawns_only = fs::to_html(r);
  EXPECT_FALSE(contains(spawns_only, "id=\"fs-call-sites\""));
  EXPECT_TRUE(contains(spawns_only, "id=\"fs-spawn-sites\""));
  // A study shows its profile's sites.
  fs::study_result s = evil_study();
  s.profile = evil_site_report();
  const std::string study = fs::to_html(s);
  EXPECT_TRUE(contains(study, "<section id=\"fs-call-sites\""));
  EXPECT_TRUE(contains(study, "<section id=\"fs-spawn-sites\""));
  EXPECT_LT(study.find("<section id=\"fs-spawn-sites\""), study.find("<section id=\"fs-plots\""));
}

TEST_F(Html, StudyPageHasEverySection) {
  const std::string html = fs::to_html(evil_study());
  expect_self_contained(html);
  EXPECT_FALSE(contains(html, "<img"));
  for (const char* id :
       {"fs-study-summary", "fs-warnings", "fs-study-runs", "fs-study-speedups", "fs-bandwidth-probe", "fs-summary",
        "fs-speedup-estimate", "fs-regions", "fs-plots", "fs-plot-factored", "fs-plot-scalability", "fs-diagnostics"})
    EXPECT_TRUE(contains(html, std::string("id=\"") + id + "\"")) << id;
  EXPECT_TRUE(contains(html, "class=\"fs-oversubscribed\""));
  if (!python_available()) GTEST_SKIP() << "python3 is not available: the XML checks are skipped";
  const stdfs::path file = dir_ / "study.html";
  fs::write_html(evil_study(), file.string());
  std::string out;
  EXPECT_EQ(run_python(check_page,
                       file.string() + "\" \"fs-title,fs-study-summary,fs-warnings,fs-study-runs-table,"
                                       "fs-study-speedups-table,fs-bandwidth-probe,fs-plot-factored\" \"study",
                       out),
            0)
      << out;
}

TEST(HtmlPage, SectionsAreOrderedAndIdsChecked) {
  fs::html_report page("custom");
  page.add_section("late", "Late", "<p>late</p>", 900);
  page.add_section("early", "Early", "<p>" + fs::html_escape(evil) + "</p>", 10);
  page.add_section("middle", "Middle", "<p>middle</p>", fs::html_order::call_sites);
  const std::string html = page.str();
  EXPECT_LT(html.find("id=\"early\""), html.find("id=\"middle\""));
  EXPECT_LT(html.find("id=\"middle\""), html.find("id=\"late\""));
  EXPECT_TRUE(contains(html, "<li><a href=\"#early\">Early</a></li>"));
  EXPECT_THROW(page.add_section("early", "Again", "", 1), fs::error);
  EXPECT_THROW(page.add_section("bad id", "X", "", 1), fs::error);
  EXPECT_THROW(page.add_section("\"><script>", "X", "", 1), fs::error);
  EXPECT_THROW(page.add_section("", "X", "", 1), fs::error);
  // A report and a study cannot both fill the same sections.
  fs::html_report both("both");
  both.add_study(evil_study());
  EXPECT_THROW(both.add_report(evil_report()), fs::error);
}

TEST_F(Html, WriteIsAtomicAndReportsErrors) {
  const stdfs::path file = dir_ / "x.html";
  fs::write_html(evil_report(), file.string());
  EXPECT_TRUE(stdfs::exists(file));
  try {
    fs::write_html(evil_report(), (dir_ / "missing" / "x.html").string());
    FAIL() << "wrote into a missing directory";
  } catch (const fs::error& e) {
    EXPECT_TRUE(contains(e.what(), "No such file or directory")) << e.what();
  }
}
