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
//  - Sleeping cores (core_wake > 0): only the awake cores are shared. A core
//    left without a runnable thread sleeps at once (one core stays awake);
//    while more threads are runnable than cores are awake, the sleeping cores
//    wake core_wake after the excess began (all those needed at once) unless
//    the excess ends first. A new thread whose creator waits for it at once
//    takes the creator's core and needs no wake; one beside a running creator
//    shares the awake cores until a sleeping one wakes. With core_wake 0 every
//    core is awake while it has a thread: plain processor sharing.
// Under processor sharing every runnable strand receives the same service, so
// one counter of the service each has received since the start (`service_`)
// and a heap of the service at which each will finish make an event cost
// O(log n): at most one runnable strand per thread, one event per strand and
// per thread start.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
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
  os_threads_replay(const replay_graph& g, unsigned cores, double spawn_cost, double thread_start, double core_wake = 0)
      : g_(g), st_(g), cores_(cores), spawn_(spawn_cost), start_(thread_start), wake_(core_wake) {}

  os_threads_run run() {
    for (const std::uint32_t s : st_.initial()) make_runnable(s);
    while (!finishing_.empty() || !starting_.empty()) {
      // The cores follow the runnable threads once every event of this
      // instant is done (a thread that ends as another starts leaves no core
      // to sleep).
      const bool more_now = (!finishing_.empty() && finishing_.top().first <= service_) ||
                            (!starting_.empty() && starting_.top().first <= now_);
      if (!more_now) cores_follow_threads();
      const double rate = speed();
      // The next event: a strand's end (at the service it needs), a thread's
      // start or sleeping cores waking; at one instant, the ends first, then
      // the starts.
      const double end_at = finishing_.empty() ? inf : now_ + (finishing_.top().first - service_) / rate;
      const double start_at = starting_.empty() ? inf : starting_.top().first;
      if (wake_at_ < end_at && wake_at_ < start_at) {
        if (!finishing_.empty()) service_ += (wake_at_ - now_) * rate;
        now_ = wake_at_;
        wake_at_ = inf;
        awake_ = std::max(1.0, std::min(cores_, static_cast<double>(finishing_.size())));
        continue;
      }
      if (end_at <= start_at) {
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

  static constexpr double inf = std::numeric_limits<double>::infinity();

  // Each runnable thread's speed: an awake core each while there are enough.
  double speed() const {
    const double r = static_cast<double>(finishing_.size());
    return r <= awake_ ? 1.0 : awake_ / r;
  }

  // The awake cores between events: a core left without a thread sleeps at
  // once (one stays awake); more runnable threads than awake cores wake the
  // sleeping ones core_wake after the excess began, unless it ends first.
  void cores_follow_threads() {
    const double r = static_cast<double>(finishing_.size());
    if (r <= awake_) {
      awake_ = std::max(1.0, r);
      wake_at_ = inf;
    } else if (awake_ < cores_ && wake_at_ == inf) {
      if (wake_ > 0)
        wake_at_ = now_ + wake_;
      else
        awake_ = std::min(cores_, r);
    }
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
  double spawn_, start_, wake_;
  double awake_ = 1;      // cores awake
  double wake_at_ = inf;  // when the sleeping cores wake (inf: not waking)
  double now_ = 0;
  double service_ = 0;  // what each runnable strand received since the start
  min_heap finishing_;  // (service at which it ends, strand): the runnable strands
  min_heap starting_;   // (time, strand): threads started, not yet runnable
  std::vector<std::uint32_t> ready_, ended_;
  os_threads_run out_;
};

inline os_threads_run os_threads_replay_run(const replay_graph& g, unsigned cores, double spawn_cost,
                                            double thread_start, double core_wake = 0) {
  return os_threads_replay(g, cores, spawn_cost, thread_start, core_wake).run();
}

}  // namespace predict
}  // namespace detail
FORKSCALE_NAMESPACE_END
