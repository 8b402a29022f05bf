// Old path, kept for one release: include <forkscale/adapters/split_tree.hpp> instead.
#pragma once
#include "adapters/split_tree.hpp"
