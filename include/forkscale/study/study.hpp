// study.hpp: a scaling study — the program timed at 1..P threads next to its
// sequential baseline, with forkscale's engine measuring the work of every run.
//
//   fs::study_workload w;
//   w.setup    = [&] { data = input; };                  // untimed, before every run
//   w.baseline = [&] { std::sort(data.begin(), data.end()); };          // Ts
//   w.parallel = [&](unsigned p) { parallel_sort(data, p); };          // annotated
//   fs::study_result s = fs::run_study("sort", w);       // P = 1, 2, 4, ... hardware threads
//   std::cout << s.to_text();  s.write_json("sort.study.json");
//
// What is measured (Acar, Charguéraud and Rainey, "Parallel Work Inflation,
// Memory Effects, and their Empirical Analysis", §2; docs/study.md):
//   Ts  time of the sequential baseline;       Te  time of the serial elision (optional)
//   T1  time of the parallel program, 1 thread; TP  time of the parallel program, P threads
//   WP  the work forkscale's engine measured in the P-thread run (the sum of its
//       strands on a timed clock), IP = P·TP − WP the idle time, FP = WP − T1 the
//       work inflation, and the factored speedups built from them.
// Every run of the parallel program runs inside fs::measure (with the study's
// options), and is timed with steady_clock around the call. Each kind of run is
// repeated (default 5 times, round robin so that slow drifts of the machine hit
// every kind alike); means, medians and spread are reported, and every speedup is
// a ratio of means (Acar §2.7). The memory-bandwidth probe of Cilkview §5 times P
// simultaneous copies of the serial baseline against one alone.
//
// Opt-in header: the umbrella forkscale.hpp does not include it.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../forkscale.hpp"
#include "../read_report.hpp"
#include "../detail/util/atomic_file.hpp"
#include "../detail/input/json_reader.hpp"
#include "../detail/output/report_writers.hpp"

FORKSCALE_NAMESPACE_BEGIN

// ---- statistics of repeated runs ----------------------------------------------

// The samples of one quantity over the repetitions, and their summary. With no
// samples every statistic is NaN (written as null); the standard deviation (with
// n − 1) needs two samples.
struct sample_stats {
  std::vector<double> samples;
  double mean = std::numeric_limits<double>::quiet_NaN();
  double median = std::numeric_limits<double>::quiet_NaN();
  double min = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
  double stddev = std::numeric_limits<double>::quiet_NaN();

  bool empty() const noexcept { return samples.empty(); }
  std::size_t count() const noexcept { return samples.size(); }

  static sample_stats of(std::vector<double> values) {
    sample_stats s;
    s.samples = std::move(values);
    const std::size_t n = s.samples.size();
    if (n == 0) return s;
    double sum = 0;
    for (const double v : s.samples) sum += v;
    s.mean = sum / static_cast<double>(n);
    std::vector<double> sorted = s.samples;
    std::sort(sorted.begin(), sorted.end());
    s.min = sorted.front();
    s.max = sorted.back();
    s.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    if (n >= 2) {
      double sq = 0;
      for (const double v : s.samples) sq += (v - s.mean) * (v - s.mean);
      s.stddev = std::sqrt(sq / static_cast<double>(n - 1));
    }
    return s;
  }
};

// ---- the formulas ----------------------------------------------------------------

namespace scaling {

inline double nan() noexcept { return std::numeric_limits<double>::quiet_NaN(); }

// a / b, or NaN when b is not positive or either is NaN.
inline double ratio(double a, double b) noexcept {
  if (std::isnan(a) || std::isnan(b) || !(b > 0)) return nan();
  return a / b;
}

// Acar Fact 2.1: P·TP = WP + IP.
inline double idle_time(unsigned p, double tp, double wp) noexcept { return p * tp - wp; }

// Acar Fact 2.2: FP = WP − T1.
inline double work_inflation(double wp, double t1) noexcept { return wp - t1; }

// The curves of a factored speedup plot at P threads (Acar §2.3 and §2.8).
struct factored_speedups {
  double linear = nan();              // P
  double elision = nan();             // P·Ts / Te (when the serial elision was timed)
  double maximal = nan();             // P·Ts / T1
  double idle_specific = nan();       // P·Ts / (T1 + IP)
  double inflation_specific = nan();  // P·Ts / (P·TP − IP) = P·Ts / WP
  double actual = nan();              // Ts / TP
};

inline factored_speedups factored(unsigned p, double ts, double t1, double tp, double wp,
                                  double te = nan()) noexcept {
  factored_speedups f;
  const double pts = p * ts;
  const double ip = idle_time(p, tp, wp);
  f.linear = p;
  f.elision = ratio(pts, te);
  f.maximal = ratio(pts, t1);
  f.idle_specific = ratio(pts, t1 + ip);
  f.inflation_specific = ratio(pts, p * tp - ip);
  f.actual = ratio(ts, tp);
  return f;
}

// Cilkview's bounds on the speedup T1/TP (SPAA'10 §2–3): the work law (at most
// P), the span law (at most the parallelism T1/T∞, with the plain span) and the
// estimated lower bound of Corollary 2 with span coefficient 0.85, which uses
// the burdened span. The lower bound is an estimate, not a guarantee.
inline double work_law(unsigned p) noexcept { return static_cast<double>(p); }
inline double span_law(double work, double span) noexcept { return ratio(work, span); }
// (It never exceeds min(P, parallelism): the burdened span is at least the span.)
inline double burdened_lower_bound(unsigned p, double work, double burdened_span) noexcept {
  return ratio(work, work / p + 1.7 * burdened_span);
}

// Cilkview §5: the time of one copy of the serial program while P copies run at
// once, over its time alone. Well above 1: memory bandwidth limits scaling.
inline double bandwidth_slowdown(double together, double alone) noexcept { return ratio(together, alone); }

}  // namespace scaling

