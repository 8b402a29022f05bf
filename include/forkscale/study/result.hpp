// study/result.hpp: what a scaling study holds — every number measured at each P,
// the bandwidth probe, the bounds — and how the derived numbers follow (recompute).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../clock.hpp"
#include "../config.hpp"
#include "../report.hpp"
#include "prediction.hpp"
#include "scaling.hpp"

FORKSCALE_NAMESPACE_BEGIN

// ---- the study's data ------------------------------------------------------------

// Everything measured at one P.
struct study_point {
  unsigned processors = 0;
  bool oversubscribed = false;         // P is more than the hardware threads
  sample_stats time;                   // TP per run, ns
  sample_stats work;                   // the engine's work (compensated) per run, ns
  sample_stats raw_work;               // the engine's work before compensation per run, ns
  sample_stats span;                   // the engine's span per run, ns
  sample_stats burdened_span;          // the engine's burdened span per run, ns
  sample_stats spawns;                 // spawns per run
  std::uint64_t diagnostic_count = 0;  // misuse found over all runs at this P

  // Derived by study_result::recompute() from the samples above.
  double parallel_work = scaling::nan();   // WP: mean of work or raw_work (study_result::compensated_work)
  double idle_time = scaling::nan();       // IP = P·TP − WP (means)
  double work_inflation = scaling::nan();  // FP = WP − T1 (means)
  sample_stats idle;                       // P·TP − WP per run
  sample_stats inflation;                  // WP − mean T1 per run
  scaling::factored_speedups speedup;      // from the means
  double actual_low = scaling::nan();      // Ts / max TP
  double actual_high = scaling::nan();     // Ts / min TP
  double self_speedup = scaling::nan();    // T1 / TP (what Cilkview's bounds bound)
  double self_low = scaling::nan();        // T1 / max TP
  double self_high = scaling::nan();       // T1 / min TP
};

// Cilkview §5's probe at one P: P copies of the serial baseline at once.
struct bandwidth_point {
  unsigned copies = 0;
  bool oversubscribed = false;
  sample_stats together;             // mean time of one copy among P, per repetition, ns
  double slowdown = scaling::nan();  // together.mean / alone.mean
};

// The engine's numbers the scalability plot's bounds come from (the profile).
struct study_bounds {
  double work = scaling::nan();
  double span = scaling::nan();
  double burdened_span = scaling::nan();
  double parallelism = scaling::nan();
  double burdened_parallelism = scaling::nan();
};

struct study_result {
  std::string label;
  std::string unit = "ns";
  clock_kind clock = clock_kind::steady;  // the engine's clock (resolved)
  unsigned hardware_threads = 0;          // 0: unknown
  unsigned repetitions = 0;
  unsigned warmup = 0;
  bool compensated_work = false;           // WP = work (true) or raw_work (false, the default)
  sample_stats baseline;                   // Ts per run
  sample_stats elision;                    // Te per run (empty: not timed)
  std::vector<study_point> points;         // ascending P, P = 1 first
  sample_stats probe_alone;                // one copy of the baseline alone, per repetition
  std::vector<bandwidth_point> bandwidth;  // empty: the probe did not run
  report profile;                          // the engine's report of the median 1-thread run
  study_bounds bounds;                     // derived from profile
  study_prediction prediction;             // the replay of the 1-thread record (docs/predict.md)
  std::vector<std::string> warnings;

  double ts() const noexcept { return baseline.mean; }
  double te() const noexcept { return elision.mean; }
  double t1() const noexcept { return points.empty() ? scaling::nan() : points.front().time.mean; }
  bool has_elision() const noexcept { return !elision.empty(); }
  const study_point* at(unsigned p) const noexcept {
    for (const auto& pt : points)
      if (pt.processors == p) return &pt;
    return nullptr;
  }
  unsigned max_processors() const noexcept { return points.empty() ? 0 : points.back().processors; }

  // Fills every derived number (study_point's second half, bandwidth slowdowns,
  // bounds) from the samples and the profile.
  void recompute();

  std::string to_text() const;  // for people; the layout may change
  std::string to_json() const;  // schema "forkscale.study" version 1 (docs/study-schema.md)
  std::string to_csv() const;   // one row per P
  void write_text(const std::string& path) const;
  void write_json(const std::string& path) const;
  void write_csv(const std::string& path) const;
};

inline void study_result::recompute() {
  using namespace scaling;
  const double ts_mean = ts();
  const double t1_mean = t1();
  const double te_mean = te();
  for (auto& pt : points) {
    const unsigned p = pt.processors;
    const sample_stats& w = compensated_work ? pt.work : pt.raw_work;
    pt.parallel_work = w.mean;
    pt.idle_time = idle_time(p, pt.time.mean, w.mean);
    pt.work_inflation = work_inflation(w.mean, t1_mean);
    std::vector<double> idle, infl;
    if (w.count() == pt.time.count()) {
      for (std::size_t i = 0; i < w.count(); ++i) {
        idle.push_back(scaling::idle_time(p, pt.time.samples[i], w.samples[i]));
        infl.push_back(scaling::work_inflation(w.samples[i], t1_mean));
      }
    }
    pt.idle = sample_stats::of(std::move(idle));
    pt.inflation = sample_stats::of(std::move(infl));
    pt.speedup = factored(p, ts_mean, t1_mean, pt.time.mean, w.mean, te_mean);
    pt.actual_low = ratio(ts_mean, pt.time.max);
    pt.actual_high = ratio(ts_mean, pt.time.min);
    pt.self_speedup = ratio(t1_mean, pt.time.mean);
    pt.self_low = ratio(t1_mean, pt.time.max);
    pt.self_high = ratio(t1_mean, pt.time.min);
  }
  for (auto& b : bandwidth) b.slowdown = bandwidth_slowdown(b.together.mean, probe_alone.mean);
  for (auto& pp : prediction.points) {  // the measured TP next to each predicted one
    const study_point* m = at(pp.processors);
    pp.measured = m ? m->time.mean : nan();
    pp.error = m ? ratio(pp.time - pp.measured, pp.measured) : nan();
  }
  bounds = study_bounds{};
  if (!profile.empty()) {
    const region_result& r = profile.root();
    bounds.work = static_cast<double>(r.work);
    bounds.span = static_cast<double>(r.span);
    bounds.burdened_span = static_cast<double>(r.burdened_span);
    bounds.parallelism = ratio(bounds.work, bounds.span);
    bounds.burdened_parallelism = ratio(bounds.work, bounds.burdened_span);
  }
}

FORKSCALE_NAMESPACE_END
