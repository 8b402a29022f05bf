// Report output: text, JSON and CSV, and the atomic file writers.
//
// The JSON and CSV files are read back by real parsers (Python's json and csv
// modules, run through std::system), so that escaping and quoting are checked
// against independent implementations rather than against this library's own idea
// of them. Without python3 those tests are skipped, never passed.
#include <forkscale/detail/output/utf8.hpp>  // display_width, valid_utf8
#include <forkscale/forkscale.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <locale>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#if !defined(_WIN32)
#include <sys/stat.h>
#endif

namespace fs = forkscale;
namespace stdfs = std::filesystem;

namespace {

// ---- helpers -----------------------------------------------------------------

std::string read_file(const stdfs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_plain_file(const stdfs::path& p, const std::string& contents) {
  std::ofstream out(p, std::ios::binary);
  out << contents;
}

std::vector<std::string> directory_entries(const stdfs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : stdfs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool has_line(const std::string& text, const std::string& line) {
  const auto lines = lines_of(text);
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

// A Python expression for the string these bytes decode to (ill-formed UTF-8 as
// U+FFFD, as Python's "replace" error handler does).
std::string py_str(const std::string& bytes) {
  static const char hex[] = "0123456789abcdef";
  std::string h;
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    h += hex[b >> 4];
    h += hex[b & 0xf];
  }
  return "bytes.fromhex('" + h + "').decode('utf-8', 'replace')";
}

// A Python expression for exactly this double (None for NaN and infinities, which
// the JSON writer turns into null).
std::string py_float(double v) {
  if (!std::isfinite(v)) return "None";
  std::ostringstream os;
  os.imbue(std::locale::classic());
  os << std::hexfloat << v;
  return "float.fromhex('" + os.str() + "')";
}

std::string py_int(std::uint64_t v) { return std::to_string(v); }
std::string py_i64(std::int64_t v) { return std::to_string(v); }
std::string py_bool(bool b) { return b ? "True" : "False"; }

// The keys every site row starts with, as a Python dict's first members.
std::string py_site_identity(const std::string& name, fs::site_kind kind, const std::string& file, unsigned line,
                             const std::string& function, const std::string& tag, bool recursive) {
  return "'name': " + py_str(name) + ", 'kind': " + py_str(fs::to_string(kind)) + ", 'file': " + py_str(file) +
         ", 'line': " + py_int(line) + ", 'function': " + py_str(function) + ", 'tag': " + py_str(tag) +
         ", 'recursive': " + py_bool(recursive);
}

std::string py_measure(const fs::site_measure& m) {
  return "{'count': " + py_int(m.count) + ", 'work': " + py_int(m.work) + ", 'span': " + py_i64(m.span) +
         ", 'parallelism': " + py_float(m.parallelism()) + "}";
}

// The "call_sites" and "spawn_sites" members as Python values.
std::string expected_sites_python(const fs::report& rep) {
  std::string e = " 'call_sites': [\n";
  for (const auto& c : rep.call_sites)
    e += "  {" + py_site_identity(c.name, c.kind, c.file, c.line, c.function, c.tag, c.recursive) +
         ", 'top_call_site_on_work': " + py_measure(c.top_call_site_on_work) +
         ", 'top_caller_on_work': " + py_measure(c.top_caller_on_work) +
         ", 'local_on_work': " + py_measure(c.local_on_work) +
         ", 'top_call_site_on_span': " + py_measure(c.top_call_site_on_span) +
         ", 'top_caller_on_span': " + py_measure(c.top_caller_on_span) +
         ", 'local_on_span': " + py_measure(c.local_on_span) + "},\n";
  e += " ],\n";
  e += " 'spawn_sites': [\n";
  for (const auto& p : rep.spawn_sites)
    e += "  {" + py_site_identity(p.name, p.kind, p.file, p.line, p.function, p.tag, p.recursive) +
         ", 'tasks': " + py_int(p.tasks) + ", 'work': " + py_int(p.work) + ", 'span': " + py_int(p.span) +
         ", 'parallelism': " + py_float(p.parallelism()) + ", 'exclusive_work': " + py_int(p.exclusive_work) +
         ", 'critical_span': " + py_i64(p.critical_span) + ", 'critical_percent': " + py_float(p.critical_percent) +
         "},\n";
  e += " ],\n";
  return e;
}

// A what-if factor, parallelism or gain as json.load gives it: 'inf' for
// +infinity (the writer's string), None for NaN, else the float.
std::string py_unbounded(double v) {
  if (std::isinf(v) && v > 0) return "'inf'";
  return py_float(v);
}

// The "load" member as a Python value.
std::string expected_load_python(const fs::load_check& l) {
  return " 'load': {'checked': " + py_bool(l.checked) + ", 'involuntary_switches': " + py_int(l.involuntary_switches) +
         ", 'migrations': " + py_int(l.migrations) + ", 'wait_ns': " + py_int(l.wait_ns) +
         ", 'runnable_at_start': " + py_int(l.runnable_at_start) +
         ", 'hardware_threads': " + py_int(l.hardware_threads) +
         ", 'clock_chosen_for_load': " + py_bool(l.clock_chosen_for_load) + ", 'inflated': " + py_bool(l.inflated) +
         ", 'warning': " + py_str(l.warning()) + "},\n";
}

// The "what_if" member as a Python value.
std::string expected_what_if_python(const fs::report& rep) {
  std::string e = " 'what_if': [\n";
  for (const auto& w : rep.what_if)
    e += "  {'region': " + py_str(w.region) + ", 'source': " + py_str(fs::to_string(w.source)) +
         ", 'file': " + py_str(w.file) + ", 'line': " + py_int(w.line) + ", 'function': " + py_str(w.function) +
         ", 'tag': " + py_str(w.tag) + ", 'model': " + py_str(fs::to_string(w.model)) +
         ", 'factor': " + py_unbounded(w.factor) + ", 'executed': " + py_bool(w.executed) +
         ", 'entries': " + py_int(w.entries) + ", 'region_work': " + py_int(w.region_work) +
         ", 'work': " + py_float(w.work) + ", 'span': " + py_float(w.span) +
         ", 'burdened_span': " + py_float(w.burdened_span) + ", 'parallelism': " + py_unbounded(w.parallelism) +
         ", 'gain': " + py_unbounded(w.gain) + ", 'span_ticks_num': " + py_i64(w.span_ticks_num) +
         ", 'span_ticks_den': " + py_i64(w.span_ticks_den) + "},\n";
  e += " ],\n";
  return e;
}

// The "locks" member as a Python value.
std::string expected_locks_python(const fs::report& rep) {
  std::string e = " 'locks': [\n";
  for (const auto& l : rep.locks)
    e += "  {'lock': " + py_str(l.lock) + ", 'name': " + py_str(l.name) + ", 'file': " + py_str(l.file) +
         ", 'line': " + py_int(l.line) + ", 'function': " + py_str(l.function) + ", 'tag': " + py_str(l.tag) +
         ", 'acquisitions': " + py_int(l.acquisitions) + ", 'contended': " + py_int(l.contended) +
         ", 'wait_ns': " + py_int(l.wait_ns) + ", 'max_wait_ns': " + py_int(l.max_wait_ns) +
         ", 'hold_ns': " + py_int(l.hold_ns) + ", 'max_hold_ns': " + py_int(l.max_hold_ns) +
         ", 'blamed_wait_ns': " + py_int(l.blamed_wait_ns) + ", 'blamed_waits': " + py_int(l.blamed_waits) +
         ", 'critical_holds': " + py_int(l.critical_holds) + ", 'critical_hold_ns': " + py_int(l.critical_hold_ns) +
         ", 'critical_wait_ns': " + py_int(l.critical_wait_ns) + "},\n";
  e += " ],\n";
  return e;
}

// A fresh directory under the system's temporary directory, removed afterwards.
class ReportOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    static std::atomic<unsigned> counter{0};
    for (int attempt = 0; attempt < 100; ++attempt) {
      const stdfs::path candidate = stdfs::temp_directory_path() /
                                    ("forkscale_report_test_" + std::to_string(rd()) + "_" + std::to_string(counter++));
      std::error_code ec;
      if (stdfs::create_directory(candidate, ec)) {
        dir_ = candidate;
        break;
      }
    }
    ASSERT_FALSE(dir_.empty()) << "cannot create a temporary directory";
    work_ = dir_ / "work";
    stdfs::create_directory(work_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) stdfs::remove_all(dir_, ec);
  }

  bool python_available() {
    const stdfs::path out = dir_ / "python_probe.txt";
    const std::string cmd = "python3 -c \"import json, csv, sys\" > \"" + out.string() + "\" 2>&1";
    const bool ok = std::system(cmd.c_str()) == 0;
    stdfs::remove(out);
    return ok;
  }

  // Runs `script` with python3 on `arg`; returns its exit status and output.
  int run_python(const std::string& script, const stdfs::path& arg, std::string& output) {
    const stdfs::path py = dir_ / "check.py";
    const stdfs::path out = dir_ / "check_output.txt";
    write_plain_file(py, script);
    const std::string cmd = "python3 \"" + py.string() + "\" \"" + arg.string() + "\" > \"" + out.string() + "\" 2>&1";
    const int rc = std::system(cmd.c_str());
    output = read_file(out);
    stdfs::remove(py);
    stdfs::remove(out);
    return rc;
  }

  stdfs::path dir_;   // scratch space of the test (scripts, outputs)
  stdfs::path work_;  // where reports are written; nothing else lives here
};

// Texts that need escaping in JSON, quoting in CSV, a formula guard, or repair.
const std::vector<std::string>& tricky_texts() {
  static const std::vector<std::string> texts = {
      "plain",
      "comma, here",
      "quote \"q\" inside",
      "\"starts with a quote",
      "new\nline",
      "cr\r\nlf",
      "back\\slash\\",
      "tab\there",
      "utf8 \xC3\xBCn\xC3\xAF"
      "c\xC3\xB8"
      "d\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x9A\x80",
      "=cmd|' /C calc'!A0",
      "+plus",
      "-minus",
      "@at",
      "\tstarts with a tab",
      "\rstarts with a CR",
      "\x01 control \x1f and del \x7f",
      "line separator \xE2\x80\xA8 and paragraph separator \xE2\x80\xA9",
      "bad \xFF lead, \xC0\xAF overlong, \xED\xA0\x80 surrogate, \xF4\x90\x80\x80 too big",
      "cut \xE6\x97 short, \xF0\x9F\x9A short",
      "",
  };
  return texts;
}

fs::region_result make_region(std::string label, std::string path, std::string parent, unsigned depth,
                              std::uint64_t seed) {
  fs::region_result r;
  r.label = std::move(label);
  r.path = std::move(path);
  r.parent = std::move(parent);
  r.depth = depth;
  r.instances = 1 + seed % 7;
  r.work = 1000003 * (seed + 11);
  r.span = 7919 * (seed + 3);
  r.burdened_span = r.span + 15000 * (seed + 1);
  r.spawns = 17 * seed + 1;
  r.syncs = 5 * seed + 2;
  r.calls = 3 * seed;
  r.raw_work = r.work + 101 * seed;
  r.raw_span = r.span + 13 * seed;
  return r;
}

// Every tricky text as a region label (with path and parent built from it) and as
// a diagnostic; plus extreme integers and awkward doubles.
fs::report tricky_report() {
  fs::report rep;
  rep.label = "=cmd report, \"quoted\"\n\xE6\x97\xA5";
  rep.unit = "ns";
  rep.clock = fs::clock_kind::tsc;
  rep.burden = 5000;
  rep.burden_note = "the std_thread calibration in '/tmp/\"b\".json' was measured on another machine";
  rep.backend = "std_thread+tbb";
  rep.compensation_per_strand = 0.1;  // not exact in binary: must round-trip
  rep.compensation_residual = 0.3;
  rep.compensation_total = std::numeric_limits<std::uint64_t>::max();
  rep.max_processors = 48;  // not a power of two: last line is 48
  rep.profiler_bytes = 123456789;
  rep.regions.push_back(make_region("-root", "-root", "", 0, 0));
  std::uint64_t seed = 1;
  for (const auto& t : tricky_texts()) {
    rep.regions.push_back(make_region(t, "-root/" + t, "-root", 1, seed));
    rep.regions.push_back(make_region("@inner", "-root/" + t + "/@inner", "-root/" + t, 2, seed + 100));
    rep.diagnostics.push_back({t, "problem: " + t});
    ++seed;
  }
  // Extremes: the largest integers are exact in JSON and CSV.
  fs::region_result big = make_region("big", "-root/big", "-root", 1, 999);
  big.work = std::numeric_limits<std::uint64_t>::max();
  big.raw_work = std::numeric_limits<std::uint64_t>::max();
  big.instances = std::numeric_limits<std::uint64_t>::max() - 1;
  big.span = 3;
  big.burdened_span = 7;
  rep.regions.push_back(big);
  fs::region_result zero = make_region("zero", "-root/zero", "-root", 1, 0);
  zero.work = zero.span = zero.burdened_span = zero.raw_work = zero.raw_span = 0;
  zero.spawns = zero.syncs = 0;
  rep.regions.push_back(zero);
  rep.diagnostic_count = rep.diagnostics.size() + 5;
  rep.load.checked = true;
  rep.load.involuntary_switches = 12;
  rep.load.migrations = 3;
  rep.load.wait_ns = 4'500'000;
  rep.load.runnable_at_start = 2;
  rep.load.hardware_threads = 2;
  rep.load.inflated = true;
  return rep;
}

// The report as the Python value json.load must produce.
std::string expected_json_python(const fs::report& rep) {
  std::string e = "{\n";
  e += " 'schema': 'forkscale.report',\n";
  e += " 'schema_version': 1,\n";
  e += " 'forkscale_version': " + py_str(FORKSCALE_VERSION_STRING) + ",\n";
  e += " 'label': " + py_str(rep.label) + ",\n";
  e += " 'unit': " + py_str(rep.unit) + ",\n";
  e += " 'clock': " + py_str(fs::to_string(rep.clock)) + ",\n";
  e += " 'burden': " + py_int(rep.burden) + ",\n";
  e += " 'burden_source': " + py_str(rep.burden_source) + ",\n";
  e += " 'burden_note': " + py_str(rep.burden_note) + ",\n";
  e += " 'backend': " + py_str(rep.backend) + ",\n";
  e += " 'compensation_per_strand': " + py_float(rep.compensation_per_strand) + ",\n";
  e += " 'compensation_residual': " + py_float(rep.compensation_residual) + ",\n";
  e += " 'compensation_total': " + py_int(rep.compensation_total) + ",\n";
  e += " 'max_processors': " + py_int(rep.max_processors) + ",\n";
  e += " 'profiler_bytes': " + py_int(rep.profiler_bytes) + ",\n";
  e += " 'regions': [\n";
  for (const auto& r : rep.regions) {
    e += "  {'label': " + py_str(r.label) + ", 'path': " + py_str(r.path) + ", 'parent': " + py_str(r.parent) +
         ", 'depth': " + py_int(r.depth) + ", 'instances': " + py_int(r.instances) + ", 'work': " + py_int(r.work) +
         ", 'span': " + py_int(r.span) + ", 'burdened_span': " + py_int(r.burdened_span) +
         ", 'parallelism': " + py_float(r.parallelism()) +
         ", 'burdened_parallelism': " + py_float(r.burdened_parallelism()) + ", 'spawns': " + py_int(r.spawns) +
         ", 'syncs': " + py_int(r.syncs) + ", 'calls': " + py_int(r.calls) +
         ", 'average_maximal_strand': " + py_float(r.average_maximal_strand()) + ", 'raw_work': " + py_int(r.raw_work) +
         ", 'raw_span': " + py_int(r.raw_span) + ", 'speedup_estimate': [";
    for (const auto& b : r.speedup_estimate(rep.max_processors))
      e += "{'processors': " + py_int(b.processors) + ", 'lower': " + py_float(b.lower) +
           ", 'upper': " + py_float(b.upper) + "}, ";
    e += "]},\n";
  }
  e += " ],\n";
  e += expected_sites_python(rep);
  e += expected_what_if_python(rep);
  e += expected_locks_python(rep);
  e += expected_load_python(rep.load);
  e += " 'diagnostic_count': " + py_int(rep.diagnostic_count) + ",\n";
  e += " 'diagnostics': [\n";
  for (const auto& d : rep.diagnostics)
    e += "  {'where': " + py_str(d.where) + ", 'problem': " + py_str(d.problem) + "},\n";
  e += " ],\n";
  e += "}\n";
  return e;
}

// Compares the parsed document with the expected value: same keys in the same
// order, same types (int stays int, float stays float), same values exactly.
const char* const json_check_script = R"PY(
import json, sys

problems = []

def compare(where, got, want):
    if isinstance(want, dict):
        if not isinstance(got, dict):
            problems.append(f'{where}: expected an object, got {got!r}')
            return
        if list(got.keys()) != list(want.keys()):
            problems.append(f'{where}: keys {list(got.keys())} != {list(want.keys())}')
        for k in want:
            if k in got:
                compare(f'{where}.{k}', got[k], want[k])
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            problems.append(f'{where}: expected a list of {len(want)}, got {got!r}')
            return
        for i, (g, w) in enumerate(zip(got, want)):
            compare(f'{where}[{i}]', g, w)
    elif want is None:
        if got is not None:
            problems.append(f'{where}: expected null, got {got!r}')
    elif type(want) is bool:
        if type(got) is not bool or got != want:
            problems.append(f'{where}: expected {want!r}, got {got!r}')
    elif type(want) is float:
        if type(got) is not float or got != want:
            problems.append(f'{where}: expected float {want!r}, got {got!r}')
    elif type(want) is int:
        if type(got) is not int or got != want:
            problems.append(f'{where}: expected int {want!r}, got {got!r}')
    else:
        if type(got) is not str or got != want:
            problems.append(f'{where}: expected {want!r}, got {got!r}')

raw = open(sys.argv[1], 'rb').read()
text = raw.decode('utf-8')          # strict: the file must be valid UTF-8
document = json.loads(text)
compare('$', document, EXPECTED)

if not text.endswith('}\n'):
    problems.append('the file does not end with "}\\n"')
for number, line in enumerate(text.split('\n')[:-1], 1):
    indent = len(line) - len(line.lstrip(' '))
    if indent % 2 or line != line.rstrip() or not line.strip():
        problems.append(f'line {number} is not 2-space pretty-printed: {line!r}')
        break
if '\u2028' in text or '\u2029' in text:
    problems.append('U+2028/U+2029 not escaped')

for p in problems[:40]:
    print(p)
sys.exit(1 if problems else 0)
)PY";

