// detail/predict/state.hpp: what both replays share — which strands are ready
// as others finish. Joins cost nothing: a join is done the moment its last
// predecessor is, and the strands waiting on it become ready then.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "../../config.hpp"
#include "graph.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace predict {

class replay_state {
 public:
  explicit replay_state(const replay_graph& g) : g_(g), left_(g.waits) {}

  // The strands ready before anything ran (joins with no predecessor are done
  // at once), in index order.
  std::vector<std::uint32_t> initial() {
    std::vector<std::uint32_t> ready;
    const std::uint32_t total = g_.strands + g_.joins;
    for (std::uint32_t v = g_.strands; v < total; ++v)
      if (left_[v] == 0) finish_join(v, ready);
    for (std::uint32_t v = 0; v < g_.strands; ++v)
      if (left_[v] == 0 && !queued(v, ready)) ready.push_back(v);
    std::sort(ready.begin(), ready.end());
    return ready;
  }

  // Strand `s` finished: the strands that became ready, the spawned child
  // first (work-first order), then in index order (the program's order).
  void finish(std::uint32_t s, std::vector<std::uint32_t>& ready) {
    ready.clear();
    ++finished_;
    release(s, ready);
    std::sort(ready.begin(), ready.end(), [this](std::uint32_t a, std::uint32_t b) {
      if (g_.task_start[a] != g_.task_start[b]) return g_.task_start[a] > g_.task_start[b];
      return a < b;
    });
  }

  std::uint32_t finished() const noexcept { return finished_; }

 private:
  static bool queued(std::uint32_t v, const std::vector<std::uint32_t>& ready) {
    return std::find(ready.begin(), ready.end(), v) != ready.end();
  }

  // Iterative: joins handed on to joins may form long chains.
  void release(std::uint32_t v, std::vector<std::uint32_t>& ready) {
    stack_.clear();
    stack_.push_back(v);
    while (!stack_.empty()) {
      const std::uint32_t u = stack_.back();
      stack_.pop_back();
      for (std::uint32_t e = g_.first[u]; e < g_.first[u + 1]; ++e) {
        const std::uint32_t w = g_.next[e];
        if (--left_[w] != 0) continue;
        if (w < g_.strands)
          ready.push_back(w);
        else
          stack_.push_back(w);
      }
    }
  }

  void finish_join(std::uint32_t j, std::vector<std::uint32_t>& ready) { release(j, ready); }

  const replay_graph& g_;
  std::vector<std::uint32_t> left_;
  std::uint32_t finished_ = 0;
  std::vector<std::uint32_t> stack_;
};

}  // namespace predict
}  // namespace detail
FORKSCALE_NAMESPACE_END
