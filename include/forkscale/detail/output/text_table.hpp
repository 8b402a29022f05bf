// detail/output/text_table.hpp: the layout of the text reports: aligned tables
// that fit in 80 columns, wrapped paragraphs, and numbered sections.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "utf8.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

// A table: the first column left-aligned (and cut to fit), the others right-aligned.
// Rows are indented by two spaces, columns separated by two.
class text_table {
 public:
  static constexpr std::size_t line_width = 80;

  explicit text_table(std::vector<std::string> header) {
    rows_.push_back(std::move(header));
    notes_.push_back(false);
  }
  void add(std::vector<std::string> row) {
    rows_.push_back(std::move(row));
    notes_.push_back(false);
  }
  // A row with a first cell and, instead of the other columns, one left-aligned
  // text ("never executed"); the text does not widen any column.
  void add_note(std::string first, std::string text) {
    rows_.push_back({std::move(first), std::move(text)});
    notes_.push_back(true);
  }

  // The width the table needs without cutting the first column.
  std::size_t natural_width() const { return total(widths()); }
  // The width column `c` needs (0 for a column no row has).
  std::size_t column_width(std::size_t c) const {
    const std::vector<std::size_t> w = widths();
    return c < w.size() ? w[c] : 0;
  }

  std::string render() const {
    std::vector<std::size_t> w = widths();
    const std::size_t min_first = 12;
    const std::size_t width = total(w);
    if (width > line_width && w[0] > min_first) {
      const std::size_t excess = width - line_width;
      w[0] = w[0] > min_first + excess ? w[0] - excess : min_first;
    }
    std::string out;
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      const auto& row = rows_[r];
      std::string line = "  ";
      for (std::size_t c = 0; c < row.size(); ++c) {
        if (notes_[r] && c == 1) {
          line += "  " + row[1];
        } else if (c == 0) {
          line += pad_right(truncate_display(row[0], w[0]), w[0]);
        } else {
          line += "  ";
          line += pad_left(row[c], w[c]);
        }
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line;
      out += '\n';
    }
    return out;
  }

 private:
  std::vector<std::size_t> widths() const {
    std::vector<std::size_t> w;
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      const auto& row = rows_[r];
      const std::size_t used = notes_[r] ? 1 : row.size();
      if (w.size() < used) w.resize(used, 0);
      for (std::size_t c = 0; c < used; ++c) {
        const std::size_t cw = display_width(row[c]);
        if (cw > w[c]) w[c] = cw;
      }
    }
    return w;
  }
  static std::size_t total(const std::vector<std::size_t>& w) {
    std::size_t t = 2;
    for (std::size_t c = 0; c < w.size(); ++c) t += w[c] + (c ? 2 : 0);
    return t;
  }

  std::vector<std::vector<std::string>> rows_;
  std::vector<bool> notes_;  // per row: a note row (add_note)
};

// The line under a table whose numbers have three significant digits.
inline constexpr char rounded_note[] = "  (numbers rounded: k = 10^3, M = 10^6, G = 10^9, T = 10^12)\n";

// A table built twice, with exact grouped numbers and with three significant
// digits: the exact one when its numbers fit in 80 columns next to a first
// column of `name_width` columns (the widest name, or the header) cut to at most
// `name_room`; else the short one, whose first column is cut to fit.
template <typename Build>
std::string fitted_next_to_names(std::size_t name_width, std::size_t name_room, Build build) {
  const text_table exact = build(false);
  const std::size_t numbers_width = exact.natural_width() - name_width;
  const std::size_t wanted_name = name_width < name_room ? name_width : name_room;
  if (numbers_width + wanted_name <= text_table::line_width) return exact.render();
  return build(true).render() + rounded_note;
}

// A table built twice, with exact grouped numbers and with three significant
// digits: the exact one when it fits in 80 columns without cutting a site's
// name (names matter more here than in the regions table), else the short one,
// whose first column is cut only if it still does not fit.
template <typename Build>
std::string fitted_columns(Build build) {
  const text_table exact = build(false);
  if (exact.natural_width() <= text_table::line_width) return exact.render();
  return build(true).render() + rounded_note;
}

// `text` (one line, no control characters) cut into lines of at most `width`
// columns at spaces, the first starting with `indent`, the others with `more`;
// words longer than a line stay whole.
inline std::string wrapped(const std::string& text, const std::string& indent, const std::string& more,
                           std::size_t width = 80) {
  std::string out, line;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && display_width(line) + 1 + display_width(word) > width) {
      out += line + '\n';
      line.clear();
    }
    line += line.empty() ? (out.empty() ? indent : more) + word : " " + word;
    start = end + 1;
  }
  if (!line.empty()) out += line + '\n';
  return out;
}

// A section of a text report: report::to_text numbers the headings, the
// report::*_text functions show them as they are.
struct text_section {
  std::string heading;  // one line, without its number
  std::string body;     // lines ending in '\n'
};

}  // namespace output
}  // namespace detail
FORKSCALE_NAMESPACE_END
