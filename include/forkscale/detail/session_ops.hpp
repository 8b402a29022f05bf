// detail/session_ops.hpp: starting and ending a measurement — resolving the clock,
// calibrating the overhead compensation, interning regions and building the report.
// None of this is on the per-event path.
#pragma once
#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../clock.hpp"
#include "../config.hpp"
#include "../report.hpp"
#include "engine.hpp"
#include "state.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

inline void init_root(frame& root, session* s, const site& where) noexcept {
  root.t = path_totals{};
  root.comp = s->comp;
  root.burden = s->burden;
  root.kind = s->kind;
  root.state = frame::run_state::running;
  root.guards = 0;
  root.outer = nullptr;
  root.s = s;
  root.pending = nullptr;
  root.report_to = nullptr;
  root.region = &s->root;
  root.where = where;
}

// Cilkprof §7: the instrumentation's own cost lands in the strands it bounds, so
// it is measured once (per clock) on empty strands and subtracted from every
// strand. Returns ticks per strand: the median over 15 batches of 200
// spawn/child/sync rounds (4 strand ends each).
template <class Clock>
double calibrate_compensation(clock_kind kind) {
  using E = basic_engine<Clock>;
  static std::mutex m;
  static double cached[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  std::lock_guard<std::mutex> g(m);
  const auto slot = static_cast<unsigned>(kind) & 7u;
  if (cached[slot] >= 0) return cached[slot];
  session s;
  s.kind = kind;
  s.on_diagnostic = [](const diagnostic&) {};
  constexpr int rounds = 200;
  std::vector<double> per_strand;
  for (int batch = 0; batch < 15; ++batch) {
    frame root;
    init_root(root, &s, site{});
    E::current() = &root;
    root.t0 = E::now(root);
    for (int i = 0; i < rounds; ++i) {
      {
        spawn_token tk = E::spawn(nullptr);
        frame child;
        E::begin_child(child, tk, site{});
        E::end_child(child);
      }
      unsigned depth = 0;
      frame* f = E::begin_sync(depth, site{});
      E::end_sync(f, nullptr, depth, site{});
    }
    E::close_strand(root, E::now(root));
    settle_pending(root);
    E::current() = nullptr;
    per_strand.push_back(static_cast<double>(root.t.work) / (4.0 * rounds + 1.0));
  }
  std::sort(per_strand.begin(), per_strand.end());
  cached[slot] = per_strand[per_strand.size() / 2];
  return cached[slot];
}

template <class Clock>
std::unique_ptr<session> open_session(const std::string& label, const options& opt) {
  clock_kind kind = opt.clock;
  if (Clock::fixed) {
    if (kind != clock_kind::automatic && kind != Clock::kind)
      throw error(std::string("forkscale: options.clock is '") + to_string(kind) +
                  "' but this engine's clock policy is '" + to_string(Clock::kind) + "'");
    kind = Clock::kind;
  } else if (kind == clock_kind::automatic) {
    kind = resolve_automatic();
  }
  if (!(opt.burden < 0) && !(opt.burden >= 0))
    throw error("forkscale: options.burden is not a number");
  auto s = std::make_unique<session>();
  s->kind = kind;
  s->info = describe(kind);
  s->burden = opt.burden < 0
                  ? s->info.default_burden_ticks
                  : static_cast<std::uint64_t>(std::llround(opt.burden / s->info.unit_per_tick));
  const unsigned hw = std::thread::hardware_concurrency();
  s->max_processors = opt.max_processors ? opt.max_processors : std::max(32u, hw);
  s->on_diagnostic = opt.on_diagnostic;
  s->root.label = label;
  s->root.path = label;
  if (opt.compensate && kind != clock_kind::cost) {
    s->comp_exact = calibrate_compensation<Clock>(kind);
    s->comp = static_cast<std::uint64_t>(std::llround(s->comp_exact));
  }
  return s;
}

inline region_node* intern_region(session* s, region_node* parent, const std::string& label) {
  std::lock_guard<std::mutex> g(s->m);
  for (auto& c : parent->children)
    if (c->label == label) return c.get();
  auto node = std::make_unique<region_node>();
  node->label = label;
  node->path = parent->path + "/" + label;
  node->parent = parent;
  node->depth = parent->depth + 1;
  parent->children.push_back(std::move(node));
  return parent->children.back().get();
}

// The totals of a region instance: what happened between two snapshots of the
// same task — its own strands and every child it joined in between.
inline path_totals difference(const path_totals& end, const path_totals& begin) noexcept {
  path_totals d;
  d.pos = end.pos - begin.pos;
  d.bpos = end.bpos - begin.bpos;
  d.rpos = end.rpos - begin.rpos;
  d.work = end.work - begin.work;
  d.subtracted = end.subtracted - begin.subtracted;
  d.spawns = end.spawns - begin.spawns;
  d.syncs = end.syncs - begin.syncs;
  d.calls = end.calls - begin.calls;
  return d;
}

inline void record_region(session* s, region_node* node, const path_totals& d) {
  std::lock_guard<std::mutex> g(s->m);
  ++node->instances;
  node->sum.pos += d.pos;
  node->sum.bpos += d.bpos;
  node->sum.rpos += d.rpos;
  node->sum.work += d.work;
  node->sum.subtracted += d.subtracted;
  node->sum.spawns += d.spawns;
  node->sum.syncs += d.syncs;
  node->sum.calls += d.calls;
}

inline std::uint64_t to_unit(const session& s, std::uint64_t ticks) noexcept {
  if (s.info.unit_per_tick == 1.0) return ticks;  // exact for the cost clock
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(ticks) * s.info.unit_per_tick));
}

