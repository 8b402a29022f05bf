// detail/record/mode.hpp: whether a measurement records its execution, which a
// session sets and each frame copies.
#pragma once
#include "../../config.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Whether a measurement records its execution (options::record, detail/record/),
// and where the record's wall clock comes from.
enum class recording_mode : unsigned char {
  off,
  on,               // the measurement's clock is the wall clock
  with_wall_clock,  // the wall clock is read beside the measurement's clock
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
