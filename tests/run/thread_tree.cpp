// tests/run/thread_tree.cpp: a plain std::thread program, with nothing of
// forkscale, for `forkscale-report run` (tests/run/test_run.cpp): a binary tree
// of threads of depth 4 — every inner node starts two threads and joins them,
// 2 + 4 + 8 + 16 = 30 threads in all — whose 16 leaves do the same CPU work (a
// spin of a fixed number of steps). It prints the leaves' checksum.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {

std::uint64_t spin(std::uint64_t steps, std::uint64_t seed) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull;
  for (std::uint64_t i = 0; i < steps; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

std::uint64_t tree(int depth, std::uint64_t steps, std::uint64_t seed) {
  if (depth == 0) return spin(steps, seed);
  std::uint64_t left = 0, right = 0;
  std::thread a([&] { left = tree(depth - 1, steps, 2 * seed); });
  std::thread b([&] { right = tree(depth - 1, steps, 2 * seed + 1); });
  a.join();
  b.join();
  return left + right;
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t steps = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20000000;
  std::printf("checksum %016llx\n", static_cast<unsigned long long>(tree(4, steps, 1)));
  return 0;
}