const char* const csv_header =
    "label,path,parent,depth,instances,work,span,burdened_span,parallelism,"
    "burdened_parallelism,spawns,syncs,calls,average_maximal_strand,raw_work,raw_span,unit,clock";

// Rows as Python values: strings (before the formula guard), ints and floats.
std::string expected_csv_python(const fs::report& rep) {
  std::string e = "[\n";
  for (const auto& r : rep.regions) {
    e += " [" + py_str(r.label) + ", " + py_str(r.path) + ", " + py_str(r.parent) + ", " + py_int(r.depth) + ", " +
         py_int(r.instances) + ", " + py_int(r.work) + ", " + py_int(r.span) + ", " + py_int(r.burdened_span) + ", " +
         py_float(r.parallelism()) + ", " + py_float(r.burdened_parallelism()) + ", " + py_int(r.spawns) + ", " +
         py_int(r.syncs) + ", " + py_int(r.calls) + ", " + py_float(r.average_maximal_strand()) + ", " +
         py_int(r.raw_work) + ", " + py_int(r.raw_span) + ", " + py_str(rep.unit) + ", " +
         py_str(fs::to_string(rep.clock)) + "],\n";
  }
  e += "]\n";
  return e;
}

const char* const csv_check_script = R"PY(
import csv, sys

problems = []

def guarded(s):
    # OWASP CSV injection advice: a leading ' before =, +, -, @, tab, CR.
    return "'" + s if s[:1] in ('=', '+', '-', '@', '\t', '\r') else s

raw = open(sys.argv[1], 'rb').read()
if not raw.startswith((HEADER + '\n').encode()):
    problems.append('the header line is not exactly the expected one')
if not raw.endswith(b'\n') or raw.endswith(b'\r\n'):
    problems.append('the file does not end with a bare "\\n"')

with open(sys.argv[1], newline='', encoding='utf-8') as f:
    rows = list(csv.reader(f, strict=True))

if rows[0] != HEADER.split(','):
    problems.append(f'header {rows[0]!r}')
body = rows[1:]
if len(body) != len(EXPECTED):
    problems.append(f'{len(body)} rows, expected {len(EXPECTED)}')
for i, (got, want) in enumerate(zip(body, EXPECTED)):
    if len(got) != len(want):
        problems.append(f'row {i}: {len(got)} fields, expected {len(want)}: {got!r}')
        continue
    for j, (g, w) in enumerate(zip(got, want)):
        where = f'row {i} column {rows[0][j]}'
        if type(w) is str:
            if g != guarded(w):
                problems.append(f'{where}: {g!r} != {guarded(w)!r}')
        elif type(w) is int:
            if g != str(w):
                problems.append(f'{where}: {g!r} != {w!r}')
        elif w is None:
            if g != '':
                problems.append(f'{where}: {g!r} should be empty')
        else:
            try:
                value = float(g)
            except ValueError:
                value = None
            if value != w:
                problems.append(f'{where}: {g!r} != {w!r}')

# Whatever the column, a cell a spreadsheet would take for a formula must be a
# plain number (a negative one starts with '-').
for i, row in enumerate(rows):
    for j, cell in enumerate(row):
        if cell[:1] in ('=', '+', '-', '@', '\t', '\r'):
            try:
                float(cell)
            except ValueError:
                problems.append(f'row {i} field {j}: {cell!r} starts like a formula')

