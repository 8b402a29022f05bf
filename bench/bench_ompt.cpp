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
//
// Then the goal rows ("goals" in the JSON; skipped by --only without fib22):
// fib(22), a task per call, at OMP_NUM_THREADS=1, the whole program measured
// (FORKSCALE_OMPT=1, the report read back from FORKSCALE_REPORT), max(15, 3R) runs of each
// side in turn:
//   (a) with FORKSCALE_OMPT_CLOCK=tsc: the work's CPU time at most 20 ms, at most
//       300 ns per event (spawn or sync) above the program alone;
//   (b) the tool linked, FORKSCALE_OMPT unset (nothing measured): at most 1.2
//       times the program alone (beside it, the plain program with a tool that
//       registers no callback, BENCH_OMPT_NULL_TOOL=1: what libomp itself costs
//       with any tool loaded);
//   (c) the automatic clock (FORKSCALE_OMPT_CLOCK unset): not thread_cpu when
//       its cost per reading (the report's compensation per strand) exceeds the
//       average strand, unless the report says so;
//   (d) the report's work never above the process's CPU time (user + system,
//       from wait4), in the tsc and the automatic runs.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
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

// ---- the goal rows: fib(22) at one thread, the whole program measured ----------

extern "C" char** environ;

struct env_run {
  bool ok = false;
  std::string out, error;
  double cpu_s = 0;  // the child's user + system time (wait4)
};

// Runs `program args` with the environment minus forkscale's and OpenMP's
// switches, plus `set`; returns its output and CPU time.
env_run run_with_env(const std::string& program, const std::vector<std::string>& args,
                     const std::vector<std::string>& set) {
  env_run r;
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string v = *e;
    if (v.rfind("FORKSCALE_OMPT", 0) == 0 || v.rfind("FORKSCALE_REPORT=", 0) == 0 ||
        v.rfind("OMP_NUM_THREADS=", 0) == 0 || v.rfind("BENCH_OMPT_NULL_TOOL=", 0) == 0)
      continue;
    env.push_back(v);
  }
  env.insert(env.end(), set.begin(), set.end());
  std::vector<char*> envp, argv;
  for (std::string& v : env) envp.push_back(&v[0]);
  envp.push_back(nullptr);
  std::vector<std::string> a = {program};
  a.insert(a.end(), args.begin(), args.end());
  for (std::string& v : a) argv.push_back(&v[0]);
  argv.push_back(nullptr);
  int fds[2];
  if (::pipe(fds) != 0) {
    r.error = "pipe failed";
    return r;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    r.error = "fork failed";
    return r;
  }
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    ::close(fds[0]);
    ::close(fds[1]);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) r.out.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  struct rusage ru {};
  ::wait4(pid, &status, 0, &ru);
  r.cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || r.out.find("RESULT ") == std::string::npos) {
    r.error =
        program + ": exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ": " + trim(r.out);
    return r;
  }
  r.ok = true;
  return r;
}

double result_number(const std::string& out, const std::string& key) {
  const auto p = out.find(" " + key + "=");
  return p == std::string::npos ? 0 : std::atof(out.c_str() + p + key.size() + 2);
}

// Spawns and syncs of fib(n) with a task per call: one of each per call with n >= 2.
double fib_events(int n) {
  double calls[2] = {0, 0};  // calls with n >= 2 in fib(k - 1), fib(k)
  for (int k = 2; k <= n; ++k) {
    const double c = 1 + calls[1] + calls[0];
    calls[0] = calls[1];
    calls[1] = c;
  }
  return 2 * calls[1];
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The number after `key` in `text` (digits, commas and a point), or -1.
double number_after(const std::string& text, const std::string& key) {
  const auto p = text.find(key);
  if (p == std::string::npos) return -1;
  std::string digits;
  for (std::size_t i = p + key.size(); i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == ' ' && digits.empty()) continue;
    if ((ch >= '0' && ch <= '9') || ch == '.') {
      digits += ch;
    } else if (ch != ',') {
      break;
    }
  }
  return digits.empty() ? -1 : std::atof(digits.c_str());
}

