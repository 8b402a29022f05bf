// detail/measurement/profile_rows.hpp: a finished measurement's call-site and
// spawn-site rows (docs/model.md, "Per-site profiles").
#pragma once
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../engine/frame.hpp"
#include "../engine/session.hpp"
#include "../engine/units.hpp"
#include "../profile/chain.hpp"
#include "../profile/prof_records.hpp"
#include "../profile/sites.hpp"
#include "../util/strings.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

inline std::string site_display_name(const site_entry& e) {
  return e.has_tag ? e.tag : short_site_name(e.file, e.line);
}

// Everything the rows are made from: per-site sums on work (over every thread's
// table) and on span (along the critical path's chain), the sites, and the
// root's own numbers.
struct site_profile_input {
  std::vector<site_sums> on_work, on_span;
  std::vector<site_entry> entries;
  std::uint32_t root_id = 0;  // rows use this id for the measurement itself
  std::size_t table_bytes = 0;
};

inline site_profile_input collect_site_sums(const session& s, const path_prof& end) {
  site_profile_input in;
  {
    std::lock_guard<std::mutex> g(const_cast<session&>(s).m);
    for (const auto& t : s.tables) {
      if (in.on_work.size() < t->on_work.size()) in.on_work.resize(t->on_work.size());
      for (std::size_t i = 0; i < t->on_work.size(); ++i) in.on_work[i].add(t->on_work[i]);
      in.table_bytes += t->on_work.capacity() * sizeof(site_sums);
    }
  }
  sum_chain(end.chain, in.on_span);
  const std::size_t n = std::max(in.on_work.size(), in.on_span.size());
  in.on_work.resize(n);
  in.on_span.resize(n);
  in.entries = site_registry::instance().entries(static_cast<std::uint32_t>(n));
  in.root_id = static_cast<std::uint32_t>(n);
  return in;
}

// Row order: the root first, then by the span column (largest first), then by
// the work column, then by name.
struct site_row_key {
  std::uint32_t id;
  std::int64_t span;
  std::uint64_t work;
};

inline std::vector<site_row_key> ordered_site_rows(const site_profile_input& in, bool spawns_only) {
  std::vector<site_row_key> rows;
  rows.push_back(site_row_key{in.root_id, 0, 0});
  for (std::uint32_t i = 0; i < in.root_id; ++i) {
    if (in.on_work[i].local.count == 0) continue;
    if (!spawns_only) {
      rows.push_back(site_row_key{i, in.on_span[i].local.span, in.on_work[i].local.work});
    } else if (in.entries[i].kind == site_kind::spawn) {
      rows.push_back(site_row_key{i, in.on_span[i].task_span, in.on_work[i].task_work});
    }
  }
  std::sort(rows.begin() + 1, rows.end(), [&](const site_row_key& a, const site_row_key& b) {
    if (a.span != b.span) return a.span > b.span;
    if (a.work != b.work) return a.work > b.work;
    // Then by what the row shows, so that the order does not depend on which
    // thread met a site first; the id (registration order) only for sites
    // that differ in nothing shown.
    const site_entry &ea = in.entries[a.id], &eb = in.entries[b.id];
    const std::string na = site_display_name(ea), nb = site_display_name(eb);
    if (na != nb) return na < nb;
    const auto rest = [](const site_entry& e) { return std::tie(e.file, e.line, e.function, e.kind); };
    if (rest(ea) != rest(eb)) return rest(ea) < rest(eb);
    return a.id < b.id;
  });
  return rows;
}

template <class Row>
void describe_site_row(Row& out, const site_profile_input& in, const session& s, std::uint32_t id) {
  if (id == in.root_id) {
    out.name = s.root.label;
    out.kind = site_kind::root;
    return;
  }
  const site_entry& e = in.entries[id];
  out.name = site_display_name(e);
  out.file = e.file;
  out.line = e.line;
  out.function = e.function;
  out.tag = e.tag;
  out.kind = e.kind;
  out.recursive = in.on_work[id].local.count > in.on_work[id].top_call_site.count;
}

inline site_measure to_site_measure(const session& s, const measure_sum& m) {
  site_measure out;
  out.count = m.count;
  out.work = to_unit(s, m.work);
  out.span = to_unit_signed(s, m.span);
  return out;
}