for p in problems[:40]:
    print(p)
sys.exit(1 if problems else 0)
)PY";

// The quicksort numbers of the Cilkview paper's textual output example.
fs::report quicksort_report() {
  fs::report rep;
  rep.label = "quicksort";
  rep.unit = "ns";
  rep.clock = fs::clock_kind::tsc;
  rep.burden = 5000;
  fs::region_result r;
  r.label = "quicksort";
  r.path = "quicksort";
  r.instances = 1;
  r.work = 5570609776;
  r.span = 261374874;
  r.burdened_span = 262078779;
  r.spawns = 8518398;
  r.syncs = 8518398;
  r.calls = 1;
  r.raw_work = r.work;
  r.raw_span = r.span;
  rep.regions.push_back(r);
  return rep;
}

std::string fixed2(double v) {
  std::ostringstream os;
  os.imbue(std::locale::classic());
  os.setf(std::ios::fixed, std::ios::floatfield);
  os.precision(2);
  os << v;
  return os.str();
}

void expect_no_temporaries(const stdfs::path& dir) {
  for (const auto& name : directory_entries(dir))
    EXPECT_EQ(name.find(".tmp."), std::string::npos) << "temporary file left behind: " << name;
}

// ---- JSON --------------------------------------------------------------------

TEST_F(ReportOutput, JsonRoundTripsThroughPython) {
  if (!python_available()) GTEST_SKIP() << "python3 (with json and csv) is not available";
  fs::report rep = tricky_report();
  fs::lock_site_profile lock;  // a lock row with text that needs escaping
  lock.lock = "queue \"q\"\n\xC3\xA9";
  lock.name = "q.cpp:9";
  lock.file = "src\\q.cpp";
  lock.line = 9;
  lock.function = "push<'a'>";
  lock.acquisitions = 18446744073709551615ull;
  lock.contended = 3;
  lock.wait_ns = 12;
  lock.critical_holds = 1;
  rep.locks.push_back(lock);
  const stdfs::path file = work_ / "report.json";
  rep.write_json(file.string());
  EXPECT_EQ(read_file(file), rep.to_json());

  std::string script = "EXPECTED = " + expected_json_python(rep) + json_check_script;
  std::string output;
  const int rc = run_python(script, file, output);
  EXPECT_EQ(rc, 0) << output;
  EXPECT_EQ(directory_entries(work_), std::vector<std::string>{"report.json"});
}

TEST_F(ReportOutput, JsonOfAnEmptyReportAndNonFiniteNumbers) {
  fs::report rep;
  rep.compensation_per_strand = std::numeric_limits<double>::quiet_NaN();
  std::string json = rep.to_json();
  EXPECT_NE(json.find("\n  \"compensation_per_strand\": null,\n"), std::string::npos) << json;
  EXPECT_NE(json.find("\n  \"regions\": [],\n"), std::string::npos) << json;
  EXPECT_NE(json.find("\n  \"diagnostics\": []\n}\n"), std::string::npos) << json;
  rep.compensation_per_strand = std::numeric_limits<double>::infinity();
  json = rep.to_json();
  EXPECT_NE(json.find("\"compensation_per_strand\": null"), std::string::npos) << json;
  EXPECT_EQ(json.rfind("{\n  \"schema\": \"forkscale.report\",\n  \"schema_version\": 1,\n", 0), 0u) << json;

  if (!python_available()) GTEST_SKIP() << "python3 (with json and csv) is not available";
  rep.compensation_per_strand = std::numeric_limits<double>::quiet_NaN();
  const stdfs::path file = work_ / "empty.json";
  rep.write_json(file.string());
  std::string output;
  EXPECT_EQ(run_python("EXPECTED = " + expected_json_python(rep) + json_check_script, file, output), 0) << output;
}

TEST_F(ReportOutput, JsonEscapesControlCharactersAndRepairsUtf8) {
  fs::report rep;
  rep.label = std::string("a\"b\\c\nd\x01\x1f\x7f") + "\xC3\xA9\xFF";
  const std::string json = rep.to_json();
  EXPECT_NE(json.find("\"label\": \"a\\\"b\\\\c\\u000ad\\u0001\\u001f\x7f\xC3\xA9\xEF\xBF\xBD\","), std::string::npos)
      << json;
}

TEST_F(ReportOutput, NumbersIgnoreTheGlobalLocale) {
  // A C++ global locale with ',' as decimal point and '.' grouping must not leak
  // into the JSON, CSV or text output.
  struct comma_numpunct : std::numpunct<char> {
    char do_decimal_point() const override { return ','; }
    char do_thousands_sep() const override { return '.'; }
    std::string do_grouping() const override { return "\3"; }
  };
  const fs::report rep = quicksort_report();
  const std::string json = rep.to_json(), csv = rep.to_csv(), text = rep.to_text();
  const std::locale previous = std::locale::global(std::locale(std::locale::classic(), new comma_numpunct));
  const std::string json2 = rep.to_json(), csv2 = rep.to_csv(), text2 = rep.to_text();
  std::locale::global(previous);
  EXPECT_EQ(json, json2);
  EXPECT_EQ(csv, csv2);
  EXPECT_EQ(text, text2);
  EXPECT_NE(json.find("\"work\": 5570609776,"), std::string::npos);
}

// ---- CSV ---------------------------------------------------------------------

TEST_F(ReportOutput, CsvRoundTripsThroughPython) {
  if (!python_available()) GTEST_SKIP() << "python3 (with json and csv) is not available";
  const fs::report rep = tricky_report();
  const stdfs::path file = work_ / "report.csv";
  rep.write_csv(file.string());
  EXPECT_EQ(read_file(file), rep.to_csv());

  const std::string script =
      std::string("HEADER = '") + csv_header + "'\nEXPECTED = " + expected_csv_python(rep) + csv_check_script;
  std::string output;
  const int rc = run_python(script, file, output);
  EXPECT_EQ(rc, 0) << output;
  EXPECT_EQ(directory_entries(work_), std::vector<std::string>{"report.csv"});
}

TEST_F(ReportOutput, CsvQuotingAndFormulaGuard) {
  fs::report rep;
  rep.unit = "units";
  fs::region_result r;
  r.label = "=SUM(A1:A2)";
  r.path = "a,b";
  r.parent = "say \"hi\"";
  r.work = 10;
  r.span = 4;
  r.burdened_span = 5;
  rep.regions.push_back(r);
  r.label = "-1+2";
  r.path = "line\nbreak";
  r.parent = "\tx";
  rep.regions.push_back(r);
  const auto lines = lines_of(rep.to_csv());
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[0], csv_header);
  EXPECT_EQ(lines[1], "'=SUM(A1:A2),\"a,b\",\"say \"\"hi\"\"\",0,0,10,4,5,2.5,2.0,0,0,0,10.0,0,0,units,cost");
  EXPECT_EQ(lines[2], "'-1+2,\"line");
  EXPECT_EQ(lines[3], "break\",'\tx,0,0,10,4,5,2.5,2.0,0,0,0,10.0,0,0,units,cost");

  fs::report empty;
  EXPECT_EQ(empty.to_csv(), std::string(csv_header) + "\n");
}

// ---- text --------------------------------------------------------------------

TEST_F(ReportOutput, TextShowsProfileAndSpeedupEstimate) {
  const fs::report rep = quicksort_report();
  const std::string text = rep.to_text();
  EXPECT_EQ(lines_of(text).at(0), "forkscale report: quicksort  (clock: tsc, unit: ns)");
  EXPECT_TRUE(has_line(text, "1) Parallelism Profile (times in ns)")) << text;
  EXPECT_TRUE(has_line(text, "  Work:                   5,570,609,776 ns")) << text;
  EXPECT_TRUE(has_line(text, "  Span:                     261,374,874 ns")) << text;
  EXPECT_TRUE(has_line(text, "  Burdened span:            262,078,779 ns")) << text;
  EXPECT_TRUE(has_line(text, "  Parallelism:                       21.31")) << text;
  EXPECT_TRUE(has_line(text, "  Burdened parallelism:              21.26")) << text;
  EXPECT_TRUE(has_line(text, "  Spawns:                     8,518,398")) << text;
  EXPECT_TRUE(has_line(text, "  Syncs:                      8,518,398")) << text;
  EXPECT_TRUE(has_line(text, "  Average maximal strand:           218 ns")) << text;
  EXPECT_TRUE(has_line(text, "2) Speedup Estimate (speedup = T1/TP on P processors; times TP in ns)")) << text;
  const auto bounds = rep.speedup_estimate();
  ASSERT_EQ(bounds.size(), 5u);
  EXPECT_TRUE(has_line(text, "  P   lower  upper     TP at most    TP at least")) << text;
  for (const auto& b : bounds) {
    std::string p = std::to_string(b.processors);
    if (p.size() < 2) p = " " + p;
    const std::string line = "  " + p + "   " + fixed2(b.lower) + "  " + (b.upper < 10 ? " " : "") + fixed2(b.upper);
    EXPECT_NE(text.find("\n" + line + "  "), std::string::npos) << "missing: " << line << "\n" << text;
  }
  EXPECT_TRUE(has_line(text, "  32   " + fixed2(bounds.back().lower) + "  21.31    619,615,480    261,374,874"))
      << text;
  // One region: no region table; no compensation: no compensation line.
  EXPECT_EQ(text.find("3) Regions"), std::string::npos) << text;
  EXPECT_EQ(text.find("Overhead compensation"), std::string::npos) << text;
  EXPECT_TRUE(has_line(text, "Diagnostics: none.")) << text;

  std::ostringstream os;
  os << rep;
  EXPECT_EQ(os.str(), rep.to_text(false));
}

TEST_F(ReportOutput, TextRegionsCompensationRawAndDiagnostics) {
  fs::report rep = tricky_report();
  rep.compensation_per_strand = 12.5;
  rep.compensation_total = 1234567;
  const std::string text = rep.to_text(false);
  EXPECT_NE(text.find("\n3) Regions (work and span in ns)\n"), std::string::npos) << text;
  EXPECT_TRUE(has_line(text, "Overhead compensation: 12.50 ns subtracted per strand, 1,234,567 ns in total.")) << text;
  EXPECT_EQ(text.find("Before overhead compensation"), std::string::npos) << text;
  EXPECT_NE(text.find("Diagnostics: " + std::to_string(rep.diagnostic_count) + " (the first 10 shown)\n"),
            std::string::npos)
      << text;
  EXPECT_TRUE(has_line(text, "  new\\nline: problem: new\\nline")) << text;
  EXPECT_EQ(text.find("problem: " + tricky_texts()[10]), std::string::npos) << "more than 10 shown";

  const std::string raw = rep.to_text(true);
  EXPECT_NE(raw.find("\n4) Before overhead compensation (in ns)\n"), std::string::npos) << raw;
  EXPECT_NE(raw.find("raw work"), std::string::npos) << raw;
  // big.raw_work is 2^64 - 1: too wide for 80 columns, so the tables round.
  EXPECT_NE(raw.find("18.4E"), std::string::npos) << raw;
  EXPECT_NE(raw.find("(numbers rounded: k = 10^3"), std::string::npos) << raw;

  // Labels are shown as one line each, valid UTF-8, and everything fits in 80 columns.
  for (const std::string* t : {&text, &raw}) {
    for (const auto& line : lines_of(*t)) {
      EXPECT_LE(fs::detail::output::display_width(line), 80u) << line;
      for (const char c : line) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20) << line;
    }
    EXPECT_EQ(fs::detail::output::valid_utf8(*t), *t);
  }
}

