// timeline.hpp: the types and functions of the timeline analysis and idle
// blame (blame.hpp, which a program includes; docs/blame.md):
// fs::analyze_timeline, timeline_text and the CSV writers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config.hpp"
#include "record.hpp"
#include "report.hpp"

FORKSCALE_NAMESPACE_BEGIN

// The strands running and ready from one moment until the next sample.
struct parallelism_sample {
  std::uint64_t time_ns = 0;  // since the measurement started
  std::uint32_t running = 0;  // strands running
  std::uint32_t ready = 0;    // strands whose predecessors are done, not yet started
};

// Where one thread's share of the measurement's wall time went:
// busy_ns + profiler_ns + idle_ns = the wall time.
struct thread_time {
  std::uint32_t thread = 0;  // index into execution_record::threads
  std::uint64_t os_id = 0;   // the operating system's id of the thread
  std::uint64_t strands = 0;
  std::uint64_t busy_ns = 0;      // in its strands, less the profiler's share
  std::uint64_t profiler_ns = 0;  // the overhead compensation of its strands
  std::uint64_t idle_ns = 0;      // not in a strand of the measurement

  std::uint64_t wall_ns() const noexcept { return busy_ns + profiler_ns + idle_ns; }
  double busy_percent() const noexcept { return percent(busy_ns); }
  double profiler_percent() const noexcept { return percent(profiler_ns); }
  double idle_percent() const noexcept { return percent(idle_ns); }

 private:
  double percent(std::uint64_t v) const noexcept {
    return wall_ns() ? 100.0 * static_cast<double>(v) / static_cast<double>(wall_ns()) : 0.0;
  }
};

// Idle time charged to one site: the idle time of other threads while its
// strands ran (idle_ns, undirected blame), and the time threads waited in its
// sync points (sync_wait_ns). The rows' idle_ns add up to the threads' idle time.
struct idle_blame_row {
  enum class kind_type : unsigned char {
    site,             // a call, spawn or sync site
    measurement,      // strands of the measured function outside any call or spawn site
    nothing_running,  // time when no thread ran a strand: charged to no code
  };
  kind_type kind = kind_type::site;
  std::string name;  // the tag, or file:line; "(root)" and "(nothing running)" for the other kinds
  std::string file;
  unsigned line = 0;
  std::string function;
  std::string tag;
  std::uint64_t idle_ns = 0;       // idle time blamed on its strands
  std::uint64_t strands = 0;       // its strands that ran while some thread idled
  std::uint64_t sync_wait_ns = 0;  // time threads waited in its sync points, running nothing
  std::uint64_t syncs = 0;         // its syncs that waited
};

inline const char* to_string(idle_blame_row::kind_type k) noexcept {
  return k == idle_blame_row::kind_type::site          ? "site"
         : k == idle_blame_row::kind_type::measurement ? "measurement"
                                                       : "nothing_running";
}

// Everything fs::analyze_timeline finds in a recorded run.
struct timeline_analysis {
  bool recorded = false;                    // the report had a record (else everything below is empty)
  bool complete = true;                     // the record was complete (else the views are partial)
  std::uint64_t wall_ns = 0;                // the measurement's wall time
  std::uint32_t processors = 0;             // P: threads that ran strands
  std::vector<parallelism_sample> samples;  // from time 0, one per change
  std::vector<thread_time> threads;         // one per thread that ran strands
  // Rows with idle blame, by idle_ns, largest first; then rows with sync waits
  // only, by sync_wait_ns.
  std::vector<idle_blame_row> blame;

  std::uint64_t busy_ns() const noexcept { return sum(&thread_time::busy_ns); }
  std::uint64_t profiler_ns() const noexcept { return sum(&thread_time::profiler_ns); }
  std::uint64_t idle_ns() const noexcept { return sum(&thread_time::idle_ns); }
  // Strands running on average: time in strands / wall time.
  double average_running() const noexcept {
    return wall_ns ? static_cast<double>(busy_ns() + profiler_ns()) / static_cast<double>(wall_ns) : 0.0;
  }
  // Strands ready and not started, on average over the wall time.
  double average_ready() const noexcept { return average(&parallelism_sample::ready); }
  // Time with k strands running, for k = 0 .. the most that ran at once.
  std::vector<std::uint64_t> running_histogram() const {
    std::vector<std::uint64_t> out;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const std::uint64_t end = i + 1 < samples.size() ? samples[i + 1].time_ns : wall_ns;
      if (out.size() <= samples[i].running) out.resize(samples[i].running + 1, 0);
      if (end > samples[i].time_ns) out[samples[i].running] += end - samples[i].time_ns;
    }
    return out;
  }

 private:
  std::uint64_t sum(std::uint64_t thread_time::*m) const noexcept {
    std::uint64_t s = 0;
    for (const thread_time& t : threads) s += t.*m;
    return s;
  }
  double average(std::uint32_t parallelism_sample::*m) const noexcept {
    if (!wall_ns) return 0.0;
    double s = 0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const std::uint64_t end = i + 1 < samples.size() ? samples[i + 1].time_ns : wall_ns;
      if (end > samples[i].time_ns)
        s += static_cast<double>(samples[i].*m) * static_cast<double>(end - samples[i].time_ns);
    }
    return s / static_cast<double>(wall_ns);
  }
};

// Parallelism over time, per-thread times and idle blame of a recorded report
// (see the top of this file). A report without a record gives an analysis with
// `recorded` false and nothing in it.
FORKSCALE_INLINE timeline_analysis analyze_timeline(const report& rep);

// The analysis as text, as report::to_text shows it (two numbered sections
// there); empty without a record.
FORKSCALE_INLINE std::string timeline_text(const report& rep);

// The analysis as CSV (docs/report-schema.md): the samples, the threads, the
// blame rows. Without a record: the header line only.
FORKSCALE_INLINE std::string parallelism_csv(const report& rep);
FORKSCALE_INLINE std::string thread_times_csv(const report& rep);
FORKSCALE_INLINE std::string idle_blame_csv(const report& rep);
FORKSCALE_INLINE void write_parallelism_csv(const report& rep, const std::string& path);
FORKSCALE_INLINE void write_thread_times_csv(const report& rep, const std::string& path);
FORKSCALE_INLINE void write_idle_blame_csv(const report& rep, const std::string& path);

FORKSCALE_NAMESPACE_END
