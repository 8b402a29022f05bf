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
#include <forkscale/detail/input/report_reader.hpp>    // the strict JSON reader
#include <forkscale/detail/output/trace_plan.hpp>      // plan_trace
#include <forkscale/detail/output/views_fallback.hpp>  // saved_report_path
#include <forkscale/forkscale.hpp>
#include <forkscale/read_report.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
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
//
// The rules are the format's ("Trace Event Format", the document linked from the
// Catapult project) and the viewers': DevTools computes a slice's end as ts +
// dur in JavaScript numbers (doubles), speedscope as (ts - the track's first
// ts) + dur, and both need the slices of a track to nest in that arithmetic; Perfetto rounds ts and dur to whole ns
// each and needs them to nest in ns; DevTools binds a flow event to the slice of its pid and tid with the same ts and
// cat and pairs a start with an end by cat, name and id; a trace-model library needs a cat on every event (Chrome
// writes
// "__metadata" on metadata); speedscope keys a frame by name and the JSON of
// args.

struct trace_slice {
  double start = 0, end = 0;  // ts and ts + dur, as doubles
  double dur = 0;
  double shifted_start = 0, shifted_end = 0;  // ts - origin and (ts - origin) + dur, origin the track's first ts
  long long start_ns = 0, end_ns = 0;         // ts and dur each rounded to ns
  const json::value* event = nullptr;
};

struct trace_facts {
  std::vector<std::string> problems;
  std::map<long long, std::vector<trace_slice>> slices;  // by tid
  std::map<long long, std::string> thread_names;
  std::map<std::string, std::vector<std::pair<double, std::uint64_t>>> counters;  // name: (ts, first arg)
  void fail(const std::string& s) {
    if (problems.size() < 40) problems.push_back(s);
  }
};

const json::value* member(const json::value& obj, const char* key) {
  return obj.is(json::kind::object) ? obj.find(key) : nullptr;
}

// A ts or dur: a number >= 0, in microseconds, read as the nearest double.
bool time_us(const json::value* v, double& us) { return v && json::number_as_double(*v, us) && us >= 0; }

long long to_ns(double us) { return std::llround(us * 1000); }

bool integer(const json::value* v, long long& out) {
  std::int64_t i = 0;
  if (!v || !json::number_as_i64(*v, i)) return false;
  out = i;
  return true;
}

bool is_string(const json::value* v) { return v && v->is(json::kind::string); }

std::string text_of(const json::value* v) { return is_string(v) ? v->text : std::string(); }

// The args of an event as one string (its members in order), as a frame's key.
std::string args_key(const json::value& e) {
  const json::value* args = member(e, "args");
  if (!args) return "";
  std::string k;
  for (const json::member& m : args->members)
    k += m.key + "=" + m.v.text + (m.v.is(json::kind::string) ? "\"" : "") + ",";
  return k;
}

struct flow_event {
  long long tid = 0;
  double ts = 0;
  std::string cat;
};

struct flow_ends {
  std::vector<flow_event> starts, finishes;
};

// The keys each phase requires ("Trace Event Format": X complete events, M
// metadata, C counters, s/f flow events of the first version), and cat on all.
void check_event(const json::value& e, std::size_t k, trace_facts& t, std::map<std::string, flow_ends>& flows) {
  const std::string at = "event " + std::to_string(k) + ": ";
  const json::value* ph = member(e, "ph");
  long long pid = 0, tid = 0, id = 0;
  double ts = 0, dur = 0;
  if (!is_string(ph)) return t.fail(at + "no string ph");
  if (!integer(member(e, "pid"), pid)) t.fail(at + "no integer pid");
  if (!is_string(member(e, "cat"))) t.fail(at + "no string cat (" + ph->text + " " + text_of(member(e, "name")) + ")");
  if (ph->text == "M") {
    if (text_of(member(e, "cat")) != "__metadata") t.fail(at + "metadata without cat \"__metadata\"");
    if (!is_string(member(e, "name")) || !member(e, "args") || !member(e, "args")->is(json::kind::object))
      return t.fail(at + "metadata without name or args");
    if (member(e, "name")->text == "thread_name" && integer(member(e, "tid"), tid) &&
        is_string(member(*member(e, "args"), "name")))
      t.thread_names[tid] = member(*member(e, "args"), "name")->text;
    return;
  }
  if (!time_us(member(e, "ts"), ts)) return t.fail(at + "no ts >= 0");
  if (ph->text == "C") {
    const json::value* args = member(e, "args");
    std::uint64_t v = 0;
    if (!is_string(member(e, "name")) || !args || args->members.size() != 1 ||
        !json::number_as_u64(args->members[0].v, v))
      return t.fail(at + "counter without a name or one integer arg");
    t.counters[member(e, "name")->text].emplace_back(ts, v);
    return;
  }
  if (!integer(member(e, "tid"), tid)) return t.fail(at + "no integer tid");
  if (ph->text == "X") {
    if (!is_string(member(e, "name"))) t.fail(at + "slice without a name");
    if (!time_us(member(e, "dur"), dur)) return t.fail(at + "slice without dur >= 0");
    trace_slice x;
    x.start = ts;
    x.end = ts + dur;
    x.dur = dur;
    x.start_ns = to_ns(ts);
    x.end_ns = to_ns(ts) + to_ns(dur);
    x.event = &e;
    t.slices[tid].push_back(x);
    return;
  }
  if (ph->text != "s" && ph->text != "f") return t.fail(at + "unexpected phase " + ph->text);
  if (!integer(member(e, "id"), id) || !is_string(member(e, "name"))) return t.fail(at + "flow without id or name");
  const std::string cat = text_of(member(e, "cat"));
  flow_ends& f = flows[cat + "|" + member(e, "name")->text + "|" + std::to_string(id)];
  const bool end = ph->text == "f";
  if (end && text_of(member(e, "bp")) != "e") t.fail(at + "flow end without bp e");
  (end ? f.finishes : f.starts).push_back(flow_event{tid, ts, cat});
}

