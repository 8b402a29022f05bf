// Plots (plot.hpp, detail/svg.hpp): the SVG files parse as XML (Python's
// xml.etree, an independent parser) and every plotted point, curve vertex,
// error bar and gap matches the numbers in the study's JSON, through the
// coordinate mapping the SVG declares; the gnuplot data holds the same numbers.
// Without python3 the XML tests are skipped, never passed.
#include <forkscale/detail/output/svg.hpp>
#include <forkscale/forkscale.hpp>
#include <forkscale/study/plot.hpp>
#include <forkscale/study/study.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace fs = forkscale;
namespace stdfs = std::filesystem;

namespace {

std::string read_file(const stdfs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const stdfs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary);
  out << s;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A study with every curve: elision, an oversubscribed P, a probe, a profile.
fs::study_result study() {
  fs::study_result s;
  s.label = "sort <&> \"quoted\" \x01 \xEF\xBF\xBE";
  s.clock = fs::clock_kind::tsc;
  s.hardware_threads = 4;
  s.repetitions = 3;
  s.baseline = fs::sample_stats::of({8000, 8100, 7900});
  s.elision = fs::sample_stats::of({8400, 8500, 8300});
  const unsigned ps[] = {1, 2, 4, 8};
  for (const unsigned p : ps) {
    fs::study_point pt;
    pt.processors = p;
    pt.oversubscribed = p > 4;
    const double t = 10000.0 / p + 200.0 * p;
    pt.time = fs::sample_stats::of({t, t * 1.02, t * 0.97});
    const double w = 9900 + 150.0 * (p - 1);
    pt.raw_work = fs::sample_stats::of({w, w + 30, w - 30});
    pt.work = fs::sample_stats::of({w - 100, w - 70, w - 130});
    pt.span = fs::sample_stats::of({1500, 1510, 1490});
    pt.burdened_span = fs::sample_stats::of({2500, 2510, 2490});
    pt.spawns = fs::sample_stats::of({100, 100, 100});
    s.points.push_back(pt);
  }
  s.profile.label = "sort";
  s.profile.unit = "ns";
  s.profile.clock = fs::clock_kind::tsc;
  fs::region_result root;
  root.label = root.path = "sort";
  root.instances = 1;
  root.work = root.raw_work = 10000;
  root.span = root.raw_span = 1600;
  root.burdened_span = 2600;
  s.profile.regions.push_back(root);
  s.probe_alone = fs::sample_stats::of({1000, 1010, 990});
  for (const unsigned c : {2u, 4u, 8u}) {
    fs::bandwidth_point b;
    b.copies = c;
    b.oversubscribed = c > 4;
    b.together = fs::sample_stats::of({1000.0 + 100 * c, 1010.0 + 100 * c, 990.0 + 100 * c});
    s.bandwidth.push_back(b);
  }
  s.recompute();
  return s;
}

class Plot : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<unsigned> counter{0};
    dir_ = stdfs::temp_directory_path() /
           ("forkscale_plot_test_" + std::to_string(std::random_device{}()) + "_" + std::to_string(counter++));
    stdfs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    stdfs::remove_all(dir_, ec);
  }
  bool python_available() {
    return std::system(
               ("python3 -c \"import json, xml.etree.ElementTree\" > \"" + (dir_ / "probe").string() + "\" 2>&1")
                   .c_str()) == 0;
  }
  int run_python(const std::string& script, const std::vector<std::string>& args, std::string& output) {
    const stdfs::path py = dir_ / "check.py", out = dir_ / "out.txt";
    write_file(py, script);
    std::string cmd = "python3 \"" + py.string() + "\"";
    for (const auto& a : args) cmd += " \"" + a + "\"";
    cmd += " > \"" + out.string() + "\" 2>&1";
    const int rc = std::system(cmd.c_str());
    output = read_file(out);
    return rc;
  }
  stdfs::path dir_;
};

