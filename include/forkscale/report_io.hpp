// forkscale/report_io.hpp: the short path of <forkscale/read_report.hpp>; either include works,
// with the split headers and with -Isingle_include.
#pragma once
#include "read_report.hpp"
