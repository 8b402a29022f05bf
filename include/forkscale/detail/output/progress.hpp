// detail/output/progress.hpp: the progress line of long work (the advisor, the
// scaling study): one line on stderr, rewritten in place with '\r', erased at
// the end; shown when progress_mode and FORKSCALE_PROGRESS allow it
// (options.hpp).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "../../config.hpp"
#include "../../options.hpp"
#include "../util/env.hpp"
#include "utf8.hpp"

#if defined(_WIN32)
#include <io.h>
#else
#include <unistd.h>
#endif

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

inline bool stderr_is_terminal() noexcept {
#if defined(_WIN32)
  return _isatty(_fileno(stderr)) != 0;
#else
  return ::isatty(2) == 1;
#endif
}

// Whether to show progress: never when the option is off or FORKSCALE_PROGRESS
// is 0; always when the option is on or (automatic) FORKSCALE_PROGRESS is 1;
// else when stderr is a terminal.
inline bool progress_wanted(progress_mode mode) noexcept {
  if (mode == progress_mode::off) return false;
  const env_switch env = read_env_switch("FORKSCALE_PROGRESS");
  if (env == env_switch::off) return false;
  if (mode == progress_mode::on || env == env_switch::on) return true;
  return stderr_is_terminal();
}

// One line of progress: "forkscale: <who>: <step>". Each show() rewrites it;
// finish() (or the destructor) erases it, leaving the cursor where it was.
class progress_line {
 public:
  progress_line(progress_mode mode, std::string who) : on_(progress_wanted(mode)), who_(std::move(who)) {}
  ~progress_line() { finish(); }
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;

  bool enabled() const noexcept { return on_; }

  void show(const std::string& step) {
    if (!on_) return;
    std::string line = output::truncate_display(output::printable("forkscale: " + who_ + ": " + step), 79);
    const std::size_t width = output::display_width(line);
    if (width < width_) line += std::string(width_ - width, ' ');  // cover the longer line before
    width_ = width;
    write("\r" + line);
  }

  void finish() {
    if (!on_ || width_ == 0) return;
    write("\r" + std::string(width_, ' ') + "\r");
    width_ = 0;
  }

 private:
  static void write(const std::string& s) {
    std::fwrite(s.data(), 1, s.size(), stderr);
    std::fflush(stderr);
  }

  bool on_;
  std::string who_;
  std::size_t width_ = 0;
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
