// detail/blame/lock_table.hpp: one thread's lock sums for one measurement,
// per (lock, acquire site): what fs::mutex and the forkscale lock guards add up
// while the thread runs a task of the measurement (lock_events.hpp). Only that
// thread writes them; the report reads them once every task has been joined,
// as it reads the other thread tables (engine/session.hpp).
#pragma once
#include <cstdint>
#include <unordered_map>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../macro_scope.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Times in ticks of the table's wall clock (lock_table::wall).
struct lock_sums {
  std::uint64_t acquisitions = 0;
  std::uint64_t contended = 0;  // acquisitions that found the lock taken
  std::uint64_t wait = 0, max_wait = 0;
  std::uint64_t hold = 0, max_hold = 0;
  // Waits of other acquisitions that began while this site held the lock
  // (directed blame shifting: the waiting is the holder's doing).
  std::uint64_t blamed = 0, blamed_waits = 0;
};

class lock_table {
 public:
  // The clock lock times are read with: a measurement's wall clock (the record's
  // when it records, so that lock events and strands share one time line).
  clock_kind wall = clock_kind::steady;
  bool ready = false;  // `wall` is set

  static std::uint64_t key(std::uint32_t lock, std::uint32_t site) noexcept { return std::uint64_t(lock) << 32 | site; }

  // The sums of (lock, site); the last one used is remembered (a loop takes
  // one lock at one site again and again).
  lock_sums& at(std::uint32_t lock, std::uint32_t site) {
    const std::uint64_t k = key(lock, site);
    if (last_ && last_key_ == k) return *last_;
    last_ = &rows_[k];  // node-based: the address stays valid
    last_key_ = k;
    return *last_;
  }
  const std::unordered_map<std::uint64_t, lock_sums>& rows() const noexcept { return rows_; }

 private:
  std::unordered_map<std::uint64_t, lock_sums> rows_;
  std::uint64_t last_key_ = 0;
  lock_sums* last_ = nullptr;
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
