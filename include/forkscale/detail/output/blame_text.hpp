// detail/output/blame_text.hpp: fs::analyze_timeline's results (blame.hpp) as
// text: parallelism over time with the per-thread times, and idle blame;
// fs::timeline_text, and the sections report::to_text adds for a recorded run.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../../timeline.hpp"
#include "format.hpp"
#include "site_tables.hpp"
#include "text_table.hpp"
#include "trace_plan.hpp"
#include "utf8.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

inline std::string share_of(std::uint64_t part, std::uint64_t whole) {
  return whole ? percent_text(100.0 * static_cast<double>(part) / static_cast<double>(whole)) : std::string("n/a");
}

// Time with k strands running, for each k that occurred.
inline std::string running_table(const timeline_analysis& a) {
  const std::vector<std::uint64_t> hist = a.running_histogram();
  return fitted_columns([&](bool short_numbers) {
    text_table t({"running", "time", "% of wall"});
    for (std::size_t k = 0; k < hist.size(); ++k)
      if (hist[k] > 0) t.add({std::to_string(k), count_text(hist[k], short_numbers), share_of(hist[k], a.wall_ns)});
    return t;
  });
}

inline std::string thread_table(const timeline_analysis& a, std::size_t top_n) {
  const std::size_t shown = a.threads.size() < top_n ? a.threads.size() : top_n;
  std::string out = fitted_columns([&](bool short_numbers) {
    text_table t({"thread", "tid", "strands", "busy", "%", "profiler", "idle", "%"});
    for (std::size_t i = 0; i < shown; ++i) {
      const thread_time& h = a.threads[i];
      t.add({std::to_string(h.thread), std::to_string(h.os_id), count_text(h.strands, short_numbers),
             count_text(h.busy_ns, short_numbers), percent_text(h.busy_percent()),
             count_text(h.profiler_ns, short_numbers), count_text(h.idle_ns, short_numbers),
             percent_text(h.idle_percent())});
    }
    return t;
  });
  if (shown < a.threads.size()) out += "  (" + grouped(a.threads.size() - shown) + " more threads not shown)\n";
  return out;
}

inline text_section parallelism_section(const timeline_analysis& a) {
  text_section s;
  s.heading = "Parallelism over time (wall-clock ns; P = " + std::to_string(a.processors) + " thread" +
              (a.processors == 1 ? "" : "s") + " ran strands)";
  s.body =
      wrapped("Wall time " + grouped(a.wall_ns) + " ns. Strands running on average: " + fixed(a.average_running(), 2) +
                  " of " + std::to_string(a.processors) +
                  "; ready but not started (waiting for a thread): " + fixed(a.average_ready(), 2) + ".",
              "  ", "  ");
  if (!a.complete) s.body += "  The record is partial (options.record_limit): so are these numbers.\n";
  s.body += running_table(a);
  s.body += thread_table(a, 16);
  s.body += wrapped(
      "running: time with that many strands running at once. Per thread: busy = in strands of the "
      "measurement, less profiler = the overhead compensation of its strands (0 under the cost clock); "
      "idle = the rest of the wall time (waiting in a sync, looking for work, or running other code). "
      "P counts the threads that ran strands: a worker that never got a task is not seen.",
      "  ", "  ");
  return s;
}

inline std::string blame_label(const idle_blame_row& b, std::size_t width) {
  if (b.kind != idle_blame_row::kind_type::site) return b.name;
  return site_label(site_kind::call, b.name, b.function, false, width);
}

inline text_section idle_blame_section(const timeline_analysis& a, std::size_t top_n) {
  text_section s;
  s.heading = "Idle blame (blame shifting; times in ns of wall time)";
  const std::uint64_t idle = a.idle_ns();
  std::vector<const idle_blame_row*> blamed, waited;
  for (const idle_blame_row& b : a.blame) {
    if (b.idle_ns > 0) blamed.push_back(&b);
    if (b.sync_wait_ns > 0) waited.push_back(&b);
  }
  std::stable_sort(waited.begin(), waited.end(),
                   [](const idle_blame_row* x, const idle_blame_row* y) { return x->sync_wait_ns > y->sync_wait_ns; });
  s.body = wrapped("Total idle " + grouped(idle) + " ns (" + share_of(idle, a.wall_ns * a.processors) +
                       "% of P x wall time), blamed on the code that ran meanwhile:",
                   "  ", "  ");
  const std::size_t n_blamed = blamed.size() < top_n ? blamed.size() : top_n;
  s.body += fitted_site_columns([&](bool short_numbers, std::size_t width) {
    text_table t({"site", "idle blame", "%", "strands"});
    for (std::size_t i = 0; i < n_blamed; ++i)
      t.add({blame_label(*blamed[i], width), count_text(blamed[i]->idle_ns, short_numbers),
             share_of(blamed[i]->idle_ns, idle), count_text(blamed[i]->strands, short_numbers)});
    return t;
  });
  s.body += not_shown_note(blamed.size() - n_blamed, "site");
  if (!waited.empty()) {
    s.body += "  Where threads waited, at sync points (running nothing else):\n";
    const std::size_t n_waited = waited.size() < top_n ? waited.size() : top_n;
    s.body += fitted_site_columns([&](bool short_numbers, std::size_t width) {
      text_table t({"sync point", "wait", "% of idle", "waits"});
      for (std::size_t i = 0; i < n_waited; ++i)
        t.add({blame_label(*waited[i], width), count_text(waited[i]->sync_wait_ns, short_numbers),
               share_of(waited[i]->sync_wait_ns, idle), count_text(waited[i]->syncs, short_numbers)});
      return t;
    });
    s.body += not_shown_note(waited.size() - n_waited, "sync point");
  }
  s.body += wrapped(
      "HPCToolkit's blame shifting: while k of the P threads run strands, the other P - k threads' idle "
      "time is charged to the k running strands equally, and so to their sites (a strand's innermost call "
      "or spawn site; (root): the measured function's own code): the serial stretches that left the others "
      "nothing to do. (nothing running): no thread ran a strand. Sync points: the time a thread waited "
      "there for children, less the time it ran other strands meanwhile; part of the idle time above.",
      "  ", "  ");
  return s;
}

// The two sections of a recorded report (none without a record).
inline std::vector<text_section> timeline_sections(const report& rep) {
  std::vector<text_section> out;
  const timeline_analysis a = analyze_timeline(rep);
  if (!a.recorded || a.processors == 0) return out;
  out.push_back(parallelism_section(a));
  // What a trace of this record folds (trace_plan.hpp), when it folds anything.
  const trace_plan plan = plan_trace(*rep.record, false);
  if (plan.bounded) out.back().body += wrapped("Trace: " + trace_plan_summary(plan) + ".", "  ", "  ");
  out.push_back(idle_blame_section(a, 10));
  return out;
}

}  // namespace output
}  // namespace detail

// The analysis as text, as report::to_text shows it (two numbered sections
// there); empty without a record.
#if FORKSCALE_DETAIL_DEFINES(views)
FORKSCALE_INLINE std::string timeline_text(const report& rep) {
  std::string out;
  for (const auto& s : detail::output::timeline_sections(rep))
    out += (out.empty() ? "" : "\n") + s.heading + "\n" + s.body;
  return out;
}
#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
