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

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../macro_scope.hpp"
#include "../profile/profile.hpp"
#include "../what_if/what_if.hpp"
#include "../../report.hpp"
#include "../../site.hpp"

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
  // Per-call-site and per-spawn-site profiles (docs/model.md). Off, every event is
  // cheaper and the report has no site rows.
  bool site_profiles = true;
  // The speedup estimate goes up to this many processors (0: 32, or the number of
  // hardware threads if that is larger).
  unsigned max_processors = 0;
  // What-if regions and factors (docs/model.md, "What-if regions").
  what_if_options what_if;
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
  // What-if offsets of this path (what_if.hpp); null: all 0. Owned by whichever
  // path value holds it; a copy of a path_totals does not own it.
  wi_vec* wi = nullptr;

  // A join: path lengths take the maximum, everything else adds up. `o`'s what-if
  // offsets are consumed.
  void join(path_totals& o) noexcept {
    if (FORKSCALE_DETAIL_UNLIKELY(wi != nullptr || o.wi != nullptr)) wi_join(wi, pos, o.wi, o.pos);
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
  path_prof pacc;                        // the winning path's profile; guarded by lock
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

// Join sets come from the engine's object pool (profile.hpp): a per-thread cache in
// front of a process-wide free list touched once per batch; the pool's size is the
// high-water mark.
using join_pool = object_pool<join_set>;

inline join_set* new_join_set(session* s) {
  join_set* j = object_cache<join_set>::local().take();
  j->outstanding = join_set::owner_ref;
  j->acc = path_totals{};
  j->pacc = path_prof{};
  j->finished = 0;
  j->unpublished = 0;
  j->forward = nullptr;
  j->owner_session = s;
  return j;
}

inline void delete_join_set(join_set* j) noexcept {
  if (j->acc.wi) {
    wi_release(j->acc.wi);
    j->acc.wi = nullptr;
  }
  if (j->pacc.node) {
    release_prof(j->pacc.node);
    j->pacc.node = nullptr;
  }
  object_cache<join_set>::local().put(j);
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
  bool profile = true;     // options.site_profiles
  std::uint64_t serial = 0;  // distinguishes sessions for per-thread caches

  std::mutex m;  // guards everything below (regions and diagnostics: not the event path)
  region_node root;
  std::vector<diagnostic> diagnostics;
  std::uint64_t diagnostic_count = 0;
  // task_group and join_handle objects bound to this session and not yet released;
  // a session that ends while some remain is kept alive for them.
  std::atomic<std::int64_t> bound_objects{0};
  // Per-thread on-work tables of the site profile (guarded by m when the list changes).
  std::vector<std::unique_ptr<onwork_table>> onwork;
  // What-if: the configuration (fixed at the start), whether call sites are looked
  // up (named ones or assumed ones), and the regions known so far (guarded by m;
  // named call sites first, then guards in the order of their first entry).
  wi_config wi;
  bool wi_calls = false;
  std::uint64_t wi_root_mask = 0;
  std::vector<wi_region> wi_regions;
};

inline std::uint64_t next_session_serial() noexcept {
  static std::atomic<std::uint64_t> n{0};
  return n.fetch_add(1, std::memory_order_relaxed) + 1;
}

// This thread's on-work table for `s`.
inline onwork_table& onwork_for(session* s) {
  struct slot {
    std::uint64_t serial = 0;
    onwork_table* table = nullptr;
  };
  static thread_local slot cached;
  if (FORKSCALE_DETAIL_LIKELY(cached.serial == s->serial)) return *cached.table;
  std::lock_guard<std::mutex> g(s->m);
  s->onwork.push_back(std::make_unique<onwork_table>());
  cached.serial = s->serial;
  cached.table = s->onwork.back().get();
  return *cached.table;
}

// A strand of work cost `cost` inside the regions of `mask` (region bits only).
inline void record_wi_work(session* s, std::uint64_t mask, std::uint64_t cost) {
  onwork_table& t = onwork_for(s);
  if (FORKSCALE_DETAIL_UNLIKELY(t.wi_work.empty())) t.wi_work.assign(wi_max_regions + 1, 0);
  t.wi_work[0] += cost;
  for (std::uint64_t m = mask; m; m &= m - 1) t.wi_work[static_cast<unsigned>(__builtin_ctzll(m)) + 1] += cost;
}

inline void record_wi_entries(session* s, std::uint64_t mask) {
  onwork_table& t = onwork_for(s);
  if (FORKSCALE_DETAIL_UNLIKELY(t.wi_entries.empty())) t.wi_entries.assign(wi_max_regions, 0);
  for (std::uint64_t m = mask; m; m &= m - 1) ++t.wi_entries[static_cast<unsigned>(__builtin_ctzll(m))];
}

inline void record_onwork(session* s, const prof_record& r) {
  onwork_table& t = onwork_for(s);
  if (FORKSCALE_DETAIL_UNLIKELY(t.sums.size() <= r.site))
    t.sums.resize(std::max<std::size_t>(r.site + 1u, site_registry::instance().count()));
  t.sums[r.site].add(r);
}

// Sessions that ended while tasks or groups still referred to them. They are kept
// (and reachable) so that late tasks can still report their misuse safely.
inline void keep_orphan(std::unique_ptr<session> s) {
  static std::mutex m;
  static auto* orphans = new std::vector<std::unique_ptr<session>>;
  std::lock_guard<std::mutex> g(m);
  orphans->push_back(std::move(s));
}

// "file.cpp:42": the file without its directory, and the line.
inline std::string short_site_name(const std::string& file, unsigned line) {
  const auto slash = file.find_last_of("/\\");
  return (slash == std::string::npos ? file : file.substr(slash + 1)) + ":" + std::to_string(line);
}

inline std::string describe_site(const site& where) {
  if (where.tag) return std::string(where.tag);
  std::string s = short_site_name(where.file ? where.file : "", where.line);
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

// ---- what-if regions ----------------------------------------------------------

// A guard's region: found by the site's content, registered at its first entry.
// Returns its bit, or 0 when the measurement already has the most regions it can
// analyse (said once per site by a diagnostic).
FORKSCALE_DETAIL_NOINLINE inline std::uint64_t wi_region_bit_slow(session* s, const site& w) {
  const std::string file = w.file ? w.file : "", function = w.function ? w.function : "";
  const std::string tag = w.tag ? w.tag : "";
  {
    std::lock_guard<std::mutex> g(s->m);
    for (std::size_t i = 0; i < s->wi_regions.size(); ++i) {
      const wi_region& r = s->wi_regions[i];
      if (!r.call_site && r.line == w.line && r.file == file && r.function == function && r.tag == tag &&
          (r.tag.empty() == (w.tag == nullptr)))
        return std::uint64_t{1} << i;
    }
    if (s->wi_regions.size() < wi_max_regions) {
      wi_region r;
      r.file = file;
      r.line = w.line;
      r.function = function;
      r.tag = tag;
      r.name = w.tag ? tag : short_site_name(file, w.line);
      s->wi_regions.push_back(std::move(r));
      return std::uint64_t{1} << (s->wi_regions.size() - 1);
    }
  }
  misuse(s, w,
         "more than " + std::to_string(wi_max_regions) +
             " what-if regions in one measurement; this one is not analysed");
  return 0;
}

// A call site's what-if bits: the named call sites it matches, and the assumed bit.
FORKSCALE_DETAIL_NOINLINE inline std::uint64_t wi_call_bits_slow(session* s, const site& w) {
  std::uint64_t bits = 0;
  const wi_config& c = s->wi;
  for (std::size_t i = 0; i < c.call_sites.size(); ++i)
    if (spec_matches(c.call_sites[i], w)) bits |= std::uint64_t{1} << i;
  for (const wi_spec& a : c.assume)
    if (spec_matches(a, w)) bits |= wi_assumed_bit;
  if (bits & wi_region_bits) {
    std::lock_guard<std::mutex> g(s->m);
    for (std::uint64_t m = bits & wi_region_bits; m; m &= m - 1) {
      wi_region& r = s->wi_regions[static_cast<unsigned>(__builtin_ctzll(m))];
      if (r.file.empty() && r.line == 0) {
        r.file = w.file ? w.file : "";
        r.line = w.line;
        r.function = w.function ? w.function : "";
        r.tag = w.tag ? w.tag : "";
      }
    }
  }
  return bits;
}

// The bits of a site (a guard's region, or a call site's), cached per thread.
inline std::uint64_t wi_site_bits(session* s, const site& w, bool call) {
  struct slot {
    std::uint64_t serial = 0;
    const char* file = nullptr;
    const char* function = nullptr;
    const char* tag = nullptr;
    unsigned line = 0;
    bool call = false;
    std::uint64_t bits = 0;
  };
  static thread_local slot cache[64];
  const std::uintptr_t h = (reinterpret_cast<std::uintptr_t>(w.file) >> 4) ^
                           (reinterpret_cast<std::uintptr_t>(w.tag) >> 4) ^ (w.line * 0x9E3779B1u) ^
                           static_cast<std::uintptr_t>(call);
  slot& e = cache[h & 63u];
  if (FORKSCALE_DETAIL_LIKELY(e.serial == s->serial && e.file == w.file && e.line == w.line &&
                              e.function == w.function && e.tag == w.tag && e.call == call))
    return e.bits;
  const std::uint64_t bits = call ? wi_call_bits_slow(s, w) : wi_region_bit_slow(s, w);
  e.serial = s->serial;
  e.file = w.file;
  e.function = w.function;
  e.tag = w.tag;
  e.line = w.line;
  e.call = call;
  e.bits = bits;
  return bits;
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

  // Site profiles (docs/model.md). The frame's path value is (t.pos, id) plus `pp`
  // and the records in `rel` not yet pushed onto pp.node.
  bool profile = false;
  unsigned char inv_flags = 0;     // this task's own invocation
  unsigned rel_n = 0;
  std::uint32_t inv_site = 0;
  std::uint64_t id = root_task_id;  // task id (tie-break at joins)
  std::uint64_t own_spawns = 0;     // spawns made by this task, for its children's ids
  std::uint64_t own_local = 0;      // cost of strands of the innermost open invocation
  std::uint64_t own_task = 0;       // cost of this task's own strands
  std::uint64_t pos0 = 0, u0 = 0, ut0 = 0;  // at the task's start
  const site_context* ctx = nullptr;  // sites of the invocations open here
  path_prof pp;
  std::int64_t credits = 0;  // references to pp.node taken in advance, for spawns
  prof_record rel[prof_node::capacity];
  // What-if regions open here (inherited by children) and the session's mode bits.
  std::uint64_t wi_mask = 0;
};

// Appends a finished invocation's on-span record to the frame's path.
// Gives back the references to the frame's chain head taken in advance; call
// before the head changes.
inline void drop_credits(frame& f) noexcept {
  if (f.credits) {
    f.pp.node->refs.fetch_sub(f.credits, std::memory_order_release);
    f.credits = 0;
  }
}

inline void append_record(frame& f, const prof_record& r) {
  if (f.rel_n == prof_node::capacity) {
    drop_credits(f);
    push_records(f.pp.node, f.rel, f.rel_n);
    f.rel_n = 0;
  }
  f.rel[f.rel_n++] = r;
}

// Makes the frame's path value shareable: its records go onto its chain.
inline prof_node* freeze_path(frame& f) {
  if (f.rel_n) {
    drop_credits(f);
    push_records(f.pp.node, f.rel, f.rel_n);
    f.rel_n = 0;
  }
  return f.pp.node;
}

// A reference to the frame's path for a child: one atomic add per 64 spawns.
inline prof_node* share_path(frame& f) {
  prof_node* p = freeze_path(f);
  if (!p) return nullptr;
  if (FORKSCALE_DETAIL_UNLIKELY(f.credits == 0)) {
    p->refs.fetch_add(64, std::memory_order_relaxed);
    f.credits = 64;
  }
  --f.credits;
  return p;
}

// Takes the frame's path away from it (its end): the caller owns the reference.
inline prof_node* take_path(frame& f) {
  prof_node* p = freeze_path(f);
  drop_credits(f);
  f.pp.node = nullptr;
  return p;
}

// What a call_site guard keeps to make its invocation's record.
struct call_state {
  const site_context* ctx = nullptr;  // the caller's
  std::uint64_t own_local = 0;        // the caller's
  std::uint64_t pos0 = 0, work0 = 0, u0 = 0;
  std::uint32_t site = 0;
  unsigned char flags = 0;
  bool wi_set = false;            // the call entered what-if regions (or an assumed site)
  std::uint64_t wi_saved = 0;     // the caller's what-if mask
};

// What a spawn hands to its child: where to report and the path lengths at the
// spawn point. Move-only: a spawn is consumed exactly once.
struct spawn_token {
  join_set* target = nullptr;
  region_node* region = nullptr;
  std::uint64_t pos = 0, bpos = 0, rpos = 0;
  // Site profiles: the child's id, its invocation and the spawner's path value.
  std::uint64_t id = 0;
  const site_context* ctx = nullptr;
  std::uint32_t site = 0;
  unsigned char flags = 0;
  bool profile = false;
  path_prof pp;
  std::uint64_t wi_mask = 0;
  wi_vec* wi = nullptr;  // the spawner's what-if offsets (a copy the child takes)

  spawn_token() = default;
  spawn_token(const spawn_token&) = delete;
  spawn_token& operator=(const spawn_token&) = delete;
  spawn_token(spawn_token&& o) noexcept { take(o); }
  ~spawn_token();  // a token never used releases its join (engine.hpp)
  spawn_token& operator=(spawn_token&& o) noexcept {
    if (this != &o) {
      this->~spawn_token();
      take(o);
    }
    return *this;
  }
  void take(spawn_token& o) noexcept {
    target = o.target;
    region = o.region;
    pos = o.pos;
    bpos = o.bpos;
    rpos = o.rpos;
    id = o.id;
    ctx = o.ctx;
    site = o.site;
    flags = o.flags;
    profile = o.profile;
    pp = o.pp;
    wi_mask = o.wi_mask;
    wi = o.wi;
    o.target = nullptr;
    o.pp.node = nullptr;
    o.wi = nullptr;
  }
  explicit operator bool() const noexcept { return target != nullptr; }
};

}  // namespace detail

FORKSCALE_NAMESPACE_END
