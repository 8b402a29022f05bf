// bench_ompt: what OMPT mode (forkscale/ompt.hpp) costs an OpenMP program, against
// the same program unprofiled and against the same program annotated by hand
// with the adapter (forkscale/openmp.hpp), as overhead ratios.
//
//   bench_ompt --plain P --tool T --annotated A [--runs R] [--clock C] [--quick]
//              [--only w1,w2] [--out FILE]
//
// P, T and A are ompt_workloads.cpp built three ways (bench/CMakeLists.txt). For
// each workload the three programs run R times each (default 5), in turn — plain,
// tool, annotated, plain, ... — every run a fresh process; each prints the time of
// its second run of the work (the first, on a small input, pays what a process
// pays once; its time is reported apart as first_seconds). The medians give the
// ratios tool/plain, annotated/plain and tool/annotated. Profiled runs use the
// clock C (default tsc: the clock a quiet machine gets by default; 'auto' lets
// forkscale choose, which on an oversubscribed machine is thread_cpu, a system
// call per reading). Writes the JSON (bench/results/ompt.json by the custom target
// bench_ompt_run) and prints a table. Exit status 0, or 1 when a workload failed
// (wrong result, forkscale diagnostics), 2 on bad arguments.
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace {

using namespace bench_common;

struct run_result {
  bool ok = false;
  double seconds = 0, first_seconds = 0;
  std::uint64_t events = 0;
  std::string error;
};

// Runs `program workload args` and reads its RESULT line.
run_result run_once(const std::string& program, const std::string& workload, const std::string& args) {
  run_result r;
  const std::string cmd = "'" + program + "' " + workload + " " + args + " 2>&1";
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) {
    r.error = "cannot start " + program;
    return r;
  }
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  const int status = ::pclose(p);
  std::istringstream lines(out);
  std::map<std::string, std::string> kv;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("RESULT ", 0) != 0) continue;
    std::istringstream words(line.substr(7));
    for (std::string w; words >> w;) {
      const auto eq = w.find('=');
      if (eq != std::string::npos) kv[w.substr(0, eq)] = w.substr(eq + 1);
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || kv.empty()) {
    r.error = program + " " + workload + ": exit status " +
              std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ": " + trim(out);
    return r;
  }
  r.ok = true;
  r.seconds = std::atof(kv["seconds"].c_str());
  r.first_seconds = std::atof(kv["first_seconds"].c_str());
  r.events = std::strtoull(kv["events"].c_str(), nullptr, 10);
  return r;
}

const char* const mode_names[3] = {"plain", "tool", "annotated"};

struct workload_result {
  std::string name;
  std::vector<double> seconds[3], first[3];
  std::uint64_t events[3] = {0, 0, 0};
  std::string error;
  double median_s(int m) const { return median(seconds[m]); }
};

struct config {
  std::string programs[3];
  int runs = 5;
  std::string clock = "tsc";
  bool quick = false;
  std::vector<std::string> only;
  std::string out;
};

workload_result measure(const config& c, const std::string& name) {
  workload_result w;
  w.name = name;
  const std::string args = std::string(c.quick ? "--quick " : "") + "--clock " + c.clock;
  for (int r = 0; r < c.runs; ++r)
    for (int m = 0; m < 3; ++m) {
      const run_result x = run_once(c.programs[m], name, args);
      if (!x.ok) {
        w.error = x.error;
        return w;
      }
      w.seconds[m].push_back(x.seconds);
      w.first[m].push_back(x.first_seconds);
      w.events[m] = x.events;
    }
  return w;
}

