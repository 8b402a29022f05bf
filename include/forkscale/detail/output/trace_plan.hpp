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
#include "../util/huge_pages.hpp"
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

// The plan of a record's trace under its trace_limit. `which`: false when only
// the counts are wanted (the summary): `keep` is then left empty.
inline trace_plan plan_trace(const execution_record& r, bool which = true) {
  trace_plan p;
  p.limit = r.trace_limit;
  p.strands = r.strands.size();
  p.kept = p.strands;
  if (p.limit == 0 || p.strands <= p.limit) return p;
  p.bounded = true;
  reserve_huge(p.keep, r.strands.size());
  p.keep.assign(r.strands.size(), 0);
  for (const std::uint32_t i : r.critical_path)
    if (i < r.strands.size()) p.keep[i] = 1;
  // One pass over the strands: the threads they name, and the durations of
  // the others (in strand order).
  std::uint64_t threads = r.threads.size(), others = 0;
  std::vector<std::uint64_t> d;
  if (which) reserve_huge(d, r.strands.size() - std::min<std::size_t>(r.critical_path.size(), r.strands.size()));
  for (std::size_t i = 0; i < r.strands.size(); ++i) {
    const record_strand& s = r.strands[i];
    threads = std::max<std::uint64_t>(threads, std::uint64_t(s.thread) + 1);
    if (p.keep[i]) continue;
    ++others;
    if (which) d.push_back(strand_duration(s));
  }
  p.critical = r.strands.size() - others;
  const std::uint64_t fixed = 2 * std::uint64_t(r.regions.size()) + threads;
  const std::uint64_t budget = p.limit > fixed ? (p.limit - fixed) / 2 : 0;
  const std::uint64_t k = std::min<std::uint64_t>(budget > p.critical ? budget - p.critical : 0, others);
  p.kept = p.critical + k;
  p.folded = p.strands - p.kept;
  if (!which) {
    p.keep.clear();
    return p;
  }
  // The k longest, ties to the earlier strand: the k-th longest duration `t`
  // (a selection over a copy of the durations), then every other strand
  // longer than `t` and, in order, as many of those of exactly `t` as are
  // still wanted.
  if (k > 0) {
    std::vector<std::uint64_t> sel;
    reserve_huge(sel, d.size());
    sel.assign(d.begin(), d.end());
    std::nth_element(sel.begin(), sel.begin() + static_cast<std::ptrdiff_t>(k - 1), sel.end(),
                     [](std::uint64_t x, std::uint64_t y) { return x > y; });
    const std::uint64_t t = sel[k - 1];
    std::uint64_t longer = 0;
    for (const std::uint64_t x : sel) longer += x > t ? 1 : 0;
    sel = std::vector<std::uint64_t>();
    std::uint64_t ties = k - longer;
    for (std::size_t i = 0, o = 0; i < r.strands.size(); ++i) {
      if (p.keep[i]) continue;  // on the critical path
      const std::uint64_t x = d[o++];
      if (x > t) {
        p.keep[i] = 1;
      } else if (x == t && ties > 0) {
        p.keep[i] = 1;
        --ties;
      }
    }
  }
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
