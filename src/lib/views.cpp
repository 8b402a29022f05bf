// src/lib/views.cpp: one translation unit of the compiled form (forkscale::compiled):
// it defines trace, folded stacks, the timeline analysis and idle blame, and the hooks that make the views reachable
// from a measurement (forkscale/views.hpp). Each src/lib/*.cpp defines one part (include/forkscale/config.hpp,
// FORKSCALE_DETAIL_DEFINES); src/forkscale.cpp defines them all in one file.
#ifndef FORKSCALE_COMPILED_LIB
#error \
    "src/lib/views.cpp is part of the compiled form: compile it with FORKSCALE_COMPILED_LIB defined (CMake: forkscale::compiled)"
#endif
#define FORKSCALE_DETAIL_BUILDING_LIB 1
#define FORKSCALE_DETAIL_LIB_views 1

#include <forkscale/detail/output/report_writers.hpp>
#include <forkscale/detail/output/views_install.hpp>
#include <forkscale/forkscale.hpp>