void write_json(const config& c, const std::vector<workload_result>& results, double suite_s) {
  json_out j;
  j.begin_object();
  j.kv("benchmark", "forkscale OMPT mode overhead");
  j.kv("mode", c.quick ? "quick" : "full");
  j.kv("runs_per_side", static_cast<std::uint64_t>(c.runs));
  j.kv("suite_seconds", suite_s);
  j.begin_object("machine").kv("cpu_model", cpu_model()).kv("cores", cores());
  j.kv("loadavg_at_end", read_first_line("/proc/loadavg")).end_object();
  j.kv("compiler", compiler_string()).kv("sanitizer", sanitizer_name()).kv("date", utc_now());
  j.kv("clock", c.clock);
  j.begin_object("method");
  j.kv("plain", "the OpenMP program as written, no forkscale");
  j.kv("tool", "the same source with forkscale/ompt.hpp, the work in fs::measure (OMPT mode)");
  j.kv("annotated", "the same program annotated with forkscale/openmp.hpp, the work in fs::measure");
  j.kv("time",
       "steady_clock around the work's second run in a fresh process (around the whole fs::measure call); median over "
       "the runs");
  j.kv("first_seconds",
       "the first run, on a small input: what a process pays once (runtime start, calibration, addr2line for new "
       "sites)");
  j.end_object();
  j.begin_array("workloads");
  for (const workload_result& w : results) {
    j.begin_object().kv("name", w.name);
    if (!w.error.empty()) {
      j.kv("error", w.error).end_object();
      continue;
    }
    for (int m = 0; m < 3; ++m) {
      j.begin_object(mode_names[m]).kv("median_s", w.median_s(m)).numbers("runs_s", w.seconds[m]);
      j.kv("first_median_s", median(w.first[m])).kv("events", w.events[m]).end_object();
    }
    j.kv("tool_over_plain", w.median_s(1) / w.median_s(0));
    j.kv("annotated_over_plain", w.median_s(2) / w.median_s(0));
    j.kv("tool_over_annotated", w.median_s(1) / w.median_s(2));
    j.kv("tool_ns_per_event",
         w.events[1] ? (w.median_s(1) - w.median_s(0)) * 1e9 / static_cast<double>(w.events[1]) : 0.0);
    j.end_object();
  }
  j.end_array().end_object();
  std::string err;
  if (!c.out.empty() && !write_results_file(c.out, j.str(), err)) std::fprintf(stderr, "bench_ompt: %s\n", err.c_str());
}

int parse(int argc, char** argv, config& c) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool v = i + 1 < argc;
    if (a == "--plain" && v)
      c.programs[0] = argv[++i];
    else if (a == "--tool" && v)
      c.programs[1] = argv[++i];
    else if (a == "--annotated" && v)
      c.programs[2] = argv[++i];
    else if (a == "--runs" && v)
      c.runs = std::atoi(argv[++i]);
    else if (a == "--clock" && v)
      c.clock = argv[++i];
    else if (a == "--out" && v)
      c.out = argv[++i];
    else if (a == "--quick")
      c.quick = true;
    else if (a == "--only" && v) {
      std::istringstream s(argv[++i]);
      for (std::string w; std::getline(s, w, ',');) c.only.push_back(w);
    } else {
      std::fprintf(stderr, "bench_ompt: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  if (c.programs[0].empty() || c.programs[1].empty() || c.programs[2].empty() || c.runs < 1) {
    std::fprintf(stderr, "bench_ompt: --plain, --tool and --annotated are required, --runs at least 1\n");
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  config c;
  if (const int bad = parse(argc, argv, c)) return bad;
  if (c.quick) c.runs = 1;
  const std::vector<std::string> all = {"fib_fine", "fib", "dynamic_loop", "stencil", "cholesky"};
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<workload_result> results;
  int failed = 0;
  std::printf("%-13s %10s %10s %10s %11s %11s %11s %9s\n", "workload", "plain s", "tool s", "annot. s", "tool/plain",
              "annot/plain", "tool/annot", "ns/event");
  for (const std::string& w : all) {
    if (!c.only.empty() && std::find(c.only.begin(), c.only.end(), w) == c.only.end()) continue;
    results.push_back(measure(c, w));
    const workload_result& r = results.back();
    if (!r.error.empty()) {
      ++failed;
      std::printf("%-13s failed: %s\n", w.c_str(), r.error.c_str());
      continue;
    }
    std::printf("%-13s %10.3f %10.3f %10.3f %11.2f %11.2f %11.2f %9.0f\n", w.c_str(), r.median_s(0), r.median_s(1),
                r.median_s(2), r.median_s(1) / r.median_s(0), r.median_s(2) / r.median_s(0),
                r.median_s(1) / r.median_s(2),
                r.events[1] ? (r.median_s(1) - r.median_s(0)) * 1e9 / static_cast<double>(r.events[1]) : 0.0);
    std::fflush(stdout);
  }
  write_json(c, results, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return failed ? 1 : 0;
}
