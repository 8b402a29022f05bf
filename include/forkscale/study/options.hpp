// study/options.hpp: what a scaling study runs (study_workload) and how
// (study_options, oversubscription).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "../config.hpp"
#include "../options.hpp"
#include "../predict.hpp"

FORKSCALE_NAMESPACE_BEGIN

// What the study runs. baseline and parallel are required.
struct study_workload {
  // Called before every timed run of the baseline, the elision and the parallel
  // program, untimed: restore the input (refill the array a sort sorted).
  std::function<void()> setup;
  // The sequential baseline: the best serial program for the problem (Ts).
  std::function<void()> baseline;
  // The parallel program on P threads, annotated with forkscale's guards (its
  // spawns and joins), so that the engine sees the work of every thread.
  std::function<void(unsigned threads)> parallel;
  // Optional: the serial elision (the parallel code with every spawn run inline
  // and no scheduler), Te.
  std::function<void()> elision;
  // Optional, for the memory-bandwidth probe: makes one independent copy of the
  // serial baseline (with its own data) and returns it; making it is untimed,
  // running it is timed. Copies run at the same time on different threads.
  std::function<std::function<void()>(unsigned copy)> baseline_copy;
};

// What to do with a P larger than the number of hardware threads.
enum class oversubscription {
  warn,    // run it, mark the point and add a warning (default)
  skip,    // leave it out, with a warning
  refuse,  // throw forkscale::error before running anything
};

struct study_options {
  // The thread counts. 1 is always added (T1 is needed); empty means 1, 2, 4,
  // ... up to the hardware threads, and the hardware threads themselves.
  std::vector<unsigned> processors;
  unsigned repetitions = 5;       // timed runs of each kind
  unsigned warmup = 1;            // untimed runs of each kind first
  unsigned hardware_threads = 0;  // 0: std::thread::hardware_concurrency()
  oversubscription oversubscribed = oversubscription::warn;
  // WP from the engine's work after overhead compensation (true) or before it
  // (false, default): TP includes the profiler's own cost, so WP must too, or
  // that cost would show up as idle time.
  bool compensated_work = false;
  bool bandwidth_probe = true;                       // when study_workload::baseline_copy is given
  options measure;                                   // for each fs::measure; its clock must be a timed one
  std::function<void(const std::string&)> progress;  // one line per step, optional
  // The progress line on stderr (options.hpp, progress_mode): by default only
  // when stderr is a terminal; FORKSCALE_PROGRESS=0 or 1 overrides automatic.
  progress_mode show_progress = progress_mode::automatic;
  // The replay's validation (docs/predict.md): the last warm-up run at P = 1 (or,
  // without warm-up, one more untimed run) is recorded (options.record), and its
  // strand graph is replayed on P = 1, 2, 4, ... up to this many processors and
  // on every P the study ran, next to the measured times
  // (study_result::prediction). 0: no prediction.
  unsigned predict_up_to = 64;
  // The runtime the replay assumes (by default: the recorded run's burden).
  replay_model replay;
};

FORKSCALE_NAMESPACE_END
