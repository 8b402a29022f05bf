// The views of a record (docs/record.md): the trace (report::to_trace) checked
// against the Trace Event Format's rules as Perfetto's JSON importer applies
// them — required keys per phase, slices of one track nested, every flow id with
// one start and one end, each inside a slice of its track — and against the
// report under the cost clock: the critical-path track's spans add up to the
// span, every strand is on its thread's track once. The folded stacks
// (report::to_folded) add up to the work and to the span exactly. Both on random
// programs (tests/support/random_program.hpp) run serially and on threads, and
// on a quicksort. Then the environment (FORKSCALE_TRACE, FORKSCALE_FOLDED) and
// bad input: no record, an unwritable path, a directory.
//
// FORKSCALE_PROPERTY_SEED=<n> replays from seed n; FORKSCALE_VIEWS_COUNT=<n> sets
// how many random programs each property runs (default 300).
#include <forkscale/detail/input/report_reader.hpp>  // the strict JSON reader
#include <forkscale/forkscale.hpp>
#include <forkscale/read_report.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support/random_program.hpp"

namespace fs = forkscale;
namespace json = forkscale::detail::json;
namespace stdfs = std::filesystem;

namespace {

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::strtoull(v, nullptr, 10);
}

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const std::uint64_t s = env_or("FORKSCALE_PROPERTY_SEED", std::random_device{}());
    std::cout << "[views] base seed " << s << " (replay with FORKSCALE_PROPERTY_SEED=" << s << ")\n";
    return s;
  }();
  return seed;
}

