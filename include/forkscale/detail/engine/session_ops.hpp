// detail/session_ops.hpp: starting and ending a measurement — resolving the clock,
// calibrating the overhead compensation, interning regions and building the report.
// None of this is on the per-event path.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../report.hpp"
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
  root.wi_mask = s->wi_root_mask;
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

// The report's unit per engine tick. The TSC's rate is measured while the first
// measurement runs (clock.hpp), so it is looked up only when a report is made.
// A measurement that assumes call sites faster counts in 1/scale ticks.
inline double unit_per_tick(const session& s) noexcept {
  const double base = s.info.kind == clock_kind::tsc ? tsc_ns_per_tick() : s.info.unit_per_tick;
  return base / static_cast<double>(s.wi.scale);
}

// The what-if configuration of a measurement: options, then FORKSCALE_WHAT_IF.
inline void configure_what_if(session& s, const what_if_options& o) {
  wi_config& c = s.wi;
  std::vector<wi_factor> factors;
  for (double v : o.factors) factors.push_back(make_factor(v, "options.what_if.factors"));
  std::vector<wi_spec> specs;
  for (const std::string& t : o.call_sites) specs.push_back(parse_spec(t, "options.what_if.call_sites"));
  if (o.read_environment) {
    bool env_factors = false;
    std::vector<wi_factor> ef;
    parse_what_if_env(std::getenv("FORKSCALE_WHAT_IF"), specs, ef, env_factors);
    if (env_factors) factors = ef;
  }
  if (factors.empty()) throw error("forkscale: options.what_if.factors is empty; give at least one factor");
  if (factors.size() > wi_max_factors)
    throw error("forkscale: " + std::to_string(factors.size()) + " what-if factors; at most " +
                std::to_string(wi_max_factors) + " are analysed");
  // One region per distinct named call site, in the order named.
  std::vector<wi_spec> unique;
  for (const wi_spec& sp : specs) {
    bool seen = false;
    for (const wi_spec& u : unique) seen = seen || u.text == sp.text;
    if (!seen) unique.push_back(sp);
  }
  if (unique.size() > wi_max_regions)
    throw error("forkscale: " + std::to_string(unique.size()) + " what-if call sites named; at most " +
                std::to_string(wi_max_regions) + " are analysed");
  c.factors = factors;
  c.F = static_cast<unsigned>(factors.size());
  for (unsigned i = 0; i < c.F; ++i) {
    c.p[i] = factors[i].p;
    c.c[i] = factors[i].q - factors[i].p;
  }
  c.call_sites = unique;
  for (const wi_spec& sp : unique) {
    wi_region r;
    r.name = sp.text;
    r.spec = sp.text;
    r.call_site = true;
    if (sp.by_tag) r.tag = sp.tag;
    s.wi_regions.push_back(std::move(r));
  }
  for (const std::string& t : o.assume_faster) c.assume.push_back(parse_spec(t, "options.what_if.assume_faster"));
  c.assume_factor = make_factor(o.assume_factor, "options.what_if.assume_factor");
  if (!c.assume.empty()) {
    c.scale = c.assume_factor.p;
    s.wi_root_mask = wi_scaled_bit;
    s.burden *= static_cast<std::uint64_t>(c.scale);
  }
  s.wi_calls = !c.call_sites.empty() || !c.assume.empty();
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
  s->info = describe(kind, /*rate_now=*/false);
  s->burden = opt.burden < 0
                  ? s->info.default_burden_ticks
                  : static_cast<std::uint64_t>(std::llround(opt.burden / unit_per_tick(*s)));
  const unsigned hw = std::thread::hardware_concurrency();
  s->max_processors = opt.max_processors ? opt.max_processors : std::max(32u, hw);
  s->on_diagnostic = opt.on_diagnostic;
  s->profile = opt.site_profiles;
  s->serial = next_session_serial();
  s->root.label = label;
  s->root.path = label;
  configure_what_if(*s, opt.what_if);
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
  const double upt = unit_per_tick(s);
  if (upt == 1.0) return ticks;  // exact for the cost clock
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(ticks) * upt));
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
  rep.compensation_per_strand = s.comp_exact * unit_per_tick(s) * static_cast<double>(s.wi.scale);
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
  return e.has_tag ? e.tag : short_site_name(e.file, e.line);
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