// Checks every data-bearing element of an SVG plot of a study against the JSON.
const char* const check_study_plots = R"py(
import json, math, re, sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'
study = json.load(open(sys.argv[1]))
runs = {r['processors']: r for r in study['runs']}
bounds = study['bounds']
problems = []
checked = {'points': 0, 'vertices': 0, 'errorbars': 0, 'gaps': 0}

def close(a, b, tol=1e-9):
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))

def mapping(root):
    f = lambda k: float(root.get('data-' + k))
    L, T, W, H = f('plot-left'), f('plot-top'), f('plot-width'), f('plot-height')
    x0, x1, y0, y1 = f('x-min'), f('x-max'), f('y-min'), f('y-max')
    return (lambda x: L + (x - x0) / (x1 - x0) * W), (lambda y: T + H - (y - y0) / (y1 - y0) * H)

def center(e):
    tag = e.tag.replace(NS, '')
    if tag == 'circle':
        return float(e.get('cx')), float(e.get('cy'))
    if tag == 'rect':
        return float(e.get('x')) + 4, float(e.get('y')) + 4
    m = re.match(r'M ([-\d.]+) ([-\d.]+)', e.get('d'))
    return float(m.group(1)), float(m.group(2)) + 5

def expected(series, p):
    r = runs[p]
    table = {'linear': r['speedup']['linear'], 'elision': r['speedup']['elision'],
             'maximal': r['speedup']['maximal'], 'idle-specific': r['speedup']['idle_specific'],
             'inflation-specific': r['speedup']['inflation_specific'], 'actual': r['speedup']['actual'],
             'measured': r['self_speedup']['value']}
    return table[series]

def curve_value(series, x):
    p = int(round(x))
    if series == 'work-law':
        return x
    if series == 'span-law':
        return bounds['parallelism']
    if series == 'burdened-lower-bound':
        return bounds['work'] / (bounds['work'] / p + 1.7 * bounds['burdened_span'])
    return expected(series, p)

def check(path, kind):
    root = ET.parse(path).getroot()
    if root.tag != NS + 'svg':
        problems.append(path + ': root is ' + root.tag)
        return
    X, Y = mapping(root)
    for e in root.iter():
        cls = (e.get('class') or '').split()
        s = e.get('data-series')
        if 'point' in cls:
            x, y = float(e.get('data-x')), float(e.get('data-y'))
            want = expected(s, int(x))
            if not close(y, want):
                problems.append('%s %s P=%s: data-y %r, JSON %r' % (kind, s, x, y, want))
            cx, cy = center(e)
            if abs(cx - X(x)) > 0.011 or abs(cy - Y(y)) > 0.011:
                problems.append('%s %s P=%s: drawn at (%s, %s), expected (%s, %s)' % (kind, s, x, cx, cy, X(x), Y(y)))
            hollow = 'hollow' in cls
            if hollow != runs[int(x)]['oversubscribed']:
                problems.append('%s %s P=%s: hollow=%s' % (kind, s, x, hollow))
            checked['points'] += 1
        elif 'curve' in cls:
            for pair in e.get('points').split():
                px, py = map(float, pair.split(','))
                x0, x1 = float(root.get('data-x-min')), float(root.get('data-x-max'))
                L, W = float(root.get('data-plot-left')), float(root.get('data-plot-width'))
                T, H = float(root.get('data-plot-top')), float(root.get('data-plot-height'))
                y0, y1 = float(root.get('data-y-min')), float(root.get('data-y-max'))
                x = x0 + (px - L) / W * (x1 - x0)
                y = y0 + (T + H - py) / H * (y1 - y0)
                want = curve_value(s, round(x))
                if abs(x - round(x)) > 0.01 or abs(Y(want) - py) > 0.011:
                    problems.append('%s %s vertex (%s, %s): x %s, expected y %s' % (kind, s, px, py, x, want))
                checked['vertices'] += 1
        elif 'errorbar' in cls:
            p = int(float(e.get('data-x')))
            lo, hi = float(e.get('data-low')), float(e.get('data-high'))
            r = runs[p]
            if s == 'actual':
                want = (r['speedup']['actual_low'], r['speedup']['actual_high'])
            else:
                want = (r['self_speedup']['low'], r['self_speedup']['high'])
            if not (close(lo, want[0]) and close(hi, want[1])):
                problems.append('%s errorbar P=%d: %r %r vs %r' % (kind, p, lo, hi, want))
            if abs(float(e.get('y1')) - Y(lo)) > 0.011 or abs(float(e.get('y2')) - Y(hi)) > 0.011:
                problems.append('%s errorbar P=%d drawn at the wrong height' % (kind, p))
            checked['errorbars'] += 1
        elif e.get('class') == 'gap':
            last = runs[max(runs)]['speedup']
            pairs = {'A': ('linear', 'maximal'), 'E': ('elision', 'maximal'), 'B': ('maximal', 'idle_specific'),
                     'C': ('maximal', 'inflation_specific'), 'D': ('maximal', 'actual')}
            a, b = pairs[e.get('data-gap')]
            if not (close(float(e.get('data-from')), last[a]) and close(float(e.get('data-to')), last[b])):
                problems.append('gap %s: %s %s' % (e.get('data-gap'), e.get('data-from'), e.get('data-to')))
            checked['gaps'] += 1