// One track, sorted by start (longer first, then file order): a slice that
// starts inside another must end inside it. `in_ns`: with Perfetto's ns, else
// with the doubles.
template <typename Time>
void check_nesting(trace_facts& t, long long tid, const std::vector<trace_slice>& v, Time start, Time end,
                   const char* what) {
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return v[a].*start != v[b].*start ? v[a].*start < v[b].*start : v[a].*end > v[b].*end;
  });
  std::vector<std::size_t> open;
  for (const std::size_t i : order) {
    while (!open.empty() && v[open.back()].*end <= v[i].*start) open.pop_back();
    if (!open.empty() && v[i].*end > v[open.back()].*end) {
      std::ostringstream m;
      m.precision(17);
      m << "tid " << tid << " (" << what << "): slice [" << v[i].*start << ", " << v[i].*end << "] overlaps ["
        << v[open.back()].*start << ", " << v[open.back()].*end << "] partially";
      return t.fail(m.str());
    }
    open.push_back(i);
  }
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
  std::map<std::string, flow_ends> flows;
  for (std::size_t k = 0; k < events->items.size(); ++k) check_event(events->items[k], k, t, flows);
  std::set<std::tuple<long long, double, std::string>> bindable;                // (tid, ts, cat) of every slice
  std::map<std::pair<std::string, std::string>, std::set<std::string>> frames;  // (name, stack): args seen
  for (auto& track : t.slices) {
    // speedscope moves each track to start at 0 before it adds dur.
    double origin = track.second.empty() ? 0 : track.second.front().start;
    for (const trace_slice& s : track.second) origin = std::min(origin, s.start);
    for (trace_slice& s : track.second) {
      s.shifted_start = s.start - origin;
      s.shifted_end = s.shifted_start + s.dur;
    }
    check_nesting(t, track.first, track.second, &trace_slice::start, &trace_slice::end, "ts + dur in doubles");
    check_nesting(t, track.first, track.second, &trace_slice::shifted_start, &trace_slice::shifted_end,
                  "(ts - first ts) + dur in doubles");
    check_nesting(t, track.first, track.second, &trace_slice::start_ns, &trace_slice::end_ns, "in ns");
    for (const trace_slice& s : track.second) {
      bindable.emplace(track.first, s.start, text_of(member(*s.event, "cat")));
      const json::value* args = member(*s.event, "args");
      // A folded slice (a bounded trace) has its own numbers in args: each is a
      // frame of its own in speedscope, and there are at most trace_limit.
      if (args && member(*args, "folded_strands")) continue;
      frames[{text_of(member(*s.event, "name")), args ? text_of(member(*args, "stack")) : ""}].insert(
          args_key(*s.event));
    }
  }
  for (const auto& f : flows) {
    if (f.second.starts.size() != 1 || f.second.finishes.size() != 1)
      t.fail("flow " + f.first + " has " + std::to_string(f.second.starts.size()) + " starts and " +
             std::to_string(f.second.finishes.size()) + " ends");
    for (const auto* list : {&f.second.starts, &f.second.finishes})
      for (const flow_event& x : *list)
        if (!bindable.count(std::make_tuple(x.tid, x.ts, x.cat)))
          t.fail("flow " + f.first + " binds to no slice of tid " + std::to_string(x.tid) + " with its ts and cat");
  }
  for (const auto& f : frames)
    if (f.second.size() > 1)
      t.fail("slices named '" + f.first.first + "' with stack '" + f.first.second + "' have " +
             std::to_string(f.second.size()) + " different args: as many frames in speedscope");
  for (const auto& c : t.counters)
    for (std::size_t k = 1; k < c.second.size(); ++k)
      if (c.second[k].first < c.second[k - 1].first) t.fail("counter '" + c.first + "' goes back in time");
  return t;
}

std::uint64_t last_counter(const trace_facts& t, const std::string& name) {
  const auto c = t.counters.find(name);
  return c == t.counters.end() || c->second.empty() ? 0 : c->second.back().second;
}

// The trace against the report: as many strand slices on each thread's track as
// the thread has strands (at their start times in a clean run), the critical
// path's track one slice per strand of it, the work counters ending at the work,
// the critical path's span counter at the span, one spawn arrow per spawn.
std::string check_trace(const fs::report& rep) {
  json::value top;
  trace_facts t = check_trace_format(rep.to_trace(), top);
  const fs::execution_record& r = *rep.record;
  long long critical_tid = -1;
  for (const auto& n : t.thread_names)
    if (n.second == "critical path") critical_tid = n.first;
  if (critical_tid < 0) t.fail("no track named \"critical path\"");
  std::map<long long, std::vector<long long>> want, got;
  for (const auto& s : r.strands)
    want[static_cast<long long>(s.thread) + 1].push_back(static_cast<long long>(s.start_ns));
  std::uint64_t critical_slices = 0;
  for (const auto& track : t.slices)
    for (const trace_slice& s : track.second) {
      if (track.first == critical_tid) {
        ++critical_slices;
        continue;
      }
      if (text_of(member(*s.event, "cat")) == "strand") got[track.first].push_back(s.start_ns);
    }
  const bool clean = text_of(member(*member(top, "otherData"), "slices_adjusted")) == "0";
  for (auto& w : want) {
    std::sort(w.second.begin(), w.second.end());
    std::sort(got[w.first].begin(), got[w.first].end());
    if (w.second.size() != got[w.first].size())
      t.fail("tid " + std::to_string(w.first) + ": " + std::to_string(got[w.first].size()) + " strand slices for " +
             std::to_string(w.second.size()) + " strands");
    else if (clean && w.second != got[w.first])
      t.fail("tid " + std::to_string(w.first) + ": strand slices not at the strands' starts");
  }
  if (got.size() > want.size()) t.fail("strand slices on a track with no strands");
  std::uint64_t work = 0;
  for (const auto& w : want) work += last_counter(t, "work of thread " + std::to_string(w.first - 1));
  const std::uint64_t critical_span = last_counter(t, "span of the critical path");
  if (work != rep.work())
    t.fail("work counters end at " + std::to_string(work) + ", work " + std::to_string(rep.work()));
  if (critical_span != rep.span())
    t.fail("critical path's span counter ends at " + std::to_string(critical_span) + ", span " +
           std::to_string(rep.span()));
  if (critical_slices != r.critical_path.size()) t.fail("critical track has the wrong number of slices");
  std::uint64_t spawn_flows = 0;
  for (const auto& e : member(top, "traceEvents")->items)
    if (text_of(member(e, "ph")) == "s" && text_of(member(e, "name")) == "spawn") ++spawn_flows;
  if (spawn_flows != rep.spawns())
    t.fail(std::to_string(spawn_flows) + " spawn arrows for " + std::to_string(rep.spawns()) + " spawns");
  std::string out;
  for (const auto& p : t.problems) out += "  " + p + "\n";
  return out;
}

// ---- bounded traces (options.trace_limit) ------------------------------------------

std::uint64_t arg_u64(const json::value& e, const char* key) {
  const json::value* args = member(e, "args");
  std::uint64_t v = 0;
  if (args && member(*args, key)) json::number_as_u64(*member(*args, key), v);
  return v;
}

