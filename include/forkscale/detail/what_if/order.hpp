// detail/what_if/order.hpp: which what-if block comes first, in a measurement's
// report (rows.hpp) and in a merged one (session/merge_what_if.hpp): after
// "(all regions)", the region that could give the most parallelism at the last
// factor; ties by the region's identity, never by which thread met it first.
#pragma once
#include <string>
#include <tuple>

#include "../../config.hpp"
#include "../../report.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

using what_if_key = std::tuple<int, std::string, std::string, unsigned, std::string, std::string>;

// A region is its source and name, and for a guard region also its site (a
// named call site is its text: its file is whichever matching site ran first).
inline what_if_key what_if_identity(const what_if_result& r) {
  if (r.source != what_if_source::region) return what_if_key(static_cast<int>(r.source), r.region, "", 0, "", "");
  return what_if_key(static_cast<int>(r.source), r.region, r.file, r.line, r.function, r.tag);
}

// `key`: the block's predicted parallelism at the last factor (-1: never entered).
inline bool what_if_block_before(double key_a, const what_if_result& a, double key_b, const what_if_result& b) {
  if (key_a != key_b) return key_a > key_b;
  return what_if_identity(a) < what_if_identity(b);
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
