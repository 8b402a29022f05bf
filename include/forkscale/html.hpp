// forkscale/html.hpp: the short path of <forkscale/study/html.hpp>; either include works,
// with the split headers and with -Isingle_include.
#pragma once
#include "study/html.hpp"
