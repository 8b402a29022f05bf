// detail/predict/os_threads.hpp: the recorded graph run as a thread-per-spawn
// program (std::thread) on P cores, simulated event by event in virtual time.
//
//  - Every task is an OS thread: task 0 is the thread that ran the measurement,
//    every spawn starts one more. The spawning thread goes on at once with its
//    continuation; the new thread becomes runnable thread_start later (the
//    latency of creating and scheduling it) and then runs the child's strands.
//  - A thread is runnable while its next strand is ready; a thread whose next
//    strand waits for a join (the sync after its children) is blocked and uses
//    no core.
//  - The runnable threads share the P cores by processor sharing: with R of
//    them, each runs at speed min(1, P / R). Linux's CFS and EEVDF give every
//    runnable thread an equal share of the cores over a few milliseconds; the
//    replay takes that fair share as exact at every instant (the fluid limit
//    of round-robin time slices, Kleinrock 1967).
//  - A strand that ends at a spawn runs spawn_cost longer.
// Under processor sharing every runnable strand receives the same service, so
// one counter of the service each has received since the start (`service_`)
// and a heap of the service at which each will finish make an event cost
// O(log n): at most one runnable strand per thread, one event per strand and
// per thread start.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "graph.hpp"
#include "greedy.hpp"
#include "state.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace predict {

// One OS-thread replay's outcome.
struct os_threads_run {
  double time = 0;                  // when the last strand finished
  std::uint64_t threads = 0;        // threads started (spawns)
  std::uint64_t peak_runnable = 0;  // most threads runnable at one instant
};

class os_threads_replay {
 public:
  os_threads_replay(const replay_graph& g, unsigned cores, double spawn_cost, double thread_start)
      : g_(g), st_(g), cores_(cores), spawn_(spawn_cost), start_(thread_start) {}

  os_threads_run run() {
    for (const std::uint32_t s : st_.initial()) make_runnable(s);
    while (!finishing_.empty() || !starting_.empty()) {
      const double rate = speed();
      // The next event: a strand's end (at the service it needs) or a thread's
      // start; at one instant, the ends first.
      const bool end_first =
          !finishing_.empty() &&
          (starting_.empty() || now_ + (finishing_.top().first - service_) / rate <= starting_.top().first);
      if (end_first) {
        const double target = finishing_.top().first;
        now_ += (target - service_) / rate;
        service_ = target;
        // Every strand that needs no more than this much service ends now.
        ended_.clear();
        while (!finishing_.empty() && finishing_.top().first <= service_) {
          ended_.push_back(finishing_.top().second);
          finishing_.pop();
        }
        for (const std::uint32_t s : ended_) finish(s);
      } else {
        const double at = starting_.top().first;
        if (!finishing_.empty()) service_ += (at - now_) * rate;
        now_ = at;
        while (!starting_.empty() && starting_.top().first <= now_) {
          const std::uint32_t s = starting_.top().second;
          starting_.pop();
          begin(s);
        }
      }
      out_.peak_runnable = std::max<std::uint64_t>(out_.peak_runnable, finishing_.size());
    }
    check_all_ran(g_, st_);
    out_.time = now_;
    return out_;
  }

 private:
  using timed = std::pair<double, std::uint32_t>;
  using min_heap = std::priority_queue<timed, std::vector<timed>, std::greater<timed>>;

  // Each runnable thread's speed: a core each while there are enough.
  double speed() const {
    const double r = static_cast<double>(finishing_.size());
    return r <= cores_ ? 1.0 : static_cast<double>(cores_) / r;
  }

  double cost(std::uint32_t s) const { return g_.cost[s] + (g_.spawns[s] ? spawn_ : 0.0); }

  // A strand became ready: a new thread's first strand starts after the
  // thread's start; any other goes on in the thread that is already running.
  void make_runnable(std::uint32_t s) {
    if (g_.task_start[s]) {
      ++out_.threads;
      starting_.emplace(now_ + start_, s);
    } else {
      begin(s);
    }
  }

  void begin(std::uint32_t s) { finishing_.emplace(service_ + cost(s), s); }

  void finish(std::uint32_t s) {
    st_.finish(s, ready_);
    for (const std::uint32_t w : ready_) make_runnable(w);
  }

  const replay_graph& g_;
  replay_state st_;
  double cores_;
  double spawn_, start_;
  double now_ = 0;
  double service_ = 0;  // what each runnable strand received since the start
  min_heap finishing_;  // (service at which it ends, strand): the runnable strands
  min_heap starting_;   // (time, strand): threads started, not yet runnable
  std::vector<std::uint32_t> ready_, ended_;
  os_threads_run out_;
};

inline os_threads_run os_threads_replay_run(const replay_graph& g, unsigned cores, double spawn_cost,
                                            double thread_start) {
  return os_threads_replay(g, cores, spawn_cost, thread_start).run();
}

}  // namespace predict
}  // namespace detail
FORKSCALE_NAMESPACE_END