std::string read_file(const stdfs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// ---- the Trace Event Format, as a checker ------------------------------------------

struct trace_slice {
  long long start = 0, end = 0;  // ns
  const json::value* event = nullptr;
};

struct trace_facts {
  std::vector<std::string> problems;
  std::map<long long, std::vector<trace_slice>> slices;  // by tid
  std::map<long long, std::string> thread_names;
  void fail(const std::string& s) {
    if (problems.size() < 12) problems.push_back(s);
  }
};

const json::value* member(const json::value& obj, const char* key) {
  return obj.is(json::kind::object) ? obj.find(key) : nullptr;
}

// A ts or dur: a number >= 0, in microseconds; returned in (rounded) ns.
bool time_ns(const json::value* v, long long& ns) {
  double d = 0;
  if (!v || !json::number_as_double(*v, d) || d < 0) return false;
  ns = std::llround(d * 1000);
  return true;
}

bool integer(const json::value* v, long long& out) {
  std::int64_t i = 0;
  if (!v || !json::number_as_i64(*v, i)) return false;
  out = i;
  return true;
}

bool is_string(const json::value* v) { return v && v->is(json::kind::string); }

struct flow_ends {
  int starts = 0, finishes = 0;
  std::string cat;
  long long tid[2] = {0, 0}, ts[2] = {0, 0};
};

// The keys each phase requires ("Trace Event Format": X complete events, M
// metadata, s/f flow events of the first version).
void check_event(const json::value& e, std::size_t k, trace_facts& t, std::map<long long, flow_ends>& flows) {
  const std::string at = "event " + std::to_string(k) + ": ";
  const json::value* ph = member(e, "ph");
  long long pid = 0, tid = 0, ts = 0, dur = 0, id = 0;
  if (!is_string(ph)) return t.fail(at + "no string ph");
  if (!integer(member(e, "pid"), pid)) t.fail(at + "no integer pid");
  if (ph->text == "M") {
    if (!is_string(member(e, "name")) || !member(e, "args") || !member(e, "args")->is(json::kind::object))
      return t.fail(at + "metadata without name or args");
    if (member(e, "name")->text == "thread_name" && integer(member(e, "tid"), tid) &&
        is_string(member(*member(e, "args"), "name")))
      t.thread_names[tid] = member(*member(e, "args"), "name")->text;
    return;
  }
  if (!integer(member(e, "tid"), tid)) return t.fail(at + "no integer tid");
  if (!time_ns(member(e, "ts"), ts)) return t.fail(at + "no ts >= 0");
  if (ph->text == "X") {
    if (!is_string(member(e, "name"))) t.fail(at + "slice without a name");
    if (!time_ns(member(e, "dur"), dur)) return t.fail(at + "slice without dur >= 0");
    t.slices[tid].push_back(trace_slice{ts, ts + dur, &e});
    return;
  }
  if (ph->text != "s" && ph->text != "f") return t.fail(at + "unexpected phase " + ph->text);
  if (!integer(member(e, "id"), id) || !is_string(member(e, "cat"))) return t.fail(at + "flow without id or cat");
  flow_ends& f = flows[id];
  const int end = ph->text == "f" ? 1 : 0;
  (end ? f.finishes : f.starts) += 1;
  if (end && (!is_string(member(e, "bp")) || member(e, "bp")->text != "e")) t.fail(at + "flow end without bp e");
  if (!f.cat.empty() && f.cat != member(e, "cat")->text) t.fail(at + "flow " + std::to_string(id) + " changes cat");
  f.cat = member(e, "cat")->text;
  f.tid[end] = tid;
  f.ts[end] = ts;
}

// Perfetto's rule for one track: sorted by start (longest first), a slice that
// starts inside another must end inside it.
void check_nesting(trace_facts& t) {
  for (auto& track : t.slices) {
    auto& v = track.second;
    std::stable_sort(v.begin(), v.end(), [](const trace_slice& a, const trace_slice& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    std::vector<const trace_slice*> open;
    for (const trace_slice& s : v) {
      while (!open.empty() && open.back()->end <= s.start) open.pop_back();
      if (!open.empty() && s.end > open.back()->end)
        t.fail("tid " + std::to_string(track.first) + ": slice [" + std::to_string(s.start) + ", " +
               std::to_string(s.end) + "] overlaps [" + std::to_string(open.back()->start) + ", " +
               std::to_string(open.back()->end) + "] partially");
      open.push_back(&s);
    }
  }
}

// Whether `ts` lies inside a slice of track `tid` (ends included).
bool inside_a_slice(const trace_facts& t, long long tid, long long ts) {
  const auto track = t.slices.find(tid);
  if (track == t.slices.end()) return false;
  for (const trace_slice& s : track->second)
    if (s.start <= ts && ts <= s.end) return true;
  return false;
}

trace_facts check_trace_format(const std::string& text, json::value& top) {
  trace_facts t;
  json::limits lim;
  lim.max_bytes = std::size_t(1) << 30;
  lim.max_values = 200'000'000;
  try {
    top = json::parse(text, lim);
  } catch (const std::exception& e) {
    t.fail(std::string("not JSON: ") + e.what());
    return t;
  }
  const json::value* events = member(top, "traceEvents");
  if (!events || !events->is(json::kind::array)) {
    t.fail("no traceEvents array");
    return t;
  }
  if (!is_string(member(top, "displayTimeUnit")) || member(top, "displayTimeUnit")->text != "ns")
    t.fail("displayTimeUnit is not \"ns\"");
  if (!member(top, "otherData") || !member(top, "otherData")->is(json::kind::object)) t.fail("no otherData object");
  std::map<long long, flow_ends> flows;
  for (std::size_t k = 0; k < events->items.size(); ++k) check_event(events->items[k], k, t, flows);
  check_nesting(t);
  for (const auto& f : flows) {
    if (f.second.starts != 1 || f.second.finishes != 1)
      t.fail("flow " + std::to_string(f.first) + " has " + std::to_string(f.second.starts) + " starts and " +
             std::to_string(f.second.finishes) + " ends");
    for (int end = 0; end < 2; ++end)
      if (!inside_a_slice(t, f.second.tid[end], f.second.ts[end]))
        t.fail("flow " + std::to_string(f.first) + (end ? " ends" : " starts") + " outside every slice of its tid");
  }
  return t;
}

std::uint64_t arg_u64(const json::value& e, const char* key) {
  std::uint64_t v = 0;
  const json::value* args = member(e, "args");
  if (!args || !member(*args, key) || !json::number_as_u64(*member(*args, key), v)) return ~std::uint64_t(0);
  return v;
}

// The trace against the report: strands once each on their thread's track, the
// work, the critical path's spans adding up to the span, one spawn arrow per spawn.
std::string check_trace(const fs::report& rep) {
  json::value top;
  trace_facts t = check_trace_format(rep.to_trace(), top);
  const fs::execution_record& r = *rep.record;
  long long critical_tid = -1;
  for (const auto& n : t.thread_names)
    if (n.second == "critical path") critical_tid = n.first;
  if (critical_tid < 0) t.fail("no track named \"critical path\"");
  std::vector<int> seen(r.strands.size(), 0);
  std::uint64_t work = 0, critical_span = 0, critical_slices = 0;
  for (const auto& track : t.slices)
    for (const trace_slice& s : track.second) {
      const std::string cat = member(*s.event, "cat") ? member(*s.event, "cat")->text : "";
      if (track.first == critical_tid) {
        critical_span += arg_u64(*s.event, "span");
        ++critical_slices;
        continue;
      }
      if (cat == "region") continue;
      const std::uint64_t i = arg_u64(*s.event, "strand");
      if (i >= r.strands.size()) {
        t.fail("a slice names no strand");
        continue;
      }
      ++seen[i];
      work += arg_u64(*s.event, "work");
      if (track.first != static_cast<long long>(r.strands[i].thread) + 1) t.fail("strand on another thread's track");
      if ((cat == "critical") != r.strands[i].critical) t.fail("strand " + std::to_string(i) + " has cat " + cat);
    }
  for (std::size_t i = 0; i < seen.size(); ++i)
    if (seen[i] != 1) t.fail("strand " + std::to_string(i) + " appears " + std::to_string(seen[i]) + " times");
  if (work != rep.work()) t.fail("strands' work " + std::to_string(work) + ", report " + std::to_string(rep.work()));
  if (critical_span != rep.span())
    t.fail("critical track sums to " + std::to_string(critical_span) + ", span " + std::to_string(rep.span()));
  if (critical_slices != r.critical_path.size()) t.fail("critical track has the wrong number of slices");
  std::uint64_t spawn_flows = 0;
  for (const auto& e : member(top, "traceEvents")->items)
    if (is_string(member(e, "ph")) && member(e, "ph")->text == "s" && member(e, "cat")->text == "spawn") ++spawn_flows;
  if (spawn_flows != rep.spawns())
    t.fail(std::to_string(spawn_flows) + " spawn arrows for " + std::to_string(rep.spawns()) + " spawns");
  std::string out;
  for (const auto& p : t.problems) out += "  " + p + "\n";
  return out;
}

// ---- folded stacks -----------------------------------------------------------------

// The lines of a folded file: sorted, distinct stacks, positive integer counts;
// returns their sum (problems appended to `out`).
std::uint64_t folded_sum(const std::string& text, const std::string& root, std::string& out) {
  std::uint64_t sum = 0;
  std::string last;
  std::size_t from = 0;
  while (from < text.size()) {
    const std::size_t nl = text.find('\n', from);
    if (nl == std::string::npos) {
      out += "  the last line has no newline\n";
      break;
    }
    const std::string line = text.substr(from, nl - from);
    from = nl + 1;
    const std::size_t space = line.rfind(' ');
    const std::string stack = space == std::string::npos ? "" : line.substr(0, space);
    const std::string count = space == std::string::npos ? "" : line.substr(space + 1);
    if (stack.empty() || count.empty() || count.find_first_not_of("0123456789") != std::string::npos || count == "0") {
      out += "  bad line '" + line + "'\n";
      continue;
    }
    if (!last.empty() && !(last < stack)) out += "  stacks not sorted or repeated at '" + stack + "'\n";
    if (stack.compare(0, root.size(), root) != 0 || (stack.size() > root.size() && stack[root.size()] != ';'))
      out += "  stack '" + stack + "' does not start at the measurement\n";
    last = stack;
    sum += std::stoull(count);
  }
  return sum;
}

std::string check_folded(const fs::report& rep) {
  std::string out;
  const std::uint64_t work = folded_sum(rep.to_folded(fs::folded_kind::work), rep.label, out);
  const std::uint64_t span = folded_sum(rep.to_folded(fs::folded_kind::critical_path), rep.label, out);
  if (work != rep.work())
    out += "  work file sums to " + std::to_string(work) + ", work " + std::to_string(rep.work()) + "\n";
  if (span != rep.span())
    out += "  critical file sums to " + std::to_string(span) + ", span " + std::to_string(rep.span()) + "\n";
  return out;
}

void run_programs(unsigned workers, bool trace, std::uint64_t seed_offset) {
  const std::uint64_t count = env_or("FORKSCALE_VIEWS_COUNT", 300);
  rp::scheduler sched(workers);
  std::uint64_t failures = 0;
  for (std::uint64_t i = 0; i < count && failures < 3; ++i) {
    const std::uint64_t seed = base_seed() + seed_offset + i;
    const rp::program p = rp::generator(seed, false).make();
    rp::interpreter<> run(sched, seed * 7919);
    fs::options opt;
    opt.record = true;
    opt.on_diagnostic = [](const fs::diagnostic&) {};
    const fs::report rep = run.run(p, "program", opt);
    if (!rep.record || rep.diagnostic_count != 0) {
      ++failures;
      ADD_FAILURE() << "program with seed " << seed << ": no record, or diagnostics";
      continue;
    }
    const std::string diff = check_folded(rep) + (trace ? check_trace(rep) : std::string());
    if (!diff.empty()) {
      ++failures;
      ADD_FAILURE() << "program with seed " << seed << " (workers " << workers << "):\n" << diff << p.describe();
    }
  }
}

}  // namespace

TEST(RecordViewsProperty, SerialProgramsTraceAndFold) { run_programs(0, true, 0); }
TEST(RecordViewsProperty, ThreadedProgramsTraceAndFold) { run_programs(3, true, 1u << 20); }

namespace {

// The checker can fail: a trace with a partial overlap, a lone flow start and a
// flow outside every slice.
TEST(TraceChecker, FindsBrokenTraces) {
  const std::string bad = R"({"traceEvents":[
{"name":"a","ph":"X","ts":1.000,"dur":2.000,"pid":1,"tid":1},
{"name":"b","ph":"X","ts":2.000,"dur":2.000,"pid":1,"tid":1},
{"name":"x","cat":"spawn","ph":"s","id":1,"ts":9.000,"pid":1,"tid":1},
{"name":"y","ph":"X","ts":-1,"dur":1,"pid":1,"tid":1}
],"displayTimeUnit":"ns","otherData":{}})";
  json::value top;
  const trace_facts t = check_trace_format(bad, top);
  std::string all;
  for (const auto& p : t.problems) all += p + "\n";
  EXPECT_NE(all.find("overlaps"), std::string::npos) << all;
  EXPECT_NE(all.find("1 starts and 0 ends"), std::string::npos) << all;
  EXPECT_NE(all.find("outside every slice"), std::string::npos) << all;
  EXPECT_NE(all.find("no ts >= 0"), std::string::npos) << all;
}