TEST_F(ReportOutput, TextOfSmallAndEmptyReports) {
  fs::report rep;
  rep.label = "small";
  fs::region_result root;
  root.label = "root";
  root.path = "root";
  root.instances = 1;
  root.work = 100;
  root.span = 40;
  root.burdened_span = 60;
  root.spawns = 2;
  root.syncs = 1;
  fs::region_result child = root;
  child.label = "child";
  child.path = "root/child";
  child.parent = "root";
  child.depth = 1;
  rep.regions = {root, child};
  const std::string text = rep.to_text();
  EXPECT_TRUE(has_line(text, "  Parallelism:              2.50")) << text;
  EXPECT_TRUE(has_line(text, "  region   inst.  work  span  par.  b.par.  spawns  syncs")) << text;
  EXPECT_TRUE(has_line(text, "  root         1   100    40  2.50    1.67       2      1")) << text;
  EXPECT_TRUE(has_line(text, "    child      1   100    40  2.50    1.67       2      1")) << text;

  fs::report empty;
  const std::string none = empty.to_text();
  EXPECT_EQ(lines_of(none).at(0), "forkscale report  (clock: cost, unit: units)");
  EXPECT_TRUE(has_line(none, "Nothing was measured.")) << none;

  fs::report zero = quicksort_report();
  zero.regions[0].span = zero.regions[0].burdened_span = 0;
  const std::string z = zero.to_text();
  EXPECT_TRUE(has_line(z, "  Parallelism:                      n/a")) << z;  // ends under the 6 of 776
  EXPECT_TRUE(has_line(z, "  (none: the span is zero)")) << z;
}

TEST(ReportUtf8, RepairMatchesMaximalSubparts) {
  using fs::detail::output::valid_utf8;
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(valid_utf8("plain \xC3\xA9 \xF0\x9F\x9A\x80"), "plain \xC3\xA9 \xF0\x9F\x9A\x80");
  EXPECT_EQ(valid_utf8("\xFF"), fffd);
  EXPECT_EQ(valid_utf8("\xC0\xAF"), fffd + fffd);
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), fffd + fffd + fffd);
  EXPECT_EQ(valid_utf8("\xF0\x9F\x9A"
                       "A"),
            fffd + "A");
  EXPECT_EQ(valid_utf8("\xE6\x97"), fffd);
  EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80"), fffd + fffd + fffd + fffd);
}

// ---- files -------------------------------------------------------------------

TEST_F(ReportOutput, WritesReplaceExistingFiles) {
  const fs::report rep = tricky_report();
  const stdfs::path file = work_ / "out.txt";
  write_plain_file(file, std::string(100000, 'x'));  // longer than every report

  rep.write_json(file.string());
  EXPECT_EQ(read_file(file), rep.to_json());
  rep.write_csv(file.string());
  EXPECT_EQ(read_file(file), rep.to_csv());
  rep.write_text(file.string(), true);
  EXPECT_EQ(read_file(file), rep.to_text(true));
  rep.write_text(file.string());
  EXPECT_EQ(read_file(file), rep.to_text(false));
  EXPECT_EQ(directory_entries(work_), std::vector<std::string>{"out.txt"});
}

TEST_F(ReportOutput, ConcurrentWritersLeaveOneCompleteFile) {
  std::vector<fs::report> reports(4, quicksort_report());
  for (std::size_t i = 0; i < reports.size(); ++i) reports[i].label = "writer " + std::to_string(i);
  const stdfs::path file = work_ / "shared.json";
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (std::size_t i = 0; i < reports.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int k = 0; k < 25; ++k) {
        try {
          reports[i].write_json(file.string());
        } catch (const fs::error&) {
          ++failures;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  const std::string got = read_file(file);
  bool matches_one = false;
  for (const auto& r : reports) matches_one = matches_one || got == r.to_json();
  EXPECT_TRUE(matches_one) << got;
  EXPECT_EQ(directory_entries(work_), std::vector<std::string>{"shared.json"});
}

// Every writer fails the same way: fs::error, one line naming the path, no file.
template <typename Write>
void expect_write_error(const std::string& path, const std::string& shown_path, Write write) {
  try {
    write(path);
    ADD_FAILURE() << "no error writing to '" << path << "'";
  } catch (const fs::error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_EQ(what.find('\r'), std::string::npos) << what;
    const std::string prefix = "forkscale: cannot write report '" + shown_path + "': ";
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
    EXPECT_GT(what.size(), prefix.size()) << "no reason given: " << what;
  }
}

template <typename Check>
void for_each_writer(const fs::report& rep, Check check) {
  check([&](const std::string& p) { rep.write_json(p); });
  check([&](const std::string& p) { rep.write_csv(p); });
  check([&](const std::string& p) { rep.write_text(p, false); });
  check([&](const std::string& p) { rep.write_text(p, true); });
  check([&](const std::string& p) { rep.write_call_sites_csv(p); });
  check([&](const std::string& p) { rep.write_spawn_sites_csv(p); });
  check([&](const std::string& p) { rep.write_what_if_csv(p); });
}

TEST_F(ReportOutput, WritingIntoAMissingDirectoryFails) {
  const fs::report rep = quicksort_report();
  const std::string path = (work_ / "no_such_dir" / "report.json").string();
  for_each_writer(rep, [&](auto write) { expect_write_error(path, path, write); });
  try {
    rep.write_json(path);
  } catch (const fs::error& e) {
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(directory_entries(work_).empty());
}

TEST_F(ReportOutput, WritingOntoADirectoryFails) {
  const fs::report rep = quicksort_report();
  const stdfs::path target = work_ / "a_directory";
  stdfs::create_directory(target);
  for (const std::string& path : {target.string(), target.string() + "/"}) {
    for_each_writer(rep, [&](auto write) { expect_write_error(path, path, write); });
  }
  EXPECT_EQ(directory_entries(work_), std::vector<std::string>{"a_directory"});
  EXPECT_TRUE(directory_entries(target).empty());
  EXPECT_TRUE(stdfs::is_directory(target));
}

TEST_F(ReportOutput, EmptyPathAndControlCharactersInPaths) {
  const fs::report rep = quicksort_report();
  for_each_writer(rep, [&](auto write) { expect_write_error("", "", write); });
  try {
    rep.write_csv("");
  } catch (const fs::error& e) {
    EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
  }
  const std::string dir = work_.string();
  const std::string path = dir + "/no\nsuch\r/x\t.csv";
  for_each_writer(rep, [&](auto write) { expect_write_error(path, dir + "/no\\nsuch\\r/x\\t.csv", write); });
  EXPECT_TRUE(directory_entries(work_).empty());
}

TEST_F(ReportOutput, WriteFileAtomicallyLeavesNoTemporaries) {
  const stdfs::path file = work_ / "plain.txt";
  fs::detail::write_file_atomically(file.string(), "");
  EXPECT_EQ(read_file(file), "");
  EXPECT_TRUE(stdfs::exists(file));
  const std::string big(3u << 20, 'y');
  fs::detail::write_file_atomically(file.string(), big);
  EXPECT_EQ(read_file(file), big);
  expect_no_temporaries(work_);
  EXPECT_EQ(directory_entries(work_), std::vector<std::string>{"plain.txt"});
}

#if !defined(_WIN32)
TEST_F(ReportOutput, DevicesAndPipesAreWrittenInPlace) {
  const fs::report rep = quicksort_report();
  rep.write_json("/dev/null");  // not replaced by a regular file
  struct stat st;
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));

  const stdfs::path fifo = work_ / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read_file(fifo); });
  rep.write_csv(fifo.string());
  reader.join();
  EXPECT_EQ(received, rep.to_csv());
  EXPECT_TRUE(stdfs::is_fifo(fifo));
  EXPECT_EQ(directory_entries(work_), std::vector<std::string>{"pipe"});
}
#endif

// ---- per-site profiles -------------------------------------------------------

const char* const call_sites_csv_header =
    "name,kind,file,line,function,tag,recursive,"
    "top_call_site_on_work_count,top_call_site_on_work_work,top_call_site_on_work_span,"
    "top_call_site_on_work_parallelism,"
    "top_caller_on_work_count,top_caller_on_work_work,top_caller_on_work_span,top_caller_on_work_parallelism,"
    "local_on_work_count,local_on_work_work,local_on_work_span,local_on_work_parallelism,"
    "top_call_site_on_span_count,top_call_site_on_span_work,top_call_site_on_span_span,"
    "top_call_site_on_span_parallelism,"
    "top_caller_on_span_count,top_caller_on_span_work,top_caller_on_span_span,top_caller_on_span_parallelism,"
    "local_on_span_count,local_on_span_work,local_on_span_span,local_on_span_parallelism,"
    "unit,clock";

const char* const spawn_sites_csv_header =
    "name,kind,file,line,function,tag,recursive,tasks,work,span,parallelism,exclusive_work,critical_span,"
    "critical_percent,unit,clock";

fs::site_measure measure(std::uint64_t count, std::uint64_t work, std::int64_t span) {
  fs::site_measure m;
  m.count = count;
  m.work = work;
  m.span = span;
  return m;
}

