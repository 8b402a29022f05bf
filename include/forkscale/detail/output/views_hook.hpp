// detail/output/views_hook.hpp: the views a measurement's report reaches at
// run time, seen from the measurement and the text report. They are function
// pointers that forkscale/views.hpp sets from a static initializer
// (detail/output/views_install.hpp), so that a header-only program that
// includes only forkscale/forkscale.hpp compiles none of them:
//   - FORKSCALE_TRACE and FORKSCALE_FOLDED, written by finish_session at the
//     end of every outermost measurement (write_record_views);
//   - the text report's sections of a record: parallelism over time and idle
//     blame (blame_text.hpp), and the what-if table through the replay
//     (what_if_replay.hpp).
// The compiled library always sets them. Without them (header-only, no
// views.hpp) a set variable gets one diagnostic, and the text report one line,
// saying how to get the view.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../engine/session.hpp"
#include "../util/env.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

using diagnostic_handler = std::function<void(const diagnostic&)>;

// Writes the files the environment asks for; adds a diagnostic to the report for
// each one it could not write. Set by detail/output/views_install.hpp (to
// record_views.hpp's writer).
using record_views_fn = void (*)(report&, const diagnostic_handler&);
inline record_views_fn record_views_writer = nullptr;

// The text report's sections of a record, each (heading, body); none without a
// record. Set by detail/output/views_install.hpp.
using record_text_fn = std::vector<std::pair<std::string, std::string>> (*)(const report&);
inline record_text_fn record_text_writer = nullptr;

// The what-if table's lines through the replay; empty without a whole record.
// Set by detail/output/views_install.hpp.
using replay_text_fn = std::string (*)(const report&);
inline replay_text_fn replay_text_writer = nullptr;

// What the environment's views fall back to in a program built without them
// (set by forkscale/forkscale.hpp: detail/output/views_fallback.hpp): the report
// with its record saved beside the path asked for, from which forkscale-report
// renders the view.
inline record_views_fn record_views_fallback = nullptr;

// How to get a view this program was built without: one sentence.
inline const char* views_missing_advice() {
  return "include <forkscale/views.hpp> in one file of the program, link forkscale::compiled, or render the "
         "report saved as JSON with `forkscale-report convert FILE.json`";
}

// The value of an environment variable, or empty.
inline std::string environment_value(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// A diagnostic about the environment's views (not misuse: the numbers are
// whole), where = the variable's name: it goes into every report and to the
// handler, or else to stderr as one line ("forkscale: FORKSCALE_TRACE: ..."),
// printed once per process, so that a program that measures several times
// (each report saved to the same path) says it once, not once a measurement.
inline void record_views_notice(report& rep, const diagnostic_handler& handler, const char* variable,
                                std::string problem) {
  diagnostic d{variable, std::move(problem)};
  ++rep.diagnostic_count;
  if (rep.diagnostics.size() < max_kept_diagnostics) rep.diagnostics.push_back(d);
  if (handler || first_in_process("views " + d.where + ": " + d.problem)) deliver_diagnostic(handler, d);
}

// The two files FORKSCALE_FOLDED=`path` names: (work, critical path).
inline std::pair<std::string, std::string> folded_paths(const std::string& path) {
  const std::string suffix = ".folded";
  std::string stem = path;
  if (stem.size() > suffix.size() && stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0)
    stem.resize(stem.size() - suffix.size());
  return {stem + ".work.folded", stem + ".critical.folded"};
}

// Why FORKSCALE_TRACE or FORKSCALE_FOLDED wrote nothing for a report without a
// record.
inline std::string no_record_problem() {
  return "not written: the measurement has no record (FORKSCALE_RECORD=0 turns recording off, and a measurement "
         "that ends with tasks still running keeps none)";
}

// Both variables' diagnostic for a report without a record.
inline void notice_no_record(report& rep, const diagnostic_handler& handler, const std::string& trace,
                             const std::string& folded) {
  if (!trace.empty()) record_views_notice(rep, handler, "FORKSCALE_TRACE", no_record_problem());
  if (!folded.empty()) record_views_notice(rep, handler, "FORKSCALE_FOLDED", no_record_problem());
}

// An error's message for a diagnostic: without the "forkscale: " the stderr
// line adds again, and naming the file as what it is.
inline std::string views_problem(const std::exception& e) {
  std::string m = e.what();
  const std::string prefix = "forkscale: ";
  if (m.compare(0, prefix.size(), prefix) == 0) m.erase(0, prefix.size());
  const std::string report_word = "cannot write report '";
  if (m.compare(0, report_word.size(), report_word) == 0) m = "cannot write '" + m.substr(report_word.size());
  return m;
}

// Called by finish_session with the finished report.
inline void write_record_views(report& rep, const diagnostic_handler& handler) {
  if (environment_value("FORKSCALE_TRACE").empty() && environment_value("FORKSCALE_FOLDED").empty()) return;
  if (record_views_writer) {
    record_views_writer(rep, handler);
    return;
  }
  if (record_views_fallback) {
    record_views_fallback(rep, handler);
    return;
  }
  const char* variable = environment_value("FORKSCALE_TRACE").empty() ? "FORKSCALE_FOLDED" : "FORKSCALE_TRACE";
  record_views_notice(
      rep, handler, variable,
      std::string("not written: this program was built without the views (header-only): ") + views_missing_advice());
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
