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
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "../../record.hpp"
#include "../../report.hpp"
#include "../util/atomic_file.hpp"
#include "json_writer.hpp"
#include "record_names.hpp"
#include "stream_out.hpp"
#include "trace_layout.hpp"
#include "trace_plan.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

// The events, one per line, as members of the "traceEvents" array, written as
// they are made: an event's pieces go straight into the stream.
class trace_events {
 public:
  explicit trace_events(stream_out& out) : out_(out) {}
  stream_out& begin() {
    out_.put(first_ ? "\n{" : ",\n{", first_ ? 2 : 3);
    first_ = false;
    return out_;
  }
  void end() { out_.put('}'); }
  stream_out& out() { return out_; }
  // An event stored through a pointer: open() makes room for its separator,
  // braces and `bound` bytes between them and returns where its members go;
  // close() takes where they end.
  char* open(std::size_t bound) {
    char* p = out_.room(bound + 4);
    if (first_) {
      p = put_text(p, "\n{");
      first_ = false;
    } else {
      p = put_text(p, ",\n{");
    }
    return p;
  }
  void close(char* p) {
    *p++ = '}';
    out_.advance(p);
  }

 private:
  stream_out& out_;
  bool first_ = true;
};

// The JSON strings of each call path's name and folded stack, each made once.
class trace_names {
 public:
  trace_names(const execution_record& r, std::string root) : r_(r), root_(root), stacks_(r, std::move(root)) {
    name_.resize(r.frames.size() + 1);
    stack_.resize(r.frames.size() + 1);
    head_.resize(r.frames.size() + 1);
    tail_.resize(r.frames.size() + 1);
  }
  const std::string& name(std::uint32_t frame) {
    std::string& s = name_[slot(frame)];
    if (s.empty()) s = json_string(frame_name(r_, frame, root_));
    return s;
  }
  const std::string& stack(std::uint32_t frame) {
    std::string& s = stack_[slot(frame)];
    if (s.empty()) s = json_string(stacks_.of(frame));
    return s;
  }
  // What a strand's slice (cat "strand") holds before its ts, and after its
  // tid: "name":N,"cat":"strand","ph":"X","ts":  and  ,"args":{"stack":S}
  const std::string& strand_head(std::uint32_t frame) {
    std::string& s = head_[slot(frame)];
    if (s.empty()) s = "\"name\":" + name(frame) + ",\"cat\":\"strand\",\"ph\":\"X\",\"ts\":";
    return s;
  }
  const std::string& strand_tail(std::uint32_t frame) {
    std::string& s = tail_[slot(frame)];
    if (s.empty()) s = ",\"args\":{\"stack\":" + stack(frame) + "}";
    return s;
  }

 private:
  std::size_t slot(std::uint32_t frame) const { return frame < r_.frames.size() ? frame : r_.frames.size(); }
  const execution_record& r_;
  std::string root_;
  stack_names stacks_;
  std::vector<std::string> name_, stack_, head_, tail_;
};

// The most "name":N,"cat":"C",...,"args":{ takes besides N and C.
constexpr std::size_t trace_slice_head_bound = 160;

// "name":N,"cat":"C","ph":"X","ts":T,"dur":D,"pid":1,"tid":K,"args":{  (the args follow)
inline char* trace_slice_head(char* p, const std::string& name_json, const std::string& cat, std::uint64_t start,
                              std::uint64_t dur, std::size_t tid) {
  p = put_text(p, "\"name\":");
  p = put_bytes(p, name_json);
  p = put_text(p, ",\"cat\":\"");
  p = put_bytes(p, cat);
  p = put_text(p, "\",\"ph\":\"X\",\"ts\":");
  p = put_micros(p, start);
  p = put_text(p, ",\"dur\":");
  p = put_micros(p, dur);
  p = put_text(p, ",\"pid\":1,\"tid\":");
  p = put_decimal(p, tid);
  return put_text(p, ",\"args\":{");
}

