// detail/input/json_reader.hpp: a small, strict JSON parser for reading
// forkscale's own files back (reports, studies).
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
//
// The parsed value and typed access to it are in json_value.hpp.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "json_value.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace json {

// Bounds on what one document may cost: its size, its nesting (the parser
// recurses once per level) and its number of values (each takes ~100 bytes of
// memory, so "[0,0,0,...]" cannot turn a file into fifty times its size). They
// are set for recorded reports, about 12 values and 60 bytes a strand: a
// record of 1.5 million strands reads back in about 2 GiB.
struct limits {
  std::size_t max_bytes = std::size_t(256) << 20;  // 256 MiB
  unsigned max_depth = 64;                         // nested arrays and objects
  std::size_t max_values = 20'000'000;
};

class parser {
 public:
  parser(const std::string& text, const limits& lim) : s_(text), lim_(lim) {}

  value parse() {
    if (s_.size() > lim_.max_bytes)
      throw json_error(0, "the input is " + std::to_string(s_.size()) + " bytes, more than the limit of " +
                              std::to_string(lim_.max_bytes));
    if (s_.empty()) throw json_error(0, "the input is empty");
    if (s_.size() >= 3 && static_cast<unsigned char>(s_[0]) == 0xEF && static_cast<unsigned char>(s_[1]) == 0xBB &&
        static_cast<unsigned char>(s_[2]) == 0xBF)
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
      throw json_error(pos_, "arrays and objects nested more than " + std::to_string(lim_.max_depth) + " deep");
  }

  // Past the '[' or '{' that opens `v`, an array or object `k` at `depth`: true
  // when `close` follows at once (the value is empty and done).
  bool open_is_empty(value& v, kind k, unsigned char close, unsigned depth) {
    check_depth(depth);
    v.type = k;
    ++pos_;  // '[' or '{'
    skip_ws();
    if (!at_end() && peek() == close) {
      ++pos_;
      return true;
    }
    return false;
  }

  void parse_array(value& v, unsigned depth) {
    if (open_is_empty(v, kind::array, ']', depth)) return;
    do {
      v.items.emplace_back();
      parse_value(v.items.back(), depth);
    } while (more_elements(']', "expected ',' or ']' in an array",
                           "expected a value after ',' (trailing commas are not allowed)"));
  }

  void parse_object(value& v, unsigned depth) {
    if (open_is_empty(v, kind::object, '}', depth)) return;
    do {
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
    } while (more_elements('}', "expected ',' or '}' in an object",
                           "expected a key after ',' (trailing commas are not allowed)"));
    check_duplicates(v);
  }

  // After an element of an array or an object: true past a ',' (another element
  // follows), false past the `close` that ends it; anything else fails with
  // `expected`, and a `close` right after a ',' with `trailing`.
  bool more_elements(unsigned char close, const char* expected, const char* trailing) {
    skip_ws();
    if (at_end()) fail(expected);
    if (peek() == ',') {
      ++pos_;
      skip_ws();
      if (!at_end() && peek() == close) fail(trailing);
      return true;
    }
    if (peek() == close) {
      ++pos_;
      return false;
    }
    fail(expected);
  }

  static void check_duplicates(const value& v) {
    const auto& ms = v.members;
    if (ms.size() < 2) return;
    std::vector<std::size_t> order(ms.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ms[a].key < ms[b].key; });
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
      if (h >= '0' && h <= '9')
        d = h - '0';
      else if (h >= 'a' && h <= 'f')
        d = h - 'a' + 10;
      else if (h >= 'A' && h <= 'F')
        d = h - 'A' + 10;
      else
        fail("expected four hex digits after \\u");
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
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) throw json_error(start, "invalid UTF-8 in a string");
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
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
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
inline value parse(const std::string& text, const limits& lim = limits{}) { return parser(text, lim).parse(); }

}  // namespace json
}  // namespace detail
FORKSCALE_NAMESPACE_END
