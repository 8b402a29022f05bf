// detail/profile.hpp: the data behind the per-site profiles (docs/model.md,
// "Per-site profiles"; Cilkprof SPAA'15 §4–§6, TaskProf FSE'17).
//
// - Sites and the sets of sites open above an invocation ("contexts") are interned
//   once per process. An invocation finds its site id and whether it is a
//   top-call-site / top-caller invocation with one lookup of (context, site) in a
//   per-thread direct-mapped cache; misses take a process-wide lock.
// - Every finished invocation is a record. Its on-work part goes to a per-thread
//   table of per-site sums. Its on-span part is appended to the path value of the
//   point where it ends: a chain of shared, reference-counted nodes (so that a
//   child and its spawner share their common prefix) that is folded into one
//   per-site array once it holds more records than there are sites (Cilkprof §5's
//   list/array hybrid, made persistent). A join keeps the winning path's chain.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../../site.hpp"
#include "../macro_scope.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// SplitMix64's finalizer: task ids for the deterministic tie-break at joins.
inline std::uint64_t mix64(std::uint64_t z) noexcept {
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ull;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z;
}
inline std::uint64_t child_task_id(std::uint64_t parent, std::uint64_t k) noexcept {
  return mix64(parent + k * 0x9E3779B97F4A7C15ull) | 1u;
}
constexpr std::uint64_t root_task_id = 1;

// Does the path (pos, key) beat (other_pos, other_key) at a join?
inline bool path_beats(std::uint64_t pos, std::uint64_t key, std::uint64_t other_pos,
                       std::uint64_t other_key) noexcept {
  return pos > other_pos || (pos == other_pos && key > other_key);
}

enum : unsigned char { rec_top_call_site = 1, rec_top_caller = 2, rec_task = 4 };

// One finished invocation. Times in clock ticks. No default member initializers:
// frames and nodes hold arrays of these that must cost nothing to construct
// (make one with prof_record r{}).
struct prof_record {
  std::uint32_t site;
  unsigned char flags;
  std::uint64_t work;
  std::int64_t span;
  std::uint64_t local_work;
  std::int64_t local_span;
  std::uint64_t task_work;  // tasks only: the task's own strands
  std::int64_t task_span;   // tasks only: exclusive span
};

// Per-site sums of records.
struct site_sums {
  std::uint64_t tcs_n = 0, tcs_work = 0;
  std::int64_t tcs_span = 0;
  std::uint64_t tc_n = 0, tc_work = 0;
  std::int64_t tc_span = 0;
  std::uint64_t n = 0, local_work = 0;
  std::int64_t local_span = 0;
  std::uint64_t task_work = 0;
  std::int64_t task_span = 0;

  void add(const prof_record& r) noexcept {
    if (r.flags & rec_top_call_site) {
      ++tcs_n;
      tcs_work += r.work;
      tcs_span += r.span;
    }
    if (r.flags & rec_top_caller) {
      ++tc_n;
      tc_work += r.work;
      tc_span += r.span;
    }
    ++n;
    local_work += r.local_work;
    local_span += r.local_span;
    task_work += r.task_work;
    task_span += r.task_span;
  }
  void add(const site_sums& o) noexcept {
    tcs_n += o.tcs_n;
    tcs_work += o.tcs_work;
    tcs_span += o.tcs_span;
    tc_n += o.tc_n;
    tc_work += o.tc_work;
    tc_span += o.tc_span;
    n += o.n;
    local_work += o.local_work;
    local_span += o.local_span;
    task_work += o.task_work;
    task_span += o.task_span;
  }
};

// ---- sites and contexts ------------------------------------------------------

struct site_entry {
  std::string file, function, tag;
  unsigned line = 0;
  bool has_tag = false;
  site_kind kind = site_kind::call;
  std::uint32_t function_id = 0;
};

// The sites of the invocations open above a point (a set), and what opening one
// more invocation does to it.
struct site_context {
  std::vector<std::uint32_t> sites;      // sorted
  std::vector<std::uint32_t> functions;  // sorted
};

struct site_step {
  const site_context* next = nullptr;
  std::uint32_t site = 0;
  unsigned char flags = 0;  // rec_top_call_site | rec_top_caller
};

class site_registry {
 public:
  static site_registry& instance() {
    static site_registry* r = new site_registry;  // never destroyed: late threads may use it
    return *r;
  }

  const site_context* empty() const noexcept { return empty_; }
  std::uint32_t count() const noexcept { return count_.load(std::memory_order_acquire); }

