// detail/output/trace.hpp: a record as Trace Event Format JSON (report::to_trace,
// write_trace), the format chrome://tracing and Perfetto UI's JSON importer
// open ("Trace Event Format", Google, the document linked from the Catapult
// project; object form). docs/record.md shows what it looks like.
//
//   {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}
//
// One process (pid 1, named by the report's label); one track per recorded
// thread (tid = thread index + 1, named "thread K (tid OS-ID)"); each strand a
// complete event ("ph": "X", cat "strand") named by its innermost site, with one
// arg, stack (the folded call path); each region instance an X slice around its
// strands (cat "region"); the critical path copied onto a track of its own
// ("critical path", tid = threads + 1, cat "critical_path"); the strands' work
// and the critical path's span as counters ("ph": "C"); spawn and join edges as
// flow events of the first version ("ph": "s" and "ph": "f" with "bp": "e", at
// the start of the strand they leave and of the one they enter, with its cat,
// one id per edge), which DevTools and Perfetto draw as arrows. Every event has
// a cat (the metadata "__metadata"). ts and dur are microseconds of wall-clock
// time since the measurement started, written with three decimals (whole
// nanoseconds, exact, whatever the locale); a dur is rounded down where the
// slice's end, computed from them in doubles, would otherwise pass the start of
// the next slice or the end of the one around it (trace_track_ends).
//
// Perfetto requires the X slices of one track to nest: two slices are disjoint
// or one holds the other. Strands of one thread never overlap, but clocks read
// on different occasions can disagree by a few nanoseconds, so the layout
// enforces it: a strand that starts before the previous strand of its thread
// ended starts at that end; a region boundary that falls strictly inside a
// strand moves out to the strand's edge; an inner region that ends after its
// outer one extends the outer one's end. The critical-path track's copies
// are made to follow one another the same way. otherData.slices_adjusted counts
// the slices so moved (0 in a clean run).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "../../record.hpp"
#include "../../report.hpp"
#include "../util/atomic_file.hpp"
#include "json_writer.hpp"
#include "record_names.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

// Microseconds with three decimals, from nanoseconds: exact and locale-free.
inline std::string trace_us(std::uint64_t ns) {
  const std::string frac = std::to_string(ns % 1000);
  return std::to_string(ns / 1000) + "." + std::string(3 - frac.size(), '0') + frac;
}

struct trace_slice {
  std::uint64_t start = 0, end = 0;
  std::uint32_t index = 0;  // a strand, or a region when `region`
  bool region = false;
};

// Where every slice goes, adjusted so that the slices of a track nest.
struct trace_layout {
  std::vector<std::vector<trace_slice>> threads;  // per thread, in output order
  std::vector<trace_slice> critical;              // the critical path's track
  std::vector<std::uint64_t> start, end;          // per strand, as placed
  std::uint64_t moved = 0;                        // slices whose times were adjusted
};

// The number of thread tracks: every thread a strand or region names.
inline std::size_t trace_thread_count(const execution_record& r) {
  std::size_t n = r.threads.size();
  for (const auto& s : r.strands) n = std::max<std::size_t>(n, std::size_t(s.thread) + 1);
  for (const auto& g : r.regions) n = std::max<std::size_t>(n, std::size_t(g.thread) + 1);
  return n;
}

// Strands of each thread in time order, none starting before the previous ended.
inline std::vector<std::vector<std::uint32_t>> place_strands(const execution_record& r, trace_layout& L) {
  std::vector<std::vector<std::uint32_t>> on(L.threads.size());
  for (std::uint32_t i = 0; i < r.strands.size(); ++i) on[r.strands[i].thread].push_back(i);
  L.start.resize(r.strands.size());
  L.end.resize(r.strands.size());
  for (auto& list : on) {
    std::sort(list.begin(), list.end(), [&](std::uint32_t a, std::uint32_t b) {
      const record_strand &x = r.strands[a], &y = r.strands[b];
      if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
      return x.end_ns != y.end_ns ? x.end_ns < y.end_ns : a < b;
    });
    std::uint64_t last_end = 0;
    for (const std::uint32_t i : list) {
      const record_strand& s = r.strands[i];
      const std::uint64_t start = std::max(s.start_ns, last_end);
      const std::uint64_t end = std::max(s.end_ns, start);
      if (start != s.start_ns || end != s.end_ns) ++L.moved;
      L.start[i] = start;
      L.end[i] = end;
      last_end = end;
    }
  }
  return on;
}

