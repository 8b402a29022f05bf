// src/forkscale.cpp: the compiled form of forkscale (the CMake target
// forkscale::compiled). Compiled with FORKSCALE_COMPILED_LIB defined, as its
// users are, it defines once what their headers only declare: the report
// writers and readers, the HTML page, the analyses (blame, prediction, the
// advisor, burden calibration), sessions and merging, and the engine's start and end of a
// measurement for every clock policy forkscale ships, and with it the engine's
// events, which the guards (inline in the users' files) call through the table
// of function pointers a measurement's start installs (detail/engine/hooks.hpp).
#ifndef FORKSCALE_COMPILED_LIB
#error \
    "src/forkscale.cpp is the compiled form: compile it with FORKSCALE_COMPILED_LIB defined (CMake: forkscale::compiled)"
#endif
#define FORKSCALE_DETAIL_BUILDING_LIB 1
// Every part in this one file (CMake builds the parts one per file: src/lib/).
#define FORKSCALE_DETAIL_LIB_measure 1
#define FORKSCALE_DETAIL_LIB_finish 1
#define FORKSCALE_DETAIL_LIB_writers 1
#define FORKSCALE_DETAIL_LIB_views 1
#define FORKSCALE_DETAIL_LIB_html 1
#define FORKSCALE_DETAIL_LIB_analyses 1
#define FORKSCALE_DETAIL_LIB_studies 1
#define FORKSCALE_DETAIL_LIB_sessions 1
#define FORKSCALE_DETAIL_LIB_readers 1

#include <forkscale/forkscale.hpp>
#include <forkscale/read_report.hpp>
#include <forkscale/study/html.hpp>
#include <forkscale/study/study.hpp>
#include <forkscale/views.hpp>

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// The engine's measurement start and end, once per shipped clock policy.
template struct region_api<runtime_clock>;
template struct region_api<cost_clock>;
template struct region_api<tsc_clock>;
template struct region_api<steady_clock_source>;
template struct region_api<thread_cpu_clock>;
template struct region_api<arm_counter_clock>;

}  // namespace detail
FORKSCALE_NAMESPACE_END
