// bench_record: what recording (options.record) costs.
//
//  - per event: a spawn cycle (spawn point, the child run inline, its close), a
//    sync with nothing to join and a call site, each timed over a loop inside one
//    fs::measure with recording off and on, in alternating batches (best of the
//    batches kept on each side), site profiles on (the default); the ratio on/off
//    and the extra ns per event;
//  - the record's size: bytes held while recording per strand recorded, on fib;
//  - the cost of building the record when the measurement ends, per strand;
//  - the trace (bench_record_trace.hpp): writing it, per strand (time, bytes,
//    memory above the record), whole and over a bound; and the quicksort of
//    10^6 (10^5 with --quick), under the automatic clock and under tsc, and of
//    10^7 (past the trace's bound; not with --quick) under the automatic clock,
//    with FORKSCALE_TRACE set against the unrecorded run, with the goals of 1 us
//    per strand, 1.5x the file in memory and 3x; the runs' peak memory against
//    1.5x the record's size plus the unrecorded run's.
//
//   bench_record [--quick] [--out FILE]        (default bench/results/record.json)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <forkscale/forkscale.hpp>

#include "bench_common.hpp"
#include "bench_record_trace.hpp"

namespace fs = forkscale;
using bench_common::json_out;

namespace {

volatile std::uint64_t sink = 0;

struct config {
  bool quick = false;
  std::string out = "bench/results/record.json";
  int batches = 7;
  int events = 200000;
};

fs::options options_for(bool record) {
  fs::options o;
  o.clock = fs::detail::resolve_automatic();  // what automatic is on a quiet machine
  o.record = record;
  o.check_load = false;
  o.record_limit = std::uint64_t(1) << 30;
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ns per event of one loop of `n` events of kind `what`, timed inside the
// measurement; the rest of the measure() call (building the report and the
// record) is returned in `finish_s`.
double time_loop(const std::string& what, int n, bool record, double& finish_s, std::size_t& strands) {
  double loop_s = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const fs::report rep = fs::measure(
      "bench",
      [&] {
        const auto l0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) {
          if (what == "spawn") {
            auto t = fs::spawn([] { sink = sink + 1; });
            t();
            if ((i & 63) == 63) fs::sync_point sp;
          } else if (what == "sync") {
            fs::sync_point sp;
          } else {
            fs::call_site cs;
            sink = sink + 1;
          }
        }
        fs::sync_point sp;
        loop_s = seconds_since(l0);
      },
      options_for(record));
  finish_s = seconds_since(t0) - loop_s;
  strands = rep.record ? rep.record->strands.size() : 0;
  return loop_s * 1e9 / n;
}

struct event_row {
  std::string name;
  double off_ns = 1e300, on_ns = 1e300;
  double finish_ns_per_strand = 1e300;
};

event_row measure_event(const config& cfg, const std::string& what) {
  event_row r;
  r.name = what;
  for (int b = 0; b < cfg.batches; ++b) {
    double finish = 0;
    std::size_t strands = 0;
    r.off_ns = std::min(r.off_ns, time_loop(what, cfg.events, false, finish, strands));
    r.on_ns = std::min(r.on_ns, time_loop(what, cfg.events, true, finish, strands));
    if (strands) r.finish_ns_per_strand = std::min(r.finish_ns_per_strand, finish * 1e9 / strands);
  }
  return r;
}

long fib(int n) {
  if (n < 2) return n;
  long x = 0, y = 0;
  auto t = fs::spawn([&] { x = fib(n - 1); });
  t();
  {
    fs::call_site cs;
    y = fib(n - 2);
  }
  fs::sync_point sp;
  return x + y;
}

struct size_row {
  int n = 0;
  std::uint64_t bytes = 0, strands = 0, joins = 0, tasks = 0;
};

size_row measure_size(int n) {
  size_row s;
  s.n = n;
  long v = 0;
  const fs::report rep = fs::measure(
      "fib", [&] { v = fib(n); }, options_for(true));
  sink = sink + static_cast<std::uint64_t>(v);
  s.bytes = rep.record->bytes;
  s.strands = rep.record->strands.size();
  s.joins = rep.record->joins.size();
  s.tasks = rep.record->tasks.size();
  return s;
}

struct trace_rows {
  std::vector<bench_trace::write_row> writes;
  std::vector<bench_trace::run_row> runs;  // the automatic clock, then tsc
};

trace_rows measure_trace(const config& cfg) {
  trace_rows t;
  const std::size_t n = cfg.quick ? 100000 : 1000000;
  const std::string path = cfg.out + ".trace.tmp.json";
  fs::report rep;
  bench_trace::quicksort_seconds(n, true, &rep);
  const std::string w = "quicksort(" + std::to_string(n) + ")";
  t.writes.push_back(bench_trace::write_trace_cost(rep, 0, path, w));
  t.writes.push_back(bench_trace::write_trace_cost(rep, rep.record->strands.size() / 10, path, w));
  rep = fs::report();
  for (const fs::clock_kind c : {fs::clock_kind::automatic, fs::clock_kind::tsc})
    t.runs.push_back(bench_trace::traced_quicksort(n, cfg.quick ? 1 : 3, path, c));
  // The size whose trace passes the default bound (10^7: 6 million strands).
  if (!cfg.quick) t.runs.push_back(bench_trace::traced_quicksort(10000000, 2, path, fs::clock_kind::automatic));
  return t;
}

void write_trace_json(json_out& j, const trace_rows& t) {
  j.begin_array("trace_write");
  for (const auto& w : t.writes) {
    j.begin_object();
    j.kv("workload", w.workload);
    j.kv("strands", w.strands);
    j.kv("trace_limit", w.limit);
    j.kv("bytes", w.bytes);
    j.kv("bytes_per_strand", static_cast<double>(w.bytes) / static_cast<double>(std::max<std::uint64_t>(1, w.strands)));
    j.kv("ns_per_strand", w.ns_per_strand);
    j.kv("cpu_ns_per_strand", w.cpu_ns_per_strand);
    j.kv("goal_ns_per_strand", 1000.0);
    if (w.memory_measured) {
      j.kv("memory_above_record_bytes", w.memory_above_record);
      j.kv("memory_over_file",
           static_cast<double>(w.memory_above_record) / static_cast<double>(std::max<std::uint64_t>(1, w.bytes)));
      j.kv("goal_memory_over_file", 1.5);
    }
    j.end_object();
  }
  j.end_array();
  j.begin_array("traced_quicksort");
  for (const auto& q : t.runs) {
    j.begin_object();
    j.kv("n", static_cast<std::uint64_t>(q.n));
    j.kv("clock", q.clock);
    j.kv("strands", q.strands);
    j.kv("trace_bytes", q.trace_bytes);
    j.kv("unrecorded_s", q.unrecorded_s);
    j.kv("traced_s", q.traced_s);
    j.kv("ratio", q.traced_s / q.unrecorded_s);
    j.kv("unrecorded_cpu_s", q.unrecorded_cpu_s);
    j.kv("traced_cpu_s", q.traced_cpu_s);
    j.kv("cpu_ratio", q.traced_cpu_s / q.unrecorded_cpu_s);
    j.kv("goal_ratio", 3.0);
    if (q.memory_measured) {
      j.kv("unrecorded_peak_bytes", q.unrecorded_peak);
      j.kv("traced_peak_bytes", q.traced_peak);
      j.kv("record_bytes", q.record_bytes);
      j.kv("peak_goal_bytes",
           static_cast<std::uint64_t>(1.5 * static_cast<double>(q.record_bytes)) + q.unrecorded_peak);
    }
    j.end_object();
  }
  j.end_array();
}

void print_trace(const trace_rows& t) {
  std::printf("trace: writing it (%s)\n", t.writes.empty() ? "" : t.writes.front().workload.c_str());
  for (const auto& w : t.writes)
    std::printf(
        "  trace_limit %-8llu %9llu strands, %11llu bytes (%.1f/strand), %.0f ns/strand wall, %.0f CPU (goal 1000), "
        "memory above the record %.2fx the file (goal 1.5)\n",
        static_cast<unsigned long long>(w.limit), static_cast<unsigned long long>(w.strands),
        static_cast<unsigned long long>(w.bytes),
        static_cast<double>(w.bytes) / static_cast<double>(std::max<std::uint64_t>(1, w.strands)), w.ns_per_strand,
        w.cpu_ns_per_strand,
        w.memory_measured
            ? static_cast<double>(w.memory_above_record) / static_cast<double>(std::max<std::uint64_t>(1, w.bytes))
            : -1.0);
  for (const auto& q : t.runs)
    std::printf(
        "  quicksort(%zu), clock %s, with FORKSCALE_TRACE: %.3f s against %.3f s unrecorded: x%.2f wall, x%.2f CPU "
        "(goal 3); %llu strands, %llu bytes; peak memory %.0f MB against %.0f MB unrecorded, record %.0f MB "
        "(goal %.0f MB)\n",
        q.n, q.clock.c_str(), q.traced_s, q.unrecorded_s, q.traced_s / q.unrecorded_s,
        q.traced_cpu_s / q.unrecorded_cpu_s, static_cast<unsigned long long>(q.strands),
        static_cast<unsigned long long>(q.trace_bytes), q.traced_peak / 1e6, q.unrecorded_peak / 1e6,
        q.record_bytes / 1e6,
        (1.5 * static_cast<double>(q.record_bytes) + static_cast<double>(q.unrecorded_peak)) / 1e6);
}

void write_json(const config& cfg, const std::vector<event_row>& rows, const std::vector<size_row>& sizes,
                const trace_rows& trace) {
  json_out j;
  j.begin_object();
  j.kv("benchmark", "bench_record");
  j.kv("mode", cfg.quick ? "quick" : "full");
  j.kv("date", bench_common::utc_now());
  j.kv("machine", bench_common::cpu_model());
  j.kv("cores", bench_common::cores());
  j.kv("compiler", bench_common::compiler_string());
  j.kv("method",
       "per event: best of the batches of a loop of events inside one fs::measure, recording off and on "
       "alternating, site profiles on, the automatic clock of a quiet machine (tsc where invariant); finish: the rest "
       "of the measure() call per strand "
       "recorded");
  j.begin_array("events");
  for (const auto& r : rows) {
    j.begin_object();
    j.kv("event", r.name);
    j.kv("record_off_ns", r.off_ns);
    j.kv("record_on_ns", r.on_ns);
    j.kv("ratio_on_off", r.on_ns / r.off_ns);
    j.kv("extra_ns", r.on_ns - r.off_ns);
    j.kv("finish_ns_per_strand", r.finish_ns_per_strand);
    j.end_object();
  }
  j.end_array();
  j.begin_array("record_size");
  for (const auto& s : sizes) {
    j.begin_object();
    j.kv("workload", "fib(" + std::to_string(s.n) + ")");
    j.kv("bytes", s.bytes);
    j.kv("strands", s.strands);
    j.kv("joins", s.joins);
    j.kv("tasks", s.tasks);
    j.kv("bytes_per_strand", s.strands ? static_cast<double>(s.bytes) / static_cast<double>(s.strands) : 0.0);
    j.end_object();
  }
  j.end_array();
  write_trace_json(j, trace);
  j.end_object();
  std::string err;
  if (!bench_common::write_results_file(cfg.out, j.str(), err)) {
    std::fprintf(stderr, "bench_record: %s\n", err.c_str());
    std::exit(1);
  }
}

int parse(int argc, char** argv, config& cfg) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      cfg.quick = true;
      cfg.batches = 2;
      cfg.events = 20000;
    } else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) {
      cfg.out = argv[++i];
    } else {
      std::fprintf(stderr, "bench_record: unknown argument '%s' (use --quick, --out FILE)\n", argv[i]);
      return 2;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  config cfg;
  if (int rc = parse(argc, argv, cfg)) return rc;
  std::vector<event_row> rows;
  for (const char* what : {"spawn", "sync", "call"}) rows.push_back(measure_event(cfg, what));
  std::vector<size_row> sizes;
  for (int n : cfg.quick ? std::vector<int>{12} : std::vector<int>{18, 22}) sizes.push_back(measure_size(n));
  std::printf("recording: ns per event, off / on (best of %d batches of %d)\n", cfg.batches, cfg.events);
  for (const auto& r : rows)
    std::printf("  %-6s %8.2f %8.2f  x%.2f  +%.2f ns   build %.1f ns/strand\n", r.name.c_str(), r.off_ns, r.on_ns,
                r.on_ns / r.off_ns, r.on_ns - r.off_ns, r.finish_ns_per_strand);
  for (const auto& s : sizes)
    std::printf("  fib(%d): %llu strands, %llu bytes held, %.1f bytes/strand\n", s.n,
                static_cast<unsigned long long>(s.strands), static_cast<unsigned long long>(s.bytes),
                s.strands ? static_cast<double>(s.bytes) / static_cast<double>(s.strands) : 0.0);
  const trace_rows trace = measure_trace(cfg);
  print_trace(trace);
  write_json(cfg, rows, sizes, trace);
  return 0;
}
