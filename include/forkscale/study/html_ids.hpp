// study/html_ids.hpp: where the HTML report's built-in sections go (html_order)
// and the ids of its sections and elements (html_section_ids), stable for tests
// and tools. Included by html.hpp, the header to include.
#pragma once
#include "../config.hpp"

FORKSCALE_NAMESPACE_BEGIN

// Where the built-in sections go (add_section takes any number).
namespace html_order {
constexpr int study_summary = 100;
constexpr int warnings = 110;
constexpr int study_runs = 120;
constexpr int study_speedups = 130;
constexpr int bandwidth_probe = 140;
constexpr int study_prediction = 150;
constexpr int summary = 200;
constexpr int speedup_estimate = 210;
constexpr int regions = 300;
constexpr int call_sites = 400;
constexpr int spawn_sites = 450;
constexpr int what_if = 500;
constexpr int timeline = 600;       // a recorded report's timeline (docs/record.md)
constexpr int critical_path = 610;  // and its critical path's flame graph
constexpr int parallelism = 620;    // a recorded run (blame.hpp)
constexpr int idle_blame = 630;
constexpr int locks = 640;
constexpr int plots = 800;
constexpr int diagnostics = 900;
}  // namespace html_order

// The ids of the built-in sections and elements.
namespace html_section_ids {
inline const char* const study_summary = "fs-study-summary";
inline const char* const warnings = "fs-warnings";
inline const char* const study_runs = "fs-study-runs";
inline const char* const study_speedups = "fs-study-speedups";
inline const char* const bandwidth_probe = "fs-bandwidth-probe";
inline const char* const study_prediction = "fs-study-prediction";  // table fs-study-prediction-table
inline const char* const summary = "fs-summary";
inline const char* const speedup_estimate = "fs-speedup-estimate";
inline const char* const regions = "fs-regions";
inline const char* const call_sites = "fs-call-sites";  // table fs-call-sites-table
inline const char* const call_sites_filter = "fs-call-sites-filter";
inline const char* const spawn_sites = "fs-spawn-sites";  // table fs-spawn-sites-table
inline const char* const spawn_sites_filter = "fs-spawn-sites-filter";
inline const char* const what_if = "fs-what-if";  // table fs-what-if-table
inline const char* const what_if_filter = "fs-what-if-filter";
inline const char* const timeline = "fs-timeline";            // svg fs-timeline-svg
inline const char* const critical_path = "fs-critical-path";  // svg fs-critical-path-svg
inline const char* const parallelism = "fs-parallelism";      // plots, table fs-thread-times-table
inline const char* const idle_blame = "fs-idle-blame";        // tables fs-idle-blame-table, fs-sync-wait-table
inline const char* const locks = "fs-locks";                  // table fs-locks-table
inline const char* const plots = "fs-plots";
inline const char* const diagnostics = "fs-diagnostics";
}  // namespace html_section_ids

FORKSCALE_NAMESPACE_END