check(sys.argv[2], 'factored')
check(sys.argv[3], 'scalability')
# 4 P x 5 marked curves in the factored plot (linear has no markers), 4 measured
# points in the scalability plot.
if checked['points'] != 4 * 5 + 4:
    problems.append('points checked: %d' % checked['points'])
if checked['gaps'] != 5:
    problems.append('gaps checked: %d' % checked['gaps'])
if checked['errorbars'] != 8:
    problems.append('errorbars checked: %d' % checked['errorbars'])
if checked['vertices'] < 4 * 6 + 8 + 2 + 8:
    problems.append('vertices checked: %d' % checked['vertices'])
# The title is the label, as text.
title = ET.parse(sys.argv[2]).getroot().find(NS + 'title').text
if title != 'Factored speedups: ' + study['label'].replace('\x01', '\\x01').replace('\ufffe', '\ufffd'):
    problems.append('title: %r' % title)
print('\n'.join(problems) if problems else 'ok %r' % checked)
sys.exit(1 if problems else 0)
)py";

}  // namespace

TEST_F(Plot, SvgPointsMatchTheStudyJson) {
  if (!python_available()) GTEST_SKIP() << "python3 with json and xml.etree is not available";
  const fs::study_result s = study();
  s.write_json((dir_ / "study.json").string());
  fs::write_plots(s, (dir_ / "sort").string());
  std::string out;
  const int rc = run_python(
      check_study_plots,
      {(dir_ / "study.json").string(), (dir_ / "sort-factored.svg").string(), (dir_ / "sort-scalability.svg").string()},
      out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_TRUE(contains(out, "ok")) << out;
}

TEST_F(Plot, ReportBoundsPlotMatchesTheReport) {
  if (!python_available()) GTEST_SKIP() << "python3 with json and xml.etree is not available";
  fs::report r;
  r.label = "<img src=x onerror=alert(1)>";
  r.unit = "units";
  r.max_processors = 16;
  fs::region_result g;
  g.label = g.path = r.label;
  g.work = g.raw_work = 5570609776ull;
  g.span = g.raw_span = 261374874ull;
  g.burdened_span = 262078779ull;
  r.regions.push_back(g);
  write_file(dir_ / "bounds.svg", fs::scalability_svg(r));
  const char* script = R"py(
import sys
import xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
f = lambda k: float(root.get('data-' + k))
L, T, W, H = f('plot-left'), f('plot-top'), f('plot-width'), f('plot-height')
x0, x1, y0, y1 = f('x-min'), f('x-max'), f('y-min'), f('y-max')
work, bspan, par = 5570609776.0, 262078779.0, 5570609776.0 / 261374874.0
seen = {}
for e in root.iter(NS + 'polyline'):
    s = e.get('data-series')
    for pair in e.get('points').split():
        px, py = map(float, pair.split(','))
        x = x0 + (px - L) / W * (x1 - x0)
        y = y0 + (T + H - py) / H * (y1 - y0)
        want = {'work-law': x, 'span-law': par, 'burdened-lower-bound': work / (work / round(x) + 1.7 * bspan)}[s]
        assert abs(y - want) * H / (y1 - y0) < 0.011, (s, x, y, want)
        seen[s] = seen.get(s, 0) + 1
assert seen == {'work-law': 16, 'span-law': 2, 'burdened-lower-bound': 16}, seen
assert root.find(NS + 'title').text == 'Scalability: <img src=x onerror=alert(1)>'
assert not list(root.iter(NS + 'img'))
print('ok')
)py";
  std::string out;
  EXPECT_EQ(run_python(script, {(dir_ / "bounds.svg").string()}, out), 0) << out;
}

