// forkscale/tbb.hpp: the short path of <forkscale/adapters/tbb.hpp>; either include works,
// with the split headers and with -Isingle_include.
#pragma once
#include "adapters/tbb.hpp"
