// detail/report_writers.hpp: a report as text (for people), JSON and CSV (for
// programs), and the write_* functions that put them in files.
//
// The JSON and CSV layouts are described in docs/report-schema.md. Everything here
// is independent of the global C and C++ locales: numbers always use '.' and no
// digit grouping except the explicit ',' separators of the text report.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <ios>
#include <locale>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../report.hpp"
#include "../util/atomic_file.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace report_io {

// ---- UTF-8 ------------------------------------------------------------------

// `s` with every ill-formed UTF-8 sequence replaced by U+FFFD, one replacement per
// maximal subpart (Unicode §3.9, "U+FFFD substitution of maximal subparts", which
// is also what Python's bytes.decode('utf-8', 'replace') does). Well-formed text
// comes back byte for byte.
inline std::string valid_utf8(const std::string& s) {
  static const char replacement[] = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(s.size());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
      out += static_cast<char>(b0);
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      len = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      len = 3;
      if (b0 == 0xE0) lo = 0xA0;         // no overlong forms
      if (b0 == 0xED) hi = 0x9F;         // no surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      len = 4;
      if (b0 == 0xF0) lo = 0x90;         // no overlong forms
      if (b0 == 0xF4) hi = 0x8F;         // nothing above U+10FFFF
    } else {
      out += replacement;                // 80..C1, F5..FF never start a character
      ++i;
      continue;
    }
    std::size_t k = 1;
    for (; k < len && i + k < n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      const unsigned char l = k == 1 ? lo : 0x80;
      const unsigned char h = k == 1 ? hi : 0xBF;
      if (b < l || b > h) break;
    }
    if (k == len) {
      out.append(s, i, len);
    } else {
      out += replacement;                // the maximal subpart s[i, i+k)
    }
    i += k;
  }
  return out;
}

