// detail/burden/tbb.hpp: oneTBB's burden micro-benchmark (calibrate.hpp says
// what a round measures), registered with calibrate_burden by
// forkscale/adapters/tbb.hpp, which includes this header. The rounds run in an
// arena of two threads, so that exactly one other thread can take the child.
#pragma once
#include <atomic>
#include <cstdint>

#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include "../../config.hpp"
#include "../../measured_burden.hpp"
#include "calibrate.hpp"

// tbb_adapter::publish comes from forkscale/adapters/tbb.hpp, which includes this
// header at its end.

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace burden {

inline measured_burden calibrate_tbb() {
  samples out;
  ::oneapi::tbb::task_arena arena(2);
  arena.execute([&] {
    for (unsigned r = 0; r < warmup_rounds + timed_rounds; ++r) {
      std::atomic<std::int64_t> started{0};
      ::oneapi::tbb::task_group g;
      const std::int64_t before = now_ns();
      g.run(tbb_adapter::publish([&started] { started.store(now_ns(), std::memory_order_release); }));
      const std::int64_t after = now_ns();
      const std::int64_t s = wait_for_start(started, before);
      g.wait();
      if (r >= warmup_rounds) out.add(before, after, s);
    }
  });
  return out.result(::forkscale::backend::tbb);
}

inline const bool tbb_calibrator_registered = register_calibrator(::forkscale::backend::tbb, &calibrate_tbb);

}  // namespace burden
}  // namespace detail
FORKSCALE_NAMESPACE_END
