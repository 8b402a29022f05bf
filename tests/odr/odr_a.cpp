// First translation unit of the ODR test; odr_b.cpp is its twin.
#include <forkscale/forkscale.hpp>

#include "odr.hpp"

namespace fs = forkscale;

void odr_test::program_a(std::uint64_t leaf) {
  fs::charge(1);
  for (int i = 0; i < 3; ++i) {
    auto task = fs::spawn([leaf] { fs::charge(leaf); });
    task();
  }
  fs::charge(2);
  { fs::sync_point sp; }
  fs::charge(3);
}

namespace {

fs::report measure_here(void (*program)(std::uint64_t), std::uint64_t leaf) {
  fs::options opt;
  opt.clock = fs::clock_kind::cost;
  return fs::measure(
      "odr_a", [&] { program(leaf); }, opt);
}

}  // namespace

std::uint64_t odr_test::work_in_a(void (*program)(std::uint64_t), std::uint64_t leaf) {
  return measure_here(program, leaf).work();
}
std::uint64_t odr_test::span_in_a(void (*program)(std::uint64_t), std::uint64_t leaf) {
  return measure_here(program, leaf).span();
}