TEST_F(Plot, GnuplotDataHoldsTheSameNumbers) {
  const fs::study_result s = study();
  const fs::gnuplot_files f = fs::factored_speedup_gnuplot(s, "x.dat");
  std::istringstream in(f.data);
  std::string line;
  std::size_t rows = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream cols(line);
    unsigned p;
    double linear, elision, maximal, idle, infl, actual, lo, hi;
    int over;
    cols >> p >> linear >> elision >> maximal >> idle >> infl >> actual >> lo >> hi >> over;
    const fs::study_point* pt = s.at(p);
    ASSERT_NE(pt, nullptr);
    EXPECT_EQ(linear, pt->speedup.linear);
    EXPECT_EQ(elision, pt->speedup.elision);
    EXPECT_EQ(maximal, pt->speedup.maximal);
    EXPECT_EQ(idle, pt->speedup.idle_specific);
    EXPECT_EQ(infl, pt->speedup.inflation_specific);
    EXPECT_EQ(actual, pt->speedup.actual);
    EXPECT_EQ(lo, pt->actual_low);
    EXPECT_EQ(hi, pt->actual_high);
    EXPECT_EQ(over != 0, pt->oversubscribed);
    ++rows;
  }
  EXPECT_EQ(rows, s.points.size());
  EXPECT_TRUE(contains(f.script, "plot 'x.dat' using 1:2"));
  EXPECT_TRUE(contains(f.script, "set arrow from"));
  for (const char* letter : {"'A'", "'B'", "'C'", "'D'", "'E'"}) EXPECT_TRUE(contains(f.script, letter)) << letter;
  // The label is one gnuplot string: quotes doubled, control characters shown.
  EXPECT_TRUE(contains(f.script, "set title 'Factored speedups: sort <&> \"quoted\" \\x01"));

  fs::study_result evil = s;
  evil.label = "x'; system('touch pwned'); '";
  const fs::gnuplot_files g = fs::scalability_gnuplot(evil, "y.dat");
  EXPECT_TRUE(contains(g.script, "set title 'Scalability: x''; system(''touch pwned''); ''' noenhanced"));
  std::size_t data_rows = 0;
  std::istringstream d(g.data);
  while (std::getline(d, line))
    if (!line.empty() && line[0] != '#') ++data_rows;
  EXPECT_EQ(data_rows, 8u);  // P = 1..8
}

