// detail/output/json_writer.hpp: the pieces every JSON file forkscale writes is
// made of: string and number literals, and a pretty-printing writer.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "format.hpp"
#include "utf8.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

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
               (static_cast<unsigned char>(v[i + 2]) == 0xA8 || static_cast<unsigned char>(v[i + 2]) == 0xA9)) {
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
inline std::string json_signed(std::int64_t v) { return std::to_string(v); }

// A number that may be +infinity (a what-if factor, parallelism or gain): the
// number, the string "inf" for +infinity, null for anything else that is not
// finite.
inline std::string json_unbounded(double v) {
  if (std::isinf(v) && v > 0) return "\"inf\"";
  return json_number(v);
}

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

}  // namespace output
}  // namespace detail
FORKSCALE_NAMESPACE_END
