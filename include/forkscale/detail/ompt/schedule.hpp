// detail/ompt/schedule.hpp: how a loop's iterations are cut into chunks, for the
// annotated adapter (adapters/openmp.hpp), which runs the chunks itself and makes
// each one a child, as the OMPT tool sees them in a real `parallel for` or
// `taskloop`. The specification leaves the sizes of guided chunks and of taskloop
// tasks to the implementation (OpenMP 5.1, §2.11.4 and §2.12.2); these are the
// sizes LLVM's libomp 14 uses, observed through OMPT (docs/openmp.md, "Loops"):
//  - schedule(static) without a chunk size: one contiguous share per thread,
//    the first (n mod T) threads one iteration more than the others;
//  - schedule(guided, c): while at least 2·T·(c+1) iterations are left, a chunk
//    takes floor(left / (2·T)) of them; then chunks of c;
//  - taskloop grainsize(g): floor(n/g) tasks (at least one), num_tasks(k): k
//    tasks (at most n), neither: min(n, 10·T) tasks; the first (n mod tasks)
//    tasks one iteration more than the others.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "../../config.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace schedule {

// Iterations [begin, end), counted from the loop's first.
struct chunk {
  std::uint64_t begin = 0, end = 0;
};

// Chunks of `size` iterations in order (schedule(dynamic, size), schedule(static, size)).
inline std::vector<chunk> fixed(std::uint64_t n, std::uint64_t size) {
  std::vector<chunk> out;
  if (size == 0) size = 1;
  out.reserve(static_cast<std::size_t>(n / size + 1));
  for (std::uint64_t b = 0; b < n; b += size) out.push_back(chunk{b, std::min(n, b + size)});
  return out;
}

// `parts` near-equal contiguous parts, the first (n mod parts) one longer; empty
// parts are left out.
inline std::vector<chunk> balanced(std::uint64_t n, std::uint64_t parts) {
  std::vector<chunk> out;
  if (parts == 0) parts = 1;
  const std::uint64_t base = n / parts, extra = n % parts;
  std::uint64_t b = 0;
  for (std::uint64_t i = 0; i < parts && b < n; ++i) {
    const std::uint64_t len = base + (i < extra ? 1 : 0);
    if (len == 0) break;
    out.push_back(chunk{b, b + len});
    b += len;
  }
  return out;
}

// schedule(static): one share per thread.
inline std::vector<chunk> static_shares(std::uint64_t n, unsigned threads) { return balanced(n, threads); }

// schedule(guided, min_size) on `threads` threads.
inline std::vector<chunk> guided(std::uint64_t n, unsigned threads, std::uint64_t min_size) {
  std::vector<chunk> out;
  if (threads == 0) threads = 1;
  if (min_size == 0) min_size = 1;
  const std::uint64_t switch_below = 2ull * threads * (min_size + 1);
  const double share = 1.0 / (2.0 * threads);
  std::uint64_t b = 0;
  while (b < n) {
    const std::uint64_t left = n - b;
    std::uint64_t len = min_size;
    if (left >= switch_below)
      len = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(left) * share));
    len = std::min(len, left);
    out.push_back(chunk{b, b + len});
    b += len;
  }
  return out;
}

// taskloop's tasks: grainsize > 0, or num_tasks > 0, or neither (then 10 per thread).
inline std::vector<chunk> taskloop(std::uint64_t n, std::uint64_t grainsize, std::uint64_t num_tasks,
                                   unsigned threads) {
  std::uint64_t tasks = 0;
  if (grainsize > 0) {
    tasks = std::max<std::uint64_t>(1, n / grainsize);
  } else if (num_tasks > 0) {
    tasks = num_tasks;
  } else {
    tasks = 10ull * std::max(1u, threads);
  }
  return balanced(n, std::min(tasks, n));
}

}  // namespace schedule
}  // namespace detail
FORKSCALE_NAMESPACE_END
