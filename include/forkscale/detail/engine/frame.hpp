// detail/engine/frame.hpp: what a region guard keeps between its two events
// (region_state), with everything it needs in one include: the frame and the
// other guards' states are in state.hpp, the join sets and the session beside
// it.
#pragma once
#include <cstdint>
#include <memory>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../site.hpp"
#include "../profile/chain.hpp"
#include "../record/buffer.hpp"
#include "../util/spinlock.hpp"
#include "join_set.hpp"
#include "session.hpp"
#include "state.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// What a region keeps: for an outermost one, the measurement itself.
struct region_state {
  std::unique_ptr<session> owned;  // set for an outermost region
  frame root;
  frame* task = nullptr;  // set for a nested region
  region_node* node = nullptr;
  region_node* saved = nullptr;
  region_state* enclosing = nullptr;  // the region guard open around this one in the task
  path_totals at_open;
  path_totals at_close;  // set when an enclosing region closed first (see end_region)
  unsigned depth = 0;
  bool stopped = false;
  bool closed_early = false;
  site where;
  std::uint64_t rec_wall_open = 0;  // recording: the wall clock at the opening
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