struct report_facts {
  double work_ns = -1, events = 0, compensation_ns = -1, strand_ns = -1;
  std::string clock;
  bool says_read_cost = false;  // the text report says the clock's reading outweighs the strands
  bool says_over_cpu = false;   // ... that the work exceeds the process's CPU time
};

// The text report (FORKSCALE_REPORT=*.txt) of a whole-program run.
report_facts read_report(const std::string& path) {
  const std::string t = read_text(path);
  report_facts f;
  const auto c = t.find("(clock: ");
  if (c != std::string::npos) f.clock = t.substr(c + 8, t.find(',', c) - c - 8);
  f.work_ns = number_after(t, "Work:");
  const double spawns = number_after(t, "Spawns:"), syncs = number_after(t, "Syncs:");
  f.events = spawns > 0 && syncs > 0 ? spawns + syncs : 0;
  f.compensation_ns = number_after(t, "Overhead compensation:");
  f.strand_ns = number_after(t, "Average maximal strand:");
  std::string flat;  // the text with its lines joined (the report wraps at 80 columns)
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] != '\n') {
      flat += t[i];
      continue;
    }
    flat += ' ';
    while (i + 1 < t.size() && t[i + 1] == ' ') ++i;
  }
  f.says_read_cost = flat.find("costs more per reading than the average strand") != std::string::npos;
  f.says_over_cpu = flat.find("exceeds the CPU time the process used") != std::string::npos;
  return f;
}

struct goal_side {
  std::vector<double> seconds, work_cpu_s, cpu_s, work_s;  // the work: wall, CPU; the process's CPU; the report's work
  std::vector<bool> said_over_cpu;                         // the report said its work exceeds the CPU time
  report_facts last;
};

struct goal_rows {
  bool ran = false;
  std::string error;
  goal_side side[5];  // plain, tool tsc, tool idle, tool auto, plain with a null tool
};
const char* const goal_side_names[5] = {"plain", "tool_tsc", "tool_idle", "tool_auto", "null_tool"};

goal_rows measure_goals(const config& c) {
  goal_rows g;
  g.ran = true;
  // More runs than the workloads': each is short, and a shared machine's
  // frequency and cache make single runs vary by half.
  const int runs = c.quick ? 1 : std::max(15, 3 * c.runs);
  const std::string report = "/tmp/bench_ompt_goal_" + std::to_string(::getpid()) + ".txt";
  const std::vector<std::string> args = {"fib22", "--bare"};
  for (int r = 0; r < runs; ++r)
    for (int m = 0; m < 5; ++m) {
      std::vector<std::string> env = {"OMP_NUM_THREADS=1"};
      if (m == 4) env.push_back("BENCH_OMPT_NULL_TOOL=1");
      if (m == 1 || m == 3) {
        env.push_back("FORKSCALE_OMPT=1");
        env.push_back("FORKSCALE_REPORT=" + report);
      }
      if (m == 1) env.push_back("FORKSCALE_OMPT_CLOCK=tsc");
      std::remove(report.c_str());
      const env_run x = run_with_env(m == 0 || m == 4 ? c.programs[0] : c.programs[1], args, env);
      if (!x.ok) {
        g.error = std::string(goal_side_names[m]) + ": " + x.error;
        return g;
      }
      goal_side& s = g.side[m];
      s.seconds.push_back(result_number(x.out, "seconds"));
      s.work_cpu_s.push_back(result_number(x.out, "cpu_seconds"));
      s.cpu_s.push_back(x.cpu_s);
      if (m == 1 || m == 3) {
        s.last = read_report(report);
        std::remove(report.c_str());
        if (s.last.work_ns < 0) {
          g.error = std::string(goal_side_names[m]) + ": no report in " + report;
          return g;
        }
        s.work_s.push_back(s.last.work_ns * 1e-9);
        s.said_over_cpu.push_back(s.last.says_over_cpu);
      }
    }
  return g;
}

