// detail/measurement/measure.hpp: starting and ending a measurement — resolving the
// clock, calibrating the overhead compensation, and building the report. None of
// this is on the per-event path.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../../annotate.hpp"
#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../options.hpp"
#include "../../report.hpp"
#include "../blame/lock_rows.hpp"
#include "../burden/store.hpp"
#include "../engine/session.hpp"
#include "../engine/tasks.hpp"
#include "../engine/units.hpp"
#include "../observers/list.hpp"
#include "../output/views_hook.hpp"
#include "../util/env.hpp"
#include "calibrate.hpp"
#include "cpu_check.hpp"
#include "profile_rows.hpp"
#include "record_build.hpp"
#include "region_api.hpp"
#include "region_rows.hpp"
#include "what_if_config.hpp"
#include "what_if_rows.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Whether a measurement records: options.record, unless FORKSCALE_RECORD says
// otherwise; FORKSCALE_TRACE or FORKSCALE_FOLDED ask for it too.
inline bool recording_requested(bool option) {
  const env_switch e = read_env_switch("FORKSCALE_RECORD");
  if (e != env_switch::unset) return e == env_switch::on;
  const char* trace = std::getenv("FORKSCALE_TRACE");
  const char* folded = std::getenv("FORKSCALE_FOLDED");
  return option || (trace && *trace) || (folded && *folded);
}

// A burden file that cannot be used, as a diagnostic of the measurement
// ("forkscale: stored burden: burden file '...': ...; the default burden is used").
inline void burden_file_notice(session* s, std::string problem) {
  static const std::string prefix = "forkscale: ";
  if (problem.compare(0, prefix.size(), prefix) == 0) problem.erase(0, prefix.size());
  diagnose(s, site::tagged("stored burden"), problem + "; the default burden is used", false);
}

// What the burden file gives backend `b` in session `s`: the stored steal when
// it was measured on this machine, else the clock's default and why.
inline burden_choice choice_for(const session& s, const burden::lookup& l, backend b) {
  burden_choice out;
  out.ticks = s.info.default_burden_ticks;
  if (l.entries.empty()) return out;
  const burden::choice c = burden::choose(l, b, this_machine());
  out.note = c.note;
  if (!c.found) return out;
  out.ticks = static_cast<std::uint64_t>(std::llround(c.found->steal_ns / unit_per_tick(s)));
  out.source = std::string("measured ") + to_string(b);
  return out;
}

// The session's burden and where it came from: options.burden; else, under a
// timed clock, the steal cost stored on this machine for the backend
// (burden.hpp) — options.backend's, or with `automatic` the library of the
// first spawn through an adapter (note_backend picks it from backend_burden);
// else the clock's default (Cilkview's 15,000 cycles). A burden file that
// cannot be read is said in one diagnostic, and the default is used.
inline void resolve_burden(session& s, const options& opt) {
  s.named_backend = opt.backend;
  if (!(opt.burden < 0)) {
    s.burden = static_cast<std::uint64_t>(std::llround(opt.burden / unit_per_tick(s)));
    s.burden_source = "option";
    return;
  }
  s.burden = s.info.default_burden_ticks;
  s.burden_source = "default";
  const bool automatic = opt.backend == backend::automatic;
  if ((!automatic && backend_bit(opt.backend) == 0) || s.kind == clock_kind::cost) return;
  const burden::lookup l = burden::read_for_measurement();
  if (automatic) {
    for (backend b : {backend::std_thread, backend::tbb, backend::openmp})
      s.backend_burden[static_cast<unsigned>(b)] = choice_for(s, l, b);
    s.burden_follows_backend = true;
    s.burden_problem = l.problem;  // said once a backend is known (finish_session)
    return;
  }
  if (!l.problem.empty()) burden_file_notice(&s, l.problem);
  const burden_choice c = choice_for(s, l, opt.backend);
  s.burden = c.ticks;
  s.burden_source = c.source;
  s.burden_note = c.note;
}

