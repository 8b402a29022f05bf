// detail/json_reader.hpp: a small, strict JSON parser for reading forkscale's own
// files back (reports, studies).
//
// Strict RFC 8259: one value with optional whitespace around it; no comments, no
// trailing commas, no byte order mark, no NaN or Infinity, no leading zeros, no
// unescaped control characters, strings must be well-formed UTF-8 and \u escapes
// must pair their surrogates; an object may not repeat a key. Limits on the input
// size and on the nesting depth keep memory and stack use bounded whatever the
// input, and every problem is reported as a json_error: a one-line message with
// the byte offset where it was found ("byte 812: expected ':' after an object
// key"). No input makes the parser crash, loop or read out of bounds (fuzzed in
// tests/test_json_reader.cpp under ASan and UBSan).
#pragma once
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace json {

// A syntax or schema problem, at a byte offset of the input. what() is
// "byte <offset>: <problem>", one line.
class json_error : public error {
 public:
  json_error(std::size_t offset, const std::string& problem)
      : error("byte " + std::to_string(offset) + ": " + problem), offset_(offset), problem_(problem) {}
  std::size_t offset() const noexcept { return offset_; }
  const std::string& problem() const noexcept { return problem_; }

 private:
  std::size_t offset_;
  std::string problem_;
};

enum class kind : unsigned char { null, boolean, number, string, array, object };

inline const char* kind_name(kind k) noexcept {
  switch (k) {
    case kind::null: return "null";
    case kind::boolean: return "a boolean";
    case kind::number: return "a number";
    case kind::string: return "a string";
    case kind::array: return "an array";
    case kind::object: return "an object";
  }
  return "a value";
}

struct member;

// One parsed value. Numbers keep their text (exact integers are read from it);
// objects keep their members in file order.
struct value {
  kind type = kind::null;
  bool boolean = false;
  std::string text;              // the decoded string, or the number as written
  std::vector<value> items;      // array elements
  std::vector<member> members;   // object members, in file order
  std::size_t offset = 0;        // byte offset of the value's first character

  bool is(kind k) const noexcept { return type == k; }
  inline const value* find(const std::string& key) const noexcept;
};

struct member {
  std::string key;
  std::size_t key_offset = 0;
  value v;
};

inline const value* value::find(const std::string& key) const noexcept {
  for (const auto& m : members)
    if (m.key == key) return &m.v;
  return nullptr;
}

// Bounds on what one document may cost: its size, its nesting (the parser
// recurses once per level) and its number of values (each takes ~100 bytes of
// memory, so "[0,0,0,...]" cannot turn a file into fifty times its size).
struct limits {
  std::size_t max_bytes = std::size_t(32) << 20;  // 32 MiB
  unsigned max_depth = 64;                        // nested arrays and objects
  std::size_t max_values = 2'000'000;
};

// Text as it may appear inside a one-line message: printable ASCII kept, other
// bytes as \xNN, cut to `max` characters with "..." marking the cut.
inline std::string quote_for_message(const std::string& s, std::size_t max = 40) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (out.size() >= max) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xf];
    }
  }
  return "'" + out + "'";
}

class parser {
 public:
  parser(const std::string& text, const limits& lim) : s_(text), lim_(lim) {}

  value parse() {
    if (s_.size() > lim_.max_bytes)
      throw json_error(0, "the input is " + std::to_string(s_.size()) + " bytes, more than the limit of " +
                              std::to_string(lim_.max_bytes));
    if (s_.empty()) throw json_error(0, "the input is empty");
    if (s_.size() >= 3 && static_cast<unsigned char>(s_[0]) == 0xEF &&
        static_cast<unsigned char>(s_[1]) == 0xBB && static_cast<unsigned char>(s_[2]) == 0xBF)
      throw json_error(0, "a byte order mark is not allowed");
    skip_ws();
    if (at_end()) throw json_error(pos_, "the input holds only whitespace");
    value v;
    parse_value(v, 0);
    skip_ws();
    if (!at_end()) throw json_error(pos_, "unexpected " + describe_here() + " after the JSON value");
    return v;
  }

 private:
  bool at_end() const noexcept { return pos_ >= s_.size(); }
  unsigned char peek() const noexcept { return static_cast<unsigned char>(s_[pos_]); }

  std::string describe_here() const {
    if (at_end()) return "end of input";
    const unsigned char c = peek();
    if (c >= 0x21 && c < 0x7f) return std::string("character '") + static_cast<char>(c) + "'";
    static const char hex[] = "0123456789abcdef";
    std::string b = "byte 0x";
    b += hex[c >> 4];
    b += hex[c & 0xf];
    return b;
  }

