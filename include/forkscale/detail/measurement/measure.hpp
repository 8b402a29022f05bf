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
#include "cpu_check.hpp"
#include "profile_rows.hpp"
#include "record_build.hpp"
#include "region_api.hpp"
#include "region_rows.hpp"
#include "what_if_config.hpp"
#include "what_if_rows.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Cilkprof §7: the instrumentation's own cost lands in the strands it bounds, so
// it is measured once (per clock) on empty strands and subtracted from every
// strand. A strand's overhead depends on the events at its ends, so it is
// measured for two classes of event, each charging half a strand's share:
// scheduling events (spawn, child, sync) and strand splits (call sites,
// regions). The medians over 15 batches of 200 rounds of spawn/child/sync, and
// of the same inside a call site. Recording (frame::recording) is part of what
// is measured.
struct compensation_estimate {
  double per_strand = -1;      // ticks per strand between scheduling events (-1: not measured yet)
  double per_call_strand = 0;  // ticks per strand between strand splits (call sites)
  // How far the batches' per-strand figures lie from their median (the larger
  // of the quartiles' distances): how far the estimate may be off on a strand.
  double residual = 0;
};

// One calibration's estimate from its batches' ticks per round, each sorted:
// `sched` of spawn/child/sync rounds (`sched_halves` halves of a scheduling
// event's share end per round), `in_call` of the same inside a call site.
inline compensation_estimate compensation_from(const std::vector<double>& sched, const std::vector<double>& in_call,
                                               double sched_halves) noexcept {
  compensation_estimate e;
  const std::size_t n = sched.size();
  if (n == 0 || in_call.size() != n || !(sched_halves > 0)) return e;
  const double half = sched[n / 2] / sched_halves;
  const double split_half = std::max(0.0, (in_call[n / 2] - sched_halves * half) / 4.0);
  e.per_strand = 2.0 * half;
  e.per_call_strand = 2.0 * split_half;
  // The quartiles' distance from the median, per strand.
  e.residual = std::max({sched[n / 2] - sched[n / 4], sched[n - 1 - n / 4] - sched[n / 2],
                         in_call[n / 2] - in_call[n / 4], in_call[n - 1 - n / 4] - in_call[n / 2]}) /
               (sched_halves / 2.0);
  return e;
}

// A calibration whose batches agree to within 3% of the per-strand figure (or
// a tick) is kept. One whose batches spread wider ran while the machine
// changed under it (another process on the core, a virtual CPU slowed or
// stopped by its host): its median can be off by many times the spread of a
// quiet one (a 31 ns figure against 27-29 ns in quiet runs, within 5 ns
// against 0.1-0.4 ns), and a fine-grained program subtracts it millions of
// times. Such a calibration is run again, up to calibration_attempts times in
// all, and the attempt whose batches agree best is kept.
inline constexpr int calibration_attempts = 5;
inline bool calibration_settled(const compensation_estimate& e) noexcept {
  return e.per_strand >= 0 && e.residual <= std::max(1.0, 0.03 * e.per_strand);
}
// Whether `b` is the better of two attempts: the batches that agree best.
inline bool better_calibration(const compensation_estimate& b, const compensation_estimate& a) noexcept {
  return a.per_strand < 0 || (b.per_strand >= 0 && b.residual < a.residual);
}

