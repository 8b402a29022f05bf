// benchmark_counters: Google Benchmark programs whose forkscale counters have
// known values under the cost clock (and one under a timed clock, whose
// counters are checked by name only). check_benchmark_json.cmake runs it with
// --benchmark_out_format=json and compares the counters in the JSON output with
// the values derived in programs.hpp.
#include <forkscale/integrations/benchmark.hpp>

#include <stdexcept>

#include "programs.hpp"

namespace fs = forkscale;
namespace progs = integration_programs;

namespace {

// fan_out(4, 1000) with a burden of 500: work 4,000, span 1,000, parallelism 4,
// burdened span max(3·500 + 1,000, 4·500) = 2,500, burdened parallelism 1.6.
void BM_fan_out(benchmark::State& state) {
  fs::benchmark::measure(
      state, "fan_out", [] { progs::fan_out_body(4, 1000); }, progs::cost_clock(500));
  for (auto _ : state) progs::fan_out_body(4, 1000);  // outside any measurement: plain code
}
BENCHMARK(BM_fan_out)->Iterations(3);

// Eight std::threads joined one by one, burden 100, in a benchmark run by two
// threads of Google Benchmark's: only thread 0 measures, so the counters are
// one run's numbers, not their sum. Work 2,000, span 250, parallelism 8,
// burdened span 7·100 + 250 = 950, burdened parallelism 40/19.
void BM_fan_out_threads(benchmark::State& state) {
  fs::benchmark::measure(
      state, "fan_out_threads", [] { progs::fan_out_threads_body(8, 250); }, progs::cost_clock(100));
  for (auto _ : state) progs::fan_out_threads_body(8, 250);
}
BENCHMARK(BM_fan_out_threads)->Iterations(3)->Threads(2);

// Counters of regions, side by side under prefixes, next to the whole run's.
// phases(3,000, 3, 1,000), default burden 15,000:
//   root      work 6,000  span 4,000  burdened 3,000 + 3·15,000 = 48,000
//   serial    work 3,000  span 3,000  burdened 3,000
//   parallel  work 3,000  span 1,000  burdened 45,000
void BM_regions(benchmark::State& state) {
  const fs::report rep = progs::phases(3000, 3, 1000);
  const fs::region_result* serial = rep.find("phases/serial");
  const fs::region_result* parallel = rep.find("phases/parallel");
  if (!serial || !parallel) {
    state.SkipWithError("the report has no phases/serial or phases/parallel row");
    return;
  }
  fs::benchmark::attach(state, rep);
  fs::benchmark::attach(state, rep, *serial, "serial.");
  fs::benchmark::attach(state, rep, *parallel, "parallel.");
  for (auto _ : state) benchmark::DoNotOptimize(rep.work());
}
BENCHMARK(BM_regions)->Iterations(3);

// The 0.1 form, a row without its report: the times carry no unit.
void BM_row_alone(benchmark::State& state) {
  const fs::report rep = progs::phases(3000, 3, 1000);
  const fs::region_result* serial = rep.find("phases/serial");
  if (!serial) {
    state.SkipWithError("the report has no phases/serial row");
    return;
  }
  fs::benchmark::attach(state, *serial);
  for (auto _ : state) benchmark::DoNotOptimize(rep.work());
}
BENCHMARK(BM_row_alone)->Iterations(3);

// Under a timed clock the times are named in ns (their values are not
// checked: they are times). Every counter is a plain decimal value.
void BM_timed(benchmark::State& state) {
  const fs::report rep = fs::benchmark::measure(state, "timed", [] { progs::fan_out_body(2, 10); });
  if (rep.unit != "ns") {
    state.SkipWithError(("the default clock measured in " + rep.unit + ", not ns").c_str());
    return;
  }
  for (const auto& [name, counter] : state.counters)
    if (counter.flags != benchmark::Counter::kDefaults || counter.oneK != benchmark::Counter::kIs1000) {
      state.SkipWithError(("counter " + name + " is not a plain decimal value").c_str());
      return;
    }
  for (auto _ : state) progs::fan_out_body(2, 10);
}
BENCHMARK(BM_timed)->Iterations(3);

// An empty report (nothing measured) sets no counter.
void BM_empty_report(benchmark::State& state) {
  fs::benchmark::attach(state, fs::report{});
  for (auto _ : state) benchmark::DoNotOptimize(state.iterations());
}
BENCHMARK(BM_empty_report)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