// write_plots writes six files for one request: all of them or none. With the
// fourth target taken by a directory, the three before it keep their old
// contents (before the fix they were already replaced), and no temporary is left.
TEST_F(Plot, WritePlotsReplacesAllFilesOrNone) {
  const fs::study_result s = study();
  const std::string stem = (dir_ / "plots").string();
  const std::vector<std::string> suffixes = {"-factored.svg", "-scalability.svg", "-factored.dat",
                                             "-factored.gp",  "-scalability.dat", "-scalability.gp"};
  for (const std::string& x : suffixes) write_file(stem + x, "old " + x + "\n");
  stdfs::remove(stem + "-factored.gp");
  stdfs::create_directory(stem + "-factored.gp");
  try {
    fs::write_plots(s, stem);
    ADD_FAILURE() << "write_plots wrote onto a directory";
  } catch (const fs::error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("forkscale: cannot write report '" + stem + "-factored.gp': ", 0), 0u) << m;
    EXPECT_TRUE(contains(m, "none of the 6 files was replaced")) << m;
  }
  for (const std::string& x : suffixes) {
    if (x == "-factored.gp") continue;
    EXPECT_TRUE(read_file(stem + x) == "old " + x + "\n") << x << " was replaced";
  }
  EXPECT_TRUE(stdfs::is_directory(stem + "-factored.gp"));
  EXPECT_TRUE(stdfs::is_empty(stem + "-factored.gp"));
  for (const auto& e : stdfs::directory_iterator(dir_))
    EXPECT_FALSE(contains(e.path().filename().string(), ".tmp.")) << e.path();

  // With the directory gone, all six are written.
  stdfs::remove(stem + "-factored.gp");
  fs::write_plots(s, stem);
  EXPECT_EQ(read_file(stem + "-factored.svg"), fs::factored_speedup_svg(s));
  EXPECT_TRUE(contains(read_file(stem + "-factored.gp"), "plot 'plots-factored.dat'"));
  EXPECT_TRUE(contains(read_file(stem + "-scalability.gp"), "plot 'plots-scalability.dat'"));
}