// ---- the study's data ------------------------------------------------------------

// Everything measured at one P.
struct study_point {
  unsigned processors = 0;
  bool oversubscribed = false;  // P is more than the hardware threads
  sample_stats time;            // TP per run, ns
  sample_stats work;            // the engine's work (compensated) per run, ns
  sample_stats raw_work;        // the engine's work before compensation per run, ns
  sample_stats span;            // the engine's span per run, ns
  sample_stats burdened_span;   // the engine's burdened span per run, ns
  sample_stats spawns;          // spawns per run
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
  sample_stats together;                // mean time of one copy among P, per repetition, ns
  double slowdown = scaling::nan();     // together.mean / alone.mean
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
  bool compensated_work = false;          // WP = work (true) or raw_work (false, the default)
  sample_stats baseline;                  // Ts per run
  sample_stats elision;                   // Te per run (empty: not timed)
  std::vector<study_point> points;        // ascending P, P = 1 first
  sample_stats probe_alone;               // one copy of the baseline alone, per repetition
  std::vector<bandwidth_point> bandwidth; // empty: the probe did not run
  report profile;                         // the engine's report of the median 1-thread run
  study_bounds bounds;                    // derived from profile
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

// ---- running a study ---------------------------------------------------------------

// What the study runs. baseline and parallel are required.
struct study_workload {
  // Called before every timed run of the baseline, the elision and the parallel
  // program, untimed: restore the input (refill the array a sort sorted).
  std::function<void()> setup;
  // The sequential baseline: the best serial program for the problem (Ts).
  std::function<void()> baseline;
  // The parallel program on P threads, annotated with forkscale's guards (its
  // spawns and joins), so that the engine sees the work of every thread.
  std::function<void(unsigned threads)> parallel;
  // Optional: the serial elision (the parallel code with every spawn run inline
  // and no scheduler), Te.
  std::function<void()> elision;
  // Optional, for the memory-bandwidth probe: makes one independent copy of the
  // serial baseline (with its own data) and returns it; making it is untimed,
  // running it is timed. Copies run at the same time on different threads.
  std::function<std::function<void()>(unsigned copy)> baseline_copy;
};

// What to do with a P larger than the number of hardware threads.
enum class oversubscription {
  warn,    // run it, mark the point and add a warning (default)
  skip,    // leave it out, with a warning
  refuse,  // throw forkscale::error before running anything
};

struct study_options {
  // The thread counts. 1 is always added (T1 is needed); empty means 1, 2, 4,
  // ... up to the hardware threads, and the hardware threads themselves.
  std::vector<unsigned> processors;
  unsigned repetitions = 5;       // timed runs of each kind
  unsigned warmup = 1;            // untimed runs of each kind first
  unsigned hardware_threads = 0;  // 0: std::thread::hardware_concurrency()
  oversubscription oversubscribed = oversubscription::warn;
  // WP from the engine's work after overhead compensation (true) or before it
  // (false, default): TP includes the profiler's own cost, so WP must too, or
  // that cost would show up as idle time.
  bool compensated_work = false;
  bool bandwidth_probe = true;    // when study_workload::baseline_copy is given
  options measure;                // for each fs::measure; its clock must be a timed one
  std::function<void(const std::string&)> progress;  // one line per step, optional
};

namespace detail {
namespace study {

inline double now_ns() noexcept {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count());
}

template <class F>
double time_ns(F&& f) {
  const double t0 = now_ns();
  f();
  return now_ns() - t0;
}

inline std::string fmt(double v, int decimals = 2) { return report_io::fixed(v, decimals); }

inline std::string percent(double v) { return report_io::fixed(100 * v, 1) + "%"; }

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

inline std::vector<unsigned> processor_list(const study_options& opt, unsigned hw) {
  std::vector<unsigned> ps = opt.processors;
  if (ps.empty()) {
    const unsigned top = hw ? hw : 1;
    for (unsigned p = 1; p <= top; p *= 2) {
      ps.push_back(p);
      if (p > top / 2) break;
    }
    ps.push_back(top);
  }
  ps.push_back(1);
  std::sort(ps.begin(), ps.end());
  ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
  return ps;
}

// The warnings that follow from the numbers alone.
inline void add_derived_warnings(study_result& s) {
  const auto P = [](unsigned p) { return "P = " + std::to_string(p); };
  std::vector<unsigned> over;
  for (const auto& pt : s.points)
    if (pt.oversubscribed) over.push_back(pt.processors);
  if (!over.empty()) {
    std::string list;
    for (const unsigned p : over) list += (list.empty() ? "" : ", ") + std::to_string(p);
    s.warnings.push_back("P = " + list + (over.size() > 1 ? " are" : " is") + " more than the " +
                         std::to_string(s.hardware_threads) +
                         " hardware threads: threads waited for a core, which the timed clock counts as "
                         "work, so TP, IP and FP there describe oversubscription, not the program "
                         "(marked * and drawn hollow)");
  }
  for (const auto& pt : s.points) {
    if (pt.diagnostic_count)
      s.warnings.push_back("forkscale found " + std::to_string(pt.diagnostic_count) +
                           " misuse diagnostic(s) in the runs at " + P(pt.processors) +
                           ": WP there may be wrong");
    if (pt.processors > 1 && !pt.spawns.empty() && pt.spawns.max == 0)
      s.warnings.push_back("no spawns were recorded at " + P(pt.processors) +
                           ": is the parallel workload annotated with forkscale's guards? WP then counts "
                           "only the calling thread");
    const double budget = pt.processors * pt.time.mean;
    if (!std::isnan(pt.idle_time) && budget > 0 && pt.idle_time < -0.02 * budget)
      s.warnings.push_back("IP is negative at " + P(pt.processors) + " (" + percent(pt.idle_time / budget) +
                           " of P·TP): the engine counted more work than " + std::to_string(pt.processors) +
                           " threads had time for; the workload may run more threads than P, or threads "
                           "were preempted");
    if (pt.time.count() >= 2 && pt.time.median > 0 && (pt.time.max - pt.time.min) / pt.time.median > 0.25)
      s.warnings.push_back("TP at " + P(pt.processors) + " varies by " +
                           percent((pt.time.max - pt.time.min) / pt.time.median) +
                           " of its median between runs: the machine may be busy; quiet it or raise the "
                           "repetitions (Cilkview §4)");
  }
  if (s.baseline.count() >= 2 && s.baseline.median > 0 &&
      (s.baseline.max - s.baseline.min) / s.baseline.median > 0.25)
    s.warnings.push_back("Ts varies by " + percent((s.baseline.max - s.baseline.min) / s.baseline.median) +
                         " of its median between runs: the machine may be busy");
  for (const auto& b : s.bandwidth)
    if (!std::isnan(b.slowdown) && b.slowdown > 1.2 && !b.oversubscribed)
      s.warnings.push_back(std::to_string(b.copies) + " copies of the baseline at once take " +
                           fmt(b.slowdown) + "x as long as one alone: memory bandwidth (or other load on the "
                           "machine) may limit scaling (Cilkview §5)");
}

}  // namespace study
}  // namespace detail

