// detail/session/merge_sites.hpp: the call-site and spawn-site profiles of
// several measurements as the profiles of one report (docs/sessions.md).
//
// Rows are matched by the site's identity (kind, file, line, function, tag), the
// root rows with each other; every stored measure adds. The merged report's
// root rows count the measurements (count, tasks). Derived columns are computed
// again from the sums: a spawn site's span from its call-site row, its
// critical_percent from the merged span.
//
// Why report::check_profile() still holds. The merged report is the series
// composition of the measurements: they are taken to run one after the other,
// so every path of the whole runs through each of them in turn and the span is
// S = S_1 + ... + S_n (Cilkview, SPAA'10 §2: the span of a series composition
// is the sum of the spans), and W = W_1 + ... + W_n. Each measurement's own
// report satisfies the self-checks (Cilkprof, SPAA'15 §2): summed over its rows
// r, local span on span gives S_i, local work on work gives W_i, and likewise
// the spawn rows' critical span and exclusive work. A merged row R holds, for
// each such column c, the sum of c over the rows of the measurements that map
// to R, and every row of every measurement maps to exactly one merged row (the
// root to the root, any other to the row of its identity). So
//   sum over R of c(R) = sum over i of (sum over rows r of i of c(r)) = sum of S_i = S
// (or W for the work columns): a sum regrouped. The check holds whatever the
// measurements are, as long as every one of them has its profile — a report
// without one (options.site_profiles off, or misuse that left it out) would
// leave its share out, so the merge then drops the profiles altogether.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

inline void add_site_measure(site_measure& into, const site_measure& from) noexcept {
  into.count += from.count;
  into.work += from.work;
  into.span += from.span;
}

class site_merge {
 public:
  using key = std::tuple<int, std::string, unsigned, std::string, std::string>;

  template <class Row>
  static key key_of(const Row& r) {
    return key(static_cast<int>(r.kind), r.file, r.line, r.function, r.tag);
  }

  // One measurement's rows. A report with regions but no profile makes the
  // merged report have none (see above); the rows are then no longer kept.
  void add(const report& rep) {
    if (rep.regions.empty()) return;
    if (rep.call_sites.empty() || rep.spawn_sites.empty()) {
      ++without_;
      call_.clear();
      spawn_.clear();
      return;
    }
    ++with_;
    if (without_ > 0) return;
    for (const call_site_profile& r : rep.call_sites) add_call_row(r);
    for (const spawn_site_profile& r : rep.spawn_sites) add_spawn_row(r);
  }

  // Reports with regions and with (without) a profile, so far.
  std::uint64_t with_profile() const noexcept { return with_; }
  std::uint64_t without_profile() const noexcept { return without_; }

  // The merged rows into `out`, whose root row (the merged span) is set; none
  // when some measurement had no profile.
  void rows(report& out) const {
    if (without_ > 0 || with_ == 0) return;
    call_rows(out);
    spawn_rows(out);
  }

 private:
  // A row of one site takes the site's name from the first report that has it.
  template <class Row>
  static void take_identity(Row& m, const Row& r) {
    if (m.name.empty() && r.kind != site_kind::root) {
      m.name = r.name;
      m.file = r.file;
      m.line = r.line;
      m.function = r.function;
      m.tag = r.tag;
    }
    m.kind = r.kind;
    m.recursive = m.recursive || r.recursive;
  }

  void add_call_row(const call_site_profile& r) {
    call_site_profile& m = r.kind == site_kind::root ? call_root_ : call_[key_of(r)];
    take_identity(m, r);
    add_site_measure(m.top_call_site_on_work, r.top_call_site_on_work);
    add_site_measure(m.top_caller_on_work, r.top_caller_on_work);
    add_site_measure(m.local_on_work, r.local_on_work);
    add_site_measure(m.top_call_site_on_span, r.top_call_site_on_span);
    add_site_measure(m.top_caller_on_span, r.top_caller_on_span);
    add_site_measure(m.local_on_span, r.local_on_span);
  }

  void add_spawn_row(const spawn_site_profile& r) {
    spawn_site_profile& m = r.kind == site_kind::root ? spawn_root_ : spawn_[key_of(r)];
    take_identity(m, r);
    m.tasks += r.tasks;
    m.work += r.work;
    m.span += r.span;
    m.exclusive_work += r.exclusive_work;
    m.critical_span += r.critical_span;
  }

  // Root first, then by the span column (largest first), the work column, the
  // name and the identity — the measurement's own order, with the identity in
  // place of the engine's site ids.
  template <class Row, class Span, class Work>
  static void sort_rows(std::vector<Row>& rows, Span span, Work work) {
    std::sort(rows.begin() + 1, rows.end(), [&](const Row& a, const Row& b) {
      if (span(a) != span(b)) return span(a) > span(b);
      if (work(a) != work(b)) return work(a) > work(b);
      if (a.name != b.name) return a.name < b.name;
      return key_of(a) < key_of(b);
    });
  }

  void call_rows(report& out) const {
    call_site_profile root = call_root_;
    root.name = out.label;
    out.call_sites.push_back(root);
    for (const auto& [k, row] : call_) out.call_sites.push_back(row);
    sort_rows(
        out.call_sites, [](const call_site_profile& r) { return r.local_on_span.span; },
        [](const call_site_profile& r) { return r.local_on_work.work; });
  }

  void spawn_rows(report& out) const {
    const double span_units = static_cast<double>(out.span());
    spawn_site_profile root = spawn_root_;
    root.name = out.label;
    out.spawn_sites.push_back(root);
    for (const auto& [k, row] : spawn_) {
      spawn_site_profile r = row;
      // A measurement states max(0, its top-call-site span) (report.hpp); the
      // sum of those is not max(0, the sum) when one was negative, but the
      // call-site row of the same site keeps the signed sum.
      auto c = call_.find(k);
      if (c != call_.end())
        r.span = static_cast<std::uint64_t>(std::max<std::int64_t>(0, c->second.top_call_site_on_work.span));
      out.spawn_sites.push_back(r);
    }
    for (spawn_site_profile& r : out.spawn_sites)
      r.critical_percent = span_units > 0 ? 100.0 * static_cast<double>(r.critical_span) / span_units : 0.0;
    sort_rows(
        out.spawn_sites, [](const spawn_site_profile& r) { return r.critical_span; },
        [](const spawn_site_profile& r) { return r.exclusive_work; });
  }

  call_site_profile call_root_;
  spawn_site_profile spawn_root_;
  std::map<key, call_site_profile> call_;
  std::map<key, spawn_site_profile> spawn_;
  std::uint64_t with_ = 0, without_ = 0;
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