  [[noreturn]] void fail(const std::string& what) const {
    if (at_end()) throw json_error(pos_, "unexpected end of input: " + what);
    throw json_error(pos_, what + ", found " + describe_here());
  }

  void skip_ws() noexcept {
    while (!at_end()) {
      const unsigned char c = peek();
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }

  void expect_literal(const char* word, std::size_t len) {
    if (s_.compare(pos_, len, word) != 0) fail("expected a JSON value");
    pos_ += len;
  }

  void parse_value(value& v, unsigned depth) {
    if (at_end()) fail("expected a JSON value");
    if (++values_ > lim_.max_values)
      throw json_error(pos_, "more than " + std::to_string(lim_.max_values) + " values in one document");
    v.offset = pos_;
    switch (peek()) {
      case '{':
        parse_object(v, depth + 1);
        return;
      case '[':
        parse_array(v, depth + 1);
        return;
      case '"':
        v.type = kind::string;
        parse_string(v.text);
        return;
      case 't':
        expect_literal("true", 4);
        v.type = kind::boolean;
        v.boolean = true;
        return;
      case 'f':
        expect_literal("false", 5);
        v.type = kind::boolean;
        v.boolean = false;
        return;
      case 'n':
        expect_literal("null", 4);
        v.type = kind::null;
        return;
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) {
          v.type = kind::number;
          parse_number(v.text);
          return;
        }
        fail("expected a JSON value");
    }
  }

  void check_depth(unsigned depth) const {
    if (depth > lim_.max_depth)
      throw json_error(pos_, "arrays and objects nested more than " + std::to_string(lim_.max_depth) +
                                 " deep");
  }

  void parse_array(value& v, unsigned depth) {
    check_depth(depth);
    v.type = kind::array;
    ++pos_;  // '['
    skip_ws();
    if (!at_end() && peek() == ']') {
      ++pos_;
      return;
    }
    for (;;) {
      v.items.emplace_back();
      parse_value(v.items.back(), depth);
      skip_ws();
      if (at_end()) fail("expected ',' or ']' in an array");
      if (peek() == ',') {
        ++pos_;
        skip_ws();
        if (!at_end() && peek() == ']') fail("expected a value after ',' (trailing commas are not allowed)");
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return;
      }
      fail("expected ',' or ']' in an array");
    }
  }

  void parse_object(value& v, unsigned depth) {
    check_depth(depth);
    v.type = kind::object;
    ++pos_;  // '{'
    skip_ws();
    if (!at_end() && peek() == '}') {
      ++pos_;
      return;
    }
    for (;;) {
      if (at_end() || peek() != '"') fail("expected a string as object key");
      member m;
      m.key_offset = pos_;
      parse_string(m.key);
      skip_ws();
      if (at_end() || peek() != ':') fail("expected ':' after an object key");
      ++pos_;
      skip_ws();
      v.members.push_back(std::move(m));
      parse_value(v.members.back().v, depth);
      skip_ws();
      if (at_end()) fail("expected ',' or '}' in an object");
      if (peek() == ',') {
        ++pos_;
        skip_ws();
        if (!at_end() && peek() == '}') fail("expected a key after ',' (trailing commas are not allowed)");
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        break;
      }
      fail("expected ',' or '}' in an object");
    }
    check_duplicates(v);
  }

