// detail/predict/stealing.hpp: randomized work stealing of the recorded graph
// on P virtual workers, simulated event by event in virtual time (Blumofe and
// Leiserson, "Scheduling multithreaded computations by work stealing", 1999;
// the work-first policy of Cilk-5, Frigo, Leiserson and Randall, PLDI'98).
//
//  - Each worker has a deque. A worker that finishes a strand goes on with a
//    strand that strand made ready: at a spawn the child (work first), the
//    continuation going to the bottom of its deque; at a join, whoever finishes
//    the last predecessor goes on after it (Cilk's sync).
//  - With nothing made ready it pops the bottom of its own deque; with an empty
//    deque it becomes a thief: it picks a victim uniformly at random among the
//    other workers (a seeded generator, so a seed gives one schedule) and takes
//    the top (oldest) item of its deque. A successful steal starts the stolen
//    strand steal_cost later (Cilkview's burden is this cost on a continuation
//    edge); a failed attempt costs steal_attempt_cost before the next one.
//  - A strand that ends at a spawn runs spawn_cost longer.
// Thieves that find every deque empty wait for the next push instead of
// spinning, and then try again at the next instant of their attempt rhythm,
// as if they had kept trying: the outcome is the same, with fewer events.
#pragma once
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <random>
#include <tuple>
#include <vector>

#include "../../config.hpp"
#include "graph.hpp"
#include "greedy.hpp"
#include "state.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace predict {

class stealing_replay {
 public:
  stealing_replay(const replay_graph& g, unsigned workers, const runtime_costs& c, std::uint64_t seed)
      : g_(g),
        c_(c),
        st_(g),
        rng_(seed),
        workers_(workers),
        deque_(workers),
        strand_on_(workers, none),
        parked_at_(workers, -1.0) {}

  replay_run run() {
    const std::vector<std::uint32_t> first = st_.initial();
    if (!first.empty()) {
      start(0, first.front(), 0.0);
      for (std::size_t k = first.size(); k-- > 1;) push(0, first[k], 0.0);
    }
    for (std::uint32_t w = 1; w < workers_; ++w) events_.emplace(0.0, attempt, seq_++, w);
    while (!events_.empty()) {
      const auto e = events_.top();
      events_.pop();
      const double now = std::get<0>(e);
      const std::uint32_t w = std::get<3>(e);
      if (std::get<1>(e) == finish)
        finished(w, now);
      else
        try_steal(w, now);
      if (st_.finished() == g_.strands) {
        out_.time = now;
        break;
      }
    }
    check_all_ran(g_, st_);
    return out_;
  }

 private:
  static constexpr std::uint32_t none = 0xffffffffu;
  enum kind : int { finish = 0, attempt = 1 };  // at one time, finishes first
  using event = std::tuple<double, int, std::uint64_t, std::uint32_t>;

  void start(std::uint32_t w, std::uint32_t s, double at) {
    strand_on_[w] = s;
    events_.emplace(at + strand_time(g_, c_, s), finish, seq_++, w);
  }

  void push(std::uint32_t w, std::uint32_t s, double now) {
    deque_[w].push_back(s);
    ++queued_;
    if (parked_ == 0) return;
    // Wake the parked thieves at the next instant of their attempt rhythm.
    for (std::uint32_t v = 0; v < workers_; ++v) {
      if (parked_at_[v] < 0) continue;
      double at = now;
      if (c_.steal_attempt > 0)
        at = parked_at_[v] + std::ceil((now - parked_at_[v]) / c_.steal_attempt) * c_.steal_attempt;
      if (at < now) at = now;
      parked_at_[v] = -1.0;
      --parked_;
      events_.emplace(at, attempt, seq_++, v);
    }
  }

  std::uint32_t pop_bottom(std::uint32_t w) {
    const std::uint32_t s = deque_[w].back();
    deque_[w].pop_back();
    --queued_;
    return s;
  }

  void finished(std::uint32_t w, double now) {
    st_.finish(strand_on_[w], ready_);
    strand_on_[w] = none;
    if (!ready_.empty()) {
      start(w, ready_.front(), now);
      for (std::size_t k = ready_.size(); k-- > 1;) push(w, ready_[k], now);
      return;
    }
    if (!deque_[w].empty()) {
      start(w, pop_bottom(w), now);
      return;
    }
    try_steal(w, now);
  }

  void try_steal(std::uint32_t w, double now) {
    if (queued_ == 0 || workers_ < 2) {
      parked_at_[w] = now;
      ++parked_;
      return;
    }
    // Uniform over the other workers; the modulo is portable (a distribution
    // object is not), and its bias is below 2^-32 for any P a machine has.
    std::uint32_t v = static_cast<std::uint32_t>(rng_() % (workers_ - 1));
    if (v >= w) ++v;
    if (deque_[v].empty()) {
      ++out_.failed_steals;
      events_.emplace(now + c_.steal_attempt, attempt, seq_++, w);
      return;
    }
    const std::uint32_t s = deque_[v].front();
    deque_[v].pop_front();
    --queued_;
    ++out_.migrations;
    start(w, s, now + c_.steal);
  }

  const replay_graph& g_;
  runtime_costs c_;
  replay_state st_;
  std::mt19937_64 rng_;
  std::uint32_t workers_;
  std::vector<std::deque<std::uint32_t>> deque_;
  std::vector<std::uint32_t> strand_on_;
  std::vector<double> parked_at_;  // when a parked thief last tried; negative: not parked
  std::uint32_t parked_ = 0;
  std::uint64_t queued_ = 0;  // items in all deques
  std::uint64_t seq_ = 0;
  std::priority_queue<event, std::vector<event>, std::greater<event>> events_;
  std::vector<std::uint32_t> ready_;
  replay_run out_;
};

inline replay_run stealing_run(const replay_graph& g, unsigned workers, const runtime_costs& c, std::uint64_t seed) {
  return stealing_replay(g, workers, c, seed).run();
}

}  // namespace predict
}  // namespace detail
FORKSCALE_NAMESPACE_END
