// Old path, kept for one release: include <forkscale/adapters/serial.hpp> instead.
#pragma once
#include "adapters/serial.hpp"
