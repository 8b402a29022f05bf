// detail/record/buffer.hpp: what recording keeps while the program runs. Each
// thread appends to its own buffer (no lock, no atomic but a relaxed read of
// the session's on-switch); memory comes in chunks charged against
// options::record_limit, and past it recording stops for every thread.
//
// Strands are named by 64-bit ids: the buffer's index + 1 in the high bits and
// the strand's position + 1 in the low 40, so that ids need no shared counter
// and map back to a position in O(1). Joins are named by the join set's id
// (made the same way) and the round of the set (a task's sync block is used
// for one join after another).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <type_traits>
#include <vector>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../macro_scope.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

inline constexpr unsigned record_id_shift = 40;
inline constexpr std::uint64_t record_id_mask = (std::uint64_t(1) << record_id_shift) - 1;

// Flags of a raw strand: how it began.
inline constexpr std::uint32_t rec_after_spawn = 1;  // continues its task after a spawn
inline constexpr std::uint32_t rec_task_start = 2;   // a spawned task's first strand

struct raw_strand {
  std::uint64_t prev = 0;       // strand id: the task's previous strand, or the spawner's
  std::uint64_t crit_pred = 0;  // strand id ending the longest path to the start
  std::uint64_t join_uid = 0;   // the join it starts after (0: none)
  std::uint64_t wall_start = 0, wall_end = 0;
  std::uint64_t work = 0, path = 0;  // engine ticks
  std::uint32_t join_round = 0;
  std::uint32_t frame = 0;  // call path (call_tree)
  std::uint32_t flags = 0;
  std::uint32_t join_site = 0;  // the sync_point's site + 1 (0: none)
  std::uint64_t what_if = 0;    // the what-if regions it ran inside (region bits)
};

// Something reported to a join: a task's last strand, or a join handed on.
struct raw_edge {
  std::uint64_t to_uid = 0;
  std::uint64_t from_strand = 0;  // 0: none
  std::uint64_t from_uid = 0;     // 0: none
  std::uint32_t to_round = 0;
  std::uint32_t from_round = 0;
};

// A hold of a lock (detail/blame/lock_events.hpp), kept when it is released.
struct raw_lock {
  std::uint64_t wait_start = 0, acquired = 0, released = 0;  // wall ticks
  std::uint64_t first = 0, last = 0;  // strand ids: open at the acquisition, at the release (0: none)
  std::uint32_t lock = 0, site = 0;   // call_tree site indices
  std::uint32_t holder = 0;           // the holder's site + 1 seen by a contended wait (0: none)
  bool contended = false;
};

struct region_node;
struct raw_region {
  const region_node* node = nullptr;
  std::uint64_t wall_open = 0, wall_close = 0;
};

class record_state;

// Raw memory for record chunks, carved from slabs of `slab_bytes`. On POSIX
// systems a slab is mapped on its own, so that its memory goes back to the
// system when the last chunk in it is freed (the record's build frees the
// chunks as it goes; malloc would keep them). A chunk is taken by a pointer
// bump in the current slab; the slab is unmapped (or kept) when every chunk
// taken from it has been given back, so that a record of millions of strands
// maps and unmaps a few hundred slabs rather than a region per chunk: each
// unmapping of a threaded process's memory interrupts its other CPUs to flush
// their TLBs, which on a virtual machine costs hundreds of microseconds. Free
// slabs are kept for the next records, up to `kept_bytes` in all, so that
// measurements run one after another reuse memory already in place rather
// than fault in fresh pages.
class record_memory {
 public:
  static constexpr std::size_t slab_bytes = std::size_t(2) << 20;
  static constexpr std::size_t kept_bytes = std::size_t(32) << 20;

  // The largest chunk: a slab holds at least four.
  static constexpr std::size_t max_chunk_bytes = slab_bytes / 4;

  // `bytes` (at most max_chunk_bytes) of memory, aligned to a cache line (null
  // when there is none).
  static void* take(std::size_t bytes) noexcept {
    bytes = rounded(bytes);
    record_memory& m = instance();
    std::lock_guard<std::mutex> g(m.m_);
    slab* cur = m.current(bytes);
    if (!cur) return nullptr;
    if (cur->base == nullptr || slab_bytes - cur->used < bytes) {
      char* p = m.map_slab();
      if (!p) return nullptr;
      const slab old = *cur;
      if (old.base != nullptr && old.live != 0 && !m.file(old)) {
        m.release(p);
        return nullptr;
      }
      if (old.base != nullptr && old.live == 0) m.release(old.base);
      *cur = slab{p, 0, 0};
    }
    char* p = cur->base + cur->used;
    cur->used += bytes;
    cur->live += bytes;
    return p;
  }