long fib(int n) {
  fs::charge(1);
  if (n < 2) return n;
  long x = 0, y = 0;
  auto t = fs::spawn([&] { x = fib(n - 1); });
  t();
  {
    fs::call_site cs(fs::site::tagged("fib; the call\nside"));
    y = fib(n - 2);
  }
  fs::sync_point sp;
  return x + y;
}

fs::options recorded() {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.record = true;
  return o;
}

// Quicksort as the example has it: partition (one unit per element; three ways,
// so that the pivot's equals are done), spawn the lower part, call the upper
// part, sync; a region around the whole sort.
void quicksort(std::vector<int>& a, std::ptrdiff_t lo, std::ptrdiff_t hi) {
  if (hi - lo < 16) {
    std::sort(a.begin() + lo, a.begin() + hi);
    fs::charge(static_cast<std::uint64_t>(hi - lo));
    return;
  }
  const int pivot = a[static_cast<std::size_t>(lo + (hi - lo) / 2)];
  const auto less = std::partition(a.begin() + lo, a.begin() + hi, [pivot](int v) { return v < pivot; });
  const auto more = std::partition(less, a.begin() + hi, [pivot](int v) { return v == pivot; });
  fs::charge(static_cast<std::uint64_t>(hi - lo));
  const std::ptrdiff_t m1 = less - a.begin(), m2 = more - a.begin();
  fs::spawn([&a, lo, m1] { quicksort(a, lo, m1); })();
  FORKSCALE_CALL(quicksort(a, m2, hi));
  fs::sync_point sp;
}

}  // namespace

