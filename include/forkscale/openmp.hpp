// Old path, kept for one release: include <forkscale/adapters/openmp.hpp> instead.
#pragma once
#include "adapters/openmp.hpp"
