// detail/output/report_format.hpp: the one rule that picks a report's format
// from a file name — for a session's snapshots, the OMPT tool's whole-program
// report and the preload libraries' (FORKSCALE_REPORT) — and where the HTML
// page (study/html_page.hpp) leaves its renderer for them.
#pragma once
#include <cctype>
#include <cstdio>
#include <string>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../util/atomic_file.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// The HTML page is opt-in (forkscale/study/html.hpp, which the umbrella header
// does not include): that header sets this to its to_html when a program
// includes it, so that a session can write .html snapshots without making every
// program compile the page.
using snapshot_renderer = std::string (*)(const report&);
inline snapshot_renderer& snapshot_html_renderer() noexcept {
  static snapshot_renderer r = nullptr;
  return r;
}

enum class report_format { json, text, csv, html };

// The format a file name asks for, by its extension in any case: .json, .txt,
// .csv, .html or .htm. Anything else — another extension, none, or .html in a
// program without the HTML page — throws forkscale::error with one line that
// names the path (and, for an extension, lists the ones there are).
inline report_format report_format_of(const std::string& path) {
  const std::string head = "forkscale: report path '" + printable_path(path) + "': ";
  const auto slash = path.find_last_of("/\\");
  const auto dot = path.find_last_of('.');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  const std::string written = has_ext ? path.substr(dot) : std::string();
  std::string ext;
  for (char c : written) ext += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".json") return report_format::json;
  if (ext == ".txt") return report_format::text;
  if (ext == ".csv") return report_format::csv;
  if (ext == ".html" || ext == ".htm") {
    if (!snapshot_html_renderer())
      throw error(head + "an HTML report needs the HTML page: #include <forkscale/study/html.hpp> in the program");
    return report_format::html;
  }
  throw error(head + (has_ext ? "unknown extension '" + printable_path(written) + "'" : std::string("no extension")) +
              " (the extension names the format, in any case: .json, .txt, .csv, .html or .htm)");
}

// The report in format `f` (html: report_format_of has checked the page is there).
inline std::string render_report(const report& r, report_format f) {
  switch (f) {
    case report_format::json:
      return r.to_json();
    case report_format::text:
      return r.to_text();
    case report_format::csv:
      return r.to_csv();
    case report_format::html:
      break;
  }
  return snapshot_html_renderer()(r);
}

// For the writers that run at the program's exit and must lose nothing (the
// OMPT tool's whole-program report, the preload libraries of `forkscale-report
// run`): writes `rep` to `path` in the format report_format_of finds, atomically,
// and returns true. With no path (null or empty) the text report goes to stderr;
// with a path report_format_of refuses, its one line does, then the text report.
// A write that fails throws forkscale::error, as report::write_json does.
inline bool write_report_or_show(const report& rep, const char* path) {
  const std::string p = path ? path : "";
  if (!p.empty()) {
    bool known = false;
    report_format f = report_format::text;
    try {
      f = report_format_of(p);
      known = true;
    } catch (const error& e) {
      std::fprintf(stderr, "%s\n", e.what());  // it says "forkscale: " already
    }
    if (known) {
      write_file_atomically(p, render_report(rep, f));
      return true;
    }
  }
  std::fputs(rep.to_text().c_str(), stderr);
  return false;
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