struct goal_figures {
  double plain_ms, tsc_ms, idle_ms, auto_ms;                      // the work's CPU time, medians
  double plain_wall_ms, tsc_wall_ms, idle_wall_ms, auto_wall_ms;  // its steady_clock time, medians
  double events, ns_per_event, idle_ratio, null_tool_ratio;
  bool a_met, b_met, c_read_exceeds, c_met, d_met;
  double d_worst_ratio;             // the largest work / process CPU over the tsc and automatic runs
  int d_over = 0, d_over_said = 0;  // runs whose work exceeded it; of those, the ones whose report says so
};

goal_figures figures(const goal_rows& g) {
  goal_figures f{};
  f.plain_ms = median(g.side[0].work_cpu_s) * 1e3;
  f.tsc_ms = median(g.side[1].work_cpu_s) * 1e3;
  f.idle_ms = median(g.side[2].work_cpu_s) * 1e3;
  f.auto_ms = median(g.side[3].work_cpu_s) * 1e3;
  f.plain_wall_ms = median(g.side[0].seconds) * 1e3;
  f.tsc_wall_ms = median(g.side[1].seconds) * 1e3;
  f.idle_wall_ms = median(g.side[2].seconds) * 1e3;
  f.auto_wall_ms = median(g.side[3].seconds) * 1e3;
  f.events = fib_events(22);
  f.ns_per_event = f.events > 0 ? (f.tsc_ms - f.plain_ms) * 1e6 / f.events : 0;
  f.idle_ratio = f.idle_ms / f.plain_ms;
  f.null_tool_ratio = median(g.side[4].work_cpu_s) * 1e3 / f.plain_ms;
  f.a_met = f.tsc_ms <= 20 && f.ns_per_event <= 300;
  f.b_met = f.idle_ratio <= 1.2;
  const report_facts& a = g.side[3].last;
  f.c_read_exceeds = a.compensation_ns > a.strand_ns;
  f.c_met = a.clock != "thread_cpu" || !f.c_read_exceeds || a.says_read_cost;
  f.d_met = true;
  for (int m : {1, 3})
    for (std::size_t i = 0; i < g.side[m].work_s.size(); ++i) {
      const double ratio = g.side[m].work_s[i] / g.side[m].cpu_s[i];
      f.d_worst_ratio = std::max(f.d_worst_ratio, ratio);
      if (ratio > 1) {
        f.d_met = false;
        ++f.d_over;
        if (g.side[m].said_over_cpu[i]) ++f.d_over_said;
      }
    }
  return f;
}

void print_goals(const goal_rows& g) {
  if (!g.error.empty()) {
    std::printf("goals (fib22) failed: %s\n", g.error.c_str());
    return;
  }
  const goal_figures f = figures(g);
  const report_facts& a = g.side[3].last;
  std::printf(
      "\ngoals: fib(22), a task per call, OMP_NUM_THREADS=1, whole program (FORKSCALE_OMPT=1); medians of the work's "
      "CPU time (wall time in brackets)\n");
  std::printf(
      "  plain %.2f ms (%.2f); tool, tsc %.2f ms (%.2f); tool linked, FORKSCALE_OMPT unset %.2f ms (%.2f); "
      "tool, automatic clock %.2f ms (%.2f)\n",
      f.plain_ms, f.plain_wall_ms, f.tsc_ms, f.tsc_wall_ms, f.idle_ms, f.idle_wall_ms, f.auto_ms, f.auto_wall_ms);
  std::printf("  (a) tsc: %.2f ms (goal <= 20), %.0f ns per event above plain over %.0f events (goal <= 300): %s\n",
              f.tsc_ms, f.ns_per_event, f.events, f.a_met ? "met" : "NOT met");
  std::printf(
      "  (b) linked, nothing measured: %.2fx plain (goal <= 1.2x): %s; libomp with a tool that registers "
      "no callback: %.2fx\n",
      f.idle_ratio, f.b_met ? "met" : "NOT met", f.null_tool_ratio);
  std::printf("  (c) automatic clock: %s, %.0f ns per reading, average strand %.0f ns%s: %s\n", a.clock.c_str(),
              a.compensation_ns, a.strand_ns, a.says_read_cost ? ", the report says so" : "",
              f.c_met ? "met" : "NOT met");
  std::printf("  (d) work / process CPU time, largest over the tsc and automatic runs: %.2f (goal <= 1): %s",
              f.d_worst_ratio, f.d_met ? "met\n" : "NOT met");
  if (!f.d_met) std::printf(" in %d runs, %d of whose reports say so\n", f.d_over, f.d_over_said);
}