// "cat": "__metadata", as Chrome writes its metadata events.
inline void trace_metadata(trace_events& ev, const char* name, std::size_t tid, const std::string& arg) {
  stream_out& o = ev.begin();
  o.put("\"name\":\"");
  o.put(name);
  o.put("\",\"cat\":\"__metadata\",\"ph\":\"M\",\"pid\":1,\"tid\":");
  o.number(tid);
  o.put(",\"args\":{");
  o.put(arg);
  o.put('}');
  ev.end();
}

// A counter sample ("ph": "C"): `key` = `value` from `ns` on.
inline void trace_counter(trace_events& ev, const std::string& name_json, const char* cat, std::uint64_t ns,
                          const char* key, std::uint64_t value) {
  stream_out& o = ev.begin();
  o.put("\"name\":", 7);
  o.put(name_json);
  o.put(",\"cat\":\"");
  o.put(cat);
  o.put("\",\"ph\":\"C\",\"ts\":");
  o.micros(ns);
  o.put(",\"pid\":1,\"args\":{\"");
  o.put(key);
  o.put("\":");
  o.number(value);
  o.put('}');
  ev.end();
}

// A run of folded strands (trace_plan.hpp): named by the innermost call path
// around all of them, with the strands' cat (so that arrows bind to it), and
// their count, work and span (the longest path through them) in args.
inline void trace_folded_slice(trace_events& ev, trace_names& names, const trace_run& run, std::uint64_t dur,
                               std::size_t tid) {
  static const std::string cat = "strand";
  const std::string &name = names.name(run.frame), &stack = names.stack(run.frame);
  char* p = ev.open(trace_slice_head_bound + name.size() + cat.size() + stack.size() + 128);
  p = trace_slice_head(p, name, cat, run.start, dur, tid);
  p = put_text(p, "\"stack\":");
  p = put_bytes(p, stack);
  p = put_text(p, ",\"folded_strands\":");
  p = put_decimal(p, run.strands);
  p = put_text(p, ",\"work\":");
  p = put_decimal(p, run.work);
  p = put_text(p, ",\"span\":");
  p = put_decimal(p, run.span);
  *p++ = '}';
  ev.close(p);
}

// The slices of the thread tracks and of the critical path's track. A strand's
// args are its call path only (the same for every strand of that path: a viewer
// that keys frames on name and args, as speedscope does, keeps one frame per
// call path); its work and span are on the counters (trace_counters).
inline void trace_slices(const execution_record& r, const trace_layout& L, trace_names& names, trace_events& ev) {
  // A thread track's strand: the same bytes as below, its pieces around ts,
  // dur and tid made once per call path.
  const auto thread_strand = [&](std::uint32_t i, std::uint64_t start, std::uint64_t dur, std::size_t tid) {
    const std::string &head = names.strand_head(r.strands[i].frame), &tail = names.strand_tail(r.strands[i].frame);
    char* p = ev.open(head.size() + tail.size() + 96);
    p = put_bytes(p, head);
    p = put_micros(p, start);
    p = put_text(p, ",\"dur\":");
    p = put_micros(p, dur);
    p = put_text(p, ",\"pid\":1,\"tid\":");
    p = put_decimal(p, tid);
    p = put_bytes(p, tail);
    ev.close(p);
  };
  const auto strand = [&](std::uint32_t i, const std::string& cat, std::uint64_t start, std::uint64_t dur,
                          std::size_t tid) {
    const std::string &name = names.name(r.strands[i].frame), &stack = names.stack(r.strands[i].frame);
    char* p = ev.open(trace_slice_head_bound + name.size() + cat.size() + stack.size() + 16);
    p = trace_slice_head(p, name, cat, start, dur, tid);
    p = put_text(p, "\"stack\":");
    p = put_bytes(p, stack);
    *p++ = '}';
    ev.close(p);
  };
  const std::string region_cat = "region", critical_cat = "critical_path";
  for (std::size_t t = 0; t < L.threads.size(); ++t) {
    trace_track_ends ends(L.threads[t].empty() ? 0 : L.start(L.threads[t].front()));
    for (const trace_slice& s : L.threads[t]) {
      const std::uint64_t start = L.start(s), dur = ends.dur(start, L.end(s));
      if (s.region) {
        const std::string path = json_string(r.regions[s.index].path);
        char* p = ev.open(trace_slice_head_bound + 2 * path.size() + region_cat.size() + 16);
        p = trace_slice_head(p, path, region_cat, start, dur, t + 1);
        p = put_text(p, "\"path\":");
        p = put_bytes(p, path);
        *p++ = '}';
        ev.close(p);
      } else if (s.folded) {
        trace_folded_slice(ev, names, L.runs[s.index], dur, t + 1);
      } else {
        thread_strand(s.index, start, dur, t + 1);
      }
    }
  }
  const std::size_t critical_tid = L.threads.size() + 1;
  trace_track_ends ends(L.critical.empty() ? 0 : L.critical.front().start);
  for (const trace_path_slice& s : L.critical)
    strand(s.index, critical_cat, s.start, ends.dur(s.start, s.end), critical_tid);
}