template <class Clock>
std::unique_ptr<session> open_session(const std::string& label, const options& opt) {
  clock_kind kind = opt.clock;
  if (static_cast<unsigned>(kind) > static_cast<unsigned>(clock_kind::thread_cpu))
    throw error("forkscale: options.clock is not a clock_kind (value " + std::to_string(static_cast<unsigned>(kind)) +
                ")");
  if (Clock::fixed) {
    if (kind != clock_kind::automatic && kind != Clock::kind)
      throw error(std::string("forkscale: options.clock is '") + to_string(kind) +
                  "' but this engine's clock policy is '" + to_string(Clock::kind) + "'");
    kind = Clock::kind;
  } else {
    kind = clock_option(kind);  // FORKSCALE_CLOCK, where the options leave the clock automatic
  }
  const bool check_load = opt.check_load && kind != clock_kind::cost;
  const unsigned runnable = check_load || kind == clock_kind::automatic ? runnable_threads() : 0;
  bool chosen_for_load = false;
  if (kind == clock_kind::automatic) {
    kind = resolve_default();
    chosen_for_load = kind != clock_kind::thread_cpu && FORKSCALE_DETAIL_THREAD_CPU && oversubscribed(runnable);
    if (chosen_for_load) kind = clock_kind::thread_cpu;
  }
  if (!(opt.burden < 0) && !(opt.burden >= 0)) throw error("forkscale: options.burden is not a number");
  if (opt.burden > 1e15)
    throw error("forkscale: options.burden is " + std::to_string(opt.burden) +
                ", above 10^15 (in the clock's unit: ns, or units under the cost clock)");
  auto s = std::make_unique<session>();
  s->kind = kind;
  s->info = describe(kind, /*rate_now=*/false);
  s->on_diagnostic = opt.on_diagnostic;
  resolve_burden(*s, opt);
  const unsigned hw = std::thread::hardware_concurrency();
  s->max_processors = opt.max_processors ? opt.max_processors : std::max(32u, hw);
  s->profile = opt.site_profiles;
  s->serial = next_session_serial();
  s->root.label = label;
  s->root.path = escape_region_label(label);
  configure_what_if(*s, opt.what_if);
  if (recording_requested(opt.record)) {
    s->rec = std::make_shared<record_state>(s->serial, opt.record_limit, kind);
    s->rec->trace_limit = opt.trace_limit;
    s->recording = s->rec->separate_wall() ? recording_mode::with_wall_clock : recording_mode::on;
  }
  s->fuse_readings = readings_fuse(kind, s->recording);
  s->fuse_joins = joins_fuse(kind, s->recording);
  if (opt.compensate && kind != clock_kind::cost) {
    const compensation_estimate c = calibrate_compensation<Clock>(kind, opt.site_profiles, s->recording);
    s->compensation_exact = c.per_strand;
    s->compensation_call_exact = c.per_call_strand;
    s->compensation_residual = c.residual;
    s->compensation = c.table;
  } else if (opt.compensate && kind == clock_kind::cost && cost_clock_compensation_shares != nullptr) {
    s->compensation = *cost_clock_compensation_shares;
  } else if (opt.compensate && kind == clock_kind::cost &&
             (cost_clock_compensation_halves[0] != 0 || cost_clock_compensation_halves[1] != 0)) {
    s->compensation = halves_table(cost_clock_compensation_halves[0], cost_clock_compensation_halves[1]);
    s->compensation_exact = 2.0 * static_cast<double>(cost_clock_compensation_halves[0]);
    s->compensation_call_exact = 2.0 * static_cast<double>(cost_clock_compensation_halves[1]);
  }
  s->clock_chosen_for_load = chosen_for_load;
  s->runnable_at_start = runnable;
  s->check_load = check_load;
  if (check_load) s->load_at_start = take_load_snapshot();
  if (kind != clock_kind::cost) s->process_cpu_at_start = process_cpu_now_ns();
  return s;
}

