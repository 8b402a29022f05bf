// html_page.hpp: the HTML page's types and functions, declared: fs::html_report,
// fs::to_html, fs::write_html and fs::html_escape (study/html.hpp says what
// the page holds). study/html.hpp defines them in the header-only form; in the
// compiled form the library does, and a file that only writes pages (the OMPT
// tool's report, say) includes this header alone.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "../config.hpp"
#include "../detail/output/report_format.hpp"
#include "../report.hpp"
#include "html_ids.hpp"
#include "result.hpp"

FORKSCALE_NAMESPACE_BEGIN

// Text as HTML character data or attribute value: valid UTF-8, control
// characters as visible escapes, & < > " ' as entities.
FORKSCALE_INLINE std::string html_escape(const std::string& s);

// A page built from sections.
class html_report {
 public:
  explicit html_report(std::string title) : title_(std::move(title)) {}

  // Adds a section. `body_html` is markup and is inserted as it is: build it
  // with html_escape() for every piece of text. Throws forkscale::error when the
  // id is taken or is not of the form [A-Za-z][A-Za-z0-9_-]*.
  FORKSCALE_INLINE html_report& add_section(const std::string& id, const std::string& heading, std::string body_html,
                                            int order);

  bool has_section(const std::string& id) const noexcept {
    for (const auto& s : sections_)
      if (s.id == id) return true;
    return false;
  }

  // A line under the title (escaped).
  html_report& add_meta(const std::string& text) {
    meta_.push_back(text);
    return *this;
  }

  // Summary, speedup estimate, regions (when more than the root), the
  // scalability bounds plot and the diagnostics of one report.
  FORKSCALE_INLINE html_report& add_report(const report& r);

  // The study's tables and plots, and its profile (the engine's report of the
  // median 1-thread run).
  FORKSCALE_INLINE html_report& add_study(const study_result& s);

  FORKSCALE_INLINE std::string str() const;

  // Writes the page atomically; throws forkscale::error.
  FORKSCALE_INLINE void write(const std::string& path) const;

 private:
  struct section {
    std::string id, heading, body;
    int order;
  };

  FORKSCALE_INLINE void add_profile_sections(const report& r, const std::string& summary_heading);

  std::string title_;
  std::vector<std::string> meta_;
  std::vector<section> sections_;
};

// The page of a report, or of a scaling study (with its profile).
FORKSCALE_INLINE std::string to_html(const report& r);
FORKSCALE_INLINE std::string to_html(const study_result& s);
// ... written atomically; throws forkscale::error.
FORKSCALE_INLINE void write_html(const report& r, const std::string& path);
FORKSCALE_INLINE void write_html(const study_result& s, const std::string& path);

#ifndef FORKSCALE_DETAIL_BUILDING_LIB
namespace detail {
// A program that includes this header can write .html and .htm reports by their
// path: an fs::session's snapshots, say (detail/output/report_format.hpp). (Not in
// the compiled form's library itself: a program that never includes the page has
// no renderer.)
inline const bool html_snapshots_enabled = (
    snapshot_html_renderer() = [](const report& r) { return to_html(r); }, true);
}  // namespace detail
#endif

FORKSCALE_NAMESPACE_END