TEST(RecordViews, QuicksortTraceAndFoldedAddUp) {
  std::vector<int> data(20000);
  std::mt19937 gen(7);
  for (int& v : data) v = static_cast<int>(gen() % 100000);
  const fs::report rep = fs::measure(
      "quicksort",
      [&] {
        fs::region r("sort");
        quicksort(data, 0, static_cast<std::ptrdiff_t>(data.size()));
      },
      recorded());
  ASSERT_TRUE(std::is_sorted(data.begin(), data.end()));
  ASSERT_TRUE(rep.record);
  EXPECT_EQ(check_trace(rep), "");
  EXPECT_EQ(check_folded(rep), "");
  // The region is a slice around the strands it holds.
  EXPECT_NE(rep.to_trace().find("\"name\":\"quicksort/sort\",\"cat\":\"region\""), std::string::npos);
}

TEST(RecordViews, StacksNameTheSitesAndKeepTheFormat) {
  const fs::report rep = fs::measure(
      "fib", [] { fib(6); }, recorded());
  const std::string work = rep.to_folded(fs::folded_kind::work);
  // A tag with ';' and a newline stays one frame on one line.
  EXPECT_NE(work.find("fib;fib: the call side"), std::string::npos) << work;
  EXPECT_EQ(check_folded(rep), "");
  EXPECT_EQ(check_trace(rep), "");
  EXPECT_NE(rep.to_trace().find("\"name\":\"fib; the call\\u000aside\""), std::string::npos);
}

