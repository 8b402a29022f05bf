// prediction.hpp: the types and functions of fs::predict (predict.hpp, which
// a program includes; docs/predict.md): the replay model, the prediction and
// its points, and the what-if predictions.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config.hpp"
#include "report.hpp"

FORKSCALE_NAMESPACE_BEGIN

// Which runtime the replay models (docs/predict.md).
enum class replay_scheduler {
  // os_threads for a report whose program spawned on std::thread
  // (report::backend "std_thread", or first of two: "std_thread+tbb"; in a
  // report without the field, a burden calibrated for std_thread:
  // report::burden_source "measured std_thread"), work_stealing for any other.
  automatic,
  // Greedy list scheduling and randomized work stealing on P workers: oneTBB,
  // OpenMP tasks, Cilk-style runtimes.
  work_stealing,
  // A thread per spawn on P cores shared in time slices: std::thread,
  // std::async, a thread per task.
  os_threads,
};

// "automatic", "work_stealing", "os_threads".
inline const char* to_string(replay_scheduler s) noexcept {
  switch (s) {
    case replay_scheduler::work_stealing:
      return "work_stealing";
    case replay_scheduler::os_threads:
      return "os_threads";
    default:
      return "automatic";
  }
}

// The runtime the replay assumes. Costs are in the report's unit (ns for timed
// clocks, units for the cost clock).
struct replay_model {
  replay_scheduler scheduler = replay_scheduler::automatic;
  // Extra time a spawn takes on the spawning worker: the strand that ends at the
  // spawn runs this much longer. 0 by default: under a timed clock the library's
  // own spawn call already runs inside the recorded strands.
  double spawn_cost = 0;
  // The time a stolen strand (a continuation, under work-first) waits before it
  // runs on its thief; the greedy scheduler charges it to a strand that runs on
  // another processor than the one that made it ready. Negative: the report's
  // burden (Cilkview's cost of a continuation edge; report::burden_source says
  // where it came from).
  double steal_cost = -1;
  // The time a failed steal attempt (an empty deque) costs the thief before it
  // tries again. Negative: a tenth of the steal cost.
  double steal_attempt_cost = -1;
  // os_threads: the time from a spawn until the new thread runs its first
  // instruction (the child becomes runnable this much later; the spawning
  // thread goes on at once). Negative: the report's burden, which is this time
  // when the report's burden was calibrated for std_thread (fs::calibrate_burden
  // measures it from the std::thread constructor call to the new thread's first
  // instruction on an idle core).
  double thread_start_cost = -1;
  // os_threads: how long a sleeping core takes to wake and take a thread. A
  // core left without a runnable thread sleeps; while more threads are
  // runnable than cores are awake, the sleeping cores wake this long after the
  // excess began (unless it ends first). 0: every core takes a thread at once.
  // Negative: 0 (fs::calibrate_burden measures it for std_thread: the median
  // thread start less the lower decile, measured_burden::core_wake_ns()).
  double core_wake_cost = -1;
  // Work stealing is random: it is replayed with seeds seed, seed + 1, ...,
  // seed + seeds - 1 (1 to 1,000 of them).
  unsigned seeds = 5;
  std::uint64_t seed = 1;
};

// The spread of the work-stealing times over the seeds, in the report's unit.
struct replay_spread {
  double min = 0;
  double median = 0;  // the lower middle one for an even number of seeds
  double max = 0;
  double mean = 0;
};

