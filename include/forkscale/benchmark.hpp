// Old path, kept for one release: include <forkscale/integrations/benchmark.hpp> instead.
#pragma once
#include "integrations/benchmark.hpp"