  static void check_duplicates(const value& v) {
    const auto& ms = v.members;
    if (ms.size() < 2) return;
    std::vector<std::size_t> order(ms.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return ms[a].key < ms[b].key; });
    const member* dup = nullptr;
    for (std::size_t i = 1; i < order.size(); ++i) {
      if (ms[order[i]].key == ms[order[i - 1]].key) {
        const member* later = &ms[order[i]];
        if (!dup || later->key_offset < dup->key_offset) dup = later;
      }
    }
    if (dup) throw json_error(dup->key_offset, "duplicate object key " + quote_for_message(dup->key));
  }

  static void append_utf8(std::string& out, std::uint32_t c) {
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }

  std::uint32_t parse_hex4() {
    if (s_.size() - pos_ < 4) {
      pos_ = s_.size();
      fail("expected four hex digits after \\u");
    }
    std::uint32_t c = 0;
    for (int k = 0; k < 4; ++k) {
      const unsigned char h = peek();
      std::uint32_t d;
      if (h >= '0' && h <= '9') d = h - '0';
      else if (h >= 'a' && h <= 'f') d = h - 'a' + 10;
      else if (h >= 'A' && h <= 'F') d = h - 'A' + 10;
      else fail("expected four hex digits after \\u");
      c = (c << 4) | d;
      ++pos_;
    }
    return c;
  }

  // Advances over one well-formed UTF-8 character of 2 to 4 bytes, appending it.
  void copy_utf8(std::string& out) {
    const std::size_t start = pos_;
    const unsigned char b0 = peek();
    std::size_t len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      len = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      len = 3;
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      len = 4;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    } else {
      throw json_error(start, "invalid UTF-8 in a string");
    }
    for (std::size_t k = 1; k < len; ++k) {
      if (start + k >= s_.size()) throw json_error(start, "invalid UTF-8 in a string (cut short)");
      const auto b = static_cast<unsigned char>(s_[start + k]);
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF))
        throw json_error(start, "invalid UTF-8 in a string");
    }
    out.append(s_, start, len);
    pos_ = start + len;
  }

  void parse_string(std::string& out) {
    const std::size_t start = pos_;
    ++pos_;  // '"'
    for (;;) {
      if (at_end()) throw json_error(start, "unterminated string");
      const unsigned char c = peek();
      if (c == '"') {
        ++pos_;
        return;
      }
      if (c < 0x20) fail("control character inside a string (must be escaped)");
      if (c >= 0x80) {
        copy_utf8(out);
        continue;
      }
      if (c != '\\') {
        out += static_cast<char>(c);
        ++pos_;
        continue;
      }
      ++pos_;
      if (at_end()) throw json_error(start, "unterminated string");
      const unsigned char e = peek();
      ++pos_;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          const std::size_t esc = pos_ - 2;
          std::uint32_t cp = parse_hex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF) throw json_error(esc, "unpaired surrogate in a \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.compare(pos_, 2, "\\u") != 0) throw json_error(esc, "unpaired surrogate in a \\u escape");
            pos_ += 2;
            const std::uint32_t low = parse_hex4();
            if (low < 0xDC00 || low > 0xDFFF) throw json_error(esc, "unpaired surrogate in a \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          pos_ -= 1;
          fail("invalid escape in a string");
      }
    }
  }

  void parse_number(std::string& out) {
    const std::size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (at_end() || !(peek() >= '0' && peek() <= '9')) fail("expected a digit in a number");
    if (peek() == '0') {
      ++pos_;
      if (!at_end() && peek() >= '0' && peek() <= '9') fail("leading zeros are not allowed in a number");
    } else {
      while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
    }
    if (!at_end() && peek() == '.') {
      ++pos_;
      if (at_end() || !(peek() >= '0' && peek() <= '9')) fail("expected a digit after the decimal point");
      while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
    }
    if (!at_end() && (peek() == 'e' || peek() == 'E')) {
      ++pos_;
      if (!at_end() && (peek() == '+' || peek() == '-')) ++pos_;
      if (at_end() || !(peek() >= '0' && peek() <= '9')) fail("expected a digit in the exponent");
      while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
    }
    out.assign(s_, start, pos_ - start);
  }

  const std::string& s_;
  limits lim_;
  std::size_t pos_ = 0;
  std::size_t values_ = 0;
};

// Parses `text` as one JSON document; throws json_error.
inline value parse(const std::string& text, const limits& lim = limits{}) {
  return parser(text, lim).parse();
}

// ---- typed access -------------------------------------------------------------

// True when the number is written as a plain non-negative integer that fits 64
// bits; the value goes to `out`.
inline bool number_as_u64(const value& v, std::uint64_t& out) noexcept {
  if (v.type != kind::number || v.text.empty()) return false;
  for (const char c : v.text)
    if (c < '0' || c > '9') return false;
  const char* first = v.text.data();
  const char* last = first + v.text.size();
  const auto r = std::from_chars(first, last, out);
  return r.ec == std::errc() && r.ptr == last;
}

// True when the number is written as a plain integer (an optional '-', then
// digits) that fits a signed 64-bit integer; the value goes to `out`.
inline bool number_as_i64(const value& v, std::int64_t& out) noexcept {
  if (v.type != kind::number || v.text.empty()) return false;
  const std::size_t digits = v.text[0] == '-' ? 1 : 0;
  if (digits == v.text.size()) return false;
  for (std::size_t i = digits; i < v.text.size(); ++i)
    if (v.text[i] < '0' || v.text[i] > '9') return false;
  const char* first = v.text.data();
  const char* last = first + v.text.size();
  const auto r = std::from_chars(first, last, out);
  return r.ec == std::errc() && r.ptr == last;
}