std::uint64_t other_u64(const json::value& top, const char* key) {
  return std::stoull("0" + text_of(member(*member(top, "otherData"), key)));
}

// The longest path through the strands of `in` (a set of strand indices), along
// the record's edges between them: prev, and the strands reported to a join
// (directly or through joins handed on) into the strand after it.
std::uint64_t longest_path_within(const fs::execution_record& r, const std::set<std::uint32_t>& in) {
  std::map<std::uint32_t, std::uint64_t> best;  // ending at the strand, its span included
  std::uint64_t out = 0;
  for (const std::uint32_t i : in) {  // ascending: a topological order
    const fs::record_strand& s = r.strands[i];
    std::vector<std::int64_t> preds{s.prev};
    std::vector<std::int64_t> joins{s.join};
    std::set<std::int64_t> visited;
    while (!joins.empty()) {
      const std::int64_t j = joins.back();
      joins.pop_back();
      if (j < 0 || !visited.insert(j).second) continue;
      for (const std::uint32_t k : r.joins[static_cast<std::size_t>(j)].strands) preds.push_back(k);
      for (const std::uint32_t k : r.joins[static_cast<std::size_t>(j)].joins) joins.push_back(k);
    }
    std::uint64_t before = 0;
    for (const std::int64_t k : preds)
      if (k >= 0 && best.count(static_cast<std::uint32_t>(k)))
        before = std::max(before, best[static_cast<std::uint32_t>(k)]);
    best[i] = before + s.span;
    out = std::max(out, best[i]);
  }
  return out;
}

struct folded_facts {
  long long tid;
  std::uint64_t start_ns, end_ns, strands, work, span;
};

// Each folded slice against the record: the strands of its thread inside it
// (by time, less the kept ones) are as many as it says, with its work and span.
void check_folded_slices(const fs::execution_record& r, const std::vector<folded_facts>& folded,
                         std::multiset<std::pair<long long, std::uint64_t>> kept_at, trace_facts& t) {
  for (const folded_facts& f : folded) {
    std::set<std::uint32_t> in;
    for (std::uint32_t i = 0; i < r.strands.size(); ++i) {
      const fs::record_strand& s = r.strands[i];
      // Strands of one thread do not overlap: those that start inside the slice are in it.
      if (static_cast<long long>(s.thread) + 1 != f.tid || s.start_ns < f.start_ns ||
          (s.start_ns >= f.end_ns && s.start_ns != f.start_ns))
        continue;
      const auto k = kept_at.find({f.tid, s.start_ns});
      if (k != kept_at.end() && s.start_ns != f.start_ns) continue;  // a kept strand at that time
      in.insert(i);
    }
    std::uint64_t work = 0;
    for (const std::uint32_t i : in) work += r.strands[i].work;
    if (in.size() != f.strands || work != f.work || longest_path_within(r, in) != f.span) {
      t.fail("folded slice at " + std::to_string(f.start_ns) + " ns on tid " + std::to_string(f.tid) + " says " +
             std::to_string(f.strands) + " strands, work " + std::to_string(f.work) + ", span " +
             std::to_string(f.span) + "; the record has " + std::to_string(in.size()) + ", " + std::to_string(work) +
             ", " + std::to_string(longest_path_within(r, in)));
      return;
    }
  }
}

// A trace under its bound: the format's rules (nesting, flow binding, cats), the
// slices and folded strands adding up to the record's strands, every strand of
// the critical path a slice of its own (at its start, in a clean run), the
// slices within the limit (when half of it holds the critical path), the
// counters ending at the work and the span, and each folded slice's numbers
// those of the record's strands inside it (in a clean run).
std::string check_bounded_trace(const fs::report& rep) {
  json::value top;
  trace_facts t = check_trace_format(rep.to_trace(), top);
  if (!t.problems.empty()) return "  " + t.problems.front() + "\n";
  const fs::execution_record& r = *rep.record;
  long long critical_tid = -1;
  for (const auto& n : t.thread_names)
    if (n.second == "critical path") critical_tid = n.first;
  std::uint64_t kept = 0, folded = 0, critical_slices = 0;
  std::vector<folded_facts> runs;
  std::multiset<std::pair<long long, std::uint64_t>> kept_at;  // (tid, start ns)
  for (const auto& track : t.slices)
    for (const trace_slice& s : track.second) {
      if (track.first == critical_tid) {
        ++critical_slices;
        continue;
      }
      if (text_of(member(*s.event, "cat")) != "strand") continue;
      const json::value* args = member(*s.event, "args");
      if (!args || !member(*args, "folded_strands")) {
        ++kept;
        kept_at.emplace(track.first, static_cast<std::uint64_t>(s.start_ns));
        continue;
      }
      folded += arg_u64(*s.event, "folded_strands");
      runs.push_back(folded_facts{track.first, static_cast<std::uint64_t>(s.start_ns), 0,
                                  arg_u64(*s.event, "folded_strands"), arg_u64(*s.event, "work"),
                                  arg_u64(*s.event, "span")});
    }
  if (kept + folded != r.strands.size())
    t.fail(std::to_string(kept) + " strand slices and " + std::to_string(folded) + " folded strands for " +
           std::to_string(r.strands.size()) + " strands");
  if (kept != other_u64(top, "strands_written") || folded != other_u64(top, "strands_folded") ||
      runs.size() != other_u64(top, "folded_slices"))
    t.fail("otherData's counts differ from the slices");
  const std::uint64_t limit = other_u64(top, "trace_limit");
  if (limit != 0 && r.strands.size() > limit) {
    if (folded == 0 && r.critical_path.size() < r.strands.size()) t.fail("over the limit and nothing folded");
    if (2 * r.critical_path.size() + 2 * r.regions.size() + r.threads.size() <= limit && kept + runs.size() > limit)
      t.fail(std::to_string(kept + runs.size()) + " slices over the limit " + std::to_string(limit));
  } else if (folded != 0) {
    t.fail("folded strands within the limit");
  }
  if (other_u64(top, "slices_adjusted") == 0) {
    std::multiset<std::pair<long long, std::uint64_t>> left = kept_at;
    for (const std::uint32_t i : r.critical_path) {
      const auto k = left.find({static_cast<long long>(r.strands[i].thread) + 1, r.strands[i].start_ns});
      if (k == left.end()) {
        t.fail("critical strand " + std::to_string(i) + " has no slice of its own at its start");
        break;
      }
      left.erase(k);
    }
    // The folded slices' ends, from the events (ts + dur in ns).
    std::size_t n = 0;
    for (const auto& track : t.slices)
      for (const trace_slice& s : track.second)
        if (track.first != critical_tid && member(*s.event, "args") &&
            member(*member(*s.event, "args"), "folded_strands"))
          runs[n++].end_ns = static_cast<std::uint64_t>(s.end_ns);
    check_folded_slices(r, runs, kept_at, t);
  }
  std::uint64_t work = 0;
  for (std::size_t th = 0; th < r.threads.size(); ++th) work += last_counter(t, "work of thread " + std::to_string(th));
  if (work != rep.work()) t.fail("work counters end at " + std::to_string(work));
  if (last_counter(t, "span of the critical path") != rep.span()) t.fail("span counter is not the span");
  if (critical_slices != r.critical_path.size()) t.fail("critical track has the wrong number of slices");
  std::string out;
  for (const auto& p : t.problems) out += "  " + p + "\n";
  return out;
}

