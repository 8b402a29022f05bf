// forkscale/study.hpp: the short path of <forkscale/study/study.hpp>; either include works,
// with the split headers and with -Isingle_include.
#pragma once
#include "study/study.hpp"
