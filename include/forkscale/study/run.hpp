// study/run.hpp: running a scaling study — the thread counts, the warm-up and
// timed rounds of every kind of run, the profile, the bandwidth probe — and the
// warnings that follow from its numbers.
#pragma once
#include <string>

#include "../config.hpp"
#include "options.hpp"
#include "result.hpp"

#if FORKSCALE_DETAIL_DEFINES(studies)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <exception>
#include <functional>
#include <thread>
#include <utility>
#include <vector>
#include "../clock.hpp"
#include "../detail/output/progress.hpp"
#include "../detail/output/utf8.hpp"
#include "../detail/util/env.hpp"
#include "../guards.hpp"
#include "../report.hpp"
#include "format.hpp"
#include "predict_run.hpp"
#include "run_checks.hpp"
#endif

FORKSCALE_NAMESPACE_BEGIN
// Runs the study: warm-up runs, then `repetitions` rounds of (baseline,
// elision, the parallel program at every P), then the bandwidth probe. Throws
// forkscale::error for a workload without baseline or parallel program, zero
// repetitions or P = 0, a cost clock, or (oversubscription::refuse) a P above
// the hardware threads. Exceptions from the workload propagate.
FORKSCALE_INLINE study_result run_study(std::string label, const study_workload& w, const study_options& opt = {});

#if FORKSCALE_DETAIL_DEFINES(studies)
namespace detail {
namespace study {

inline double now_ns() noexcept {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

template <class F>
double time_ns(F&& f) {
  const double t0 = now_ns();
  f();
  return now_ns() - t0;
}

// Runs copies[i] on thread i, all starting together; returns the mean of the
// copies' own times. Every thread is joined before any exception leaves.
inline double run_copies(std::vector<std::function<void()>>& copies) {
  const std::size_t n = copies.size();
  std::vector<double> times(n, 0.0);
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  threads.reserve(n);
  std::exception_ptr start_error;
  try {
    for (std::size_t i = 0; i < n; ++i) {
      threads.emplace_back([&, i] {
        ready.fetch_add(1, std::memory_order_acq_rel);
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        const double t0 = now_ns();
        try {
          copies[i]();
        } catch (...) {
          errors[i] = std::current_exception();
        }
        times[i] = now_ns() - t0;
      });
    }
    while (ready.load(std::memory_order_acquire) < n) std::this_thread::yield();
  } catch (...) {
    start_error = std::current_exception();
  }
  go.store(true, std::memory_order_release);
  for (auto& t : threads) t.join();
  if (start_error) std::rethrow_exception(start_error);
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  double sum = 0;
  for (const double t : times) sum += t;
  return n ? sum / static_cast<double>(n) : 0.0;
}

// The mistakes of a request, refused before anything runs.
inline void check_request(const std::string& who, const study_workload& w, const study_options& opt) {
  if (!w.baseline) throw error(who + "no sequential baseline given (study_workload::baseline)");
  if (!w.parallel) throw error(who + "no parallel program given (study_workload::parallel)");
  if (opt.repetitions == 0) throw error(who + "repetitions must be at least 1");
  for (const unsigned p : opt.processors)
    if (p == 0) throw error(who + "P = 0 is not a thread count");
  if (detail::clock_option(opt.measure.clock) == clock_kind::cost)
    throw error(who + "the cost clock" + (opt.measure.clock == clock_kind::automatic ? " (FORKSCALE_CLOCK=cost)" : "") +
                " measures charged units, not time; a study needs a timed clock "
                "(automatic, tsc, steady, arm_counter or thread_cpu)");
}

// A result with the study's settings and nothing measured yet.
inline study_result unmeasured_result(const std::string& label, const study_options& opt) {
  study_result s;
  s.label = label;
  s.repetitions = opt.repetitions;
  s.warmup = opt.warmup;
  s.compensated_work = opt.compensated_work;
  s.hardware_threads = opt.hardware_threads ? opt.hardware_threads : std::thread::hardware_concurrency();
  const clock_kind chosen = detail::clock_option(opt.measure.clock);
  s.clock = chosen == clock_kind::automatic ? detail::resolve_default() : chosen;
  return s;
}

// The thread counts the oversubscription policy lets run (a P it leaves out is
// warned about; refuse throws); with the hardware threads unknown, all of them.
inline std::vector<unsigned> allowed_processors(study_result& s, const study_options& opt, const std::string& who) {
  const unsigned hw = s.hardware_threads;
  std::vector<unsigned> ps = processor_list(opt, hw);
  if (!hw) {
    s.warnings.push_back("the number of hardware threads is unknown: oversubscription was not checked");
    return ps;
  }
  std::vector<unsigned> kept;
  std::string skipped;
  for (const unsigned p : ps) {
    if (p <= hw) {
      kept.push_back(p);
      continue;
    }
    if (opt.oversubscribed == oversubscription::refuse)
      throw error(who + "P = " + std::to_string(p) + " is more than the " + std::to_string(hw) +
                  " hardware threads (use oversubscription::warn or skip to allow it)");
    if (opt.oversubscribed == oversubscription::skip) {
      skipped += (skipped.empty() ? "" : ", ") + std::to_string(p);
      continue;
    }
    kept.push_back(p);
  }
  if (!skipped.empty())
    s.warnings.push_back("P = " + skipped + " left out: more than the " + std::to_string(hw) + " hardware threads");
  return kept;
}

// s.points: one empty point per thread count to run.
inline void add_points(study_result& s, const study_options& opt, const std::string& who) {
  const unsigned hw = s.hardware_threads;
  for (const unsigned p : allowed_processors(s, opt, who)) {
    study_point pt;
    pt.processors = p;
    pt.oversubscribed = hw && p > hw;
    s.points.push_back(pt);
  }
}

// The index of the median of `t` (the lower middle one for an even count).
inline std::size_t median_index(const std::vector<double>& t) {
  std::vector<std::size_t> order(t.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return t[a] < t[b]; });
  return order[(order.size() - 1) / 2];
}

// One study in progress: runs the workload and records what it measures in the
// result.
class study_runner {
 public:
  study_runner(study_result& s, const study_workload& w, const study_options& opt, const std::string& who)
      : s_(s), w_(w), opt_(opt), who_(who), line_(opt.show_progress, "scaling study '" + s.label + "'") {}