// A report with a call site and a spawn site for every tricky text (as name,
// tag, function and file), some negative local and critical spans, a NaN
// percentage, and root rows that make the four self-checks hold.
fs::report profile_report() {
  fs::report rep;
  rep.label = "profile \"p\"";
  rep.unit = "units";
  rep.clock = fs::clock_kind::cost;
  fs::region_result root = make_region("profile", "profile", "", 0, 5);
  root.work = 1000000007;
  root.span = 12345679;
  rep.regions.push_back(root);

  fs::call_site_profile call_root;
  call_root.name = "profile";
  call_root.kind = fs::site_kind::root;
  call_root.top_call_site_on_work = call_root.top_caller_on_work = measure(1, root.work, 12345679);
  call_root.top_call_site_on_span = call_root.top_caller_on_span = measure(1, root.work, 12345679);
  fs::spawn_site_profile spawn_root;
  spawn_root.name = "profile";
  spawn_root.kind = fs::site_kind::root;
  spawn_root.tasks = 1;
  spawn_root.work = root.work;
  spawn_root.span = root.span;
  rep.call_sites.push_back(call_root);
  rep.spawn_sites.push_back(spawn_root);

  std::int64_t local_span = 0, critical_span = 0;
  std::uint64_t local_work = 0, exclusive_work = 0;
  std::uint64_t k = 1;
  for (const auto& t : tricky_texts()) {
    fs::call_site_profile c;
    c.name = t;
    c.tag = t;
    c.function = "fn " + t;
    c.file = "dir/" + t + ".cpp";
    c.line = static_cast<unsigned>(10 * k + 1);
    c.kind = k % 3 == 0 ? fs::site_kind::spawn : fs::site_kind::call;
    c.recursive = k % 2 == 1;
    const auto i = static_cast<std::int64_t>(k);
    c.top_call_site_on_work = measure(k + 1, 1000 * k + 7, 100 * i + 3);
    c.top_caller_on_work = measure(k, 900 * k, 90 * i);
    c.local_on_work = measure(2 * k + 1, 500 * k + 11, 50 * i + 1);
    c.top_call_site_on_span = measure(k % 4, 300 * k, 30 * i);
    c.top_caller_on_span = measure(k % 3, 200 * k, 20 * i);
    c.local_on_span = measure(k % 5, 100 * k + 5, k % 4 == 3 ? -7 * i : 40 * i + 2);
    local_span += c.local_on_span.span;
    local_work += c.local_on_work.work;
    rep.call_sites.push_back(c);

    fs::spawn_site_profile p;
    p.name = t;
    p.tag = t;
    p.function = "fn " + t;
    p.file = "dir/" + t + ".cpp";
    p.line = static_cast<unsigned>(10 * k + 3);
    p.recursive = k % 2 == 0;
    p.tasks = k + 1;
    p.work = 2000 * k + 1;
    p.span = 200 * k + 1;
    p.exclusive_work = 1000 * k + 3;
    p.critical_span = k % 5 == 4 ? -3 * i : 60 * i + 1;
    p.critical_percent = k == 7 ? std::numeric_limits<double>::quiet_NaN()
                                : 100.0 * static_cast<double>(p.critical_span) / static_cast<double>(root.span);
    critical_span += p.critical_span;
    exclusive_work += p.exclusive_work;
    rep.spawn_sites.push_back(p);
    ++k;
  }
  rep.call_sites[0].local_on_span = measure(1, 77, static_cast<std::int64_t>(root.span) - local_span);
  rep.call_sites[0].local_on_work = measure(1, root.work - local_work, 88);
  rep.spawn_sites[0].exclusive_work = root.work - exclusive_work;
  rep.spawn_sites[0].critical_span = static_cast<std::int64_t>(root.span) - critical_span;
  rep.spawn_sites[0].critical_percent = 100.0 * static_cast<double>(rep.spawn_sites[0].critical_span) / 12345679.0;
  return rep;
}

// The largest and smallest numbers each column can hold.
fs::report extreme_profile_report() {
  fs::report rep = quicksort_report();
  const auto u64 = std::numeric_limits<std::uint64_t>::max();
  const auto i64_min = std::numeric_limits<std::int64_t>::min();
  const auto i64_max = std::numeric_limits<std::int64_t>::max();
  fs::call_site_profile c;
  c.name = "-extreme";
  c.file = "@file";
  c.line = std::numeric_limits<unsigned>::max();
  c.function = "+fn";
  c.tag = "=tag";
  c.top_call_site_on_work = measure(u64, u64, i64_max);
  c.top_caller_on_work = measure(u64, u64, i64_min);
  c.local_on_work = measure(0, 0, 0);
  c.top_call_site_on_span = measure(u64, 1, -1);
  c.top_caller_on_span = measure(1, u64, 1);
  c.local_on_span = measure(u64 - 1, u64 - 1, i64_min + 1);
  rep.call_sites.push_back(c);
  fs::spawn_site_profile p;
  p.name = "@spawn";
  p.tasks = u64;
  p.work = u64;
  p.span = 3;
  p.exclusive_work = u64;
  p.critical_span = i64_min;
  p.critical_percent = -1e300;
  rep.spawn_sites.push_back(p);
  p.name = "zero span";
  p.span = 0;
  p.critical_span = i64_max;
  p.critical_percent = 0.1;
  rep.spawn_sites.push_back(p);
  return rep;
}

std::string expected_call_sites_csv_python(const fs::report& rep) {
  std::string e = "[\n";
  for (const auto& c : rep.call_sites) {
    e += " [" + py_str(c.name) + ", " + py_str(fs::to_string(c.kind)) + ", " + py_str(c.file) + ", " + py_int(c.line) +
         ", " + py_str(c.function) + ", " + py_str(c.tag) + ", " + (c.recursive ? "'true'" : "'false'");
    for (const fs::site_measure* m : {&c.top_call_site_on_work, &c.top_caller_on_work, &c.local_on_work,
                                      &c.top_call_site_on_span, &c.top_caller_on_span, &c.local_on_span})
      e +=
          ", " + py_int(m->count) + ", " + py_int(m->work) + ", " + py_i64(m->span) + ", " + py_float(m->parallelism());
    e += ", " + py_str(rep.unit) + ", " + py_str(fs::to_string(rep.clock)) + "],\n";
  }
  return e + "]\n";
}

std::string expected_spawn_sites_csv_python(const fs::report& rep) {
  std::string e = "[\n";
  for (const auto& p : rep.spawn_sites)
    e += " [" + py_str(p.name) + ", " + py_str(fs::to_string(p.kind)) + ", " + py_str(p.file) + ", " + py_int(p.line) +
         ", " + py_str(p.function) + ", " + py_str(p.tag) + ", " + (p.recursive ? "'true'" : "'false'") + ", " +
         py_int(p.tasks) + ", " + py_int(p.work) + ", " + py_int(p.span) + ", " + py_float(p.parallelism()) + ", " +
         py_int(p.exclusive_work) + ", " + py_i64(p.critical_span) + ", " + py_float(p.critical_percent) + ", " +
         py_str(rep.unit) + ", " + py_str(fs::to_string(rep.clock)) + "],\n";
  return e + "]\n";
}

TEST_F(ReportOutput, SiteProfilesInJsonRoundTripThroughPython) {
  if (!python_available()) GTEST_SKIP() << "python3 (with json and csv) is not available";
  for (const fs::report& rep : {profile_report(), extreme_profile_report()}) {
    const stdfs::path file = work_ / "profile.json";
    rep.write_json(file.string());
    EXPECT_EQ(read_file(file), rep.to_json());
    std::string output;
    EXPECT_EQ(run_python("EXPECTED = " + expected_json_python(rep) + json_check_script, file, output), 0) << output;
    EXPECT_EQ(directory_entries(work_), std::vector<std::string>{"profile.json"});
  }
}

TEST_F(ReportOutput, SiteProfilesInJsonAreAlwaysThere) {
  const std::string json = quicksort_report().to_json();
  EXPECT_NE(
      json.find(
          "\n  ],\n  \"call_sites\": [],\n  \"spawn_sites\": [],\n  \"what_if\": [],\n  \"locks\": [],\n  \"load\": {"),
      std::string::npos)
      << json;
  const std::string sites = extreme_profile_report().to_json();
  EXPECT_NE(sites.find("\"span\": -9223372036854775808,"), std::string::npos) << sites;
  EXPECT_NE(sites.find("\"critical_span\": -9223372036854775808,"), std::string::npos) << sites;
  EXPECT_NE(sites.find("\"line\": 4294967295,"), std::string::npos) << sites;
  EXPECT_NE(sites.find("\"recursive\": false,"), std::string::npos) << sites;
}

TEST_F(ReportOutput, SiteProfilesInCsvRoundTripThroughPython) {
  if (!python_available()) GTEST_SKIP() << "python3 (with json and csv) is not available";
  for (const fs::report& rep : {profile_report(), extreme_profile_report(), quicksort_report()}) {
    const stdfs::path calls = work_ / "calls.csv", spawns = work_ / "spawns.csv";
    rep.write_call_sites_csv(calls.string());
    rep.write_spawn_sites_csv(spawns.string());
    EXPECT_EQ(read_file(calls), rep.call_sites_csv());
    EXPECT_EQ(read_file(spawns), rep.spawn_sites_csv());
    EXPECT_EQ(directory_entries(work_), (std::vector<std::string>{"calls.csv", "spawns.csv"}));
    std::string output;
    EXPECT_EQ(run_python(std::string("HEADER = '") + call_sites_csv_header +
                             "'\nEXPECTED = " + expected_call_sites_csv_python(rep) + csv_check_script,
                         calls, output),
              0)
        << output;
    EXPECT_EQ(run_python(std::string("HEADER = '") + spawn_sites_csv_header +
                             "'\nEXPECTED = " + expected_spawn_sites_csv_python(rep) + csv_check_script,
                         spawns, output),
              0)
        << output;
  }
}

TEST_F(ReportOutput, SiteCsvQuotingAndFormulaGuard) {
  fs::report rep = quicksort_report();
  fs::call_site_profile c;
  c.name = "=SUM(A1:A2)";
  c.file = "a,b.cpp";
  c.line = 42;
  c.function = "say \"hi\"";
  c.tag = "@tag\nnext";
  c.recursive = true;
  c.local_on_span = measure(2, 10, -4);
  rep.call_sites.push_back(c);
  fs::spawn_site_profile p;
  p.name = "+1";
  p.kind = fs::site_kind::spawn;
  p.function = "-f";
  p.tasks = 3;
  p.work = 10;
  p.span = 4;
  p.exclusive_work = 9;
  p.critical_span = -2;
  p.critical_percent = std::numeric_limits<double>::quiet_NaN();
  rep.spawn_sites.push_back(p);

  const auto calls = lines_of(rep.call_sites_csv());
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0], call_sites_csv_header);
  EXPECT_EQ(calls[1], "'=SUM(A1:A2),call,\"a,b.cpp\",42,\"say \"\"hi\"\"\",\"'@tag");
  EXPECT_EQ(calls[2], "next\",true,0,0,0,0.0,0,0,0,0.0,0,0,0,0.0,0,0,0,0.0,0,0,0,0.0,2,10,-4,0.0,ns,tsc");
  const auto spawns = lines_of(rep.spawn_sites_csv());
  ASSERT_EQ(spawns.size(), 2u);
  EXPECT_EQ(spawns[0], spawn_sites_csv_header);
  EXPECT_EQ(spawns[1], "'+1,spawn,,0,'-f,,false,3,10,4,2.5,9,-2,,ns,tsc");

  const fs::report none = quicksort_report();
  EXPECT_EQ(none.call_sites_csv(), std::string(call_sites_csv_header) + "\n");
  EXPECT_EQ(none.spawn_sites_csv(), std::string(spawn_sites_csv_header) + "\n");
}

