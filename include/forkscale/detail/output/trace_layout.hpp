// detail/output/trace_layout.hpp: where each slice of a trace goes (trace.hpp
// writes them): the thread tracks and the critical path's track, adjusted so
// that the slices of a track nest, in nanoseconds and in the doubles viewers
// compute with; and, for a trace over its bound (trace_plan.hpp), the folded
// strands between two kept ones on a thread merged into one slice.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "../../record.hpp"
#include "../util/huge_pages.hpp"
#include "trace_plan.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

// Microseconds with three decimals, from nanoseconds: exact and locale-free.
inline std::string trace_us(std::uint64_t ns) {
  const std::string frac = std::to_string(ns % 1000);
  return std::to_string(ns / 1000) + "." + std::string(3 - frac.size(), '0') + frac;
}

// A slice of a thread's track, named by index: a strand, a region when
// `region`, a run of folded strands when `folded`. Its times are the layout's
// (trace_layout::start and end): a track holds millions of strands in a large
// record, so a slice is one word, not its times again.
struct trace_slice {
  std::uint32_t index = 0;
  bool region = false;
  bool folded = false;
};

// A slice of the critical path's track, with its own times (a strand there
// may start later than on its thread, after the one before it on the path).
struct trace_path_slice {
  std::uint64_t start = 0, end = 0;
  std::uint32_t index = 0;  // a strand
};

// Consecutive folded strands of one thread, written as one slice (trace_plan.hpp
// says which strands are folded).
struct trace_run {
  std::uint64_t start = 0, end = 0;
  std::uint64_t strands = 0, work = 0;
  std::uint64_t span = 0;   // the longest path through its strands along the record's edges
  std::uint32_t frame = 0;  // the innermost call path around all its strands
};

// A strand placed at times other than its own (trace_layout::strand_start).
struct trace_moved_strand {
  std::uint32_t index = 0;
  std::uint64_t start = 0, end = 0;
};

// Where every slice goes, adjusted so that the slices of a track nest. A
// strand keeps its recorded times unless they overlap the one before it on its
// thread; only the few that moved are stored (sorted by strand, marked in
// `strand_moved`), so that the layout of a record of millions of strands is a
// word per strand, not three.
struct trace_layout {
  const execution_record* rec = nullptr;
  std::vector<std::vector<trace_slice>> threads;                      // per thread, in output order
  std::vector<trace_path_slice> critical;                             // the critical path's track
  std::vector<std::pair<std::uint64_t, std::uint64_t>> region_times;  // per record region, as placed
  std::vector<bool> strand_moved;                                     // per strand (empty when none moved)
  std::vector<trace_moved_strand> moved_strands;                      // by strand index
  std::uint64_t moved = 0;                                            // slices whose times were adjusted
  std::vector<trace_run> runs;        // the folded slices (none when the plan keeps every strand)
  std::vector<std::uint32_t> run_of;  // per strand: its run, or no_run (empty when none is folded)
  static constexpr std::uint32_t no_run = 0xffffffffu;

  std::uint64_t strand_start(std::uint32_t i) const noexcept {
    return is_moved(i) ? moved_of(i).start : rec->strands[i].start_ns;
  }
  std::uint64_t strand_end(std::uint32_t i) const noexcept {
    return is_moved(i) ? moved_of(i).end : rec->strands[i].end_ns;
  }
  std::uint64_t start(const trace_slice& s) const noexcept {
    return s.region ? region_times[s.index].first : s.folded ? runs[s.index].start : strand_start(s.index);
  }
  std::uint64_t end(const trace_slice& s) const noexcept {
    return s.region ? region_times[s.index].second : s.folded ? runs[s.index].end : strand_end(s.index);
  }

 private:
  bool is_moved(std::uint32_t i) const noexcept { return !strand_moved.empty() && strand_moved[i]; }
  const trace_moved_strand& moved_of(std::uint32_t i) const noexcept {
    return *std::lower_bound(moved_strands.begin(), moved_strands.end(), i,
                             [](const trace_moved_strand& m, std::uint32_t k) { return m.index < k; });
  }
};

