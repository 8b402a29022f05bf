// detail/measurement/record_build.hpp: the record of a finished measurement,
// built from the threads' buffers once every task has reported: strand ids become positions in
// a topological order of the graph, (set, round) pairs become joins, ticks
// become the report's unit and wall times nanoseconds since the start, and the
// critical path is read back from the winning predecessors.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../record.hpp"
#include "../../report.hpp"
#include "../engine/frame.hpp"
#include "../engine/session.hpp"
#include "../engine/units.hpp"
#include "../macro_scope.hpp"
#include "../record/buffer.hpp"
#include "../record/call_tree.hpp"
#include "../util/huge_pages.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Where the end of a measurement stands: the root's last strand, the finished
// children merged at its end, and the end of the longest path.
struct record_end {
  std::uint64_t last_strand = 0;
  std::uint64_t end_uid = 0;
  std::uint32_t end_round = 0;
  std::uint64_t critical_last = 0;
};

// What the record needs of its measurement, taken when the measurement ends:
// the threads' buffers (shared with the session while it lives), the unit, and
// the what-if regions the strands' bits name.
struct record_inputs {
  std::shared_ptr<record_state> rec;
  std::string unit;
  double unit_per_tick = 1.0;
  std::vector<what_if_known_region> what_if_regions;
  record_end end;
  // The call tree's size when the measurement ended (call_tree::sizes).
  std::pair<std::size_t, std::size_t> call_tree_sizes{0, 0};
  // The paths of the regions the buffers name (their nodes are the session's).
  std::map<const region_node*, std::string> region_paths;
};

// Rows of numbers in one array (compressed rows): row r is
// values[first[r]] .. values[first[r + 1] - 1], in the order its pairs were
// listed. One allocation for all rows instead of one per row.
class compressed_rows {
 public:
  struct row_view {
    const std::uint32_t *b, *e;
    const std::uint32_t* begin() const noexcept { return b; }
    const std::uint32_t* end() const noexcept { return e; }
    std::size_t size() const noexcept { return static_cast<std::size_t>(e - b); }
  };
  // From (row, value) pairs, rows < `rows`; a stable counting sort by row.
  void assign(std::uint32_t rows, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs) {
    reserve_huge(first_, std::size_t(rows) + 1);
    first_.assign(std::size_t(rows) + 1, 0);
    for (const auto& p : pairs) ++first_[std::size_t(p.first) + 1];
    for (std::size_t r = 0; r < rows; ++r) first_[r + 1] += first_[r];
    reserve_huge(values_, pairs.size());
    values_.resize(pairs.size());
    std::vector<std::size_t> next(first_.begin(), first_.end() - 1);
    for (const auto& p : pairs) values_[next[p.first]++] = p.second;
  }
  row_view row(std::uint32_t r) const noexcept { return {values_.data() + first_[r], values_.data() + first_[r + 1]}; }

 private:
  std::vector<std::size_t> first_;
  std::vector<std::uint32_t> values_;
};

class record_builder {
 public:
  explicit record_builder(const record_inputs& in) : in_(in), rs_(*in.rec), buffers_(in.rec->buffers()) {}

  std::shared_ptr<execution_record> build() {
    // A build that failed (out of memory) after freeing raw strands cannot be
    // tried again: record_ptr leaves the source for the next read.
    if (rs_.consumed)
      throw std::runtime_error(
          "forkscale: the record cannot be built: an earlier build ran out of memory after it had freed the threads' "
          "buffers");
    const record_end& end = in_.end;
    auto out = std::make_shared<execution_record>();
    execution_record& r = *out;
    r.unit = in_.unit;
    r.limit_bytes = rs_.limit();
    r.trace_limit = rs_.trace_limit;
    r.bytes = rs_.bytes();
    wall_factor_ = wall_factor(rs_.wall_kind());
    index_strands();
    for (const auto& b : buffers_) r.dropped_strands += b->dropped;
    r.complete = !rs_.limit_hit() && r.dropped_strands == 0;
    collect_joins(end);
    const std::vector<std::uint32_t> order = topological_order(r.complete);
    fill_strands(r, order);
    release(prev_, strand_join_);  // read by fill_strands alone
    fill_joins(r);
    fill_tasks(r);
    fill_critical_path(r, end.critical_last);
    fill_threads_and_regions(r);
    fill_locks(r);
    fill_what_if_regions(r);
    call_tree::instance().snapshot(r.frames, r.sites, in_.call_tree_sizes);
    return out;
  }

