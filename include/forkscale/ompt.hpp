// forkscale/ompt.hpp: OpenMP without annotations, through the OpenMP tools
// interface (OMPT). Include it in one translation unit of a program built with
// clang++ -fopenmp=libomp; see adapters/ompt.hpp and docs/ompt.md.
#pragma once
#include "adapters/ompt.hpp"
