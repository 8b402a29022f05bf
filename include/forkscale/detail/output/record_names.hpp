// detail/output/record_names.hpp: what every view of a record (trace, folded
// stacks, the HTML timeline and flame graph) needs: the record itself or a
// one-line error, the names of call paths, and their folded stacks.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "../../record.hpp"
#include "../../report.hpp"
#include "utf8.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

// The report's record; throws forkscale::error when it has none.
inline const execution_record& require_record(const report& rep) {
  if (!rep.record)
    throw error("forkscale: report '" + printable(rep.label) +
                "' has no record: measure with options.record = true or FORKSCALE_RECORD=1");
  return *rep.record;
}

// The name of call-path node 0: the measurement's label ("measurement" when it
// has none, so that no stack starts with an empty frame).
inline std::string root_name(const report& rep) { return rep.label.empty() ? "measurement" : rep.label; }

// The innermost site of a call path, as views name a strand: the site's display
// name (its tag, or "function (file:line)"), or the measurement for node 0.
inline std::string frame_name(const execution_record& r, std::uint32_t frame, const std::string& root) {
  if (frame == 0 || frame >= r.frames.size()) return root;
  const std::uint32_t site = r.frames[frame].site;
  return site < r.sites.size() ? execution_record::display_name(r.sites[site]) : std::string("?");
}

// Folded stacks of call paths (valid UTF-8), each computed once.
class stack_names {
 public:
  stack_names(const execution_record& r, std::string root)
      : r_(r), root_(std::move(root)), cache_(r.frames.size() + 1), done_(r.frames.size() + 1, 0) {}
  const std::string& of(std::uint32_t frame) {
    const std::size_t k = frame < r_.frames.size() ? frame : r_.frames.size();
    if (!done_[k]) {
      cache_[k] = valid_utf8(r_.stack_of(frame, root_));
      done_[k] = 1;
    }
    return cache_[k];
  }

 private:
  const execution_record& r_;
  std::string root_;
  std::vector<std::string> cache_;
  std::vector<char> done_;
};

}  // namespace output
}  // namespace detail
FORKSCALE_NAMESPACE_END
