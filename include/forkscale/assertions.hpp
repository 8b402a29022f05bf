// Old path, kept for one release: include <forkscale/integrations/assertions.hpp> instead.
#pragma once
#include "integrations/assertions.hpp"