  // Bytes mapped now: slabs with chunks out, the current ones, and those kept.
  static std::size_t mapped() noexcept {
    record_memory& m = instance();
    std::lock_guard<std::mutex> g(m.m_);
    std::size_t n = m.free_.size() + m.filed_.size();
    for (const current_slab& c : m.current_) n += c.s.base != nullptr;
    return n * slab_bytes;
  }

  static void give(void* q, std::size_t bytes) noexcept {
    if (!q) return;
    bytes = rounded(bytes);
    char* p = static_cast<char*>(q);
    record_memory& m = instance();
    std::lock_guard<std::mutex> g(m.m_);
    for (current_slab& c : m.current_)
      if (c.s.base != nullptr && p >= c.s.base && p < c.s.base + slab_bytes) {
        c.s.live -= bytes;
        if (c.s.live == 0) c.s.used = 0;  // empty: bump from its start again
        return;
      }
    // The filed slab holding p: the last one starting at or before it.
    auto it =
        std::upper_bound(m.filed_.begin(), m.filed_.end(), p, [](const char* a, const slab& b) { return a < b.base; });
    if (it == m.filed_.begin()) return;  // not ours: cannot happen
    --it;
    it->live -= bytes;
    if (it->live != 0) return;
    char* const done = it->base;
    m.filed_.erase(it);
    m.release(done);
  }

 private:
  struct slab {
    char* base = nullptr;  // slab_bytes mapped
    std::size_t used = 0;  // bytes handed out from its start
    std::size_t live = 0;  // bytes handed out and not given back
  };
  // The slab chunks of one size are taken from: chunks of one kind (a thread's
  // strands, its edges) are freed together, so they do not share slabs with
  // chunks of another kind, which would keep them mapped.
  struct current_slab {
    std::size_t chunk = 0;
    slab s;
  };
  slab* current(std::size_t bytes) noexcept {
    for (current_slab& c : current_)
      if (c.chunk == bytes) return &c.s;
    try {
      current_.push_back(current_slab{bytes, slab{}});
    } catch (...) {
      return nullptr;
    }
    return &current_.back().s;
  }
  static std::size_t rounded(std::size_t bytes) noexcept { return (bytes + 63) & ~std::size_t(63); }
  // Never destroyed: records freed during static destruction still give back.
  static record_memory& instance() noexcept {
    static record_memory* m = new record_memory;
    return *m;
  }
  // A slab no longer the current one, with chunks still out: kept in order of
  // its address, for give() to find.
  bool file(const slab& s) noexcept {
    try {
      auto it = std::upper_bound(filed_.begin(), filed_.end(), s.base,
                                 [](const char* a, const slab& b) { return a < b.base; });
      filed_.insert(it, s);
      return true;
    } catch (...) {
      return false;
    }
  }
  // A slab: a kept one, or fresh memory.
  char* map_slab() noexcept {
    if (!free_.empty()) {
      char* p = free_.back();
      free_.pop_back();
      return p;
    }
    return static_cast<char*>(map(slab_bytes));
  }
  // A slab with nothing out: kept for the next records, or unmapped.
  void release(char* base) noexcept {
    if ((free_.size() + 1) * slab_bytes <= kept_bytes) {
      try {
        free_.push_back(base);
        return;
      } catch (...) {
      }
    }
    unmap(base, slab_bytes);
  }
  static void* map(std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // At a boundary of its own size (a power of two: 2 MiB), so that Linux can
    // back the slab with one huge page where transparent huge pages are given
    // on request: one fault, and one TLB entry, for the 26,000 strands a slab
    // holds, instead of 512 of each; on a virtual machine each 4 KiB fault and
    // each TLB miss's two-level page walk costs more than the strand's entry.
    // Mapped twice as large and trimmed to the boundary.
    static_assert((slab_bytes & (slab_bytes - 1)) == 0, "a slab is a power of two");
    if ((bytes & (bytes - 1)) != 0) return nullptr;  // (only slabs come here)
    void* raw = ::mmap(nullptr, 2 * bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t p = (a + bytes - 1) & ~(std::uintptr_t(bytes) - 1);
    if (p > a) ::munmap(raw, p - a);
    if (a + 2 * bytes > p + bytes) ::munmap(reinterpret_cast<void*>(p + bytes), a + 2 * bytes - (p + bytes));
    char* const q = reinterpret_cast<char*>(p);
    (void)::madvise(q, bytes, MADV_HUGEPAGE);
    // Faulted in at once: one call (Linux 5.14 and later), else a write to each
    // 4 KiB page (the first write to a huge page faults in all of it).
#if defined(MADV_POPULATE_WRITE)
    if (::madvise(q, bytes, MADV_POPULATE_WRITE) == 0) return q;
#endif
    for (std::size_t i = 0; i < bytes; i += 4096) static_cast<volatile char*>(q)[i] = 0;
    return q;
#elif defined(__unix__) || defined(__APPLE__)
#if defined(MAP_POPULATE)
    // Faulted in at once: one system call rather than a page fault per page.
    constexpr int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE;
#else
    constexpr int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#endif
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
#else
    return ::operator new(bytes, std::nothrow);
#endif
  }
  static void unmap(void* p, std::size_t bytes) noexcept {
#if defined(__unix__) || defined(__APPLE__)
    ::munmap(p, bytes);
#else
    (void)bytes;
    ::operator delete(p);
#endif
  }
  std::mutex m_;
  std::vector<current_slab> current_;  // where chunks of each size are taken from
  std::vector<slab> filed_;            // earlier slabs with chunks out, by address
  std::vector<char*> free_;            // slabs kept for reuse (at most kept_bytes)
};

// Append-only storage in fixed chunks, charged to the record's budget. Within
// a chunk an append is a pointer bump (`cur_` to `end_`); a new chunk is taken
// out of line.
template <class T, std::size_t N>
class record_chunks {
 public:
  // Room for one more, or null when the budget is spent.
  T* next(record_state& rs);
  std::size_t size() const noexcept { return size_; }
  const T& operator[](std::size_t i) const noexcept { return chunks_[i / N][i % N]; }
  // Calls `f` on every entry in order, a chunk at a time.
  template <class F>
  void each(F&& f) const {
    std::size_t left = size_;
    for (const chunk& c : chunks_) {
      const std::size_t k = left < N ? left : N;
      for (const T* p = c.get(); p != c.get() + k; ++p) f(*p);
      left -= k;
    }
  }
  // Entries per chunk, and the freeing of chunk `c` once nothing will read its
  // entries again (size() stays, for ids to keep their positions).
  static constexpr std::size_t chunk_entries = N;
  void free_chunk(std::size_t c) noexcept { chunks_[c].reset(); }