 private:
  static constexpr std::uint32_t none = 0xffffffffu;

  // Frees what a step of the build no longer needs, before the next allocates.
  template <class... V>
  static void release(V&... v) {
    ((v = V()), ...);
  }

  // A raw id's position among the buffers' strands, buffer after buffer (none for 0 or an id no buffer holds).
  std::uint32_t position(std::uint64_t id) const noexcept {
    if (id == 0) return none;
    const std::uint64_t b = (id >> record_id_shift) - 1;
    const std::uint64_t k = (id & record_id_mask) - 1;
    if (b >= buffers_.size() || k >= buffers_[b]->strands.size()) return none;
    return static_cast<std::uint32_t>(offset_[b] + k);
  }

  // The buffer (thread) that holds raw position `p` (offset_ is increasing).
  std::uint32_t thread_of(std::uint32_t p) const noexcept {
    const auto after = std::upper_bound(offset_.begin(), offset_.end(), std::uint64_t(p));
    return static_cast<std::uint32_t>(after - offset_.begin() - 1);
  }

  void index_strands() {
    std::uint64_t n = 0;
    for (const auto& b : buffers_) {
      offset_.push_back(n);
      n += b->strands.size();
    }
    strands_ = n;
    reserve_huge(prev_, n);
    prev_.resize(n);
    std::size_t at = 0;
    for (std::size_t t = 0; t < buffers_.size(); ++t)
      buffers_[t]->strands.each([&](const raw_strand& w) { prev_[at++] = position(w.prev); });
  }

  // The join of (uid, round), numbered in the order first asked for. The index
  // is one open-addressed table (linear probing, at most half full), not a node
  // per join.
  std::uint32_t join_of(std::uint64_t uid, std::uint32_t round) {
    if (2 * (joins_ + 1) > join_slots_.size()) grow_join_index();
    const std::size_t mask = join_slots_.size() - 1;
    for (std::size_t k = join_slot(uid, round) & mask;; k = (k + 1) & mask) {
      join_slot_entry& e = join_slots_[k];
      if (e.id == none) {
        e = join_slot_entry{uid, round, joins_++};
        return e.id;
      }
      if (e.uid == uid && e.round == round) return e.id;
    }
  }

  struct join_slot_entry {
    std::uint64_t uid = 0;
    std::uint32_t round = 0;
    std::uint32_t id = none;  // none: an empty slot
  };

  static std::size_t join_slot(std::uint64_t uid, std::uint32_t round) noexcept {
    std::uint64_t h = (uid ^ (std::uint64_t(round) << 40)) * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }

  void grow_join_index() {
    std::vector<join_slot_entry> old(std::max<std::size_t>(1024, 2 * join_slots_.size()));
    old.swap(join_slots_);
    const std::size_t mask = join_slots_.size() - 1;
    for (const join_slot_entry& e : old) {
      if (e.id == none) continue;
      std::size_t k = join_slot(e.uid, e.round) & mask;
      while (join_slots_[k].id != none) k = (k + 1) & mask;
      join_slots_[k] = e;
    }
  }

