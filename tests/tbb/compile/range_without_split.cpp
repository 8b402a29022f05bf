// A range with no splitting constructor: the adapter says so in one line naming
// what it needs (compile_message.cmake looks for "forkscale: this range").
#include <forkscale/tbb.hpp>

struct no_split_range {
  int lo = 0;
  int hi = 0;
#ifndef FORKSCALE_EXPECT_COMPILE_ERROR
  no_split_range(int l, int h) : lo(l), hi(h) {}
  no_split_range(no_split_range& r, ::tbb::split) : lo((r.lo + r.hi) / 2), hi(r.hi) { r.hi = lo; }
#else
  no_split_range(int l, int h) : lo(l), hi(h) {}
#endif
  bool empty() const { return hi <= lo; }
  bool is_divisible() const { return hi - lo > 1; }
};

int main() {
  forkscale::tbb::parallel_for(no_split_range(0, 8), [](const no_split_range&) {});
}
