// forkscale/plot.hpp: the short path of <forkscale/study/plot.hpp>; either include works,
// with the split headers and with -Isingle_include.
#pragma once
#include "study/plot.hpp"
