// views.hpp: the views a measurement reaches at run time, compiled into a
// header-only program. Include it in one file of a program built header-only
// to get:
//
//   FORKSCALE_TRACE=run.trace.json, FORKSCALE_FOLDED=run.folded
//       the trace and the folded stacks written at the end of every outermost
//       measurement (docs/record.md);
//   report::to_text(), operator<<
//       the sections of a recorded run: parallelism over time, idle blame, and
//       the what-if table through the replay;
//   fs::write_html, fs::to_html
//       the HTML page (forkscale/study/html.hpp).
//
// forkscale/forkscale.hpp alone compiles the engine, the guards, the
// measurement and the report's text, JSON and CSV writers; every function it
// declares (write_trace, predict, sessions, ...) compiles into the program only
// where the program calls it. What it reaches only through the environment or
// the text of a recorded run is here: without this header, a set
// FORKSCALE_TRACE or FORKSCALE_FOLDED saves the report with its record and says
// in one line how to render the view from it, and the text report says in one
// line that its record's sections are not in the program.
//
// The compiled form (forkscale::compiled, FORKSCALE_COMPILED_LIB) has every
// view in the library; there this header only declares.
#pragma once
#include "forkscale.hpp"
#include "study/html.hpp"

#include "detail/macro_scope.hpp"
#include "detail/macro_unscope.hpp"
#include "detail/output/views_install.hpp"
