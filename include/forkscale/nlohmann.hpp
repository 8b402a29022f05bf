// forkscale/nlohmann.hpp: the short path of <forkscale/integrations/nlohmann.hpp>; either include works,
// with the split headers and with -Isingle_include.
#pragma once
#include "integrations/nlohmann.hpp"
