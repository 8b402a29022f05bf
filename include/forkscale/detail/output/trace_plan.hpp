// detail/output/trace_plan.hpp: the bound on a trace (options::trace_limit,
// execution_record::trace_limit): which strands the trace writes as slices of
// their own and which it folds.
//
// A record of at most trace_limit strands (or a limit of 0) is written whole.
// Above it the trace keeps every strand of the critical path and the longest of
// the others (by wall-clock duration, ties to the earlier strand), and folds
// the rest: on each thread, the strands between two kept ones (or a kept one and
// a region boundary, or the track's ends) become one slice (trace_layout.hpp,
// fold_tracks), with their count, work and span. A run follows a kept strand, a
// region boundary or the track's start, so the slices number at most twice the
// kept strands plus twice the regions plus the threads: the plan keeps
// (trace_limit - 2 regions - threads) / 2 strands, and so stays within the
// limit unless the critical path alone passes half of it (it is kept whole
// whatever its length). The folded files and the report never depend on it.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../record.hpp"
#include "format.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

struct trace_plan {
  bool bounded = false;        // some strands are folded
  std::uint64_t limit = 0;     // the record's trace_limit
  std::uint64_t strands = 0;   // in the record
  std::uint64_t kept = 0;      // written as slices of their own (critical ones included)
  std::uint64_t critical = 0;  // of them, on the critical path
  std::uint64_t folded = 0;    // strands folded into the slices between the kept ones
  std::vector<char> keep;      // per strand (empty when not bounded)
};

inline std::uint64_t strand_duration(const record_strand& s) noexcept {
  return s.end_ns > s.start_ns ? s.end_ns - s.start_ns : 0;
}

// The plan of a record's trace under its trace_limit.
inline trace_plan plan_trace(const execution_record& r) {
  trace_plan p;
  p.limit = r.trace_limit;
  p.strands = r.strands.size();
  p.kept = p.strands;
  if (p.limit == 0 || p.strands <= p.limit) return p;
  p.bounded = true;
  p.keep.assign(r.strands.size(), 0);
  for (const std::uint32_t i : r.critical_path)
    if (i < r.strands.size()) p.keep[i] = 1;
  std::vector<std::uint32_t> others;
  others.reserve(r.strands.size());
  for (std::uint32_t i = 0; i < r.strands.size(); ++i)
    if (!p.keep[i]) others.push_back(i);
  p.critical = r.strands.size() - others.size();
  std::uint64_t threads = r.threads.size();
  for (const record_strand& s : r.strands) threads = std::max<std::uint64_t>(threads, std::uint64_t(s.thread) + 1);
  const std::uint64_t fixed = 2 * std::uint64_t(r.regions.size()) + threads;
  const std::uint64_t budget = p.limit > fixed ? (p.limit - fixed) / 2 : 0;
  const std::uint64_t k = std::min<std::uint64_t>(budget > p.critical ? budget - p.critical : 0, others.size());
  // The k longest, ties to the earlier strand.
  if (k > 0 && k < others.size())
    std::nth_element(others.begin(), others.begin() + static_cast<std::ptrdiff_t>(k - 1), others.end(),
                     [&](std::uint32_t a, std::uint32_t b) {
                       const std::uint64_t x = strand_duration(r.strands[a]), y = strand_duration(r.strands[b]);
                       return x != y ? x > y : a < b;
                     });
  for (std::uint64_t m = 0; m < k; ++m) p.keep[others[m]] = 1;
  p.kept = p.critical + k;
  p.folded = p.strands - p.kept;
  return p;
}

// What the plan folded, in one sentence (the report's text and the trace's
// metadata say it the same way).
inline std::string trace_plan_summary(const trace_plan& p) {
  if (!p.bounded)
    return "all " + grouped(p.strands) + " strands written as slices (options.trace_limit " +
           (p.limit ? grouped(p.limit) : std::string("0: none")) + ")";
  return grouped(p.strands) + " strands, over options.trace_limit (" + grouped(p.limit) + "): " + grouped(p.kept) +
         " written as slices (the " + grouped(p.critical) + " of the critical path and the longest others), " +
         grouped(p.folded) +
         " folded into the slices between them (one per run of folded strands on a thread, with their count, "
         "work and span in args)";
}

}  // namespace output
}  // namespace detail
FORKSCALE_NAMESPACE_END
