// src/lib/readers.cpp: one translation unit of the compiled form (forkscale::compiled):
// it defines reading a saved report back, and the burden file (detail/burden/store.hpp: found, read, stored).
// Each src/lib/*.cpp defines one part (include/forkscale/config.hpp,
// FORKSCALE_DETAIL_DEFINES); src/forkscale.cpp defines them all in one file.
#ifndef FORKSCALE_COMPILED_LIB
#error \
    "src/lib/readers.cpp is part of the compiled form: compile it with FORKSCALE_COMPILED_LIB defined (CMake: forkscale::compiled)"
#endif
#define FORKSCALE_DETAIL_BUILDING_LIB 1
#define FORKSCALE_DETAIL_LIB_readers 1

#include <forkscale/burden.hpp>  // the burden file: read, stored, found
#include <forkscale/read_report.hpp>
