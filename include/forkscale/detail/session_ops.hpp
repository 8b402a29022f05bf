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
  root.profile = s->profile;
  root.id = root_task_id;
  root.own_spawns = 0;
  root.own_local = 0;
  root.own_task = 0;
  root.pos0 = root.u0 = root.ut0 = 0;
  root.ctx = site_registry::instance().empty();
  root.rel_n = 0;
  root.credits = 0;
  root.pp = path_prof{};
}

// Cilkprof §7: the instrumentation's own cost lands in the strands it bounds, so
// it is measured once (per clock) on empty strands and subtracted from every
// strand. Returns ticks per strand: the median over 15 batches of 200
// spawn/child/sync rounds (4 strand ends each).
template <class Clock>
double calibrate_compensation(clock_kind kind, bool profile) {
  using E = basic_engine<Clock>;
  static std::mutex m;
  static double cached[16] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
  std::lock_guard<std::mutex> g(m);
  const auto slot = (static_cast<unsigned>(kind) & 7u) * 2u + (profile ? 1u : 0u);
  if (cached[slot] >= 0) return cached[slot];
  session s;
  s.kind = kind;
  s.profile = profile;
  s.serial = next_session_serial();
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
        spawn_token tk = E::spawn(nullptr, site{"forkscale-calibration", 0, "", nullptr});
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
    release_prof(take_path(root));
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
  s->profile = opt.site_profiles;
  s->serial = next_session_serial();
  s->root.label = label;
  s->root.path = label;
  if (opt.compensate && kind != clock_kind::cost) {
    s->comp_exact = calibrate_compensation<Clock>(kind, opt.site_profiles);
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

inline std::int64_t to_unit_signed(const session& s, std::int64_t ticks) noexcept {
  return ticks < 0 ? -static_cast<std::int64_t>(to_unit(s, static_cast<std::uint64_t>(-ticks)))
                   : static_cast<std::int64_t>(to_unit(s, static_cast<std::uint64_t>(ticks)));
}

// Converts one column of tick values to the report's unit so that the converted
// values add up to the converted total: each is the difference of the rounded
// running sums (the self-checks stay exact with timed clocks too).
class column_rounding {
 public:
  explicit column_rounding(const session& s) : s_(s) {}
  std::int64_t next(std::int64_t ticks) {
    sum_ += ticks;
    const std::int64_t now = to_unit_signed(s_, sum_);
    const std::int64_t v = now - done_;
    done_ = now;
    return v;
  }

 private:
  const session& s_;
  std::int64_t sum_ = 0;
  std::int64_t done_ = 0;
};

inline std::string site_display_name(const site_entry& e) {
  if (e.has_tag) return e.tag;
  std::string f = e.file;
  const auto slash = f.find_last_of("/\\");
  if (slash != std::string::npos) f = f.substr(slash + 1);
  return f + ":" + std::to_string(e.line);
}

// The call-site and spawn-site rows of a finished measurement.
inline void add_site_profiles(report& rep, const session& s, const frame& root, const path_prof& end) {
  std::vector<site_sums> on_work;
  std::size_t table_bytes = 0;
  {
    std::lock_guard<std::mutex> g(const_cast<session&>(s).m);
    for (const auto& t : s.onwork) {
      if (on_work.size() < t->sums.size()) on_work.resize(t->sums.size());
      for (std::size_t i = 0; i < t->sums.size(); ++i) on_work[i].add(t->sums[i]);
      table_bytes += t->sums.capacity() * sizeof(site_sums);
    }
  }
  std::vector<site_sums> on_span;
  sum_chain(end.node, on_span);
  const std::size_t n = std::max(on_work.size(), on_span.size());
  on_work.resize(n);
  on_span.resize(n);
  const std::vector<site_entry> entries = site_registry::instance().entries(static_cast<std::uint32_t>(n));

  const std::uint64_t work = root.t.work, span = root.t.pos;
  struct row {
    std::uint32_t id;  // n for the root
    std::int64_t key_span;
    std::uint64_t key_work;
  };
  std::vector<row> calls, spawns;
  calls.push_back(row{static_cast<std::uint32_t>(n), 0, 0});
  spawns.push_back(row{static_cast<std::uint32_t>(n), 0, 0});
  for (std::uint32_t i = 0; i < n; ++i) {
    if (on_work[i].n == 0) continue;
    calls.push_back(row{i, on_span[i].local_span, on_work[i].local_work});
    if (entries[i].kind == site_kind::spawn) spawns.push_back(row{i, on_span[i].task_span, on_work[i].task_work});
  }
  const auto by_name = [&](std::uint32_t a, std::uint32_t b) {
    const std::string na = site_display_name(entries[a]), nb = site_display_name(entries[b]);
    return na != nb ? na < nb : a < b;
  };
  const auto order = [&](const row& a, const row& b) {
    if (a.key_span != b.key_span) return a.key_span > b.key_span;
    if (a.key_work != b.key_work) return a.key_work > b.key_work;
    return by_name(a.id, b.id);
  };
  std::sort(calls.begin() + 1, calls.end(), order);
  std::sort(spawns.begin() + 1, spawns.end(), order);

  const auto measure = [&](std::uint64_t count, std::uint64_t w, std::int64_t sp) {
    site_measure m;
    m.count = count;
    m.work = to_unit(s, w);
    m.span = to_unit_signed(s, sp);
    return m;
  };
  const auto describe_row = [&](auto& out, std::uint32_t id) {
    if (id == n) {
      out.name = s.root.label;
      out.kind = site_kind::root;
      return;
    }
    const site_entry& e = entries[id];
    out.name = site_display_name(e);
    out.file = e.file;
    out.line = e.line;
    out.function = e.function;
    out.tag = e.tag;
    out.kind = e.kind;
    out.recursive = on_work[id].n > on_work[id].tcs_n;
  };

  column_rounding local_span_col(s), local_work_col(s);
  for (const row& r : calls) {
    call_site_profile p;
    describe_row(p, r.id);
    if (r.id == n) {
      p.top_call_site_on_work = p.top_caller_on_work = p.top_call_site_on_span = p.top_caller_on_span =
          measure(1, work, static_cast<std::int64_t>(span));
      p.local_on_work = measure(1, root.own_local, static_cast<std::int64_t>(end.u));
      p.local_on_span = p.local_on_work;
      p.local_on_work.work = static_cast<std::uint64_t>(local_work_col.next(static_cast<std::int64_t>(root.own_local)));
      p.local_on_span.span = local_span_col.next(static_cast<std::int64_t>(end.u));
    } else {
      const site_sums& w = on_work[r.id];
      const site_sums& sp = on_span[r.id];
      p.top_call_site_on_work = measure(w.tcs_n, w.tcs_work, w.tcs_span);
      p.top_caller_on_work = measure(w.tc_n, w.tc_work, w.tc_span);
      p.local_on_work = measure(w.n, w.local_work, w.local_span);
      p.local_on_work.work = static_cast<std::uint64_t>(local_work_col.next(static_cast<std::int64_t>(w.local_work)));
      p.top_call_site_on_span = measure(sp.tcs_n, sp.tcs_work, sp.tcs_span);
      p.top_caller_on_span = measure(sp.tc_n, sp.tc_work, sp.tc_span);
      p.local_on_span = measure(sp.n, sp.local_work, sp.local_span);
      p.local_on_span.span = local_span_col.next(sp.local_span);
    }
    rep.call_sites.push_back(std::move(p));
  }

  column_rounding crit_col(s), excl_col(s);
  const double span_units = static_cast<double>(rep.root().span);
  for (const row& r : spawns) {
    spawn_site_profile p;
    describe_row(p, r.id);
    if (r.id == n) {
      p.tasks = 1;
      p.work = to_unit(s, work);
      p.span = to_unit(s, span);
      p.exclusive_work = static_cast<std::uint64_t>(excl_col.next(static_cast<std::int64_t>(root.own_task)));
      p.critical_span = crit_col.next(static_cast<std::int64_t>(end.ut));
    } else {
      const site_sums& w = on_work[r.id];
      p.tasks = w.n;
      p.work = to_unit(s, w.tcs_work);
      p.span = static_cast<std::uint64_t>(std::max<std::int64_t>(0, to_unit_signed(s, w.tcs_span)));
      p.exclusive_work = static_cast<std::uint64_t>(excl_col.next(static_cast<std::int64_t>(w.task_work)));
      p.critical_span = crit_col.next(on_span[r.id].task_span);
    }
    p.critical_percent = span_units > 0 ? 100.0 * static_cast<double>(p.critical_span) / span_units : 0.0;
    rep.spawn_sites.push_back(std::move(p));
  }
  rep.profiler_bytes += table_bytes + prof_array_bytes().load(std::memory_order_relaxed) +
                        object_pool<prof_node>::instance().reserved_bytes() + site_registry::instance().bytes();
}

// Ends a measurement whose root frame is `root` (already closed) and builds its
// report. The session is freed unless tasks or groups still refer to it.
inline report finish_session(std::unique_ptr<session> s, frame& root) {
  path_prof out;
  if (root.profile) {
    out = root.pp;
    out.key = root.id;
    out.node = take_path(root);
  }
  // Tasks still running (misuse, diagnosed) may still write their threads'
  // on-work tables: the profile is left out then.
  bool settled = true;
  if (root.pending) {
    root.pending->lock.lock();
    settled = root.pending->remaining() == 0;
    root.pending->lock.unlock();
  }
  settle_pending(root, root.profile ? &out : nullptr);
  report rep = make_report_shell(*s);
  rep.regions.push_back(make_row(*s, s->root, 1, root.t));
  add_region_rows(rep, *s, s->root);
  rep.compensation_total = rep.root().raw_work - rep.root().work;
  {
    std::lock_guard<std::mutex> g(s->m);
    settled = settled && s->diagnostic_count == 0;
  }
  if (root.profile && settled && s->bound_objects.load(std::memory_order_acquire) == 0)
    add_site_profiles(rep, *s, root, out);
  release_prof(out.node);
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
