// nlohmann.hpp: the same as <forkscale/integrations/nlohmann.hpp> (reports as nlohmann::json).
#pragma once
#include "integrations/nlohmann.hpp"
