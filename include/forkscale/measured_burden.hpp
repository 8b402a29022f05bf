// measured_burden.hpp: the types and functions of the measured burden
// (burden.hpp, which a program includes; docs/predict.md, "Measured burden"):
// fs::calibrate_burden, store_burden, stored_burden and the machine they name.
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "backend.hpp"
#include "config.hpp"

FORKSCALE_NAMESPACE_BEGIN

// The machine a calibration is measured on, as far as it can tell: its CPU
// model (Linux: /proc/cpuinfo's "model name"; empty where unknown) and its
// hardware threads (std::thread::hardware_concurrency()).
struct machine_identity {
  std::string cpu_model;
  unsigned hardware_threads = 0;
};

// This machine, read once per process.
FORKSCALE_INLINE machine_identity this_machine();

// One backend's runtime costs on this machine, in nanoseconds, from the
// micro-benchmark's rounds (detail/burden/calibrate.hpp).
struct measured_burden {
  forkscale::backend backend = forkscale::backend::unknown;
  // What one spawn costs the spawning thread: the library's call that hands the
  // child over (std::thread's constructor, task_group::run, creating an OpenMP
  // task), with an empty child.
  double spawn_ns = 0;
  // How long work handed over waits before another thread starts it, with the
  // spawning thread busy: the migration a steal makes (std::thread: the new
  // thread's start). The lower decile of the least disturbed batch of rounds:
  // the time when the other thread is on a core, as a thief is while a program
  // runs. This is the burden: the cost of a continuation edge.
  double steal_ns = 0;
  // The median of the same batch; far above steal_ns on a busy machine (the
  // other thread waited for a core).
  double steal_median_ns = 0;
  // std_thread only: from the constructor call to the new thread's first
  // instruction when its creator waits for it at once (std::thread::join), so
  // that a core is free for it: the start of a thread that waits for no core
  // (the lower decile of 100 rounds).
  // 0 for the other backends and in entries stored before it was measured.
  double thread_start_ns = 0;
  unsigned rounds = 0;  // rounds whose child another thread started
  // The machine it was measured on (this_machine()): a measurement on another
  // machine does not use it. An entry stored before machines were recorded
  // reads back with an empty cpu_model and is not used either.
  std::string cpu_model;
  unsigned hardware_threads = 0;
  // Threads of other processes ready to run as the calibration began (Linux's
  // /proc/stat; 0 elsewhere). As many as the hardware threads or more: the
  // machine was busy, and the steal measured how long its scheduler kept the
  // other thread waiting rather than the runtime (machine_was_busy()).
  unsigned runnable_elsewhere = 0;
  std::string measured_at;  // UTC, "2024-05-01T12:00:00Z"

  bool machine_was_busy() const noexcept { return hardware_threads && runnable_elsewhere >= hardware_threads; }
  // The median steal is more than twice the lower decile: the other thread
  // often waited for a core, another sign of a busy machine.
  bool steal_disturbed() const noexcept { return steal_median_ns > 2 * steal_ns; }
  // std_thread: how long a new thread waits for a core that sleeps while its
  // creator keeps its own (the OS-thread replay's replay_model::core_wake_cost):
  // the median start with the creator running (steal_median_ns) less the start
  // when a core is free (thread_start_ns). 0 when thread_start_ns was not
  // measured.
  double core_wake_ns() const noexcept {
    return thread_start_ns > 0 ? std::max(0.0, steal_median_ns - thread_start_ns) : 0.0;
  }
};

// Times a spawn and a steal of `b` on this machine (a few hundred rounds, well
// under a second). Throws forkscale::error for backend::unknown or automatic, for a backend
// whose adapter this program did not include (or, for OpenMP, compile with
// OpenMP), and on a machine with one hardware thread (nothing can be stolen).
FORKSCALE_INLINE measured_burden calibrate_burden(forkscale::backend b);

// Where measured burdens are stored: FORKSCALE_BURDEN_FILE when it is set,
// else $XDG_CACHE_HOME/forkscale/burden.json, else
// $HOME/.cache/forkscale/burden.json; empty when none of them is set.
FORKSCALE_INLINE std::string burden_file();

// Stores `m` in `path` (its backend's entry replaced, the others kept; the
// directory made if missing; the file replaced atomically). Throws
// forkscale::error when the path is empty, the file exists and is not a burden
// file, or it cannot be written.
FORKSCALE_INLINE void store_burden(const measured_burden& m, const std::string& path = burden_file());

// The stored figures for `b`, or nothing when the file or its entry does not
// exist. Throws forkscale::error when the file exists but cannot be read or is
// not a valid burden file.
FORKSCALE_INLINE std::optional<measured_burden> stored_burden(forkscale::backend b,
                                                              const std::string& path = burden_file());

FORKSCALE_NAMESPACE_END