TEST_F(ReportOutput, CheckProfilePassesOnConsistentRowsAndNamesEachFailure) {
  const fs::report good = profile_report();
  EXPECT_EQ(good.check_profile(), "");
  EXPECT_EQ(quicksort_report().check_profile(), "") << "no profile: nothing to check";
  EXPECT_EQ(fs::report().check_profile(), "");

  const std::string span = std::to_string(good.span()), work = std::to_string(good.work());
  const std::string rows = std::to_string(good.call_sites.size()) + " rows";
  const std::string spawn_rows = std::to_string(good.spawn_sites.size()) + " rows";
  {
    fs::report r = good;
    r.call_sites[3].local_on_span.span += 5;
    EXPECT_EQ(r.check_profile(), "profile self-check failed: call sites: local span on span sums to " +
                                     std::to_string(good.span() + 5) + " over " + rows + ", but the span is " + span);
  }
  {
    fs::report r = good;
    r.call_sites[0].local_on_work.work -= 1;
    EXPECT_EQ(r.check_profile(), "profile self-check failed: call sites: local work on work sums to " +
                                     std::to_string(good.work() - 1) + " over " + rows + ", but the work is " + work);
  }
  {
    fs::report r = good;
    r.spawn_sites.back().critical_span -= 2;
    EXPECT_EQ(r.check_profile(), "profile self-check failed: spawn sites: critical span sums to " +
                                     std::to_string(good.span() - 2) + " over " + spawn_rows + ", but the span is " +
                                     span);
  }
  {
    fs::report r = good;
    r.spawn_sites[1].exclusive_work += 10;
    EXPECT_EQ(r.check_profile(), "profile self-check failed: spawn sites: exclusive work sums to " +
                                     std::to_string(good.work() + 10) + " over " + spawn_rows + ", but the work is " +
                                     work);
  }
  {
    // A site whose span exceeds its work (issue 30: a `depend` chain's site
    // read span 528 ms, work 32 ms).
    fs::report r = good;
    r.spawn_sites[1].span = r.spawn_sites[1].work + 1;
    EXPECT_EQ(r.check_profile(),
              "profile self-check failed: span above work at 1 site measurement: " + r.spawn_sites[1].name +
                  " (spawn site: span " + std::to_string(r.spawn_sites[1].work + 1) + ", work " +
                  std::to_string(r.spawn_sites[1].work) + ")");
    fs::report c = good;
    c.call_sites[1].top_caller_on_work.span = static_cast<std::int64_t>(c.call_sites[1].top_caller_on_work.work) + 3;
    EXPECT_NE(c.check_profile().find("span above work at 1 site measurement: " + c.call_sites[1].name +
                                     " (top-caller on work: span "),
              std::string::npos)
        << c.check_profile();
  }
  {
    // Two failures in one line; a negative sum; an empty table against a span.
    fs::report r = good;
    r.call_sites[0].local_on_span.span = -static_cast<std::int64_t>(good.span()) - 100;
    r.spawn_sites.clear();
    const std::string m = r.check_profile();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_NE(m.find("call sites: local span on span sums to -"), std::string::npos) << m;
    EXPECT_NE(m.find("; spawn sites: critical span sums to 0 over 0 rows, but the span is " + span), std::string::npos)
        << m;
    EXPECT_NE(m.find("; spawn sites: exclusive work sums to 0 over 0 rows, but the work is " + work), std::string::npos)
        << m;
    EXPECT_EQ(m.find("local work on work"), std::string::npos) << m;
  }
  {
    fs::report r = good;
    r.call_sites[1].local_on_work.work = std::numeric_limits<std::uint64_t>::max();
    EXPECT_NE(r.check_profile().find("call sites: local work on work overflows 64 bits over "), std::string::npos)
        << r.check_profile();
  }
  // A failed check shows in the text report.
  fs::report bad = good;
  bad.call_sites[2].local_on_span.span += 1;
  EXPECT_NE(bad.to_text().find("\n  profile self-check failed:\n    call sites: local span on span sums to " +
                               std::to_string(good.span() + 1) + " over "),
            std::string::npos)
      << bad.to_text();
  EXPECT_EQ(good.to_text().find("self-check"), std::string::npos);
}

// A small profile whose table order is easy to see: local spans on span of
// 10 (root), 50, -5, 30 and 5; critical spans of 20 (root), 40, 30, 0.
fs::report ordering_report() {
  fs::report rep;
  rep.label = "order";
  fs::region_result root = make_region("order", "order", "", 0, 1);
  root.work = 1000;
  root.span = 90;
  rep.regions.push_back(root);
  const auto site = [](const char* name, fs::site_kind kind, std::int64_t local_span) {
    fs::call_site_profile c;
    c.name = name;
    c.function = kind == fs::site_kind::root ? "" : "fn";
    c.kind = kind;
    c.local_on_span = measure(1, 7, local_span);
    c.local_on_work = measure(3, 200, 9);
    c.top_call_site_on_work = measure(2, 400, 40);
    return c;
  };
  rep.call_sites = {site("order", fs::site_kind::root, 10), site("alpha", fs::site_kind::call, 50),
                    site("bravo", fs::site_kind::call, -5), site("charlie", fs::site_kind::spawn, 30),
                    site("delta", fs::site_kind::call, 5)};
  rep.call_sites[2].recursive = true;
  const auto task = [](const char* name, fs::site_kind kind, std::int64_t critical) {
    fs::spawn_site_profile p;
    p.name = name;
    p.kind = kind;
    p.tasks = 4;
    p.work = 300;
    p.span = 60;
    p.exclusive_work = 250;
    p.critical_span = critical;
    p.critical_percent = 100.0 * static_cast<double>(critical) / 90.0;
    return p;
  };
  rep.spawn_sites = {task("order", fs::site_kind::root, 20), task("echo", fs::site_kind::spawn, 40),
                     task("foxtrot", fs::site_kind::spawn, 30), task("golf", fs::site_kind::spawn, 0)};
  return rep;
}

// The order in which the lines holding these texts appear ("" for a missing one).
std::vector<std::string> order_of(const std::string& text, const std::vector<std::string>& names) {
  std::vector<std::pair<std::size_t, std::string>> found;
  for (const auto& n : names) {
    const std::size_t at = text.find("\n  " + n);
    if (at != std::string::npos) found.emplace_back(at, n);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (const auto& f : found) out.push_back(f.second);
  return out;
}

TEST_F(ReportOutput, SitesTextSortsByLocalSpanAndKeepsTheRoot) {
  const fs::report rep = ordering_report();
  const std::vector<std::string> calls = {"(root)", "alpha in fn", "bravo in fn", "spawn charlie in fn", "delta in fn"};
  const std::string all = rep.sites_text(10);
  EXPECT_EQ(order_of(all, calls),
            (std::vector<std::string>{"alpha in fn", "spawn charlie in fn", "(root)", "delta in fn", "bravo in fn"}))
      << all;
  EXPECT_EQ(all.find("more call sites"), std::string::npos) << all;
  EXPECT_TRUE(has_line(all, "  call site            l.span     %  l.work  t.work  t.span  t.par  count  r")) << all;
  EXPECT_TRUE(has_line(all, "  alpha in fn              50  55.6       7     400      40  10.00      3")) << all;
  EXPECT_TRUE(has_line(all, "  bravo in fn              -5  -5.6       7     400      40  10.00      3  *")) << all;
  EXPECT_TRUE(has_line(all, "  spawn site  tasks  work  span  par.  crit.span  crit.%")) << all;
  EXPECT_TRUE(has_line(all, "  echo            4   300    60  5.00         40    44.4")) << all;
  const std::string spawns = all.substr(all.find("\nSpawn sites"));
  EXPECT_EQ(order_of(spawns, {"(root)", "echo", "foxtrot", "golf"}),
            (std::vector<std::string>{"echo", "foxtrot", "(root)", "golf"}))
      << all;

  // The top two, and the root wherever it falls.
  const std::string two = rep.sites_text(2);
  EXPECT_EQ(order_of(two, calls), (std::vector<std::string>{"alpha in fn", "spawn charlie in fn", "(root)"})) << two;
  EXPECT_TRUE(has_line(two, "  (2 more call sites not shown)")) << two;
  EXPECT_TRUE(has_line(two, "  (1 more spawn site not shown)")) << two;
  const std::string none = rep.sites_text(0);
  EXPECT_EQ(order_of(none, calls), (std::vector<std::string>{"(root)"})) << none;
  EXPECT_TRUE(has_line(none, "  (4 more call sites not shown)")) << none;

  EXPECT_EQ(quicksort_report().sites_text(), "No site profiles in this report.\n");
}

TEST_F(ReportOutput, TextReportNumbersTheSiteSections) {
  fs::report rep = ordering_report();
  std::string text = rep.to_text();
  EXPECT_NE(text.find("\n\n3) Call sites (by local span on span, largest first; work and span in units)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\n\n4) Spawn sites (by critical span, largest first; work and span in units)\n"),
            std::string::npos)
      << text;
  // The same tables as sites_text shows.
  const std::string sites = rep.sites_text(10);
  const std::size_t calls_end = sites.find("\nSpawn sites");
  ASSERT_NE(calls_end, std::string::npos) << sites;
  EXPECT_NE(text.find(sites.substr(sites.find('\n'), calls_end - sites.find('\n'))), std::string::npos) << text;
  EXPECT_NE(text.find(sites.substr(sites.find('\n', calls_end + 1))), std::string::npos) << text;
  rep.regions.push_back(make_region("inner", "order/inner", "order", 1, 2));
  text = rep.to_text(true);
  EXPECT_NE(text.find("\n3) Regions"), std::string::npos) << text;
  EXPECT_NE(text.find("\n4) Call sites"), std::string::npos) << text;
  EXPECT_NE(text.find("\n5) Spawn sites"), std::string::npos) << text;
  EXPECT_NE(text.find("\n6) Before overhead compensation"), std::string::npos) << text;
  // No call sites, no section.
  rep.call_sites.clear();
  rep.spawn_sites.clear();
  EXPECT_EQ(rep.to_text().find("Call sites"), std::string::npos);
}

TEST_F(ReportOutput, SitesTextEscapesNamesAndFitsTheTerminal) {
  for (const fs::report& rep : {profile_report(), extreme_profile_report()}) {
    const std::string text = rep.to_text(true);
    for (const auto& line : lines_of(text)) {
      EXPECT_LE(fs::detail::output::display_width(line), 80u) << line;
      for (const char c : line) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20) << line;
    }
    EXPECT_EQ(fs::detail::output::valid_utf8(text), text);
  }
  const std::string text = profile_report().sites_text(100);
  // Control characters escaped; too wide even with short numbers, the names and
  // functions are shortened (and it says so), never left out; cuts end in "...".
  EXPECT_NE(text.find("\n  new\\nline in fn new"), std::string::npos) << text;
  EXPECT_EQ(text.find("(functions left out"), std::string::npos) << text;
  EXPECT_NE(text.find("(names shortened to fit 80 columns"), std::string::npos) << text;
  bool cut = false;
  for (const auto& line : lines_of(text))
    if (line.rfind("  spawn bad", 0) == 0) cut = line.find("... in fn ") != std::string::npos;
  EXPECT_TRUE(cut) << text;
  EXPECT_NE(text.find("\n  plain in fn plain  "), std::string::npos) << text;
  EXPECT_NE(text.find("(numbers rounded"), std::string::npos) << text;
  // Exact, negative numbers in the short form.
  const std::string extreme = extreme_profile_report().sites_text();
  EXPECT_NE(extreme.find("-9.22E"), std::string::npos) << extreme;
}

