// detail/output/blame_csv.hpp: fs::analyze_timeline's results (blame.hpp) as
// CSV, with the stable headers of docs/report-schema.md: the parallelism
// samples, the per-thread times and the idle blame rows; and the write_*
// functions that put them in files.
#pragma once
#include <cstdint>
#include <string>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../../timeline.hpp"
#include "../util/atomic_file.hpp"
#include "csv.hpp"
#include "format.hpp"

FORKSCALE_NAMESPACE_BEGIN

// The analysis as CSV (docs/report-schema.md): the samples, the threads, the
// blame rows. Without a record: the header line only.
#if FORKSCALE_DETAIL_DEFINES(views)
FORKSCALE_INLINE std::string parallelism_csv(const report& rep) {
  namespace io = detail::output;
  std::string out = "time_ns,running,ready\n";
  for (const parallelism_sample& s : analyze_timeline(rep).samples)
    out += io::csv_number(s.time_ns) + ',' + std::to_string(s.running) + ',' + std::to_string(s.ready) + '\n';
  return out;
}

FORKSCALE_INLINE std::string thread_times_csv(const report& rep) {
  namespace io = detail::output;
  std::string out = "thread,os_id,strands,busy_ns,profiler_ns,idle_ns,busy_percent,profiler_percent,idle_percent\n";
  for (const thread_time& t : analyze_timeline(rep).threads)
    out += std::to_string(t.thread) + ',' + io::csv_number(t.os_id) + ',' + io::csv_number(t.strands) + ',' +
           io::csv_number(t.busy_ns) + ',' + io::csv_number(t.profiler_ns) + ',' + io::csv_number(t.idle_ns) + ',' +
           io::csv_number(t.busy_percent()) + ',' + io::csv_number(t.profiler_percent()) + ',' +
           io::csv_number(t.idle_percent()) + '\n';
  return out;
}

FORKSCALE_INLINE std::string idle_blame_csv(const report& rep) {
  namespace io = detail::output;
  const timeline_analysis a = analyze_timeline(rep);
  const std::uint64_t idle = a.idle_ns();
  std::string out = "kind,name,file,line,function,tag,idle_ns,idle_percent,strands,sync_wait_ns,syncs\n";
  for (const idle_blame_row& b : a.blame) {
    const double percent = idle ? 100.0 * static_cast<double>(b.idle_ns) / static_cast<double>(idle) : 0.0;
    out += io::csv_text(to_string(b.kind)) + ',' + io::csv_text(b.name) + ',' + io::csv_text(b.file) + ',' +
           io::csv_number(static_cast<std::uint64_t>(b.line)) + ',' + io::csv_text(b.function) + ',' +
           io::csv_text(b.tag) + ',' + io::csv_number(b.idle_ns) + ',' + io::csv_number(percent) + ',' +
           io::csv_number(b.strands) + ',' + io::csv_number(b.sync_wait_ns) + ',' + io::csv_number(b.syncs) + '\n';
  }
  return out;
}
#endif  // FORKSCALE_DETAIL_DEFINES

// Each replaces the file atomically; throws forkscale::error.
#if FORKSCALE_DETAIL_DEFINES(views)
FORKSCALE_INLINE void write_parallelism_csv(const report& rep, const std::string& path) {
  detail::write_file_atomically(path, parallelism_csv(rep));
}
FORKSCALE_INLINE void write_thread_times_csv(const report& rep, const std::string& path) {
  detail::write_file_atomically(path, thread_times_csv(rep));
}
FORKSCALE_INLINE void write_idle_blame_csv(const report& rep, const std::string& path) {
  detail::write_file_atomically(path, idle_blame_csv(rep));
}
#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
