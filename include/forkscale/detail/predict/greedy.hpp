// detail/predict/greedy.hpp: Graham's list scheduling of the recorded graph on
// P virtual processors ("Bounds on multiprocessing timing anomalies", 1969):
// whenever a processor is idle and a strand is ready, the processor takes it.
// Any such schedule is within Brent's bound, T1/P <= TP <= T1/P + T∞, when the
// runtime costs nothing (Brent 1974; Blumofe and Leiserson 1999, §2).
//
// Which ready strand an idle processor takes does not matter for the bound;
// this one keeps locality as a work-stealing runtime would, with a global view
// instead of random victims: a processor that finishes a strand goes on with a
// strand that strand made ready (the spawned child first); the others wait,
// each with the processor that made it ready. An idle processor takes the
// newest strand it made ready itself, else the oldest strand any processor
// made ready, which then migrates: it starts steal_cost later. A strand that
// ends at a spawn runs spawn_cost longer.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "graph.hpp"
#include "state.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace predict {

// The runtime's costs, in the report's unit, resolved from replay_model.
struct runtime_costs {
  double spawn = 0;          // per spawn, on the spawning processor
  double steal = 0;          // per strand that migrates to another processor
  double steal_attempt = 0;  // per failed steal attempt (work stealing only)
};

// One replay's outcome.
struct replay_run {
  double time = 0;                  // TP: when the last strand finished
  std::uint64_t migrations = 0;     // strands that ran on another processor than the one that made them ready
  std::uint64_t failed_steals = 0;  // work stealing: attempts that found the victim's deque empty
};

inline double strand_time(const replay_graph& g, const runtime_costs& c, std::uint32_t s) {
  return g.cost[s] + (g.spawns[s] ? c.spawn : 0.0);
}

inline void check_all_ran(const replay_graph& g, const replay_state& st) {
  if (st.finished() != g.strands)
    throw error("forkscale: the replay ran " + std::to_string(st.finished()) + " of the record's " +
                std::to_string(g.strands) +
                " strands: the record's graph is malformed (a strand waits for one "
                "that never runs)");
}

// The ready strands nobody runs yet: per processor the ones it made ready
// (taken newest first by their maker), and all of them in the order they
// became ready (taken oldest first by the others). An item is taken once; the
// other list skips it later.
class ready_pool {
 public:
  static constexpr std::uint32_t nobody = 0xffffffffu;
  explicit ready_pool(unsigned processors) : own_(processors) {}

  void add(std::uint32_t strand, std::uint32_t maker) {
    const auto i = static_cast<std::uint32_t>(items_.size());
    items_.push_back({strand, maker, false});
    if (maker != nobody) own_[maker].push_back(i);
    order_.push_back(i);
    ++waiting_;
  }
  bool empty() const noexcept { return waiting_ == 0; }

  // For processor p: (strand, maker); the caller checks the pool is not empty.
  std::pair<std::uint32_t, std::uint32_t> take(std::uint32_t p) {
    std::vector<std::uint32_t>& mine = own_[p];
    while (!mine.empty() && items_[mine.back()].taken) mine.pop_back();
    std::uint32_t i;
    if (!mine.empty()) {
      i = mine.back();
      mine.pop_back();
    } else {
      while (items_[order_.front()].taken) order_.pop_front();
      i = order_.front();
      order_.pop_front();
    }
    items_[i].taken = true;
    --waiting_;
    return {items_[i].strand, items_[i].maker};
  }

 private:
  struct item {
    std::uint32_t strand, maker;
    bool taken;
  };
  std::vector<item> items_;
  std::vector<std::vector<std::uint32_t>> own_;
  std::deque<std::uint32_t> order_;
  std::size_t waiting_ = 0;
};

inline replay_run greedy_replay(const replay_graph& g, unsigned processors, const runtime_costs& c) {
  constexpr std::uint32_t nobody = ready_pool::nobody;
  using event = std::pair<double, std::uint32_t>;  // (finish time, processor)
  std::priority_queue<event, std::vector<event>, std::greater<event>> running;
  std::vector<std::uint32_t> strand_on(processors, nobody);
  ready_pool pool(processors);
  std::vector<std::uint32_t> idle;
  for (std::uint32_t p = processors; p-- > 0;) idle.push_back(p);
  replay_state st(g);
  for (std::uint32_t s : st.initial()) pool.add(s, nobody);
  replay_run out;
  double now = 0;
  const auto start = [&](std::uint32_t p, std::uint32_t s, double at) {
    strand_on[p] = s;
    running.emplace(at + strand_time(g, c, s), p);
  };
  std::vector<std::uint32_t> ready;
  for (;;) {
    while (!idle.empty() && !pool.empty()) {
      const std::uint32_t p = idle.back();
      idle.pop_back();
      const auto item = pool.take(p);
      const bool moved = item.second != nobody && item.second != p;
      out.migrations += moved ? 1 : 0;
      start(p, item.first, now + (moved ? c.steal : 0.0));
    }
    if (running.empty()) break;
    now = running.top().first;
    while (!running.empty() && running.top().first == now) {
      const std::uint32_t p = running.top().second;
      running.pop();
      st.finish(strand_on[p], ready);
      strand_on[p] = nobody;
      if (ready.empty()) {
        idle.push_back(p);
        continue;
      }
      start(p, ready.front(), now);
      for (std::size_t k = ready.size(); k-- > 1;) pool.add(ready[k], p);
    }
  }
  check_all_ran(g, st);
  out.time = now;
  return out;
}

}  // namespace predict
}  // namespace detail
FORKSCALE_NAMESPACE_END
