// detail/output/views_install.hpp: installs the views a measurement's report
// reaches at run time in their hooks (views_hook.hpp): the writer of
// FORKSCALE_TRACE and FORKSCALE_FOLDED, and the text report's sections of a
// record (parallelism over time, idle blame, the what-if table through the
// replay). Included by forkscale/views.hpp; the compiled library includes it in
// its core translation unit, so that the views are always there.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "views_hook.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Sets the hooks; returns true. Defined with the views (the compiled form: in
// the library's views translation unit).
FORKSCALE_INLINE bool install_views();

#if FORKSCALE_ENABLE
inline const bool views_installed = install_views();
#endif

}  // namespace detail
FORKSCALE_NAMESPACE_END

#if FORKSCALE_DETAIL_DEFINES(views)
#include "blame_text.hpp"
#include "record_views.hpp"
#include "what_if_replay.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

inline std::vector<std::pair<std::string, std::string>> record_text_sections(const report& rep) {
  std::vector<std::pair<std::string, std::string>> out;
  if (record_over_text_bound(rep)) {
    // What the trace folds is still said (trace_plan.hpp).
    std::string body = record_over_text_bound_note(rep);
    const trace_plan plan = plan_trace(*rep.record, false);
    if (plan.bounded) body += wrapped("Trace: " + trace_plan_summary(plan) + ".", "  ", "  ");
    out.emplace_back("Parallelism over time and idle blame", std::move(body));
    return out;
  }
  for (text_section& s : timeline_sections(rep)) out.emplace_back(std::move(s.heading), std::move(s.body));
  return out;
}

}  // namespace output

FORKSCALE_INLINE bool install_views() {
  record_views_writer = &output::write_environment_views;
  record_text_writer = &output::record_text_sections;
  replay_text_writer = &output::replay_what_if_text;
  return true;
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
#endif  // FORKSCALE_DETAIL_DEFINES
