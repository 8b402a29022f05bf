// One fs::tbb::parallel_for over a blocked_range: built with FORKSCALE_ENABLE=0
// -O2, the object holds no forkscale symbol (disabled_symbols.cmake); built as
// it is, it does (the check can see them).
#include <forkscale/tbb.hpp>

#include <cstddef>

namespace fs = forkscale;

void scale(double* v, std::size_t n, double k) {
  fs::tbb::parallel_for(fs::tbb::blocked_range<std::size_t>(0, n, 1024), [=](const auto& r) {
    for (std::size_t i = r.begin(); i != r.end(); ++i) v[i] *= k;
  });
}
