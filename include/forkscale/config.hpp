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

// Two forms, one set of headers. Header-only (the default): everything is
// defined inline where it is included. With FORKSCALE_COMPILED_LIB defined (the
// CMake target forkscale::compiled defines it for its users), the headers only
// declare what need not be inlined — the report writers and readers, the
// analyses, sessions and merging, the start and end of a measurement — and
// the library's translation units (src/lib/*.cpp in the CMake build, or
// src/forkscale.cpp alone), compiled with the same macro, define it once. The guards
// are inline in both forms, and in both they call the engine's events through a
// table of function pointers (detail/engine/hooks.hpp); the events are compiled
// with the start of a measurement (in the compiled form, in the library).
// FORKSCALE_ENABLE=0 is always header-only (it defines almost nothing), and so
// are the single headers (single_include/, which define
// FORKSCALE_DETAIL_SINGLE_HEADER).
#if defined(FORKSCALE_COMPILED_LIB) && FORKSCALE_ENABLE && !defined(FORKSCALE_DETAIL_SINGLE_HEADER)
#define FORKSCALE_HEADER_ONLY 0
#else
#define FORKSCALE_HEADER_ONLY 1
#endif
// Whether this translation unit sees the definitions of the compiled parts:
// always in the header-only form; in the compiled form only in the library's
// own source (src/forkscale.cpp defines FORKSCALE_DETAIL_BUILDING_LIB).
#if FORKSCALE_HEADER_ONLY || defined(FORKSCALE_DETAIL_BUILDING_LIB)
#define FORKSCALE_DETAIL_DEFINITIONS 1
#else
#define FORKSCALE_DETAIL_DEFINITIONS 0
#endif
// Whether this translation unit defines one part's compiled functions: in the
// header-only form, wherever the part is included; in the compiled form, in
// the library's source for that part only (src/lib/<part>.cpp defines
// FORKSCALE_DETAIL_LIB_<part>; src/forkscale.cpp, the one-file build, defines
// them all). The parts, each a list of headers whose definitions sit behind
// #if FORKSCALE_DETAIL_DEFINES(part) (docs/architecture.md, "Where a definition
// goes"; tools/check_layout.py checks the list):
//   measure   the engine's start and end, the measurement, the burden's
//             calibration, locks
//   finish    the end of a measurement: its report's rows, the record, the
//             views it writes (detail/measurement/measure.hpp: finish_session)
//   writers   the report's text, JSON and CSV
//   views     trace, folded stacks, the timeline analysis, what a
//             measurement reaches at run time (forkscale/views.hpp)
//   html      the HTML page and the SVG plots
//   analyses  predict, the advisor, regression checks
//   studies   scaling studies
//   sessions  sessions, snapshots, merging
//   readers   reading a saved report back, and the burden file
#if FORKSCALE_DETAIL_DEFINITIONS && defined(FORKSCALE_DETAIL_BUILDING_LIB)
#define FORKSCALE_DETAIL_DEFINES(part) FORKSCALE_DETAIL_LIB_##part
#else
#define FORKSCALE_DETAIL_DEFINES(part) FORKSCALE_DETAIL_DEFINITIONS
#endif
// What a compiled part is declared and defined with: inline in the header-only
// form, an ordinary (external) function in the compiled one.
#if FORKSCALE_HEADER_ONLY
#define FORKSCALE_INLINE inline
#else
#define FORKSCALE_INLINE
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