  // Untimed runs of every kind.
  void warm_up() {
    for (unsigned i = 0; i < opt_.warmup; ++i) {
      progress("warm-up " + std::to_string(i + 1) + " of " + std::to_string(opt_.warmup));
      setup();
      w_.baseline();
      if (w_.elision) {
        setup();
        w_.elision();
      }
      for (const auto& pt : s_.points) {
        line_.show("warm-up " + std::to_string(i + 1) + " of " + std::to_string(opt_.warmup) +
                   ", P = " + std::to_string(pt.processors));
        run_parallel(nullptr, pt.processors, i + 1 == opt_.warmup && pt.processors == 1 && opt_.predict_up_to > 0);
      }
    }
  }

  // The timed rounds, round robin over the kinds of run, and their statistics.
  void time_rounds() {
    std::vector<double> base, elis;
    for (unsigned r = 0; r < opt_.repetitions; ++r) {
      progress("round " + std::to_string(r + 1) + " of " + std::to_string(opt_.repetitions));
      setup();
      base.push_back(time_ns(w_.baseline));
      if (w_.elision) {
        setup();
        elis.push_back(time_ns(w_.elision));
      }
      for (auto& pt : s_.points) {
        line_.show("round " + std::to_string(r + 1) + " of " + std::to_string(opt_.repetitions) +
                   ", P = " + std::to_string(pt.processors));
        run_parallel(&pt, pt.processors);
      }
    }
    s_.baseline = sample_stats::of(std::move(base));
    s_.elision = sample_stats::of(std::move(elis));
    for (auto& pt : s_.points) {
      pt.time = sample_stats::of(std::move(pt.time.samples));
      pt.work = sample_stats::of(std::move(pt.work.samples));
      pt.raw_work = sample_stats::of(std::move(pt.raw_work.samples));
      pt.span = sample_stats::of(std::move(pt.span.samples));
      pt.burdened_span = sample_stats::of(std::move(pt.burdened_span.samples));
      pt.spawns = sample_stats::of(std::move(pt.spawns.samples));
    }
  }

  // The record the prediction replays: made in the last warm-up round, or now,
  // untimed, when there was none.
  const report& recorded() {
    if (recorded_.empty() && opt_.warmup == 0 && opt_.predict_up_to > 0) {
      progress("recording the 1-thread run");
      run_parallel(nullptr, 1, true);
    }
    return recorded_;
  }