// ---- folded stacks -----------------------------------------------------------------

// The length of the Unicode white space character (White_Space, as inferno's
// split at white space sees it) that ends at byte `end` of `s`, or 0.
std::size_t white_space_before(const std::string& s, std::size_t end) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  if (end >= 1 && (at(end - 1) == ' ' || (at(end - 1) >= 0x09 && at(end - 1) <= 0x0d))) return 1;
  if (end >= 2 && at(end - 2) == 0xC2 && (at(end - 1) == 0x85 || at(end - 1) == 0xA0)) return 2;
  if (end >= 3) {
    const unsigned a = at(end - 3), b = at(end - 2), c = at(end - 1);
    if (a == 0xE1 && b == 0x9A && c == 0x80) return 3;                                           // U+1680
    if (a == 0xE2 && b == 0x80 && (c <= 0x8A || c == 0xA8 || c == 0xA9 || c == 0xAF)) return 3;  // U+2000..
    if (a == 0xE2 && b == 0x81 && c == 0x9F) return 3;                                           // U+205F
    if (a == 0xE3 && b == 0x80 && c == 0x80) return 3;                                           // U+3000
  }
  return 0;
}

// Whether `stack` ends in white space and a number (digits, then optionally '.'
// and digits): flamegraph.pl and inferno would read "stack count" as a
// differential line, the number as a first count.
bool ends_in_a_count(const std::string& stack) {
  std::size_t k = stack.size();
  while (k > 0 && std::isdigit(static_cast<unsigned char>(stack[k - 1]))) --k;
  if (k > 0 && stack[k - 1] == '.') {
    std::size_t j = k - 1;
    while (j > 0 && std::isdigit(static_cast<unsigned char>(stack[j - 1]))) --j;
    if (j == k - 1) return false;  // ".5": no digit before the point
    k = j;
  } else if (k == stack.size()) {
    return false;
  }
  return white_space_before(stack, k) > 0;
}

// Where a line of `text` from `from` to `to` holds something a reader takes for
// a line's end: a control character (Python's str.splitlines: \r, \v, \f,
// \x1c-\x1e), U+0085, or U+2028/U+2029 (JavaScript's line terminators, which
// end a line in speedscope); npos when none.
std::size_t line_break_inside(const std::string& text, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20) return i;
    if (c == 0xC2 && i + 1 < to && static_cast<unsigned char>(text[i + 1]) == 0x85) return i;
    if (c == 0xE2 && i + 2 < to && static_cast<unsigned char>(text[i + 1]) == 0x80 &&
        (static_cast<unsigned char>(text[i + 2]) == 0xA8 || static_cast<unsigned char>(text[i + 2]) == 0xA9))
      return i;
  }
  return std::string::npos;
}

// The lines of a folded file: sorted, distinct stacks, positive integer counts,
// each line read the same by flamegraph.pl, inferno and speedscope (one line
// per "\n", "stack count" with the count after one space, the stack not ending
// in white space and a number, no frame empty); returns their sum (problems
// appended to `out`).
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
    if (line_break_inside(text, from, nl) != std::string::npos) out += "  a line break inside '" + line + "'\n";
    from = nl + 1;
    const std::size_t space = line.rfind(' ');
    const std::string stack = space == std::string::npos ? "" : line.substr(0, space);
    const std::string count = space == std::string::npos ? "" : line.substr(space + 1);
    if (stack.empty() || count.empty() || count.find_first_not_of("0123456789") != std::string::npos || count == "0") {
      out += "  bad line '" + line + "'\n";
      continue;
    }
    if (ends_in_a_count(stack)) out += "  a differential line for flamegraph.pl: '" + line + "'\n";
    if (stack.front() == ';' || stack.back() == ';' || stack.find(";;") != std::string::npos)
      out += "  an empty frame in '" + stack + "'\n";
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

void run_programs(unsigned workers, bool trace, std::uint64_t seed_offset, bool bounded = false) {
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
    std::string diff = check_folded(rep) + (trace && !bounded ? check_trace(rep) : std::string());
    if (bounded) {
      // The same record under a bound of a third of its strands.
      auto r = std::make_shared<fs::execution_record>(*rep.record);
      r->trace_limit = std::max<std::uint64_t>(1, r->strands.size() / 3);
      fs::report b = rep;
      b.record = r;
      diff += check_bounded_trace(b) + check_folded(b);
    }
    if (!diff.empty()) {
      ++failures;
      ADD_FAILURE() << "program with seed " << seed << " (workers " << workers << "):\n" << diff << p.describe();
    }
  }
}

}  // namespace

TEST(RecordViewsProperty, SerialProgramsTraceAndFold) { run_programs(0, true, 0); }
TEST(RecordViewsProperty, ThreadedProgramsTraceAndFold) { run_programs(3, true, 1u << 20); }
TEST(RecordViewsProperty, BoundedTracesKeepTheCriticalPathAndAddUp) {
  run_programs(0, true, 2u << 20, true);
  run_programs(3, true, 3u << 20, true);
}

