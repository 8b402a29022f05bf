// cli_predict.hpp: the predict and calibrate commands of forkscale-report
// (included by forkscale_cli.hpp, which has the rest of the command line).
//
//   forkscale-report predict RUN.json [--processors LIST] [--model work-stealing|os-threads]
//                                     [--spawn-cost C] [--steal-cost C] [--attempt-cost C]
//                                     [--thread-start-cost C] [--core-wake-cost C] [--seeds N]
//                                     [--to text|json] [-o OUT]
//   forkscale-report calibrate [--backend std_thread|tbb|openmp] [--file PATH] [--force]
//
// predict replays the report's record (fs::predict, docs/predict.md) on each P
// of LIST: numbers separated by commas ("1,2,4,8"), ranges that double
// ("1-256": 1, 2, 4, ..., 256), and "..." continuing the step of the two
// numbers before it up to the one after it ("1,2,4,8,...,256"; "2,4,6,...,16").
// Default: 1-256. --model chooses the scheduler (fs::replay_scheduler); by
// default os-threads for a report whose backend is std_thread (report::backend),
// work-stealing for any other. Costs are in the report's unit; a negative
// steal, attempt or thread start cost, or none, takes the model's default (the
// report's burden, a tenth of it, the report's burden); --core-wake-cost (the
// OS-thread replay's sleeping cores, what calibrate prints as "core wake")
// defaults to 0. A scaling study's
// profile run is replayed when RUN.json is a study.
//
// calibrate runs fs::calibrate_burden for the backend (default std_thread),
// prints the spawn and steal times and stores them, with this machine's CPU
// model and hardware threads, in PATH (default
// fs::burden_file(): FORKSCALE_BURDEN_FILE, $XDG_CACHE_HOME/forkscale/burden.json
// or ~/.cache/forkscale/burden.json). This build knows oneTBB when it was built
// with it (FORKSCALE_CLI_HAVE_TBB) and OpenMP likewise (FORKSCALE_CLI_HAVE_OPENMP).
// On a busy machine (other processes' threads ready to run on every hardware
// thread, or a median steal more than twice its lower decile) it tries again,
// up to 3 times a second apart; if the machine stays busy it stores nothing and
// exits 1 with one line on stderr, unless --force stores the quietest figures.
#pragma once
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include <forkscale/burden.hpp>
#include <forkscale/predict.hpp>

#ifdef FORKSCALE_CLI_HAVE_TBB
#include <forkscale/adapters/tbb.hpp>
#endif
#ifdef FORKSCALE_CLI_HAVE_OPENMP
#include <forkscale/adapters/openmp.hpp>
#endif

