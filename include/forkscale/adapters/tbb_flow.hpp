// tbb_flow.hpp: oneTBB's flow graph beside the oneTBB adapter — not modeled.
// fs::tbb::flow::graph is oneTBB's graph (every node takes it) whose
// wait_for_all() says, in one diagnostic of the measurement it is called in,
// that the graph's work was not modeled: its nodes run on oneTBB's threads,
// outside the measurement, so their work is not counted and the caller's
// strand holds the time it waited. With FORKSCALE_ENABLE=0 it is oneTBB's graph.
//
//   fs::tbb::flow::graph g;                       // instead of tbb::flow::graph
//   tbb::flow::function_node<int> n(g, tbb::flow::unlimited, body);
//   n.try_put(1);
//   g.wait_for_all();                             // the diagnostic, then oneTBB's wait
//
// Opt-in: neither forkscale.hpp nor tbb.hpp includes this header.
#pragma once
#include <oneapi/tbb/flow_graph.h>

#include "tbb.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace tbb {
namespace flow {

#if FORKSCALE_ENABLE
template <class Clock = default_clock>
class basic_graph : public ::oneapi::tbb::flow::graph {
 public:
  using ::oneapi::tbb::flow::graph::graph;
  void wait_for_all(const site& where = site::current()) {
    forkscale::detail::region_api<Clock>::notice(
        where,
        "flow::graph is not modeled: the work its nodes do on oneTBB's threads is not counted, and the time the "
        "caller waited for them is its own strand's");
    ::oneapi::tbb::flow::graph::wait_for_all();
  }
};
using graph = basic_graph<default_clock>;
#else
template <class Clock = default_clock>
using basic_graph = ::oneapi::tbb::flow::graph;
using graph = ::oneapi::tbb::flow::graph;
#endif

}  // namespace flow
}  // namespace tbb
FORKSCALE_NAMESPACE_END