// The plan keeps the critical path and, of the others, the longest by duration
// with ties to the earlier strand: against a sort of every other strand by
// (duration descending, index), on records with many equal durations and
// bounds from tiny to past the record's size.
TEST(RecordViewsProperty, TracePlanKeepsTheLongestOthersTiesToTheEarlier) {
  std::mt19937_64 gen(7);
  for (int round = 0; round < 300; ++round) {
    fs::execution_record r;
    const std::size_t n = 1 + gen() % 400;
    r.threads.resize(1 + gen() % 3);
    for (std::size_t i = 0; i < n; ++i) {
      fs::record_strand s;
      s.thread = static_cast<std::uint32_t>(gen() % r.threads.size());
      s.start_ns = gen() % 1000;
      s.end_ns = s.start_ns + gen() % (round % 3 == 0 ? 3 : 50);  // few distinct durations: many ties
      r.strands.push_back(s);
    }
    for (std::uint32_t i = 0; i < n; ++i)
      if (gen() % 10 == 0) r.critical_path.push_back(i);
    r.trace_limit = gen() % (n + 40);
    const fs::detail::output::trace_plan p = fs::detail::output::plan_trace(r);
    if (r.trace_limit == 0 || n <= r.trace_limit) {
      EXPECT_FALSE(p.bounded);
      continue;
    }
    std::vector<char> expect(n, 0);
    for (const std::uint32_t i : r.critical_path) expect[i] = 1;
    std::vector<std::uint32_t> others;
    for (std::uint32_t i = 0; i < n; ++i)
      if (!expect[i]) others.push_back(i);
    std::sort(others.begin(), others.end(), [&](std::uint32_t a, std::uint32_t b) {
      const auto da = r.strands[a].end_ns - r.strands[a].start_ns, db = r.strands[b].end_ns - r.strands[b].start_ns;
      return da != db ? da > db : a < b;
    });
    const std::size_t fixed = r.threads.size();
    const std::size_t budget = r.trace_limit > fixed ? (r.trace_limit - fixed) / 2 : 0;
    const std::size_t critical = n - others.size();
    const std::size_t k = std::min(budget > critical ? budget - critical : 0, others.size());
    for (std::size_t m = 0; m < k; ++m) expect[others[m]] = 1;
    ASSERT_EQ(p.keep, expect) << "round " << round << ": " << n << " strands, limit " << r.trace_limit;
    EXPECT_EQ(p.kept, critical + k);
    EXPECT_EQ(p.critical, critical);
    const fs::detail::output::trace_plan counts = fs::detail::output::plan_trace(r, false);  // the summary's
    EXPECT_TRUE(counts.bounded && counts.keep.empty());
    EXPECT_EQ(fs::detail::output::trace_plan_summary(counts), fs::detail::output::trace_plan_summary(p));
  }
}

namespace {

// The checker can fail: a partial overlap, in ns and in doubles only (ends that
// meet in decimal: 506.682 + 0.220 is 506.90200000000004 in doubles), in
// doubles once the track is moved to start at 0 only (speedscope's sum), a lone
// flow start, a flow end 1 ns inside its slice, a flow of another cat than its
// slice, an event without cat, metadata without "__metadata", slices of one
// site with per-strand args, a negative ts.
TEST(TraceChecker, FindsBrokenTraces) {
  const std::string bad = R"({"traceEvents":[
{"name":"process_name","ph":"M","pid":1,"args":{"name":"p"}},
{"name":"thread_name","cat":"meta","ph":"M","pid":1,"tid":1,"args":{"name":"t"}},
{"name":"a","cat":"strand","ph":"X","ts":1.000,"dur":2.000,"pid":1,"tid":1,"args":{"strand":1}},
{"name":"b","cat":"strand","ph":"X","ts":2.000,"dur":2.000,"pid":1,"tid":1},
{"name":"c","cat":"strand","ph":"X","ts":506.682,"dur":0.220,"pid":1,"tid":2},
{"name":"c","cat":"strand","ph":"X","ts":506.902,"dur":0.100,"pid":1,"tid":2},
{"name":"r","cat":"region","ph":"X","ts":506.500,"dur":0.402,"pid":1,"tid":2},
{"name":"a","cat":"strand","ph":"X","ts":600.000,"dur":1.000,"pid":1,"tid":3,"args":{"strand":2}},
{"name":"d","cat":"strand","ph":"X","ts":28.101,"dur":0.100,"pid":1,"tid":4},
{"name":"d","cat":"strand","ph":"X","ts":1960.200,"dur":0.423,"pid":1,"tid":4},
{"name":"d","cat":"strand","ph":"X","ts":1960.623,"dur":0.100,"pid":1,"tid":4},
{"name":"x","cat":"strand","ph":"s","id":1,"ts":9.000,"pid":1,"tid":1},
{"name":"y","cat":"strand","ph":"s","id":2,"ts":1.000,"pid":1,"tid":1},
{"name":"y","cat":"strand","ph":"f","bp":"e","id":2,"ts":600.001,"pid":1,"tid":3},
{"name":"z","cat":"spawn","ph":"s","id":3,"ts":1.000,"pid":1,"tid":1},
{"name":"z","cat":"spawn","ph":"f","bp":"e","id":3,"ts":600.000,"pid":1,"tid":3},
{"name":"y","ph":"X","ts":-1,"dur":1,"pid":1,"tid":1}
],"displayTimeUnit":"ns","otherData":{}})";
  json::value top;
  const trace_facts t = check_trace_format(bad, top);
  std::string all;
  for (const auto& p : t.problems) all += p + "\n";
  for (const char* expected :
       {"no string cat (M process_name)", "metadata without cat \"__metadata\"", "(in ns): slice [2000, 4000]",
        "tid 2 (ts + dur in doubles)", "tid 4 ((ts - first ts) + dur in doubles)",
        "flow strand|x|1 has 1 starts and 0 ends", "flow strand|y|2 binds to no slice of tid 3",
        "flow spawn|z|3 binds to no slice of tid 1", "slices named 'a' with stack '' have 2 different args",
        "no ts >= 0"})
    EXPECT_NE(all.find(expected), std::string::npos) << expected << "\n" << all;
  // Nested in ns: only doubles break tid 2, and only the moved sum tid 4.
  EXPECT_EQ(all.find("tid 2 (in ns)"), std::string::npos) << all;
  EXPECT_EQ(all.find("tid 4 (ts + dur in doubles)"), std::string::npos) << all;
  EXPECT_EQ(all.find("tid 4 (in ns)"), std::string::npos) << all;
}

