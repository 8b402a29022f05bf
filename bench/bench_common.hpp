// bench_common.hpp: helpers shared by the benchmark drivers bench_engine.cpp and
// bench_overhead.cpp (benchmark code, not part of the forkscale library):
//   - the machine and build description: trim, cpu_model, read_first_line (e.g.
//     /proc/loadavg), cores, compiler_string, sanitizer_name (and the macro
//     BENCH_SANITIZED), utc_now;
//   - median;
//   - JSON scalars as both JSON writers emit them: json_escape (a quoted string)
//     and json_number (%.6g; null when not finite);
//   - write_file_atomically (FILE.tmp, then renamed);
//   - help_or_unknown_argument, the last branch of the argument loops.
#pragma once

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

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
// JSON scalars
// ============================================================================
// Appends `s` as a quoted JSON string.
inline void json_escape(std::string& out, const std::string& s) {
  out += '"';
  for (const unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

// Appends `d` with 6 significant digits, or null when it is not finite.
inline void json_number(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", d);
    out += buf;
  }
}

// ============================================================================
// Output files
// ============================================================================
// Writes `text` to PATH.tmp (creating PATH's directory), then renames it to PATH.
// On failure: false, with the reason in `err`, and no PATH.tmp left behind.
inline bool write_file_atomically(const std::string& path, const std::string& text, std::string& err) {
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
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      err = "cannot open '" + tmp + "' for writing";
      return false;
    }
    out << text;
    out.flush();
    if (!out) {
      err = "cannot write '" + tmp + "'";
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    err = "cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(errno);
    std::remove(tmp.c_str());
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
