// detail/session/snapshot_file.hpp: a session's snapshot as a file, in the format
// its path names (detail/output/report_format.hpp: the rule every report file
// written from a path follows).
#pragma once
#include <string>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../output/report_format.hpp"
#include "../output/report_writers.hpp"
#include "../util/atomic_file.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Writes `r` to `path` in format `f`, replacing the file atomically (no partial
// file, ever); throws forkscale::error on failure.
inline void write_snapshot_file(const report& r, const std::string& path, report_format f) {
  write_file_atomically(path, render_report(r, f));
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
