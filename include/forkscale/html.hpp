// Old path, kept for one release: include <forkscale/study/html.hpp> instead.
#pragma once
#include "study/html.hpp"
