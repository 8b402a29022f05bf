// detail/session/snapshot_file.hpp: a session's snapshot as a file — the format
// named by the path's extension, and the HTML page when the program has it.
#pragma once
#include <cctype>
#include <string>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../output/report_writers.hpp"
#include "../util/atomic_file.hpp"
#include "snapshot_renderer.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

enum class snapshot_format { json, text, csv, html };

// The format of a snapshot path: .json, .txt, .csv or .html (.htm), in any case.
// Throws forkscale::error naming the path otherwise.
inline snapshot_format snapshot_format_of(const std::string& path) {
  const std::string head = "forkscale: snapshot path '" + printable_path(path) + "': ";
  const auto slash = path.find_last_of("/\\");
  const auto dot = path.find_last_of('.');
  std::string ext;
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash))
    for (char c : path.substr(dot + 1)) ext += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == "json") return snapshot_format::json;
  if (ext == "txt") return snapshot_format::text;
  if (ext == "csv") return snapshot_format::csv;
  if (ext == "html" || ext == "htm") {
    if (!snapshot_html_renderer())
      throw error(head + "an HTML snapshot needs the HTML page: #include <forkscale/study/html.hpp> in the program");
    return snapshot_format::html;
  }
  throw error(head + (ext.empty() ? std::string("no extension") : "unknown extension '." + ext + "'") +
              " (the format is named by it: .json, .txt, .csv or .html)");
}

inline std::string render_snapshot(const report& r, snapshot_format f) {
  switch (f) {
    case snapshot_format::json:
      return r.to_json();
    case snapshot_format::text:
      return r.to_text();
    case snapshot_format::csv:
      return r.to_csv();
    case snapshot_format::html:
      break;
  }
  return snapshot_html_renderer()(r);
}

// Writes `r` to `path` in format `f`, replacing the file atomically (no partial
// file, ever); throws forkscale::error on failure.
inline void write_snapshot_file(const report& r, const std::string& path, snapshot_format f) {
  write_file_atomically(path, render_snapshot(r, f));
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
