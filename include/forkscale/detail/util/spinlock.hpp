// detail/util/spinlock.hpp: the lock a join set takes (a few instructions
// long; only siblings finishing at the same instant contend), and cpu_relax.
#pragma once
#include <atomic>
#include <cstdint>
#include <thread>

#include "../../config.hpp"
#include "../macro_scope.hpp"

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