template <class Clock>
compensation_estimate calibrate_compensation(clock_kind kind, bool profile,
                                             recording_mode recording = recording_mode::off) {
  using E = engine<Clock>;
  static std::mutex m;
  static compensation_estimate cached[48];
  std::lock_guard<std::mutex> g(m);
  const auto slot =
      ((static_cast<unsigned>(kind) & 7u) * 2u + (profile ? 1u : 0u)) * 3u + static_cast<unsigned>(recording);
  if (cached[slot].per_strand >= 0) return cached[slot];
  session s;
  s.kind = kind;
  s.profile = profile;
  s.serial = next_session_serial();
  s.on_diagnostic = [](const diagnostic&) {};
  if (recording != recording_mode::off) {
    s.rec = std::make_shared<record_state>(s.serial, std::uint64_t(1) << 30, kind);
    s.recording = s.rec->separate_wall() ? recording_mode::with_wall_clock : recording_mode::on;
  }
  // Where events share readings, the child (run at once) starts at its spawn's
  // reading: three strands end per round, not four.
  s.fuse_readings = readings_fuse(kind, s.recording);
  s.fuse_joins = joins_fuse(kind, s.recording);
  constexpr int rounds = 200;
  // Ticks per round of 15 batches of `rounds` rounds of `round`; sorted.
  const auto batches = [&](auto&& round) {
    std::vector<double> per_round;
    for (int batch = 0; batch < 15; ++batch) {
      frame root;
      init_root<measurement_observers>(root, &s, site{});
      E::current() = &root;
      root.strand_start = E::now(root);
      for (int i = 0; i < rounds; ++i) round();
      E::close_strand(root, E::now(root));
      settle_sync_block<measurement_observers>(root, nullptr);
      release_prof(take_path(root));
      E::current() = nullptr;
      per_round.push_back(static_cast<double>(root.totals.work) / rounds);
    }
    std::sort(per_round.begin(), per_round.end());
    return per_round;
  };
  const site spawn_site{"forkscale-calibration", 1, "", nullptr};
  const site call_site_here{"forkscale-calibration", 2, "", nullptr};
  // Through the guards, as a program's events come: their own code and the
  // hook table's call are part of the cost. (The table this measurement will
  // install; whatever was installed is put back after.)
  const engine_hooks* installed = installed_engine_hooks<Clock>.load(std::memory_order_acquire);
  install_engine_hooks<Clock, measurement_observers>();
  const auto spawn_child_sync = [&] {
    ::forkscale::spawn<Clock>([] {}, spawn_site)();  // run at once, as fs::spawn(f)()
    basic_sync_point<Clock> sp(spawn_site);
  };
  // Scheduling events alone: a spawn, its child run at once, a sync. Four
  // strands end per round (three where the child starts at its spawn's
  // reading): eight halves of a scheduling event's share (six).
  const double sched_halves = s.fuse_readings ? 6.0 : 8.0;
  compensation_estimate best;
  for (int attempt = 0; attempt < calibration_attempts && !calibration_settled(best); ++attempt) {
    const std::vector<double> sched = batches(spawn_child_sync);
    // The same inside a call site, as fine-grained code is annotated (fib: the
    // second call is a call site whose callee spawns and syncs): the call's two
    // splits add four halves of a split's share, and what a call scope costs
    // (its own sync block) lands in them.
    const std::vector<double> in_call = batches([&] {
      basic_call_site<Clock> cs(call_site_here);
      spawn_child_sync();
    });
    const compensation_estimate e = compensation_from(sched, in_call, sched_halves);
    if (better_calibration(e, best)) best = e;
  }
  if (installed != nullptr) installed_engine_hooks<Clock>.store(installed, std::memory_order_release);
  cached[slot] = best;
  return cached[slot];
}

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
    s->compensation_half = static_cast<std::uint64_t>(std::llround(c.per_strand / 2));
    s->compensation_call_half = static_cast<std::uint64_t>(std::llround(c.per_call_strand / 2));
  } else if (opt.compensate && kind == clock_kind::cost &&
             (cost_clock_compensation_halves[0] != 0 || cost_clock_compensation_halves[1] != 0)) {
    s->compensation_half = cost_clock_compensation_halves[0];
    s->compensation_call_half = cost_clock_compensation_halves[1];
    s->compensation_exact = 2.0 * static_cast<double>(s->compensation_half);
    s->compensation_call_exact = 2.0 * static_cast<double>(s->compensation_call_half);
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