namespace forkscale_cli {

inline failure usage_failure(const std::string& msg) {
  return failure{std::string(program) + ": " + msg + " (try --help)"};
}

// One whole unsigned number of `text` (digits only), or false.
inline bool whole_number(const std::string& text, unsigned long long& out) {
  if (text.empty() || text.size() > 9) return false;
  for (const char c : text)
    if (c < '0' || c > '9') return false;
  out = std::strtoull(text.c_str(), nullptr, 10);
  return true;
}

inline unsigned processor_count(const std::string& item, const std::string& whole) {
  unsigned long long v = 0;
  if (!whole_number(item, v) || v == 0 || v > 65536)
    throw usage_failure("--processors " + quoted(whole) + ": " + quoted(item) +
                        " is not a processor count from 1 to 65536 (expected a list like 1,2,4, a range 1-256 that "
                        "doubles, or 1,2,4,...,256)");
  return static_cast<unsigned>(v);
}

// Adds a, a*2, a*4, ... up to b (and b itself).
inline void add_doubling(std::vector<unsigned>& out, unsigned a, unsigned b, const std::string& whole) {
  if (b < a) throw usage_failure("--processors " + quoted(whole) + ": the range ends below its start");
  for (unsigned long long p = a; p < b; p *= 2) out.push_back(static_cast<unsigned>(p));
  out.push_back(b);
}

// "..." continues the list up to z (the number after it) with the step of the
// numbers before it: the same difference (2,4,6,...) or the same ratio
// (1,2,4,...); with only two numbers before it, their ratio when it is whole.
inline void add_continued(std::vector<unsigned>& out, unsigned z, const std::string& whole) {
  if (out.size() < 2) throw usage_failure("--processors " + quoted(whole) + ": '...' needs two numbers before it");
  const unsigned long long x = out[out.size() - 2], y = out.back();
  if (y <= x || z < y) throw usage_failure("--processors " + quoted(whole) + ": '...' needs an increasing list");
  bool geometric = y % x == 0;
  if (out.size() >= 3) {
    const unsigned long long w = out[out.size() - 3];
    geometric = !(y - x == x - w);
    if (geometric && !(x > w && x % w == 0 && y % x == 0 && y / x == x / w))
      throw usage_failure("--processors " + quoted(whole) +
                          ": the numbers before '...' have neither one step nor one ratio");
  }
  for (unsigned long long p = geometric ? y * (y / x) : 2 * y - x; p < z; p = geometric ? p * (y / x) : p + (y - x))
    out.push_back(static_cast<unsigned>(p));
  out.push_back(z);
}

inline std::vector<unsigned> parse_processors(const std::string& text) {
  std::vector<unsigned> out;
  std::vector<std::string> items;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == ',') {
      items.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  for (std::size_t k = 0; k < items.size(); ++k) {
    const std::string& item = items[k];
    const std::size_t dash = item.find('-');
    if (item == "...") {
      if (k + 1 >= items.size() || items[k + 1] == "...")
        throw usage_failure("--processors " + quoted(text) + ": '...' needs a number after it");
      add_continued(out, processor_count(items[++k], text), text);
    } else if (dash != std::string::npos) {
      add_doubling(out, processor_count(item.substr(0, dash), text), processor_count(item.substr(dash + 1), text),
                   text);
    } else {
      out.push_back(processor_count(item, text));
    }
  }
  std::vector<unsigned> unique;
  for (const unsigned p : out)
    if (std::find(unique.begin(), unique.end(), p) == unique.end()) unique.push_back(p);
  return unique;
}

inline double cost_value(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !std::isfinite(v))
    throw usage_failure("option " + option + ": " + quoted(text) + " is not a number");
  // In the report's unit (ns under the timed clocks): 10^15 is 11 days.
  if (v < 0 || v > 1e15)
    throw usage_failure("option " + option + ": " + quoted(text) + " is not a cost from 0 to 1e15 (the report's unit)");
  return v;
}

struct predict_options {
  std::string input, to = "text", out, processors = "1-256";
  fs::replay_model model;
};

// The value of option args[i] ("--x V" or "--x=V"); advances i past it.
inline std::string option_value(const std::vector<std::string>& args, std::size_t& i, std::string& name) {
  std::string a = args[i];
  const std::size_t eq = a.find('=');
  if (a.compare(0, 2, "--") == 0 && eq != std::string::npos) {
    name = a.substr(0, eq);
    return a.substr(eq + 1);
  }
  name = a;
  if (i + 1 >= args.size()) throw usage_failure("option " + a + " needs a value");
  return args[++i];
}

inline predict_options parse_predict(const std::vector<std::string>& args) {
  predict_options o;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i].size() < 2 || args[i][0] != '-') {
      if (!o.input.empty()) throw usage_failure("predict takes one input file");
      o.input = args[i];
      continue;
    }
    std::string name;
    const std::string v = option_value(args, i, name);
    if (name == "--processors")
      o.processors = v;
    else if (name == "--model") {
      if (v == "work-stealing" || v == "work_stealing")
        o.model.scheduler = fs::replay_scheduler::work_stealing;
      else if (v == "os-threads" || v == "os_threads")
        o.model.scheduler = fs::replay_scheduler::os_threads;
      else if (v == "automatic")
        o.model.scheduler = fs::replay_scheduler::automatic;
      else
        throw usage_failure("unknown model " + quoted(v) +
                            " for predict (expected work-stealing, os-threads or automatic)");
    } else if (name == "--spawn-cost")
      o.model.spawn_cost = cost_value(name, v);
    else if (name == "--steal-cost")
      o.model.steal_cost = cost_value(name, v);
    else if (name == "--attempt-cost")
      o.model.steal_attempt_cost = cost_value(name, v);
    else if (name == "--thread-start-cost")
      o.model.thread_start_cost = cost_value(name, v);
    else if (name == "--core-wake-cost")
      o.model.core_wake_cost = cost_value(name, v);
    else if (name == "--seeds") {
      unsigned long long n = 0;
      if (!whole_number(v, n) || n == 0 || n > 1000)
        throw usage_failure("option --seeds: " + quoted(v) + " is not a number of seeds from 1 to 1000");
      o.model.seeds = static_cast<unsigned>(n);
    } else if (name == "--to") {
      if (v != "text" && v != "json")
        throw usage_failure("unknown format " + quoted(v) + " for predict (expected text or json)");
      o.to = v;
    } else if (name == "-o" || name == "--output") {
      o.out = v;
    } else {
      throw usage_failure("unknown option " + quoted(args[i]) + " for predict");
    }
  }
  if (o.input.empty()) throw usage_failure("predict takes one input file (a report with a record)");
  return o;
}