TEST(RecordViews, PartialRecordsStillWriteAndSaySo) {
  fs::options o = recorded();
  o.record_limit = 100000;
  o.on_diagnostic = [](const fs::diagnostic&) {};
  const fs::report rep = fs::measure(
      "fib", [] { fib(16); }, o);
  ASSERT_TRUE(rep.record);
  ASSERT_FALSE(rep.record->complete);
  json::value top;
  const std::string text = rep.to_trace();
  EXPECT_TRUE(check_trace_format(text, top).problems.empty());
  const json::value* record = member(*member(top, "otherData"), "record");
  ASSERT_TRUE(is_string(record));
  EXPECT_EQ(record->text.rfind("partial", 0), 0u) << record->text;
  std::string out;
  EXPECT_LT(folded_sum(rep.to_folded(fs::folded_kind::work), "fib", out), rep.work());
  EXPECT_EQ(out, "");
}

TEST(RecordViews, NoRecordIsAOneLineError) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  const fs::report rep = fs::measure(
      "plain", [] { fib(4); }, o);
  ASSERT_FALSE(rep.record);
  const std::string expected =
      "forkscale: report 'plain' has no record: measure with options.record = true or FORKSCALE_RECORD=1";
  for (int k = 0; k < 4; ++k) {
    try {
      if (k == 0) (void)rep.to_trace();
      if (k == 1) (void)rep.to_folded(fs::folded_kind::work);
      if (k == 2) rep.write_trace((stdfs::temp_directory_path() / "forkscale-never.json").string());
      if (k == 3)
        rep.write_folded((stdfs::temp_directory_path() / "forkscale-never.folded").string(),
                         fs::folded_kind::critical_path);
      ADD_FAILURE() << "no error for case " << k;
    } catch (const fs::error& e) {
      EXPECT_EQ(std::string(e.what()), expected);
    }
  }
  EXPECT_FALSE(stdfs::exists(stdfs::temp_directory_path() / "forkscale-never.json"));
}

