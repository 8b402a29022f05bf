// detail/input/json_value.hpp: what the JSON reader (json_reader.hpp) gives back:
// a parsed value, the json_error every problem is reported as, and typed access
// to an object's members with messages that say which member was wrong.
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
    case kind::null:
      return "null";
    case kind::boolean:
      return "a boolean";
    case kind::number:
      return "a number";
    case kind::string:
      return "a string";
    case kind::array:
      return "an array";
    case kind::object:
      return "an object";
  }
  return "a value";
}

struct member;

// One parsed value. Numbers keep their text (exact integers are read from it);
// objects keep their members in file order.
struct value {
  kind type = kind::null;
  bool boolean = false;
  std::string text;             // the decoded string, or the number as written
  std::vector<value> items;     // array elements
  std::vector<member> members;  // object members, in file order
  std::size_t offset = 0;       // byte offset of the value's first character

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
      throw json_error(v.offset, (where_.empty() ? std::string("top level") : where_) + ": expected an object, found " +
                                     kind_name(v.type));
  }

  const value& obj() const noexcept { return v_; }
  const std::string& where() const noexcept { return where_; }
  std::string path(const char* key) const { return where_.empty() ? std::string(key) : where_ + "." + key; }

  const value* optional(const char* key) const noexcept { return v_.find(key); }

  const value& required(const char* key) const {
    const value* m = v_.find(key);
    if (!m)
      throw json_error(v_.offset, (where_.empty() ? std::string("top level") : where_) + ": missing key '" + key + "'");
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
      throw json_error(m.offset,
                       path(key) + ": expected an unsigned 64-bit integer, found " + quote_for_message(m.text));
    wrong(key, m, "an unsigned integer");
  }

  std::int64_t i64(const char* key) const {
    const value& m = required(key);
    std::int64_t out = 0;
    if (number_as_i64(m, out)) return out;
    if (m.is(kind::number))
      throw json_error(m.offset, path(key) + ": expected a signed 64-bit integer, found " + quote_for_message(m.text));
    wrong(key, m, "an integer");
  }

  unsigned u32(const char* key) const {
    const value& m = required(key);
    const std::uint64_t v = u64(key);
    if (v > 0xFFFFFFFFu) throw json_error(m.offset, path(key) + ": " + std::to_string(v) + " is too large");
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
      throw json_error(m.offset,
                       where + ": expected a number" + (null_ok ? " or null" : "") + ", found " + kind_name(m.type));
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
    throw json_error(at.offset,
                     where + " is " + a + " but the file's own data give " + b + " (the file is inconsistent)");
  }
}

}  // namespace json
}  // namespace detail
FORKSCALE_NAMESPACE_END