  // The profile: the engine's report of the 1-thread run whose time is the median.
  void choose_profile() {
    if (!one_thread_reports_.empty() && !s_.points.empty()) {
      const std::size_t pick = median_index(s_.points.front().time.samples);
      if (pick < one_thread_reports_.size()) s_.profile = std::move(one_thread_reports_[pick]);
    }
    if (s_.profile.empty())
      s_.warnings.push_back("the engine measured nothing (FORKSCALE_ENABLE=0?): WP, IP and FP are not available");
  }

  // Cilkview §5: P copies of the baseline at once against one alone, at every P above 1.
  void probe_bandwidth() {
    if (!opt_.bandwidth_probe || !w_.baseline_copy) return;
    for (const auto& pt : s_.points) {
      if (pt.processors < 2) continue;
      bandwidth_point b;
      b.copies = pt.processors;
      b.oversubscribed = pt.oversubscribed;
      s_.bandwidth.push_back(b);
    }
    if (s_.bandwidth.empty()) return;
    std::vector<double> alone;
    std::vector<std::vector<double>> together(s_.bandwidth.size());
    for (unsigned r = 0; r < opt_.repetitions; ++r) {
      progress("bandwidth probe, round " + std::to_string(r + 1) + " of " + std::to_string(opt_.repetitions));
      alone.push_back(time_copies(1));
      for (std::size_t k = 0; k < s_.bandwidth.size(); ++k) together[k].push_back(time_copies(s_.bandwidth[k].copies));
    }
    s_.probe_alone = sample_stats::of(std::move(alone));
    for (std::size_t k = 0; k < s_.bandwidth.size(); ++k)
      s_.bandwidth[k].together = sample_stats::of(std::move(together[k]));
  }

 private:
  // A step: to the caller's hook, and to the progress line on stderr.
  void progress(const std::string& line) {
    if (opt_.progress) opt_.progress(line);
    line_.show(line);
  }

  void setup() const {
    if (w_.setup) w_.setup();
  }

  // The parallel program at P threads, measured; its numbers go to *pt (none
  // for a warm-up run, pt null).
  void run_parallel(study_point* pt, unsigned p, bool record = false) {
    setup();
    double elapsed = 0;
    options o = opt_.measure;
    o.record = o.record || record;
    report rep = measure(
        s_.label, [&] { elapsed = time_ns([&] { w_.parallel(p); }); }, o);
    if (record) recorded_ = rep;
    if (!rep.empty() && rep.unit != "ns")
      throw error(who_ + "the engine measured in '" + output::printable(rep.unit) +
                  "', not ns: a study needs a timed clock (is FORKSCALE_DEFAULT_CLOCK the cost clock?)");
    if (!pt) return;
    pt->time.samples.push_back(elapsed);
    if (!rep.empty()) {
      pt->work.samples.push_back(static_cast<double>(rep.work()));
      pt->raw_work.samples.push_back(static_cast<double>(rep.root().raw_work));
      pt->span.samples.push_back(static_cast<double>(rep.span()));
      pt->burdened_span.samples.push_back(static_cast<double>(rep.burdened_span()));
      pt->spawns.samples.push_back(static_cast<double>(rep.spawns()));
      s_.clock = rep.clock;
    }
    pt->diagnostic_count += rep.diagnostic_count;
    if (p == 1) one_thread_reports_.push_back(std::move(rep));
  }

  // n copies of the baseline at once (made untimed): the mean time of one.
  double time_copies(unsigned n) const {
    std::vector<std::function<void()>> copies;
    for (unsigned c = 0; c < n; ++c) copies.push_back(w_.baseline_copy(c));
    return run_copies(copies);
  }

  study_result& s_;
  const study_workload& w_;
  const study_options& opt_;
  const std::string& who_;
  std::vector<report> one_thread_reports_;
  report recorded_;             // the recorded 1-thread run (study_options::predict_up_to)
  detail::progress_line line_;  // erased when the study is done
};

}  // namespace study
}  // namespace detail

FORKSCALE_INLINE study_result run_study(std::string label, const study_workload& w, const study_options& opt) {
  namespace ds = detail::study;
  const std::string who = "forkscale: scaling study '" + detail::output::printable(label) + "': ";
  ds::check_request(who, w, opt);
  study_result s = ds::unmeasured_result(label, opt);
  ds::add_points(s, opt, who);
  ds::study_runner run(s, w, opt, who);
  run.warm_up();
  run.time_rounds();
  run.choose_profile();
  run.probe_bandwidth();
  ds::add_prediction(s, run.recorded(), opt);
  s.recompute();
  ds::add_derived_warnings(s);
  ds::add_prediction_warnings(s, opt);
  return s;
}

#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
