// detail/state.hpp: the engine's data — what flows along the dag's edges
// (path_totals), where children report (join_set), one running task (frame), and
// one measurement (session).
//
// The model is Cilkview's (SPAA'10, Fig. 13) made to work for any join pattern and
// for real parallel execution: every point of the program carries the length of the
// longest path from the start of the measurement to it (plain, burdened and raw),
// together with the work, spawns and syncs of everything that is known to precede
// it. A child starts with its spawner's path lengths; whoever joins it takes the
// maximum of the path lengths and the sum of the rest. Because max and + commute,
// the result is the same whatever the threads and the interleaving.
#pragma once
#include <atomic>
#include <cstdio>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../clock.hpp"
#include "../config.hpp"
#include "macro_scope.hpp"
#include "../report.hpp"
#include "../site.hpp"

#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64)
#include <immintrin.h>
#endif

FORKSCALE_NAMESPACE_BEGIN

// How a measurement is made. Everything has a sensible default.
struct options {
  // Where strand costs come from (see clock.hpp). Ignored by engines whose clock
  // policy fixes the source at compile time, unless it contradicts it.
  clock_kind clock = clock_kind::automatic;
  // Burden per continuation edge in the report's unit; negative means Cilkview's
  // 15,000 cycles expressed in the clock's unit (15,000 units for the cost clock).
  double burden = -1;
  // Subtract the engine's own per-strand cost, measured at start-up (Cilkprof §7).
  // Never applies to the cost clock.
  bool compensate = true;
  // The speedup estimate goes up to this many processors (0: 32, or the number of
  // hardware threads if that is larger).
  unsigned max_processors = 0;
  // Called for each misuse found (already counted in the report). Empty: print one
  // line to stderr.
  std::function<void(const diagnostic&)> on_diagnostic;
};

namespace detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64)
  _mm_pause();
#endif
}

