// Old path, kept for one release: include <forkscale/study/plot.hpp> instead.
#pragma once
#include "study/plot.hpp"