inline void predict_command(const std::vector<std::string>& args, std::ostream& out) {
  const predict_options o = parse_predict(args);
  const std::vector<unsigned> ps = parse_processors(o.processors);
  const document d = load(o.input);
  const fs::report& rep = d.is_study ? d.study.profile : d.rep;
  if (!rep.record)
    throw failure{std::string(program) + ": " + quoted(o.input) +
                  " has no record to replay (measure with options.record = true or FORKSCALE_RECORD=1)"};
  fs::prediction p;
  try {
    p = fs::predict(rep, ps, o.model);
  } catch (const fs::error& e) {
    const std::string what = e.what(), prefix = "forkscale: ";
    throw failure{std::string(program) + ": " + quoted(o.input) + ": " +
                  (what.compare(0, prefix.size(), prefix) == 0 ? what.substr(prefix.size()) : what)};
  }
  emit(o.to == "json" ? p.to_json() : p.to_text(), o.out, out);
}

inline std::string calibrate_text(const fs::measured_burden& m, const std::string& path) {
  std::string o = std::string("forkscale calibrate: ") + fs::to_string(m.backend) + " on this machine (" +
                  std::to_string(m.hardware_threads) + " hardware threads, " + std::to_string(m.rounds) + " rounds)\n";
  o += "  spawn: " + io::fixed(m.spawn_ns, 0) + " ns  (what handing a child over costs the spawning thread, median)\n";
  o += "  steal: " + io::fixed(m.steal_ns, 0) +
       " ns  (until another thread starts it, lower decile: the burden of a continuation edge)\n";
  o += "         " + io::fixed(m.steal_median_ns, 0) + " ns  median" +
       (m.steal_median_ns > 2 * m.steal_ns ? " (far above: the machine is busy, the other thread waited for a core)"
                                           : "") +
       "\n";
  if (m.backend == fs::backend::std_thread && m.thread_start_ns > 0) {
    o += "  thread start: " + io::fixed(m.thread_start_ns, 0) +
         " ns  (until a new thread runs when its creator waits for it: a core is free)\n";
    o += "  core wake:    " + io::fixed(m.core_wake_ns(), 0) +
         " ns  (median steal less the thread start: a sleeping core taking a new thread)\n";
    o += "  os-threads replay: predict --thread-start-cost " + io::fixed(m.thread_start_ns, 0) + " --core-wake-cost " +
         io::fixed(m.core_wake_ns(), 0) + "\n";
  }
  if (m.machine_was_busy())
    o += "  warning: " + std::to_string(m.runnable_elsewhere) + " threads of other processes were ready to run on " +
         std::to_string(m.hardware_threads) +
         " hardware threads: the steal measured the machine's load; calibrate on a quiet machine\n";
  o += path.empty() ? std::string("  not stored\n") : "  stored in " + quoted(path) + "\n";
  return o;
}

// How calibrate measures and waits between attempts (tests give their own).
struct calibration_runner {
  std::function<fs::measured_burden(fs::backend)> calibrate = [](fs::backend b) { return fs::calibrate_burden(b); };
  std::function<void()> pause = [] { std::this_thread::sleep_for(std::chrono::seconds(1)); };
};

