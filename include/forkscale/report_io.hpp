// Old path, kept for one release: include <forkscale/read_report.hpp> instead.
#pragma once
#include "read_report.hpp"
