// report.hpp: the numbers a measurement produces, and where they go.
//
// One rule for every type here: stored data are members, values derived from
// them are functions. rep.regions, rep.diagnostics and a row's work are what
// the measurement recorded; rep.work() (the root row's work), parallelism()
// and speedup_estimate() are computed when asked. The exceptions are derived
// values kept as members because 0.1 code and the JSON use them as such:
// report::compensation_total, spawn_site_profile::critical_percent,
// what_if_result::parallelism and gain, and the bounds of a speedup_bound (a
// value that speedup_estimate() returns). docs/report-schema.md lists them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "clock.hpp"
#include "config.hpp"
#include "record.hpp"

FORKSCALE_NAMESPACE_BEGIN

// Thrown when a report cannot be written or read. The message is one line that
// names the file and the problem.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Misuse of the guards, found while the program ran. `where` names the site
// ("file.cpp:42 in fib"), `problem` says what was wrong.
struct diagnostic {
  std::string where;
  std::string problem;
};

// One line of Cilkview's speedup estimate (§3, Corollary 2 with δ = 0.85):
// lower = T1 / (T1/P + 1.7 · burdened span), upper = min(P, parallelism).
struct speedup_bound {
  unsigned processors = 0;
  double lower = 0;
  double upper = 0;
};

// A region's label as it stands in a path: a backslash or a '/' inside it gets a
// backslash before it, so that a path (labels joined by '/') names one region
// whatever its labels hold: the region "a/b" inside "m" is m/a\/b, the region "b"
// inside a region "a" inside "m" is m/a/b. report::find takes paths so escaped.
inline std::string escape_region_label(const std::string& label) {
  std::string out;
  out.reserve(label.size());
  for (char c : label) {
    if (c == '\\' || c == '/') out += '\\';
    out += c;
  }
  return out;
}

// Work and span of one labeled region, summed over its instances. All times are in
// the report's unit (ns for timed clocks, units for the cost clock).
struct region_result {
  std::string label;   // the region's own label
  std::string path;    // labels from the outermost region, escaped (escape_region_label) and joined by '/'
  std::string parent;  // the enclosing region's path; empty for the root
  unsigned depth = 0;  // 0 for the root
  std::uint64_t instances = 0;
  std::uint64_t work = 0;
  std::uint64_t span = 0;
  std::uint64_t burdened_span = 0;
  std::uint64_t spawns = 0;
  std::uint64_t syncs = 0;
  std::uint64_t calls = 0;
  // Before overhead compensation (equal to work/span under the cost clock).
  std::uint64_t raw_work = 0;
  std::uint64_t raw_span = 0;

  double parallelism() const noexcept { return span ? static_cast<double>(work) / static_cast<double>(span) : 0.0; }
  double burdened_parallelism() const noexcept {
    return burdened_span ? static_cast<double>(work) / static_cast<double>(burdened_span) : 0.0;
  }
  // Cilkview: work / (1 + 2·spawns + syncs).
  double average_maximal_strand() const noexcept {
    return static_cast<double>(work) / static_cast<double>(1 + 2 * spawns + syncs);
  }
  // P = 2, 4, 8, ... up to max_processors (inclusive when it is not a power of two).
  std::vector<speedup_bound> speedup_estimate(unsigned max_processors = 32) const {
    std::vector<speedup_bound> out;
    if (max_processors < 2) return out;
    for (unsigned p = 2;;) {
      speedup_bound b;
      b.processors = p;
      const double t1 = static_cast<double>(work);
      const double par = parallelism();
      b.upper = par < p ? par : static_cast<double>(p);
      const double denom = t1 / p + 1.7 * static_cast<double>(burdened_span);
      b.lower = denom > 0 ? t1 / denom : 0.0;
      if (b.lower > b.upper) b.lower = b.upper;
      out.push_back(b);
      if (p >= max_processors) break;
      p = p * 2 > max_processors ? max_processors : p * 2;
    }
    return out;
  }
};