// Call and spawn sites whose labels cannot fit 80 columns even with short
// numbers: a long file name with a long function name, a spawn at file:line, and
// the tag FORKSCALE_CALL gives a call, with big numbers.
fs::report wide_sites_report() {
  fs::report rep;
  rep.label = "wide";
  rep.unit = "units";
  fs::region_result root = make_region("wide", "wide", "", 0, 1);
  root.work = 4 * 1234567890ull;                  // the local works below
  root.span = 1000 + 987654000 + 123456 + 12345;  // the local spans below
  rep.regions.push_back(root);
  const auto call = [](const char* name, const char* function, fs::site_kind kind, std::int64_t span) {
    fs::call_site_profile c;
    c.name = name;
    c.function = function;
    c.kind = kind;
    c.local_on_span = measure(12345, 123456789, span);
    c.local_on_work = measure(123456, 1234567890, 123456789);
    c.top_call_site_on_work = measure(123456, 1234567890, 123456789);
    return c;
  };
  rep.call_sites = {call("wide", "", fs::site_kind::root, 1000),
                    call("partition", "pqsort", fs::site_kind::call, 987654000),
                    call("a_rather_long_source_file_name.cpp:1234", "compute_the_boundary_conditions_of_the_grid",
                         fs::site_kind::call, 123456),
                    call("quicksort.cpp:167", "pqsort", fs::site_kind::spawn, 12345)};
  fs::spawn_site_profile p;
  p.name = "a_rather_long_source_file_name.cpp:1234";
  p.function = "compute_the_boundary_conditions_of_the_grid_and_then_some_more";
  p.kind = fs::site_kind::spawn;
  p.tasks = 123456789;
  p.work = 9876543210;
  p.span = 98765432;
  p.exclusive_work = root.work;
  p.critical_span = static_cast<std::int64_t>(root.span);
  p.critical_percent = 100;
  rep.spawn_sites = {p};
  return rep;
}

// The table's row whose label starts with `start` ("" when there is none).
std::string row_starting(const std::string& text, const std::string& start) {
  for (const auto& line : lines_of(text))
    if (line.rfind("  " + start, 0) == 0) return line;
  return "";
}

// One line of a template instantiated three times is three rows with the same
// name: shortened to fit, each keeps the end of its function, which tells them apart.
TEST_F(ReportOutput, InstancesOfOneTemplateStayApartWhenShortened) {
  fs::report rep = wide_sites_report();
  rep.call_sites.resize(1);
  const std::vector<std::string> functions{"spawn_leaf_of_the_tree<double>", "spawn_leaf_of_the_tree<int>",
                                           "spawn_leaf_of_the_tree<char>"};
  for (const std::string& function : functions) {
    fs::call_site_profile c = rep.call_sites.front();
    c.name = "a_rather_long_source_file_name.cpp:77";
    c.function = function;
    c.kind = fs::site_kind::spawn;
    rep.call_sites.push_back(c);
  }
  const std::string text = rep.sites_text();
  EXPECT_NE(text.find("(names shortened to fit 80 columns"), std::string::npos) << text;
  // Each row's label (up to the two blanks before the numbers) ends as its
  // function does: the three labels differ.
  std::set<std::string> labels;
  for (const auto& line : lines_of(text))
    if (line.rfind("  spawn ", 0) == 0 && line.find(":77 in ") != std::string::npos)
      labels.insert(line.substr(2, line.find("  ", 2) - 2));
  EXPECT_EQ(labels.size(), 3u) << text;
  for (const std::string& function : functions) {
    const std::string end = function.substr(function.size() - 3);
    EXPECT_EQ(std::count_if(labels.begin(), labels.end(),
                            [&](const std::string& l) { return l.size() >= 3 && l.substr(l.size() - 3) == end; }),
              1)
        << end << " in\n"
        << text;
  }
}

TEST_F(ReportOutput, SiteTablesKeepEveryFunctionIn80Columns) {
  const std::string text = wide_sites_report().sites_text();
  for (const auto& line : lines_of(text)) EXPECT_LE(fs::detail::output::display_width(line), 80u) << line;
  // Too wide even with short numbers: the labels are shortened, the functions stay.
  EXPECT_NE(text.find("(numbers rounded"), std::string::npos) << text;
  EXPECT_NE(text.find("(names shortened to fit 80 columns"), std::string::npos) << text;
  EXPECT_EQ(text.find("(functions left out"), std::string::npos) << text;
  // A short label whole: the call's name and the function it is in.
  EXPECT_NE(row_starting(text, "partition in pqsort  "), "") << text;
  // A long file name is cut before its line, a long function name at its end.
  const std::string lng = row_starting(text, "a");
  EXPECT_NE(lng.find("...:1234 in compu"), std::string::npos) << text;
  EXPECT_NE(lng.find("..."), lng.rfind("...")) << "both cut: " << lng;
  const std::string spawn = row_starting(text, "spawn ");
  EXPECT_NE(spawn.find(":167 in pqsort  "), std::string::npos) << text;
  // The spawn-site table has more room, and still keeps the function.
  const std::string spawns = text.substr(text.find("\nSpawn sites"));
  EXPECT_NE(row_starting(spawns, "a_rat").find("...:1234 in compute_th"), std::string::npos) << spawns;
  EXPECT_EQ(text.find("self-check failed"), std::string::npos) << text;
}

TEST_F(ReportOutput, SiteCsvWritersFailCleanly) {
  const fs::report rep = profile_report();
  const std::string missing = (work_ / "no_such_dir" / "calls.csv").string();
  expect_write_error(missing, missing, [&](const std::string& p) { rep.write_call_sites_csv(p); });
  expect_write_error(missing, missing, [&](const std::string& p) { rep.write_spawn_sites_csv(p); });
  EXPECT_TRUE(directory_entries(work_).empty());
  // Replacing an existing file leaves the new contents and no temporary.
  const stdfs::path file = work_ / "sites.csv";
  write_plain_file(file, std::string(100000, 'x'));
  rep.write_call_sites_csv(file.string());
  EXPECT_EQ(read_file(file), rep.call_sites_csv());
  rep.write_spawn_sites_csv(file.string());
  EXPECT_EQ(read_file(file), rep.spawn_sites_csv());
  EXPECT_EQ(directory_entries(work_), std::vector<std::string>{"sites.csv"});
}

// ---- what-if -------------------------------------------------------------------

constexpr double inf = std::numeric_limits<double>::infinity();

const char* const what_if_csv_header =
    "region,source,file,line,function,tag,model,factor,executed,entries,region_work,work,span,burdened_span,"
    "parallelism,gain,span_ticks_num,span_ticks_den,unit,clock";

// The tag of the hand-made region: a formula start, a comma, quotes and
// non-ASCII text.
const std::string wi_tag = "=part, \"q\" \xE6\x97\xA5\xE6\x9C\xAC \xC3\xA9";

std::size_t display_width_of_longest(const std::string& text) {
  std::size_t w = 0;
  for (const auto& line : lines_of(text)) w = std::max(w, fs::detail::output::display_width(line));
  return w;
}

fs::what_if_result wi_row(const std::string& region, fs::what_if_source source, fs::what_if_model model, double factor,
                          double work, double span, std::int64_t num, std::int64_t den) {
  fs::what_if_result w;
  w.region = region;
  w.source = source;
  w.model = model;
  w.factor = factor;
  w.executed = true;
  w.entries = 7;
  w.region_work = 400;
  w.work = work;
  w.span = span;
  w.burdened_span = span + 5000;
  w.parallelism = span > 0 ? work / span : inf;
  w.gain = w.parallelism / 10.0;
  w.span_ticks_num = num;
  w.span_ticks_den = den;
  return w;
}

// Work 1000, span 100 (parallelism 10); factors 2 and inf; the all-regions
// rows (the span drops to 0 at inf: infinite parallelism), a region with a
// tricky tag, a named call site that never ran, and a region with a long name.
fs::report what_if_report() {
  fs::report rep;
  rep.label = "what if";
  rep.unit = "units";
  rep.clock = fs::clock_kind::cost;
  rep.burden = 5000;
  fs::region_result root = make_region("what if", "what if", "", 0, 1);
  root.work = 1000;
  root.span = 100;
  root.burdened_span = 5100;
  rep.regions.push_back(root);
  using M = fs::what_if_model;
  using S = fs::what_if_source;
  const std::string all = "(all regions)";
  rep.what_if = {wi_row(all, S::all, M::parallelized, 2, 1000, 60, 120, 2),
                 wi_row(all, S::all, M::optimized, 2, 800, 60, 120, 2),
                 wi_row(all, S::all, M::parallelized, inf, 1000, 0, 0, 1),
                 wi_row(all, S::all, M::optimized, inf, 600, 0, 0, 1),
                 wi_row(wi_tag, S::region, M::parallelized, 2, 1000, 80, 160, 2),
                 wi_row(wi_tag, S::region, M::optimized, 2, 800, 80, 160, 2),
                 wi_row(wi_tag, S::region, M::parallelized, inf, 1000, 40, 40, 1),
                 wi_row(wi_tag, S::region, M::optimized, inf, 600, 40, 40, 1)};
  for (std::size_t i = 4; i < 8; ++i) {
    rep.what_if[i].file = "src/qs,\"x\".cpp";
    rep.what_if[i].line = 57;
    rep.what_if[i].function = "pqsort<int>";
    rep.what_if[i].tag = wi_tag;
  }
  const std::string long_name(70, 'L');
  for (double k : {2.0, inf})
    for (M m : {M::parallelized, M::optimized}) {
      fs::what_if_result w = wi_row(long_name, S::region, m, k, m == M::optimized ? 900 : 1000, k == 2 ? 95 : 90,
                                    k == 2 ? 190 : 90, k == 2 ? 2 : 1);
      w.tag = long_name;
      rep.what_if.push_back(w);
    }
  for (double k : {2.0, inf})
    for (M m : {M::parallelized, M::optimized}) {
      fs::what_if_result w;
      w.region = "missing.cpp:12";
      w.source = S::call_site;
      w.model = m;
      w.factor = k;
      w.executed = false;
      rep.what_if.push_back(w);
    }
  return rep;
}

