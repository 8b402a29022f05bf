// detail/session/merge_what_if.hpp: the what-if rows of several measurements as
// the rows of one report (docs/sessions.md).
//
// A what-if row predicts the whole program's work and span if a region were k
// times faster. Taken one after the other, the measurements form a series
// composition, and a speedup of a region changes each measurement's longest
// path on its own: the predicted span of the whole is the sum of the predicted
// spans, and so is the predicted work. A measurement that did not enter the
// region (or analysed no region at all) is unchanged by it and adds its
// measured work, span and burdened span. Rows are matched by (region, model,
// factor); a region is its source and name, and for a guard region also its
// site (a guard region is its site's content; a named call site is its text).
// Parallelism and gain are computed again from the sums.
//
// Every measurement that has rows must have analysed the same factors, in the
// same order; otherwise the rows are left out (one diagnostic).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

class what_if_merge {
 public:
  // One measurement. Its measured numbers count for every region, the ones it
  // did not enter included (also those that only later measurements enter).
  void add(const report& rep) {
    if (rep.regions.empty()) return;
    const double tpu = ticks_per_unit(rep);
    measured_.work += rep.work();
    measured_.span += rep.span();
    measured_.burdened_span += rep.burdened_span();
    measured_.ticks += std::llround(static_cast<double>(rep.span()) * tpu);
    if (rep.what_if.empty() || !problem_.empty()) return;
    if (!take_factors(rep)) return;
    const std::size_t per = 2 * factors_.size();
    for (std::size_t b = 0; b < rep.what_if.size(); b += per) add_block(rep, b, tpu);
  }

  // No region met so far.
  bool empty() const noexcept { return scenarios_.empty(); }
  // Why the rows are left out (empty when they are not).
  const std::string& problem() const noexcept { return problem_; }

  // The merged rows into `out` (its root row already holds the merged totals).
  void rows(report& out) const {
    if (!problem_.empty() || scenarios_.empty()) return;
    struct block {
      std::vector<what_if_result> rows;
      double key = 0;
      what_if_merge::key place;  // breaks ties, as a single measurement's rows do
    };
    std::vector<block> blocks;
    for (const scenario& sc : scenarios_) blocks.push_back(block{scenario_rows(sc, out), 0.0, key_of(sc.identity)});
    for (block& b : blocks) {
      const what_if_result& last = b.rows[b.rows.size() - 2];  // the last factor, parallelized
      b.key = last.executed ? last.parallelism : -1.0;
    }
    std::stable_sort(blocks.begin() + 1, blocks.end(), [](const block& a, const block& b) {
      if (a.key != b.key) return a.key > b.key;
      return a.place < b.place;
    });
    for (block& b : blocks)
      for (what_if_result& r : b.rows) out.what_if.push_back(std::move(r));
  }

 private:
  // Work, span and burdened span in the report's unit; span also in ticks.
  struct totals {
    std::uint64_t work = 0, span = 0, burdened_span = 0;
    std::int64_t ticks = 0;
  };
  // Sums of one (factor, model) row over the measurements that entered the region.
  struct cell {
    long double work = 0, span = 0, burdened_span = 0;
    std::int64_t num = 0, den = 1;
  };
  struct scenario {
    what_if_result identity;
    bool executed = false;
    std::uint64_t entries = 0, region_work = 0;
    std::vector<cell> cells;  // 2 per factor: parallelized, optimized
    totals entered;           // the measured numbers of the measurements that entered it
  };
  using key = std::tuple<int, std::string, std::string, unsigned, std::string, std::string>;

  static key key_of(const what_if_result& r) {
    if (r.source != what_if_source::region) return key(static_cast<int>(r.source), r.region, "", 0, "", "");
    return key(static_cast<int>(r.source), r.region, r.file, r.line, r.function, r.tag);
  }

  // Clock ticks per unit of `rep`, for the exact span fractions (span_ticks_num):
  // read off a row that has both, else the rate met before for the same clock,
  // else 1 (the cost clock and steady count one tick per unit).
  double ticks_per_unit(const report& rep) {
    for (const what_if_result& r : rep.what_if)
      if (r.executed && r.span > 0 && r.span_ticks_num > 0 && std::isfinite(r.span)) {
        const double tpu = static_cast<double>(static_cast<long double>(r.span_ticks_num) / r.span_ticks_den) / r.span;
        rates_.emplace(static_cast<int>(rep.clock), tpu);
        return tpu;
      }
    auto it = rates_.find(static_cast<int>(rep.clock));
    return it == rates_.end() ? 1.0 : it->second;
  }

