// detail/output/views_hook.hpp: FORKSCALE_TRACE and FORKSCALE_FOLDED, seen from
// a measurement. At the end of every outermost measurement finish_session
// calls write_record_views(); the writers themselves (record_views.hpp) set
// record_views_writer from a static initializer, so a measurement never
// includes them. Without them compiled in (a program that
// includes the guards but not forkscale.hpp), a set variable gets one
// diagnostic that says so.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../engine/session.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

using diagnostic_handler = std::function<void(const diagnostic&)>;

// Writes the files the environment asks for; adds a diagnostic to the report for
// each one it could not write. Set by detail/output/record_views.hpp.
using record_views_fn = void (*)(report&, const diagnostic_handler&);
inline record_views_fn record_views_writer = nullptr;

// The value of an environment variable, or empty.
inline std::string environment_value(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// A diagnostic about the environment's views (not misuse: the numbers are
// whole), where = the variable's name: it goes into the report and to the
// handler, or else to stderr as one line ("forkscale: FORKSCALE_TRACE: ...").
inline void record_views_notice(report& rep, const diagnostic_handler& handler, const char* variable,
                                std::string problem) {
  diagnostic d{variable, std::move(problem)};
  ++rep.diagnostic_count;
  if (rep.diagnostics.size() < max_kept_diagnostics) rep.diagnostics.push_back(d);
  deliver_diagnostic(handler, d);
}

// Called by finish_session with the finished report.
inline void write_record_views(report& rep, const diagnostic_handler& handler) {
  if (environment_value("FORKSCALE_TRACE").empty() && environment_value("FORKSCALE_FOLDED").empty()) return;
  if (record_views_writer) {
    record_views_writer(rep, handler);
    return;
  }
  const char* variable = environment_value("FORKSCALE_TRACE").empty() ? "FORKSCALE_FOLDED" : "FORKSCALE_TRACE";
  record_views_notice(rep, handler, variable,
                      "not written: this program has no trace or folded-stack writer compiled in (include "
                      "<forkscale/forkscale.hpp>, which brings them)");
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