// One measurement of a site (Cilkprof §6): how many invocations it aggregates,
// the sum of their work and the sum of their spans. Spans are signed because a
// local span can be negative in programs that join, inside an invocation, tasks
// spawned before it (see docs/model.md); in Cilk-style code none is.
struct site_measure {
  std::uint64_t count = 0;
  std::uint64_t work = 0;
  std::int64_t span = 0;

  double parallelism() const noexcept { return span > 0 ? static_cast<double>(work) / static_cast<double>(span) : 0.0; }
};

// What kind of site a profile row is about.
enum class site_kind { root, call, spawn };
inline const char* to_string(site_kind k) noexcept {
  return k == site_kind::root ? "root" : k == site_kind::call ? "call" : "spawn";
}

// One row of the call-site profile (Cilkprof §4–§6). Every call_site guard and
// every spawned task is an invocation of its site; the measurement itself is the
// root row. "On work" aggregates every invocation, "on span" only those that end
// on the critical path. Top-call-site: invocations with no enclosing invocation of
// the same site; top-caller: invocations with no enclosing invocation of a site in
// the same function; local: every invocation, counting only the strands that
// belong to it directly (not to the invocations it makes).
struct call_site_profile {
  std::string name;  // the tag, or file:line (file without its directory)
  std::string file;  // as the compiler named it
  unsigned line = 0;
  std::string function;
  std::string tag;  // empty when the site has none
  site_kind kind = site_kind::call;
  bool recursive = false;  // some invocation ran inside another invocation of the same site

  site_measure top_call_site_on_work, top_caller_on_work, local_on_work;
  site_measure top_call_site_on_span, top_caller_on_span, local_on_span;
};

// One row of the spawn-site profile (TaskProf's ws_profile): the tasks spawned at
// a site, and the share of the critical path done by their own strands. The root
// row stands for the measured program's own task.
struct spawn_site_profile {
  std::string name;
  std::string file;
  unsigned line = 0;
  std::string function;
  std::string tag;
  site_kind kind = site_kind::spawn;  // root for the program's own row
  bool recursive = false;
  std::uint64_t tasks = 0;           // tasks spawned here
  std::uint64_t work = 0;            // summed over top-call-site tasks (no double counting)
  std::uint64_t span = 0;            // likewise
  std::uint64_t exclusive_work = 0;  // the tasks' own strands, all tasks
  std::int64_t critical_span = 0;    // the tasks' own strands on the critical path
  double critical_percent = 0;       // critical_span as a percentage of the span

  double parallelism() const noexcept { return span ? static_cast<double>(work) / static_cast<double>(span) : 0.0; }
};

// One what-if prediction (docs/model.md, "What-if regions"): the whole program's
// work, span and parallelism if the strands of a region (or of every region
// together) were `factor` times faster. Two models: "parallelized" (the region's
// contribution to every path divides by the factor, total work unchanged —
// TaskProf's model) and "optimized" (its work divides too). Times are in the
// report's unit; with infinity as the factor a region's strands cost nothing.
enum class what_if_model { parallelized, optimized };
inline const char* to_string(what_if_model m) noexcept {
  return m == what_if_model::parallelized ? "parallelized" : "optimized";
}

// Where a what-if region comes from.
enum class what_if_source { all, region, call_site };
inline const char* to_string(what_if_source s) noexcept {
  return s == what_if_source::all ? "all" : s == what_if_source::region ? "region" : "call_site";
}

