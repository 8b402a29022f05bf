// detail/measurement/region_rows.hpp: a finished measurement's region rows and the
// report's header fields.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../engine/join_set.hpp"
#include "../engine/session.hpp"
#include "../engine/units.hpp"
#include "../profile/chain.hpp"
#include "../what_if/offsets.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

inline region_result make_row(const session& s, const region_node& n, std::uint64_t instances, const path_totals& t) {
  region_result r;
  r.label = n.label;
  r.path = n.path;
  r.parent = n.parent ? n.parent->path : std::string();
  r.depth = n.depth;
  r.instances = instances;
  r.work = to_unit(s, t.work);
  r.span = to_unit(s, t.span);
  r.burdened_span = to_unit(s, t.burdened_span);
  r.spawns = t.spawns;
  r.syncs = t.syncs;
  r.calls = t.calls;
  r.raw_work = to_unit(s, t.work + t.compensation);
  r.raw_span = to_unit(s, t.raw_span);
  return r;
}

// report::backend: the named backend (options.backend) or else the first
// library the spawns came through, then the others they came through, joined
// by '+' ("std_thread+tbb"); empty when none is known.
inline std::string backend_names(const session& s) {
  const unsigned seen = s.backends_seen.load(std::memory_order_relaxed);
  unsigned first = backend_bit(s.named_backend);
  if (first == 0) first = s.first_backend.load(std::memory_order_relaxed);
  std::string out = first != 0 ? to_string(backend_of_bit(first)) : "";
  for (backend b : {backend::std_thread, backend::tbb, backend::openmp}) {
    const unsigned bit = backend_bit(b);
    if ((seen & bit) != 0 && bit != first) out += (out.empty() ? "" : "+") + std::string(to_string(b));
  }
  return out;
}

// The burden the first library's spawn chose, when the burden follows the
// backend and a library is known; else null (the session's own holds).
inline const burden_choice* followed_burden(const session& s) {
  if (!s.burden_follows_backend) return nullptr;
  const unsigned first = s.first_backend.load(std::memory_order_relaxed);
  if (first == 0) return nullptr;
  return &s.backend_burden[static_cast<unsigned>(backend_of_bit(first)) & 3u];
}

inline report make_report_shell(const session& s) {
  report rep;
  rep.label = s.root.label;
  rep.unit = s.info.unit;
  rep.clock = s.kind;
  rep.burden = to_unit(s, s.burden.load());
  rep.burden_source = s.burden_source;
  rep.burden_note = s.burden_note;
  if (const burden_choice* c = followed_burden(s)) {
    rep.burden_source = c->source;
    rep.burden_note = c->note;
  }
  rep.backend = backend_names(s);
  rep.compensation_per_strand = s.compensation_exact * unit_per_tick(s) * static_cast<double>(s.what_if.scale);
  rep.compensation_residual = s.compensation_residual * unit_per_tick(s) * static_cast<double>(s.what_if.scale);
  rep.max_processors = s.max_processors;
  rep.profiler_bytes = object_pool<join_set>::instance().reserved_bytes() + sizeof(session);
  return rep;
}

// Depth first; siblings in the order of their labels, so that the rows do not
// depend on which thread entered a region first.
inline void add_region_rows(report& rep, const session& s, const region_node& n) {
  std::vector<const region_node*> children;
  children.reserve(n.children.size());
  for (const auto& c : n.children) children.push_back(c.get());
  std::sort(children.begin(), children.end(),
            [](const region_node* a, const region_node* b) { return a->label < b->label; });
  for (const region_node* c : children) {
    rep.regions.push_back(make_row(s, *c, c->instances, c->sum));
    rep.profiler_bytes += sizeof(region_node) + c->label.size() + c->path.size();
    add_region_rows(rep, s, *c);
  }
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
