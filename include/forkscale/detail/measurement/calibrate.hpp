// detail/measurement/calibrate.hpp: the overhead compensation's calibration —
// the instrumentation's own time in a strand, measured once per clock on empty
// strands (Cilkprof §7), by the kinds of event at the strand's two ends
// (compensation_table, engine/state.hpp). Not on the per-event path: it runs
// when a measurement opens (open_session), and its result is kept per clock.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <vector>

#include "../../annotate.hpp"
#include "../../clock.hpp"
#include "../../config.hpp"
#include "../engine/session.hpp"
#include "../engine/tasks.hpp"
#include "../observers/list.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// What a calibration gives: the share of each kind of event (`table`, in
// ticks), and two figures for the report. `per_strand` and `per_call_strand`
// are the average strand's of a spawn/child/sync cycle and of a call site's
// two splits; `residual` is how far the batches' figures lie from their
// median (the larger of the quartiles' distances), per strand.
struct compensation_estimate {
  double per_strand = -1;      // ticks per strand between scheduling events (-1: not measured yet)
  double per_call_strand = 0;  // ticks per strand between strand splits (call sites)
  double residual = 0;
  compensation_table table;
};

// The two figures from a calibration's batches' ticks per round, each sorted:
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

// One kind of strand measured on its own: the median, over a calibration's
// batches, of the ticks between the readings at its two ends.
struct strand_measure {
  comp_open_kind open;
  comp_close_kind close;
  double ticks;
};

// Whether an event kind is a strand split (a call site's end, a region's), as
// against a scheduling event: the share it takes when no strand measured it.
inline bool split_kind(unsigned index) noexcept {
  return index == open_call_enter || index == open_call_exit || index == open_split ||
         index == open_kinds + close_call_enter || index == open_kinds + close_call_exit ||
         index == open_kinds + close_split;
}

// Each event kind's share from the measured strands: the shares whose sums
// over each measured strand's two ends come nearest its ticks (least squares).
// Strands only fix sums, so a share is also drawn, weakly, to the event's
// half of the average strand of its class (`sched_half`, `split_half`): that
// settles what the strands leave open (a kind no strand measured takes that
// half), and moves no measured sum by more than a thousandth of a tick.
// Shares are whole ticks, none below zero.
inline compensation_table fit_compensation(const std::vector<strand_measure>& strands, double sched_half,
                                           double split_half) {
  constexpr unsigned n = open_kinds + close_kinds;
  constexpr double pull = 1e-4;
  double a[n][n + 1] = {};
  for (unsigned k = 0; k < n; ++k) {
    a[k][k] = pull;
    a[k][n] = pull * (split_kind(k) ? split_half : sched_half);
  }
  for (const strand_measure& m : strands) {
    const unsigned i = m.open, j = open_kinds + m.close;
    a[i][i] += 1;
    a[j][j] += 1;
    a[i][j] += 1;
    a[j][i] += 1;
    a[i][n] += m.ticks;
    a[j][n] += m.ticks;
  }
  // Gaussian elimination (the system is symmetric and positive definite).
  for (unsigned c = 0; c < n; ++c) {
    for (unsigned r = c + 1; r < n; ++r) {
      const double f = a[r][c] / a[c][c];
      for (unsigned k = c; k <= n; ++k) a[r][k] -= f * a[c][k];
    }
  }
  double x[n] = {};
  for (unsigned r = n; r-- > 0;) {
    double v = a[r][n];
    for (unsigned k = r + 1; k < n; ++k) v -= a[r][k] * x[k];
    x[r] = v / a[r][r];
  }
  // Only sums count: add the same to every opening share and take it off every
  // closing one, so that none is below zero where that can be done.
  const double lowest_open = *std::min_element(x, x + open_kinds);
  const double lowest_close = *std::min_element(x + open_kinds, x + n);
  const double lo = -lowest_open, hi = lowest_close;
  const double d = lo <= hi ? std::min(std::max(0.0, lo), hi) : lo;
  compensation_table t;
  for (unsigned k = 0; k < open_kinds; ++k)
    t.open[k] = static_cast<std::uint64_t>(std::llround(std::max(0.0, x[k] + d)));
  for (unsigned k = 0; k < close_kinds; ++k)
    t.close[k] = static_cast<std::uint64_t>(std::llround(std::max(0.0, x[open_kinds + k] - d)));
  return t;
}