TEST(FoldedChecker, FindsLinesTheReadersReadDifferently) {
  const std::pair<const char*, const char*> cases[] = {
      {"m;run 2 5\n", "differential"},
      {"m;run 2.5 5\n", "differential"},
      {"m;run\xC2\xA0"
       "2 5\n",
       "differential"},
      {"m;a\xE2\x80\xA8z 5\n", "line break inside"},
      {"m;a\rz 5\n", "line break inside"},
      {"m;a\xC2\x85z 5\n", "line break inside"},
      {"m;;z 5\n", "empty frame"},
      {"m;z 5", "no newline"},
  };
  for (const auto& c : cases) {
    std::string out;
    folded_sum(c.first, "m", out);
    EXPECT_NE(out.find(c.second), std::string::npos) << c.first << ": " << out;
  }
  std::string out;
  EXPECT_EQ(folded_sum("m;run_2 5\nm;v.5 1\nm;x2 3\n", "m", out), 9u);
  EXPECT_EQ(out, "");
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

// Names that flamegraph.pl, inferno or speedscope would read as structure: a
// trailing number (a differential line), U+2028/U+2029 and U+0085 (line ends
// in JavaScript and Python), a tab, ';'. The folded files stay one stack per
// line, read the same by all three, and still add up.
TEST(RecordViews, FoldedNamesReadTheSameInEveryReader) {
  const char* tags[] = {"run 2",
                        "size 1.5",
                        "a\xE2\x80\xA8z",
                        "b\xE2\x80\xA9z",
                        "c\xC2\x85z",
                        "tab\t3",
                        "nbsp\xC2\xA0"
                        "7",
                        "x;y 4",
                        "42"};
  const fs::report rep = fs::measure(
      "measure 3",
      [&] {
        for (const char* tag : tags) {
          fs::call_site cs(fs::site::tagged(tag));
          fs::charge(5);
          fs::spawn([] { fs::charge(2); })();
          fs::sync_point sp;
        }
      },
      recorded());
  ASSERT_TRUE(rep.record);
  std::string out;
  const std::string work = rep.to_folded(fs::folded_kind::work);
  EXPECT_EQ(folded_sum(work, "measure_3", out), rep.work());
  EXPECT_EQ(folded_sum(rep.to_folded(fs::folded_kind::critical_path), "measure_3", out), rep.span());
  EXPECT_EQ(out, "") << work;
  for (const char* frame : {"measure_3;run_2 ", "measure_3;size_1.5 ", "measure_3;a z ", "measure_3;tab_3 ",
                            "measure_3;nbsp_7 ", "measure_3;x:y_4 ", "measure_3;42 "})
    EXPECT_NE(work.find(frame), std::string::npos) << frame << "\n" << work;
  EXPECT_EQ(check_trace(rep), "");
}

// Strands that meet at boundaries a decimal ts + dur overshoots in doubles
// (506.682 + 0.220 > 506.902, and many more): the record of a run, its times
// replaced by back-to-back strands of such lengths on every thread. Every
// slice must still nest in doubles and in ns, and the flows bind.
namespace {

// The record's strands by start time (ties in strand order).
std::vector<std::uint32_t> strands_by_start(const fs::execution_record& r) {
  std::vector<std::uint32_t> order(r.strands.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return r.strands[a].start_ns < r.strands[b].start_ns; });
  return order;
}

}  // namespace

TEST(RecordViews, SharedBoundariesNestInDoubles) {
  const fs::report measured = fs::measure(
      "fib", [] { fib(12); }, recorded());
  ASSERT_TRUE(measured.record);
  fs::execution_record r = *measured.record;
  const std::uint64_t lengths[] = {220, 181, 1, 333, 97, 1024, 7, 250, 119};
  std::map<std::uint32_t, std::uint64_t> clock;  // per thread: where the next strand starts
  const std::vector<std::uint32_t> order = strands_by_start(r);
  std::size_t k = 0;
  for (const std::uint32_t i : order) {
    fs::record_strand& s = r.strands[i];
    auto it = clock.emplace(s.thread, 506682).first;
    s.start_ns = it->second;
    s.end_ns = s.start_ns + lengths[k++ % 9];
    it->second = s.end_ns;
  }
  r.regions.clear();
  fs::report rep = measured;
  rep.record = std::make_shared<const fs::execution_record>(std::move(r));
  // The premise: some of these boundaries do overshoot when written in decimal.
  std::size_t overshoots = 0;
  for (const auto& s : rep.record->strands) {
    const double ts = static_cast<double>(s.start_ns) / 1000.0,
                 dur = static_cast<double>(s.end_ns - s.start_ns) / 1000.0;
    if (ts + dur > static_cast<double>(s.end_ns) / 1000.0) ++overshoots;
  }
  EXPECT_GT(overshoots, 0u);
  json::value top;
  const trace_facts t = check_trace_format(rep.to_trace(), top);
  std::string all;
  for (const auto& p : t.problems) all += p + "\n";
  EXPECT_EQ(all, "");
  EXPECT_EQ(check_trace(rep), "");
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
    // A program built without the views and without forkscale.hpp's fallback
    // (the guards alone): one diagnostic, nothing written.
    const auto writer = fs::detail::record_views_writer;
    const auto fallback = fs::detail::record_views_fallback;
    fs::detail::record_views_writer = nullptr;
    fs::detail::record_views_fallback = nullptr;
    environment env;
    env.set("FORKSCALE_FOLDED", (d / "f").string());
    const fs::report rep = fs::measure(
        "fib", [] { fib(4); }, o);
    fs::detail::record_views_writer = writer;
    fs::detail::record_views_fallback = fallback;
    ASSERT_EQ(rep.diagnostics.size(), 1u);
    EXPECT_EQ(rep.diagnostics[0].where, "FORKSCALE_FOLDED");
    EXPECT_NE(rep.diagnostics[0].problem.find("built without the views"), std::string::npos)
        << rep.diagnostics[0].problem;
    EXPECT_NE(rep.diagnostics[0].problem.find("<forkscale/views.hpp>"), std::string::npos);
  }
  EXPECT_TRUE(stdfs::is_empty(d));
  stdfs::remove_all(d);
}

