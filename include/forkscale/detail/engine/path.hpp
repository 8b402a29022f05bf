// detail/engine/path.hpp: what flows along the dag's edges.
//
// The model is Cilkview's (SPAA'10, Fig. 13) made to work for any join pattern
// and for real parallel execution: every point of the program carries the length
// of the longest path from the start of the measurement to it (plain, burdened
// and before compensation), together with the work, spawns and syncs of
// everything known to precede it. A child starts with its spawner's path
// lengths; whoever joins it takes the maximum of the path lengths and the sum of
// the rest. Because max and + commute, the result is the same whatever the
// threads and the interleaving.
#pragma once
#include <atomic>
#include <cstdint>
#include <thread>

#include "../../config.hpp"
#include "../macro_scope.hpp"
#include "../what_if/offsets.hpp"
#include "path_value.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// A test-and-test-and-set lock held for a handful of instructions. Each join set
// has its own; only siblings finishing at the same instant ever contend.
class spinlock {
 public:
  // The uncontended case inline (one exchange); waiting out of line.
  void lock() noexcept {
    if (FORKSCALE_DETAIL_LIKELY(!flag_.exchange(true, std::memory_order_acquire))) return;
    lock_slow();
  }
  void unlock() noexcept { flag_.store(false, std::memory_order_release); }

 private:
  FORKSCALE_DETAIL_NOINLINE void lock_slow() noexcept {
    do {
      for (int spins = 0; flag_.load(std::memory_order_relaxed);) {
        if (++spins < 64) {
          cpu_relax();
        } else {
          std::this_thread::yield();
          spins = 0;
        }
      }
    } while (flag_.exchange(true, std::memory_order_acquire));
  }

  std::atomic<bool> flag_{false};
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
