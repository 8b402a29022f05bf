// read_report.hpp: reading a saved JSON report back into a forkscale::report.
//
//   fs::report rep = fs::read_report("quicksort.json");   // or fs::from_json(text)
//
// Opt-in (the umbrella header does not include it). The reader is strict: the
// file must be the JSON that report::to_json() writes (docs/report-schema.md),
// schema "forkscale.report", schema_version 1 or lower; keys it does not know
// are ignored, as the schema asks, and the per-site profiles ("call_sites",
// "spawn_sites"), the what-if rows ("what_if"), the record ("record", read
// into report::record with every index checked) and the lock profile ("locks")
// may be absent, as in files written before they existed or without recording.
// The derived numbers a file states (parallelism, burdened parallelism, average
// maximal strand, speedup estimate, the sites' and the what-if rows'
// parallelism) must agree with the ones recomputed from its own numbers, which
// catches most corrupted digits.
// Every problem throws forkscale::error with one line naming
// the file, the byte offset and the problem, e.g.
//
//   forkscale: cannot read report 'a.json': byte 812: regions[1].work: expected
//   an unsigned integer, found a string
#pragma once
#include <string>

#include "config.hpp"
#include "report.hpp"

#if FORKSCALE_DETAIL_DEFINES(readers)
#include "detail/input/json_reader.hpp"
#include "detail/input/report_reader.hpp"
#include "detail/util/atomic_file.hpp"
#endif

FORKSCALE_NAMESPACE_BEGIN

// A report from the text of a JSON report. Throws forkscale::error
// ("forkscale: invalid report JSON: byte <n>: <problem>").
FORKSCALE_INLINE report from_json(const std::string& text);

// A report from a JSON file written by report::write_json. Throws
// forkscale::error ("forkscale: cannot read report '<path>': <problem>").
FORKSCALE_INLINE report read_report(const std::string& path);

#if FORKSCALE_DETAIL_DEFINES(readers)

FORKSCALE_INLINE report from_json(const std::string& text) {
  try {
    return detail::json::report_from_value(detail::json::parse(text));
  } catch (const detail::json::json_error& e) {
    throw error(std::string("forkscale: invalid report JSON: ") + e.what());
  }
}

FORKSCALE_INLINE report read_report(const std::string& path) {
  const std::string text = detail::json::read_file(path, "report");
  try {
    return detail::json::report_from_value(detail::json::parse(text));
  } catch (const detail::json::json_error& e) {
    throw error("forkscale: cannot read report '" + detail::printable_path(path) + "': " + e.what());
  }
}

#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