// A region's time `t` moved out of the strand of `list` (sorted, disjoint) it
// falls strictly inside, to that strand's start (`to_start`) or end.
inline std::uint64_t out_of_strands(const trace_layout& L, const std::vector<std::uint32_t>& list, std::uint64_t t,
                                    bool to_start) {
  const auto after =
      std::lower_bound(list.begin(), list.end(), t, [&](std::uint32_t i, std::uint64_t x) { return L.start[i] < x; });
  if (after == list.begin()) return t;
  const std::uint32_t k = *(after - 1);  // the last strand starting before t
  if (L.end[k] <= t) return t;
  return to_start ? L.start[k] : L.end[k];
}

// The region slices of one thread: no boundary strictly inside a strand, and
// properly nested among themselves (an inner region that outlasts its outer one
// extends it).
inline std::vector<trace_slice> place_regions(const execution_record& r, std::uint32_t thread,
                                              const std::vector<std::uint32_t>& strands, trace_layout& L) {
  std::vector<trace_slice> out;
  for (std::uint32_t g = 0; g < r.regions.size(); ++g) {
    const forkscale::record_region& region = r.regions[g];
    if (region.thread != thread) continue;
    trace_slice s;
    s.region = true;
    s.index = g;
    s.start = out_of_strands(L, strands, region.start_ns, true);
    s.end = out_of_strands(L, strands, std::max(region.end_ns, region.start_ns), false);
    if (s.start != region.start_ns || s.end != region.end_ns) ++L.moved;
    out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](const trace_slice& a, const trace_slice& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  std::vector<std::size_t> open;
  for (std::size_t k = 0; k < out.size(); ++k) {
    while (!open.empty() && out[open.back()].end <= out[k].start) open.pop_back();
    for (auto it = open.rbegin(); it != open.rend() && out[*it].end < out[k].end; ++it) {
      out[*it].end = out[k].end;
      ++L.moved;
    }
    open.push_back(k);
  }
  return out;
}

inline trace_layout lay_out_trace(const execution_record& r) {
  trace_layout L;
  L.threads.resize(trace_thread_count(r));
  const std::vector<std::vector<std::uint32_t>> on = place_strands(r, L);
  for (std::uint32_t t = 0; t < L.threads.size(); ++t) {
    std::vector<trace_slice>& track = L.threads[t];
    track = place_regions(r, t, on[t], L);
    for (const std::uint32_t i : on[t]) track.push_back(trace_slice{L.start[i], L.end[i], i, false});
    // Enclosing slices first: by start, then longest first, regions before strands.
    std::stable_sort(track.begin(), track.end(), [](const trace_slice& a, const trace_slice& b) {
      if (a.start != b.start) return a.start < b.start;
      if (a.end != b.end) return a.end > b.end;
      return a.region && !b.region;
    });
  }
  std::uint64_t last_end = 0;
  for (const std::uint32_t i : r.critical_path) {
    if (i >= r.strands.size()) continue;
    trace_slice s{std::max(L.start[i], last_end), 0, i, false};
    s.end = std::max(L.end[i], s.start);
    if (s.start != L.start[i] || s.end != L.end[i]) ++L.moved;
    last_end = s.end;
    L.critical.push_back(s);
  }
  return L;
}

// The events, one per line, as members of the "traceEvents" array.
class trace_events {
 public:
  void add(const std::string& body) {
    out_ += first_ ? "\n{" : ",\n{";
    out_ += body;
    out_ += '}';
    first_ = false;
  }
  std::string& text() noexcept { return out_; }

 private:
  std::string out_;
  bool first_ = true;
};

// A time written by trace_us as a viewer reads it: the double nearest to ns / 1000
// (the division is that double: both are the correctly rounded value of one number).
inline double trace_read_us(std::uint64_t ns) noexcept { return static_cast<double>(ns) / 1000.0; }

// The slices of one track as written, enclosing ones first, with each duration
// rounded down where needed so that the track nests however a viewer computes a
// slice's end from the decimals: as ts + dur in doubles (DevTools), and as
// (ts - the track's first ts) + dur in doubles (speedscope, which moves each
// track to start at 0 before adding). Written in decimal, 506.682 + 0.220 is
// 506.90200000000004 in doubles, after a slice that starts at 506.902: such an
// end is rounded down by 1 ns. So, in both sums, a slice ends no later than the
// slice around it and no later than its own end in ns, which is no later than
// the start of any slice after it: the track nests in double arithmetic as it
// does in nanoseconds (where Perfetto, rounding ts and dur to ns each, reads
// it).
class trace_track_ends {
 public:
  explicit trace_track_ends(std::uint64_t origin) : origin_(trace_read_us(origin)) {}
  std::uint64_t dur(std::uint64_t start, std::uint64_t end) {
    while (!open_.empty() && open_.back().end <= start) open_.pop_back();
    const double ts = trace_read_us(start), shifted = ts - origin_;
    double bound = trace_read_us(end), bound_shifted = trace_read_us(end) - origin_;
    if (!open_.empty()) {
      bound = std::min(bound, open_.back().read_end);
      bound_shifted = std::min(bound_shifted, open_.back().read_end_shifted);
    }
    std::uint64_t d = end > start ? end - start : 0;
    if (bound <= ts || bound_shifted <= shifted) d = 0;  // nothing fits (a slice at the very end of the one around it)
    double read_end = ts + trace_read_us(d), read_end_shifted = shifted + trace_read_us(d);
    while (d > 0 && (read_end > bound || read_end_shifted > bound_shifted)) {
      --d;
      read_end = ts + trace_read_us(d);
      read_end_shifted = shifted + trace_read_us(d);
    }
    open_.push_back(open_slice{end, read_end, read_end_shifted});
    return d;
  }

 private:
  struct open_slice {
    std::uint64_t end;        // in ns
    double read_end;          // ts + dur
    double read_end_shifted;  // (ts - origin) + dur
  };
  double origin_;                 // the track's first ts, as read
  std::vector<open_slice> open_;  // the slices around the next one
};

inline std::string trace_slice_body(const std::string& name, const char* cat, std::uint64_t start, std::uint64_t dur,
                                    std::size_t tid, const std::string& args) {
  return "\"name\":" + json_string(name) + ",\"cat\":\"" + cat + "\",\"ph\":\"X\",\"ts\":" + trace_us(start) +
         ",\"dur\":" + trace_us(dur) + ",\"pid\":1,\"tid\":" + std::to_string(tid) + ",\"args\":{" + args + "}";
}

// "cat": "__metadata", as Chrome writes its metadata events.
inline std::string trace_metadata(const char* name, std::size_t tid, const std::string& arg) {
  return std::string("\"name\":\"") + name +
         "\",\"cat\":\"__metadata\",\"ph\":\"M\",\"pid\":1,\"tid\":" + std::to_string(tid) + ",\"args\":{" + arg + "}";
}

// A counter sample ("ph": "C"): `key` = `value` from `ns` on.
inline std::string trace_counter(const std::string& name, const char* cat, std::uint64_t ns, const char* key,
                                 std::uint64_t value) {
  return "\"name\":" + json_string(name) + ",\"cat\":\"" + cat + "\",\"ph\":\"C\",\"ts\":" + trace_us(ns) +
         ",\"pid\":1,\"args\":{\"" + key + "\":" + std::to_string(value) + "}";
}

// The slices of the thread tracks and of the critical path's track. A strand's
// args are its call path only (the same for every strand of that path: a viewer
// that keys frames on name and args, as speedscope does, keeps one frame per
// call path); its work and span are on the counters (trace_counters).
inline void trace_slices(const report& rep, const execution_record& r, const trace_layout& L, trace_events& ev) {
  const std::string root = root_name(rep);
  stack_names stacks(r, root);
  const auto args = [&](std::uint32_t i) { return "\"stack\":" + json_string(stacks.of(r.strands[i].frame)); };
  for (std::size_t t = 0; t < L.threads.size(); ++t) {
    trace_track_ends ends(L.threads[t].empty() ? 0 : L.threads[t].front().start);
    for (const trace_slice& s : L.threads[t]) {
      const std::uint64_t dur = ends.dur(s.start, s.end);
      if (s.region) {
        const std::string& path = r.regions[s.index].path;
        ev.add(trace_slice_body(path, "region", s.start, dur, t + 1, "\"path\":" + json_string(path)));
      } else {
        ev.add(trace_slice_body(frame_name(r, r.strands[s.index].frame, root), "strand", s.start, dur, t + 1,
                                args(s.index)));
      }
    }
  }
  const std::size_t critical_tid = L.threads.size() + 1;
  trace_track_ends ends(L.critical.empty() ? 0 : L.critical.front().start);
  for (const trace_slice& s : L.critical)
    ev.add(trace_slice_body(frame_name(r, r.strands[s.index].frame, root), "critical_path", s.start,
                            ends.dur(s.start, s.end), critical_tid, args(s.index)));
}

// The numbers of the strands as counters, which viewers draw as a track of
// their own and show at any point in time: per thread, the work of its strands
// so far ("work of thread K", a sample at the start of its first strand and at
// the end of every strand with work), and along the critical path the span so
// far ("span of the critical path", at the end of each of its strands). The
// last samples add up to the work, and the last critical one is the span.
inline void trace_counters(const execution_record& r, const trace_layout& L, trace_events& ev) {
  for (std::size_t t = 0; t < L.threads.size(); ++t) {
    const std::string name = "work of thread " + std::to_string(t);
    std::uint64_t work = 0;
    bool first = true;
    for (const trace_slice& s : L.threads[t]) {
      if (s.region) continue;
      if (first) ev.add(trace_counter(name, "work", s.start, "work", 0));
      first = false;
      if (r.strands[s.index].work == 0) continue;
      work += r.strands[s.index].work;
      ev.add(trace_counter(name, "work", s.end, "work", work));
    }
  }
  std::uint64_t span = 0;
  for (std::size_t k = 0; k < L.critical.size(); ++k) {
    if (k == 0) ev.add(trace_counter("span of the critical path", "span", L.critical[k].start, "span", 0));
    span += r.strands[L.critical[k].index].span;
    ev.add(trace_counter("span of the critical path", "span", L.critical[k].end, "span", span));
  }
}

// One arrow, as Chrome binds flow events: a flow event belongs to the slice of
// its pid and tid with the same ts and cat ("s" to the slice it starts in, "f"
// with "bp": "e" to the slice it ends in), and a start and an end pair by cat,
// name and id. So both are written at their strand's start, with the strands'
// cat.
inline void trace_flow(const execution_record& r, const trace_layout& L, trace_events& ev, const char* kind,
                       std::uint64_t id, std::uint32_t from, std::uint32_t to) {
  const std::string head =
      std::string("\"name\":\"") + kind + "\",\"cat\":\"strand\",\"id\":" + std::to_string(id) + ",\"pid\":1,";
  ev.add(head + "\"ph\":\"s\",\"ts\":" + trace_us(L.start[from]) +
         ",\"tid\":" + std::to_string(r.strands[from].thread + 1));
  ev.add(head + "\"ph\":\"f\",\"bp\":\"e\",\"ts\":" + trace_us(L.start[to]) +
         ",\"tid\":" + std::to_string(r.strands[to].thread + 1));
}

// Spawn edges (a task's first strand from the strand that spawned it) and join
// edges (every strand reported to a join, directly or through joins handed on
// to it, into the strand that starts after the join).
inline void trace_flows(const execution_record& r, const trace_layout& L, trace_events& ev) {
  std::uint64_t id = 0;
  std::vector<std::uint32_t> seen(r.joins.size(), 0), todo;
  for (std::uint32_t i = 0; i < r.strands.size(); ++i) {
    const record_strand& s = r.strands[i];
    if (s.prev >= 0 && static_cast<std::size_t>(s.prev) < r.strands.size() &&
        r.strands[static_cast<std::size_t>(s.prev)].task != s.task)
      trace_flow(r, L, ev, "spawn", ++id, static_cast<std::uint32_t>(s.prev), i);
    if (s.join < 0 || static_cast<std::size_t>(s.join) >= r.joins.size()) continue;
    todo.assign(1, static_cast<std::uint32_t>(s.join));
    while (!todo.empty()) {
      const std::uint32_t j = todo.back();
      todo.pop_back();
      if (j >= r.joins.size() || seen[j] == i + 1) continue;
      seen[j] = i + 1;
      for (const std::uint32_t from : r.joins[j].strands)
        if (from < r.strands.size()) trace_flow(r, L, ev, "join", ++id, from, i);
      for (const std::uint32_t k : r.joins[j].joins) todo.push_back(k);
    }
  }
}

inline std::string trace_other_data(const report& rep, const execution_record& r, const trace_layout& L) {
  std::string o = "{\"producer\":\"forkscale " FORKSCALE_VERSION_STRING "\",\"label\":" + json_string(rep.label) +
                  ",\"clock\":\"" + to_string(rep.clock) + "\",\"unit\":" + json_string(rep.unit) + ",\"work\":\"" +
                  std::to_string(rep.work()) + "\",\"span\":\"" + std::to_string(rep.span()) + "\",\"strands\":\"" +
                  std::to_string(r.strands.size()) + "\",\"time\":\"ts and dur: microseconds " +
                  "of wall-clock time since the measurement started (whole ns; a dur rounded down by 1 ns where " +
                  "ts + dur in doubles would pass the next slice)\",\"slices_adjusted\":\"" + std::to_string(L.moved) +
                  "\",\"record\":";
  if (r.complete) return o + "\"complete\"}";
  return o +
         json_string("partial: recording stopped at options.record_limit (" + std::to_string(r.dropped_strands) +
                     " strands dropped): the timeline has gaps; the report's numbers are whole") +
         "}";
}

inline std::string trace_text(const report& rep) {
  const execution_record& r = require_record(rep);
  const trace_layout L = lay_out_trace(r);
  trace_events ev;
  ev.add("\"name\":\"process_name\",\"cat\":\"__metadata\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":" +
         json_string(root_name(rep)) + "}");
  for (std::size_t t = 0; t < L.threads.size(); ++t) {
    const std::string os = t < r.threads.size() ? " (tid " + std::to_string(r.threads[t].os_id) + ")" : "";
    ev.add(trace_metadata("thread_name", t + 1, "\"name\":\"thread " + std::to_string(t) + os + "\""));
    ev.add(trace_metadata("thread_sort_index", t + 1, "\"sort_index\":" + std::to_string(t + 1)));
  }
  ev.add(trace_metadata("thread_name", L.threads.size() + 1, "\"name\":\"critical path\""));
  ev.add(trace_metadata("thread_sort_index", L.threads.size() + 1, "\"sort_index\":0"));
  trace_slices(rep, r, L, ev);
  trace_counters(r, L, ev);
  trace_flows(r, L, ev);
  return "{\"traceEvents\":[" + std::move(ev.text()) +
         "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":" + trace_other_data(rep, r, L) + "}\n";
}

}  // namespace output
}  // namespace detail

#if FORKSCALE_DETAIL_DEFINITIONS
FORKSCALE_INLINE std::string report::to_trace() const { return detail::output::trace_text(*this); }

FORKSCALE_INLINE void report::write_trace(const std::string& path) const {
  detail::write_file_atomically(path, to_trace());
}
#endif  // FORKSCALE_DETAIL_DEFINITIONS

FORKSCALE_NAMESPACE_END
