// detail/record/call_tree.hpp: the call paths of recorded strands, interned once
// per process. A path is a node of a tree whose edges are call sites and spawn
// sites; node 0 is a measurement's root. Recursion is folded: a site already on
// the path takes the path back to it, so fib has five paths, not 2^n. Lookups
// go through a per-thread direct-mapped cache keyed by the addresses a site
// holds; only misses take the tree's lock.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "../../record.hpp"
#include "../../site.hpp"
#include "../macro_scope.hpp"
#include "../util/strings.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

class call_tree {
 public:
  using kind_type = record_frame::kind_type;
  static constexpr std::uint32_t no_parent = 0xffffffffu;

  static call_tree& instance() {
    static call_tree* t = new call_tree;  // never destroyed: late threads may use it
    return *t;
  }

  // The path `where` opens inside `parent` (kind call or spawn). `missed` is set
  // when the lookup went to the tree (a lock, maybe allocations).
  std::uint32_t child(std::uint32_t parent, const site& where, kind_type kind, bool& missed) {
    return cached(parent, where, kind, missed);
  }
  // A site on its own (a sync_point's), as an index into sites().
  std::uint32_t site_index(const site& where, bool& missed) {
    return cached(no_parent, where, kind_type::root, missed);
  }

  // Copies for a record: the first `sizes` (from sizes()) of the nodes and
  // sites; the tree only grows, so they are what was interned then.
  void snapshot(std::vector<record_frame>& frames, std::vector<record_site>& sites,
                std::pair<std::size_t, std::size_t> sizes) {
    std::lock_guard<std::mutex> g(m_);
    frames.assign(nodes_.begin(), nodes_.begin() + static_cast<std::ptrdiff_t>(std::min(sizes.first, nodes_.size())));
    sites.assign(sites_.begin(), sites_.begin() + static_cast<std::ptrdiff_t>(std::min(sizes.second, sites_.size())));
  }
  // How many nodes and sites are interned so far.
  std::pair<std::size_t, std::size_t> sizes() {
    std::lock_guard<std::mutex> g(m_);
    return {nodes_.size(), sites_.size()};
  }
  // A copy of the sites alone (the lock profile names its rows with them).
  std::vector<record_site> sites() {
    std::lock_guard<std::mutex> g(m_);
    return sites_;
  }

 private:
  call_tree() { nodes_.push_back(record_frame{}); }

  struct cache_entry {
    std::uint32_t parent = 0;
    kind_type kind = kind_type::root;
    const char* file = nullptr;
    const char* function = nullptr;
    const char* tag = nullptr;
    unsigned line = 0;
    std::uint32_t value = 0;
    std::uint64_t generation = 0;  // 0: empty
  };
  static constexpr std::size_t cache_size = 1024;

  std::uint32_t cached(std::uint32_t parent, const site& w, kind_type kind, bool& missed) {
    static thread_local cache_entry cache[cache_size];
    std::uintptr_t h = reinterpret_cast<std::uintptr_t>(w.file) ^ (reinterpret_cast<std::uintptr_t>(w.function) << 1) ^
                       (reinterpret_cast<std::uintptr_t>(w.tag) << 2);
    h ^= (static_cast<std::uintptr_t>(w.line) * 0x9E3779B97F4A7C15ull) ^ (std::uintptr_t(parent) << 7) ^
         static_cast<std::uintptr_t>(kind);
    h ^= h >> 29;
    cache_entry& e = cache[(h * 0xBF58476D1CE4E5B9ull >> 40) % cache_size];
    if (e.generation != 0 && e.parent == parent && e.kind == kind && e.file == w.file && e.line == w.line &&
        e.function == w.function && e.tag == w.tag)
      return e.value;
    missed = true;
    const std::uint32_t v = parent == no_parent ? intern_site(w) : intern_node(parent, w, kind);
    e = cache_entry{parent, kind, w.file, w.function, w.tag, w.line, v, 1};
    return v;
  }

  std::uint32_t intern_site_locked(const site& w) {
    const bool tagged = w.tag != nullptr && *w.tag != '\0';
    std::string key = std::string(w.file ? w.file : "") + '\n' + std::to_string(w.line) + '\n' +
                      (w.function ? w.function : "") + '\n' + (tagged ? "1" : "0") + (tagged ? w.tag : "");
    auto it = site_index_.find(key);
    if (it != site_index_.end()) return it->second;
    record_site s;
    s.file = w.file ? w.file : "";
    s.line = w.line;
    s.function = w.function ? w.function : "";
    if (tagged) s.tag = w.tag;
    if (tagged) {
      s.name = s.tag;
    } else {
      s.name = short_site_name(s.file, s.line);
    }
    const auto id = static_cast<std::uint32_t>(sites_.size());
    sites_.push_back(std::move(s));
    site_index_.emplace(std::move(key), id);
    return id;
  }

  std::uint32_t intern_site(const site& w) {
    std::lock_guard<std::mutex> g(m_);
    return intern_site_locked(w);
  }

  std::uint32_t intern_node(std::uint32_t parent, const site& w, kind_type kind) {
    std::lock_guard<std::mutex> g(m_);
    const std::uint32_t s = intern_site_locked(w);
    // Folded recursion: the same site and kind already on the path.
    for (std::uint32_t n = parent; n != 0; n = nodes_[n].parent)
      if (nodes_[n].site == s && nodes_[n].kind == kind) return n;
    const auto key = std::make_tuple(parent, s, static_cast<unsigned char>(kind));
    auto it = node_index_.find(key);
    if (it != node_index_.end()) return it->second;
    record_frame f;
    f.parent = parent;
    f.kind = kind;
    f.site = s;
    f.depth = nodes_[parent].depth + 1;
    const auto id = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back(f);
    node_index_.emplace(key, id);
    return id;
  }

  std::mutex m_;
  std::vector<record_frame> nodes_;
  std::vector<record_site> sites_;
  std::unordered_map<std::string, std::uint32_t> site_index_;
  std::map<std::tuple<std::uint32_t, std::uint32_t, unsigned char>, std::uint32_t> node_index_;
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
