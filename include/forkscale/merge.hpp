// merge.hpp: several reports as one — the runs of a program, the requests of a
// server, the parts of a job measured one at a time.
//
//   fs::report all = fs::merge_reports({fs::read_report("run1.json"), fs::read_report("run2.json")}, "runs");
//
// The merged report says what one measurement of the measurements run one after
// the other would say (docs/sessions.md): work, span, burdened span, spawns,
// syncs and calls add, so its parallelism is the total work over the total span;
// the root row counts the measurements (instances), each measurement's root
// becomes a region named by its label under it, and nested regions follow by
// path; call-site and spawn-site rows add by site, what-if rows by region,
// model and factor; diagnostics are kept in order (the first 100) and all are
// counted; the load figures add. fs::session merges its measurements with it.
#pragma once
#include <string>
#include <vector>

#include "config.hpp"
#include "report.hpp"

FORKSCALE_NAMESPACE_BEGIN

// The reports merged into one labelled `label`. Empty reports are skipped; with
// none left the result is empty. Throws forkscale::error when two reports are
// in different units (nanoseconds and cost units do not add). What cannot be
// merged is left out with a diagnostic in the result: the site profiles when
// some report has none, the what-if rows when the reports analysed different
// factors.
FORKSCALE_INLINE report merge_reports(const std::vector<report>& reports, const std::string& label = "merged");

FORKSCALE_NAMESPACE_END

#if FORKSCALE_DETAIL_DEFINES(sessions)
#include "detail/session/merger.hpp"

FORKSCALE_NAMESPACE_BEGIN

FORKSCALE_INLINE report merge_reports(const std::vector<report>& reports, const std::string& label) {
  detail::report_merger m(label);
  for (const report& r : reports) m.add(r);
  return m.result();
}

FORKSCALE_NAMESPACE_END
#endif  // FORKSCALE_DETAIL_DEFINES
