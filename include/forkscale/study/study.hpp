// study/study.hpp: a scaling study — the program timed at 1..P threads next to its
// sequential baseline, with forkscale's engine measuring the work of every run.
//
//   fs::study_workload w;
//   w.setup    = [&] { data = input; };                  // untimed, before every run
//   w.baseline = [&] { std::sort(data.begin(), data.end()); };          // Ts
//   w.parallel = [&](unsigned p) { parallel_sort(data, p); };          // annotated
//   fs::study_result s = fs::run_study("sort", w);       // P = 1, 2, 4, ... hardware threads
//   std::cout << s.to_text();  s.write_json("sort.study.json");
//
// What is measured (Acar, Charguéraud and Rainey, "Parallel Work Inflation,
// Memory Effects, and their Empirical Analysis", §2; docs/study.md):
//   Ts  time of the sequential baseline;       Te  time of the serial elision (optional)
//   T1  time of the parallel program, 1 thread; TP  time of the parallel program, P threads
//   WP  the work forkscale's engine measured in the P-thread run (the sum of its
//       strands on a timed clock), IP = P·TP − WP the idle time, FP = WP − T1 the
//       work inflation, and the factored speedups built from them.
// Every run of the parallel program runs inside fs::measure (with the study's
// options), and is timed with steady_clock around the call. Each kind of run is
// repeated (default 5 times, round robin so that slow drifts of the machine hit
// every kind alike); means, medians and spread are reported, and every speedup is
// a ratio of means (Acar §2.7). The memory-bandwidth probe of Cilkview §5 times P
// simultaneous copies of the serial baseline against one alone.
//
// The pieces, by job: scaling.hpp (sample statistics, the formulas), result.hpp
// (study_result), options.hpp (study_workload, study_options), run.hpp
// (run_study), json.hpp (to_json, study_from_json, read_study), text.hpp (to_text,
// to_csv), format.hpp (number formats of the text).
//
// Opt-in header: the umbrella forkscale.hpp does not include it.
#pragma once
#include "../forkscale.hpp"
#include "json.hpp"
#include "options.hpp"
#include "result.hpp"
#include "run.hpp"
#include "scaling.hpp"
#include "text.hpp"
