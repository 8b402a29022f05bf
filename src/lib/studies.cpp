// src/lib/studies.cpp: one translation unit of the compiled form (forkscale::compiled):
// it defines scaling studies: their runs, JSON and text (forkscale/study/study.hpp).
// Each src/lib/*.cpp defines one part (include/forkscale/config.hpp,
// FORKSCALE_DETAIL_DEFINES); src/forkscale.cpp defines them all in one file.
#ifndef FORKSCALE_COMPILED_LIB
#error \
    "src/lib/studies.cpp is part of the compiled form: compile it with FORKSCALE_COMPILED_LIB defined (CMake: forkscale::compiled)"
#endif
#define FORKSCALE_DETAIL_BUILDING_LIB 1
#define FORKSCALE_DETAIL_LIB_studies 1

#include <forkscale/forkscale.hpp>
#include <forkscale/study/study.hpp>
