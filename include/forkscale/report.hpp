// report.hpp: the numbers a measurement produces, and where they go.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "clock.hpp"
#include "config.hpp"

FORKSCALE_NAMESPACE_BEGIN

// Thrown when a report cannot be written or read. The message is one line that
// names the file and the problem.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Misuse of the guards, found while the program ran. `where` names the site
// ("file.cpp:42 in fib"), `problem` says what was wrong.
struct diagnostic {
  std::string where;
  std::string problem;
};

// One line of Cilkview's speedup estimate (§3, Corollary 2 with δ = 0.85):
// lower = T1 / (T1/P + 1.7 · burdened span), upper = min(P, parallelism).
struct speedup_bound {
  unsigned processors = 0;
  double lower = 0;
  double upper = 0;
};

// Work and span of one labeled region, summed over its instances. All times are in
// the report's unit (ns for timed clocks, units for the cost clock).
struct region_result {
  std::string label;   // the region's own label
  std::string path;    // labels from the outermost region, joined by '/'
  std::string parent;  // the enclosing region's path; empty for the root
  unsigned depth = 0;  // 0 for the root
  std::uint64_t instances = 0;
  std::uint64_t work = 0;
  std::uint64_t span = 0;
  std::uint64_t burdened_span = 0;
  std::uint64_t spawns = 0;
  std::uint64_t syncs = 0;
  std::uint64_t calls = 0;
  // Before overhead compensation (equal to work/span under the cost clock).
  std::uint64_t raw_work = 0;
  std::uint64_t raw_span = 0;

  double parallelism() const noexcept {
    return span ? static_cast<double>(work) / static_cast<double>(span) : 0.0;
  }
  double burdened_parallelism() const noexcept {
    return burdened_span ? static_cast<double>(work) / static_cast<double>(burdened_span) : 0.0;
  }
  // Cilkview: work / (1 + 2·spawns + syncs).
  double average_maximal_strand() const noexcept {
    return static_cast<double>(work) / static_cast<double>(1 + 2 * spawns + syncs);
  }
  // P = 2, 4, 8, ... up to max_processors (inclusive when it is not a power of two).
  std::vector<speedup_bound> speedup_estimate(unsigned max_processors = 32) const {
    std::vector<speedup_bound> out;
    if (max_processors < 2) return out;
    for (unsigned p = 2;;) {
      speedup_bound b;
      b.processors = p;
      const double t1 = static_cast<double>(work);
      const double par = parallelism();
      b.upper = par < p ? par : static_cast<double>(p);
      const double denom = t1 / p + 1.7 * static_cast<double>(burdened_span);
      b.lower = denom > 0 ? t1 / denom : 0.0;
      if (b.lower > b.upper) b.lower = b.upper;
      out.push_back(b);
      if (p >= max_processors) break;
      p = p * 2 > max_processors ? max_processors : p * 2;
    }
    return out;
  }
};

// The result of one measurement: the root region (the whole measured program)
// first, then nested regions in depth-first order.
struct report {
  std::string label;
  std::string unit = "units";            // "ns" or "units"
  clock_kind clock = clock_kind::cost;
  std::uint64_t burden = 0;              // per continuation edge, in `unit`
  double compensation_per_strand = 0;    // subtracted from every strand, in `unit`
  std::uint64_t compensation_total = 0;  // raw work − work, in `unit`
  unsigned max_processors = 32;          // extent of the speedup estimate
  std::size_t profiler_bytes = 0;        // peak memory held by the engine's pools
  std::vector<region_result> regions;
  std::vector<diagnostic> diagnostics;   // the first ones found (see diagnostic_count)
  std::uint64_t diagnostic_count = 0;

  bool empty() const noexcept { return regions.empty(); }
  const region_result& root() const {
    if (regions.empty()) throw error("forkscale: the report is empty (nothing was measured)");
    return regions.front();
  }
  // The row with this path ("outer/inner"), or nullptr.
  const region_result* find(const std::string& path) const noexcept {
    for (const auto& r : regions)
      if (r.path == path) return &r;
    return nullptr;
  }

  std::uint64_t work() const noexcept { return empty() ? 0 : regions.front().work; }
  std::uint64_t span() const noexcept { return empty() ? 0 : regions.front().span; }
  std::uint64_t burdened_span() const noexcept { return empty() ? 0 : regions.front().burdened_span; }
  std::uint64_t spawns() const noexcept { return empty() ? 0 : regions.front().spawns; }
  std::uint64_t syncs() const noexcept { return empty() ? 0 : regions.front().syncs; }
  std::uint64_t calls() const noexcept { return empty() ? 0 : regions.front().calls; }
  double parallelism() const noexcept { return empty() ? 0 : regions.front().parallelism(); }
  double burdened_parallelism() const noexcept {
    return empty() ? 0 : regions.front().burdened_parallelism();
  }
  double average_maximal_strand() const noexcept {
    return empty() ? 0 : regions.front().average_maximal_strand();
  }
  std::vector<speedup_bound> speedup_estimate() const {
    return empty() ? std::vector<speedup_bound>{} : regions.front().speedup_estimate(max_processors);
  }

  // Output (detail/report_writers.hpp). The write_* functions replace the file
  // atomically (temporary file + rename) and throw forkscale::error on failure,
  // leaving no partial file behind.
  std::string to_text(bool show_raw = false) const;
  std::string to_json() const;
  std::string to_csv() const;
  void write_text(const std::string& path, bool show_raw = false) const;
  void write_json(const std::string& path) const;
  void write_csv(const std::string& path) const;
};

inline std::ostream& operator<<(std::ostream& os, const report& r);

FORKSCALE_NAMESPACE_END