// Attempts before calibrate gives up on a busy machine, a second apart.
inline constexpr unsigned calibrate_attempts = 3;

// Why `m` was measured on a busy machine, or empty when it looks quiet.
inline std::string busy_reason(const fs::measured_burden& m) {
  if (m.machine_was_busy())
    return std::to_string(m.runnable_elsewhere) + " threads of other processes were ready to run on " +
           std::to_string(m.hardware_threads) + " hardware threads";
  if (m.steal_disturbed())
    return "the median steal (" + io::fixed(m.steal_median_ns, 0) + " ns) is more than twice its lower decile (" +
           io::fixed(m.steal_ns, 0) + " ns)";
  return std::string();
}

struct calibrate_request {
  fs::backend b = fs::backend::std_thread;
  std::string path = fs::burden_file();
  bool force = false;
};

inline calibrate_request calibrate_args(const std::vector<std::string>& args) {
  calibrate_request r;
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string name;
    if (args[i] == "--force") {
      r.force = true;
      continue;
    }
    if (args[i].empty() || args[i][0] != '-') throw usage_failure("calibrate takes no file argument (use --file)");
    const std::string v = option_value(args, i, name);
    if (name == "--backend") {
      if (!fs::backend_from_name(v, r.b))
        throw usage_failure("unknown backend " + quoted(v) + " (expected std_thread, tbb or openmp)");
    } else if (name == "--file") {
      if (v.empty()) throw usage_failure("option --file needs a non-empty value");
      r.path = v;
    } else {
      throw usage_failure("unknown option " + quoted(args[i]) + " for calibrate");
    }
  }
#ifndef FORKSCALE_CLI_HAVE_TBB
  if (r.b == fs::backend::tbb) throw failure{std::string(program) + ": this forkscale-report was built without oneTBB"};
#endif
#ifndef FORKSCALE_CLI_HAVE_OPENMP
  if (r.b == fs::backend::openmp)
    throw failure{std::string(program) + ": this forkscale-report was built without OpenMP"};
#endif
  if (r.path.empty())
    throw failure{std::string(program) +
                  ": nowhere to store the burden: set FORKSCALE_BURDEN_FILE, XDG_CACHE_HOME or HOME, or give --file"};
  return r;
}

// Calibrates up to calibrate_attempts times while the machine looks busy
// (busy_reason), a pause apart, and stores the first quiet figures; when every
// attempt was busy, stores the quietest (smallest median steal) with --force,
// else nothing: exit status 1 and one line on stderr saying why.
inline int calibrate_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                             const calibration_runner& run = calibration_runner{}) {
  const calibrate_request r = calibrate_args(args);
  std::optional<fs::measured_burden> quietest;
  std::string reason;
  for (unsigned attempt = 1; attempt <= calibrate_attempts; ++attempt) {
    try {
      const fs::measured_burden m = run.calibrate(r.b);
      reason = busy_reason(m);
      if (reason.empty()) {
        fs::store_burden(m, r.path);
        out << calibrate_text(m, r.path);
        return 0;
      }
      if (!quietest || m.steal_median_ns < quietest->steal_median_ns) quietest = m;
    } catch (const fs::error& e) {
      const std::string what = e.what();
      if (what.find("too busy") == std::string::npos) throw;
      reason = "no other thread started the child in most rounds";
    }
    if (attempt < calibrate_attempts) {
      out << "forkscale calibrate: attempt " << attempt << " of " << calibrate_attempts << ": the machine is busy ("
          << reason << "); trying again\n";
      run.pause();
    }
  }
  if (r.force && quietest) {
    fs::store_burden(*quietest, r.path);
    out << calibrate_text(*quietest, r.path) << "  stored although the machine was busy (--force)\n";
    return 0;
  }
  if (quietest) out << calibrate_text(*quietest, std::string());
  err << program << ": the machine stayed busy in " << calibrate_attempts << " calibrations (" << reason
      << "): nothing stored; calibrate on a quiet machine, or give --force to store the quietest figures\n";
  return 1;
}

}  // namespace forkscale_cli