// A strand's place in time order: by start, then end, then index.
struct strand_time_key {
  std::uint64_t start, end;
  std::uint32_t index;
};
inline bool strand_time_before(const strand_time_key& x, const strand_time_key& y) noexcept {
  if (x.start != y.start) return x.start < y.start;
  return x.end != y.end ? x.end < y.end : x.index < y.index;
}

// A thread's strands being put into time order (strand_time_order). They mostly
// come in time order already (in order of the graph), with some that started
// earlier further on: add() keeps the strands that follow the last kept one in
// time in `list` and takes the others out; finish() sorts those on copies of
// their keys and merges them back from the end. Linear when few are out of order
// (one in ten in a serial quicksort), never worse than sorting them all.
struct strand_time_sorter {
  std::vector<std::uint32_t> list;
  std::vector<strand_time_key> rest;
  strand_time_key last{};

  void add(const strand_time_key& k) {
    if (list.empty() || strand_time_before(last, k)) {
      list.push_back(k.index);
      last = k;
    } else {
      rest.push_back(k);
    }
  }
  void finish(const execution_record& r) {
    if (rest.empty()) return;
    std::sort(rest.begin(), rest.end(), strand_time_before);
    // Merged from the back: the kept strands hold the front of the list.
    std::size_t from = list.size(), other = rest.size();
    reserve_huge(list, list.size() + rest.size());
    list.resize(list.size() + rest.size());
    std::size_t to = list.size();
    while (other > 0) {
      const std::uint32_t i = from > 0 ? list[from - 1] : 0;
      if (from > 0 &&
          strand_time_before(rest[other - 1], strand_time_key{r.strands[i].start_ns, r.strands[i].end_ns, i}))
        list[--to] = list[--from];
      else
        list[--to] = rest[--other].index;
    }
    rest.clear();
    rest.shrink_to_fit();
  }
};

inline strand_time_key strand_time_of(const execution_record& r, std::uint32_t i) noexcept {
  return strand_time_key{r.strands[i].start_ns, r.strands[i].end_ns, i};
}

// Sorts `list` (strand indices in increasing order) into time order.
inline void strand_time_order(const execution_record& r, std::vector<std::uint32_t>& list) {
  strand_time_sorter t;
  reserve_huge(t.list, list.size());
  for (const std::uint32_t i : list) t.add(strand_time_of(r, i));
  t.finish(r);
  list.swap(t.list);
}

// Strands of each thread in time order, none starting before the previous
// ended. The strands are read once to sort them out by thread and into time
// order (most are in it already); L.threads grows to every thread a strand
// names.
inline std::vector<std::vector<std::uint32_t>> place_strands(const execution_record& r, trace_layout& L) {
  std::vector<strand_time_sorter> sorters(L.threads.size());
  for (std::uint32_t i = 0; i < r.strands.size(); ++i) {
    const record_strand& s = r.strands[i];
    if (s.thread >= sorters.size()) sorters.resize(std::size_t(s.thread) + 1);
    // (Reserved whole, in address space only: what no strand fills is never touched.)
    if (sorters[s.thread].list.capacity() == 0) reserve_huge(sorters[s.thread].list, r.strands.size());
    sorters[s.thread].add(strand_time_key{s.start_ns, s.end_ns, i});
  }
  if (sorters.size() > L.threads.size()) L.threads.resize(sorters.size());
  std::vector<std::vector<std::uint32_t>> on(L.threads.size());
  for (std::size_t t = 0; t < sorters.size(); ++t) {
    sorters[t].finish(r);
    on[t].swap(sorters[t].list);
  }
  for (auto& list : on) {
    std::uint64_t last_end = 0;
    for (const std::uint32_t i : list) {
      const record_strand& s = r.strands[i];
      const std::uint64_t start = std::max(s.start_ns, last_end);
      const std::uint64_t end = std::max(s.end_ns, start);
      if (start != s.start_ns || end != s.end_ns) {
        ++L.moved;
        if (L.strand_moved.empty()) L.strand_moved.assign(r.strands.size(), false);
        L.strand_moved[i] = true;
        L.moved_strands.push_back(trace_moved_strand{i, start, end});
      }
      last_end = end;
    }
  }
  std::sort(L.moved_strands.begin(), L.moved_strands.end(),
            [](const trace_moved_strand& a, const trace_moved_strand& b) { return a.index < b.index; });
  return on;
}