TEST(RecordViews, WithoutTheViewsTheReportIsSavedAndTheCommandSaid) {
  const stdfs::path d = scratch("env-fallback");
  fs::options o;
  o.clock = fs::clock_kind::cost;
  std::vector<fs::diagnostic> said;
  o.on_diagnostic = [&](const fs::diagnostic& x) { said.push_back(x); };
  const auto writer = fs::detail::record_views_writer;
  fs::detail::record_views_writer = nullptr;  // as in a header-only program without forkscale/views.hpp
  environment env;
  env.set("FORKSCALE_TRACE", (d / "run.trace.json").string()).set("FORKSCALE_FOLDED", (d / "run.folded").string());
  const fs::report rep = fs::measure(
      "fib", [] { fib(6); }, o);
  fs::detail::record_views_writer = writer;
  ASSERT_TRUE(rep.record);
  EXPECT_FALSE(stdfs::exists(d / "run.trace.json"));
  EXPECT_FALSE(stdfs::exists(d / "run.work.folded"));
  const stdfs::path saved = d / "run.trace.report.json";
  ASSERT_TRUE(stdfs::exists(saved));
  // The saved report is the measurement's, with its record: the views rendered
  // from it are the ones the variables asked for.
  const fs::report back = fs::read_report(saved.string());
  ASSERT_TRUE(back.record);
  EXPECT_EQ(back.work(), rep.work());
  EXPECT_EQ(back.span(), rep.span());
  EXPECT_EQ(back.to_trace(), rep.to_trace());
  EXPECT_EQ(back.to_folded(fs::folded_kind::critical_path), rep.to_folded(fs::folded_kind::critical_path));
  ASSERT_EQ(said.size(), 2u);
  EXPECT_EQ(said[0].where, "FORKSCALE_TRACE");
  EXPECT_NE(said[0].problem.find("forkscale-report convert " + saved.string() + " --to trace -o " +
                                 (d / "run.trace.json").string()),
            std::string::npos)
      << said[0].problem;
  EXPECT_EQ(said[1].where, "FORKSCALE_FOLDED");
  EXPECT_NE(said[1].problem.find("--to folded-work -o " + (d / "run.work.folded").string()), std::string::npos)
      << said[1].problem;
  EXPECT_NE(said[1].problem.find("--to folded-critical -o " + (d / "run.critical.folded").string()), std::string::npos)
      << said[1].problem;
  EXPECT_EQ(fs::detail::output::saved_report_path("x.folded"), "x.report.json");
  EXPECT_EQ(fs::detail::output::saved_report_path("t"), "t.report.json");
  stdfs::remove_all(d);
}

// Without a handler, a program that measures twice says each view's line once
// on stderr; both reports carry the diagnostic.
TEST(RecordViews, WithoutTheViewsTwoMeasurementsPrintTheLineOnce) {
  const stdfs::path d = scratch("env-fallback-twice");
  fs::options o;
  o.clock = fs::clock_kind::cost;
  const auto writer = fs::detail::record_views_writer;
  fs::detail::record_views_writer = nullptr;  // as in a header-only program without forkscale/views.hpp
  environment env;
  env.set("FORKSCALE_TRACE", (d / "twice.json").string());
  testing::internal::CaptureStderr();
  const fs::report first = fs::measure(
      "fib", [] { fib(5); }, o);
  const fs::report second = fs::measure(
      "fib", [] { fib(6); }, o);
  const std::string err = testing::internal::GetCapturedStderr();
  fs::detail::record_views_writer = writer;
  for (const fs::report* rep : {&first, &second}) {
    ASSERT_EQ(rep->diagnostics.size(), 1u);
    EXPECT_EQ(rep->diagnostics[0].where, "FORKSCALE_TRACE");
  }
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find("forkscale: FORKSCALE_TRACE: not written"), std::string::npos) << err;
  EXPECT_TRUE(stdfs::exists(d / "twice.report.json"));
  stdfs::remove_all(d);
}

namespace {

long bounded_fib(int n) {
  fs::charge(1);
  if (n < 2) return n;
  long x = 0;
  fs::spawn([&x, n] { x = bounded_fib(n - 1); })();
  const long y = bounded_fib(n - 2);
  fs::sync_point sp;
  return x + y;
}

}  // namespace

// fib(14) under a bound of 60 slices: the critical path and the longest strands
// kept, the rest folded, every folded slice's count, work and span checked
// against the record's strands inside it; the folded files still whole.
TEST(RecordViews, BoundedTraceFoldsTheRestWithTheirWorkAndSpan) {
  fs::options opt = recorded();
  opt.trace_limit = 60;
  long v = 0;
  const fs::report rep = fs::measure(
      "fib", [&] { v = bounded_fib(14); }, opt);
  ASSERT_EQ(v, 377);
  ASSERT_TRUE(rep.record);
  ASSERT_GT(rep.record->strands.size(), 600u);
  EXPECT_EQ(check_bounded_trace(rep), "");
  EXPECT_EQ(check_folded(rep), "");  // the folded files stay whole
  const std::string trace = rep.to_trace();
  EXPECT_NE(trace.find("\"folded_strands\":"), std::string::npos);
  // The report says what the trace folds, in its text and its JSON.
  EXPECT_NE(rep.to_text().find("Trace: "), std::string::npos);
  EXPECT_NE(rep.to_text().find("over options.trace_limit (60)"), std::string::npos);
  // Above the bound the text report does not analyse the record, and says so
  // (the timeline and the replay); below it, it does.
  EXPECT_NE(rep.to_text().find("Left out: the record holds " + fs::detail::grouped(rep.record->strands.size()) +
                               " strands, more than options.trace_limit (60)"),
            std::string::npos);
  EXPECT_EQ(rep.to_text().find("Parallelism over time (wall-clock"), std::string::npos);
  fs::report unbounded = rep;
  auto whole = std::make_shared<fs::execution_record>(*rep.record);
  whole->trace_limit = 0;
  unbounded.record = whole;
  EXPECT_EQ(unbounded.to_text().find("Left out: the record holds"), std::string::npos);
  EXPECT_NE(unbounded.to_text().find("Parallelism over time (wall-clock"), std::string::npos);
  EXPECT_NE(rep.to_json().find("\"strands_folded\": "), std::string::npos);
  // Read back, the record keeps its bound: the same trace.
  EXPECT_EQ(fs::from_json(rep.to_json()).to_trace(), trace);
}

// No bound (0), or a bound above the strands: every strand its own slice, the
// same trace either way; write_trace streams the same bytes as to_trace.
TEST(RecordViews, UnboundedAndStreamedTracesAreWhole) {
  fs::options opt = recorded();
  opt.trace_limit = 0;
  long v = 0;
  const fs::report rep = fs::measure(
      "fib", [&] { v = bounded_fib(12); }, opt);
  ASSERT_TRUE(rep.record);
  EXPECT_EQ(check_trace(rep), "");
  EXPECT_EQ(check_bounded_trace(rep), "");
  auto r = std::make_shared<fs::execution_record>(*rep.record);
  r->trace_limit = r->strands.size();
  fs::report same = rep;
  same.record = r;
  const std::string text = rep.to_trace();
  std::string other = same.to_trace();
  const auto data = [](const std::string& t) { return t.substr(0, t.find("\"otherData\"")); };
  EXPECT_EQ(data(other), data(text));
  EXPECT_EQ(rep.to_text().find("Trace: "), std::string::npos);
  const stdfs::path dir = stdfs::temp_directory_path() / ("fs_trace_stream_" + std::to_string(base_seed()));
  stdfs::create_directories(dir);
  rep.write_trace((dir / "a.trace.json").string());
  EXPECT_EQ(read_file(dir / "a.trace.json"), text);
  r->trace_limit = 10;
  same.write_trace((dir / "b.trace.json").string());
  EXPECT_EQ(read_file(dir / "b.trace.json"), same.to_trace());
  EXPECT_EQ(check_bounded_trace(same), "");
  stdfs::remove_all(dir);
}