// The prediction at one P. Times in the report's unit; speedups are T1 / TP
// with T1 the replayed graph's work (prediction::work). Under work_stealing the
// greedy and stealing members are filled and the os_threads ones are 0; under
// os_threads the reverse.
struct predicted_point {
  unsigned processors = 0;
  // The scheduler's prediction: the work-stealing median over the seeds, or the
  // OS-thread replay's time (deterministic).
  double time = 0;
  double speedup = 0;  // T1 / time
  double greedy_time = 0;
  double greedy_speedup = 0;
  std::uint64_t greedy_migrations = 0;  // strands run on another processor than the one that made them ready
  replay_spread stealing;               // work-stealing TP over the seeds
  double stealing_speedup = 0;          // T1 / median TP
  double stealing_speedup_min = 0;      // T1 / max TP
  double stealing_speedup_max = 0;      // T1 / min TP
  double steals = 0;                    // successful steals, mean over the seeds
  double failed_steals = 0;             // failed steal attempts, mean over the seeds
  double os_threads_time = 0;           // os_threads: when the last thread finished
  std::uint64_t threads = 0;            // os_threads: threads started (the record's spawns)
  std::uint64_t peak_runnable = 0;      // os_threads: most threads runnable at one time
  // Bounds for this P, from the replayed graph: no schedule beats
  // max(work / P, span) (the work and span laws); a greedy schedule with free
  // runtime takes at most work / P + span (Brent); Cilkview's speedup estimate
  // (report.hpp, speedup_bound) uses the burdened span.
  double lower_time = 0;  // max(work / P, span)
  double brent_time = 0;  // work / P + span
  speedup_bound cilkview;
};

struct prediction {
  std::string label;
  std::string unit = "units";
  clock_kind clock = clock_kind::cost;
  // The replayed graph: its strands and spawns, its work (the strands' costs
  // added up), span and burdened span (with `burden` on every continuation
  // edge). They are the report's own numbers unless the measurement assumed
  // call sites faster (the advisor), whose strands cost their assumed time.
  std::uint64_t strands = 0;
  std::uint64_t spawns = 0;
  double work = 0;
  double span = 0;
  double burdened_span = 0;
  double burden = 0;
  std::string burden_source;            // the report's (report::burden_source)
  replay_model model;                   // with every cost resolved (none negative) and the scheduler chosen
  std::vector<predicted_point> points;  // in the order the processors were asked
  // What the numbers assume, one sentence a line; to_text prints them under
  // the table and to_json writes them with the numbers.
  std::vector<std::string> assumptions;

  const predicted_point* at(unsigned processors) const noexcept {
    for (const auto& p : points)
      if (p.processors == processors) return &p;
    return nullptr;
  }
  FORKSCALE_INLINE std::string to_text() const;  // for people; the layout may change
  FORKSCALE_INLINE std::string to_json() const;  // schema "forkscale.prediction" version 1 (docs/predict.md)
  FORKSCALE_INLINE void write_text(const std::string& path) const;
  FORKSCALE_INLINE void write_json(const std::string& path) const;
};

// Replays the report's record on each P of `processors`. Throws forkscale::error
// (one line) when the report has no record (measure with options.record or
// FORKSCALE_RECORD=1), when the record is partial (it hit options.record_limit),
// for a P of 0 or above 65,536, and for a model with a cost that is not a
// finite number or with 0 or more than 1,000 seeds. model.scheduler automatic
// chooses by the report (replay_scheduler); prediction::model says which ran.
FORKSCALE_INLINE prediction predict(const report& rep, const std::vector<unsigned>& processors,
                                    const replay_model& model = {});

// The what-if regions through the replay (docs/predict.md): for each what-if
// row of the report in the optimized model — a region whose strands run
// `factor` times faster — the predicted time on `processors` processors.
struct what_if_prediction {
  std::string region;  // as in what_if_result::region
  what_if_source source = what_if_source::all;
  double factor = 1;  // may be infinity: the region's strands cost nothing
  unsigned processors = 0;
  double time = 0;           // the scheduler's (predicted_point::time)
  double greedy_time = 0;    // work_stealing only (0 under os_threads)
  double measured_time = 0;  // the same replay of the program as recorded
  double speedup = 0;        // measured_time / time: what the change gains on P processors
};

// One row per executed region (the all-regions rows first, then the report's
// order) and factor. Throws as predict does; empty when the report has no
// what-if rows.
FORKSCALE_INLINE std::vector<what_if_prediction> predict_what_if(const report& rep, unsigned processors,
                                                                 const replay_model& model = {});

FORKSCALE_NAMESPACE_END