// A region's time `t` moved out of the strand of `list` (sorted, disjoint) it
// falls strictly inside, to that strand's start (`to_start`) or end.
inline std::uint64_t out_of_strands(const trace_layout& L, const std::vector<std::uint32_t>& list, std::uint64_t t,
                                    bool to_start) {
  const auto after = std::lower_bound(list.begin(), list.end(), t,
                                      [&](std::uint32_t i, std::uint64_t x) { return L.strand_start(i) < x; });
  if (after == list.begin()) return t;
  const std::uint32_t k = *(after - 1);  // the last strand starting before t
  if (L.strand_end(k) <= t) return t;
  return to_start ? L.strand_start(k) : L.strand_end(k);
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
    auto& t = L.region_times[g];
    t.first = out_of_strands(L, strands, region.start_ns, true);
    t.second = out_of_strands(L, strands, std::max(region.end_ns, region.start_ns), false);
    if (t.first != region.start_ns || t.second != region.end_ns) ++L.moved;
    out.push_back(trace_slice{g, true, false});
  }
  std::sort(out.begin(), out.end(), [&](const trace_slice& a, const trace_slice& b) {
    return L.start(a) != L.start(b) ? L.start(a) < L.start(b) : L.end(a) > L.end(b);
  });
  std::vector<std::size_t> open;
  for (std::size_t k = 0; k < out.size(); ++k) {
    while (!open.empty() && L.end(out[open.back()]) <= L.start(out[k])) open.pop_back();
    for (auto it = open.rbegin(); it != open.rend() && L.end(out[*it]) < L.end(out[k]); ++it) {
      L.region_times[out[*it].index].second = L.end(out[k]);
      ++L.moved;
    }
    open.push_back(k);
  }
  return out;
}

inline trace_layout lay_out_trace(const execution_record& r) {
  trace_layout L;
  L.rec = &r;
  L.region_times.resize(r.regions.size());
  // A track for every recorded thread and every thread a region or strand names.
  std::size_t threads = r.threads.size();
  for (const auto& g : r.regions) threads = std::max<std::size_t>(threads, std::size_t(g.thread) + 1);
  L.threads.resize(threads);
  std::vector<std::vector<std::uint32_t>> on = place_strands(r, L);
  for (std::uint32_t t = 0; t < L.threads.size(); ++t) {
    std::vector<trace_slice>& track = L.threads[t];
    track = place_regions(r, t, on[t], L);
    reserve_huge(track, track.size() + on[t].size());
    for (const std::uint32_t i : on[t]) track.push_back(trace_slice{i, false, false});
    // Enclosing slices first: by start, then longest first, regions before strands.
    const auto enclosing_first = [&L](const trace_slice& a, const trace_slice& b) {
      const std::uint64_t as = L.start(a), bs = L.start(b);
      if (as != bs) return as < bs;
      const std::uint64_t ae = L.end(a), be = L.end(b);
      if (ae != be) return ae > be;
      return a.region && !b.region;
    };
    std::vector<std::uint32_t>().swap(on[t]);  // in the track now
    if (!std::is_sorted(track.begin(), track.end(), enclosing_first))
      std::stable_sort(track.begin(), track.end(), enclosing_first);
  }
  std::uint64_t last_end = 0;
  for (const std::uint32_t i : r.critical_path) {
    if (i >= r.strands.size()) continue;
    trace_path_slice s{std::max(L.strand_start(i), last_end), 0, i};
    s.end = std::max(L.strand_end(i), s.start);
    if (s.start != L.strand_start(i) || s.end != L.strand_end(i)) ++L.moved;
    last_end = s.end;
    L.critical.push_back(s);
  }
  return L;
}

