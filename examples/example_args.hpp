// example_args.hpp: the command line shared by the forkscale examples, and the
// code that writes their reports.
//
//   <program> [N] [--backend serial|threads] [--threads T] [--out DIR]
//             [--clock auto|tsc|steady|cost]
//
// Options also take the form --name=value. Any mistake throws usage_error, whose
// message the example prints as one line ("<program>: <message>") before exiting
// with status 2.
#pragma once
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

#include <forkscale/forkscale.hpp>

namespace example_args {

namespace fs = forkscale;

// Where a spawned body runs.
enum class backend {
  serial,   // inline, on the spawning thread: the serial elision
  threads,  // on a new std::thread near the top of the recursion, inline below it
};

inline const char* to_string(backend b) noexcept {
  return b == backend::serial ? "serial" : "threads";
}

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The most threads --threads accepts: the examples start 2^(depth cutoff) - 1
// threads, and the cutoff grows with log2(threads).
inline constexpr std::uint64_t max_threads = 1024;

struct config {
  std::uint64_t n = 0;
  backend be = backend::threads;
  unsigned threads = 1;
  std::string out_dir;  // empty: no files
  fs::clock_kind clock = fs::clock_kind::automatic;
  bool help = false;
};

// A whole string as a decimal integer in [1, max]: no sign, no spaces, no
// trailing characters. `what` names the value in the message.
inline std::uint64_t parse_positive(const std::string& text, std::uint64_t max,
                                    const std::string& what) {
  std::uint64_t v = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  const bool digits_only =
      !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (!digits_only || ec == std::errc::invalid_argument || ptr != last)
    throw usage_error(what + " must be a positive integer (got '" + text + "')");
  if (ec == std::errc::result_out_of_range || v > max)
    throw usage_error(what + " must be at most " + std::to_string(max) + " (got '" + text + "')");
  if (v == 0) throw usage_error(what + " must be a positive integer (got '" + text + "')");
  return v;
}

inline std::string usage(const std::string& program, std::uint64_t default_n) {
  return "usage: " + program +
         " [N] [--backend serial|threads] [--threads T] [--out DIR]"
         " [--clock auto|tsc|steady|cost]\n"
         "  N          problem size (default " + std::to_string(default_n) + ")\n"
         "  --backend  serial: spawned bodies run inline (the serial elision);\n"
         "             threads: on std::threads near the top of the recursion (default)\n"
         "  --threads  the most threads the threads backend runs at once\n"
         "             (default: hardware concurrency)\n"
         "  --out      also write DIR/<name>.json, .csv and .txt (DIR is created)\n"
         "  --clock    auto (default: tsc when invariant), tsc, steady, or cost\n"
         "             (deterministic units charged by the program)\n";
}

// Parses argv. `max_n` bounds N (the message names the bound).
inline config parse(int argc, char** argv, std::uint64_t default_n, std::uint64_t max_n) {
  config c;
  c.n = default_n;
  const unsigned hw = std::thread::hardware_concurrency();
  c.threads = hw == 0 ? 1 : (hw > max_threads ? static_cast<unsigned>(max_threads) : hw);
  bool have_n = false;

  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      c.help = true;
      continue;
    }
    // A negative number is a bad N, not an unknown option.
    const bool looks_numeric = arg.size() > 1 && arg[0] == '-' && arg[1] >= '0' && arg[1] <= '9';
    if (arg.size() > 1 && arg[0] == '-' && !looks_numeric) {
      std::string name = arg, value;
      bool inline_value = false;
      const auto eq = arg.find('=');
      if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        inline_value = true;
      }
      if (name != "--backend" && name != "--threads" && name != "--out" && name != "--clock")
        throw usage_error("unknown option '" + arg + "' (try --help)");
      if (!inline_value) {
        if (i + 1 >= argc) throw usage_error("option " + name + " needs a value");
        value = argv[++i];
      }
      if (name == "--backend") {
        if (value == "serial") c.be = backend::serial;
        else if (value == "threads") c.be = backend::threads;
        else throw usage_error("unknown backend '" + value + "' (expected serial or threads)");
      } else if (name == "--threads") {
        c.threads = static_cast<unsigned>(parse_positive(value, max_threads, "--threads"));
      } else if (name == "--out") {
        if (value.empty()) throw usage_error("--out needs a directory name");
        c.out_dir = value;
      } else {  // --clock
        if (value == "auto" || value == "automatic") c.clock = fs::clock_kind::automatic;
        else if (value == "tsc") c.clock = fs::clock_kind::tsc;
        else if (value == "steady") c.clock = fs::clock_kind::steady;
        else if (value == "cost") c.clock = fs::clock_kind::cost;
        else throw usage_error("unknown clock '" + value + "' (expected auto, tsc, steady or cost)");
      }
      continue;
    }
    if (have_n) throw usage_error("unexpected argument '" + arg + "' (N was already given)");
    c.n = parse_positive(arg, max_n, "N");
    have_n = true;
  }
  return c;
}

// How deep in the recursion the 'threads' backend still starts a std::thread:
// spawns at depth < cutoff do, deeper ones run inline. The cutoff is
// floor(log2(threads)), so at most `threads` threads (2^cutoff, the main thread
// included) ever run at once. Oversubscribing would cost more than uneven splits:
// the timed clocks measure wall time, so a strand whose thread waits for a core
// counts the wait as work (one more level doubled Work and Span on a 2-core
// machine). One thread means no thread at all.
inline unsigned thread_depth_cutoff(unsigned threads) noexcept {
  unsigned log2_floor = 0;
  while (threads >= (2u << log2_floor)) ++log2_floor;
  return log2_floor;
}

// Writes DIR/<stem>.json, .csv and .txt. On failure prints one line to stderr and
// returns false.
inline bool write_reports(const fs::report& rep, const std::string& dir, const std::string& stem,
                          const std::string& program) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::cerr << program << ": cannot create directory '" << dir << "': " << ec.message() << "\n";
    return false;
  }
  const std::filesystem::path base = std::filesystem::path(dir) / stem;
  try {
    rep.write_json(base.string() + ".json");
    rep.write_csv(base.string() + ".csv");
    rep.write_text(base.string() + ".txt");
  } catch (const fs::error& e) {
    std::cerr << e.what() << "\n";
    return false;
  }
  return true;
}

}  // namespace example_args
