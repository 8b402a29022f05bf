// detail/output/folded.hpp: folded stacks of a record (report::to_folded,
// write_folded), the input format of flamegraph.pl and speedscope: one line per
// distinct call path, "root;site;site count", sorted by the stack (byte order),
// counts in the report's unit. The stack is the call-path tree's path
// (execution_record::stack_of): the measurement's label, then the call and
// spawn sites open around the strand, outermost first.
//
// folded_kind::work adds every strand's work, so the file sums to report::work()
// exactly; folded_kind::critical_path adds the spans of the critical path's
// strands, so it sums to report::span() exactly (the record rounds both columns
// so that they add up). Stacks with a count of 0 are left out. A partial record
// (record->complete false) gives a partial file, with nothing in it to say so
// (the format has no comments): the report's diagnostic says it.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "../../config.hpp"
#include "../../record.hpp"
#include "../../report.hpp"
#include "../util/atomic_file.hpp"
#include "record_names.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

// The counts per stack (sorted by the stack).
inline std::map<std::string, std::uint64_t> folded_counts(const report& rep, folded_kind which) {
  const execution_record& r = require_record(rep);
  stack_names names(r, root_name(rep));
  std::map<std::string, std::uint64_t> counts;
  if (which == folded_kind::work) {
    for (const record_strand& s : r.strands)
      if (s.work != 0) counts[names.of(s.frame)] += s.work;
  } else {
    for (const std::uint32_t i : r.critical_path)
      if (i < r.strands.size() && r.strands[i].span != 0) counts[names.of(r.strands[i].frame)] += r.strands[i].span;
  }
  return counts;
}

inline std::string folded_text(const report& rep, folded_kind which) {
  std::string out;
  for (const auto& line : folded_counts(rep, which)) {
    out += line.first;
    out += ' ';
    out += std::to_string(line.second);
    out += '\n';
  }
  return out;
}

}  // namespace output
}  // namespace detail

#if FORKSCALE_DETAIL_DEFINES(views)
FORKSCALE_INLINE std::string report::to_folded(folded_kind which) const {
  return detail::output::folded_text(*this, which);
}

FORKSCALE_INLINE void report::write_folded(const std::string& path, folded_kind which) const {
  detail::write_file_atomically(path, to_folded(which));
}
#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