// Ends a measurement whose root frame is `root` (already closed) and builds its
// report. The session is freed unless tasks or groups still refer to it. In
// the compiled form it is a part of its own (src/lib/finish.cpp): it reaches
// every row, the record and the views, and the engine's part does not.
FORKSCALE_INLINE report finish_session(std::unique_ptr<session> s, frame& root);
#if FORKSCALE_DETAIL_DEFINES(finish)
FORKSCALE_INLINE report finish_session(std::unique_ptr<session> s, frame& root) {
  path_prof out;
  if (root.profile.on) {
    out = root.profile.path;
    out.task = root.profile.task_id;
    out.chain = take_path(root);
  }
  if (followed_burden(*s) && !s->burden_problem.empty()) burden_file_notice(s.get(), s->burden_problem);
  // Tasks still running (misuse, diagnosed) may still write their threads'
  // tables: the profile is left out then.
  bool settled = root.sync_block == nullptr || root.sync_block->tally().running == 0;
  const std::int64_t unjoined = unjoined_in_bound_sets(*s);
  if (unjoined != 0)
    misuse(s.get(), root.where,
           "measurement ended while " + std::to_string(unjoined) +
               " task(s) spawned into a task_group or join_handle had not been joined inside it (still running, "
               "or finished and never waited for by a sync_point); they are not counted: the report's numbers are "
               "partial");
  settle_sync_block<measurement_observers>(root, root.profile.on ? &out : nullptr);
  if (s->rec && s->rec->limit_hit())
    diagnose(s.get(), root.where,
             "recording stopped at options.record_limit (" +
                 (s->rec->limit() >= (std::uint64_t(1) << 20) ? std::to_string(s->rec->limit() >> 20) + " MiB"
                                                              : std::to_string(s->rec->limit()) + " bytes") +
                 "): the record is partial (its views are incomplete); the numbers are whole",
             false);
  report rep = make_report_shell(*s);
  rep.regions.push_back(make_row(*s, s->root, 1, root.totals));
  add_region_rows(rep, *s, s->root);
  rep.compensation_total = rep.root().raw_work - rep.root().work;
  {
    // The compensation per strand on average over this run's strands: those
    // between scheduling events and those between strand splits (call sites).
    const region_result& r = rep.root();
    const double sched = static_cast<double>(1 + 2 * r.spawns + r.syncs);
    const bool calls_split = s->profile || s->recording != recording_mode::off || s->what_if_calls;
    const double split = calls_split ? 2.0 * static_cast<double>(r.calls) : 0.0;
    if (split > 0 && s->compensation_exact > 0)
      rep.compensation_per_strand = (sched * s->compensation_exact + split * s->compensation_call_exact) /
                                    (sched + split) * unit_per_tick(*s) * static_cast<double>(s->what_if.scale);
  }
  if (s->check_load) rep.load = compare_load(s->load_at_start, take_load_snapshot(), s->kind, rep.work());
  rep.load.runnable_at_start = s->runnable_at_start;
  rep.load.hardware_threads = hardware_threads();
  rep.load.clock_chosen_for_load = s->clock_chosen_for_load;
  if (s->process_cpu_at_start != 0) {
    const std::uint64_t cpu = process_cpu_now_ns();
    note_work_above_cpu(rep, cpu > s->process_cpu_at_start ? cpu - s->process_cpu_at_start : 0,
                        "measurement '" + s->root.label + "'");
  }
  // Misuse may leave tasks out (their tables may still change); a what-if
  // notice leaves everything else whole.
  std::uint64_t misuse_count = 0;
  {
    std::lock_guard<std::mutex> g(s->m);
    misuse_count = s->misuse_count;
  }
  settled = settled && misuse_count == 0;
  // A set still bound whose tasks were all joined inside the measurement (a
  // task_group made before it, destroyed after) holds nothing that can change.
  const bool unbound = unjoined == 0 || bound_count(*s) == 0;
  finish_site_profiles(rep, *s, root, out, root.profile.on && settled && unbound);
  if (settled && unbound) add_what_if(rep, *s, root);
  if (s->rec) attach_record(rep, *s, root, settled && unbound);
  if (settled) add_lock_rows(rep, *s);  // after the record: it marks the critical holds
  rep.profiler_bytes += what_if_bytes().load(std::memory_order_relaxed);
  what_if_release(root.totals.what_if);
  root.totals.what_if = nullptr;
  {
    std::lock_guard<std::mutex> g(s->m);
    rep.diagnostics = s->diagnostics;
    rep.diagnostic_count = s->diagnostic_count;
  }
  // The record's buffers now belong to the report's record alone, which frees
  // them once it is built (a view written below builds it).
  if (rep.record) s->rec.reset();
  write_record_views(rep, s->on_diagnostic);  // FORKSCALE_TRACE, FORKSCALE_FOLDED
  if (!unbound || bound_count(*s) != 0 || misuse_count != 0)
    keep_orphan(std::move(s));  // something may still report to it
  return rep;
}
#endif  // FORKSCALE_DETAIL_DEFINES(finish)

// The report of one instance of a nested region: its only row is the instance.
inline report nested_region_report(const session& s, const region_node& node, const path_totals& d) {
  // The report's label is the instance's path in the enclosing measurement; its
  // one row is its own root (depth 0), so that it reads back like any report.
  report rep = make_report_shell(s);
  rep.label = node.path;
  region_result row = make_row(s, node, 1, d);
  row.path = escape_region_label(node.label);
  row.parent.clear();
  row.depth = 0;
  rep.regions.push_back(std::move(row));
  rep.compensation_total = rep.regions.front().raw_work - rep.regions.front().work;
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

template <class Clock>
region_state* region_api<Clock>::open(std::string label, const options& opt, const site& where) {
  using E = engine<Clock>;
  auto r = std::make_unique<region_state>();
  r->where = where;
  if (!E::current()) {
    r->owned = open_session<Clock>(label, opt);
    if (const measurement_start_fn wake = measurement_start_hook.load(std::memory_order_acquire)) wake();
    E::begin_measurement(*r);
  } else {
    E::begin_region(*r, label);
  }
  return r.release();
}

template <class Clock>
void region_api<Clock>::notice(const site& where, const std::string& problem) {
  if (frame* f = engine<Clock>::current()) diagnose(f->sess, where, problem, false);
}

template <class Clock>
report region_api<Clock>::stop(region_state* r) {
  using E = engine<Clock>;
  if (r->stopped) return report{};
  r->stopped = true;
  if (r->owned) {
    E::end_measurement(*r);
    return finish_session(std::move(r->owned), r->root);
  }
  const path_totals d = E::end_region(*r);
  return nested_region_report(*r->task->sess, *r->node, d);
}

template <class Clock>
void region_api<Clock>::close(region_state* r) noexcept {
  std::unique_ptr<region_state> owned(r);
  if (r->stopped) return;
  report rep = stop(r);
  if (!rep.empty() && rep.regions.front().depth == 0) {
    std::lock_guard<std::mutex> g(last_report_mutex());
    last_report_slot() = std::move(rep);
  }
}

}  // namespace detail

#if FORKSCALE_DETAIL_DEFINES(measure)
FORKSCALE_INLINE report last_report() {
  std::lock_guard<std::mutex> g(detail::last_report_mutex());
  return detail::last_report_slot();
}
#endif

FORKSCALE_NAMESPACE_END
