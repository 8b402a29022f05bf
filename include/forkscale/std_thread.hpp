// Old path, kept for one release: include <forkscale/adapters/std_thread.hpp> instead.
#pragma once
#include "adapters/std_thread.hpp"
