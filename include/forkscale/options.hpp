// options.hpp: how a measurement is made. Everything has a sensible default.
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "backend.hpp"
#include "clock.hpp"
#include "config.hpp"
#include "report.hpp"

FORKSCALE_NAMESPACE_BEGIN

// What the what-if analysis looks at (options::what_if).
struct what_if_options {
  // The speedup factors each region is analysed at: positive, at most 65536, or
  // infinity (std::numeric_limits<double>::infinity()); at most 16 of them.
  // Fractions are kept exactly when their numerator and denominator are at most
  // 65536 (1.5 is 3/2), else as the nearest such fraction.
  std::vector<double> factors{2, 4, 8, 16, std::numeric_limits<double>::infinity()};
  // Call sites analysed as what-if regions without editing their code: "file:line"
  // (the file matched as a path suffix: "quicksort.cpp:57") or "tag=NAME". Each
  // becomes one region covering every call_site guard it names.
  std::vector<std::string> call_sites;
  // Also read FORKSCALE_WHAT_IF: call sites separated by ';', and "factors=2,4,inf"
  // (once) which replaces `factors`. A bad value there throws nothing: it is one
  // diagnostic, and the measurement goes on without what-if (docs/model.md). Bad
  // values in these options throw forkscale::error.
  bool read_environment = true;
  // The advisor's mode: the measurement itself takes these call sites to be
  // `assume_factor`× faster (parallelized model: their strands' contribution to
  // every path divides, the work stays). Every number of the report, profiles
  // included, is then about that hypothetical program.
  std::vector<std::string> assume_faster;
  double assume_factor = 16;
};

// Whether long work (fs::advise, fs::run_study) shows its progress: one line on
// stderr, updated in place with '\r'. automatic: only when stderr is a terminal.
// The environment variable FORKSCALE_PROGRESS=0 turns it off whatever the
// option; FORKSCALE_PROGRESS=1 turns it on where the option is automatic.
enum class progress_mode { automatic, on, off };

struct options {
  // Where strand costs come from (see clock.hpp). Ignored by engines whose clock
  // policy fixes the source at compile time, unless it contradicts it. `automatic`
  // is the TSC (steady_clock where there is none), or thread_cpu when the machine
  // is oversubscribed as the measurement starts (report::load says so).
  // Left `automatic`, the environment may choose: FORKSCALE_CLOCK=cost, tsc,
  // steady, arm_counter, thread_cpu or automatic (a bad value: one line on
  // stderr, and automatic). A clock policy fixed at compile time wins over both.
  clock_kind clock = clock_kind::automatic;
  // Under a timed clock, read the scheduler's counters at the start and end and
  // say in report::load whether waiting for a CPU could have inflated the numbers
  // (Linux; a few file reads per thread, outside the measured time).
  bool check_load = true;
  // Burden per continuation edge in the report's unit; negative means Cilkview's
  // 15,000 cycles expressed in the clock's unit (15,000 units for the cost clock).
  double burden = -1;
  // The parallel library the measured program runs on. `automatic`: the
  // library of the first spawn made through an adapter (fs::thread, fs::async,
  // fs::tbb, fs::omp, the OMPT tool); std_thread, tbb or openmp: that one;
  // unknown: none. When it is known and options.burden is negative, a timed
  // clock's burden is the steal cost fs::calibrate_burden measured for it on
  // this machine and stored (burden.hpp, docs/predict.md), if there is one;
  // report::backend and report::burden_source say which. Looking costs one
  // stat() of the burden file per measurement.
  forkscale::backend backend = forkscale::backend::automatic;
  // Subtract the engine's own per-strand cost, measured at start-up (Cilkprof §7).
  // Never applies to the cost clock.
  bool compensate = true;
  // Per-call-site and per-spawn-site profiles (docs/model.md). Off, every event is
  // cheaper and the report has no site rows.
  bool site_profiles = true;
  // The speedup estimate goes up to this many processors (0: 32, or the number of
  // hardware threads if that is larger).
  unsigned max_processors = 0;
  // What-if regions and factors (docs/model.md, "What-if regions").
  what_if_options what_if;
  // Keep the strand graph of the measurement (report::record, docs/record.md):
  // each strand's thread, times, cost and call path, and the spawn and join
  // edges — what the timeline, the critical path, the flame graphs and the
  // replay are made of. FORKSCALE_RECORD=1 in the environment turns it on (and
  // =0 off) whatever this says; so does FORKSCALE_TRACE or FORKSCALE_FOLDED.
  bool record = false;
  // The most memory recording holds, in bytes. Past it recording stops (one
  // diagnostic, report::record marked incomplete); the numbers stay whole.
  // 1 GiB holds about 12 million strands (the README's quicksort of 10^7 has
  // 6.2 million).
  std::uint64_t record_limit = std::uint64_t(1) << 30;
  // The most strands the trace (report::write_trace, FORKSCALE_TRACE) writes as
  // slices of their own. Above it the trace keeps every strand of the critical
  // path and the longest others and folds the strands between them on a
  // thread into one slice, with their count, work and span in args; the
  // folded files and the report's numbers stay exact (docs/record.md, "The
  // bound"). Above it the text report does not analyse the record either (its
  // timeline, idle blame and replay lines: one paragraph says so). 0: no
  // bound. Kept in the record (execution_record::trace_limit).
  std::uint64_t trace_limit = 1000000;
  // Called for each misuse found (already counted in the report). Empty: print one
  // line to stderr.
  std::function<void(const diagnostic&)> on_diagnostic;
};

FORKSCALE_NAMESPACE_END
