// detail/predict/graph.hpp: the recorded strand graph in the form the replays
// walk (docs/predict.md): strands and joins as nodes of one array, their
// successors in compressed rows, how many predecessors each waits for, and the
// work, span and burdened span computed from the graph itself.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../record.hpp"
#include "../../report.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace predict {

// Nodes 0..strands-1 are the record's strands, strands..strands+joins-1 its
// joins (zero-cost nodes where children meet). A strand is ready when its prev
// and its join are done; a join is done when every strand and join reported to
// it is.
struct replay_graph {
  std::uint32_t strands = 0;
  std::uint32_t joins = 0;
  std::vector<double> cost;                // per strand: what it adds to a path (record_strand::span)
  std::vector<std::uint32_t> task;         // per strand
  std::vector<unsigned char> task_start;   // per strand: the first strand of a spawned task (a child)
  std::vector<unsigned char> spawns;       // per strand: ends at a spawn (its successor starts a task)
  std::vector<unsigned char> after_spawn;  // per strand: a continuation (carries the burden)
  std::vector<std::uint32_t> waits;        // per node: predecessors it waits for
  std::vector<std::uint32_t> first, next;  // successors of node v: next[first[v]..first[v+1])
  std::uint64_t spawn_count = 0;
  double work = 0;           // sum of the strands' costs (T1 of the replay)
  double span = 0;           // longest path (T∞)
  double burdened_span = 0;  // longest path with `burden` on every continuation edge
};

inline std::string strand_problem(std::size_t i, const std::string& what) {
  return "forkscale: the record's graph is malformed: strand " + std::to_string(i) + " " + what;
}

// The predecessors of every node, as (from, to) pairs; throws forkscale::error
// for an index out of range.
inline std::vector<std::pair<std::uint32_t, std::uint32_t>> graph_edges(const execution_record& r) {
  const std::size_t n = r.strands.size(), m = r.joins.size();
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  edges.reserve(2 * n + m);
  for (std::size_t i = 0; i < n; ++i) {
    const record_strand& s = r.strands[i];
    if (s.prev >= static_cast<std::int64_t>(n)) throw error(strand_problem(i, "names a prev that does not exist"));
    if (s.join >= static_cast<std::int64_t>(m)) throw error(strand_problem(i, "names a join that does not exist"));
    if (s.prev >= 0) edges.emplace_back(static_cast<std::uint32_t>(s.prev), static_cast<std::uint32_t>(i));
    if (s.join >= 0) edges.emplace_back(static_cast<std::uint32_t>(n + s.join), static_cast<std::uint32_t>(i));
  }
  for (std::size_t j = 0; j < m; ++j) {
    for (std::uint32_t s : r.joins[j].strands) {
      if (s >= n)
        throw error("forkscale: the record's graph is malformed: join " + std::to_string(j) + " names strand " +
                    std::to_string(s));
      edges.emplace_back(s, static_cast<std::uint32_t>(n + j));
    }
    for (std::uint32_t k : r.joins[j].joins) {
      if (k >= m || k == j)
        throw error("forkscale: the record's graph is malformed: join " + std::to_string(j) + " names join " +
                    std::to_string(k));
      edges.emplace_back(static_cast<std::uint32_t>(n + k), static_cast<std::uint32_t>(n + j));
    }
  }
  return edges;
}

// Longest paths by relaxation in a topological order (Kahn's algorithm); the
// burden is added on continuation edges, as the engine adds it. Throws when
// the graph has a cycle.
inline void graph_paths(replay_graph& g, double burden) {
  const std::size_t total = static_cast<std::size_t>(g.strands) + g.joins;
  std::vector<std::uint32_t> left(g.waits);
  std::vector<double> end(total, 0), bend(total, 0), start(total, 0), bstart(total, 0);
  std::vector<std::uint32_t> ready;
  for (std::uint32_t v = 0; v < total; ++v)
    if (left[v] == 0) ready.push_back(v);
  std::size_t seen = 0;
  while (!ready.empty()) {
    const std::uint32_t v = ready.back();
    ready.pop_back();
    ++seen;
    const double c = v < g.strands ? g.cost[v] : 0.0;
    end[v] = start[v] + c;
    bend[v] = bstart[v] + c;
    g.span = std::max(g.span, end[v]);
    g.burdened_span = std::max(g.burdened_span, bend[v]);
    for (std::uint32_t e = g.first[v]; e < g.first[v + 1]; ++e) {
      const std::uint32_t w = g.next[e];
      const double extra = w < g.strands && v < g.strands && g.after_spawn[w] && g.task[w] == g.task[v] ? burden : 0;
      start[w] = std::max(start[w], end[v]);
      bstart[w] = std::max(bstart[w], bend[v] + extra);
      if (--left[w] == 0) ready.push_back(w);
    }
  }
  if (seen != total) throw error("forkscale: the record's graph is malformed: it has a cycle");
}

// The graph of a complete record, with strand i costing cost_of(i).
template <class CostOf>
replay_graph make_graph(const execution_record& r, double burden, CostOf cost_of) {
  if (r.strands.size() >= 0x7fffffffu || r.joins.size() >= 0x7fffffffu - r.strands.size())
    throw error("forkscale: the record is too large to replay");
  replay_graph g;
  g.strands = static_cast<std::uint32_t>(r.strands.size());
  g.joins = static_cast<std::uint32_t>(r.joins.size());
  const std::size_t total = static_cast<std::size_t>(g.strands) + g.joins;
  const auto edges = graph_edges(r);
  g.waits.assign(total, 0);
  g.first.assign(total + 1, 0);
  for (const auto& e : edges) {
    ++g.waits[e.second];
    ++g.first[e.first + 1];
  }
  for (std::size_t v = 0; v < total; ++v) g.first[v + 1] += g.first[v];
  g.next.resize(edges.size());
  std::vector<std::uint32_t> fill(g.first.begin(), g.first.end() - 1);
  for (const auto& e : edges) g.next[fill[e.first]++] = e.second;
  g.cost.resize(g.strands);
  g.task.resize(g.strands);
  g.task_start.assign(g.strands, 0);
  g.spawns.assign(g.strands, 0);
  g.after_spawn.assign(g.strands, 0);
  for (std::uint32_t i = 0; i < g.strands; ++i) {
    const record_strand& s = r.strands[i];
    g.cost[i] = cost_of(i);
    g.work += g.cost[i];
    g.task[i] = s.task;
    g.after_spawn[i] = s.after_spawn ? 1 : 0;
  }
  // A strand whose prev is in another task starts a spawned task: its prev ends
  // at the spawn.
  for (std::uint32_t i = 0; i < g.strands; ++i) {
    const std::int64_t p = r.strands[i].prev;
    if (p >= 0 && g.task[static_cast<std::size_t>(p)] != g.task[i]) {
      g.task_start[i] = 1;
      g.spawns[static_cast<std::size_t>(p)] = 1;
      ++g.spawn_count;
    }
  }
  graph_paths(g, burden);
  return g;
}

}  // namespace predict
}  // namespace detail
FORKSCALE_NAMESPACE_END