  void collect_joins(const record_end& end) {
    // Room for about as many joins as there are edges (it grows when needed).
    std::size_t edges = 1;
    for (const auto& b : buffers_) edges += b->edges.size();
    std::size_t slots = 1024;
    while (slots < 2 * edges) slots *= 2;
    reserve_huge(join_slots_, slots);
    join_slots_.assign(slots, join_slot_entry{});
    reserve_huge(strand_join_, strands_);
    strand_join_.assign(strands_, none);
    // What is reported to each join, as (join, strand) and (join, join) pairs
    // in the order the buffers list them; then one array of rows per kind.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> strands_in, joins_in;
    reserve_huge(strands_in, edges);
    std::size_t at = 0;
    for (const auto& b : buffers_)
      b->strands.each([&](const raw_strand& w) {
        if (w.join_uid != 0) strand_join_[at] = join_of(w.join_uid, w.join_round);
        ++at;
      });
    for (const auto& b : buffers_)
      for (std::size_t k = 0; k < b->edges.size(); ++k) {
        const raw_edge& e = b->edges[k];
        const std::uint32_t to = join_of(e.to_uid, e.to_round);
        const std::uint32_t from = position(e.from_strand);
        if (from != none) strands_in.emplace_back(to, from);
        if (e.from_uid != 0) {
          const std::uint32_t j = join_of(e.from_uid, e.from_round);
          joins_in.emplace_back(to, j);
        }
      }
    // The measurement's end: its last strand and the children merged there.
    end_join_ = join_of(0, 0);
    if (const std::uint32_t p = position(end.last_strand); p != none) strands_in.emplace_back(end_join_, p);
    if (end.end_uid != 0) joins_in.emplace_back(end_join_, join_of(end.end_uid, end.end_round));
    join_strands_.assign(joins_, strands_in);
    join_joins_.assign(joins_, joins_in);
    release(join_slots_);  // every join is numbered: the index is done with
  }

  // Kahn's algorithm over strands (0..n) and joins (n..): predecessors of a
  // strand are its prev and its join; of a join, its strands and joins.
  std::vector<std::uint32_t> topological_order(bool& complete) {
    const std::size_t n = strands_, m = joins_;
    // The successors in one array (compressed rows: node v's are succ[first[v]],
    // ..., succ[first[v + 1] - 1], in the order the edges are listed), not a
    // vector per node: one allocation instead of one per strand.
    const auto each_edge = [&](auto&& edge) {
      for (std::size_t i = 0; i < n; ++i) {
        if (const std::uint32_t p = prev_[i]; p != none) edge(p, static_cast<std::uint32_t>(i));
        if (strand_join_[i] != none)
          edge(static_cast<std::uint32_t>(n + strand_join_[i]), static_cast<std::uint32_t>(i));
      }
      for (std::size_t j = 0; j < m; ++j) {
        for (std::uint32_t s : join_strands_.row(j)) edge(s, static_cast<std::uint32_t>(n + j));
        for (std::uint32_t k : join_joins_.row(j))
          edge(static_cast<std::uint32_t>(n + k), static_cast<std::uint32_t>(n + j));
      }
    };
    std::vector<std::uint32_t> indegree;
    reserve_huge(indegree, n + m);
    indegree.assign(n + m, 0);
    std::vector<std::size_t> first;
    reserve_huge(first, n + m + 1);
    first.assign(n + m + 1, 0);
    each_edge([&](std::uint32_t from, std::uint32_t to) {
      ++first[from + 1];
      ++indegree[to];
    });
    for (std::size_t v = 0; v < n + m; ++v) first[v + 1] += first[v];
    std::vector<std::uint32_t> succ(first[n + m]);
    {
      std::vector<std::size_t> next(first.begin(), first.end() - 1);
      each_edge([&](std::uint32_t from, std::uint32_t to) { succ[next[from]++] = to; });
    }
    std::vector<std::uint32_t> ready, order;
    reserve_huge(order, n);
    for (std::size_t v = n + m; v-- > 0;)
      if (indegree[v] == 0) ready.push_back(static_cast<std::uint32_t>(v));
    join_order_.assign(m, none);
    std::uint32_t joins_placed = 0;
    while (!ready.empty()) {
      const std::uint32_t v = ready.back();
      ready.pop_back();
      if (v < n) {
        order.push_back(v);
      } else {
        join_order_[v - n] = joins_placed++;
      }
      for (std::size_t e = first[v]; e < first[v + 1]; ++e)
        if (--indegree[succ[e]] == 0) ready.push_back(succ[e]);
    }
    if (order.size() != n) {  // a cycle cannot happen; missing pieces can
      complete = false;
      std::vector<bool> placed(n, false);
      for (std::uint32_t v : order) placed[v] = true;
      for (std::uint32_t v = 0; v < n; ++v)
        if (!placed[v]) order.push_back(v);
    }
    for (std::uint32_t& j : join_order_)
      if (j == none) j = joins_placed++;
    return order;
  }