TEST_F(ReportOutput, WhatIfTextTableFitsAndNamesEveryRegion) {
  const fs::report rep = what_if_report();
  const std::string text = rep.what_if_text();
  for (const auto& line : lines_of(text)) {
    EXPECT_LE(fs::detail::output::display_width(line), 80u) << line;
    for (const char c : line) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20) << line;
  }
  EXPECT_EQ(text.rfind("What if a region ran k times faster (times in units)\n", 0), 0u) << text;
  EXPECT_NE(text.find("measured: work 1,000, span 100 units, parallelism\n  10.00."), std::string::npos) << text;
  // The summary names the region (not the all-regions rows) with the most to
  // gain at its largest factor, and the bound on 32 processors.
  EXPECT_NE(text.find("\n  Most to gain: " + wi_tag +
                      " at k = inf: span 100 -> 40 units, parallelism\n    10.00 -> 25.00; speedup "
                      "on 32 processors at most 10.00 -> 25.00.\n"),
            std::string::npos)
      << text;
  // One line per region and factor, both models on it; inf for the infinite
  // factor and parallelism; the long name cut so that the table fits 80 columns.
  const auto row = [](const std::string& name, const std::string& rest) {
    return "  " + name + std::string(20 - fs::detail::output::display_width(name), ' ') + rest;
  };
  EXPECT_TRUE(has_line(text, row("region", "    k  span   par.  par./now  opt.work  opt.par.  opt./now"))) << text;
  EXPECT_TRUE(has_line(text, row("(all regions)", "    2    60  16.67     1.67x       800     13.33     1.33x")))
      << text;
  EXPECT_TRUE(has_line(text, row("(all regions)", "  inf     0    inf       inf       600       inf       inf")))
      << text;
  EXPECT_TRUE(has_line(text, row(wi_tag, "    2    80  12.50     1.25x       800     10.00     1.00x"))) << text;
  EXPECT_TRUE(has_line(text, row(wi_tag, "  inf    40  25.00     2.50x       600     15.00     1.50x"))) << text;
  EXPECT_TRUE(
      has_line(text, row(std::string(17, 'L') + "...", "    2    95  10.53     1.05x       900      9.47     0.95x")))
      << text;
  EXPECT_EQ(display_width_of_longest(text), 80u) << text;
  // The named call site that never ran: one line, no numbers.
  EXPECT_TRUE(has_line(text, row("missing.cpp:12", "  never executed (named call site)"))) << text;
  EXPECT_EQ(text.find("missing.cpp:12 ", 0), text.rfind("missing.cpp:12 ")) << text;
  std::size_t table_lines = 0;
  for (const auto& line : lines_of(text))
    if (line.find("(all regions) ") == 2 || line.find(wi_tag) == 2 || line.find("LLL") == 2 ||
        line.find("missing.cpp") == 2)
      ++table_lines;
  EXPECT_EQ(table_lines, 2u + 2u + 2u + 1u) << text;

  // to_text shows it after the site profiles, numbered; not without rows.
  fs::report with_sites = ordering_report();
  with_sites.what_if = rep.what_if;
  const std::string all = with_sites.to_text(true);
  EXPECT_NE(all.find("\n\n5) What if a region ran k times faster (times in units)\n"), std::string::npos) << all;
  EXPECT_LT(all.find("4) Spawn sites"), all.find("5) What if"));
  EXPECT_NE(all.find("\n6) Before overhead compensation"), std::string::npos) << all;
  EXPECT_EQ(quicksort_report().what_if_text(), "");
  EXPECT_EQ(quicksort_report().to_text().find("What if"), std::string::npos);
  EXPECT_EQ(fs::report().what_if_text(), "");
}

TEST_F(ReportOutput, WhatIfTextShortensHugeNumbers) {
  fs::report rep = what_if_report();
  rep.regions[0].work = 50000000000000ull;
  rep.regions[0].span = 10000000000000ull;
  for (auto& w : rep.what_if) {
    if (!w.executed) continue;
    w.span *= 1e11;
    w.work *= 1e11;
    if (std::isfinite(w.parallelism)) w.parallelism *= 1e4;
    if (std::isfinite(w.gain)) w.gain *= 1e4;
  }
  const std::string text = rep.what_if_text();
  for (const auto& line : lines_of(text)) EXPECT_LE(fs::detail::output::display_width(line), 80u) << line;
  EXPECT_NE(text.find("(numbers rounded"), std::string::npos) << text;
  EXPECT_NE(text.find("inf"), std::string::npos) << text;
}

TEST_F(ReportOutput, WhatIfCsvQuotesGuardsAndWritesInfinity) {
  const fs::report rep = what_if_report();
  const auto rows = lines_of(rep.what_if_csv());
  ASSERT_EQ(rows.size(), 1u + rep.what_if.size());
  EXPECT_EQ(rows[0], what_if_csv_header);
  EXPECT_EQ(rows[1],
            "(all regions),all,,0,,,parallelized,2.0,true,7,400,1000.0,60.0,5060.0,16.666666666666668,"
            "1.6666666666666667,120,2,units,cost");
  EXPECT_EQ(rows[3], "(all regions),all,,0,,,parallelized,inf,true,7,400,1000.0,0.0,5000.0,inf,inf,0,1,units,cost");
  EXPECT_EQ(rows[6],
            "\"'=part, \"\"q\"\" \xE6\x97\xA5\xE6\x9C\xAC \xC3\xA9\",region,\"src/qs,\"\"x\"\".cpp\",57,"
            "pqsort<int>,\"'=part, \"\"q\"\" \xE6\x97\xA5\xE6\x9C\xAC \xC3\xA9\",optimized,2.0,true,7,400,"
            "800.0,80.0,5080.0,10.0,1.0,160,2,units,cost");
  EXPECT_EQ(rows.back(), "missing.cpp:12,call_site,,0,,,optimized,inf,false,0,0,0.0,0.0,0.0,0.0,0.0,0,1,units,cost");
  EXPECT_EQ(quicksort_report().what_if_csv(), std::string(what_if_csv_header) + "\n");

  // Python's csv module reads every row back.
  if (!python_available()) GTEST_SKIP() << "python3 (with json and csv) is not available";
  const stdfs::path file = work_ / "what_if.csv";
  rep.write_what_if_csv(file.string());
  EXPECT_EQ(read_file(file), rep.what_if_csv());
  EXPECT_EQ(directory_entries(work_), std::vector<std::string>{"what_if.csv"});
  const auto unbounded = [](double v) { return std::isinf(v) && v > 0 ? std::string("'inf'") : py_float(v); };
  std::string expected = "[\n";
  for (const auto& w : rep.what_if)
    expected += " [" + py_str(w.region) + ", " + py_str(fs::to_string(w.source)) + ", " + py_str(w.file) + ", " +
                py_int(w.line) + ", " + py_str(w.function) + ", " + py_str(w.tag) + ", " +
                py_str(fs::to_string(w.model)) + ", " + unbounded(w.factor) + ", " +
                (w.executed ? "'true'" : "'false'") + ", " + py_int(w.entries) + ", " + py_int(w.region_work) + ", " +
                py_float(w.work) + ", " + py_float(w.span) + ", " + py_float(w.burdened_span) + ", " +
                unbounded(w.parallelism) + ", " + unbounded(w.gain) + ", " + py_i64(w.span_ticks_num) + ", " +
                py_i64(w.span_ticks_den) + ", 'units', 'cost'],\n";
  expected += "]\n";
  std::string output;
  EXPECT_EQ(run_python(std::string("HEADER = '") + what_if_csv_header + "'\nEXPECTED = " + expected + csv_check_script,
                       file, output),
            0)
      << output;
}

TEST_F(ReportOutput, WhatIfJsonRoundTripsThroughPython) {
  const fs::report rep = what_if_report();
  const std::string json = rep.to_json();
  EXPECT_NE(json.find("\"factor\": \"inf\","), std::string::npos) << json;
  EXPECT_NE(json.find("\"parallelism\": \"inf\",\n      \"gain\": \"inf\","), std::string::npos) << json;
  EXPECT_NE(json.find("\"executed\": false,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"span_ticks_den\": 2\n"), std::string::npos) << json;
  if (!python_available()) GTEST_SKIP() << "python3 (with json and csv) is not available";
  const stdfs::path file = work_ / "what_if.json";
  rep.write_json(file.string());
  std::string output;
  EXPECT_EQ(run_python("EXPECTED = " + expected_json_python(rep) + json_check_script, file, output), 0) << output;
}

TEST_F(ReportOutput, WhatIfWriterFailsCleanly) {
  const fs::report rep = what_if_report();
  const std::string missing = (work_ / "no_such_dir" / "w.csv").string();
  expect_write_error(missing, missing, [&](const std::string& p) { rep.write_what_if_csv(p); });
  EXPECT_TRUE(directory_entries(work_).empty());
  const stdfs::path file = work_ / "w.csv";
  write_plain_file(file, std::string(100000, 'x'));
  rep.write_what_if_csv(file.string());
  EXPECT_EQ(read_file(file), rep.what_if_csv());
  EXPECT_EQ(directory_entries(work_), std::vector<std::string>{"w.csv"});
}

// A real measurement under the cost clock: 60 units of serial work in the
// region "serial", then two tasks of 20 units each. Work 100, span 80.
fs::report what_if_measurement() {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.what_if.read_environment = false;
  o.what_if.factors = {2, inf};
  return fs::measure(
      "what-if demo",
      [] {
        {
          fs::what_if_region g("serial");
          fs::charge(60);
        }
        fs::spawn([] { fs::charge(20); })();
        {
          fs::what_if_region g("task, \"b\"");
          fs::charge(20);
        }
        fs::sync_point sp;
      },
      o);
}

TEST_F(ReportOutput, WhatIfSectionOfARealMeasurement) {
  const fs::report rep = what_if_measurement();
  ASSERT_EQ(rep.work(), 100u);
  ASSERT_EQ(rep.span(), 80u);
  ASSERT_EQ(rep.what_if.size(), 3u * 2u * 2u);
  const std::string text = rep.to_text();
  EXPECT_NE(text.find(") What if a region ran k times faster (times in units)\n"), std::string::npos) << text;
  EXPECT_NE(text.find(rep.what_if_text().substr(rep.what_if_text().find('\n'))), std::string::npos) << text;
  // serial at 2: span 30 + 20 = 50, parallelism 2 (gain 1.6); optimized: work 70.
  // At inf: span 20, parallelism 5; optimized 40 / 20 = 2.
  EXPECT_TRUE(has_line(text, "  serial           2    50  2.00     1.60x        70      1.40     1.12x")) << text;
  EXPECT_TRUE(has_line(text, "  serial         inf    20  5.00     4.00x        40      2.00     1.60x")) << text;
  // The continuation's region is not on the critical path (the spawned task is):
  // the span stays 80; optimized, the work drops to 90.
  EXPECT_TRUE(has_line(text, "  task, \"b\"        2    80  1.25     1.00x        90      1.12     0.90x")) << text;
  // Both regions together: the spawned task (in no region) keeps 20 on the
  // path: 30 + 20 at 2, 20 at inf; optimized, the work is 60 and 20.
  EXPECT_TRUE(has_line(text, "  (all regions)    2    50  2.00     1.60x        60      1.20     0.96x")) << text;
  EXPECT_TRUE(has_line(text, "  (all regions)  inf    20  5.00     4.00x        20      1.00     0.80x")) << text;
  EXPECT_NE(text.find("Most to gain: serial at k = inf: span 80 -> 20 units, parallelism 1.25 ->\n    5.00;"),
            std::string::npos)
      << text;
  for (const auto& line : lines_of(text)) EXPECT_LE(fs::detail::output::display_width(line), 80u) << line;
  const auto csv = lines_of(rep.what_if_csv());
  EXPECT_EQ(csv.size(), 1u + rep.what_if.size());
}

}  // namespace
