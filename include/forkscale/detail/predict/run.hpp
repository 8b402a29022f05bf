// detail/predict/run.hpp: fs::predict — checking the request, resolving the
// model (the scheduler and its costs), replaying each P, and the assumptions
// text.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../../backend.hpp"
#include "../../config.hpp"
#include "../../prediction.hpp"
#include "../../report.hpp"
#include "../util/numbers.hpp"
#include "graph.hpp"
#include "greedy.hpp"
#include "os_threads.hpp"
#include "stealing.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace predict {

inline constexpr unsigned max_processors = 65536;
inline constexpr unsigned max_seeds = 1000;

// The record a replay needs, or an error naming what is missing.
inline const execution_record& replayable_record(const report& rep) {
  if (!rep.record)
    throw error(
        "forkscale: the report has no record to replay (measure with options.record = true or "
        "FORKSCALE_RECORD=1)");
  const execution_record& r = *rep.record;
  if (!r.complete)
    throw error(
        "forkscale: the report's record is partial (it stopped at options.record_limit or lost strands): "
        "a replay needs the whole graph");
  if (r.empty()) throw error("forkscale: the report's record has no strands to replay");
  return r;
}

inline void check_processors(const std::vector<unsigned>& processors) {
  if (processors.empty()) throw error("forkscale: no processor counts to predict");
  for (const unsigned p : processors)
    if (p == 0 || p > max_processors)
      throw error("forkscale: P = " + std::to_string(p) + " is not a processor count the replay takes (1 to " +
                  std::to_string(max_processors) + ")");
}

// Whether std::thread ran the program: the report's backend names it first
// (report::backend, "std_thread" or "std_thread+tbb"), or, in a report written
// before that field, the burden was calibrated for it ("measured std_thread").
inline bool ran_on_std_thread(const std::string& backend_name, const std::string& burden_source) {
  const std::string name = to_string(backend::std_thread);
  if (!backend_name.empty())
    return backend_name.compare(0, name.size(), name) == 0 &&
           (backend_name.size() == name.size() || backend_name[name.size()] == '+');
  return burden_source == "measured " + name;
}

// The model with the scheduler chosen and every cost resolved from the
// report's burden.
inline replay_model resolve_model(const replay_model& m, double burden, const std::string& burden_source,
                                  const std::string& backend_name) {
  const auto check = [](double v, const char* name) {
    if (!std::isfinite(v)) throw error(std::string("forkscale: replay_model::") + name + " is not a finite number");
  };
  check(m.spawn_cost, "spawn_cost");
  check(m.steal_cost, "steal_cost");
  check(m.steal_attempt_cost, "steal_attempt_cost");
  check(m.thread_start_cost, "thread_start_cost");
  check(m.core_wake_cost, "core_wake_cost");
  if (m.spawn_cost < 0) throw error("forkscale: replay_model::spawn_cost is negative");
  if (m.seeds == 0 || m.seeds > max_seeds)
    throw error("forkscale: replay_model::seeds is " + std::to_string(m.seeds) + "; 1 to " + std::to_string(max_seeds) +
                " seeds are replayed");
  replay_model r = m;
  if (r.steal_cost < 0) r.steal_cost = burden;
  if (r.steal_attempt_cost < 0) r.steal_attempt_cost = r.steal_cost / 10;
  if (r.thread_start_cost < 0) r.thread_start_cost = burden;
  if (r.core_wake_cost < 0) r.core_wake_cost = 0;
  if (r.scheduler != replay_scheduler::work_stealing && r.scheduler != replay_scheduler::os_threads)
    r.scheduler =
        ran_on_std_thread(backend_name, burden_source) ? replay_scheduler::os_threads : replay_scheduler::work_stealing;
  return r;
}

inline runtime_costs costs_of(const replay_model& m) { return {m.spawn_cost, m.steal_cost, m.steal_attempt_cost}; }

// The work-stealing times of one P over the model's seeds.
inline void replay_stealing(const replay_graph& g, const replay_model& m, predicted_point& pt) {
  std::vector<double> times;
  double steals = 0, failed = 0;
  for (unsigned k = 0; k < m.seeds; ++k) {
    const replay_run r = stealing_run(g, pt.processors, costs_of(m), m.seed + k);
    times.push_back(r.time);
    steals += static_cast<double>(r.migrations);
    failed += static_cast<double>(r.failed_steals);
  }
  std::sort(times.begin(), times.end());
  replay_spread& s = pt.stealing;
  s.min = times.front();
  s.max = times.back();
  s.median = times[(times.size() - 1) / 2];
  double sum = 0;
  for (const double t : times) sum += t;
  s.mean = sum / static_cast<double>(times.size());
  pt.steals = steals / m.seeds;
  pt.failed_steals = failed / m.seeds;
}

inline double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

// The resolved model's scheduler on P processors: its time (the work-stealing
// median, or the OS-thread replay's) and the rest of the point.
inline void replay_point(const replay_graph& g, const replay_model& m, predicted_point& pt) {
  if (m.scheduler == replay_scheduler::os_threads) {
    const os_threads_run r =
        os_threads_replay_run(g, pt.processors, m.spawn_cost, m.thread_start_cost, m.core_wake_cost);
    pt.os_threads_time = r.time;
    pt.threads = r.threads;
    pt.peak_runnable = r.peak_runnable;
    pt.time = r.time;
  } else {
    const replay_run greedy = greedy_replay(g, pt.processors, costs_of(m));
    pt.greedy_time = greedy.time;
    pt.greedy_migrations = greedy.migrations;
    pt.greedy_speedup = ratio(g.work, greedy.time);
    replay_stealing(g, m, pt);
    pt.stealing_speedup = ratio(g.work, pt.stealing.median);
    pt.stealing_speedup_min = ratio(g.work, pt.stealing.max);
    pt.stealing_speedup_max = ratio(g.work, pt.stealing.min);
    pt.time = pt.stealing.median;
  }
  pt.speedup = ratio(g.work, pt.time);
}

