// src/lib/finish.cpp: one translation unit of the compiled form (forkscale::compiled):
// it defines the end of a measurement (detail/measurement/measure.hpp: finish_session), which builds the report from
// the session — its rows, the site profiles, the what-if answers, the lock rows, the record — and writes the views the
// environment asks for. The engine's part (measure.cpp) calls it once per measurement. Each src/lib/*.cpp defines one
// part (include/forkscale/config.hpp, FORKSCALE_DETAIL_DEFINES); src/forkscale.cpp defines them all in one file.
#ifndef FORKSCALE_COMPILED_LIB
#error \
    "src/lib/finish.cpp is part of the compiled form: compile it with FORKSCALE_COMPILED_LIB defined (CMake: forkscale::compiled)"
#endif
#define FORKSCALE_DETAIL_BUILDING_LIB 1
#define FORKSCALE_DETAIL_LIB_finish 1

#include <forkscale/forkscale.hpp>
