// benchmark.hpp: a forkscale report as Google Benchmark counters.
//
//   #include <forkscale/benchmark.hpp>
//   namespace fs = forkscale;
//
//   static void BM_sort(benchmark::State& state) {
//     std::vector<long> data = make_data(state.range(0));
//     // One measured run, before the timed loop: the loop's timing stays clean.
//     fs::benchmark::measure(state, "sort", [&] { auto copy = data; psort(copy); });
//     for (auto _ : state) {
//       auto copy = data;
//       psort(copy);
//     }
//   }
//   BENCHMARK(BM_sort)->Arg(1 << 20);
//
// Counters (Google Benchmark prints them next to the timings and writes them
// into its JSON and CSV output). The names of the times end in the report's
// unit, so that a reader of the console or the JSON sees it:
//
//   work_ns, span_ns, burdened_span_ns         with a timed clock (the default)
//   work_units, span_units, burdened_span_units with the cost clock
//                                              (fs::clock_kind::cost: the
//                                              program's charge() units)
//   parallelism                 work / span (a ratio, no unit)
//   burdened_parallelism        work / burdened_span
//
// Every counter is a plain value: flags Counter::kDefaults (not a rate, not
// divided by iterations or threads) and Counter::kIs1000 (times are decimal:
// Google Benchmark shows 5.57G ns, never in powers of 1024). Google Benchmark
// sums counters over the threads of a multi-threaded benchmark (->Threads(n)),
// so they are set by thread 0 only: measure() runs the callable on thread 0 only
// (the other threads get an empty report and wait at the start of the timed
// loop, as they do anyway), and attach() must likewise be called by one thread.
//
// Why one extra run instead of measuring the timed iterations: the guards cost a
// little on every spawn and sync, and a measurement allocates and tears down the
// profiler's state; inside the loop that would show up in the benchmark's own
// time. measure() therefore runs the callable once more, untimed, each time
// Google Benchmark runs the benchmark function (it does so a few times while it
// settles the number of iterations, and once per repetition); the counters of
// the run that is reported come from the measurement made in that same call.
// Call it before (or after) the `for (auto _ : state)` loop, never inside it.
//
// Note: the functions live in namespace forkscale::benchmark. A program with
// `using namespace forkscale;` must then spell Google Benchmark's namespace
// `::benchmark`.
#pragma once
#include <benchmark/benchmark.h>

#include <string>
#include <utility>

#include "../forkscale.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace benchmark {

// The counter names, in one place. The three times carry the report's unit:
// timed(work, "ns") is "work_ns".
struct counter_names {
  static constexpr const char* work = "work";
  static constexpr const char* span = "span";
  static constexpr const char* burdened_span = "burdened_span";
  static constexpr const char* parallelism = "parallelism";
  static constexpr const char* burdened_parallelism = "burdened_parallelism";
  static std::string timed(const char* name, const std::string& unit) {
    return unit.empty() ? std::string(name) : std::string(name) + "_" + unit;
  }
};

}  // namespace benchmark

namespace detail {

// A plain value: not a rate, not averaged; decimal thousands.
inline ::benchmark::Counter plain_counter(double v) {
  return ::benchmark::Counter(v, ::benchmark::Counter::kDefaults, ::benchmark::Counter::kIs1000);
}

// The five counters of `row`, the times named with `unit` (none when empty).
inline void attach_row(::benchmark::State& state, const region_result& row, const std::string& unit,
                       const std::string& prefix) {
  using names = ::forkscale::benchmark::counter_names;
  state.counters[prefix + names::timed(names::work, unit)] = plain_counter(static_cast<double>(row.work));
  state.counters[prefix + names::timed(names::span, unit)] = plain_counter(static_cast<double>(row.span));
  state.counters[prefix + names::timed(names::burdened_span, unit)] =
      plain_counter(static_cast<double>(row.burdened_span));
  state.counters[prefix + names::parallelism] = plain_counter(row.parallelism());
  state.counters[prefix + names::burdened_parallelism] = plain_counter(row.burdened_parallelism());
}

}  // namespace detail

namespace benchmark {

// Sets the five counters from one row of `rep` (a region of it, or its root),
// the times named with the report's unit. `prefix` is prepended to every name
// ("build." gives "build.work_ns", ...), so that several measured parts of one
// benchmark can sit side by side.
inline void attach(::benchmark::State& state, const report& rep, const region_result& row,
                   const std::string& prefix = std::string()) {
  detail::attach_row(state, row, rep.unit, prefix);
}

// Sets the counters from a whole report (its root row). An empty report — nothing
// was measured, or profiling is compiled out (FORKSCALE_ENABLE=0) — sets none.
inline void attach(::benchmark::State& state, const report& rep, const std::string& prefix = std::string()) {
  if (rep.empty()) return;
  attach(state, rep, rep.regions.front(), prefix);
}

// The 0.1 form, for a row alone: a row does not know its report's unit, so its
// times are named without one ("work", "span", "burdened_span"). Prefer
// attach(state, rep, row, prefix).
inline void attach(::benchmark::State& state, const region_result& row, const std::string& prefix = std::string()) {
  detail::attach_row(state, row, std::string(), prefix);
}

// Runs `fn` once as a measurement labeled `label` (fs::measure with `opt`),
// outside the timed loop, attaches the report's counters and returns the
// report. On threads other than thread 0 it does nothing and returns an empty
// report. Call it outside the timed loop (see above).
template <class Clock = default_clock, class Fn>
report measure(::benchmark::State& state, std::string label, Fn&& fn, const options& opt = options{},
               const site& where = site::current()) {
  if (state.thread_index() != 0) return report{};
  report rep = ::forkscale::measure<Clock>(std::move(label), std::forward<Fn>(fn), opt, where);
  attach(state, rep);
  return rep;
}

}  // namespace benchmark
FORKSCALE_NAMESPACE_END
