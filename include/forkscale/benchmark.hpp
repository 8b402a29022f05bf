// forkscale/benchmark.hpp: the short path of <forkscale/integrations/benchmark.hpp>; either include works,
// with the split headers and with -Isingle_include.
#pragma once
#include "integrations/benchmark.hpp"
