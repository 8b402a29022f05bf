// detail/output/views_fallback.hpp: FORKSCALE_TRACE and FORKSCALE_FOLDED in a
// program built without the views (header-only, forkscale/views.hpp not
// included). Nothing is lost: the report with its record is saved beside the
// path asked for (see saved_report_path), and one line per variable names the
// forkscale-report command that renders the view from it, or how to build the
// view in. forkscale/forkscale.hpp installs it; forkscale/views.hpp's writer
// takes precedence (views_hook.hpp).
#pragma once
#include <exception>
#include <string>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../util/atomic_file.hpp"
#include "views_hook.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

// Where the report goes instead of the view at `path`: the path without a
// trailing ".json" or ".folded", then ".report.json" (run.trace.json ->
// run.trace.report.json, run.folded -> run.report.json).
inline std::string saved_report_path(const std::string& path) {
  std::string stem = path;
  for (const std::string suffix : {".json", ".folded"})
    if (stem.size() > suffix.size() && stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0) {
      stem.resize(stem.size() - suffix.size());
      break;
    }
  return stem + ".report.json";
}

inline void save_report_for_views(report& rep, const diagnostic_handler& handler) {
  const std::string trace = environment_value("FORKSCALE_TRACE");
  const std::string folded = environment_value("FORKSCALE_FOLDED");
  if (!rep.record) {
    notice_no_record(rep, handler, trace, folded);
    return;
  }
  const std::string saved = saved_report_path(trace.empty() ? folded : trace);
  const std::string shown = printable_path(saved);
  std::string problem;
  try {
    write_file_atomically(saved, rep.to_json());
  } catch (const std::exception& e) {
    problem = views_problem(e);
  }
  const std::string head =
      "not written: this program was built without the views (header-only, without "
      "<forkscale/views.hpp>); ";
  const std::string tail = "; or include <forkscale/views.hpp> in one file, or link forkscale::compiled";
  if (!trace.empty()) {
    const std::string how = problem.empty()
                                ? "the report and its record are in " + shown + ": `forkscale-report convert " + shown +
                                      " --to trace -o " + printable_path(trace) + "` writes it"
                                : "the report could not be saved either (" + problem + ")";
    record_views_notice(rep, handler, "FORKSCALE_TRACE", head + how + tail);
  }
  if (!folded.empty()) {
    const auto paths = folded_paths(folded);
    const std::string how = problem.empty()
                                ? "the report and its record are in " + shown + ": `forkscale-report convert " + shown +
                                      " --to folded-work -o " + printable_path(paths.first) +
                                      "` and `--to folded-critical -o " + printable_path(paths.second) + "` write them"
                                : "the report could not be saved either (" + problem + ")";
    record_views_notice(rep, handler, "FORKSCALE_FOLDED", head + how + tail);
  }
}

// Installed during static initialization by every program that includes
// forkscale/forkscale.hpp (an inline variable: once per program). With
// FORKSCALE_ENABLE=0 nothing is measured, so nothing is installed.
#if FORKSCALE_ENABLE
inline const bool views_fallback_installed = (record_views_fallback = &save_report_for_views, true);
#endif

}  // namespace output
}  // namespace detail
FORKSCALE_NAMESPACE_END