// detail::write_files_atomically, which write_plots, the tool's gnuplot output
// and the examples' --out use (here, not in test_report_output.cpp, because
// this test is not built against the single header). A group of files is
// written together or not at all: with the second target
// taken by a directory, the first keeps its old contents and no temporary is
// left; a path named twice fails the group before anything is written.
TEST_F(Plot, TheGroupWriteBehindWritePlotsReplacesAllOrNone) {
  const stdfs::path first = dir_ / "first.txt", second = dir_ / "second.txt", third = dir_ / "third.txt";
  write_file(first, "old first\n");
  write_file(third, "old third\n");
  stdfs::create_directory(second);
  try {
    fs::detail::write_files_atomically(
        {{first.string(), "new first\n"}, {second.string(), "new second\n"}, {third.string(), "new third\n"}});
    ADD_FAILURE() << "a directory was written over";
  } catch (const fs::error& e) {
    EXPECT_EQ(std::string(e.what()), "forkscale: cannot write report '" + second.string() +
                                         "': Is a directory (none of the 3 files was replaced)");
  }
  EXPECT_EQ(read_file(first), "old first\n");
  EXPECT_EQ(read_file(third), "old third\n");
  EXPECT_TRUE(stdfs::is_directory(second));
  EXPECT_TRUE(stdfs::is_empty(second));
  std::vector<std::string> names;
  for (const auto& e : stdfs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"first.txt", "second.txt", "third.txt"}));

  try {
    fs::detail::write_files_atomically({{first.string(), "a"}, {third.string(), "b"}, {first.string(), "c"}});
    ADD_FAILURE() << "a path named twice was accepted";
  } catch (const fs::error& e) {
    EXPECT_NE(std::string(e.what()).find("named twice"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(first), "old first\n");

  stdfs::remove(second);
  fs::detail::write_files_atomically(
      {{first.string(), "new first\n"}, {second.string(), ""}, {third.string(), "new third\n"}});
  EXPECT_EQ(read_file(first), "new first\n");
  EXPECT_EQ(read_file(second), "");
  EXPECT_EQ(read_file(third), "new third\n");
  for (const auto& e : stdfs::directory_iterator(dir_))
    EXPECT_FALSE(contains(e.path().filename().string(), ".tmp.")) << e.path();
}

TEST(PlotSvg, EscapingAndNumbers) {
  namespace svg = fs::detail::svg;
  EXPECT_EQ(svg::escape("<a href='x'>&\"</a>"), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
  EXPECT_EQ(svg::escape("nl\nnul\x01"), "nl\\nnul\\x01");  // XML cannot carry control characters
  EXPECT_EQ(svg::escape("\xEF\xBF\xBE\xEF\xBF\xBF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // nor U+FFFE/U+FFFF
  EXPECT_EQ(svg::escape("bad \xFF"), "bad \xEF\xBF\xBD");
  EXPECT_EQ(svg::nice_step(10, 5), 2);
  EXPECT_EQ(svg::nice_step(7, 6), 2);
  EXPECT_DOUBLE_EQ(svg::nice_step(1, 4), 0.25);
  EXPECT_EQ(svg::short_number(2.5), "2.5");
  EXPECT_EQ(svg::short_number(3), "3");
  EXPECT_EQ(svg::short_number(123.4), "123");
}

TEST(PlotSvg, StandaloneAndInlineForms) {
  const fs::study_result s = study();
  const std::string file = fs::factored_speedup_svg(s);
  EXPECT_EQ(file.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  fs::plot_options inline_opt;
  inline_opt.standalone = false;
  inline_opt.id_prefix = "page2";
  const std::string in = fs::factored_speedup_svg(s, inline_opt);
  EXPECT_EQ(in.rfind("<svg id=\"page2-plot-factored\"", 0), 0u);
  EXPECT_FALSE(contains(in, "http"));
  EXPECT_FALSE(contains(in, "url("));
  EXPECT_FALSE(contains(in, "href"));
  // Gap descriptions and the oversubscription note are in the picture.
  EXPECT_TRUE(contains(in, "A  "));
  EXPECT_TRUE(contains(in, "idle time IP"));
  EXPECT_TRUE(contains(in, "work inflation FP"));
  EXPECT_TRUE(contains(in, "P above the 4 hardware threads"));
  // The scalability plot names its bounds honestly.
  const std::string sc = fs::scalability_svg(s, inline_opt);
  EXPECT_TRUE(contains(sc, "span law (upper)"));
  EXPECT_TRUE(contains(sc, "plain span"));
  EXPECT_TRUE(contains(sc, "burdened estimate (lower)"));
  EXPECT_TRUE(contains(sc, "not a guarantee"));
}

TEST(PlotSvg, EmptyAndDegenerateStudiesStillDraw) {
  fs::study_result s;
  const std::string a = fs::factored_speedup_svg(s);
  const std::string b = fs::scalability_svg(s);
  EXPECT_TRUE(contains(a, "</svg>"));
  EXPECT_TRUE(contains(b, "no span was measured"));
  fs::report empty;
  EXPECT_TRUE(contains(fs::scalability_svg(empty), "</svg>"));
}

namespace {

// The texts of an SVG element class ("legend", "note"...): x, font size (12
// unless the text sets its own) and the text, entities undone.
struct svg_text {
  double x = 0;
  double font_px = 12;
  std::string text;
};

std::string attribute(const std::string& tag, const std::string& name) {
  const std::size_t at = tag.find(" " + name + "=\"");
  if (at == std::string::npos) return "";
  const std::size_t start = at + name.size() + 3;
  return tag.substr(start, tag.find('"', start) - start);
}

std::string unescaped(std::string s) {
  for (const auto& [entity, c] : std::vector<std::pair<std::string, std::string>>{
           {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}}) {
    for (std::size_t at = s.find(entity); at != std::string::npos; at = s.find(entity, at + 1))
      s.replace(at, entity.size(), c);
  }
  return s;
}

std::vector<svg_text> texts_in(const std::string& svg, std::size_t from, std::size_t to) {
  std::vector<svg_text> out;
  for (std::size_t at = svg.find("<text", from); at < to; at = svg.find("<text", at + 1)) {
    const std::size_t open_end = svg.find('>', at);
    const std::string tag = svg.substr(at, open_end - at);
    svg_text t;
    t.x = std::stod(attribute(tag, "x"));
    if (!attribute(tag, "font-size").empty()) t.font_px = std::stod(attribute(tag, "font-size"));
    t.text = unescaped(svg.substr(open_end + 1, svg.find("</text>", open_end) - open_end - 1));
    out.push_back(t);
  }
  return out;
}

// The estimate a layout must leave room for: 0.65 em per character, which
// holds for the wide sans-serif fonts a viewer may pick (DejaVu Sans and Verdana
// average about 0.6 em on English text).
double estimated_width(const svg_text& t) {
  std::size_t code_points = 0;
  for (const char c : t.text)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++code_points;
  return 0.65 * t.font_px * static_cast<double>(code_points);
}

void expect_texts_fit(const std::string& svg, const std::string& what) {
  const std::size_t root = svg.find("<svg");
  ASSERT_NE(root, std::string::npos) << what;
  const std::string tag = svg.substr(root, svg.find('>', root) - root);
  std::istringstream box(attribute(tag, "viewBox"));
  double x0 = 0, y0 = 0, width = 0;
  box >> x0 >> y0 >> width;
  ASSERT_GT(width, 0) << what;
  EXPECT_EQ(std::stod(attribute(tag, "width")), width) << what;
  const std::size_t legend = svg.find("<g class=\"legend\">");
  ASSERT_NE(legend, std::string::npos) << what;
  const std::vector<svg_text> entries = texts_in(svg, legend, svg.find("</g>\n</g>", legend));
  EXPECT_FALSE(entries.empty()) << what;
  std::vector<svg_text> all = entries;
  for (const svg_text& note : texts_in(svg, legend, svg.size())) all.push_back(note);  // and the lines below
  for (const svg_text& t : all)
    EXPECT_LE(t.x + estimated_width(t), width)
        << what << ": '" << t.text << "' at x = " << t.x << " runs past " << width << " px";
}

}  // namespace

// Every legend entry (and every line under the chart) fits inside the viewBox,
// with room for a wide font.
TEST(PlotSvg, LegendFitsInsideTheViewBox) {
  const fs::study_result s = study();
  expect_texts_fit(fs::factored_speedup_svg(s), "factored");
  expect_texts_fit(fs::scalability_svg(s), "scalability of a study");
  fs::report r;
  r.label = "bounds";
  r.unit = "ns";
  r.max_processors = 64;
  fs::region_result root;
  root.label = root.path = "bounds";
  root.work = 5570609776;
  root.span = 261374874;
  root.burdened_span = 262078779;
  r.regions.push_back(root);
  expect_texts_fit(fs::scalability_svg(r), "scalability of a report");
}

// gnuplot puts its x ticks at whole numbers of processors (never at 0.5).
TEST(PlotGnuplot, TicksAtWholeProcessors) {
  const auto xtics = [](const std::string& script) {
    std::istringstream in(script);
    std::vector<std::string> found;
    for (std::string line; std::getline(in, line);)
      if (line.rfind("set xtics", 0) == 0) found.push_back(line);
    return found;
  };
  fs::study_result s = study();  // P up to 8
  EXPECT_EQ(xtics(fs::factored_speedup_gnuplot(s, "f.dat").script), std::vector<std::string>{"set xtics 0,1"});
  EXPECT_EQ(xtics(fs::scalability_gnuplot(s, "s.dat").script), std::vector<std::string>{"set xtics 0,1"});
  s.points.resize(2);  // P = 1, 2: gnuplot alone would tick every 0.5
  EXPECT_EQ(xtics(fs::factored_speedup_gnuplot(s, "f.dat").script), std::vector<std::string>{"set xtics 0,1"});
  EXPECT_EQ(xtics(fs::scalability_gnuplot(s, "s.dat").script), std::vector<std::string>{"set xtics 0,1"});
  fs::report r;
  r.max_processors = 64;  // ticks every 10 processors
  fs::region_result root;
  root.work = 1000;
  root.span = 10;
  root.burdened_span = 20;
  r.regions.push_back(root);
  EXPECT_EQ(xtics(fs::scalability_gnuplot(r, "r.dat").script), std::vector<std::string>{"set xtics 0,10"});
}