// Runs the study: warm-up runs, then `repetitions` rounds of (baseline,
// elision, the parallel program at every P), then the bandwidth probe. Throws
// forkscale::error for a workload without baseline or parallel program, zero
// repetitions or P = 0, a cost clock, or (oversubscription::refuse) a P above
// the hardware threads. Exceptions from the workload propagate.
inline study_result run_study(std::string label, const study_workload& w, const study_options& opt = {}) {
  namespace ds = detail::study;
  const std::string who = "forkscale: scaling study '" + detail::report_io::printable(label) + "': ";
  if (!w.baseline) throw error(who + "no sequential baseline given (study_workload::baseline)");
  if (!w.parallel) throw error(who + "no parallel program given (study_workload::parallel)");
  if (opt.repetitions == 0) throw error(who + "repetitions must be at least 1");
  for (const unsigned p : opt.processors)
    if (p == 0) throw error(who + "P = 0 is not a thread count");
  if (opt.measure.clock == clock_kind::cost)
    throw error(who + "the cost clock measures charged units, not time; a study needs a timed clock "
                      "(automatic, tsc, steady or arm_counter)");

  study_result s;
  s.label = label;
  s.repetitions = opt.repetitions;
  s.warmup = opt.warmup;
  s.compensated_work = opt.compensated_work;
  s.hardware_threads = opt.hardware_threads ? opt.hardware_threads : std::thread::hardware_concurrency();
  s.clock = opt.measure.clock == clock_kind::automatic ? detail::resolve_automatic() : opt.measure.clock;
  const unsigned hw = s.hardware_threads;

  std::vector<unsigned> ps = ds::processor_list(opt, hw);
  if (hw) {
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
      s.warnings.push_back("P = " + skipped + " left out: more than the " + std::to_string(hw) +
                           " hardware threads");
    ps = kept;
  } else {
    s.warnings.push_back("the number of hardware threads is unknown: oversubscription was not checked");
  }
  for (const unsigned p : ps) {
    study_point pt;
    pt.processors = p;
    pt.oversubscribed = hw && p > hw;
    s.points.push_back(pt);
  }

  const auto progress = [&](const std::string& line) {
    if (opt.progress) opt.progress(line);
  };
  const auto setup = [&] {
    if (w.setup) w.setup();
  };
  std::vector<report> one_thread_reports;
  const auto run_parallel = [&](study_point* pt, unsigned p) {
    setup();
    double elapsed = 0;
    report rep = measure(label, [&] { elapsed = ds::time_ns([&] { w.parallel(p); }); }, opt.measure);
    if (!rep.empty() && rep.unit != "ns")
      throw error(who + "the engine measured in '" + detail::report_io::printable(rep.unit) +
                  "', not ns: a study needs a timed clock (is FORKSCALE_DEFAULT_CLOCK the cost clock?)");
    if (!pt) return;
    pt->time.samples.push_back(elapsed);
    if (!rep.empty()) {
      pt->work.samples.push_back(static_cast<double>(rep.work()));
      pt->raw_work.samples.push_back(static_cast<double>(rep.root().raw_work));
      pt->span.samples.push_back(static_cast<double>(rep.span()));
      pt->burdened_span.samples.push_back(static_cast<double>(rep.burdened_span()));
      pt->spawns.samples.push_back(static_cast<double>(rep.spawns()));
      s.clock = rep.clock;
    }
    pt->diagnostic_count += rep.diagnostic_count;
    if (p == 1) one_thread_reports.push_back(std::move(rep));
  };

  for (unsigned i = 0; i < opt.warmup; ++i) {
    progress("warm-up " + std::to_string(i + 1) + " of " + std::to_string(opt.warmup));
    setup();
    w.baseline();
    if (w.elision) {
      setup();
      w.elision();
    }
    for (const auto& pt : s.points) run_parallel(nullptr, pt.processors);
  }

  std::vector<double> base, elis;
  for (unsigned r = 0; r < opt.repetitions; ++r) {
    progress("round " + std::to_string(r + 1) + " of " + std::to_string(opt.repetitions));
    setup();
    base.push_back(ds::time_ns(w.baseline));
    if (w.elision) {
      setup();
      elis.push_back(ds::time_ns(w.elision));
    }
    for (auto& pt : s.points) run_parallel(&pt, pt.processors);
  }
  s.baseline = sample_stats::of(std::move(base));
  s.elision = sample_stats::of(std::move(elis));
  for (auto& pt : s.points) {
    pt.time = sample_stats::of(std::move(pt.time.samples));
    pt.work = sample_stats::of(std::move(pt.work.samples));
    pt.raw_work = sample_stats::of(std::move(pt.raw_work.samples));
    pt.span = sample_stats::of(std::move(pt.span.samples));
    pt.burdened_span = sample_stats::of(std::move(pt.burdened_span.samples));
    pt.spawns = sample_stats::of(std::move(pt.spawns.samples));
  }

  // The profile: the 1-thread run whose time is the median (the lower middle one
  // for an even count).
  if (!one_thread_reports.empty() && !s.points.empty()) {
    const std::vector<double>& t = s.points.front().time.samples;
    std::vector<std::size_t> order(t.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return t[a] < t[b]; });
    const std::size_t pick = order[(order.size() - 1) / 2];
    if (pick < one_thread_reports.size()) s.profile = std::move(one_thread_reports[pick]);
  }
  if (s.profile.empty())
    s.warnings.push_back("the engine measured nothing (FORKSCALE_ENABLE=0?): WP, IP and FP are not available");

  if (opt.bandwidth_probe && w.baseline_copy) {
    std::vector<double> alone;
    for (const auto& pt : s.points) {
      if (pt.processors < 2) continue;
      bandwidth_point b;
      b.copies = pt.processors;
      b.oversubscribed = pt.oversubscribed;
      s.bandwidth.push_back(b);
    }
    if (!s.bandwidth.empty()) {
      std::vector<std::vector<double>> together(s.bandwidth.size());
      for (unsigned r = 0; r < opt.repetitions; ++r) {
        progress("bandwidth probe, round " + std::to_string(r + 1) + " of " + std::to_string(opt.repetitions));
        std::vector<std::function<void()>> one{w.baseline_copy(0)};
        alone.push_back(ds::run_copies(one));
        for (std::size_t k = 0; k < s.bandwidth.size(); ++k) {
          std::vector<std::function<void()>> copies;
          for (unsigned c = 0; c < s.bandwidth[k].copies; ++c) copies.push_back(w.baseline_copy(c));
          together[k].push_back(ds::run_copies(copies));
        }
      }
      s.probe_alone = sample_stats::of(std::move(alone));
      for (std::size_t k = 0; k < s.bandwidth.size(); ++k)
        s.bandwidth[k].together = sample_stats::of(std::move(together[k]));
    }
  }

  s.recompute();
  ds::add_derived_warnings(s);
  return s;
}

