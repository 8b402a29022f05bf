// src/lib/measure.cpp: one translation unit of the compiled form (forkscale::compiled):
// it defines the engine's start and end of a measurement for every clock policy forkscale ships, and with it the
// engine's events (which the guards, inline in the users' files, call through the table of function pointers a
// measurement's start installs: detail/engine/hooks.hpp), the burden and its calibration, locks. Each src/lib/*.cpp
// defines one part (include/forkscale/config.hpp, FORKSCALE_DETAIL_DEFINES); src/forkscale.cpp defines them all in one
// file.
#ifndef FORKSCALE_COMPILED_LIB
#error \
    "src/lib/measure.cpp is part of the compiled form: compile it with FORKSCALE_COMPILED_LIB defined (CMake: forkscale::compiled)"
#endif
#define FORKSCALE_DETAIL_BUILDING_LIB 1
#define FORKSCALE_DETAIL_LIB_measure 1

#include <forkscale/detail/output/views_install.hpp>  // installs the views (views.cpp) from here: always linked
#include <forkscale/forkscale.hpp>

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

template struct region_api<runtime_clock>;
template struct region_api<cost_clock>;
template struct region_api<tsc_clock>;
template struct region_api<steady_clock_source>;
template struct region_api<thread_cpu_clock>;
template struct region_api<arm_counter_clock>;

}  // namespace detail
FORKSCALE_NAMESPACE_END