// Columns a terminal gives one code point: 0 for combining marks and zero-width
// characters, 2 for East Asian wide and fullwidth characters and most emoji, else 1
// (a compact approximation of wcwidth, enough to keep the tables aligned).
inline unsigned code_point_width(std::uint32_t c) noexcept {
  if ((c >= 0x0300 && c <= 0x036F) || (c >= 0x200B && c <= 0x200F) || (c >= 0xFE00 && c <= 0xFE0F) ||
      (c >= 0x1AB0 && c <= 0x1AFF) || (c >= 0x1DC0 && c <= 0x1DFF) || (c >= 0x20D0 && c <= 0x20FF) ||
      (c >= 0xFE20 && c <= 0xFE2F) || c == 0x200D || c == 0xFEFF)
    return 0;
  if ((c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0x303E) || (c >= 0x3041 && c <= 0x33FF) ||
      (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xA000 && c <= 0xA4CF) ||
      (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
      (c >= 0xFF00 && c <= 0xFF60) || (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
      (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD))
    return 2;
  return 1;
}

// Decodes the code point starting at s[i] of valid UTF-8 and advances i past it.
inline std::uint32_t next_code_point(const std::string& s, std::size_t& i) noexcept {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t len = b0 < 0x80 ? 1 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4;
  if (i + len > s.size()) len = s.size() - i;
  std::uint32_t c = len == 1 ? b0 : len == 2 ? (b0 & 0x1Fu) : len == 3 ? (b0 & 0x0Fu) : (b0 & 0x07u);
  for (std::size_t k = 1; k < len; ++k) c = (c << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
  i += len;
  return c;
}

// The columns valid UTF-8 text takes in a terminal (see code_point_width).
inline std::size_t display_width(const std::string& s) noexcept {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size();) w += code_point_width(next_code_point(s, i));
  return w;
}

// Valid UTF-8 `s` cut to at most `width` columns, with "..." marking a cut.
inline std::string truncate_display(const std::string& s, std::size_t width) {
  if (display_width(s) <= width) return s;
  if (width <= 3) return std::string(width, '.');
  const std::size_t room = width - 3;
  std::size_t used = 0, i = 0;
  while (i < s.size()) {
    std::size_t next = i;
    const unsigned w = code_point_width(next_code_point(s, next));
    if (used + w > room) break;
    used += w;
    i = next;
  }
  return s.substr(0, i) + "...";
}

// Text as the text report shows it: valid UTF-8, with control characters written
// as escapes so that a label cannot break a line or move the cursor.
inline std::string printable(const std::string& s) { return printable_path(valid_utf8(s)); }

// ---- numbers ----------------------------------------------------------------

// The shortest of %.15g, %.16g, %.17g that reads back as the same double, in the
// classic locale; a ".0" is added to integral values so that they stay floats for
// typed readers. Non-finite values give an empty string (the caller decides).
inline std::string round_trip(double v) {
  if (!std::isfinite(v)) return std::string();
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  std::string text;
  for (int precision = 15; precision <= 17; ++precision) {
    std::ostringstream os;
    os.imbue(std::locale::classic());
    os.precision(precision);
    os << v;
    text = os.str();
    std::istringstream is(text);
    is.imbue(std::locale::classic());
    double back = 0;
    is >> back;
    if (back == v) break;
  }
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text;
}

inline std::string fixed(double v, int decimals) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.imbue(std::locale::classic());
  os.setf(std::ios::fixed, std::ios::floatfield);
  os.precision(decimals);
  os << v;
  return os.str();
}

// 1234567 -> "1,234,567".
inline std::string grouped(std::uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  const std::size_t lead = digits.size() % 3;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (i + 3 - lead) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// A rounded double, grouped ("217.98" -> "218"); values too large for an integer
// fall back to two decimals.
inline std::string grouped_round(double v) {
  if (!(v >= 0) || v >= 1.8e19) return fixed(v, 2);
  return grouped(static_cast<std::uint64_t>(std::round(v)));
}

// Three significant digits and an SI suffix: 5570609776 -> "5.57G". Exact below
// 10,000.
inline std::string compact(std::uint64_t v) {
  if (v < 10000) return std::to_string(v);
  static const char suffixes[] = "kMGTPE";
  double x = static_cast<double>(v);
  int s = -1;
  while (x >= 999.5 && s < 5) {
    x /= 1000;
    ++s;
  }
  const int decimals = x < 9.995 ? 2 : (x < 99.95 ? 1 : 0);
  return fixed(x, decimals) + suffixes[s];
}

inline std::string bytes_text(std::size_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double x = static_cast<double>(bytes) / 1024;
  int u = 0;
  while (x >= 1023.95 && u < 5) {
    x /= 1024;
    ++u;
  }
  return fixed(x, 1) + " " + units[u];
}

// ---- JSON -------------------------------------------------------------------

// A JSON string literal: quote and backslash escaped, control characters as
// \u00XX, U+2028/U+2029 escaped too (they end lines in JavaScript), other text
// kept as UTF-8 after ill-formed sequences are replaced by U+FFFD.
inline std::string json_string(const std::string& s) {
  static const char hex[] = "0123456789abcdef";
  const std::string v = valid_utf8(s);
  std::string out;
  out.reserve(v.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto c = static_cast<unsigned char>(v[i]);
    if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20) {
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 0xf];
    } else if (c == 0xE2 && i + 2 < v.size() && static_cast<unsigned char>(v[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(v[i + 2]) == 0xA8 ||
                static_cast<unsigned char>(v[i + 2]) == 0xA9)) {
      out += static_cast<unsigned char>(v[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

inline std::string json_number(double v) {
  const std::string t = round_trip(v);
  return t.empty() ? "null" : t;
}

inline std::string json_number(std::uint64_t v) { return std::to_string(v); }

// Pretty-printing with two-space indentation, one member per line.
class json_writer {
 public:
  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }

  void key(const char* name) {
    element();
    out_ += json_string(name);
    out_ += ": ";
    after_key_ = true;
  }
  void value_raw(const std::string& text) {
    element();
    out_ += text;
  }
  void value(const std::string& s) { value_raw(json_string(s)); }
  void value(const char* s) { value_raw(json_string(s)); }
  void value(double v) { value_raw(json_number(v)); }
  void value(std::uint64_t v) { value_raw(json_number(v)); }

  template <typename T>
  void member(const char* name, const T& v) {
    key(name);
    value(v);
  }

  std::string finish() {
    out_ += '\n';
    return std::move(out_);
  }

 private:
  // Before a value or key: a comma after a sibling, then a new indented line,
  // except for the value right after its key.
  void element() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!count_.empty()) {
      if (count_.back()++ != 0) out_ += ',';
      newline(count_.size());
    }
  }
  void open(char c) {
    element();
    out_ += c;
    count_.push_back(0);
  }
  void close(char c) {
    const bool had_elements = count_.back() != 0;
    count_.pop_back();
    if (had_elements) newline(count_.size());
    out_ += c;
  }
  void newline(std::size_t depth) {
    out_ += '\n';
    out_.append(2 * depth, ' ');
  }

  std::string out_;
  std::vector<std::size_t> count_;
  bool after_key_ = false;
};

// ---- CSV --------------------------------------------------------------------

// One text field: valid UTF-8; a leading ' when it starts with a character a
// spreadsheet would take for a formula (=, +, -, @, tab, CR; OWASP "CSV
// Injection"); then RFC 4180 quoting when it holds a comma, quote, CR or LF.
inline std::string csv_text(const std::string& s) {
  std::string v = valid_utf8(s);
  if (!v.empty()) {
    const char c = v.front();
    if (c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r') v.insert(0, 1, '\'');
  }
  if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
  std::string out;
  out.reserve(v.size() + 2);
  out += '"';
  for (const char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

inline std::string csv_number(double v) { return round_trip(v); }  // empty if not finite
inline std::string csv_number(std::uint64_t v) { return std::to_string(v); }

// ---- text -------------------------------------------------------------------

inline std::string pad_left(const std::string& s, std::size_t width) {
  const std::size_t w = display_width(s);
  return w >= width ? s : std::string(width - w, ' ') + s;
}

inline std::string pad_right(const std::string& s, std::size_t width) {
  const std::size_t w = display_width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

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

// The region's name in the tables: its label, indented two spaces per level.
inline std::string tree_name(const region_result& r) {
  std::string name = r.label.empty() ? (r.depth == 0 ? "(root)" : "(unnamed)") : printable(r.label);
  return std::string(2 * static_cast<std::size_t>(r.depth), ' ') + name;
}

// A ratio with two decimals, "n/a" when its denominator is zero; in short form
// (tables that would not fit otherwise) large ratios become "6.15E".
inline std::string ratio_text(std::uint64_t denominator, double ratio, bool short_form = false) {
  if (!denominator) return "n/a";
  if (short_form && ratio >= 9999.995 && ratio < 1.8e19)
    return compact(static_cast<std::uint64_t>(std::round(ratio)));
  return fixed(ratio, 2);
}

// A table of regions with exact, grouped numbers when they fit in 80 columns next
// to a readable region column; otherwise with three significant digits (5.57G).
template <typename Build>
std::string fitted_table(const std::vector<region_result>& regions, Build build) {
  const text_table exact = build(false);
  std::size_t name_width = 6;  // "region"
  for (const auto& r : regions) {
    const std::size_t w = display_width(tree_name(r));
    if (w > name_width) name_width = w;
  }
  const std::size_t numbers_width = exact.natural_width() - name_width;
  const std::size_t wanted_name = name_width < 16 ? name_width : 16;
  if (numbers_width + wanted_name <= text_table::line_width) return exact.render();
  return build(true).render() + "  (numbers rounded: k = 10^3, M = 10^6, G = 10^9, T = 10^12)\n";
}

inline std::string regions_table(const std::vector<region_result>& regions) {
  return fitted_table(regions, [&](bool short_numbers) {
    const auto num = [short_numbers](std::uint64_t v) { return short_numbers ? compact(v) : grouped(v); };
    text_table t({"region", "inst.", "work", "span", "par.", "b.par.", "spawns", "syncs"});
    for (const auto& r : regions)
      t.add({tree_name(r), num(r.instances), num(r.work), num(r.span),
             ratio_text(r.span, r.parallelism(), short_numbers),
             ratio_text(r.burdened_span, r.burdened_parallelism(), short_numbers), num(r.spawns),
             num(r.syncs)});
    return t;
  });
}

inline std::string raw_table(const std::vector<region_result>& regions) {
  return fitted_table(regions, [&](bool short_numbers) {
    const auto num = [short_numbers](std::uint64_t v) { return short_numbers ? compact(v) : grouped(v); };
    text_table t({"region", "raw work", "raw span", "work", "span"});
    for (const auto& r : regions)
      t.add({tree_name(r), num(r.raw_work), num(r.raw_span), num(r.work), num(r.span)});
    return t;
  });
}

// ---- per-site profiles -------------------------------------------------------

inline std::uint64_t magnitude(std::int64_t v) noexcept {
  return v < 0 ? std::uint64_t(0) - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
}

// Signed counterparts of grouped() and compact(): -1234567 -> "-1,234,567", "-1.23M".
inline std::string grouped_signed(std::int64_t v) { return (v < 0 ? "-" : "") + grouped(magnitude(v)); }
inline std::string compact_signed(std::int64_t v) { return (v < 0 ? "-" : "") + compact(magnitude(v)); }

inline std::string json_signed(std::int64_t v) { return std::to_string(v); }
inline std::string csv_signed(std::int64_t v) { return std::to_string(v); }
inline const char* bool_text(bool b) noexcept { return b ? "true" : "false"; }

// A table built twice, with exact grouped numbers and with three significant
// digits: the exact one when it fits in 80 columns without cutting a site's
// name (names matter more here than in the regions table), else the short one,
// whose first column is cut only if it still does not fit.
template <typename Build>
std::string fitted_columns(Build build) {
  const text_table exact = build(false);
  if (exact.natural_width() <= text_table::line_width) return exact.render();
  return build(true).render() + "  (numbers rounded: k = 10^3, M = 10^6, G = 10^9, T = 10^12)\n";
}

// The site tables: exact numbers with each site's function when that fits in 80
// columns, else short numbers, else short numbers without the functions (a site
// keeps its file:line or tag, which is what tells the rows apart).
template <typename Build>
std::string fitted_site_columns(Build build) {
  const text_table exact = build(false, true);
  if (exact.natural_width() <= text_table::line_width) return exact.render();
  const std::string rounded = "  (numbers rounded: k = 10^3, M = 10^6, G = 10^9, T = 10^12)\n";
  const text_table short_fn = build(true, true);
  if (short_fn.natural_width() <= text_table::line_width) return short_fn.render() + rounded;
  return build(true, false).render() + rounded +
         "  (functions left out to fit 80 columns: the CSV and JSON have them)\n";
}

// A percentage with one decimal ("-0.0" written as "0.0"), three significant
// digits from 100,000 on ("-3.53T"); "n/a" when not finite.
inline std::string percent_text(double percent) {
  if (!std::isfinite(percent)) return "n/a";
  const double m = std::fabs(percent);
  if (m >= 99999.95) {
    const std::string sign = percent < 0 ? "-" : "";
    if (m < 1.8e19) return sign + compact(static_cast<std::uint64_t>(std::round(m)));
    std::ostringstream os;
    os.imbue(std::locale::classic());
    os.setf(std::ios::scientific, std::ios::floatfield);
    os.precision(1);
    os << m;
    return sign + os.str();
  }
  std::string t = fixed(percent, 1);
  if (t == "-0.0") t = "0.0";
  return t;
}

// `part` as a percentage of `whole`; "n/a" when `whole` is 0.
inline std::string share_text(std::int64_t part, std::uint64_t whole) {
  if (!whole) return "n/a";
  return percent_text(100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

// A site as the tables name it: "(root)" for the root row; otherwise its name
// (the tag, or file:line) and the function it is in, "spawn " first for the rows
// of spawn sites in the call-site table.
inline std::string site_label(site_kind kind, const std::string& name, const std::string& function,
                              bool mark_spawn, bool with_function = true) {
  if (kind == site_kind::root) return "(root)";
  std::string s = mark_spawn && kind == site_kind::spawn ? "spawn " : "";
  s += name.empty() ? std::string("(unnamed)") : printable(name);
  if (with_function && !function.empty()) s += " in " + printable(function);
  return s;
}

// The rows a table shows, in order: sorted by `key`, largest first (ties keep the
// rows' order); every root row, and at most `top_n` others. `hidden` gets the
// number of rows left out.
template <typename Row, typename Key>
std::vector<std::size_t> top_rows(const std::vector<Row>& rows, std::size_t top_n, Key key, std::size_t& hidden) {
  std::vector<std::size_t> order(rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return key(rows[a]) > key(rows[b]); });
  std::vector<std::size_t> shown;
  std::size_t others = 0;
  hidden = 0;
  for (const std::size_t i : order) {
    if (rows[i].kind == site_kind::root) {
      shown.push_back(i);
    } else if (others < top_n) {
      shown.push_back(i);
      ++others;
    } else {
      ++hidden;
    }
  }
  return shown;
}

// A sum of signed or unsigned 64-bit values, exact, with overflow noticed.
class exact_sum {
 public:
  void add(std::int64_t v) noexcept { add_to(v < 0 ? minus_ : plus_, magnitude(v)); }
  void add(std::uint64_t v) noexcept { add_to(plus_, v); }
  bool overflow() const noexcept { return overflow_; }
  bool equals(std::uint64_t total) const noexcept { return !overflow_ && plus_ >= minus_ && plus_ - minus_ == total; }
  std::string text() const {
    return plus_ >= minus_ ? std::to_string(plus_ - minus_) : "-" + std::to_string(minus_ - plus_);
  }

 private:
  void add_to(std::uint64_t& s, std::uint64_t v) noexcept {
    if (s > static_cast<std::uint64_t>(-1) - v) overflow_ = true;
    else s += v;
  }
  std::uint64_t plus_ = 0, minus_ = 0;
  bool overflow_ = false;
};

// One self-check: "" when `sum` equals `total`, else what failed.
inline std::string sum_check(const char* table, const char* column, std::size_t rows, const exact_sum& sum,
                             const char* total_name, std::uint64_t total) {
  if (sum.equals(total)) return std::string();
  return std::string(table) + ": " + column + (sum.overflow() ? " overflows 64 bits" : " sums to " + sum.text()) +
         " over " + std::to_string(rows) + (rows == 1 ? " row" : " rows") + ", but " + total_name + " is " +
         std::to_string(total);
}

// The profile's self-checks that fail (docs/model.md, "Self-checks"): none
// when it holds or when the report has no site rows.
inline std::vector<std::string> profile_check_failures(const report& rep) {
  std::vector<std::string> failed;
  if (rep.call_sites.empty() && rep.spawn_sites.empty()) return failed;
  exact_sum local_span, local_work, critical_span, exclusive_work;
  for (const auto& c : rep.call_sites) {
    local_span.add(c.local_on_span.span);
    local_work.add(c.local_on_work.work);
  }
  for (const auto& p : rep.spawn_sites) {
    critical_span.add(p.critical_span);
    exclusive_work.add(p.exclusive_work);
  }
  const std::size_t calls = rep.call_sites.size(), spawns = rep.spawn_sites.size();
  for (std::string c : {sum_check("call sites", "local span on span", calls, local_span, "the span", rep.span()),
                        sum_check("call sites", "local work on work", calls, local_work, "the work", rep.work()),
                        sum_check("spawn sites", "critical span", spawns, critical_span, "the span", rep.span()),
                        sum_check("spawn sites", "exclusive work", spawns, exclusive_work, "the work", rep.work())})
    if (!c.empty()) failed.push_back(std::move(c));
  return failed;
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

// The columns every site CSV starts with (docs/report-schema.md), and their
// fields for one row.
inline const char* site_csv_identity() noexcept { return "name,kind,file,line,function,tag,recursive"; }

inline void csv_site_identity(std::string& out, const std::string& name, site_kind kind, const std::string& file,
                              unsigned line, const std::string& function, const std::string& tag, bool recursive) {
  out += csv_text(name) + ',' + csv_text(to_string(kind)) + ',' + csv_text(file) + ',' +
         csv_number(static_cast<std::uint64_t>(line)) + ',' + csv_text(function) + ',' + csv_text(tag) + ',' +
         bool_text(recursive);
}

// The four columns of one measurement: count, work, span, parallelism.
inline void csv_measure(std::string& out, const site_measure& m) {
  out += ',' + csv_number(m.count) + ',' + csv_number(m.work) + ',' + csv_signed(m.span) + ',' +
         csv_number(m.parallelism());
}

struct text_section {
  std::string heading;  // one line, without its number
  std::string body;     // lines ending in '\n'
};

// The call-site and spawn-site tables (report::sites_text, report::to_text).
inline std::vector<text_section> site_sections(const report& rep, std::size_t top_n) {
  std::vector<text_section> out;
  const std::string u = printable(rep.unit);
  const std::uint64_t span = rep.span();
  if (!rep.call_sites.empty()) {
    std::size_t hidden = 0;
    const std::vector<std::size_t> shown = top_rows(
        rep.call_sites, top_n, [](const call_site_profile& c) { return c.local_on_span.span; }, hidden);
    text_section s;
    s.heading = "Call sites (by local span on span, largest first; work and span in " + u + ")";
    s.body = fitted_site_columns([&](bool short_numbers, bool with_function) {
      const auto num = [short_numbers](std::uint64_t v) { return short_numbers ? compact(v) : grouped(v); };
      const auto snum = [short_numbers](std::int64_t v) {
        return short_numbers ? compact_signed(v) : grouped_signed(v);
      };
      text_table t({"call site", "l.span", "%", "l.work", "t.work", "t.span", "t.par", "count", "r"});
      for (const std::size_t i : shown) {
        const call_site_profile& c = rep.call_sites[i];
        const site_measure& tcs = c.top_call_site_on_work;
        t.add({site_label(c.kind, c.name, c.function, true, with_function), snum(c.local_on_span.span),
               share_text(c.local_on_span.span, span), num(c.local_on_span.work), num(tcs.work), snum(tcs.span),
               ratio_text(tcs.span > 0 ? 1 : 0, tcs.parallelism(), short_numbers), num(c.local_on_work.count),
               c.recursive ? "*" : ""});
      }
      return t;
    });
    if (hidden) s.body += "  (" + grouped(hidden) + (hidden == 1 ? " more call site" : " more call sites") + " not shown)\n";
    s.body +=
        "  l. = local, on span (% = share of the span); t. = top-call-site, on work;\n"
        "  count = invocations; r: * = recursive (docs/model.md, \"Per-site profiles\")\n";
    out.push_back(std::move(s));
  }
  if (!rep.spawn_sites.empty()) {
    std::size_t hidden = 0;
    const std::vector<std::size_t> shown = top_rows(
        rep.spawn_sites, top_n, [](const spawn_site_profile& p) { return p.critical_span; }, hidden);
    text_section s;
    s.heading = "Spawn sites (by critical span, largest first; work and span in " + u + ")";
    s.body = fitted_site_columns([&](bool short_numbers, bool with_function) {
      const auto num = [short_numbers](std::uint64_t v) { return short_numbers ? compact(v) : grouped(v); };
      text_table t({"spawn site", "tasks", "work", "span", "par.", "crit.span", "crit.%"});
      for (const std::size_t i : shown) {
        const spawn_site_profile& p = rep.spawn_sites[i];
        t.add({site_label(p.kind, p.name, p.function, false, with_function), num(p.tasks), num(p.work), num(p.span),
               ratio_text(p.span, p.parallelism(), short_numbers),
               short_numbers ? compact_signed(p.critical_span) : grouped_signed(p.critical_span),
               percent_text(p.critical_percent)});
      }
      return t;
    });
    if (hidden) s.body += "  (" + grouped(hidden) + (hidden == 1 ? " more spawn site" : " more spawn sites") + " not shown)\n";
    s.body +=
        "  work, span = of the top-call-site tasks; crit. = the tasks' own strands on\n"
        "  the critical path (% = share of the span)\n";
    out.push_back(std::move(s));
  }
  const std::vector<std::string> failed = profile_check_failures(rep);
  if (!failed.empty() && !out.empty()) {
    out.back().body += "  profile self-check failed:\n";
    for (const auto& f : failed) out.back().body += wrapped(f, "    ", "      ");
  }
  return out;
}

// ---- what-if ---------------------------------------------------------------

// A number that may be +infinity (a what-if factor, parallelism or gain): in
// JSON the number, the string "inf" for +infinity, null for anything else that
// is not finite; in CSV the number, "inf", or an empty field.
inline std::string json_unbounded(double v) {
  if (std::isinf(v) && v > 0) return "\"inf\"";
  return json_number(v);
}
inline std::string csv_unbounded(double v) {
  if (std::isinf(v) && v > 0) return "inf";
  return csv_number(v);
}

// A factor as the tables show it: "inf", else up to six significant digits
// ("16", "1.5", "0.333333").
inline std::string factor_text(double k) {
  if (std::isnan(k)) return "n/a";
  if (std::isinf(k)) return k > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.imbue(std::locale::classic());
  os.precision(6);
  os << k;
  return os.str();
}

// A predicted parallelism: two decimals, "inf" when infinite; in short form
// large values as "6.15E".
inline std::string unbounded_ratio_text(double v, bool short_form = false) {
  if (std::isinf(v) && v > 0) return "inf";
  if (!std::isfinite(v)) return "n/a";
  if (short_form && v >= 9999.995 && v < 1.8e19) return compact(static_cast<std::uint64_t>(std::round(v)));
  return fixed(v, 2);
}

// A gain ("3.99x", "inf"); "n/a" when the measured parallelism is 0.
inline std::string gain_text(double gain, bool measured, bool short_form = false) {
  if (!measured) return "n/a";
  const std::string t = unbounded_ratio_text(gain, short_form);
  return t == "inf" || t == "n/a" ? t : t + "x";
}

// The what-if rows of one region, as the text table shows them: one line per
// factor with both models.
struct what_if_line {
  double factor = 1;
  const what_if_result* parallelized = nullptr;
  const what_if_result* optimized = nullptr;
  const what_if_result& any() const { return parallelized ? *parallelized : *optimized; }
};
struct what_if_block {
  const what_if_result* first = nullptr;
  bool executed = false;
  std::vector<what_if_line> lines;
};

// Consecutive rows of the same region (name and source) make a block, in the
// report's order; within a block, rows of the same factor make a line.
inline std::vector<what_if_block> what_if_blocks(const std::vector<what_if_result>& rows) {
  std::vector<what_if_block> blocks;
  for (const what_if_result& w : rows) {
    if (blocks.empty() || blocks.back().first->region != w.region || blocks.back().first->source != w.source) {
      blocks.emplace_back();
      blocks.back().first = &w;
    }
    what_if_block& b = blocks.back();
    b.executed = b.executed || w.executed;
    what_if_line* line = nullptr;
    for (auto& l : b.lines)
      if (l.factor == w.factor || (std::isnan(l.factor) && std::isnan(w.factor))) line = &l;
    if (!line) {
      b.lines.emplace_back();
      line = &b.lines.back();
      line->factor = w.factor;
    }
    const what_if_result*& slot = w.model == what_if_model::parallelized ? line->parallelized : line->optimized;
    if (!slot) slot = &w;
  }
  return blocks;
}

// Orders parallelism values, +infinity largest, NaN smallest.
inline bool parallelism_less(double a, double b) noexcept {
  if (std::isnan(a)) return !std::isnan(b);
  if (std::isnan(b)) return false;
  return a < b;
}

// The what-if section (report::what_if_text, report::to_text); empty heading
// when the report has no what-if rows.
inline text_section what_if_section(const report& rep) {
  text_section s;
  if (rep.what_if.empty()) return s;
  const std::string u = printable(rep.unit);
  const bool measured = rep.span() > 0;
  const double now = rep.parallelism();
  const std::vector<what_if_block> blocks = what_if_blocks(rep.what_if);
  s.heading = "What if a region ran k times faster (span in " + u + ")";
  s.body = wrapped("Predicted span and parallelism of the whole program if the strands of a region were k times "
                   "faster; measured: span " + grouped(rep.span()) + ", parallelism " +
                       ratio_text(rep.span(), now) + ".",
                   "  ", "  ");

  // The region with the most to gain at its largest factor (parallelized).
  const what_if_result* best = nullptr;
  for (int pass = 0; pass < 2 && !best; ++pass) {
    for (const what_if_block& b : blocks) {
      if (!b.executed || (pass == 0 && b.first->source == what_if_source::all)) continue;
      const what_if_result* top = nullptr;
      for (const what_if_line& l : b.lines)
        if (l.parallelized && l.parallelized->executed && (!top || top->factor < l.factor)) top = l.parallelized;
      if (top && (!best || parallelism_less(best->parallelism, top->parallelism))) best = top;
    }
  }
  if (best) {
    std::string line = "Most to gain: " + truncate_display(printable(best->region), 40) + " at k = " +
                       factor_text(best->factor) + ": parallelism " + ratio_text(rep.span(), now) + " -> " +
                       unbounded_ratio_text(best->parallelism);
    if (measured && std::isfinite(best->gain)) line += " (" + gain_text(best->gain, measured) + ")";
    if (rep.max_processors >= 2) {
      const double p = static_cast<double>(rep.max_processors);
      line += "; speedup on " + std::to_string(rep.max_processors) + " processors at most " +
              fixed(measured ? std::min(p, now) : 0.0, 2) + " -> " + fixed(best->speedup_at(rep.max_processors).upper, 2);
    }
    s.body += wrapped(line + ".", "  ", "    ");
  }

  const auto build = [&](bool short_numbers) {
    text_table t({"region", "k", "span", "par.", "gain", "opt.par.", "opt.gain"});
    for (const what_if_block& b : blocks) {
      const std::string name = printable(b.first->region);
      if (!b.executed) {
        t.add_note(name, b.first->source == what_if_source::call_site ? "never executed (named call site)"
                                                                      : "never executed");
        continue;
      }
      for (const what_if_line& l : b.lines) {
        const double span = l.any().span;
        const std::string span_text =
            short_numbers && span >= 0 && span < 1.8e19 ? compact(static_cast<std::uint64_t>(std::round(span)))
                                                        : grouped_round(span);
        const auto par = [&](const what_if_result* w) {
          return w ? unbounded_ratio_text(w->parallelism, short_numbers) : std::string("-");
        };
        const auto gain = [&](const what_if_result* w) {
          return w ? gain_text(w->gain, measured, short_numbers) : std::string("-");
        };
        t.add({name, factor_text(l.factor), span_text, par(l.parallelized), gain(l.parallelized),
               par(l.optimized), gain(l.optimized)});
      }
    }
    return t;
  };
  // Exact numbers when they fit next to a readable region column.
  const text_table exact = build(false);
  std::size_t name_width = 6;  // "region"
  for (const what_if_block& b : blocks) name_width = std::max(name_width, display_width(printable(b.first->region)));
  const std::size_t wanted = name_width < 20 ? name_width : 20;
  if (exact.natural_width() - name_width + wanted <= text_table::line_width) {
    s.body += exact.render();
  } else {
    s.body += build(true).render() + "  (numbers rounded: k = 10^3, M = 10^6, G = 10^9, T = 10^12)\n";
  }
  s.body += wrapped("par., gain: parallelized (the region's share of every path divides by k, the work stays); "
                    "opt.: optimized (its work divides too); gain = predicted / measured parallelism",
                    "  ", "  ");
  return s;
}

}  // namespace report_io
}  // namespace detail

// ---- report members ---------------------------------------------------------

inline std::string report::check_profile() const {
  std::string out;
  for (const auto& f : detail::report_io::profile_check_failures(*this))
    out += (out.empty() ? "profile self-check failed: " : "; ") + f;
  return out;
}

inline std::string report::sites_text(std::size_t top_n) const {
  const auto sections = detail::report_io::site_sections(*this, top_n);
  if (sections.empty()) return "No site profiles in this report.\n";
  std::string out;
  for (const auto& s : sections) out += (out.empty() ? "" : "\n") + s.heading + "\n" + s.body;
  return out;
}

inline std::string report::what_if_text() const {
  const detail::report_io::text_section s = detail::report_io::what_if_section(*this);
  return s.heading.empty() ? std::string() : s.heading + "\n" + s.body;
}

inline std::string report::to_text(bool show_raw) const {
  namespace io = detail::report_io;
  const std::string u = io::printable(unit);
  std::string out = "forkscale report";
  if (!label.empty()) out += ": " + io::printable(label);
  out += "  (clock: ";
  out += to_string(clock);
  out += ", unit: " + u + ")\n";

  if (regions.empty()) {
    out += "\nNothing was measured.\n";
  } else {
    const region_result& r = regions.front();
    out += "\n1) Parallelism Profile\n";
    struct line {
      const char* name;
      std::string value;
      bool timed;
    };
    const line lines[] = {
        {"Work:", io::grouped(r.work), true},
        {"Span:", io::grouped(r.span), true},
        {"Burdened span:", io::grouped(r.burdened_span), true},
        {"Parallelism:", io::ratio_text(r.span, r.parallelism()), false},
        {"Burdened parallelism:", io::ratio_text(r.burdened_span, r.burdened_parallelism()), false},
        {"Spawns:", io::grouped(r.spawns), false},
        {"Syncs:", io::grouped(r.syncs), false},
        {"Average maximal strand:", io::grouped_round(r.average_maximal_strand()), true},
    };
    // Integer parts right-aligned, so ratios line up with the counts above them.
    std::size_t int_width = 0;
    for (const auto& l : lines) {
      const std::size_t w = l.value.find('.') == std::string::npos ? l.value.size() : l.value.find('.');
      if (w > int_width) int_width = w;
    }
    for (const auto& l : lines) {
      const std::size_t dot = l.value.find('.');
      const std::size_t w = dot == std::string::npos ? l.value.size() : dot;
      out += "  " + io::pad_right(l.name, 24) + std::string(int_width - w, ' ') + l.value;
      if (l.timed) out += " " + u;
      out += '\n';
    }

    out += "\n2) Speedup Estimate\n";
    const std::vector<speedup_bound> bounds = r.speedup_estimate(max_processors);
    if (bounds.empty()) {
      out += "  (none: max_processors is below 2)\n";
    } else if (r.span == 0) {
      out += "  (none: the span is zero)\n";
    } else {
      const std::size_t p_width = std::to_string(bounds.back().processors).size();
      std::size_t lower_width = 0;
      for (const auto& b : bounds) {
        const std::size_t w = io::fixed(b.lower, 2).size();
        if (w > lower_width) lower_width = w;
      }
      for (const auto& b : bounds) {
        out += "  " + io::pad_left(std::to_string(b.processors), p_width) + " processors:  " +
               io::pad_left(io::fixed(b.lower, 2), lower_width) + " - " + io::fixed(b.upper, 2) + "\n";
      }
    }

    int section = 3;
    if (regions.size() > 1) {
      out += "\n" + std::to_string(section++) + ") Regions (work and span in " + u + ")\n";
      out += io::regions_table(regions);
    }
    for (const auto& s : io::site_sections(*this, 10))
      out += "\n" + std::to_string(section++) + ") " + s.heading + "\n" + s.body;
    const io::text_section wi = io::what_if_section(*this);
    if (!wi.heading.empty()) out += "\n" + std::to_string(section++) + ") " + wi.heading + "\n" + wi.body;
    if (show_raw) {
      out += "\n" + std::to_string(section++) + ") Before overhead compensation (in " + u + ")\n";
      out += io::raw_table(regions);
    }
  }

  out += "\nBurden: " + io::grouped(burden) + " " + u + " per continuation edge";
  if (profiler_bytes > 0) out += "; profiler memory: " + io::bytes_text(profiler_bytes);
  out += ".\n";
  if (compensation_per_strand > 0) {
    out += "Overhead compensation: " + io::fixed(compensation_per_strand, 2) + " " + u +
           " subtracted per strand, " + io::grouped(compensation_total) + " " + u + " in total.\n";
  }

  const std::size_t shown_limit = 10;
  const std::uint64_t count =
      diagnostic_count > diagnostics.size() ? diagnostic_count : diagnostics.size();
  if (count == 0) {
    out += "Diagnostics: none.\n";
  } else {
    const std::size_t shown = diagnostics.size() < shown_limit ? diagnostics.size() : shown_limit;
    out += "Diagnostics: " + io::grouped(count);
    if (shown < count) out += " (the first " + std::to_string(shown) + " shown)";
    out += "\n";
    for (std::size_t i = 0; i < shown; ++i) {
      const diagnostic& d = diagnostics[i];
      out += "  ";
      if (!d.where.empty()) out += io::printable(d.where) + ": ";
      out += io::printable(d.problem) + "\n";
    }
  }
  return out;
}

inline std::string report::to_json() const {
  detail::report_io::json_writer j;
  j.begin_object();
  j.member("schema", "forkscale.report");
  j.member("schema_version", std::uint64_t{1});
  j.member("forkscale_version", FORKSCALE_VERSION_STRING);
  j.member("label", label);
  j.member("unit", unit);
  j.member("clock", to_string(clock));
  j.member("burden", burden);
  j.member("compensation_per_strand", compensation_per_strand);
  j.member("compensation_total", compensation_total);
  j.member("max_processors", static_cast<std::uint64_t>(max_processors));
  j.member("profiler_bytes", static_cast<std::uint64_t>(profiler_bytes));
  j.key("regions");
  j.begin_array();
  for (const auto& r : regions) {
    j.begin_object();
    j.member("label", r.label);
    j.member("path", r.path);
    j.member("parent", r.parent);
    j.member("depth", static_cast<std::uint64_t>(r.depth));
    j.member("instances", r.instances);
    j.member("work", r.work);
    j.member("span", r.span);
    j.member("burdened_span", r.burdened_span);
    j.member("parallelism", r.parallelism());
    j.member("burdened_parallelism", r.burdened_parallelism());
    j.member("spawns", r.spawns);
    j.member("syncs", r.syncs);
    j.member("calls", r.calls);
    j.member("average_maximal_strand", r.average_maximal_strand());
    j.member("raw_work", r.raw_work);
    j.member("raw_span", r.raw_span);
    j.key("speedup_estimate");
    j.begin_array();
    for (const auto& b : r.speedup_estimate(max_processors)) {
      j.begin_object();
      j.member("processors", static_cast<std::uint64_t>(b.processors));
      j.member("lower", b.lower);
      j.member("upper", b.upper);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  namespace io = detail::report_io;
  const auto measure = [&j](const char* name, const site_measure& m) {
    j.key(name);
    j.begin_object();
    j.member("count", m.count);
    j.member("work", m.work);
    j.key("span");
    j.value_raw(io::json_signed(m.span));
    j.member("parallelism", m.parallelism());
    j.end_object();
  };
  const auto site = [&j](const std::string& name, site_kind kind, const std::string& file, unsigned line,
                         const std::string& function, const std::string& tag, bool recursive) {
    j.member("name", name);
    j.member("kind", to_string(kind));
    j.member("file", file);
    j.member("line", static_cast<std::uint64_t>(line));
    j.member("function", function);
    j.member("tag", tag);
    j.key("recursive");
    j.value_raw(io::bool_text(recursive));
  };
  j.key("call_sites");
  j.begin_array();
  for (const auto& c : call_sites) {
    j.begin_object();
    site(c.name, c.kind, c.file, c.line, c.function, c.tag, c.recursive);
    measure("top_call_site_on_work", c.top_call_site_on_work);
    measure("top_caller_on_work", c.top_caller_on_work);
    measure("local_on_work", c.local_on_work);
    measure("top_call_site_on_span", c.top_call_site_on_span);
    measure("top_caller_on_span", c.top_caller_on_span);
    measure("local_on_span", c.local_on_span);
    j.end_object();
  }
  j.end_array();
  j.key("spawn_sites");
  j.begin_array();
  for (const auto& p : spawn_sites) {
    j.begin_object();
    site(p.name, p.kind, p.file, p.line, p.function, p.tag, p.recursive);
    j.member("tasks", p.tasks);
    j.member("work", p.work);
    j.member("span", p.span);
    j.member("parallelism", p.parallelism());
    j.member("exclusive_work", p.exclusive_work);
    j.key("critical_span");
    j.value_raw(io::json_signed(p.critical_span));
    j.member("critical_percent", p.critical_percent);
    j.end_object();
  }
  j.end_array();
  j.key("what_if");
  j.begin_array();
  for (const auto& w : what_if) {
    j.begin_object();
    j.member("region", w.region);
    j.member("source", to_string(w.source));
    j.member("file", w.file);
    j.member("line", static_cast<std::uint64_t>(w.line));
    j.member("function", w.function);
    j.member("tag", w.tag);
    j.member("model", to_string(w.model));
    j.key("factor");
    j.value_raw(io::json_unbounded(w.factor));
    j.key("executed");
    j.value_raw(io::bool_text(w.executed));
    j.member("entries", w.entries);
    j.member("region_work", w.region_work);
    j.member("work", w.work);
    j.member("span", w.span);
    j.member("burdened_span", w.burdened_span);
    j.key("parallelism");
    j.value_raw(io::json_unbounded(w.parallelism));
    j.key("gain");
    j.value_raw(io::json_unbounded(w.gain));
    j.key("span_ticks_num");
    j.value_raw(io::json_signed(w.span_ticks_num));
    j.key("span_ticks_den");
    j.value_raw(io::json_signed(w.span_ticks_den));
    j.end_object();
  }
  j.end_array();
  j.member("diagnostic_count", diagnostic_count);
  j.key("diagnostics");
  j.begin_array();
  for (const auto& d : diagnostics) {
    j.begin_object();
    j.member("where", d.where);
    j.member("problem", d.problem);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.finish();
}

inline std::string report::to_csv() const {
  namespace io = detail::report_io;
  std::string out =
      "label,path,parent,depth,instances,work,span,burdened_span,parallelism,"
      "burdened_parallelism,spawns,syncs,calls,average_maximal_strand,raw_work,raw_span,"
      "unit,clock\n";
  const std::string unit_field = io::csv_text(unit);
  const std::string clock_field = io::csv_text(to_string(clock));
  for (const auto& r : regions) {
    const std::string fields[] = {
        io::csv_text(r.label),
        io::csv_text(r.path),
        io::csv_text(r.parent),
        io::csv_number(static_cast<std::uint64_t>(r.depth)),
        io::csv_number(r.instances),
        io::csv_number(r.work),
        io::csv_number(r.span),
        io::csv_number(r.burdened_span),
        io::csv_number(r.parallelism()),
        io::csv_number(r.burdened_parallelism()),
        io::csv_number(r.spawns),
        io::csv_number(r.syncs),
        io::csv_number(r.calls),
        io::csv_number(r.average_maximal_strand()),
        io::csv_number(r.raw_work),
        io::csv_number(r.raw_span),
        unit_field,
        clock_field,
    };
    bool first = true;
    for (const auto& f : fields) {
      if (!first) out += ',';
      first = false;
      out += f;
    }
    out += '\n';
  }
  return out;
}

inline std::string report::call_sites_csv() const {
  namespace io = detail::report_io;
  std::string out = io::site_csv_identity();
  for (const char* m : {"top_call_site_on_work", "top_caller_on_work", "local_on_work", "top_call_site_on_span",
                        "top_caller_on_span", "local_on_span"})
    for (const char* f : {"count", "work", "span", "parallelism"}) out += std::string(",") + m + "_" + f;
  out += ",unit,clock\n";
  const std::string tail = "," + io::csv_text(unit) + "," + io::csv_text(to_string(clock)) + "\n";
  for (const auto& c : call_sites) {
    io::csv_site_identity(out, c.name, c.kind, c.file, c.line, c.function, c.tag, c.recursive);
    for (const site_measure* m : {&c.top_call_site_on_work, &c.top_caller_on_work, &c.local_on_work,
                                  &c.top_call_site_on_span, &c.top_caller_on_span, &c.local_on_span})
      io::csv_measure(out, *m);
    out += tail;
  }
  return out;
}

inline std::string report::spawn_sites_csv() const {
  namespace io = detail::report_io;
  std::string out = std::string(io::site_csv_identity()) +
                    ",tasks,work,span,parallelism,exclusive_work,critical_span,critical_percent,unit,clock\n";
  const std::string tail = "," + io::csv_text(unit) + "," + io::csv_text(to_string(clock)) + "\n";
  for (const auto& p : spawn_sites) {
    io::csv_site_identity(out, p.name, p.kind, p.file, p.line, p.function, p.tag, p.recursive);
    out += ',' + io::csv_number(p.tasks) + ',' + io::csv_number(p.work) + ',' + io::csv_number(p.span) + ',' +
           io::csv_number(p.parallelism()) + ',' + io::csv_number(p.exclusive_work) + ',' +
           io::csv_signed(p.critical_span) + ',' + io::csv_number(p.critical_percent);
    out += tail;
  }
  return out;
}

inline std::string report::what_if_csv() const {
  namespace io = detail::report_io;
  std::string out =
      "region,source,file,line,function,tag,model,factor,executed,entries,region_work,work,span,burdened_span,"
      "parallelism,gain,span_ticks_num,span_ticks_den,unit,clock\n";
  const std::string tail = "," + io::csv_text(unit) + "," + io::csv_text(to_string(clock)) + "\n";
  for (const auto& w : what_if) {
    out += io::csv_text(w.region) + ',' + io::csv_text(to_string(w.source)) + ',' + io::csv_text(w.file) + ',' +
           io::csv_number(static_cast<std::uint64_t>(w.line)) + ',' + io::csv_text(w.function) + ',' +
           io::csv_text(w.tag) + ',' + io::csv_text(to_string(w.model)) + ',' + io::csv_unbounded(w.factor) + ',' +
           io::bool_text(w.executed) + ',' + io::csv_number(w.entries) + ',' + io::csv_number(w.region_work) + ',' +
           io::csv_number(w.work) + ',' + io::csv_number(w.span) + ',' + io::csv_number(w.burdened_span) + ',' +
           io::csv_unbounded(w.parallelism) + ',' + io::csv_unbounded(w.gain) + ',' +
           io::csv_signed(w.span_ticks_num) + ',' + io::csv_signed(w.span_ticks_den);
    out += tail;
  }
  return out;
}

inline void report::write_what_if_csv(const std::string& path) const {
  detail::write_file_atomically(path, what_if_csv());
}

inline void report::write_call_sites_csv(const std::string& path) const {
  detail::write_file_atomically(path, call_sites_csv());
}

inline void report::write_spawn_sites_csv(const std::string& path) const {
  detail::write_file_atomically(path, spawn_sites_csv());
}

inline void report::write_text(const std::string& path, bool show_raw) const {
  detail::write_file_atomically(path, to_text(show_raw));
}

inline void report::write_json(const std::string& path) const {
  detail::write_file_atomically(path, to_json());
}

inline void report::write_csv(const std::string& path) const {
  detail::write_file_atomically(path, to_csv());
}

inline std::ostream& operator<<(std::ostream& os, const report& r) { return os << r.to_text(false); }

FORKSCALE_NAMESPACE_END
