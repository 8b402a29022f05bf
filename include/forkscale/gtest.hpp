// forkscale/gtest.hpp: the short path of <forkscale/integrations/gtest.hpp>; either include works,
// with the split headers and with -Isingle_include.
#pragma once
#include "integrations/gtest.hpp"
