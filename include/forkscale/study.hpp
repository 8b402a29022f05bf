// Old path, kept for one release: include <forkscale/study/study.hpp> instead.
#pragma once
#include "study/study.hpp"
