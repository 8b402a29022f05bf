// forkscale — measure how parallel fork-join code really is.
// config.hpp: version, the FORKSCALE_ENABLE switch and the versioned namespace.
#pragma once

#define FORKSCALE_VERSION_MAJOR 0
#define FORKSCALE_VERSION_MINOR 1
#define FORKSCALE_VERSION_PATCH 0
#define FORKSCALE_VERSION_STRING "0.1.0"

// FORKSCALE_ENABLE=0 compiles every guard to an empty type and every query to a
// typed constant, so annotated code costs nothing in a production build.
#ifndef FORKSCALE_ENABLE
#define FORKSCALE_ENABLE 1
#endif

// Two copies of forkscale of different versions in one binary get different
// mangled names instead of silently mixing their engines.
#define FORKSCALE_DETAIL_ABI_CONCAT2(a, b, c) abi_v##a##_##b##_##c
#define FORKSCALE_DETAIL_ABI_CONCAT(a, b, c) FORKSCALE_DETAIL_ABI_CONCAT2(a, b, c)
#if FORKSCALE_ENABLE
#define FORKSCALE_DETAIL_ABI_NAME \
  FORKSCALE_DETAIL_ABI_CONCAT(FORKSCALE_VERSION_MAJOR, FORKSCALE_VERSION_MINOR, FORKSCALE_VERSION_PATCH)
#else
// A disabled build must not share symbols with an enabled one in the same program.
#define FORKSCALE_DETAIL_ABI_NAME abi_disabled
#endif

#define FORKSCALE_NAMESPACE_BEGIN \
  namespace forkscale {           \
  inline namespace FORKSCALE_DETAIL_ABI_NAME {
#define FORKSCALE_NAMESPACE_END \
  }                             \
  }

// Unique guard-variable names, so two guards in one scope never clash.
#define FORKSCALE_DETAIL_CAT2(a, b) a##b
#define FORKSCALE_DETAIL_CAT(a, b) FORKSCALE_DETAIL_CAT2(a, b)
#ifdef __COUNTER__
#define FORKSCALE_DETAIL_UNIQUE(prefix) FORKSCALE_DETAIL_CAT(prefix, __COUNTER__)
#else
#define FORKSCALE_DETAIL_UNIQUE(prefix) FORKSCALE_DETAIL_CAT(prefix, __LINE__)
#endif

#include "detail/macro_scope.hpp"

// Call sites are named by file:line and function. GCC and Clang (and MSVC 16.6+)
// evaluate these builtins at the caller when used as default arguments, which
// gives std::source_location's behaviour in C++17.
#if defined(__has_builtin)
#if __has_builtin(__builtin_FILE) && __has_builtin(__builtin_LINE) && __has_builtin(__builtin_FUNCTION)
#define FORKSCALE_DETAIL_HAS_SOURCE_BUILTINS 1
#endif
#elif defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 5
#define FORKSCALE_DETAIL_HAS_SOURCE_BUILTINS 1
#elif defined(_MSC_VER) && _MSC_VER >= 1926
#define FORKSCALE_DETAIL_HAS_SOURCE_BUILTINS 1
#endif
#ifndef FORKSCALE_DETAIL_HAS_SOURCE_BUILTINS
#define FORKSCALE_DETAIL_HAS_SOURCE_BUILTINS 0
#endif
