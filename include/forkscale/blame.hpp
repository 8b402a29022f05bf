// blame.hpp: parallelism over time and idle blame, from a recorded run
// (options.record; docs/blame.md).
//
//   fs::options o;  o.record = true;
//   fs::report rep = fs::measure("sort", [&] { sort(v); }, o);
//   fs::timeline_analysis a = fs::analyze_timeline(rep);
//   std::cout << fs::timeline_text(rep);            // also part of rep.to_text()
//   fs::write_parallelism_csv(rep, "sort-parallelism.csv");
//
// What it computes, all in wall-clock nanoseconds since the measurement started
// (on every clock: the record keeps wall times under the cost clock too):
//  - parallelism over time: at each change point, the strands running and the
//    strands ready (every predecessor done: the prev strand, and for a strand
//    after a sync its join, done when everything reported to it is) but not
//    started — work a free thread could have taken;
//  - per thread: time in strands (busy), in the profiler (the overhead
//    compensation the engine subtracted, report.compensation_per_strand per
//    strand; 0 under the cost clock, which has none) and idle (the rest of the
//    measurement's wall time);
//  - idle blame, HPCToolkit's blame shifting (Tallent and Mellor-Crummey,
//    PPoPP'09; the Mellor-Crummey lecture in the seed papers): while k of the P
//    threads run strands, the idle time (P - k)·dt is charged to the k running
//    strands equally, and so to their sites (the innermost call or spawn site of
//    the strand's call path); and the time a thread waited in a sync_point (from
//    the strand before it to the strand after it, less the time the thread ran
//    other strands meanwhile) is charged to that sync point.
// P is the number of threads that ran strands of the measurement: a worker that
// never got a task is not in the record and not counted.
//
// The declarations are in timeline.hpp; in the header-only form this header
// also brings their definitions.
#pragma once
#include "timeline.hpp"

#if FORKSCALE_DETAIL_DEFINES(views)
#include "detail/blame/timeline.hpp"

FORKSCALE_NAMESPACE_BEGIN

