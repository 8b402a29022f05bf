// Old path, kept for one release: include <forkscale/integrations/doctest.hpp> instead.
#pragma once
#include "integrations/doctest.hpp"