// The innermost call path that holds both `a` and `b`.
inline std::uint32_t common_frame(const execution_record& r, std::uint32_t a, std::uint32_t b) {
  const auto ok = [&](std::uint32_t f) { return f < r.frames.size(); };
  if (!ok(a) || !ok(b)) return 0;
  while (a != b) {
    if (r.frames[a].depth < r.frames[b].depth || (r.frames[a].depth == r.frames[b].depth && a < b)) std::swap(a, b);
    const std::uint32_t up = r.frames[a].parent;
    if (up == a || !ok(up)) return 0;
    a = up;
  }
  return a;
}

// Each run's span: the longest path through its strands along prev and join
// edges between strands of the run (strands are in a topological order).
inline void run_spans(const execution_record& r, trace_layout& L) {
  std::vector<std::uint64_t> longest;
  reserve_huge(longest, r.strands.size());
  longest.assign(r.strands.size(), 0);
  std::vector<std::uint32_t> seen(r.joins.size(), 0), todo;
  for (std::uint32_t i = 0; i < r.strands.size(); ++i) {
    const std::uint32_t run = L.run_of[i];
    if (run == trace_layout::no_run) continue;
    const record_strand& s = r.strands[i];
    std::uint64_t before = 0;
    const auto from = [&](std::int64_t k) {
      if (k >= 0 && static_cast<std::size_t>(k) < i && L.run_of[static_cast<std::size_t>(k)] == run)
        before = std::max(before, longest[static_cast<std::size_t>(k)]);
    };
    from(s.prev);
    if (s.join >= 0) todo.assign(1, static_cast<std::uint32_t>(s.join));
    while (s.join >= 0 && !todo.empty()) {
      const std::uint32_t j = todo.back();
      todo.pop_back();
      if (j >= r.joins.size() || seen[j] == i + 1) continue;
      seen[j] = i + 1;
      for (const std::uint32_t k : r.joins[j].strands) from(k);
      for (const std::uint32_t k : r.joins[j].joins) todo.push_back(k);
    }
    longest[i] = before + s.span;
    L.runs[run].span = std::max(L.runs[run].span, longest[i]);
  }
}

// Replaces the folded strands of each thread's track by runs: consecutive
// folded strands with no kept strand and no region boundary between them
// become one slice from the first one's start to the last one's end, so the
// track still nests. run_of then names each folded strand's run.
inline void fold_tracks(const execution_record& r, const trace_plan& p, trace_layout& L) {
  if (!p.bounded) return;
  reserve_huge(L.run_of, r.strands.size());
  L.run_of.assign(r.strands.size(), trace_layout::no_run);
  std::vector<trace_slice> out;
  std::vector<std::uint64_t> open;  // the ends of the regions around the next slice
  std::size_t longest_track = 0;
  for (const std::vector<trace_slice>& track : L.threads) longest_track = std::max(longest_track, track.size());
  reserve_huge(out, longest_track);
  for (std::vector<trace_slice>& track : L.threads) {
    out.clear();
    open.clear();
    std::uint32_t run = trace_layout::no_run;
    for (const trace_slice& s : track) {
      while (!open.empty() && open.back() <= L.start(s)) {
        open.pop_back();
        run = trace_layout::no_run;
      }
      if (s.region || p.keep[s.index]) {
        if (s.region) open.push_back(L.end(s));
        run = trace_layout::no_run;
        out.push_back(s);
        continue;
      }
      const std::uint32_t frame = r.strands[s.index].frame;
      if (run == trace_layout::no_run) {
        run = static_cast<std::uint32_t>(L.runs.size());
        trace_run x;
        x.start = L.start(s);
        x.frame = frame;
        L.runs.push_back(x);
        out.push_back(trace_slice{run, false, true});
      }
      trace_run& x = L.runs[run];
      x.end = std::max(x.end, L.end(s));
      ++x.strands;
      x.work += r.strands[s.index].work;
      if (x.frame != frame) x.frame = common_frame(r, x.frame, frame);
      L.run_of[s.index] = run;
    }
    track.swap(out);
  }
  std::vector<trace_slice>().swap(out);  // the last whole track, before run_spans allocates
  run_spans(r, L);
}

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

}  // namespace output
}  // namespace detail
FORKSCALE_NAMESPACE_END