  // Nanoseconds per tick of the wall clock `k`.
  static double wall_factor(clock_kind k) noexcept {
    return k == clock_kind::tsc ? tsc_ns_per_tick() : k == clock_kind::arm_counter ? arm_ns_per_tick() : 1.0;
  }

  std::uint64_t wall_ns(std::uint64_t ticks) const noexcept {
    if (ticks <= rs_.origin()) return 0;
    const std::uint64_t d = ticks - rs_.origin();
    return wall_factor_ == 1.0 ? d : static_cast<std::uint64_t>(static_cast<double>(d) * wall_factor_);
  }

  // Each strand made whole and appended in the topological order (the array is
  // written once), its thread's busy time summed on the way. A chunk of raw
  // strands is freed as soon as its last strand has been read, so that the raw
  // strands and the record are not both held whole.
  void fill_strands(execution_record& r, const std::vector<std::uint32_t>& order) {
    const std::size_t n = order.size();
    reserve_huge(new_index_, strands_);
    new_index_.assign(strands_, none);
    for (std::size_t i = 0; i < n; ++i) new_index_[order[i]] = static_cast<std::uint32_t>(i);
    const auto mapped = [&](std::uint32_t p) -> std::int64_t {
      return p == none ? -1 : static_cast<std::int64_t>(new_index_[p]);
    };
    column_rounding work(in_.unit_per_tick);
    const double upt = in_.unit_per_tick;
    constexpr std::size_t per_chunk = decltype(record_buffer::strands)::chunk_entries;
    std::vector<std::vector<std::uint32_t>> unread(buffers_.size());  // per thread and chunk
    for (std::size_t t = 0; t < buffers_.size(); ++t) {
      const std::size_t size = buffers_[t]->strands.size();
      unread[t].assign((size + per_chunk - 1) / per_chunk, static_cast<std::uint32_t>(per_chunk));
      if (size % per_chunk != 0) unread[t].back() = static_cast<std::uint32_t>(size % per_chunk);
    }
    r.threads.resize(buffers_.size());
    reserve_huge(r.strands, n);
    reserve_huge(task_start_, n);
    reserve_huge(path_ticks_, n);
    rs_.consumed = true;  // from here on the raw strands are being freed
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t p = order[i];
      const std::uint32_t t = thread_of(p);
      const raw_strand& w = buffers_[t]->strands[p - offset_[t]];
      forkscale::record_strand o;
      o.thread = t;
      o.frame = w.frame;
      o.start_ns = wall_ns(w.wall_start);
      o.end_ns = std::max(o.start_ns, wall_ns(w.wall_end));
      o.work = static_cast<std::uint64_t>(work.next(static_cast<std::int64_t>(w.work)));
      o.span = to_unit_at(upt, w.path);
      path_ticks_.push_back(w.path);
      o.prev = mapped(prev_[p]);
      o.critical_pred = mapped(position(w.crit_pred));
      o.join = strand_join_[p] == none ? -1 : static_cast<std::int64_t>(join_order_[strand_join_[p]]);
      o.after_spawn = (w.flags & rec_after_spawn) != 0;
      o.what_if = w.what_if;
      task_start_.push_back((w.flags & rec_task_start) != 0);
      if (w.join_site != 0) join_site_.emplace_back(o.join, w.join_site - 1);
      r.wall_ns = std::max(r.wall_ns, o.end_ns);
      r.threads[o.thread].busy_ns += o.end_ns - o.start_ns;
      r.strands.push_back(o);
      const std::size_t c = (p - offset_[o.thread]) / per_chunk;
      if (--unread[o.thread][c] == 0) buffers_[o.thread]->strands.free_chunk(c);
    }
  }

  void fill_joins(execution_record& r) {
    reserve_huge(r.joins, joins_);
    r.joins.resize(joins_);
    for (std::uint32_t j = 0; j < joins_; ++j) {
      record_join& o = r.joins[join_order_[j]];
      o.strands.reserve(join_strands_.row(j).size());
      for (std::uint32_t s : join_strands_.row(j)) o.strands.push_back(new_index_[s]);
      o.joins.reserve(join_joins_.row(j).size());
      for (std::uint32_t k : join_joins_.row(j)) o.joins.push_back(join_order_[k]);
      std::sort(o.strands.begin(), o.strands.end());
      std::sort(o.joins.begin(), o.joins.end());
    }
    for (const auto& js : join_site_)
      if (js.first >= 0) r.joins[static_cast<std::size_t>(js.first)].site = js.second;
  }

  // The tasks, and (in the same pass over the strands) the joins' waits.
  void fill_tasks(execution_record& r) {
    std::size_t tasks = 0;
    for (std::size_t i = 0; i < r.strands.size(); ++i) {
      const std::int64_t prev = r.strands[i].prev;
      tasks += task_start_[i] || prev < 0 || static_cast<std::size_t>(prev) >= i;
    }
    reserve_huge(r.tasks, r.tasks.size() + tasks);
    for (std::size_t i = 0; i < r.strands.size(); ++i) {
      forkscale::record_strand& s = r.strands[i];
      // The thread that waited and how long: from the strand before the sync to
      // the strand after it.
      if (s.join >= 0) {
        record_join& o = r.joins[static_cast<std::size_t>(s.join)];
        o.thread = s.thread;
        o.wait_end_ns = s.start_ns;
        o.wait_start_ns = s.prev >= 0 ? r.strands[static_cast<std::size_t>(s.prev)].end_ns : s.start_ns;
        if (o.wait_start_ns > o.wait_end_ns) o.wait_start_ns = o.wait_end_ns;
      }
      const bool starts = task_start_[i] || s.prev < 0 || static_cast<std::size_t>(s.prev) >= i;
      if (starts) {
        record_task t;
        if (s.prev >= 0 && static_cast<std::size_t>(s.prev) < i)
          t.parent = r.strands[static_cast<std::size_t>(s.prev)].task;
        t.frame = s.frame;
        t.first = t.last = static_cast<std::uint32_t>(i);
        s.task = static_cast<std::uint32_t>(r.tasks.size());
        r.tasks.push_back(t);
      } else {
        s.task = r.strands[static_cast<std::size_t>(s.prev)].task;
        r.tasks[s.task].last = static_cast<std::uint32_t>(i);
      }
    }
  }

  // Back from the end of the longest path along the winning predecessors; the
  // spans of its strands are rounded together so that they add up to the span.
  void fill_critical_path(execution_record& r, std::uint64_t last) {
    std::vector<std::uint32_t> path;
    const std::uint32_t p = position(last);
    for (std::int64_t i = p == none ? -1 : static_cast<std::int64_t>(new_index_[p]); i >= 0;) {
      forkscale::record_strand& s = r.strands[static_cast<std::size_t>(i)];
      if (s.critical) break;  // cannot happen; guards a broken record
      s.critical = true;
      path.push_back(static_cast<std::uint32_t>(i));
      i = s.critical_pred;
    }
    std::reverse(path.begin(), path.end());
    column_rounding span(in_.unit_per_tick);
    for (std::uint32_t i : path)
      r.strands[i].span = static_cast<std::uint64_t>(span.next(static_cast<std::int64_t>(path_ticks_[i])));
    r.critical_path = std::move(path);
  }

  void fill_threads_and_regions(execution_record& r) {
    for (std::size_t i = 0; i < buffers_.size(); ++i) r.threads[i].os_id = buffers_[i]->os_id;  // busy: fill_strands
    for (std::size_t i = 0; i < buffers_.size(); ++i)
      for (const raw_region& g : buffers_[i]->regions) {
        forkscale::record_region o;
        if (g.node) {
          const auto p = in_.region_paths.find(g.node);
          if (p != in_.region_paths.end()) o.path = p->second;
        }
        o.thread = static_cast<std::uint32_t>(i);
        o.start_ns = wall_ns(g.wall_open);
        o.end_ns = std::max(o.start_ns, wall_ns(g.wall_close));
        r.regions.push_back(std::move(o));
        r.wall_ns = std::max(r.wall_ns, r.regions.back().end_ns);
      }
    std::sort(r.regions.begin(), r.regions.end(),
              [](const forkscale::record_region& a, const forkscale::record_region& b) {
                return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
              });
  }

  // Lock holds (detail/blame/lock_events.hpp), by the time their acquisition
  // began; strand ids become positions.
  void fill_locks(execution_record& r) {
    const auto mapped = [&](std::uint64_t id) -> std::int64_t {
      const std::uint32_t p = position(id);
      return p == none || new_index_[p] == none ? -1 : static_cast<std::int64_t>(new_index_[p]);
    };
    for (std::size_t i = 0; i < buffers_.size(); ++i)
      for (std::size_t k = 0; k < buffers_[i]->locks.size(); ++k) {
        const raw_lock& w = buffers_[i]->locks[k];
        forkscale::record_lock o;
        o.thread = static_cast<std::uint32_t>(i);
        o.lock = w.lock;
        o.site = w.site;
        o.holder_site = w.holder == 0 ? -1 : static_cast<std::int64_t>(w.holder - 1);
        o.strand = mapped(w.first);
        o.last_strand = mapped(w.last);
        o.wait_start_ns = wall_ns(w.wait_start);
        o.acquired_ns = std::max(o.wait_start_ns, wall_ns(w.acquired));
        o.released_ns = std::max(o.acquired_ns, wall_ns(w.released));
        o.contended = w.contended;
        r.locks.push_back(o);
      }
    std::stable_sort(r.locks.begin(), r.locks.end(),
                     [](const forkscale::record_lock& a, const forkscale::record_lock& b) {
                       return a.wait_start_ns < b.wait_start_ns;
                     });
  }

  void fill_what_if_regions(execution_record& r) {
    for (const what_if_known_region& w : in_.what_if_regions)
      r.what_if_regions.push_back({w.name, w.call_site, w.file, w.line, w.function, w.tag});
  }

  const record_inputs& in_;
  record_state& rs_;
  const std::vector<std::unique_ptr<record_buffer>>& buffers_;
  std::vector<std::uint64_t> offset_;
  double wall_factor_ = 1.0;         // ns per wall-clock tick
  std::size_t strands_ = 0;          // raw strands in all the buffers
  std::vector<std::uint32_t> prev_;  // per raw strand: its prev's position (none: the first)
  std::vector<std::uint32_t> strand_join_;
  std::vector<join_slot_entry> join_slots_;    // the index of joins by (uid, round): join_of
  std::uint32_t joins_ = 0;                    // joins numbered so far (join_of)
  compressed_rows join_strands_, join_joins_;  // per join: the strands and the joins reported to it
  std::uint32_t end_join_ = 0;
  std::vector<std::uint32_t> join_order_;
  std::vector<std::uint32_t> new_index_;
  std::vector<std::uint64_t> path_ticks_;  // per strand (record order): its path cost in ticks
  std::vector<bool> task_start_;
  std::vector<std::pair<std::int64_t, std::uint32_t>> join_site_;
};