// The shares of a cost-clock session given by two halves (tests): `sched` for
// scheduling events, `split` for splits.
inline compensation_table halves_table(std::uint64_t sched, std::uint64_t split) noexcept {
  compensation_table t;
  for (unsigned k = 0; k < open_kinds; ++k) t.open[k] = split_kind(k) ? split : sched;
  for (unsigned k = 0; k < close_kinds; ++k) t.close[k] = split_kind(open_kinds + k) ? split : sched;
  return t;
}

// What a calibration batch read: each strand's ticks and its kinds, in the
// order read. A reading costs a few stores (it lands in the strands it
// measures); the sums are made after the batch.
struct strand_log {
  static constexpr unsigned skip = 0xff;      // a reading that only moves the baseline
  static constexpr unsigned capacity = 4096;  // readings per batch (a round reads at most 12)
  std::vector<std::uint64_t> ticks;
  std::vector<unsigned char> kinds;  // open * close_kinds + close, or skip
  unsigned n = 0;

  strand_log() : ticks(capacity), kinds(capacity) {}
  // The mean ticks of each kind of strand logged, in `mean`; `count` of each.
  void sums(double (&mean)[open_kinds][close_kinds], unsigned (&count)[open_kinds][close_kinds]) const noexcept {
    for (unsigned i = 0; i < n; ++i) {
      if (kinds[i] == skip) continue;
      mean[kinds[i] / close_kinds][kinds[i] % close_kinds] += static_cast<double>(ticks[i]);
      ++count[kinds[i] / close_kinds][kinds[i] % close_kinds];
    }
    for (unsigned o = 0; o < open_kinds; ++o)
      for (unsigned c = 0; c < close_kinds; ++c)
        if (count[o][c] != 0) mean[o][c] /= count[o][c];
  }
};

// Reads a frame's work between events: each reading gives the strands closed
// since the one before (the calibration subtracts nothing, so that is their
// ticks), logged as one kind of strand.
struct strand_probe {
  const path_totals* at = nullptr;
  std::uint64_t last = 0;
  strand_log* log = nullptr;

  void watch(const frame& f, strand_log& l) noexcept {
    at = &f.totals;
    last = f.totals.work;
    log = &l;
  }
  void put(std::uint64_t ticks, unsigned kind) noexcept {
    if (log->n == strand_log::capacity) return;
    log->ticks[log->n] = ticks;
    log->kinds[log->n] = static_cast<unsigned char>(kind);
    ++log->n;
  }
  std::uint64_t take() noexcept {
    const std::uint64_t w = at->work;
    const std::uint64_t d = w - last;
    last = w;
    return d;
  }
  void strand(comp_open_kind o, comp_close_kind c) noexcept { put(take(), o * close_kinds + c); }
  // A reading of several strands, one of kind (o, c) and the rest `known`
  // ticks read before.
  void strand_less(comp_open_kind o, comp_close_kind c, std::uint64_t known) noexcept {
    const std::uint64_t d = take();
    put(d - std::min(d, known), o * close_kinds + c);
  }
  void skip() noexcept { put(take(), strand_log::skip); }
};

// The calibration's shapes of empty strands, through the guards as a
// program's events come, each round read strand by strand with `p` (the
// root's). Children run at once, as fs::spawn(f)() runs them; `fused`: their
// first strand starts at the spawn's reading (readings_fuse); `splits`: call
// sites split strands (site profiles or recording).
template <class Clock>
struct calibration_round {
  strand_probe& p;
  bool fused, splits;
  comp_open_kind child_open;
  site at_spawn, at_call;

