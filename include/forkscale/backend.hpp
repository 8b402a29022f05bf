// backend.hpp: the parallel libraries forkscale knows the runtime costs of
// (options::backend, fs::calibrate_burden in burden.hpp).
#pragma once
#include <string>

#include "config.hpp"

FORKSCALE_NAMESPACE_BEGIN

enum class backend {
  unknown,     // none: the burden is Cilkview's default (or options.burden)
  std_thread,  // std::thread / std::async (adapters/std_thread.hpp)
  tbb,         // oneTBB (adapters/tbb.hpp)
  openmp,      // OpenMP tasks (adapters/openmp.hpp, the OMPT tool)
  automatic,   // options.backend's default: the library of the first spawn made through an adapter
};

inline const char* to_string(backend b) noexcept {
  switch (b) {
    case backend::std_thread:
      return "std_thread";
    case backend::tbb:
      return "tbb";
    case backend::openmp:
      return "openmp";
    case backend::automatic:
      return "automatic";
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

namespace detail {

// A library as one bit (1 << its value) in the sets of libraries a measurement's
// spawns came through; 0 for unknown and automatic, which name none.
constexpr unsigned char backend_bit(backend b) noexcept {
  return b == backend::std_thread || b == backend::tbb || b == backend::openmp
             ? static_cast<unsigned char>(1u << static_cast<unsigned>(b))
             : static_cast<unsigned char>(0);
}

// The library of a bit backend_bit gave (unknown for any other value).
constexpr backend backend_of_bit(unsigned bit) noexcept {
  return bit == backend_bit(backend::std_thread) ? backend::std_thread
         : bit == backend_bit(backend::tbb)      ? backend::tbb
         : bit == backend_bit(backend::openmp)   ? backend::openmp
                                                 : backend::unknown;
}

}  // namespace detail

FORKSCALE_NAMESPACE_END
