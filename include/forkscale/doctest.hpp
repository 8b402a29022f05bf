// forkscale/doctest.hpp: the short path of <forkscale/integrations/doctest.hpp>; either include works,
// with the split headers and with -Isingle_include.
#pragma once
#include "integrations/doctest.hpp"