struct what_if_result {
  std::string region;  // "(all regions)", the region's tag or file:line, or the named call site's text
  what_if_source source = what_if_source::all;
  std::string file;  // where the region is (for a named call site: the first matching
                     // site to run, which on several threads may be any of them)
  unsigned line = 0;
  std::string function;
  std::string tag;
  what_if_model model = what_if_model::parallelized;
  double factor = 1;              // may be infinity
  bool executed = false;          // false: named but never entered; the numbers below are 0
  std::uint64_t entries = 0;      // outermost entries of the region (all regions: their sum)
  std::uint64_t region_work = 0;  // work of the strands inside the region, before the speedup
  double work = 0;                // predicted work (the measured work when parallelized)
  double span = 0;                // predicted span
  double burdened_span = 0;       // predicted span plus the measured path's burden (an estimate)
  double parallelism = 0;         // work / span; infinity when the span drops to 0
  double gain = 0;                // parallelism / the measured parallelism
  // The predicted span exactly, in clock ticks: span_ticks_num / span_ticks_den
  // (under the cost clock ticks are the report's units).
  std::int64_t span_ticks_num = 0;
  std::int64_t span_ticks_den = 1;

  // Cilkview's bounds (speedup_bound) for the predicted program.
  speedup_bound speedup_at(unsigned processors) const noexcept {
    speedup_bound b;
    b.processors = processors;
    const double p = static_cast<double>(processors);
    b.upper = parallelism < p ? parallelism : p;
    const double denom = work / p + 1.7 * burdened_span;
    b.lower = denom > 0 ? work / denom : 0.0;
    if (b.lower > b.upper) b.lower = b.upper;
    return b;
  }
};

// One row of the lock profile (fs::mutex and the forkscale lock guards,
// mutex.hpp; docs/blame.md): the acquisitions of one lock at one site made by
// threads running tasks of the measurement. Times are wall-clock nanoseconds
// whatever the report's clock (the cost clock too).
struct lock_site_profile {
  std::string lock;  // the lock: its label, or file:line where it was made (another
                     // lockable: the guard's site, as `name`)
  std::string name;  // where it was acquired: the tag, or file:line
  std::string file;
  unsigned line = 0;
  std::string function;
  std::string tag;
  std::uint64_t acquisitions = 0;
  std::uint64_t contended = 0;  // acquisitions that found it taken and waited
  std::uint64_t wait_ns = 0, max_wait_ns = 0;
  std::uint64_t hold_ns = 0, max_hold_ns = 0;
  // Directed blame shifting (HPCToolkit): the waits of other acquisitions that
  // began while this site held the lock, charged to this critical section.
  std::uint64_t blamed_wait_ns = 0;
  std::uint64_t blamed_waits = 0;
  // From the record (0 without options.record): holds that lie in strands on
  // the critical path, and how much of their hold and wait time does.
  std::uint64_t critical_holds = 0;
  std::uint64_t critical_hold_ns = 0;
  std::uint64_t critical_wait_ns = 0;
};

// How busy the machine was while a measurement ran, from the scheduler's own
// counters for the process's threads (Linux: /proc/self/task/*/schedstat and
// sched, getrusage; elsewhere not checked). Under a wall clock (tsc, steady,
// arm_counter) a strand that waits for a CPU counts the wait as work, so work and
// span inflate by amounts that depend on the scheduler; thread_cpu and cost are
// not affected.
struct load_check {
  bool checked = false;                    // false under the cost clock or where the counters are missing
  std::uint64_t involuntary_switches = 0;  // the process's threads were preempted this many times
  std::uint64_t migrations = 0;            // ... and moved between CPUs this many times
  std::uint64_t wait_ns = 0;               // time they were ready to run but waited for a CPU
  unsigned runnable_at_start = 0;          // other processes' threads ready to run as the measurement began
  unsigned hardware_threads = 0;
  bool clock_chosen_for_load = false;  // `automatic` chose thread_cpu because the machine was oversubscribed
  bool inflated = false;               // the wait could have inflated the numbers (see warning())

  // One line when the numbers may be inflated (or the clock was chosen because of
  // the load), else empty.
  std::string warning() const {
    if (clock_chosen_for_load)
      return "forkscale: the machine was oversubscribed (" + std::to_string(runnable_at_start) +
             " threads of other processes ready to run on " + std::to_string(hardware_threads) +
             " hardware threads), so the automatic clock measured thread CPU time (thread_cpu)";
    if (!inflated) return std::string();
    return "forkscale: the machine was busy: the measured threads waited " + std::to_string(wait_ns / 1000) +
           " us for a CPU (" + std::to_string(involuntary_switches) + " preemptions, " + std::to_string(migrations) +
           " migrations), which a wall clock counts as work; work and span may be inflated (use "
           "clock_kind::thread_cpu on a busy machine)";
  }
};

