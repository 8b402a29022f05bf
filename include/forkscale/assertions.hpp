// forkscale/assertions.hpp: the short path of <forkscale/integrations/assertions.hpp>; either include works,
// with the split headers and with -Isingle_include.
#pragma once
#include "integrations/assertions.hpp"