 private:
  // A chunk is raw memory (record_memory): every entry is written whole when
  // it is taken, so none is initialised twice (the entries are aggregates,
  // created by the allocation, and trivially destroyed).
  static constexpr std::size_t chunk_bytes = sizeof(T) * N;
  static_assert(chunk_bytes <= record_memory::max_chunk_bytes, "a record chunk must fit a slab four times");
  struct chunk_free {
    void operator()(T* p) const noexcept { record_memory::give(p, chunk_bytes); }
  };
  using chunk = std::unique_ptr<T[], chunk_free>;
  static_assert(std::is_trivially_destructible<T>::value && std::is_trivially_copyable<T>::value,
                "record entries are written whole into raw memory");
  FORKSCALE_DETAIL_NOINLINE T* next_chunk(record_state& rs);
  std::vector<chunk> chunks_;
  T* cur_ = nullptr;  // the next free entry of the last chunk
  T* end_ = nullptr;  // that chunk's end
  std::size_t size_ = 0;
};

struct record_buffer {
  std::uint32_t index = 0;  // the thread's index in the record
  std::uint64_t os_id = 0;
  std::uint64_t next_uid = 0;
  std::uint64_t dropped = 0;  // strands not kept (budget spent)
  record_chunks<raw_strand, 1024> strands;
  record_chunks<raw_edge, 1024> edges;
  record_chunks<raw_lock, 256> locks;
  std::vector<raw_region> regions;
};

// One measurement's recording.
class record_state {
 public:
  record_state(std::uint64_t serial, std::uint64_t limit, clock_kind clock) : serial_(serial), limit_(limit) {
    wall_kind_ = clock == clock_kind::cost || clock == clock_kind::thread_cpu ? resolve_automatic() : clock;
    if (wall_kind_ == clock_kind::automatic) wall_kind_ = clock_kind::steady;
    separate_wall_ = wall_kind_ != clock;
    origin_ = read_clock(wall_kind_);
  }