  FORKSCALE_DETAIL_NOINLINE site_step step(const site_context* ctx, const site& where, site_kind kind) {
    std::lock_guard<std::mutex> g(m_);
    const std::uint32_t id = intern_site(where, kind);
    auto& memo = steps_[ctx];
    auto it = memo.find(id);
    if (it != memo.end()) return it->second;
    const std::uint32_t fn = entries_[id].function_id;
    site_step st;
    st.site = id;
    const bool seen_site = std::binary_search(ctx->sites.begin(), ctx->sites.end(), id);
    const bool seen_fn = std::binary_search(ctx->functions.begin(), ctx->functions.end(), fn);
    st.flags = static_cast<unsigned char>((seen_site ? 0 : rec_top_call_site) | (seen_fn ? 0 : rec_top_caller));
    if (seen_site) {
      st.next = ctx;
    } else {
      std::vector<std::uint32_t> s = ctx->sites;
      s.insert(std::upper_bound(s.begin(), s.end(), id), id);
      auto found = contexts_.find(s);
      if (found != contexts_.end()) {
        st.next = found->second;
      } else {
        auto c = std::make_unique<site_context>();
        c->sites = s;
        c->functions = ctx->functions;
        if (!seen_fn) c->functions.insert(std::upper_bound(c->functions.begin(), c->functions.end(), fn), fn);
        st.next = c.get();
        contexts_.emplace(std::move(s), c.get());
        owned_.push_back(std::move(c));
      }
    }
    memo.emplace(id, st);
    return st;
  }

  // A copy of the entries [0, n) for a report.
  std::vector<site_entry> entries(std::uint32_t n) {
    std::lock_guard<std::mutex> g(m_);
    n = std::min<std::uint32_t>(n, static_cast<std::uint32_t>(entries_.size()));
    return std::vector<site_entry>(entries_.begin(), entries_.begin() + n);
  }

  std::size_t bytes() {
    std::lock_guard<std::mutex> g(m_);
    std::size_t b = entries_.size() * sizeof(site_entry) + owned_.size() * sizeof(site_context);
    for (const auto& c : owned_) b += (c->sites.size() + c->functions.size()) * sizeof(std::uint32_t);
    for (const auto& kv : steps_) b += kv.second.size() * (sizeof(site_step) + 16);
    return b;
  }

 private:
  site_registry() {
    auto c = std::make_unique<site_context>();
    empty_ = c.get();
    owned_.push_back(std::move(c));
  }

  std::uint32_t intern_site(const site& where, site_kind kind) {
    std::string key;
    key += static_cast<char>('0' + static_cast<int>(kind));
    key += where.file ? where.file : "";
    key += '\0';
    key += std::to_string(where.line);
    key += '\0';
    key += where.function ? where.function : "";
    key += '\0';
    if (where.tag) {
      key += '1';
      key += where.tag;
    }
    auto it = by_key_.find(key);
    if (it != by_key_.end()) return it->second;
    site_entry e;
    e.file = where.file ? where.file : "";
    e.function = where.function ? where.function : "";
    e.line = where.line;
    e.has_tag = where.tag != nullptr;
    e.tag = where.tag ? where.tag : "";
    e.kind = kind;
    auto f = functions_.find(e.function);
    if (f == functions_.end())
      f = functions_.emplace(e.function, static_cast<std::uint32_t>(functions_.size())).first;
    e.function_id = f->second;
    const auto id = static_cast<std::uint32_t>(entries_.size());
    entries_.push_back(std::move(e));
    by_key_.emplace(std::move(key), id);
    count_.store(static_cast<std::uint32_t>(entries_.size()), std::memory_order_release);
    return id;
  }

  std::mutex m_;
  std::deque<site_entry> entries_;
  std::unordered_map<std::string, std::uint32_t> by_key_;
  std::unordered_map<std::string, std::uint32_t> functions_;
  std::map<std::vector<std::uint32_t>, const site_context*> contexts_;
  std::vector<std::unique_ptr<site_context>> owned_;
  std::unordered_map<const site_context*, std::unordered_map<std::uint32_t, site_step>> steps_;
  const site_context* empty_ = nullptr;
  std::atomic<std::uint32_t> count_{0};
};

// The per-thread cache in front of site_registry::step. Keyed by the pointers the
// site holds (string literals from __builtin_FILE and friends, or the user's
// static tags), so a hit costs a hash and four compares.
struct site_cache_entry {
  const site_context* ctx = nullptr;
  const char* file = nullptr;
  const char* function = nullptr;
  const char* tag = nullptr;
  unsigned line = 0;
  site_kind kind = site_kind::root;
  site_step step;
};