// The record of a measurement that ended, built when it is first read
// (record_ptr): until then the report holds the raw buffers.
class buffered_record final : public record_source {
 public:
  explicit buffered_record(record_inputs in) : in_(std::move(in)) {}
  std::shared_ptr<const execution_record> build() override { return record_builder(in_).build(); }

 private:
  record_inputs in_;
};

// The record goes into the report once no task can append to it any more; a
// measurement that ended with tasks still running (misuse) has none.
inline void attach_record(report& rep, session& s, frame& root, bool settled) {
  if (!settled) {
    s.rec->stop();
    return;
  }
  record_inputs in;
  in.rec = s.rec;
  in.unit = s.info.unit;
  in.unit_per_tick = unit_per_tick(s);
  {
    std::lock_guard<std::mutex> g(s.m);
    in.what_if_regions = s.what_if_regions;
  }
  in.end.last_strand = root.recording.prev;
  in.end.end_uid = root.recording.end_uid;
  in.end.end_round = root.recording.end_round;
  in.end.critical_last = root.totals.last_strand;
  in.call_tree_sizes = call_tree::instance().sizes();
  for (const auto& b : s.rec->buffers())
    for (const raw_region& g : b->regions)
      if (g.node) in.region_paths.try_emplace(g.node, g.node->path);
  rep.record = record_ptr(std::make_unique<buffered_record>(std::move(in)));
  rep.profiler_bytes += s.rec->bytes();
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