  // The measurement starts: wall times are counted from here.
  void start() noexcept { origin_ = read_clock(wall_kind_); }
  bool on() const noexcept { return on_.load(std::memory_order_relaxed); }
  bool separate_wall() const noexcept { return separate_wall_; }
  clock_kind wall_kind() const noexcept { return wall_kind_; }
  FORKSCALE_DETAIL_ALWAYS_INLINE std::uint64_t wall_now() const noexcept {
    if (FORKSCALE_DETAIL_LIKELY(wall_kind_ == clock_kind::tsc)) return tsc_ticks();
    return read_clock(wall_kind_);
  }
  std::uint64_t origin() const noexcept { return origin_; }
  std::uint64_t limit() const noexcept { return limit_; }
  std::uint64_t trace_limit = 1000000;  // options::trace_limit, handed to the record
  // Set by the record's build once it starts freeing the raw strands (only the
  // build reads them, once, after every thread has stopped appending).
  bool consumed = false;
  std::uint64_t bytes() const noexcept { return bytes_.load(std::memory_order_relaxed); }
  bool limit_hit() const noexcept { return limit_hit_.load(std::memory_order_relaxed); }

  // Charges `n` bytes; false (and recording stops) when they would pass the limit.
  bool charge(std::uint64_t n) noexcept {
    if (!on()) return false;
    const std::uint64_t before = bytes_.fetch_add(n, std::memory_order_relaxed);
    if (before + n <= limit_) return true;
    bytes_.fetch_sub(n, std::memory_order_relaxed);
    limit_hit_.store(true, std::memory_order_relaxed);
    on_.store(false, std::memory_order_relaxed);
    return false;
  }

  // Recording stops (a measurement that ends with tasks still running).
  void stop() noexcept { on_.store(false, std::memory_order_relaxed); }

  // This thread's buffer.
  FORKSCALE_DETAIL_ALWAYS_INLINE record_buffer& buffer() {
    const buffer_slot& c = cached_buffer();
    if (FORKSCALE_DETAIL_LIKELY(c.serial == serial_)) return *c.buffer;
    return new_buffer();
  }

  // Every buffer, for building the record once no thread appends any more.
  const std::vector<std::unique_ptr<record_buffer>>& buffers() {
    std::lock_guard<std::mutex> g(m_);
    return buffers_;
  }

 private:
  struct buffer_slot {
    std::uint64_t serial = 0;
    record_buffer* buffer = nullptr;
  };
  FORKSCALE_DETAIL_ALWAYS_INLINE static buffer_slot& cached_buffer() noexcept {
    static thread_local buffer_slot cached;
    return cached;
  }
  // The calling thread's first append to this measurement's record.
  FORKSCALE_DETAIL_NOINLINE record_buffer& new_buffer() {
    buffer_slot& cached = cached_buffer();
    std::lock_guard<std::mutex> g(m_);
    auto b = std::make_unique<record_buffer>();
    b->index = static_cast<std::uint32_t>(buffers_.size());
#if defined(__linux__)
    b->os_id = static_cast<std::uint64_t>(::syscall(SYS_gettid));
#endif
    buffers_.push_back(std::move(b));
    cached.serial = serial_;
    cached.buffer = buffers_.back().get();
    return *cached.buffer;
  }

  std::uint64_t serial_;
  std::uint64_t limit_;
  clock_kind wall_kind_ = clock_kind::steady;
  bool separate_wall_ = false;
  std::uint64_t origin_ = 0;
  std::atomic<bool> on_{true};
  std::atomic<bool> limit_hit_{false};
  std::atomic<std::uint64_t> bytes_{0};
  std::mutex m_;
  std::vector<std::unique_ptr<record_buffer>> buffers_;
};

template <class T, std::size_t N>
FORKSCALE_DETAIL_ALWAYS_INLINE T* record_chunks<T, N>::next(record_state& rs) {
  if (FORKSCALE_DETAIL_LIKELY(cur_ != end_)) {
    if (FORKSCALE_DETAIL_UNLIKELY(!rs.on())) return nullptr;
    ++size_;
    return cur_++;
  }
  return next_chunk(rs);
}

template <class T, std::size_t N>
T* record_chunks<T, N>::next_chunk(record_state& rs) {
  if (!rs.charge(sizeof(T) * N)) return nullptr;
  // A new slab is mapped and faulted in here: its time is the profiler's, not
  // the strand's (own_time_begin, clock.hpp).
  const std::uint64_t began = own_time_begin();
  chunk c(static_cast<T*>(record_memory::take(chunk_bytes)));
  own_time_end(began);
  if (!c) {
    rs.stop();
    return nullptr;
  }
  try {
    chunks_.push_back(std::move(c));
  } catch (...) {
    rs.stop();
    return nullptr;
  }
  cur_ = chunks_.back().get();
  end_ = cur_ + N;
  ++size_;
  return cur_++;
}

// A strand's id from its buffer and position, and back.
inline std::uint64_t strand_id(const record_buffer& b, std::size_t pos) noexcept {
  return (std::uint64_t(b.index) + 1) << record_id_shift | (std::uint64_t(pos) + 1);
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