// At most this many samples per counter track, besides its first and last: a
// sample each time the count has grown by 1/trace_counter_steps of its total.
constexpr std::uint64_t trace_counter_steps = 1000;

// Samples of a growing count: emit(at) is asked after each increase; it samples
// when the count has passed the next step or reached the total.
class trace_counter_track {
 public:
  trace_counter_track(trace_events& ev, std::string name_json, const char* key, std::uint64_t total)
      : ev_(ev), name_(std::move(name_json)), key_(key), total_(total), step_(total / trace_counter_steps) {}
  void start(std::uint64_t at) { trace_counter(ev_, name_, key_, at, key_, 0); }
  void add(std::uint64_t at, std::uint64_t amount) {
    count_ += amount;
    if (count_ < total_ && count_ - sampled_ <= step_) return;
    sampled_ = count_;
    trace_counter(ev_, name_, key_, at, key_, count_);
  }

 private:
  trace_events& ev_;
  std::string name_;
  const char* key_;
  std::uint64_t total_, step_, count_ = 0, sampled_ = 0;
};

// The numbers of the strands as counters, which viewers draw as a track of
// their own and show at any point in time: per thread, the work of its strands
// so far ("work of thread K", 0 at the start of its first slice, then at the
// end of a slice with work each time it has grown by a thousandth of the
// thread's work, and at its last), and along the critical path the span so far
// ("span of the critical path", sampled the same way at the ends of its
// strands). The last samples add up to the work, and the last critical one is
// the span.
inline void trace_counters(const execution_record& r, const trace_layout& L, trace_events& ev) {
  const auto work_of = [&](const trace_slice& s) { return s.folded ? L.runs[s.index].work : r.strands[s.index].work; };
  for (std::size_t t = 0; t < L.threads.size(); ++t) {
    std::uint64_t total = 0;
    for (const trace_slice& s : L.threads[t])
      if (!s.region) total += work_of(s);
    trace_counter_track work(ev, json_string("work of thread " + std::to_string(t)), "work", total);
    // Sampled at the latest end so far: a slice sorted after one that encloses
    // it (an empty strand at the start of the next) may end earlier.
    bool first = true;
    std::uint64_t at = 0;
    for (const trace_slice& s : L.threads[t]) {
      if (s.region) continue;
      if (first) work.start(L.start(s));
      first = false;
      at = std::max(at, L.end(s));
      if (work_of(s) != 0) work.add(at, work_of(s));
    }
  }
  std::uint64_t total = 0;
  for (const trace_path_slice& s : L.critical) total += r.strands[s.index].span;
  trace_counter_track span(ev, json_string("span of the critical path"), "span", total);
  for (std::size_t k = 0; k < L.critical.size(); ++k) {
    if (k == 0) span.start(L.critical[k].start);
    if (r.strands[L.critical[k].index].span != 0) span.add(L.critical[k].end, r.strands[L.critical[k].index].span);
  }
}

