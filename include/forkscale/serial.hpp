// forkscale/serial.hpp: the short path of <forkscale/adapters/serial.hpp>; either include works,
// with the split headers and with -Isingle_include.
#pragma once
#include "adapters/serial.hpp"
