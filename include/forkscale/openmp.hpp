// forkscale/openmp.hpp: the short path of <forkscale/adapters/openmp.hpp>; either include works,
// with the split headers and with -Isingle_include.
#pragma once
#include "adapters/openmp.hpp"
