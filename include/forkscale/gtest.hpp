// Old path, kept for one release: include <forkscale/integrations/gtest.hpp> instead.
#pragma once
#include "integrations/gtest.hpp"
