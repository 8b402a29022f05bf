// detail/profile/chain.hpp: the on-span half of the site profiles. Every finished
// invocation's record is appended to the path value of the point where it ends: a
// chain of shared, reference-counted nodes (a child and its spawner share their
// common prefix) that is folded into one per-site array once it holds more
// records than there are sites — Cilkprof §5's list/array hybrid, made persistent.
// A join keeps the winning path's chain and drops the others.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "../../config.hpp"
#include "../macro_scope.hpp"
#include "../util/pool.hpp"
#include "prof_records.hpp"
#include "sites.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

struct prof_node {
  static constexpr unsigned capacity = prof_records_per_node;
  std::atomic<std::int64_t> refs{1};
  prof_node* parent = nullptr;
  std::uint32_t count = 0;                   // records in `records`
  std::uint32_t records_below = 0;           // records here and below, down to the nearest folded node
  std::vector<site_sums>* folded = nullptr;  // a folded node: everything below it, summed
  prof_record records[capacity];
  prof_node* next_free = nullptr;  // pool link
};

// A join of two paths: `kept` (ending at kept_span) becomes the longer of itself
// and `incoming` (ties by task id, docs/model.md); returns the loser, whose chain
// reference the caller drops (outside any lock).
inline path_prof keep_longer(path_prof& kept, std::uint64_t kept_span, const path_prof& incoming,
                             std::uint64_t incoming_span) noexcept {
  if (!path_beats(incoming_span, incoming.task, kept_span, kept.task)) return incoming;
  const path_prof loser = kept;
  kept = incoming;
  return loser;
}

inline std::atomic<std::size_t>& prof_array_bytes() noexcept {
  static std::atomic<std::size_t> b{0};
  return b;
}

inline prof_node* new_prof_node() {
  prof_node* p = object_cache<prof_node>::local().take();
  p->refs.store(1, std::memory_order_relaxed);
  p->parent = nullptr;
  p->count = 0;
  p->records_below = 0;
  p->folded = nullptr;
  return p;
}

// Drops one reference; frees what is no longer shared, down the chain.
inline void release_prof(prof_node* p) noexcept {
  while (p) {
    // The sole owner frees without a read-modify-write: nobody else can add a
    // reference to a node no one else holds.
    if (p->refs.load(std::memory_order_acquire) != 1 && p->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    prof_node* parent = p->parent;
    if (p->folded) {
      prof_array_bytes().fetch_sub(p->folded->capacity() * sizeof(site_sums), std::memory_order_relaxed);
      delete p->folded;
      p->folded = nullptr;
    }
    object_cache<prof_node>::local().put(p);
    p = parent;
  }
}

// A spawn's profile slot given up unused: its reference to the spawner's chain
// goes.
inline void release_spawn_profile(spawn_profile& p) noexcept {
  release_prof(p.path.chain);
  p.path.chain = nullptr;
}

// Sizes `out` for every site registered so far: every site a record names is
// registered already, so summing into it allocates once.
inline void size_for_sites(std::vector<site_sums>& out) {
  const std::size_t sites = site_registry::instance().count();
  if (out.size() < sites) out.resize(sites);
}

// Adds the records held in node `p` (not its folded sums) into `out`.
inline void add_node_records(const prof_node& p, std::vector<site_sums>& out) {
  for (std::uint32_t i = 0; i < p.count; ++i) {
    if (out.size() <= p.records[i].site) out.resize(p.records[i].site + 1u);
    out[p.records[i].site].add(p.records[i]);
  }
}

// Adds everything in the chain starting at `p` into `out`.
inline void sum_chain(const prof_node* p, std::vector<site_sums>& out) {
  size_for_sites(out);
  for (; p; p = p->parent) {
    if (p->folded) {
      if (out.size() < p->folded->size()) out.resize(p->folded->size());
      for (std::size_t i = 0; i < p->folded->size(); ++i) out[i].add((*p->folded)[i]);
    }
    add_node_records(*p, out);
  }
}

// A chain is folded once it holds more records than this (at least 16; the
// number of sites registered so far).
inline std::uint32_t fold_limit() noexcept { return std::max<std::uint32_t>(16, site_registry::instance().count()); }

// Folds in place when nobody else holds any node of the chain `head`: every
// node down to a folded one at its bottom has one reference (the caller's, or
// the parent link from the node above). Then the records above are added into
// that node's sums and their nodes freed: no allocation, and the sums already
// folded are not copied. Returns false (nothing done) otherwise.
inline bool fold_chain_in_place(prof_node*& head) {
  prof_node* p = head;
  for (; p && !p->folded; p = p->parent)
    if (p->refs.load(std::memory_order_acquire) != 1) return false;
  if (!p || p->refs.load(std::memory_order_acquire) != 1) return false;
  std::vector<site_sums>& sums = *p->folded;
  const std::size_t before = sums.capacity();
  size_for_sites(sums);
  for (prof_node* n = head; n != p;) {
    add_node_records(*n, sums);
    prof_node* parent = n->parent;
    object_cache<prof_node>::local().put(n);
    n = parent;
  }
  if (sums.capacity() != before)
    prof_array_bytes().fetch_add((sums.capacity() - before) * sizeof(site_sums), std::memory_order_relaxed);
  p->records_below = 0;
  head = p;
  return true;
}

// Replaces the chain `head` (whose reference the caller holds) by one folded node
// with the same sums.
inline void fold_chain(prof_node*& head) {
  if (fold_chain_in_place(head)) return;
  auto* sums = new std::vector<site_sums>;
  sum_chain(head, *sums);
  prof_array_bytes().fetch_add(sums->capacity() * sizeof(site_sums), std::memory_order_relaxed);
  prof_node* a = new_prof_node();
  a->folded = sums;
  release_prof(head);
  head = a;
}

// Pushes `n` records on top of the chain `*head` (whose reference the new node
// takes over); folds the chain into one array node once it has grown past the
// fold limit, so a chain never holds more than O(sites) records.
inline void push_records(prof_node*& head, const prof_record* recs, unsigned n) {
  prof_node* p = new_prof_node();
  p->parent = head;
  p->count = n;
  for (unsigned i = 0; i < n; ++i) p->records[i] = recs[i];
  p->records_below = (head ? head->records_below : 0) + n;
  head = p;
  if (FORKSCALE_DETAIL_UNLIKELY(p->records_below > fold_limit())) fold_chain(head);
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
