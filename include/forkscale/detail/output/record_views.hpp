// detail/output/record_views.hpp: what FORKSCALE_TRACE and FORKSCALE_FOLDED
// write at the end of every outermost measurement (no code change needed;
// either variable also turns recording on):
//
//   FORKSCALE_TRACE=run.trace.json    the trace (report::write_trace)
//   FORKSCALE_FOLDED=run.folded       run.work.folded and run.critical.folded
//                                     (report::write_folded), both or neither
//
// The folded files' stem is the path without a trailing ".folded"; any other
// path gets ".work.folded" and ".critical.folded" appended. A file that cannot
// be written is a diagnostic of the report (not misuse: the numbers are whole)
// and one line on stderr ("forkscale: FORKSCALE_TRACE: cannot write ..."); the
// measurement itself never throws because of it. Each measurement replaces the
// files of the one before.
//
// forkscale/views.hpp installs the writer in the hook
// (detail/output/views_install.hpp, detail/output/views_hook.hpp).
#pragma once
#include <exception>
#include <string>
#include <utility>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../util/atomic_file.hpp"
#include "folded.hpp"
#include "trace.hpp"
#include "views_hook.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

inline void write_environment_views(report& rep, const diagnostic_handler& handler) {
  const std::string trace = environment_value("FORKSCALE_TRACE");
  const std::string folded = environment_value("FORKSCALE_FOLDED");
  if (!rep.record) {
    notice_no_record(rep, handler, trace, folded);
    return;
  }
  if (!trace.empty()) {
    try {
      rep.write_trace(trace);
    } catch (const std::exception& e) {
      record_views_notice(rep, handler, "FORKSCALE_TRACE", views_problem(e));
    }
  }
  if (!folded.empty()) {
    try {
      const auto paths = folded_paths(folded);
      write_files_atomically(
          {{paths.first, rep.to_folded(folded_kind::work)}, {paths.second, rep.to_folded(folded_kind::critical_path)}});
    } catch (const std::exception& e) {
      record_views_notice(rep, handler, "FORKSCALE_FOLDED", views_problem(e));
    }
  }
}

}  // namespace output
}  // namespace detail
FORKSCALE_NAMESPACE_END