void goals_json(json_out& j, const goal_rows& g) {
  j.begin_object("goals");
  j.kv("workload", "fib22: fib(22), a task per call, OMP_NUM_THREADS=1, the whole program measured (FORKSCALE_OMPT=1)");
  j.kv("time",
       "the work's second run in a fresh process: the process's CPU time over it (cpu_ms, what the goals use: a "
       "shared machine's waits for a CPU are not in it) and steady_clock (wall_ms); medians over the runs");
  if (!g.error.empty()) {
    j.kv("error", g.error).end_object();
    return;
  }
  for (int m = 0; m < 5; ++m) {
    j.begin_object(goal_side_names[m]).kv("cpu_ms", median(g.side[m].work_cpu_s) * 1e3);
    j.kv("wall_ms", median(g.side[m].seconds) * 1e3).numbers("runs_cpu_s", g.side[m].work_cpu_s);
    j.numbers("runs_wall_s", g.side[m].seconds).numbers("process_cpu_s", g.side[m].cpu_s);
    if (m == 1 || m == 3) {
      j.numbers("report_work_s", g.side[m].work_s).kv("clock", g.side[m].last.clock);
      j.kv("compensation_per_strand_ns", g.side[m].last.compensation_ns);
      j.kv("average_maximal_strand_ns", g.side[m].last.strand_ns);
    }
    j.end_object();
  }
  const goal_figures f = figures(g);
  j.kv("events", f.events);
  j.begin_object("a").kv("goal",
                         "tool_tsc at most 20 ms, at most 300 ns per event (spawn or sync) above plain (CPU time)");
  j.kv("tool_tsc_ms", f.tsc_ms).kv("ns_per_event_above_plain", f.ns_per_event).kv("met", f.a_met).end_object();
  j.begin_object("b").kv("goal", "tool_idle (tool linked, FORKSCALE_OMPT unset) at most 1.2 times plain (CPU time)");
  j.kv("idle_over_plain", f.idle_ratio).kv("met", f.b_met);
  j.kv("null_tool_over_plain", f.null_tool_ratio);
  j.kv("null_tool", "the plain program with BENCH_OMPT_NULL_TOOL=1: libomp loads a tool that registers no callback");
  j.end_object();
  j.begin_object("c").kv("goal",
                         "the automatic clock is not thread_cpu when a reading costs more than the average strand, "
                         "or the report says so");
  j.kv("clock", g.side[3].last.clock).kv("reading_exceeds_strand", f.c_read_exceeds);
  j.kv("report_says_so", g.side[3].last.says_read_cost).kv("met", f.c_met).end_object();
  j.begin_object("d").kv("goal", "the report's work at most the process's CPU time (tsc and automatic runs)");
  j.kv("largest_work_over_cpu", f.d_worst_ratio).kv("met", f.d_met);
  j.kv("runs_over", static_cast<std::uint64_t>(f.d_over));
  j.kv("runs_over_said_in_report", static_cast<std::uint64_t>(f.d_over_said)).end_object();
  j.end_object();
}

void write_json(const config& c, const std::vector<workload_result>& results, const goal_rows& goals, double suite_s) {
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
  j.end_array();
  if (goals.ran) goals_json(j, goals);
  j.end_object();
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
  goal_rows goals;
  if (c.only.empty() || std::find(c.only.begin(), c.only.end(), "fib22") != c.only.end()) {
    goals = measure_goals(c);
    print_goals(goals);
    if (!goals.error.empty()) ++failed;
  }
  write_json(c, results, goals, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return failed ? 1 : 0;
}
