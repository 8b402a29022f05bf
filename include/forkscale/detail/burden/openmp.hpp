// detail/burden/openmp.hpp: OpenMP's burden micro-benchmark (calibrate.hpp says
// what a round measures), registered with calibrate_burden by
// forkscale/adapters/openmp.hpp, which includes this header. The rounds run in
// a team of two: one thread creates the tasks inside `single`, the other waits
// at the region's barrier, where it runs tasks.
#pragma once
#include <atomic>
#include <cstdint>

#include <omp.h>

#include "../../config.hpp"
#include "../../measured_burden.hpp"
#include "calibrate.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace burden {

inline measured_burden calibrate_openmp() {
  samples out;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    for (unsigned r = 0; r < warmup_rounds + timed_rounds; ++r) {
      std::atomic<std::int64_t> started{0};
      std::atomic<int> ran_on{-1};
      const int me = omp_get_thread_num();
      const std::int64_t before = now_ns();
#pragma omp task shared(started, ran_on)
      {
        ran_on.store(omp_get_thread_num(), std::memory_order_relaxed);
        started.store(now_ns(), std::memory_order_release);
      }
      const std::int64_t after = now_ns();
      std::int64_t s = wait_for_start(started, before);
#pragma omp taskwait
      if (ran_on.load(std::memory_order_relaxed) == me) s = 0;  // run at once here (a team of one): no steal
      if (r >= warmup_rounds) out.add(before, after, s);
    }
  }
  return out.result(::forkscale::backend::openmp);
}

inline const bool openmp_calibrator_registered = register_calibrator(::forkscale::backend::openmp, &calibrate_openmp);

}  // namespace burden
}  // namespace detail
FORKSCALE_NAMESPACE_END
