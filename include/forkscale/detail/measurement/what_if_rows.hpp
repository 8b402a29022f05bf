// detail/measurement/what_if_rows.hpp: a finished measurement's what-if rows
// (docs/model.md, "What-if regions").
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../engine/frame.hpp"
#include "../engine/session.hpp"
#include "../engine/units.hpp"
#include "../what_if/offsets.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Region entries and work summed over every thread's table.
struct what_if_sums {
  std::vector<what_if_known_region> regions;
  std::vector<std::uint64_t> entries, work;  // work[0]: any region; work[r + 1]: region r
  std::uint64_t any_entries = 0;
};

inline what_if_sums collect_what_if(session& s) {
  what_if_sums w;
  w.entries.assign(what_if_max_regions, 0);
  w.work.assign(what_if_max_regions + 1, 0);
  std::lock_guard<std::mutex> g(s.m);
  w.regions = s.what_if_regions;
  for (const auto& t : s.tables) {
    for (std::size_t i = 0; i < t->what_if_entries.size(); ++i) w.entries[i] += t->what_if_entries[i];
    for (std::size_t i = 0; i < t->what_if_work.size(); ++i) w.work[i] += t->what_if_work[i];
  }
  for (std::uint64_t e : w.entries) w.any_entries += e;
  return w;
}

// The fields every row of scenario `sc` shares (0: all regions; r + 1: region r).
inline what_if_result scenario_row(const session& s, const what_if_sums& w, std::size_t sc) {
  what_if_result base;
  if (sc == 0) {
    base.region = "(all regions)";
    base.source = what_if_source::all;
    base.entries = w.any_entries;
  } else {
    const what_if_known_region& r = w.regions[sc - 1];
    base.region = r.name;
    base.source = r.call_site ? what_if_source::call_site : what_if_source::region;
    base.file = r.file;
    base.line = r.line;
    base.function = r.function;
    base.tag = r.tag;
    base.entries = w.entries[sc - 1];
  }
  base.executed = base.entries > 0;
  base.region_work = to_unit(s, w.work[sc]);
  return base;
}

// The prediction of one (scenario, factor, model): `offset` is the root path's
// what-if offset for it, in 1/p ticks.
inline void predict_row(what_if_result& r, const session& s, const frame& root, const what_if_fraction& f,
                        std::int64_t offset, std::uint64_t region_work_ticks) {
  if (!r.executed) {
    r.span_ticks_num = 0;
    r.span_ticks_den = 1;
    return;
  }
  const std::uint64_t W = root.totals.work, S = root.totals.span;
  const std::uint64_t burden = root.totals.burdened_span - root.totals.span;
  const double upt = unit_per_tick(s);
  const double measured = S ? static_cast<double>(W) / static_cast<double>(S) : 0.0;
  const std::int64_t span_num = static_cast<std::int64_t>(S) * f.p + offset;
  r.span_ticks_num = span_num;
  r.span_ticks_den = f.p;
  // Work in ticks × p: unchanged, or with the region's work divided.
  const long double work_num = r.model == what_if_model::parallelized
                                   ? static_cast<long double>(W) * f.p
                                   : static_cast<long double>(W) * f.p - static_cast<long double>(region_work_ticks) *
                                                                             static_cast<long double>(f.p - f.q);
  r.work = static_cast<double>(work_num / f.p) * upt;
  r.span = static_cast<double>(static_cast<long double>(span_num) / f.p) * upt;
  r.burdened_span = r.span + static_cast<double>(burden) * upt;
  r.parallelism = span_num > 0 ? static_cast<double>(work_num / span_num) : std::numeric_limits<double>::infinity();
  r.gain = measured > 0 ? r.parallelism / measured : 0.0;
}

// The what-if rows of a finished measurement: the all-regions rows first; then
// regions by what they could give at the last factor, largest first (ties by
// name, file and line); regions never entered last.
inline void add_what_if(report& rep, session& s, const frame& root) {
  const what_if_sums w = collect_what_if(s);
  if (w.regions.empty()) return;
  const what_if_config& c = s.what_if;
  const what_if_vec* v = root.totals.what_if;
  struct block {
    std::vector<what_if_result> rows;
    double key = 0;  // predicted parallelism at the last factor, parallelized
    std::string region, file, function, tag;
    unsigned line = 0;
  };
  std::vector<block> blocks;
  for (std::size_t sc = 0; sc <= w.regions.size(); ++sc) {
    block b;
    const what_if_result base = scenario_row(s, w, sc);
    b.region = base.region;
    b.file = base.file;
    b.function = base.function;
    b.tag = base.tag;
    b.line = base.line;
    for (unsigned i = 0; i < c.F; ++i) {
      const std::size_t idx = sc * c.F + i;
      const std::int64_t offset = v && idx < v->n ? v->data()[idx] : 0;
      for (what_if_model m : {what_if_model::parallelized, what_if_model::optimized}) {
        what_if_result r = base;
        r.model = m;
        r.factor = c.factors[i].value;
        predict_row(r, s, root, c.factors[i], offset, w.work[sc]);
        b.rows.push_back(std::move(r));
      }
    }
    b.key = b.rows.empty() || !b.rows.front().executed ? -1.0 : b.rows[b.rows.size() - 2].parallelism;
    blocks.push_back(std::move(b));
  }
  // Ties go by name and place, not by which region a thread entered first, so
  // that the order is the same whatever the interleaving.
  const auto place = [](const block& b) { return std::tie(b.region, b.file, b.line, b.function, b.tag); };
  std::stable_sort(blocks.begin() + 1, blocks.end(), [&](const block& a, const block& b) {
    if (a.key != b.key) return a.key > b.key;
    return place(a) < place(b);
  });
  for (auto& b : blocks)
    for (auto& r : b.rows) rep.what_if.push_back(std::move(r));
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
