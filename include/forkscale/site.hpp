// site.hpp: where a guard stands in the user's code (file:line, function, tag).
#pragma once
#include "config.hpp"

FORKSCALE_NAMESPACE_BEGIN

// A source location. Guards take one as a defaulted argument, so the site is the
// caller's line without any macro (std::source_location's idea, usable in C++17).
struct site {
  const char* file = "";
  unsigned line = 0;
  const char* function = "";
  // A user tag replaces file:line in reports when set. Sites are cached by the
  // addresses they hold, so a tag must be a string literal or other storage whose
  // text never changes while the program runs.
  const char* tag = nullptr;

#if FORKSCALE_DETAIL_HAS_SOURCE_BUILTINS
  static constexpr site current(const char* file_ = __builtin_FILE(), unsigned line_ = __builtin_LINE(),
                                const char* function_ = __builtin_FUNCTION()) noexcept {
    return site{file_, line_, function_, nullptr};
  }
#else
  static constexpr site current(const char* file_ = "unknown", unsigned line_ = 0,
                                const char* function_ = "") noexcept {
    return site{file_, line_, function_, nullptr};
  }
#endif

  // A site named by the user instead of by its position in the source.
  static constexpr site tagged(const char* tag_, site where = current()) noexcept {
    return site{where.file, where.line, where.function, tag_};
  }
};

FORKSCALE_NAMESPACE_END

// The current position, for code that prefers macros (and for compilers without the
// source builtins).
#define FORKSCALE_HERE (::forkscale::site{__FILE__, static_cast<unsigned>(__LINE__), __func__, nullptr})
