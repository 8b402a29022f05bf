// bench_common.hpp: helpers shared by the benchmark drivers bench_engine.cpp and
// bench_overhead.cpp (benchmark code, not part of the forkscale library):
//   - the machine and build description: trim, cpu_model, read_first_line (e.g.
//     /proc/loadavg), cores, compiler_string, sanitizer_name (and the macro
//     BENCH_SANITIZED), utc_now;
//   - median;
//   - json_out: the library's JSON writer (forkscale::detail), with the values the
//     benchmarks write besides its own (numbers as %.6g; null when not finite);
//   - write_results_file: the library's atomic file write, into a directory it
//     creates;
//   - help_or_unknown_argument, the last branch of the argument loops.
#pragma once

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include <forkscale/detail/output/report_writers.hpp>  // json_writer
#include <forkscale/detail/util/atomic_file.hpp>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BENCH_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define BENCH_SANITIZED 1
#endif
#endif
#ifndef BENCH_SANITIZED
#define BENCH_SANITIZED 0
#endif

namespace bench_common {

// ============================================================================
// Statistics and strings
// ============================================================================
inline double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

inline std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// ============================================================================
// Machine and build description
// ============================================================================
inline std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return trim(line.substr(colon + 1));
    }
  }
  return "unknown";
}

// The first line of a file, trimmed ("" when it cannot be read).
inline std::string read_first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return "";
  return trim(line);
}

// The CPUs this process may run on.
inline unsigned cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(CPU_COUNT(&set));
  const unsigned hw = std::thread::hardware_concurrency();
  return hw ? hw : 1;
}

inline std::string compiler_string() {
#if defined(__clang__)
  return std::string("clang++ ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return "unknown";
#endif
}

inline const char* sanitizer_name() {
#if defined(__SANITIZE_ADDRESS__)
  return "address";
#elif defined(__SANITIZE_THREAD__)
  return "thread";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return "address";
#elif __has_feature(thread_sanitizer)
  return "thread";
#else
  return "none";
#endif
#else
  return "none";
#endif
}

inline std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// ============================================================================
// JSON output
// ============================================================================
// The library's streaming JSON writer (pretty-printed, two-space indentation), with
// what the benchmarks write besides its strings and unsigned integers: members by
// key in one call, signed integers, booleans, null, and numbers with 6 significant
// digits (null when not finite), as the results have always had them.
class json_out {
 public:
  // A key only inside an object; none for the document or an array element.
  json_out& begin_object(const char* key = nullptr) {
    if (key) w_.key(key);
    w_.begin_object();
    return *this;
  }
  json_out& begin_array(const char* key = nullptr) {
    if (key) w_.key(key);
    w_.begin_array();
    return *this;
  }
  json_out& end_object() {
    w_.end_object();
    return *this;
  }
  json_out& end_array() {
    w_.end_array();
    return *this;
  }

  json_out& kv(const char* key, const std::string& v) { return member(key, v); }
  json_out& kv(const char* key, const char* v) { return member(key, std::string(v)); }
  json_out& kv(const char* key, double v) { return raw(key, number(v)); }
  json_out& kv(const char* key, bool v) { return raw(key, v ? "true" : "false"); }
  template <class T, std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, bool>::value, int> = 0>
  json_out& kv(const char* key, T v) {
    if constexpr (std::is_signed<T>::value)
      return raw(key, std::to_string(v));
    else
      return member(key, static_cast<std::uint64_t>(v));
  }
  json_out& null(const char* key) { return raw(key, "null"); }
  // An array of numbers.
  json_out& numbers(const char* key, const std::vector<double>& v) {
    begin_array(key);
    for (const double d : v) w_.value_raw(number(d));
    return end_array();
  }
  // An array of strings.
  json_out& strings(const char* key, const std::vector<std::string>& v) {
    begin_array(key);
    for (const auto& s : v) w_.value(s);
    return end_array();
  }

  // The document, ended by a newline.
  std::string str() { return w_.finish(); }

  // `d` with 6 significant digits, or null when it is not finite.
  static std::string number(double d) {
    if (!std::isfinite(d)) return "null";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", d);
    return buf;
  }

 private:
  template <class T>
  json_out& member(const char* key, const T& v) {
    w_.member(key, v);
    return *this;
  }
  json_out& raw(const char* key, const std::string& text) {
    w_.key(key);
    w_.value_raw(text);
    return *this;
  }

  forkscale::detail::output::json_writer w_;
};

// ============================================================================
// Output files
// ============================================================================
// Writes `text` to PATH in one step (forkscale::detail::write_file_atomically: a
// temporary file renamed onto PATH), creating PATH's directory first. On failure:
// false, with the reason in `err`, and no temporary file left behind.
inline bool write_results_file(const std::string& path, const std::string& text, std::string& err) {
  namespace sfs = std::filesystem;
  std::error_code ec;
  const sfs::path p(path);
  if (p.has_parent_path()) {
    sfs::create_directories(p.parent_path(), ec);
    if (ec) {
      err = "cannot create directory '" + p.parent_path().string() + "': " + ec.message();
      return false;
    }
  }
  try {
    forkscale::detail::write_file_atomically(path, text);
  } catch (const forkscale::error& e) {
    err = e.what();
    return false;
  }
  return true;
}

// ============================================================================
// Command line
// ============================================================================
// For an argument no other branch took: -h or --help prints the usage (main
// returns 0); anything else is reported as unknown (main returns 2).
inline int help_or_unknown_argument(const char* program, const std::string& arg, const char* usage) {
  if (arg == "-h" || arg == "--help") {
    std::printf("%s\n", usage);
    return 0;
  }
  std::fprintf(stderr, "%s: unknown argument '%s' (%s)\n", program, arg.c_str(), usage);
  return 2;
}

}  // namespace bench_common