// ---- JSON ------------------------------------------------------------------------

namespace detail {
namespace study {

inline void write_stats(report_io::json_writer& j, const char* key, const sample_stats& s) {
  j.key(key);
  j.begin_object();
  j.member("mean", s.mean);
  j.member("median", s.median);
  j.member("min", s.min);
  j.member("max", s.max);
  j.member("stddev", s.stddev);
  j.key("samples");
  j.begin_array();
  for (const double v : s.samples) j.value(v);
  j.end_array();
  j.end_object();
}

}  // namespace study
}  // namespace detail

inline std::string study_result::to_json() const {
  namespace ds = detail::study;
  detail::report_io::json_writer j;
  j.begin_object();
  j.member("schema", "forkscale.study");
  j.member("schema_version", std::uint64_t{1});
  j.member("forkscale_version", FORKSCALE_VERSION_STRING);
  j.member("label", label);
  j.member("unit", unit);
  j.member("clock", to_string(clock));
  j.member("hardware_threads", static_cast<std::uint64_t>(hardware_threads));
  j.member("repetitions", static_cast<std::uint64_t>(repetitions));
  j.member("warmup", static_cast<std::uint64_t>(warmup));
  j.member("work_measure", compensated_work ? "work" : "raw_work");
  ds::write_stats(j, "baseline", baseline);
  ds::write_stats(j, "elision", elision);
  j.key("runs");
  j.begin_array();
  for (const auto& pt : points) {
    j.begin_object();
    j.member("processors", static_cast<std::uint64_t>(pt.processors));
    j.key("oversubscribed");
    j.value_raw(pt.oversubscribed ? "true" : "false");
    ds::write_stats(j, "time", pt.time);
    ds::write_stats(j, "work", pt.work);
    ds::write_stats(j, "raw_work", pt.raw_work);
    ds::write_stats(j, "span", pt.span);
    ds::write_stats(j, "burdened_span", pt.burdened_span);
    ds::write_stats(j, "spawns", pt.spawns);
    j.member("diagnostic_count", pt.diagnostic_count);
    j.member("parallel_work", pt.parallel_work);
    j.member("idle_time", pt.idle_time);
    j.member("work_inflation", pt.work_inflation);
    ds::write_stats(j, "idle", pt.idle);
    ds::write_stats(j, "inflation", pt.inflation);
    j.key("speedup");
    j.begin_object();
    j.member("linear", pt.speedup.linear);
    j.member("elision", pt.speedup.elision);
    j.member("maximal", pt.speedup.maximal);
    j.member("idle_specific", pt.speedup.idle_specific);
    j.member("inflation_specific", pt.speedup.inflation_specific);
    j.member("actual", pt.speedup.actual);
    j.member("actual_low", pt.actual_low);
    j.member("actual_high", pt.actual_high);
    j.end_object();
    j.key("self_speedup");
    j.begin_object();
    j.member("value", pt.self_speedup);
    j.member("low", pt.self_low);
    j.member("high", pt.self_high);
    j.end_object();
    j.end_object();
  }
  j.end_array();
  j.key("bounds");
  j.begin_object();
  j.member("work", bounds.work);
  j.member("span", bounds.span);
  j.member("burdened_span", bounds.burdened_span);
  j.member("parallelism", bounds.parallelism);
  j.member("burdened_parallelism", bounds.burdened_parallelism);
  j.end_object();
  j.key("bandwidth_probe");
  j.begin_object();
  ds::write_stats(j, "alone", probe_alone);
  j.key("runs");
  j.begin_array();
  for (const auto& b : bandwidth) {
    j.begin_object();
    j.member("copies", static_cast<std::uint64_t>(b.copies));
    j.key("oversubscribed");
    j.value_raw(b.oversubscribed ? "true" : "false");
    ds::write_stats(j, "together", b.together);
    j.member("slowdown", b.slowdown);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  j.key("profile");
  if (profile.empty()) {
    j.value_raw("null");
  } else {
    // The report's own JSON, re-indented into this document (no size limits:
    // forkscale wrote it).
    detail::json::limits unlimited;
    unlimited.max_bytes = static_cast<std::size_t>(-1);
    unlimited.max_values = static_cast<std::size_t>(-1);
    detail::json::write_value(j, detail::json::parse(profile.to_json(), unlimited));
  }
  j.key("warnings");
  j.begin_array();
  for (const auto& wmsg : warnings) j.value(wmsg);
  j.end_array();
  j.end_object();
  return j.finish();
}

namespace detail {
namespace study {

inline sample_stats read_stats(const json::object_reader& parent, const char* key) {
  const json::object_reader r(parent.object(key), parent.path(key));
  const json::value& arr = r.array("samples");
  std::vector<double> samples;
  samples.reserve(arr.items.size());
  for (std::size_t i = 0; i < arr.items.size(); ++i)
    samples.push_back(json::object_reader::number_of(arr.items[i],
                                                     r.path("samples") + "[" + std::to_string(i) + "]", false));
  sample_stats s = sample_stats::of(std::move(samples));
  const auto check = [&](const char* k, double recomputed) {
    json::check_derived(r.required(k), r.path(k), r.number(k, true), recomputed);
  };
  check("mean", s.mean);
  check("median", s.median);
  check("min", s.min);
  check("max", s.max);
  check("stddev", s.stddev);
  return s;
}

inline void check_stats(const json::object_reader& parent, const char* key, const sample_stats& recomputed) {
  const sample_stats stated = read_stats(parent, key);
  const json::value& at = parent.required(key);
  if (stated.samples.size() != recomputed.samples.size())
    throw json::json_error(at.offset, parent.path(key) + " has " + std::to_string(stated.samples.size()) +
                                          " samples, but the file's own data give " +
                                          std::to_string(recomputed.samples.size()) + " (the file is inconsistent)");
  const json::object_reader r(at, parent.path(key));
  for (std::size_t i = 0; i < stated.samples.size(); ++i)
    json::check_derived(r.array("samples").items[i], r.path("samples") + "[" + std::to_string(i) + "]",
                        stated.samples[i], recomputed.samples[i]);
}

inline void check_number(const json::object_reader& r, const char* key, double recomputed) {
  json::check_derived(r.required(key), r.path(key), r.number(key, true), recomputed);
}

inline study_result study_from_value(const json::value& v) {
  const json::object_reader top(v, "");
  json::check_schema(top, "forkscale.study", 1);
  study_result s;
  s.label = top.str("label");
  s.unit = top.str("unit");
  if (s.unit != "ns")
    throw json::json_error(top.required("unit").offset, "unit: expected \"ns\", found " + json::quote_for_message(s.unit));
  s.clock = json::clock_from_name(top, "clock");
  s.hardware_threads = top.u32("hardware_threads");
  s.repetitions = top.u32("repetitions");
  s.warmup = top.u32("warmup");
  const std::string measure = top.str("work_measure");
  if (measure != "work" && measure != "raw_work")
    throw json::json_error(top.required("work_measure").offset,
                           "work_measure: expected \"work\" or \"raw_work\", found " + json::quote_for_message(measure));
  s.compensated_work = measure == "work";
  s.baseline = read_stats(top, "baseline");
  s.elision = read_stats(top, "elision");

  const json::value& runs = top.array("runs");
  for (std::size_t i = 0; i < runs.items.size(); ++i) {
    const json::object_reader r(runs.items[i], "runs[" + std::to_string(i) + "]");
    study_point pt;
    pt.processors = r.u32("processors");
    if (pt.processors == 0 || (i > 0 && pt.processors <= s.points.back().processors))
      throw json::json_error(r.required("processors").offset,
                             r.path("processors") + ": the thread counts must be positive and ascending");
    if (i == 0 && pt.processors != 1)
      throw json::json_error(r.required("processors").offset, r.path("processors") + ": the first run must be P = 1");
    pt.oversubscribed = r.boolean("oversubscribed");
    pt.time = read_stats(r, "time");
    pt.work = read_stats(r, "work");
    pt.raw_work = read_stats(r, "raw_work");
    pt.span = read_stats(r, "span");
    pt.burdened_span = read_stats(r, "burdened_span");
    pt.spawns = read_stats(r, "spawns");
    const sample_stats& wp = s.compensated_work ? pt.work : pt.raw_work;
    if (!wp.empty() && wp.count() != pt.time.count())
      throw json::json_error(r.required("time").offset, r.path("time") + " and the work have different numbers of samples");
    pt.diagnostic_count = r.u64("diagnostic_count");
    s.points.push_back(std::move(pt));
  }

  const json::object_reader probe(top.object("bandwidth_probe"), "bandwidth_probe");
  s.probe_alone = read_stats(probe, "alone");
  const json::value& bruns = probe.array("runs");
  for (std::size_t i = 0; i < bruns.items.size(); ++i) {
    const json::object_reader r(bruns.items[i], "bandwidth_probe.runs[" + std::to_string(i) + "]");
    bandwidth_point b;
    b.copies = r.u32("copies");
    b.oversubscribed = r.boolean("oversubscribed");
    b.together = read_stats(r, "together");
    s.bandwidth.push_back(std::move(b));
  }

  const json::value& prof = top.required("profile");
  if (!prof.is(json::kind::null)) s.profile = json::report_from_value(prof, "profile");

  const json::value& warns = top.array("warnings");
  for (std::size_t i = 0; i < warns.items.size(); ++i) {
    const json::value& m = warns.items[i];
    if (!m.is(json::kind::string))
      throw json::json_error(m.offset, "warnings[" + std::to_string(i) + "]: expected a string, found " +
                                           json::kind_name(m.type));
    s.warnings.push_back(m.text);
  }

  // Every derived number the file states must be what its samples give.
  s.recompute();
  for (std::size_t i = 0; i < runs.items.size(); ++i) {
    const json::object_reader r(runs.items[i], "runs[" + std::to_string(i) + "]");
    const study_point& pt = s.points[i];
    check_number(r, "parallel_work", pt.parallel_work);
    check_number(r, "idle_time", pt.idle_time);
    check_number(r, "work_inflation", pt.work_inflation);
    check_stats(r, "idle", pt.idle);
    check_stats(r, "inflation", pt.inflation);
    const json::object_reader sp(r.object("speedup"), r.path("speedup"));
    check_number(sp, "linear", pt.speedup.linear);
    check_number(sp, "elision", pt.speedup.elision);
    check_number(sp, "maximal", pt.speedup.maximal);
    check_number(sp, "idle_specific", pt.speedup.idle_specific);
    check_number(sp, "inflation_specific", pt.speedup.inflation_specific);
    check_number(sp, "actual", pt.speedup.actual);
    check_number(sp, "actual_low", pt.actual_low);
    check_number(sp, "actual_high", pt.actual_high);
    const json::object_reader self(r.object("self_speedup"), r.path("self_speedup"));
    check_number(self, "value", pt.self_speedup);
    check_number(self, "low", pt.self_low);
    check_number(self, "high", pt.self_high);
  }
  for (std::size_t i = 0; i < bruns.items.size(); ++i) {
    const json::object_reader r(bruns.items[i], "bandwidth_probe.runs[" + std::to_string(i) + "]");
    check_number(r, "slowdown", s.bandwidth[i].slowdown);
  }
  const json::object_reader b(top.object("bounds"), "bounds");
  check_number(b, "work", s.bounds.work);
  check_number(b, "span", s.bounds.span);
  check_number(b, "burdened_span", s.bounds.burdened_span);
  check_number(b, "parallelism", s.bounds.parallelism);
  check_number(b, "burdened_parallelism", s.bounds.burdened_parallelism);
  return s;
}

}  // namespace study
}  // namespace detail

// A study from the text of its JSON. Throws forkscale::error ("forkscale:
// invalid study JSON: byte <n>: <problem>").
inline study_result study_from_json(const std::string& text) {
  try {
    return detail::study::study_from_value(detail::json::parse(text));
  } catch (const detail::json::json_error& e) {
    throw error(std::string("forkscale: invalid study JSON: ") + e.what());
  }
}

// A study from a file written by study_result::write_json. Throws
// forkscale::error ("forkscale: cannot read study '<path>': <problem>").
inline study_result read_study(const std::string& path) {
  const std::string text = detail::json::read_file(path, "study");
  try {
    return detail::study::study_from_value(detail::json::parse(text));
  } catch (const detail::json::json_error& e) {
    throw error("forkscale: cannot read study '" + detail::printable_path(path) + "': " + e.what());
  }
}

// ---- text and CSV -------------------------------------------------------------------

namespace detail {
namespace study {

// A time in ns as grouped integer ns ("12,345,678"), "n/a" when unknown.
inline std::string ns_text(double v) {
  if (std::isnan(v)) return "n/a";
  if (v < 0) return "-" + report_io::grouped_round(-v);
  return report_io::grouped_round(v);
}

inline std::string ratio_cell(double v) { return std::isnan(v) ? "n/a" : report_io::fixed(v, 2); }

inline std::string spread_text(const sample_stats& s) {
  if (s.empty()) return "n/a";
  if (!(s.median > 0)) return "0.0%";
  return "±" + report_io::fixed(50 * (s.max - s.min) / s.median, 1) + "%";
}

inline std::string stats_line(const char* name, const sample_stats& s) {
  std::string out = std::string("  ") + name;
  if (s.empty()) return out + "n/a\n";
  out += ns_text(s.mean) + " ns mean, " + ns_text(s.median) + " median, " + ns_text(s.min) + " .. " +
         ns_text(s.max) + " (" + std::to_string(s.count()) + " runs)\n";
  return out;
}

}  // namespace study
}  // namespace detail

inline std::string study_result::to_text() const {
  namespace ds = detail::study;
  namespace io = detail::report_io;
  std::string out = "forkscale scaling study";
  if (!label.empty()) out += ": " + io::printable(label);
  out += "  (clock: " + std::string(to_string(clock)) + ", times in ns, " + std::to_string(repetitions) +
         " repetitions";
  out += hardware_threads ? ", " + std::to_string(hardware_threads) + " hardware threads)\n"
                          : ", hardware threads unknown)\n";

  out += "\n1) Times\n";
  out += ds::stats_line("Ts  baseline:        ", baseline);
  if (has_elision()) out += ds::stats_line("Te  serial elision:  ", elision);
  if (!points.empty()) out += ds::stats_line("T1  1 thread:        ", points.front().time);

  out += "\n2) Per thread count (means; WP from the engine's " +
         std::string(compensated_work ? "compensated work" : "work before compensation") + ")\n";
  io::text_table t({"P", "TP", "spread", "WP", "IP", "FP", "IP/(P·TP)", "T1/TP"});
  bool any_over = false;
  for (const auto& pt : points) {
    std::string p = std::to_string(pt.processors);
    if (pt.oversubscribed) {
      p += "*";
      any_over = true;
    }
    const double budget = pt.processors * pt.time.mean;
    t.add({p, ds::ns_text(pt.time.mean), ds::spread_text(pt.time), ds::ns_text(pt.parallel_work),
           ds::ns_text(pt.idle_time), ds::ns_text(pt.work_inflation),
           std::isnan(pt.idle_time) || !(budget > 0) ? "n/a" : ds::percent(pt.idle_time / budget),
           ds::ratio_cell(pt.self_speedup)});
  }
  out += t.render();
  out += "  spread: half the range (max - min) of TP over its median\n";
  if (any_over) out += "  * more threads than the " + std::to_string(hardware_threads) + " hardware threads\n";

  out += "\n3) Factored speedups (Acar, Charguéraud, Rainey §2.3; ratios of means)\n";
  std::vector<std::string> head{"P", "linear"};
  if (has_elision()) head.push_back("elision");
  for (const char* h : {"maximal", "idle-sp.", "infl.-sp.", "actual", "actual range"}) head.push_back(h);
  io::text_table f(head);
  for (const auto& pt : points) {
    std::vector<std::string> row{std::to_string(pt.processors) + (pt.oversubscribed ? "*" : ""),
                                 ds::ratio_cell(pt.speedup.linear)};
    if (has_elision()) row.push_back(ds::ratio_cell(pt.speedup.elision));
    row.push_back(ds::ratio_cell(pt.speedup.maximal));
    row.push_back(ds::ratio_cell(pt.speedup.idle_specific));
    row.push_back(ds::ratio_cell(pt.speedup.inflation_specific));
    row.push_back(ds::ratio_cell(pt.speedup.actual));
    row.push_back(ds::ratio_cell(pt.actual_low) + " - " + ds::ratio_cell(pt.actual_high));
    f.add(row);
  }
  out += f.render();
  out += "  linear P; ";
  if (has_elision()) out += "elision P·Ts/Te; ";
  out += "maximal P·Ts/T1; idle-specific P·Ts/(T1+IP);\n  inflation-specific P·Ts/(P·TP-IP); actual Ts/TP\n";

  out += "\n4) Scalability bounds (Cilkview; engine numbers of the median 1-thread run)\n";
  if (profile.empty()) {
    out += "  n/a (the engine measured nothing)\n";
  } else {
    out += "  Parallelism T1/Tinf:       " + ds::ratio_cell(bounds.parallelism) + "   (span-law bound)\n";
    out += "  Burdened parallelism:      " + ds::ratio_cell(bounds.burdened_parallelism) + "\n";
    io::text_table b({"P", "lower (burdened)", "upper", "measured T1/TP"});
    for (const auto& pt : points) {
      const double lower = scaling::burdened_lower_bound(pt.processors, bounds.work, bounds.burdened_span);
      const double upper = std::min(scaling::work_law(pt.processors), bounds.parallelism);
      b.add({std::to_string(pt.processors) + (pt.oversubscribed ? "*" : ""), ds::ratio_cell(lower),
             ds::ratio_cell(upper), ds::ratio_cell(pt.self_speedup)});
    }
    out += b.render();
  }

  out += "\n5) Memory-bandwidth probe (Cilkview §5: P copies of the baseline at once vs one alone)\n";
  if (bandwidth.empty()) {
    out += "  not run (no study_workload::baseline_copy, or no P above 1)\n";
  } else {
    out += ds::stats_line("one copy alone:      ", probe_alone);
    io::text_table b({"copies", "time of one copy", "slowdown"});
    for (const auto& bp : bandwidth)
      b.add({std::to_string(bp.copies) + (bp.oversubscribed ? "*" : ""), ds::ns_text(bp.together.mean),
             ds::ratio_cell(bp.slowdown) + "x"});
    out += b.render();
  }

  if (warnings.empty()) {
    out += "\nWarnings: none.\n";
  } else {
    out += "\nWarnings:\n";
    for (const auto& wmsg : warnings) out += "  - " + io::printable(wmsg) + "\n";
  }
  return out;
}

inline std::string study_result::to_csv() const {
  namespace io = detail::report_io;
  std::string out =
      "processors,oversubscribed,time_mean,time_median,time_min,time_max,time_stddev,parallel_work,"
      "idle_time,work_inflation,speedup_linear,speedup_elision,speedup_maximal,speedup_idle_specific,"
      "speedup_inflation_specific,speedup_actual,self_speedup,bandwidth_slowdown,ts,te,t1,unit\n";
  for (const auto& pt : points) {
    double slowdown = scaling::nan();
    for (const auto& b : bandwidth)
      if (b.copies == pt.processors) slowdown = b.slowdown;
    const double nums[] = {pt.time.mean, pt.time.median, pt.time.min, pt.time.max, pt.time.stddev,
                           pt.parallel_work, pt.idle_time, pt.work_inflation, pt.speedup.linear,
                           pt.speedup.elision, pt.speedup.maximal, pt.speedup.idle_specific,
                           pt.speedup.inflation_specific, pt.speedup.actual, pt.self_speedup, slowdown,
                           ts(), te(), t1()};
    out += std::to_string(pt.processors);
    out += pt.oversubscribed ? ",true" : ",false";
    for (const double v : nums) out += "," + io::csv_number(v);
    out += "," + io::csv_text(unit) + "\n";
  }
  return out;
}

inline void study_result::write_text(const std::string& path) const {
  detail::write_file_atomically(path, to_text());
}
inline void study_result::write_json(const std::string& path) const {
  detail::write_file_atomically(path, to_json());
}
inline void study_result::write_csv(const std::string& path) const {
  detail::write_file_atomically(path, to_csv());
}

FORKSCALE_NAMESPACE_END
