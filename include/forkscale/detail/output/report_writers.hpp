// detail/output/report_writers.hpp: a report as text (for people), JSON and CSV
// (for programs), and the write_* functions that put them in files; each piece
// is in its own header, all in namespace detail::output.
//
// The JSON and CSV layouts are described in docs/report-schema.md. Everything here
// is independent of the global C and C++ locales: numbers always use '.' and no
// digit grouping except the explicit ',' separators of the text report.
#pragma once
#include "blame_csv.hpp"       // fs::parallelism_csv, thread_times_csv, idle_blame_csv (blame.hpp)
#include "blame_text.hpp"      // fs::timeline_text; the sections of a recorded report
#include "csv.hpp"             // report::to_csv, *_sites_csv, what_if_csv; CSV fields
#include "folded.hpp"          // report::to_folded (folded stacks of the record)
#include "format.hpp"          // numbers: round trip, fixed, grouped, ratios, factors
#include "json.hpp"            // report::to_json
#include "json_writer.hpp"     // JSON literals and json_writer
#include "lock_tables.hpp"     // report::locks_text, locks_csv
#include "site_tables.hpp"     // report::sites_text, check_profile; the site tables
#include "text.hpp"            // report::to_text, operator<<
#include "text_table.hpp"      // text_table, wrapped, text_section
#include "trace.hpp"           // report::to_trace (Trace Event Format JSON of the record)
#include "utf8.hpp"            // valid_utf8, display_width, printable, padding
#include "views_fallback.hpp"  // FORKSCALE_TRACE, FORKSCALE_FOLDED without the views
#include "what_if_tables.hpp"  // report::what_if_text; the what-if table