  // An empty child spawned from the frame `q` reads, run at once; the strand
  // before the spawn was opened by an event of kind `o`.
  void leaf(strand_probe& q, comp_open_kind o) {
    auto c = ::forkscale::spawn<Clock>(
        [&q, this] {
          if (!fused) q.strand(open_after_spawn, close_child_begin);
        },
        at_spawn);
    q.strand(o, close_spawn);
    std::move(c)();
  }
  // The join of `q`'s children (the strand before it opened by `o`), and the
  // one child's strand, which the join adds.
  void join(strand_probe& q, comp_open_kind o, bool one_child = true) {
    {
      basic_sync_point<Clock> sp(at_spawn);
      q.strand(o, close_sync);
    }
    if (one_child) {
      q.strand(child_open, close_child_end);
    } else {
      q.skip();
    }
  }
  // spawn, child, sync
  void sched() {
    leaf(p, open_after_sync);
    join(p, open_after_child);
  }
  // spawn, child, spawn, child, sync
  void two_children() {
    leaf(p, open_after_sync);
    leaf(p, open_after_child);
    join(p, open_after_child, false);
  }
  // the same as sched() inside a call site
  void in_call() {
    {
      basic_call_site<Clock> cs(at_call);
      if (splits) p.strand(open_call_exit, close_call_enter);
      leaf(p, splits ? open_call_enter : open_after_sync);
      join(p, open_after_child);
    }
    if (splits) p.strand(open_after_sync, close_call_exit);
  }
  // fib's node: spawn, child, a call site around spawn, child, sync; sync
  void fib_node() {
    leaf(p, open_after_sync);
    {
      basic_call_site<Clock> cs(at_call);
      if (splits) p.strand(open_after_child, close_call_enter);
      leaf(p, splits ? open_call_enter : open_after_child);
      join(p, open_after_child);
    }
    if (splits) p.strand(open_after_sync, close_call_exit);
    join(p, splits ? open_call_exit : open_after_sync);
  }
  // fib's node over leaves: spawn, child, an empty call site, sync (splits only)
  void leaf_call() {
    leaf(p, open_after_sync);
    {
      basic_call_site<Clock> cs(at_call);
      p.strand(open_after_child, close_call_enter);
    }
    p.strand(open_call_enter, close_call_exit);
    join(p, open_call_exit);
  }
  // a child that spawns, runs and joins one of its own
  void nested() {
    std::uint64_t inner = 0;
    auto c = ::forkscale::spawn<Clock>(
        [&] {
          if (!fused) p.strand(open_after_spawn, close_child_begin);
          strand_probe q;
          q.watch(*engine<Clock>::current(), *p.log);
          leaf(q, child_open);
          join(q, open_after_child);
          inner = q.last;  // the child's work but its last strand
        },
        at_spawn);
    p.strand(open_after_sync, close_spawn);
    std::move(c)();
    {
      basic_sync_point<Clock> sp(at_spawn);
      p.strand(open_after_child, close_sync);
    }
    p.strand_less(open_after_sync, close_child_end, inner);
  }
};

// One shape's batches: `rounds` rounds of `shape` in each of 15 batches, each
// batch in a root frame of its own after a warm-up round. Returns the ticks
// per round of each batch, sorted, and adds the median of each kind of strand
// the shape measured to `out`.
template <class Clock, class Shape>
std::vector<double> calibration_batches(session& s, calibration_round<Clock>& r, Shape shape,
                                        std::vector<strand_measure>& out) {
  using E = engine<Clock>;
  constexpr int rounds = 200, batches = 15;
  std::vector<double> per_round, per_kind[open_kinds][close_kinds];
  strand_log log;
  for (int batch = 0; batch < batches; ++batch) {
    frame root;
    init_root<measurement_observers>(root, &s, site{});
    E::current() = &root;
    root.strand_start = E::now(root);
    r.p.watch(root, log);
    (r.*shape)();
    log.n = 0;  // (a warm-up round)
    const std::uint64_t from = root.totals.work;
    for (int i = 0; i < rounds; ++i) (r.*shape)();
    per_round.push_back(static_cast<double>(root.totals.work - from) / rounds);
    E::template close_strand<close_split>(root, E::now(root));
    settle_sync_block<measurement_observers>(root, nullptr);
    release_prof(take_path(root));
    E::current() = nullptr;
    double mean[open_kinds][close_kinds] = {};
    unsigned count[open_kinds][close_kinds] = {};
    log.sums(mean, count);
    for (unsigned o = 0; o < open_kinds; ++o)
      for (unsigned c = 0; c < close_kinds; ++c)
        if (count[o][c] != 0) per_kind[o][c].push_back(mean[o][c]);
  }
  for (unsigned o = 0; o < open_kinds; ++o) {
    for (unsigned c = 0; c < close_kinds; ++c) {
      std::vector<double>& v = per_kind[o][c];
      if (v.size() != static_cast<std::size_t>(batches)) continue;
      std::sort(v.begin(), v.end());
      out.push_back(strand_measure{static_cast<comp_open_kind>(o), static_cast<comp_close_kind>(c), v[v.size() / 2]});
    }
  }
  std::sort(per_round.begin(), per_round.end());
  return per_round;
}

