// study/scaling.hpp: the statistics of a study's repeated runs (sample_stats) and
// the formulas of the scaling study (namespace scaling: Acar et al. §2, Cilkview).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include "../config.hpp"

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

inline factored_speedups factored(unsigned p, double ts, double t1, double tp, double wp, double te = nan()) noexcept {
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

FORKSCALE_NAMESPACE_END