inline site_step site_step_for(const site_context* ctx, const site& where, site_kind kind) {
  static thread_local site_cache_entry cache[512];
  std::uint64_t h = reinterpret_cast<std::uintptr_t>(ctx) * 0x9E3779B97F4A7C15ull;
  h ^= reinterpret_cast<std::uintptr_t>(where.file) * 0xC2B2AE3D27D4EB4Full;
  h ^= (static_cast<std::uint64_t>(where.line) << 2 | static_cast<std::uint64_t>(kind)) * 0x165667B19E3779F9ull;
  h ^= reinterpret_cast<std::uintptr_t>(where.tag);
  site_cache_entry& e = cache[(h ^ (h >> 29)) & 511u];
  if (FORKSCALE_DETAIL_LIKELY(e.ctx == ctx && e.file == where.file && e.line == where.line &&
                              e.function == where.function && e.tag == where.tag && e.kind == kind))
    return e.step;
  const site_step st = site_registry::instance().step(ctx, where, kind);
  e.ctx = ctx;
  e.file = where.file;
  e.function = where.function;
  e.tag = where.tag;
  e.line = where.line;
  e.kind = kind;
  e.step = st;
  return st;
}

// ---- on-span chains ------------------------------------------------------------

struct prof_node {
  static constexpr unsigned capacity = 4;
  std::atomic<std::int64_t> refs{1};
  prof_node* parent = nullptr;
  std::uint32_t n = 0;      // records in `recs`
  std::uint32_t since = 0;  // records here and below, down to the nearest array node
  std::vector<site_sums>* sums = nullptr;  // an array node: everything below it, summed
  prof_record recs[capacity];
  prof_node* next_free = nullptr;  // pool link
};

// What a path carries for the on-span profile: the tie-break key of the task it
// arrives from (in join sets and when a task ends), the running sums u and ut whose
// differences are local and exclusive spans, and the chain of records.
struct path_prof {
  std::uint64_t key = 0;
  std::uint64_t u = 0;
  std::uint64_t ut = 0;
  prof_node* node = nullptr;
};

// A join of two paths: `kept` (ending at kept_pos) becomes the longer of itself and
// `incoming` (ties by key, docs/model.md); returns the loser, whose chain reference
// the caller drops (outside any lock).
inline path_prof keep_longer(path_prof& kept, std::uint64_t kept_pos, const path_prof& incoming,
                             std::uint64_t incoming_pos) noexcept {
  if (!path_beats(incoming_pos, incoming.key, kept_pos, kept.key)) return incoming;
  const path_prof loser = kept;
  kept = incoming;
  return loser;
}

// Pooled allocation for fixed-size engine objects: a per-thread cache in front of
// a process-wide free list that is touched once per batch. Memory is kept for
// reuse, so the pool's size is the high-water mark.
template <class T>
class object_pool {
 public:
  static constexpr unsigned batch = 64;

  static object_pool& instance() noexcept {
    static object_pool* p = new object_pool;  // never destroyed: late threads may still return objects
    return *p;
  }

  T* take_batch(unsigned& count) {
    {
      std::lock_guard<std::mutex> g(m_);
      if (free_) {
        T* head = free_;
        T* tail = head;
        count = 1;
        while (count < batch && tail->next_free) {
          tail = tail->next_free;
          ++count;
        }
        free_ = tail->next_free;
        tail->next_free = nullptr;
        return head;
      }
    }
    auto* chunk = new T[batch];
    {
      std::lock_guard<std::mutex> g(m_);
      chunks_.push_back(chunk);
    }
    reserved_.fetch_add(sizeof(T) * batch, std::memory_order_relaxed);
    for (unsigned i = 0; i + 1 < batch; ++i) chunk[i].next_free = &chunk[i + 1];
    count = batch;
    return chunk;
  }

  void give_back(T* head, T* tail) {
    std::lock_guard<std::mutex> g(m_);
    tail->next_free = free_;
    free_ = head;
  }

  std::size_t reserved_bytes() const noexcept { return reserved_.load(std::memory_order_relaxed); }

 private:
  std::mutex m_;
  T* free_ = nullptr;
  std::vector<T*> chunks_;  // keeps the memory reachable
  std::atomic<std::size_t> reserved_{0};
};