// Which costs a folded-stack file (report::to_folded) adds up: every strand's
// work, or the spans of the critical path's strands (docs/record.md).
enum class folded_kind { work, critical_path };

// The result of one measurement: the root region (the whole measured program)
// first, then nested regions in depth-first order.
struct report {
  std::string label;
  std::string unit = "units";  // "ns" or "units"
  clock_kind clock = clock_kind::cost;
  std::uint64_t burden = 0;            // per continuation edge, in `unit`
  double compensation_per_strand = 0;  // subtracted from every strand, in `unit`
  // How far compensation_per_strand may be off on one strand, in `unit`: the
  // spread of its start-up measurement. Work may be off by up to this much per
  // strand (report::work_uncertainty()); 0 when not compensating.
  double compensation_residual = 0;
  std::uint64_t compensation_total = 0;  // raw work − work, in `unit`
  unsigned max_processors = 32;          // extent of the speedup estimate
  std::size_t profiler_bytes = 0;        // peak memory held by the engine's pools
  // Where the burden came from: "measured <backend>" (fs::calibrate_burden's
  // figure stored on this machine for the report's backend), "option"
  // (options.burden), "default" (Cilkview's 15,000 cycles; under the cost clock
  // 15,000 units, a choice the user makes, see docs/predict.md); empty in
  // reports written before it was kept.
  std::string burden_source;
  // Why a calibration stored for the backend was not used: it was measured on
  // another machine, or does not say on which (docs/predict.md); else empty.
  std::string burden_note;
  // The parallel library the measurement ran on: options.backend when it names
  // one, else the library of the first spawn made through an adapter
  // (options.backend automatic); then '+' and every other library spawns came
  // through ("std_thread+tbb": mixed, the burden is the first one's). Empty
  // when none is known (only the guards spawned), and in older reports.
  std::string backend;
  std::vector<region_result> regions;
  std::vector<diagnostic> diagnostics;  // the first ones found (see diagnostic_count)
  std::uint64_t diagnostic_count = 0;
  load_check load;  // how busy the machine was (timed clocks)
  // Per-site profiles of the whole measurement (empty for a nested region's report
  // or with options.site_profiles off). The root row comes first; the other rows
  // are sorted by local span on span, largest first.
  std::vector<call_site_profile> call_sites;
  std::vector<spawn_site_profile> spawn_sites;
  // What-if predictions (empty when no what-if region was entered or named): the
  // all-regions rows first, then each region's, each at every factor of
  // options.what_if.factors, parallelized then optimized.
  std::vector<what_if_result> what_if;
  // The lock profile (mutex.hpp), by total wait, largest first; empty when no
  // measured thread took an fs::mutex or a forkscale lock guard.
  std::vector<lock_site_profile> locks;
  // The strand graph (options::record), or null when the measurement was not
  // recorded. Shared: copies of a report share one record, which never changes;
  // it is built from the measurement's buffers the first time it is read
  // (record_ptr, record.hpp).
  record_ptr record;
  // The rows for one region ("(all regions)", a tag, file:line or named call site).
  std::vector<const what_if_result*> what_if_rows(const std::string& region) const {
    std::vector<const what_if_result*> out;
    for (const auto& w : what_if)
      if (w.region == region) out.push_back(&w);
    return out;
  }

  bool empty() const noexcept { return regions.empty(); }
  // The whole measurement's row; a row of zeros when nothing was measured (as
  // work() and span() are 0), so that a build with FORKSCALE_ENABLE=0 runs.
  const region_result& root() const noexcept {
    static const region_result none{};
    return regions.empty() ? none : regions.front();
  }
  // The row with this path ("outer/inner"), or nullptr.
  const region_result* find(const std::string& path) const noexcept {
    for (const auto& r : regions)
      if (r.path == path) return &r;
    return nullptr;
  }