namespace detail {
namespace blame {

// The wall time, P, and the per-thread times of `a`.
inline void fill_threads(timeline_analysis& a, const report& rep, const execution_record& r) {
  std::vector<std::uint64_t> count(r.threads.size(), 0), in_strands(r.threads.size(), 0);
  a.wall_ns = r.wall_ns;
  for (const record_strand& s : r.strands) {
    a.wall_ns = std::max(a.wall_ns, s.end_ns);
    if (s.thread >= r.threads.size()) continue;
    ++count[s.thread];
    in_strands[s.thread] += s.end_ns - s.start_ns;
  }
  // The compensation is in the report's unit: ns on the timed clocks; the cost
  // clock has none.
  const double per_strand = rep.unit == "ns" ? rep.compensation_per_strand : 0.0;
  for (std::uint32_t t = 0; t < r.threads.size(); ++t) {
    if (count[t] == 0) continue;
    thread_time o;
    o.thread = t;
    o.os_id = r.threads[t].os_id;
    o.strands = count[t];
    const double comp = per_strand > 0 ? per_strand * static_cast<double>(count[t]) + 0.5 : 0.0;
    o.profiler_ns = std::min<std::uint64_t>(in_strands[t], static_cast<std::uint64_t>(comp));
    o.busy_ns = in_strands[t] - o.profiler_ns;
    o.idle_ns = a.wall_ns - in_strands[t];
    a.threads.push_back(o);
  }
  a.processors = static_cast<std::uint32_t>(a.threads.size());
}

// The samples: one at each change of (running, ready).
inline void fill_samples(timeline_analysis& a, const sweep_result& sw) {
  for (std::size_t k = 0; k < sw.time.size(); ++k) {
    if (!a.samples.empty() && a.samples.back().running == sw.running[k] && a.samples.back().ready == sw.ready[k])
      continue;
    a.samples.push_back(parallelism_sample{sw.time[k], sw.running[k], sw.ready[k]});
  }
}

// The blame rows: one per site a strand ran in or a sync waited at.
inline void fill_blame(timeline_analysis& a, const execution_record& r, const sweep_result& sw) {
  constexpr std::int64_t measurement = -1, nothing = -2, unknown = -3;
  std::vector<idle_blame_row> rows;
  std::vector<long double> idle;  // per row, before rounding
  const auto make_row = [&](std::int64_t key) {
    idle_blame_row row;
    if (key == measurement) {
      row.kind = idle_blame_row::kind_type::measurement;
      row.name = "(root)";
    } else if (key == nothing) {
      row.kind = idle_blame_row::kind_type::nothing_running;
      row.name = "(nothing running)";
    } else if (key == unknown) {
      row.name = "(unknown site)";
    } else {
      const record_site& s = r.sites[static_cast<std::size_t>(key)];
      row.name = s.name;
      row.file = s.file;
      row.line = s.line;
      row.function = s.function;
      row.tag = s.tag;
    }
    rows.push_back(row);
    idle.push_back(0);
  };
  // A row per site index, then the three others.
  std::vector<std::int64_t> row_index(r.sites.size() + 3, -1);
  const auto row_of = [&](std::int64_t key) {
    if (key >= 0 && static_cast<std::size_t>(key) >= r.sites.size()) key = unknown;
    const std::size_t slot =
        key >= 0 ? static_cast<std::size_t>(key) : r.sites.size() + static_cast<std::size_t>(-key - 1);
    if (row_index[slot] < 0) {
      row_index[slot] = static_cast<std::int64_t>(rows.size());
      make_row(key);
    }
    return static_cast<std::size_t>(row_index[slot]);
  };
  const std::vector<long double> per_strand = strand_blame(r, sw);
  for (std::size_t i = 0; i < r.strands.size(); ++i) {
    const std::uint32_t f = r.strands[i].frame;
    if (!(per_strand[i] > 0)) continue;
    const std::size_t row = row_of(f == 0 || f >= r.frames.size() ? measurement : std::int64_t(r.frames[f].site));
    idle[row] += per_strand[i];
    ++rows[row].strands;
  }
  if (sw.idle_nothing_running > 0) idle[row_of(nothing)] += static_cast<long double>(sw.idle_nothing_running);
  const std::vector<std::uint64_t> waits = sync_waits(r, strands_by_thread(r));
  for (std::size_t j = 0; j < r.joins.size(); ++j) {
    if (waits[j] == 0) continue;
    const std::int64_t site = r.joins[j].site;
    const std::size_t row = row_of(site >= 0 ? site : unknown);
    rows[row].sync_wait_ns += waits[j];
    ++rows[row].syncs;
  }
  const std::vector<std::uint64_t> shares = rounded_shares(idle, sw.idle_ns);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].idle_ns = shares[i];
  std::stable_sort(rows.begin(), rows.end(), [](const idle_blame_row& x, const idle_blame_row& y) {
    return x.idle_ns != y.idle_ns ? x.idle_ns > y.idle_ns : x.sync_wait_ns > y.sync_wait_ns;
  });
  a.blame = std::move(rows);
}

}  // namespace blame
}  // namespace detail

FORKSCALE_INLINE timeline_analysis analyze_timeline(const report& rep) {
  timeline_analysis a;
  if (!rep.record) return a;
  namespace db = detail::blame;
  const execution_record& r = *rep.record;
  a.recorded = true;
  a.complete = r.complete;
  db::fill_threads(a, rep, r);
  const std::vector<std::uint64_t> ready = db::ready_times(r, db::join_done_times(r));
  const db::sweep_result sw = db::sweep(r, ready, a.processors, a.wall_ns);
  db::fill_samples(a, sw);
  db::fill_blame(a, r, sw);
  return a;
}

FORKSCALE_NAMESPACE_END

// The analysis as text and CSV: fs::timeline_text, parallelism_csv,
// thread_times_csv, idle_blame_csv and their write_* functions.
#include "detail/output/blame_csv.hpp"
#include "detail/output/blame_text.hpp"
#endif  // FORKSCALE_DETAIL_DEFINES