template <class T>
struct object_cache {
  T* head = nullptr;
  unsigned count = 0;
  ~object_cache() {
    if (head) {
      T* tail = head;
      while (tail->next_free) tail = tail->next_free;
      object_pool<T>::instance().give_back(head, tail);
    }
  }

  static object_cache& local() noexcept {
    static thread_local object_cache cache;
    return cache;
  }

  T* take() {
    if (FORKSCALE_DETAIL_UNLIKELY(!head)) head = object_pool<T>::instance().take_batch(count);
    T* o = head;
    head = o->next_free;
    --count;
    o->next_free = nullptr;
    return o;
  }

  void put(T* o) noexcept {
    o->next_free = head;
    head = o;
    if (FORKSCALE_DETAIL_UNLIKELY(++count > 2 * object_pool<T>::batch)) {
      // Hand a batch back so a thread that only frees does not hoard memory.
      T* first = head;
      T* last = first;
      for (unsigned i = 1; i < object_pool<T>::batch; ++i) last = last->next_free;
      head = last->next_free;
      count -= object_pool<T>::batch;
      object_pool<T>::instance().give_back(first, last);
    }
  }
};

inline std::atomic<std::size_t>& prof_array_bytes() noexcept {
  static std::atomic<std::size_t> b{0};
  return b;
}

inline prof_node* new_prof_node() {
  prof_node* p = object_cache<prof_node>::local().take();
  p->refs.store(1, std::memory_order_relaxed);
  p->parent = nullptr;
  p->n = 0;
  p->since = 0;
  p->sums = nullptr;
  return p;
}

// Drops one reference; frees what is no longer shared, down the chain.
inline void release_prof(prof_node* p) noexcept {
  while (p) {
    // The sole owner frees without a read-modify-write: nobody else can add a
    // reference to a node no one else holds.
    if (p->refs.load(std::memory_order_acquire) != 1 &&
        p->refs.fetch_sub(1, std::memory_order_acq_rel) != 1)
      return;
    prof_node* parent = p->parent;
    if (p->sums) {
      prof_array_bytes().fetch_sub(p->sums->capacity() * sizeof(site_sums), std::memory_order_relaxed);
      delete p->sums;
      p->sums = nullptr;
    }
    object_cache<prof_node>::local().put(p);
    p = parent;
  }
}

// Adds everything in the chain starting at `p` into `out`.
inline void sum_chain(const prof_node* p, std::vector<site_sums>& out) {
  // Every site a record names is registered already: one allocation up front.
  const std::size_t sites = site_registry::instance().count();
  if (out.size() < sites) out.resize(sites);
  for (; p; p = p->parent) {
    if (p->sums) {
      if (out.size() < p->sums->size()) out.resize(p->sums->size());
      for (std::size_t i = 0; i < p->sums->size(); ++i) out[i].add((*p->sums)[i]);
    }
    for (std::uint32_t i = 0; i < p->n; ++i) {
      if (out.size() <= p->recs[i].site) out.resize(p->recs[i].site + 1u);
      out[p->recs[i].site].add(p->recs[i]);
    }
  }
}

// Pushes `n` records on top of the chain `*head` (whose reference the new node
// takes over); folds the chain into one array node once it has grown past the
// number of sites, so a chain never holds more than O(sites) records.
inline void push_records(prof_node*& head, const prof_record* recs, unsigned n) {
  prof_node* p = new_prof_node();
  p->parent = head;
  p->n = n;
  for (unsigned i = 0; i < n; ++i) p->recs[i] = recs[i];
  p->since = (head ? head->since : 0) + n;
  head = p;
  const std::uint32_t limit = std::max<std::uint32_t>(16, site_registry::instance().count());
  if (FORKSCALE_DETAIL_UNLIKELY(p->since > limit)) {
    auto* sums = new std::vector<site_sums>;
    sum_chain(p, *sums);
    prof_array_bytes().fetch_add(sums->capacity() * sizeof(site_sums), std::memory_order_relaxed);
    prof_node* a = new_prof_node();
    a->sums = sums;
    release_prof(head);
    head = a;
  }
}

// ---- on-work tables ------------------------------------------------------------

// One thread's on-work sums for one session. Only that thread writes it; the
// report reads it after every task has been joined (each write happens before the
// join that absorbs its task), and not at all when tasks may still be running.
struct onwork_table {
  std::vector<site_sums> sums;
  // What-if (what_if.hpp): entries per region, and work inside regions (index 0:
  // any region; r + 1: region r).
  std::vector<std::uint64_t> wi_entries;
  std::vector<std::uint64_t> wi_work;
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