// The arrows of the spawn and join edges (trace_flows).
class trace_arrows {
 public:
  trace_arrows(const execution_record& r, const trace_layout& L, trace_events& ev) : r_(r), L_(L), ev_(ev) {}

  // One arrow, as Chrome binds flow events: a flow event belongs to the slice of
  // its pid and tid with the same ts and cat ("s" to the slice it starts in, "f"
  // with "bp": "e" to the slice it ends in), and a start and an end pair by cat,
  // name and id. So both are written at their slice's start, with the strands'
  // cat. A folded strand's end is its run's slice: an edge inside one run has
  // no arrow, and an edge from a run to a strand already drawn from that run
  // none again.
  void edge(const char* kind, std::uint32_t from, std::uint32_t to) {
    if (!L_.run_of.empty()) {
      const std::uint64_t a = slice_of(from), b = slice_of(to);
      if (a == b) return;
      if (b != target_) {
        target_ = b;
        sources_.clear();
      }
      if (std::find(sources_.begin(), sources_.end(), a) != sources_.end()) return;
      sources_.push_back(a);
    }
    ++id_;
    end(kind, from, false);
    end(kind, to, true);
  }

 private:
  std::uint64_t slice_of(std::uint32_t i) const {
    return L_.run_of[i] == trace_layout::no_run ? i : r_.strands.size() + L_.run_of[i];
  }
  // `kind` is "spawn" or "join" (a literal of at most 8 characters).
  void end(const char* kind, std::uint32_t i, bool finish) {
    const bool folded = !L_.run_of.empty() && L_.run_of[i] != trace_layout::no_run;
    char* p = ev_.open(160);
    p = put_text(p, "\"name\":\"");
    p = put_bytes(p, kind, std::strlen(kind));
    p = put_text(p, "\",\"cat\":\"strand\",\"id\":");
    p = put_decimal(p, id_);
    p = finish ? put_text(p, ",\"pid\":1,\"ph\":\"f\",\"bp\":\"e\",\"ts\":")
               : put_text(p, ",\"pid\":1,\"ph\":\"s\",\"ts\":");
    p = put_micros(p, folded ? L_.runs[L_.run_of[i]].start : L_.strand_start(i));
    p = put_text(p, ",\"tid\":");
    p = put_decimal(p, std::uint64_t(r_.strands[i].thread) + 1);
    ev_.close(p);
  }

  const execution_record& r_;
  const trace_layout& L_;
  trace_events& ev_;
  std::uint64_t id_ = 0;
  std::uint64_t target_ = ~std::uint64_t(0);
  std::vector<std::uint64_t> sources_;
};

// Spawn edges (a task's first strand from the strand that spawned it) and join
// edges (every strand reported to a join, directly or through joins handed on
// to it, into the strand that starts after the join).
inline void trace_flows(const execution_record& r, const trace_layout& L, trace_events& ev) {
  trace_arrows arrows(r, L, ev);
  std::vector<std::uint32_t> seen(r.joins.size(), 0), todo;
  for (std::uint32_t i = 0; i < r.strands.size(); ++i) {
    const record_strand& s = r.strands[i];
    if (s.prev >= 0 && static_cast<std::size_t>(s.prev) < r.strands.size() &&
        r.strands[static_cast<std::size_t>(s.prev)].task != s.task)
      arrows.edge("spawn", static_cast<std::uint32_t>(s.prev), i);
    if (s.join < 0 || static_cast<std::size_t>(s.join) >= r.joins.size()) continue;
    todo.assign(1, static_cast<std::uint32_t>(s.join));
    while (!todo.empty()) {
      const std::uint32_t j = todo.back();
      todo.pop_back();
      if (j >= r.joins.size() || seen[j] == i + 1) continue;
      seen[j] = i + 1;
      for (const std::uint32_t from : r.joins[j].strands)
        if (from < r.strands.size()) arrows.edge("join", from, i);
      for (const std::uint32_t k : r.joins[j].joins) todo.push_back(k);
    }
  }
}

