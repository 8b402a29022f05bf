// src/forkscale_ompt.cpp: the OMPT tool (forkscale/ompt.hpp) compiled once, for
// the compiled form. Built into forkscale::compiled when the library's compiler
// has the OpenMP tools interface (clang++ -fopenmp=libomp: <omp-tools.h>); CMake
// then defines FORKSCALE_COMPILED_OMPT for the library's users, and a file that
// includes forkscale/ompt.hpp compiles only the runtime's entry points, which
// call the tool here. This member of the archive is linked only into programs
// that include forkscale/ompt.hpp (they call startup_check() at start-up).
//
// Compile it with FORKSCALE_COMPILED_LIB and -fopenmp=libomp, as CMake does.
#ifndef FORKSCALE_COMPILED_LIB
#error \
    "src/forkscale_ompt.cpp is part of the compiled form: compile it with FORKSCALE_COMPILED_LIB defined (CMake: forkscale::compiled)"
#endif
#define FORKSCALE_DETAIL_BUILDING_OMPT 1

#include <forkscale/ompt.hpp>

#if !FORKSCALE_DETAIL_OMPT_AVAILABLE
#error "src/forkscale_ompt.cpp needs <omp-tools.h>: compile it with clang++ -fopenmp=libomp"
#endif
