// detail/output/utf8.hpp: text as the writers put it out: ill-formed UTF-8
// repaired, control characters escaped, and widths, cuts and padding measured in
// terminal columns.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "../../config.hpp"
#include "../util/atomic_file.hpp"  // printable_path

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

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
      if (b0 == 0xE0) lo = 0xA0;  // no overlong forms
      if (b0 == 0xED) hi = 0x9F;  // no surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      len = 4;
      if (b0 == 0xF0) lo = 0x90;  // no overlong forms
      if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    } else {
      out += replacement;  // 80..C1, F5..FF never start a character
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
      out += replacement;  // the maximal subpart s[i, i+k)
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

inline std::string pad_left(const std::string& s, std::size_t width) {
  const std::size_t w = display_width(s);
  return w >= width ? s : std::string(width - w, ' ') + s;
}

inline std::string pad_right(const std::string& s, std::size_t width) {
  const std::size_t w = display_width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

}  // namespace output
}  // namespace detail
FORKSCALE_NAMESPACE_END
