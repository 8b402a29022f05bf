// forkscale/std_thread.hpp: the short path of <forkscale/adapters/std_thread.hpp>; either include works,
// with the split headers and with -Isingle_include.
#pragma once
#include "adapters/std_thread.hpp"
