// detail/profile/sites.hpp: call and spawn sites, interned once per process, and
// the sets of sites open above an invocation ("contexts"). An invocation finds
// its site id and whether it is a top-call-site / top-caller invocation in its
// site's slot in this thread (site_step_for): no hash, no lookup; only misses
// look further, and only what no thread-local cache holds takes the registry's
// lock.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "../../site.hpp"
#include "../macro_scope.hpp"
#include "prof_records.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

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
  unsigned char flags = 0;  // prof_top_call_site | prof_top_caller
  // This lookup missed the thread's cache and went to the registry (a lock, maybe
  // allocations: microseconds, once per site, context and thread). The engine
  // then starts the next strand after it, so that the cost lands in no strand.
  bool registered = false;
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
    st.flags = static_cast<unsigned char>((seen_site ? 0 : prof_top_call_site) | (seen_fn ? 0 : prof_top_caller));
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
    if (f == functions_.end()) f = functions_.emplace(e.function, static_cast<std::uint32_t>(functions_.size())).first;
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

// The per-thread caches in front of site_registry::step, keyed by the pointers
// the site holds (string literals from __builtin_FILE and friends, or the user's
// static tags), never by their text.
//
// First, a site's slot: one per site and thread (a table indexed by the site's
// line and file, direct-mapped), holding the site's id and its steps from the
// last two contexts it was reached from — a recursive site is reached from two
// in turn, from outside itself and from inside. A hit costs no hash and no
// lookup: the site compared, then the context. Behind it, a cache of (context,
// site) pairs, for the site reached from more contexts than that or whose slot
// another site took; only a miss there takes the registry's lock.
struct site_cache_entry {
  const site_context* ctx = nullptr;
  const char* file = nullptr;
  const char* function = nullptr;
  const char* tag = nullptr;
  unsigned line = 0;
  site_kind kind = site_kind::root;
  site_step step;
};

struct site_slot {
  // The site: all zero in an empty slot, whose ways are empty too (no context is
  // null), so that the table is zero-initialized storage.
  const char* file = nullptr;
  const char* function = nullptr;
  const char* tag = nullptr;
  std::uint64_t line_kind = 0;  // line | kind << 32
  std::uint32_t site = 0;
  struct way {
    const site_context* ctx = nullptr;
    const site_context* next = nullptr;
    unsigned char flags = 0;
  } ways[2];
};

inline constexpr unsigned site_slot_count = 256;

inline std::uint64_t site_line_kind(const site& where, site_kind kind) noexcept {
  return static_cast<std::uint64_t>(where.line) | static_cast<std::uint64_t>(kind) << 32;
}

inline site_slot& site_slot_for(const site& where, site_kind kind) noexcept {
  static thread_local site_slot slots[site_slot_count];
  const auto h = static_cast<unsigned>(where.line * 2u + static_cast<unsigned>(kind)) ^
                 static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(where.file) >> 4);
  return slots[h & (site_slot_count - 1)];
}

// The slot missed: the (context, site) cache, then the registry. The slot then
// holds the site with this context's step first.
FORKSCALE_DETAIL_NOINLINE inline site_step site_step_missed(site_slot& s, const site_context* ctx, const site& where,
                                                            site_kind kind) {
  static thread_local site_cache_entry cache[512];
  std::uint64_t h = reinterpret_cast<std::uintptr_t>(ctx) * 0x9E3779B97F4A7C15ull;
  h ^= reinterpret_cast<std::uintptr_t>(where.file) * 0xC2B2AE3D27D4EB4Full;
  h ^= (static_cast<std::uint64_t>(where.line) << 2 | static_cast<std::uint64_t>(kind)) * 0x165667B19E3779F9ull;
  h ^= reinterpret_cast<std::uintptr_t>(where.tag);
  site_cache_entry& e = cache[(h ^ (h >> 29)) & 511u];
  site_step st;
  if (e.ctx == ctx && e.file == where.file && e.line == where.line && e.function == where.function &&
      e.tag == where.tag && e.kind == kind) {
    st = e.step;
  } else {
    st = site_registry::instance().step(ctx, where, kind);
    e.ctx = ctx;
    e.file = where.file;
    e.function = where.function;
    e.tag = where.tag;
    e.line = where.line;
    e.kind = kind;
    e.step = st;
    st.registered = true;
  }
  const std::uint64_t lk = site_line_kind(where, kind);
  if (s.file != where.file || s.function != where.function || s.tag != where.tag || s.line_kind != lk) {
    s.file = where.file;
    s.function = where.function;
    s.tag = where.tag;
    s.line_kind = lk;
    s.ways[0] = site_slot::way{};
  }
  s.site = st.site;
  s.ways[1] = s.ways[0];
  s.ways[0].ctx = ctx;
  s.ways[0].next = st.next;
  s.ways[0].flags = st.flags;
  return st;
}

// The step of invoking `where` (a call or a spawn site) from context `ctx`.
FORKSCALE_DETAIL_ALWAYS_INLINE site_step site_step_for(const site_context* ctx, const site& where, site_kind kind) {
  site_slot& s = site_slot_for(where, kind);
  const std::uint64_t differs =
      (reinterpret_cast<std::uintptr_t>(s.file) ^ reinterpret_cast<std::uintptr_t>(where.file)) |
      (reinterpret_cast<std::uintptr_t>(s.function) ^ reinterpret_cast<std::uintptr_t>(where.function)) |
      (reinterpret_cast<std::uintptr_t>(s.tag) ^ reinterpret_cast<std::uintptr_t>(where.tag)) |
      (s.line_kind ^ site_line_kind(where, kind));
  if (FORKSCALE_DETAIL_LIKELY(differs == 0)) {
    const site_slot::way* w = s.ways[0].ctx == ctx ? &s.ways[0] : s.ways[1].ctx == ctx ? &s.ways[1] : nullptr;
    if (FORKSCALE_DETAIL_LIKELY(w != nullptr)) {
      site_step st;
      st.next = w->next;
      st.site = s.site;
      st.flags = w->flags;
      return st;
    }
  }
  return site_step_missed(s, ctx, where, kind);
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