// The number as the nearest double; false when it is out of range.
inline bool number_as_double(const value& v, double& out) noexcept {
  if (v.type != kind::number || v.text.empty()) return false;
  const char* first = v.text.data();
  const char* last = first + v.text.size();
  const auto r = std::from_chars(first, last, out);
  return r.ec == std::errc() && r.ptr == last && std::isfinite(out);
}

// Reads the members of one object with a path for messages ("regions[2]"):
// each accessor throws json_error naming the member and what was wrong.
class object_reader {
 public:
  object_reader(const value& v, std::string where) : v_(v), where_(std::move(where)) {
    if (!v.is(kind::object))
      throw json_error(v.offset, (where_.empty() ? std::string("top level") : where_) +
                                     ": expected an object, found " + kind_name(v.type));
  }

  const value& obj() const noexcept { return v_; }
  const std::string& where() const noexcept { return where_; }
  std::string path(const char* key) const { return where_.empty() ? std::string(key) : where_ + "." + key; }

  const value* optional(const char* key) const noexcept { return v_.find(key); }

  const value& required(const char* key) const {
    const value* m = v_.find(key);
    if (!m)
      throw json_error(v_.offset, (where_.empty() ? std::string("top level") : where_) +
                                      ": missing key '" + key + "'");
    return *m;
  }

  [[noreturn]] void wrong(const char* key, const value& m, const char* expected) const {
    throw json_error(m.offset, path(key) + ": expected " + expected + ", found " + kind_name(m.type));
  }

  std::uint64_t u64(const char* key) const {
    const value& m = required(key);
    std::uint64_t out = 0;
    if (number_as_u64(m, out)) return out;
    if (m.is(kind::number))
      throw json_error(m.offset, path(key) + ": expected an unsigned 64-bit integer, found " +
                                     quote_for_message(m.text));
    wrong(key, m, "an unsigned integer");
  }

  std::int64_t i64(const char* key) const {
    const value& m = required(key);
    std::int64_t out = 0;
    if (number_as_i64(m, out)) return out;
    if (m.is(kind::number))
      throw json_error(m.offset, path(key) + ": expected a signed 64-bit integer, found " +
                                     quote_for_message(m.text));
    wrong(key, m, "an integer");
  }

  unsigned u32(const char* key) const {
    const value& m = required(key);
    const std::uint64_t v = u64(key);
    if (v > 0xFFFFFFFFu)
      throw json_error(m.offset, path(key) + ": " + std::to_string(v) + " is too large");
    return static_cast<unsigned>(v);
  }

  // A number, or null (NaN) when `null_ok`.
  double number(const char* key, bool null_ok = false) const {
    const value& m = required(key);
    return number_of(m, path(key), null_ok);
  }

  static double number_of(const value& m, const std::string& where, bool null_ok) {
    if (m.is(kind::null) && null_ok) return std::nan("");
    if (!m.is(kind::number))
      throw json_error(m.offset, where + ": expected a number" + (null_ok ? " or null" : "") + ", found " +
                                     kind_name(m.type));
    double d = 0;
    if (!number_as_double(m, d))
      throw json_error(m.offset, where + ": the number " + quote_for_message(m.text) + " is out of range");
    return d;
  }

  std::string str(const char* key) const {
    const value& m = required(key);
    if (!m.is(kind::string)) wrong(key, m, "a string");
    return m.text;
  }

  bool boolean(const char* key) const {
    const value& m = required(key);
    if (!m.is(kind::boolean)) wrong(key, m, "true or false");
    return m.boolean;
  }

  const value& array(const char* key) const {
    const value& m = required(key);
    if (!m.is(kind::array)) wrong(key, m, "an array");
    return m;
  }

  const value& object(const char* key) const {
    const value& m = required(key);
    if (!m.is(kind::object)) wrong(key, m, "an object");
    return m;
  }

 private:
  const value& v_;
  std::string where_;
};

// Checks a number the file states against the same number recomputed from the
// file's own data (relative tolerance 1e-9; both NaN counts as equal).
inline void check_derived(const value& at, const std::string& where, double stated, double recomputed) {
  if (std::isnan(stated) && std::isnan(recomputed)) return;
  const double scale = std::max(std::fabs(stated), std::fabs(recomputed));
  if (std::isnan(stated) || std::isnan(recomputed) || std::fabs(stated - recomputed) > 1e-9 * scale + 1e-300) {
    std::string a = std::isnan(stated) ? "null" : std::to_string(stated);
    std::string b = std::isnan(recomputed) ? "null" : std::to_string(recomputed);
    throw json_error(at.offset, where + " is " + a + " but the file's own data give " + b +
                                    " (the file is inconsistent)");
  }
}

}  // namespace json
}  // namespace detail
FORKSCALE_NAMESPACE_END
