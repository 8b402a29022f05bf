// forkscale/split_tree.hpp: the short path of <forkscale/adapters/split_tree.hpp>.
#pragma once
#include "adapters/split_tree.hpp"
