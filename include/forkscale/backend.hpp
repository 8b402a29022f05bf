// backend.hpp: the parallel libraries forkscale knows the runtime costs of
// (options::backend, fs::calibrate_burden in burden.hpp).
#pragma once
#include <string>

#include "config.hpp"

FORKSCALE_NAMESPACE_BEGIN

enum class backend {
  unknown,     // not said: the burden is Cilkview's default (or options.burden)
  std_thread,  // std::thread / std::async (adapters/std_thread.hpp)
  tbb,         // oneTBB (adapters/tbb.hpp)
  openmp,      // OpenMP tasks (adapters/openmp.hpp)
};

inline const char* to_string(backend b) noexcept {
  switch (b) {
    case backend::std_thread:
      return "std_thread";
    case backend::tbb:
      return "tbb";
    case backend::openmp:
      return "openmp";
    default:
      return "unknown";
  }
}

// The backend named `name` ("std_thread", "tbb", "openmp"); false for any other.
inline bool backend_from_name(const std::string& name, backend& out) noexcept {
  for (backend b : {backend::std_thread, backend::tbb, backend::openmp})
    if (name == to_string(b)) {
      out = b;
      return true;
    }
  return false;
}

FORKSCALE_NAMESPACE_END