  std::uint64_t work() const noexcept { return empty() ? 0 : regions.front().work; }
  std::uint64_t span() const noexcept { return empty() ? 0 : regions.front().span; }
  std::uint64_t burdened_span() const noexcept { return empty() ? 0 : regions.front().burdened_span; }
  std::uint64_t spawns() const noexcept { return empty() ? 0 : regions.front().spawns; }
  std::uint64_t syncs() const noexcept { return empty() ? 0 : regions.front().syncs; }
  std::uint64_t calls() const noexcept { return empty() ? 0 : regions.front().calls; }
  double parallelism() const noexcept { return empty() ? 0 : regions.front().parallelism(); }
  double burdened_parallelism() const noexcept { return empty() ? 0 : regions.front().burdened_parallelism(); }
  double average_maximal_strand() const noexcept { return empty() ? 0 : regions.front().average_maximal_strand(); }
  // How far the work may be off because the compensation's estimate may be off
  // on every strand (compensation_residual × the strands: 1 + 2 x spawns +
  // syncs + 2 x calls), in `unit`; 0 when not compensating.
  double work_uncertainty() const noexcept {
    if (empty()) return 0;
    const region_result& r = regions.front();
    return compensation_residual * static_cast<double>(1 + 2 * r.spawns + r.syncs + 2 * r.calls);
  }
  // The profile's built-in self-checks (Cilkprof §2): local span on span summed
  // over the call-site rows (root included) equals the span, local work on work
  // summed equals the work, and the same for the spawn-site rows' critical and
  // exclusive columns. Returns an empty string when they hold (or there is no
  // profile), else one line saying which failed.
  std::string check_profile() const;

  std::vector<speedup_bound> speedup_estimate() const {
    return empty() ? std::vector<speedup_bound>{} : regions.front().speedup_estimate(max_processors);
  }

  // Output (detail/report_writers.hpp). The write_* functions replace the file
  // atomically (temporary file + rename) and throw forkscale::error on failure,
  // leaving no partial file behind.
  std::string to_text(bool show_raw = false) const;
  std::string to_json() const;
  std::string to_csv() const;
  void write_text(const std::string& path, bool show_raw = false) const;
  void write_json(const std::string& path) const;
  void write_csv(const std::string& path) const;
  // The profiles as CSV, one row per site, with stable headers (docs/report-schema.md).
  // The top `top_n` call sites by local span on span and the spawn-site table, as
  // the text report shows them (to_text includes this).
  std::string sites_text(std::size_t top_n = 10) const;
  std::string call_sites_csv() const;
  std::string spawn_sites_csv() const;
  void write_call_sites_csv(const std::string& path) const;
  void write_spawn_sites_csv(const std::string& path) const;
  // The what-if table as the text report shows it (empty without rows), and as
  // CSV, one row per region × factor × model.
  std::string what_if_text() const;
  std::string what_if_csv() const;
  void write_what_if_csv(const std::string& path) const;
  // Views of the record (docs/record.md; detail/output/trace.hpp, folded.hpp):
  // the Trace Event Format JSON that Perfetto and chrome://tracing open, and
  // folded stacks ("a;b;c count") for flame graphs. They throw forkscale::error
  // when the report has no record.
  std::string to_trace() const;
  void write_trace(const std::string& path) const;
  std::string to_folded(folded_kind which) const;
  void write_folded(const std::string& path, folded_kind which) const;
  // The lock profile as the text report shows it (empty without rows), and as
  // CSV, one row per lock and acquisition site (detail/output/lock_tables.hpp).
  std::string locks_text() const;
  std::string locks_csv() const;
  void write_locks_csv(const std::string& path) const;
};

FORKSCALE_INLINE std::ostream& operator<<(std::ostream& os, const report& r);

FORKSCALE_NAMESPACE_END