namespace {

// A fresh directory under the temporary directory.
stdfs::path scratch(const std::string& name) {
  const stdfs::path d =
      stdfs::temp_directory_path() / ("forkscale-views-" + std::to_string(std::random_device{}()) + "-" + name);
  stdfs::create_directories(d);
  return d;
}

std::vector<std::string> names_in(const stdfs::path& d) {
  std::vector<std::string> v;
  for (const auto& e : stdfs::directory_iterator(d)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

// Sets environment variables for one scope.
struct environment {
  std::vector<std::string> names;
  environment& set(const std::string& name, const std::string& value) {
    ::setenv(name.c_str(), value.c_str(), 1);
    names.push_back(name);
    return *this;
  }
  ~environment() {
    for (const auto& n : names) ::unsetenv(n.c_str());
  }
};

}  // namespace

TEST(RecordViews, UnwritablePathsAreOneLineErrorsAndLeaveNoFile) {
  const fs::report rep = fs::measure(
      "fib", [] { fib(8); }, recorded());
  const stdfs::path d = scratch("unwritable");
  stdfs::create_directories(d / "taken.json");
  const std::vector<std::string> before = names_in(d);
  for (const stdfs::path& p : {d / "no" / "such" / "dir" / "t.json", d / "taken.json"}) {
    try {
      rep.write_trace(p.string());
      ADD_FAILURE() << "no error writing " << p;
    } catch (const fs::error& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.rfind("forkscale: cannot write report '" + p.string() + "': ", 0), 0u) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
    EXPECT_THROW(rep.write_folded(p.string(), fs::folded_kind::work), fs::error);
  }
  EXPECT_EQ(names_in(d), before);  // no temporary left behind
  EXPECT_TRUE(stdfs::is_empty(d / "taken.json"));
  stdfs::remove_all(d);
}

TEST(RecordViews, EnvironmentWritesTheTraceAndBothFoldedFiles) {
  const stdfs::path d = scratch("env");
  fs::report rep;
  {
    environment env;
    env.set("FORKSCALE_TRACE", (d / "run.trace.json").string()).set("FORKSCALE_FOLDED", (d / "run.folded").string());
    fs::options o;  // recording is not asked for in the code: the variables turn it on
    o.clock = fs::clock_kind::cost;
    rep = fs::measure(
        "fib", [] { fib(10); }, o);
  }
  ASSERT_TRUE(rep.record);
  EXPECT_EQ(rep.diagnostic_count, 0u);
  EXPECT_EQ(names_in(d), (std::vector<std::string>{"run.critical.folded", "run.trace.json", "run.work.folded"}));
  json::value top;
  const trace_facts t = check_trace_format(read_file(d / "run.trace.json"), top);
  EXPECT_TRUE(t.problems.empty()) << t.problems.front();
  std::string out;
  EXPECT_EQ(folded_sum(read_file(d / "run.work.folded"), "fib", out), rep.work());
  EXPECT_EQ(folded_sum(read_file(d / "run.critical.folded"), "fib", out), rep.span());
  EXPECT_EQ(out, "");
  // Any other name gets the suffixes appended.
  {
    environment env;
    env.set("FORKSCALE_FOLDED", (d / "stacks").string());
    fs::options o = recorded();
    (void)fs::measure(
        "fib", [] { fib(5); }, o);
  }
  EXPECT_TRUE(stdfs::exists(d / "stacks.work.folded"));
  EXPECT_TRUE(stdfs::exists(d / "stacks.critical.folded"));
  stdfs::remove_all(d);
}

TEST(RecordViews, EnvironmentFailuresAreDiagnosticsNotExceptions) {
  const stdfs::path d = scratch("env-bad");
  stdfs::create_directories(d / "taken.critical.folded");
  std::vector<fs::diagnostic> seen;
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.on_diagnostic = [&](const fs::diagnostic& x) { seen.push_back(x); };
  fs::report rep;
  {
    environment env;
    env.set("FORKSCALE_TRACE", d.string()).set("FORKSCALE_FOLDED", (d / "taken").string());
    EXPECT_NO_THROW(rep = fs::measure(
                        "fib", [] { fib(6); }, o));
  }
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(rep.diagnostic_count, 2u);
  ASSERT_EQ(rep.diagnostics.size(), 2u);
  EXPECT_EQ(rep.diagnostics[0].where, "FORKSCALE_TRACE");
  EXPECT_EQ(rep.diagnostics[0].problem.rfind("cannot write '" + d.string() + "': ", 0), 0u)
      << rep.diagnostics[0].problem;
  EXPECT_EQ(rep.diagnostics[1].where, "FORKSCALE_FOLDED");
  EXPECT_NE(rep.diagnostics[1].problem.find("taken.critical.folded"), std::string::npos) << rep.diagnostics[1].problem;
  // All or nothing: the work file was not left behind either.
  EXPECT_EQ(names_in(d), (std::vector<std::string>{"taken.critical.folded"}));
  EXPECT_TRUE(rep.call_sites.size() > 0);  // not misuse: the profiles stay
  stdfs::remove_all(d);
}

TEST(RecordViews, WithoutAHandlerTheFailureIsOneStderrLine) {
  const stdfs::path d = scratch("env-stderr");
  fs::options o;
  o.clock = fs::clock_kind::cost;
  environment env;
  env.set("FORKSCALE_TRACE", d.string());
  testing::internal::CaptureStderr();
  const fs::report rep = fs::measure(
      "fib", [] { fib(4); }, o);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.rfind("forkscale: FORKSCALE_TRACE: cannot write '" + d.string() + "': ", 0), 0u) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(rep.diagnostic_count, 1u);
  stdfs::remove_all(d);
}

TEST(RecordViews, EnvironmentWithRecordingTurnedOffOrNoWriterSaysSo) {
  const stdfs::path d = scratch("env-off");
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.on_diagnostic = [](const fs::diagnostic&) {};
  {
    environment env;
    env.set("FORKSCALE_TRACE", (d / "t.json").string()).set("FORKSCALE_RECORD", "0");
    const fs::report rep = fs::measure(
        "fib", [] { fib(4); }, o);
    EXPECT_FALSE(rep.record);
    ASSERT_EQ(rep.diagnostics.size(), 1u);
    EXPECT_NE(rep.diagnostics[0].problem.find("has no record"), std::string::npos) << rep.diagnostics[0].problem;
  }
  {
    // A program built without the writers (the guards without forkscale.hpp).
    const auto writer = fs::detail::record_views_writer;
    fs::detail::record_views_writer = nullptr;
    environment env;
    env.set("FORKSCALE_FOLDED", (d / "f").string());
    const fs::report rep = fs::measure(
        "fib", [] { fib(4); }, o);
    fs::detail::record_views_writer = writer;
    ASSERT_EQ(rep.diagnostics.size(), 1u);
    EXPECT_EQ(rep.diagnostics[0].where, "FORKSCALE_FOLDED");
    EXPECT_NE(rep.diagnostics[0].problem.find("no trace or folded-stack writer compiled in"), std::string::npos);
  }
  EXPECT_TRUE(stdfs::is_empty(d));
  stdfs::remove_all(d);
}