// The what-if rows of a finished measurement (docs/model.md, "What-if regions").
inline void add_what_if(report& rep, session& s, const frame& root) {
  std::vector<wi_region> regions;
  std::vector<std::uint64_t> entries(wi_max_regions, 0), work(wi_max_regions + 1, 0);
  {
    std::lock_guard<std::mutex> g(s.m);
    regions = s.wi_regions;
    for (const auto& t : s.onwork) {
      for (std::size_t i = 0; i < t->wi_entries.size(); ++i) entries[i] += t->wi_entries[i];
      for (std::size_t i = 0; i < t->wi_work.size(); ++i) work[i] += t->wi_work[i];
    }
  }
  if (regions.empty()) return;
  const wi_config& c = s.wi;
  const wi_vec* v = root.t.wi;
  const std::uint64_t W = root.t.work, S = root.t.pos, burden = root.t.bpos - root.t.pos;
  const double upt = unit_per_tick(s);
  const double measured = S ? static_cast<double>(W) / static_cast<double>(S) : 0.0;
  std::uint64_t any_entries = 0;
  for (std::uint64_t e : entries) any_entries += e;

  struct block {
    std::vector<what_if_result> rows;
    double key = 0;  // predicted parallelism at the last factor, parallelized
  };
  std::vector<block> blocks;
  for (std::size_t sc = 0; sc <= regions.size(); ++sc) {
    block b;
    what_if_result base;
    if (sc == 0) {
      base.region = "(all regions)";
      base.source = what_if_source::all;
      base.entries = any_entries;
      base.executed = any_entries > 0;
    } else {
      const wi_region& r = regions[sc - 1];
      base.region = r.name;
      base.source = r.call_site ? what_if_source::call_site : what_if_source::region;
      base.file = r.file;
      base.line = r.line;
      base.function = r.function;
      base.tag = r.tag;
      base.entries = entries[sc - 1];
      base.executed = base.entries > 0;
    }
    const std::uint64_t w_r = work[sc];
    base.region_work = to_unit(s, w_r);
    for (unsigned i = 0; i < c.F; ++i) {
      const wi_factor& f = c.factors[i];
      const std::size_t idx = sc * c.F + i;
      const std::int64_t d = v && idx < v->n ? v->data()[idx] : 0;
      const std::int64_t span_num = static_cast<std::int64_t>(S) * f.p + d;
      for (what_if_model m : {what_if_model::parallelized, what_if_model::optimized}) {
        what_if_result r = base;
        r.model = m;
        r.factor = f.value;
        if (r.executed) {
          r.span_ticks_num = span_num;
          r.span_ticks_den = f.p;
          // Work in ticks × p: unchanged, or with the region's work divided.
          const long double work_num = m == what_if_model::parallelized
                                           ? static_cast<long double>(W) * f.p
                                           : static_cast<long double>(W) * f.p -
                                                 static_cast<long double>(w_r) * static_cast<long double>(f.p - f.q);
          r.work = static_cast<double>(work_num / f.p) * upt;
          r.span = static_cast<double>(static_cast<long double>(span_num) / f.p) * upt;
          r.burdened_span = r.span + static_cast<double>(burden) * upt;
          r.parallelism = span_num > 0 ? static_cast<double>(work_num / span_num)
                                       : std::numeric_limits<double>::infinity();
          r.gain = measured > 0 ? r.parallelism / measured : 0.0;
        } else {
          r.span_ticks_num = 0;
          r.span_ticks_den = 1;
        }
        b.rows.push_back(std::move(r));
      }
    }
    b.key = b.rows.empty() || !b.rows.front().executed ? -1.0 : b.rows[b.rows.size() - 2].parallelism;
    blocks.push_back(std::move(b));
  }
  // The all-regions rows first; then regions by what they could give at the last
  // factor, largest first; regions never entered last.
  std::stable_sort(blocks.begin() + 1, blocks.end(), [](const block& a, const block& b) { return a.key > b.key; });
  for (auto& b : blocks)
    for (auto& r : b.rows) rep.what_if.push_back(std::move(r));
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
  if (settled && s->bound_objects.load(std::memory_order_acquire) == 0) add_what_if(rep, *s, root);
  rep.profiler_bytes += wi_bytes().load(std::memory_order_relaxed);
  release_prof(out.node);
  wi_release(root.t.wi);
  root.t.wi = nullptr;
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