// The trace writer's numbers (stream_out.hpp) read as std::to_chars writes them.
TEST(TraceWriter, DecimalsAndMicrosecondsAreExact) {
  namespace out = fs::detail::output;
  std::vector<std::uint64_t> values = {0, 1, 9, 10, 99, 100, 999, 1000, 1001, ~std::uint64_t(0)};
  for (std::uint64_t p = 10; p <= 1000000000000000000ull; p *= 10)
    for (const std::uint64_t v : {p - 1, p, p + 1, 2 * p - 1, 9 * p + p - 1}) values.push_back(v);
  std::mt19937_64 gen(base_seed());
  for (int i = 0; i < 10000; ++i) values.push_back(gen() >> (gen() % 64));
  for (const std::uint64_t v : values) {
    char a[32], b[32];
    const std::string written(a, out::put_decimal(a, v));
    EXPECT_EQ(written, std::string(b, std::to_chars(b, b + sizeof b, v).ptr)) << v;
    const std::string frac = std::to_string(v % 1000);
    EXPECT_EQ(std::string(a, out::put_micros(a, v)),
              std::to_string(v / 1000) + "." + std::string(3 - frac.size(), '0') + frac)
        << v;
  }
}

// A thread's strands out of index order are placed by start, then end, then index.
// Strands of a thread that overlap in the record (clocks read on different
// occasions) are moved to nest; the layout keeps only the moved ones' times
// (trace_layout::moved_strands), and every other strand is read at its own.
TEST(RecordViews, OverlappingStrandsAreMovedAndTheRestKeepTheirTimes) {
  const fs::report measured = fs::measure(
      "fib", [] { fib(12); }, recorded());
  ASSERT_TRUE(measured.record);
  std::mt19937_64 gen(base_seed());
  for (int trial = 0; trial < 20; ++trial) {
    fs::execution_record r = *measured.record;
    const std::vector<std::uint32_t> order = strands_by_start(r);
    std::map<std::uint32_t, std::uint64_t> clock;  // per thread: where the last strand ended
    std::size_t overlapping = 0;
    for (const std::uint32_t i : order) {
      fs::record_strand& s = r.strands[i];
      auto it = clock.emplace(s.thread, 100000).first;
      const std::uint64_t back = gen() % 3 == 0 ? 1 + gen() % 40 : 0;  // starts before the last one ended
      overlapping += back != 0 ? 1 : 0;
      s.start_ns = it->second - back;
      s.end_ns = s.start_ns + gen() % 200;
      it->second = std::max(it->second, s.end_ns);
    }
    r.regions.clear();
    fs::report rep = measured;
    rep.record = std::make_shared<const fs::execution_record>(std::move(r));
    json::value top;
    const trace_facts t = check_trace_format(rep.to_trace(), top);
    std::string all;
    for (const auto& p : t.problems) all += p + "\n";
    ASSERT_EQ(all, "") << "trial " << trial;
    EXPECT_EQ(check_trace(rep), "") << "trial " << trial;
    const fs::detail::output::trace_layout L = fs::detail::output::lay_out_trace(*rep.record);
    ASSERT_GT(overlapping, 0u);
    EXPECT_GT(other_u64(top, "slices_adjusted"), 0u) << "trial " << trial;
    // Each strand's place: its own times, or the end of the one before it on
    // its thread in time order (recomputed here from the record alone).
    std::map<std::uint32_t, std::uint64_t> last_end;
    std::vector<std::uint32_t> by_time(rep.record->strands.size());
    for (std::uint32_t i = 0; i < by_time.size(); ++i) by_time[i] = i;
    std::sort(by_time.begin(), by_time.end(), [&](std::uint32_t a, std::uint32_t b) {
      const fs::record_strand &x = rep.record->strands[a], &y = rep.record->strands[b];
      return std::tie(x.start_ns, x.end_ns, a) < std::tie(y.start_ns, y.end_ns, b);
    });
    std::size_t moved = 0;
    for (const std::uint32_t i : by_time) {
      const fs::record_strand& s = rep.record->strands[i];
      const std::uint64_t start = std::max(s.start_ns, last_end[s.thread]);
      const std::uint64_t end = std::max(s.end_ns, start);
      moved += start != s.start_ns || end != s.end_ns ? 1 : 0;
      ASSERT_EQ(L.strand_start(i), start) << "trial " << trial << " strand " << i;
      ASSERT_EQ(L.strand_end(i), end) << "trial " << trial << " strand " << i;
      last_end[s.thread] = end;
    }
    EXPECT_EQ(L.moved_strands.size(), moved);
  }
}

TEST(TraceWriter, StrandsOfAThreadGoInTimeOrder) {
  std::mt19937_64 gen(base_seed());
  for (int trial = 0; trial < 300; ++trial) {
    fs::execution_record r;
    const std::size_t n = 1 + gen() % 400;
    const unsigned bits = 1 + static_cast<unsigned>(gen() % 40);
    for (std::size_t i = 0; i < n; ++i) {
      fs::record_strand s;
      s.start_ns = (gen() >> (64 - bits)) + (trial % 2 ? 0 : std::uint64_t(1) << 45);
      if (i > 0 && gen() % 4 == 0) s.start_ns = r.strands[gen() % i].start_ns;  // equal starts
      s.end_ns = s.start_ns + gen() % 3;
      r.strands.push_back(s);
    }
    std::vector<std::uint32_t> list(n), expected;
    for (std::uint32_t i = 0; i < n; ++i) list[i] = i;
    expected = list;
    std::sort(expected.begin(), expected.end(), [&](std::uint32_t a, std::uint32_t b) {
      const fs::record_strand &x = r.strands[a], &y = r.strands[b];
      return std::tie(x.start_ns, x.end_ns, a) < std::tie(y.start_ns, y.end_ns, b);
    });
    fs::detail::output::strand_time_order(r, list);
    ASSERT_EQ(list, expected) << "trial " << trial;
  }
}
