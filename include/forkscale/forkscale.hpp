// forkscale — how parallel is your fork-join code, really?
//
// The umbrella header: the clocks, the guards, measure(), the reports, sessions
// for long-running programs (and merging reports) and the what-if advisor. It
// includes no parallel library; adapters live in their own headers.
#pragma once

#include "advisor.hpp"
#include "clock.hpp"
#include "config.hpp"
#include "detail/output/report_writers.hpp"
#include "guards.hpp"
#include "merge.hpp"
#include "options.hpp"
#include "report.hpp"
#include "session.hpp"
#include "site.hpp"

#include "detail/macro_unscope.hpp"