// One attempt: the spawn/child/sync rounds and the same inside a call site,
// their two figures and the strands they measured.
struct calibration_attempt_result {
  compensation_estimate e;
  std::vector<strand_measure> strands;
};
template <class Clock>
calibration_attempt_result calibration_attempt(session& s, calibration_round<Clock>& r) {
  using R = calibration_round<Clock>;
  calibration_attempt_result a;
  const std::vector<double> sched = calibration_batches(s, r, &R::sched, a.strands);
  const std::vector<double> in_call = calibration_batches(s, r, &R::in_call, a.strands);
  // Three strands end per spawn/child/sync round where the child starts at its
  // spawn's reading, four otherwise: six or eight halves of a scheduling
  // event's share.
  a.e = compensation_from(sched, in_call, s.fuse_readings ? 6.0 : 8.0);
  return a;
}

// The attempts until one is settled (or the last), then the other shapes once
// after the attempt kept, and each event kind's share fitted to every kind of
// strand measured.
template <class Clock>
compensation_estimate calibration_of(session& s, bool splits) {
  strand_probe p;
  calibration_round<Clock> r{p,
                             s.fuse_readings,
                             splits,
                             s.fuse_readings ? open_child_at_once : open_child,
                             site{"forkscale-calibration", 1, "", nullptr},
                             site{"forkscale-calibration", 2, "", nullptr}};
  calibration_attempt_result best;
  for (int attempt = 0; attempt < calibration_attempts && !calibration_settled(best.e); ++attempt) {
    calibration_attempt_result a = calibration_attempt(s, r);
    if (better_calibration(a.e, best.e)) best = std::move(a);
  }
  if (best.e.per_strand < 0) return best.e;
  using R = calibration_round<Clock>;
  calibration_batches(s, r, &R::fib_node, best.strands);
  calibration_batches(s, r, &R::two_children, best.strands);
  calibration_batches(s, r, &R::nested, best.strands);
  if (splits) calibration_batches(s, r, &R::leaf_call, best.strands);
  best.e.table = fit_compensation(best.strands, best.e.per_strand / 2, best.e.per_call_strand / 2);
  return best.e;
}

// The calibration of a clock, site profiles on or off and a recording mode,
// kept for the process after its first measurement. Recording (frame::recording)
// is part of what is measured.
template <class Clock>
compensation_estimate calibrate_compensation(clock_kind kind, bool profile,
                                             recording_mode recording = recording_mode::off) {
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
  s.fuse_readings = readings_fuse(kind, s.recording);
  s.fuse_joins = joins_fuse(kind, s.recording);
  // Through the guards, as a program's events come: their own code and the
  // hook table's call are part of the cost. (The table this measurement will
  // install; whatever was installed is put back after.)
  const engine_hooks* installed = installed_engine_hooks<Clock>.load(std::memory_order_acquire);
  install_engine_hooks<Clock, measurement_observers>();
  const compensation_estimate best = calibration_of<Clock>(s, profile || s.recording != recording_mode::off);
  if (installed != nullptr) installed_engine_hooks<Clock>.store(installed, std::memory_order_release);
  cached[slot] = best;
  return cached[slot];
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
