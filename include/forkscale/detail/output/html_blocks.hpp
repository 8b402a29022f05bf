// detail/output/html_blocks.hpp: what the HTML report's sections are built of:
// escaped text, table cells with their sort values, sortable tables, notes and
// figures.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "format.hpp"
#include "svg.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace html {

namespace io = output;

// Text as HTML character data or attribute value (what html_escape() does).
inline std::string esc(const std::string& s) { return svg::escape(s); }

struct cell {
  cell(std::string text_ = std::string(), std::string sort_value_ = std::string(), bool numeric_ = false,
       std::string title_ = std::string())
      : text(std::move(text_)), sort_value(std::move(sort_value_)), numeric(numeric_), title(std::move(title_)) {}
  std::string text;        // shown (escaped when rendered)
  std::string sort_value;  // data-sort-value; empty: none
  bool numeric = false;
  std::string title;  // title attribute (escaped when rendered); empty: none
};

inline cell text_cell(const std::string& s) { return cell{s, "", false}; }
inline cell int_cell(std::uint64_t v, const std::string& unit = std::string()) {
  return cell{io::grouped(v) + (unit.empty() ? "" : " " + unit), std::to_string(v), true};
}
inline cell num_cell(double v, int decimals = 2, const std::string& unit = std::string()) {
  if (std::isnan(v)) return cell{"n/a", "", true};
  return cell{io::fixed(v, decimals) + (unit.empty() ? "" : " " + unit), io::round_trip(v), true};
}
// A signed integer ("-1,234").
inline cell signed_cell(std::int64_t v) {
  const std::uint64_t magnitude = v < 0 ? static_cast<std::uint64_t>(-(v + 1)) + 1 : static_cast<std::uint64_t>(v);
  return cell{(v < 0 ? "-" : "") + io::grouped(magnitude), std::to_string(v), true};
}
// A percentage of `whole` with one decimal; n/a when whole is zero.
inline cell percent_cell(double part, double whole) {
  if (!(whole != 0)) return cell{"n/a", "", true};
  return num_cell(100 * part / whole, 1, "%");
}
// A time in ns, grouped to whole ns.
inline cell ns_cell(double v) {
  if (std::isnan(v)) return cell{"n/a", "", true};
  return cell{(v < 0 ? "-" + io::grouped_round(-v) : io::grouped_round(v)) + " ns", io::round_trip(v), true};
}

class table {
 public:
  table(std::string id, std::string classes, std::vector<std::string> head)
      : id_(std::move(id)), classes_(std::move(classes)), head_(std::move(head)) {}
  void add(std::vector<cell> row, std::string row_class = std::string(), std::string row_key = std::string()) {
    rows_.push_back(std::move(row));
    row_classes_.push_back(std::move(row_class));
    row_keys_.push_back(std::move(row_key));
  }
  // Another attribute of the <table> element (the value is escaped).
  void attribute(std::string name, std::string value) { attributes_.emplace_back(std::move(name), std::move(value)); }
  // A heading row above the column headings: (text, number of columns) pairs.
  void group_head(std::vector<std::pair<std::string, std::size_t>> groups) { groups_ = std::move(groups); }
  // Per column: a stable key (data-key on its heading) and a longer title.
  void head_details(std::vector<std::string> keys, std::vector<std::string> titles) {
    head_keys_ = std::move(keys);
    head_titles_ = std::move(titles);
  }
  // Marks the column the rows are already sorted by (aria-sort on its heading).
  void sorted_by(std::size_t column, bool descending) {
    sorted_column_ = column;
    sorted_descending_ = descending;
  }
  std::size_t size() const noexcept { return rows_.size(); }
  std::string render() const {
    std::string o = "<table";
    if (!id_.empty()) o += " id=\"" + esc(id_) + "\"";
    o += " class=\"fs-table" + (classes_.empty() ? std::string() : " " + classes_) + "\"";
    for (const auto& a : attributes_) o += " " + a.first + "=\"" + esc(a.second) + "\"";
    o += ">\n<thead>";
    if (!groups_.empty()) {
      o += "<tr class=\"fs-group\">";
      for (const auto& g : groups_) {
        o += "<th scope=\"colgroup\"";
        if (g.second != 1) o += " colspan=\"" + std::to_string(g.second) + "\"";
        o += ">" + esc(g.first) + "</th>";
      }
      o += "</tr>\n";
    }
    o += "<tr>";
    for (std::size_t c = 0; c < head_.size(); ++c) {
      o += "<th scope=\"col\"";
      if (c < head_keys_.size() && !head_keys_[c].empty()) o += " data-key=\"" + esc(head_keys_[c]) + "\"";
      if (c < head_titles_.size() && !head_titles_[c].empty()) o += " title=\"" + esc(head_titles_[c]) + "\"";
      if (c == sorted_column_) o += sorted_descending_ ? " aria-sort=\"descending\"" : " aria-sort=\"ascending\"";
      o += ">" + esc(head_[c]) + "</th>";
    }
    o += "</tr></thead>\n<tbody>\n";
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      o += "<tr";
      if (!row_classes_[r].empty()) o += " class=\"" + esc(row_classes_[r]) + "\"";
      if (!row_keys_[r].empty()) o += " data-key=\"" + esc(row_keys_[r]) + "\"";
      o += ">";
      for (const auto& c : rows_[r]) {
        o += "<td";
        if (c.numeric) o += " class=\"num\"";
        if (c.numeric || !c.sort_value.empty()) o += " data-sort-value=\"" + esc(c.sort_value) + "\"";
        if (!c.title.empty()) o += " title=\"" + esc(c.title) + "\"";
        o += ">" + esc(c.text) + "</td>";
      }
      o += "</tr>\n";
    }
    o += "</tbody>\n</table>\n";
    return o;
  }

 private:
  std::string id_, classes_;
  std::vector<std::string> head_;
  std::vector<std::vector<cell>> rows_;
  std::vector<std::string> row_classes_, row_keys_;
  std::vector<std::pair<std::string, std::string>> attributes_;
  std::vector<std::pair<std::string, std::size_t>> groups_;
  std::vector<std::string> head_keys_, head_titles_;
  std::size_t sorted_column_ = static_cast<std::size_t>(-1);
  bool sorted_descending_ = false;
};

inline std::string paragraph(const std::string& text, const char* cls = "fs-note") {
  return std::string("<p class=\"") + cls + "\">" + esc(text) + "</p>\n";
}

// An inline SVG with its caption.
inline std::string figure(const std::string& svg_markup, const std::string& caption) {
  return "<figure>\n" + svg_markup + "<figcaption class=\"fs-note\">" + esc(caption) + "</figcaption>\n</figure>\n";
}

}  // namespace html
}  // namespace detail
FORKSCALE_NAMESPACE_END