  // The factors of `rep` (its first block, "(all regions)"): the first report's
  // become the merge's; another report's must be the same.
  bool take_factors(const report& rep) {
    std::vector<double> f;
    for (std::size_t i = 0; i + 1 < rep.what_if.size() && rep.what_if[i].source == what_if_source::all; i += 2)
      f.push_back(rep.what_if[i].factor);
    const std::size_t per = 2 * f.size();
    if (f.empty() || rep.what_if.size() % per != 0) {
      problem_ = "the what-if rows of '" + rep.label + "' are not in blocks of one region at every factor";
      return false;
    }
    if (factors_.empty()) factors_ = f;
    if (f != factors_) {
      problem_ = "the measurements analysed different what-if factors (" + factor_list(factors_) + " and " +
                 factor_list(f) + " in '" + rep.label + "')";
      return false;
    }
    for (std::size_t i = 0; i < rep.what_if.size(); ++i) {
      const what_if_result& r = rep.what_if[i];
      const what_if_model m = i % 2 == 0 ? what_if_model::parallelized : what_if_model::optimized;
      if (r.model != m || !(r.factor == factors_[(i % per) / 2]) || key_of(r) != key_of(rep.what_if[i - i % per])) {
        problem_ = "the what-if rows of '" + rep.label + "' are not in blocks of one region at every factor";
        return false;
      }
    }
    return true;
  }

  static std::string factor_list(const std::vector<double>& f) {
    std::string s;
    for (double x : f) {
      std::string v = std::isinf(x) ? "inf" : std::to_string(x);
      if (v.find('.') != std::string::npos) {
        while (v.back() == '0') v.pop_back();
        if (v.back() == '.') v.pop_back();
      }
      s += (s.empty() ? "" : ",") + v;
    }
    return s;
  }

  void add_block(const report& rep, std::size_t b, double tpu) {
    const what_if_result& head = rep.what_if[b];
    auto it = index_.find(key_of(head));
    if (it == index_.end()) {
      it = index_.emplace(key_of(head), scenarios_.size()).first;
      scenario sc;
      sc.identity = head;
      sc.cells.resize(2 * factors_.size());
      scenarios_.push_back(std::move(sc));
    }
    scenario& sc = scenarios_[it->second];
    if (!head.executed) return;  // its numbers are 0: the measurement counts as not entering it
    if (!sc.executed) {
      sc.identity = head;  // a named call site shows a site it matched: the first to be entered
      sc.executed = true;
    }
    sc.entries += head.entries;
    sc.region_work += head.region_work;
    sc.entered.work += rep.work();
    sc.entered.span += rep.span();
    sc.entered.burdened_span += rep.burdened_span();
    sc.entered.ticks += std::llround(static_cast<double>(rep.span()) * tpu);
    for (std::size_t j = 0; j < sc.cells.size(); ++j) {
      const what_if_result& r = rep.what_if[b + j];
      cell& c = sc.cells[j];
      c.work += r.work;
      c.span += r.span;
      c.burdened_span += r.burdened_span;
      // Every row of one factor has the factor's numerator as its denominator.
      c.num += r.span_ticks_num;
      c.den = r.span_ticks_den;
    }
  }

  std::vector<what_if_result> scenario_rows(const scenario& sc, const report& out) const {
    std::vector<what_if_result> rows;
    const double measured = out.parallelism();
    for (std::size_t j = 0; j < sc.cells.size(); ++j) {
      what_if_result r;
      r.region = sc.identity.region;
      r.source = sc.identity.source;
      r.file = sc.identity.file;
      r.line = sc.identity.line;
      r.function = sc.identity.function;
      r.tag = sc.identity.tag;
      r.model = j % 2 == 0 ? what_if_model::parallelized : what_if_model::optimized;
      r.factor = factors_[j / 2];
      r.executed = sc.executed;
      r.entries = sc.entries;
      r.region_work = sc.region_work;
      if (sc.executed) {
        // The measurements that did not enter the region add their measured numbers.
        const cell& c = sc.cells[j];
        r.work = static_cast<double>(c.work + static_cast<long double>(measured_.work - sc.entered.work));
        r.span = static_cast<double>(c.span + static_cast<long double>(measured_.span - sc.entered.span));
        r.burdened_span = static_cast<double>(
            c.burdened_span + static_cast<long double>(measured_.burdened_span - sc.entered.burdened_span));
        r.span_ticks_num = c.num + (measured_.ticks - sc.entered.ticks) * c.den;
        r.span_ticks_den = c.den;
        r.parallelism = r.span_ticks_num > 0 ? r.work / r.span : std::numeric_limits<double>::infinity();
        r.gain = measured > 0 ? r.parallelism / measured : 0.0;
      }
      rows.push_back(std::move(r));
    }
    return rows;
  }

  std::vector<double> factors_;
  std::vector<scenario> scenarios_;  // in the order first met; "(all regions)" first
  std::map<key, std::size_t> index_;
  std::map<int, double> rates_;  // ticks per unit, by clock
  totals measured_;              // every measurement's measured numbers
  std::string problem_;
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