inline predicted_point predict_point(const replay_graph& g, const replay_model& m, unsigned p) {
  predicted_point pt;
  pt.processors = p;
  replay_point(g, m, pt);
  const double P = static_cast<double>(p);
  pt.lower_time = std::max(g.work / P, g.span);
  pt.brent_time = g.work / P + g.span;
  pt.cilkview.processors = p;
  const double parallelism = ratio(g.work, g.span);
  pt.cilkview.upper = g.span > 0 ? std::min(P, parallelism) : P;
  const double denom = g.work / P + 1.7 * g.burdened_span;
  pt.cilkview.lower = denom > 0 ? g.work / denom : 0.0;
  if (pt.cilkview.lower > pt.cilkview.upper) pt.cilkview.lower = pt.cilkview.upper;
  return pt;
}

inline std::string amount(double v, const std::string& unit) {
  const std::string t = v == std::floor(v) && v < 1e15 ? grouped_round(v) : round_trip(v);
  return t + " " + unit;
}

// The assumptions, one sentence each (docs/predict.md says more).
inline std::vector<std::string> assumptions(const prediction& p) {
  const std::string u = p.unit;
  std::vector<std::string> a;
  a.push_back(
      "Each strand takes the time the record gives it (its span) on any processor: caches, memory "
      "bandwidth, clock frequency and other programs on the machine change nothing.");
  a.push_back(
      "The graph is the recorded one: a program whose spawns depend on the number of threads (a grain "
      "size chosen from P, a thread per core) would have another graph on P processors.");
  const auto from_burden = [&](double v) {
    std::string t = amount(v, u);
    if (v == p.burden)
      t += p.burden_source.empty() ? " (the report's burden)"
                                   : " (the report's burden; source: " + p.burden_source + ")";
    return t;
  };
  if (p.model.scheduler == replay_scheduler::os_threads) {
    a.push_back(
        "Scheduler: OS threads (a thread per spawn, as std::thread): every spawn starts a thread, the "
        "spawning thread goes on at once, a thread waiting at a join uses no core, and the runnable threads "
        "share the P cores equally (processor sharing, the limit of the kernel's time slices).");
    a.push_back("Runtime costs: a thread starts " + from_burden(p.model.thread_start_cost) +
                " after its spawn; a spawn costs the spawning thread " + amount(p.model.spawn_cost, u) +
                "; context switches, a join's wake-up and the machine's other programs cost nothing.");
    if (p.model.core_wake_cost > 0)
      a.push_back(
          "Sleeping cores: a core left without a runnable thread sleeps; while more threads are runnable "
          "than cores are awake, the sleeping cores wake " +
          amount(p.model.core_wake_cost, u) + " after the excess began, unless it ends first.");
  } else {
    a.push_back("Runtime costs: a spawn " + amount(p.model.spawn_cost, u) + " on the spawning worker, a steal " +
                from_burden(p.model.steal_cost) + ", a failed steal attempt " + amount(p.model.steal_attempt_cost, u) +
                "; joins and waking idle workers cost nothing more.");
    a.push_back(
        "Greedy: no processor is idle while a strand is ready (Graham's list scheduling); a strand that "
        "migrates pays the steal cost.");
    a.push_back(
        "Work stealing: work-first (the spawning worker runs the child, its continuation can be stolen), "
        "random victims, " +
        std::to_string(p.model.seeds) + " seed(s) from " + std::to_string(p.model.seed) + ".");
  }
  if (p.clock != clock_kind::cost)
    a.push_back(
        "Timed clock: the strands' times include the library's own spawn and join calls as they ran "
        "when the program was recorded, on the machine it was recorded on.");
  return a;
}

}  // namespace predict
}  // namespace detail

#if FORKSCALE_DETAIL_DEFINES(analyses)
FORKSCALE_INLINE prediction predict(const report& rep, const std::vector<unsigned>& processors,
                                    const replay_model& model) {
  namespace dp = detail::predict;
  const execution_record& r = dp::replayable_record(rep);
  dp::check_processors(processors);
  prediction out;
  out.label = rep.label;
  out.unit = rep.unit;
  out.clock = rep.clock;
  out.burden = static_cast<double>(rep.burden);
  out.burden_source = rep.burden_source;
  out.model = dp::resolve_model(model, out.burden, out.burden_source, rep.backend);
  const dp::replay_graph g =
      dp::make_graph(r, out.burden, [&](std::uint32_t i) { return static_cast<double>(r.strands[i].span); });
  out.strands = g.strands;
  out.spawns = g.spawn_count;
  out.work = g.work;
  out.span = g.span;
  out.burdened_span = g.burdened_span;
  for (const unsigned p : processors) out.points.push_back(dp::predict_point(g, out.model, p));
  out.assumptions = dp::assumptions(out);
  return out;
}
#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END

#include "what_if.hpp"
