// forkscale — how parallel is your fork-join code, really?
//
// The umbrella header: the clocks, the guards, measure(), the reports, sessions
// for long-running programs (and merging reports), the what-if advisor,
// fs::mutex, the views of a recorded run (blame.hpp) and the regression check
// of two reports (regression.hpp). It
// includes no parallel library; adapters live in their own headers.
#pragma once

#include "advisor.hpp"
#include "backend.hpp"
#include "blame.hpp"
#include "burden.hpp"
#include "clock.hpp"
#include "config.hpp"
#include "guards.hpp"
#include "merge.hpp"
#include "mutex.hpp"
#include "options.hpp"
#include "predict.hpp"
#include "regression.hpp"
#include "report.hpp"
#include "session.hpp"
#include "site.hpp"

// The report writers (report::to_json, write_csv, operator<< ...): in the
// compiled form they are declared by report.hpp and defined in the library.
#if FORKSCALE_DETAIL_DEFINES(writers)
#include "detail/output/report_writers.hpp"
#endif
#include "detail/macro_unscope.hpp"