// A test-and-test-and-set lock held for a handful of instructions. Each join_set
// has its own; only siblings finishing at the same instant ever contend.
class spinlock {
 public:
  void lock() noexcept {
    while (flag_.exchange(true, std::memory_order_acquire)) {
      for (int spins = 0; flag_.load(std::memory_order_relaxed);) {
        if (++spins < 64) {
          cpu_relax();
        } else {
          std::this_thread::yield();
          spins = 0;
        }
      }
    }
  }
  void unlock() noexcept { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

// What a point of the program knows about everything that precedes it. Path
// lengths are absolute (from the start of the measurement) and in clock ticks;
// the counters cover the task's own strands plus every child it has joined.
struct path_totals {
  std::uint64_t pos = 0;         // longest path (the span so far)
  std::uint64_t bpos = 0;        // longest path in the burdened dag
  std::uint64_t rpos = 0;        // longest path before overhead compensation
  std::uint64_t work = 0;
  std::uint64_t subtracted = 0;  // compensation taken off `work`
  std::uint64_t spawns = 0;
  std::uint64_t syncs = 0;
  std::uint64_t calls = 0;

  // A join: path lengths take the maximum, everything else adds up.
  void join(const path_totals& o) noexcept {
    if (o.pos > pos) pos = o.pos;
    if (o.bpos > bpos) bpos = o.bpos;
    if (o.rpos > rpos) rpos = o.rpos;
    work += o.work;
    subtracted += o.subtracted;
    spawns += o.spawns;
    syncs += o.syncs;
    calls += o.calls;
  }
};

struct session;

// A set of children that one join waits for: the implicit sync block of a task
// (Cilk's sync), a task_group, or the single child behind a join_handle. Children
// fold their totals in as they finish; the join takes the result.
//
// Reference counting without an atomic on the spawn path: `outstanding` starts at
// owner_ref (the owner's reference) and each finishing child subtracts one. Spawns
// made by the owning task are counted in `unpublished`, which only the owner
// touches; a join is complete when outstanding + unpublished == owner_ref. When the
// owner lets go it publishes its count and drops owner_ref; whoever then brings
// `outstanding` to zero is the last user and hands the totals on to `forward`.
struct join_set {
  static constexpr std::int64_t owner_ref = std::int64_t(1) << 40;

  spinlock lock;
  std::int64_t outstanding = owner_ref;  // guarded by lock
  path_totals acc;                       // guarded by lock
  std::uint64_t finished = 0;            // children folded in since the last join
  std::uint64_t unpublished = 0;         // owner only
  join_set* forward = nullptr;           // where the totals go once the owner let go
  session* owner_session = nullptr;
  join_set* next_free = nullptr;         // pool link

  // Children spawned and not yet finished.
  std::int64_t remaining() const noexcept {
    return outstanding + static_cast<std::int64_t>(unpublished) - owner_ref;
  }
};

// Pooled allocation of join sets: a per-thread cache in front of a process-wide
// free list that is touched once per batch. Memory is kept for reuse, so the
// pool's size is the engine's high-water mark.
class join_pool {
 public:
  static constexpr unsigned batch = 64;

  static join_pool& instance() noexcept {
    static join_pool* p = new join_pool;  // never destroyed: late threads may still return sets
    return *p;
  }

  join_set* take_batch(unsigned& count) {
    {
      std::lock_guard<std::mutex> g(m_);
      if (free_) {
        join_set* head = free_;
        join_set* tail = head;
        count = 1;
        while (count < batch && tail->next_free) {
          tail = tail->next_free;
          ++count;
        }
        free_ = tail->next_free;
        tail->next_free = nullptr;
        free_count_ -= count;
        return head;
      }
    }
    auto* chunk = new join_set[batch];
    {
      std::lock_guard<std::mutex> g(m_);
      chunks_.push_back(chunk);
    }
    reserved_.fetch_add(sizeof(join_set) * batch, std::memory_order_relaxed);
    for (unsigned i = 0; i + 1 < batch; ++i) chunk[i].next_free = &chunk[i + 1];
    count = batch;
    return chunk;
  }

  void give_back(join_set* head, join_set* tail, unsigned count) {
    std::lock_guard<std::mutex> g(m_);
    tail->next_free = free_;
    free_ = head;
    free_count_ += count;
  }

  // Bytes ever obtained from the heap for join sets.
  std::size_t reserved_bytes() const noexcept { return reserved_.load(std::memory_order_relaxed); }

 private:
  std::mutex m_;
  join_set* free_ = nullptr;
  std::size_t free_count_ = 0;
  std::vector<join_set*> chunks_;  // keeps the memory reachable
  std::atomic<std::size_t> reserved_{0};
};

struct join_cache {
  join_set* head = nullptr;
  unsigned count = 0;
  ~join_cache() {
    if (head) {
      join_set* tail = head;
      while (tail->next_free) tail = tail->next_free;
      join_pool::instance().give_back(head, tail, count);
    }
  }
};

inline join_cache& local_join_cache() noexcept {
  static thread_local join_cache cache;
  return cache;
}

inline join_set* new_join_set(session* s) {
  join_cache& c = local_join_cache();
  if (FORKSCALE_DETAIL_UNLIKELY(!c.head)) c.head = join_pool::instance().take_batch(c.count);
  join_set* j = c.head;
  c.head = j->next_free;
  --c.count;
  j->next_free = nullptr;
  j->outstanding = join_set::owner_ref;
  j->acc = path_totals{};
  j->finished = 0;
  j->unpublished = 0;
  j->forward = nullptr;
  j->owner_session = s;
  return j;
}

inline void delete_join_set(join_set* j) noexcept {
  join_cache& c = local_join_cache();
  j->next_free = c.head;
  c.head = j;
  if (FORKSCALE_DETAIL_UNLIKELY(++c.count > 2 * join_pool::batch)) {
    // Hand a batch back so a thread that only frees does not hoard memory.
    join_set* head = c.head;
    join_set* tail = head;
    for (unsigned i = 1; i < join_pool::batch; ++i) tail = tail->next_free;
    c.head = tail->next_free;
    c.count -= join_pool::batch;
    join_pool::instance().give_back(head, tail, join_pool::batch);
  }
}

// A labeled region, interned per session so that tasks can refer to it after the
// guard that opened it has gone. Rows are summed over instances.
struct region_node {
  std::string label;
  std::string path;
  region_node* parent = nullptr;
  unsigned depth = 0;
  std::vector<std::unique_ptr<region_node>> children;
  std::uint64_t instances = 0;
  path_totals sum;  // pos/bpos/rpos hold summed spans here
};

// One measurement: its clock, burden and compensation, its regions and the misuse
// found. Touched on the event path only through plain reads of its constants.
struct session {
  clock_kind kind = clock_kind::cost;
  clock_info info;
  std::uint64_t burden = 0;  // ticks
  std::uint64_t comp = 0;    // ticks subtracted per strand
  double comp_exact = 0;     // the calibrated estimate, before rounding
  unsigned max_processors = 32;
  std::function<void(const diagnostic&)> on_diagnostic;

  std::mutex m;  // guards everything below (regions and diagnostics: not the event path)
  region_node root;
  std::vector<diagnostic> diagnostics;
  std::uint64_t diagnostic_count = 0;
  // task_group and join_handle objects bound to this session and not yet released;
  // a session that ends while some remain is kept alive for them.
  std::atomic<std::int64_t> bound_objects{0};
};

// Sessions that ended while tasks or groups still referred to them. They are kept
// (and reachable) so that late tasks can still report their misuse safely.
inline void keep_orphan(std::unique_ptr<session> s) {
  static std::mutex m;
  static auto* orphans = new std::vector<std::unique_ptr<session>>;
  std::lock_guard<std::mutex> g(m);
  orphans->push_back(std::move(s));
}

inline std::string describe_site(const site& where) {
  if (where.tag) return std::string(where.tag);
  std::string s = where.file ? where.file : "";
  if (!s.empty()) {
    const auto slash = s.find_last_of("/\\");
    if (slash != std::string::npos) s = s.substr(slash + 1);
  }
  s += ':';
  s += std::to_string(where.line);
  if (where.function && *where.function) {
    s += " in ";
    s += where.function;
  }
  return s;
}

inline constexpr std::size_t max_kept_diagnostics = 100;

FORKSCALE_DETAIL_NOINLINE inline void misuse(session* s, const site& where, std::string problem) {
  if (!s) return;
  diagnostic d{describe_site(where), std::move(problem)};
  std::function<void(const diagnostic&)> handler;
  {
    std::lock_guard<std::mutex> g(s->m);
    ++s->diagnostic_count;
    if (s->diagnostics.size() < max_kept_diagnostics) s->diagnostics.push_back(d);
    handler = s->on_diagnostic;
  }
  if (handler) {
    handler(d);
  } else {
    std::fprintf(stderr, "forkscale: %s: %s\n", d.where.c_str(), d.problem.c_str());
  }
}

// One running task body (or the root of a measurement) on one thread. Frames live
// inside the guards that open them, on the running thread's stack; a thread's
// frames form a stack through `outer` (a task run while another is blocked in a
// join, or run inline by its spawner).
struct frame {
  enum class run_state : unsigned char { running, suspended, blocked };

  path_totals t;
  std::uint64_t t0 = 0;      // clock reading at the start of the open strand
  std::uint64_t comp = 0;    // copies of the session's constants, for the hot path
  std::uint64_t burden = 0;
  clock_kind kind = clock_kind::cost;
  run_state state = run_state::running;
  unsigned guards = 0;       // guards open in this frame, for order checks
  frame* outer = nullptr;
  session* s = nullptr;
  join_set* pending = nullptr;    // the implicit sync block (lazily allocated)
  join_set* report_to = nullptr;  // where this task's totals go; null for a root
  region_node* region = nullptr;  // innermost region, inherited by children
  site where;                     // the guard that opened the frame
};

// What a spawn hands to its child: where to report and the path lengths at the
// spawn point. Move-only: a spawn is consumed exactly once.
struct spawn_token {
  join_set* target = nullptr;
  region_node* region = nullptr;
  std::uint64_t pos = 0, bpos = 0, rpos = 0;

  spawn_token() = default;
  spawn_token(const spawn_token&) = delete;
  spawn_token& operator=(const spawn_token&) = delete;
  spawn_token(spawn_token&& o) noexcept
      : target(o.target), region(o.region), pos(o.pos), bpos(o.bpos), rpos(o.rpos) {
    o.target = nullptr;
  }
  ~spawn_token();  // a token never used releases its join (engine.hpp)
  spawn_token& operator=(spawn_token&& o) noexcept {
    if (this != &o) {
      this->~spawn_token();
      target = o.target;
      region = o.region;
      pos = o.pos;
      bpos = o.bpos;
      rpos = o.rpos;
      o.target = nullptr;
    }
    return *this;
  }
  explicit operator bool() const noexcept { return target != nullptr; }
};

}  // namespace detail

FORKSCALE_NAMESPACE_END
