// Old path, kept for one release: include <forkscale/adapters/tbb.hpp> instead.
#pragma once
#include "adapters/tbb.hpp"