inline void add_call_site_rows(report& rep, const session& s, const site_profile_input& in, const frame& root,
                               const path_prof& end) {
  column_rounding local_span_col(s), local_work_col(s);
  for (const site_row_key& key : ordered_site_rows(in, false)) {
    call_site_profile p;
    describe_site_row(p, in, s, key.id);
    if (key.id == in.root_id) {
      const measure_sum whole{1, root.totals.work, static_cast<std::int64_t>(root.totals.span)};
      p.top_call_site_on_work = p.top_caller_on_work = p.top_call_site_on_span = p.top_caller_on_span =
          to_site_measure(s, whole);
      p.local_on_work = p.local_on_span =
          to_site_measure(s, measure_sum{1, root.profile.local_work, static_cast<std::int64_t>(end.local_span)});
      p.local_on_work.work =
          static_cast<std::uint64_t>(local_work_col.next(static_cast<std::int64_t>(root.profile.local_work)));
      p.local_on_span.span = local_span_col.next(static_cast<std::int64_t>(end.local_span));
    } else {
      const site_sums& w = in.on_work[key.id];
      const site_sums& sp = in.on_span[key.id];
      p.top_call_site_on_work = to_site_measure(s, w.top_call_site);
      p.top_caller_on_work = to_site_measure(s, w.top_caller);
      p.local_on_work = to_site_measure(s, w.local);
      p.local_on_work.work = static_cast<std::uint64_t>(local_work_col.next(static_cast<std::int64_t>(w.local.work)));
      p.top_call_site_on_span = to_site_measure(s, sp.top_call_site);
      p.top_caller_on_span = to_site_measure(s, sp.top_caller);
      p.local_on_span = to_site_measure(s, sp.local);
      p.local_on_span.span = local_span_col.next(sp.local.span);
    }
    rep.call_sites.push_back(std::move(p));
  }
}

inline void add_spawn_site_rows(report& rep, const session& s, const site_profile_input& in, const frame& root,
                                const path_prof& end) {
  column_rounding crit_col(s), excl_col(s);
  const double span_units = static_cast<double>(rep.root().span);
  for (const site_row_key& key : ordered_site_rows(in, true)) {
    spawn_site_profile p;
    describe_site_row(p, in, s, key.id);
    if (key.id == in.root_id) {
      p.tasks = 1;
      p.work = to_unit(s, root.totals.work);
      p.span = to_unit(s, root.totals.span);
      p.exclusive_work = static_cast<std::uint64_t>(excl_col.next(static_cast<std::int64_t>(root.profile.task_work)));
      p.critical_span = crit_col.next(static_cast<std::int64_t>(end.task_span));
    } else {
      const site_sums& w = in.on_work[key.id];
      p.tasks = w.local.count;
      p.work = to_unit(s, w.top_call_site.work);
      p.span = static_cast<std::uint64_t>(std::max<std::int64_t>(0, to_unit_signed(s, w.top_call_site.span)));
      p.exclusive_work = static_cast<std::uint64_t>(excl_col.next(static_cast<std::int64_t>(w.task_work)));
      p.critical_span = crit_col.next(in.on_span[key.id].task_span);
    }
    p.critical_percent = span_units > 0 ? 100.0 * static_cast<double>(p.critical_span) / span_units : 0.0;
    rep.spawn_sites.push_back(std::move(p));
  }
}

// A finished measurement's site profiles, whose root frame is `root` and whose
// critical path's profile is `end`: the call-site and spawn-site rows when
// `rows` (a settled measurement), then the path's chain is let go (counted in
// the profiler's bytes first).
inline void finish_site_profiles(report& rep, const session& s, const frame& root, path_prof& end, bool rows) {
  site_profile_input in;
  if (rows) {
    in = collect_site_sums(s, end);
    rep.profiler_bytes += in.table_bytes + prof_array_bytes().load(std::memory_order_relaxed) +
                          object_pool<prof_node>::instance().reserved_bytes() + site_registry::instance().bytes();
  }
  release_prof(end.chain);
  end.chain = nullptr;
  if (!rows) return;
  add_call_site_rows(rep, s, in, root, end);
  add_spawn_site_rows(rep, s, in, root, end);
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