inline region_result make_row(const session& s, const region_node& n, std::uint64_t instances,
                              const path_totals& t) {
  region_result r;
  r.label = n.label;
  r.path = n.path;
  r.parent = n.parent ? n.parent->path : std::string();
  r.depth = n.depth;
  r.instances = instances;
  r.work = to_unit(s, t.work);
  r.span = to_unit(s, t.pos);
  r.burdened_span = to_unit(s, t.bpos);
  r.spawns = t.spawns;
  r.syncs = t.syncs;
  r.calls = t.calls;
  r.raw_work = to_unit(s, t.work + t.subtracted);
  r.raw_span = to_unit(s, t.rpos);
  return r;
}

inline report make_report_shell(const session& s) {
  report rep;
  rep.label = s.root.label;
  rep.unit = s.info.unit;
  rep.clock = s.kind;
  rep.burden = to_unit(s, s.burden);
  rep.compensation_per_strand = s.comp_exact * s.info.unit_per_tick;
  rep.max_processors = s.max_processors;
  rep.profiler_bytes = join_pool::instance().reserved_bytes() + sizeof(session);
  return rep;
}

inline void add_region_rows(report& rep, const session& s, const region_node& n) {
  for (const auto& c : n.children) {
    rep.regions.push_back(make_row(s, *c, c->instances, c->sum));
    rep.profiler_bytes += sizeof(region_node) + c->label.size() + c->path.size();
    add_region_rows(rep, s, *c);
  }
}

// Ends a measurement whose root frame is `root` (already closed) and builds its
// report. The session is freed unless tasks or groups still refer to it.
inline report finish_session(std::unique_ptr<session> s, frame& root) {
  settle_pending(root);
  report rep = make_report_shell(*s);
  rep.regions.push_back(make_row(*s, s->root, 1, root.t));
  add_region_rows(rep, *s, s->root);
  rep.compensation_total = rep.root().raw_work - rep.root().work;
  {
    std::lock_guard<std::mutex> g(s->m);
    rep.diagnostics = s->diagnostics;
    rep.diagnostic_count = s->diagnostic_count;
  }
  if (s->bound_objects.load(std::memory_order_acquire) != 0 || rep.diagnostic_count != 0)
    keep_orphan(std::move(s));  // something may still report to it
  return rep;
}

inline std::mutex& last_report_mutex() {
  static std::mutex m;
  return m;
}
inline report& last_report_slot() {
  static report r;
  return r;
}

}  // namespace detail

// The report of the last outermost region that ended without stop() being called.
inline report last_report() {
  std::lock_guard<std::mutex> g(detail::last_report_mutex());
  return detail::last_report_slot();
}

FORKSCALE_NAMESPACE_END