inline std::string trace_other_data(const report& rep, const execution_record& r, const trace_layout& L,
                                    const trace_plan& p) {
  std::string o = "{\"producer\":\"forkscale " FORKSCALE_VERSION_STRING "\",\"label\":" + json_string(rep.label) +
                  ",\"clock\":\"" + to_string(rep.clock) + "\",\"unit\":" + json_string(rep.unit) + ",\"work\":\"" +
                  std::to_string(rep.work()) + "\",\"span\":\"" + std::to_string(rep.span()) + "\",\"strands\":\"" +
                  std::to_string(r.strands.size()) + "\",\"time\":\"ts and dur: microseconds " +
                  "of wall-clock time since the measurement started (whole ns; a dur rounded down by 1 ns where " +
                  "ts + dur in doubles would pass the next slice)\",\"slices_adjusted\":\"" + std::to_string(L.moved) +
                  "\",\"trace_limit\":\"" + std::to_string(p.limit) + "\",\"strands_written\":\"" +
                  std::to_string(p.kept) + "\",\"strands_folded\":\"" + std::to_string(p.folded) +
                  "\",\"folded_slices\":\"" + std::to_string(L.runs.size()) +
                  "\",\"folded\":" + json_string(trace_plan_summary(p)) + ",\"record\":";
  if (r.complete) return o + "\"complete\"}";
  return o +
         json_string("partial: recording stopped at options.record_limit (" + std::to_string(r.dropped_strands) +
                     " strands dropped): the timeline has gaps; the report's numbers are whole") +
         "}";
}

// The whole trace, into `out`.
inline void write_trace_to(const report& rep, stream_out& out) {
  const execution_record& r = require_record(rep);
  const trace_plan p = plan_trace(r);
  trace_layout L = lay_out_trace(r);
  fold_tracks(r, p, L);
  trace_names names(r, root_name(rep));
  out.put("{\"traceEvents\":[");
  trace_events ev(out);
  {
    stream_out& o = ev.begin();
    o.put("\"name\":\"process_name\",\"cat\":\"__metadata\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":");
    o.put(json_string(root_name(rep)));
    o.put('}');
    ev.end();
  }
  for (std::size_t t = 0; t < L.threads.size(); ++t) {
    const std::string os = t < r.threads.size() ? " (tid " + std::to_string(r.threads[t].os_id) + ")" : "";
    trace_metadata(ev, "thread_name", t + 1, "\"name\":\"thread " + std::to_string(t) + os + "\"");
    trace_metadata(ev, "thread_sort_index", t + 1, "\"sort_index\":" + std::to_string(t + 1));
  }
  trace_metadata(ev, "thread_name", L.threads.size() + 1, "\"name\":\"critical path\"");
  trace_metadata(ev, "thread_sort_index", L.threads.size() + 1, "\"sort_index\":0");
  trace_slices(r, L, names, ev);
  trace_counters(r, L, ev);
  trace_flows(r, L, ev);
  out.put("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":");
  out.put(trace_other_data(rep, r, L, p));
  out.put("}\n");
}

}  // namespace output
}  // namespace detail

#if FORKSCALE_DETAIL_DEFINES(views)
FORKSCALE_INLINE std::string report::to_trace() const {
  std::string text;
  detail::output::stream_out out(text);
  detail::output::write_trace_to(*this, out);
  out.flush();
  return text;
}

FORKSCALE_INLINE void report::write_trace(const std::string& path) const {
  detail::output::require_record(*this);  // before any file is made
  auto fill = [this](detail::output::stream_out& out) { detail::output::write_trace_to(*this, out); };
  detail::output::write_streamed_atomically(path, fill);
}
#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
