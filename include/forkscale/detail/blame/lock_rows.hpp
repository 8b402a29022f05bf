// detail/blame/lock_rows.hpp: the report's lock profile (report::locks): the
// threads' lock tables summed per (lock, acquisition site), and, from the
// record, the holds that lie on the critical path.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "../../config.hpp"
#include "../../record.hpp"
#include "../../report.hpp"
#include "../engine/session.hpp"
#include "../macro_scope.hpp"
#include "../record/call_tree.hpp"
#include "lock_events.hpp"
#include "lock_table.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// How much of one recorded hold (execution_record::locks[i]) lies on the
// critical path.
struct lock_on_critical_path {
  bool on_path = false;       // a strand the hold lies in is on the critical path
  std::uint64_t hold_ns = 0;  // the hold's time inside those strands
  std::uint64_t wait_ns = 0;  // the wait before it, inside those strands
};

inline std::uint64_t overlap_ns(std::uint64_t a0, std::uint64_t a1, std::uint64_t b0, std::uint64_t b1) noexcept {
  const std::uint64_t lo = std::max(a0, b0), hi = std::min(a1, b1);
  return hi > lo ? hi - lo : 0;
}

// One entry per r.locks entry. A hold lies in its thread's strands from
// `strand` to `last_strand` in time order (record_lock); a hold in no strand
// (strand -1) is never on the path.
inline std::vector<lock_on_critical_path> locks_on_critical_path(const execution_record& r) {
  std::vector<lock_on_critical_path> out(r.locks.size());
  if (r.locks.empty()) return out;
  std::vector<std::vector<std::uint32_t>> by_thread(r.threads.size());
  for (std::uint32_t i = 0; i < r.strands.size(); ++i)
    if (r.strands[i].thread < by_thread.size()) by_thread[r.strands[i].thread].push_back(i);
  std::vector<std::uint32_t> position(r.strands.size(), 0);
  for (auto& list : by_thread) {
    std::stable_sort(list.begin(), list.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return r.strands[a].start_ns < r.strands[b].start_ns; });
    for (std::uint32_t k = 0; k < list.size(); ++k) position[list[k]] = k;
  }
  for (std::size_t i = 0; i < r.locks.size(); ++i) {
    const record_lock& l = r.locks[i];
    if (l.strand < 0 || static_cast<std::size_t>(l.strand) >= r.strands.size() || l.thread >= by_thread.size())
      continue;
    const auto first = static_cast<std::uint32_t>(l.strand);
    if (r.strands[first].thread != l.thread) continue;  // a broken record
    std::uint32_t from = position[first], to = from;
    if (l.last_strand >= 0 && static_cast<std::size_t>(l.last_strand) < r.strands.size() &&
        r.strands[static_cast<std::size_t>(l.last_strand)].thread == l.thread)
      to = std::max(from, position[static_cast<std::size_t>(l.last_strand)]);
    const std::vector<std::uint32_t>& list = by_thread[l.thread];
    for (std::uint32_t k = from; k <= to && k < list.size(); ++k) {
      const record_strand& s = r.strands[list[k]];
      if (!s.critical) continue;
      out[i].on_path = true;
      out[i].hold_ns += overlap_ns(l.acquired_ns, l.released_ns, s.start_ns, s.end_ns);
      out[i].wait_ns += overlap_ns(l.wait_start_ns, l.acquired_ns, s.start_ns, s.end_ns);
    }
  }
  return out;
}

// The holds on the critical path summed per (lock, site) (site indices of the
// record, which are the call tree's).
struct critical_holds {
  std::uint64_t holds = 0, hold_ns = 0, wait_ns = 0;
};
inline std::map<std::uint64_t, critical_holds> critical_holds_by_site(const execution_record& r) {
  const std::vector<lock_on_critical_path> on = locks_on_critical_path(r);
  std::map<std::uint64_t, critical_holds> out;
  for (std::size_t i = 0; i < r.locks.size(); ++i) {
    if (!on[i].on_path) continue;
    critical_holds& c = out[lock_table::key(r.locks[i].lock, r.locks[i].site)];
    ++c.holds;
    c.hold_ns += on[i].hold_ns;
    c.wait_ns += on[i].wait_ns;
  }
  return out;
}

// The rows by total wait, largest first (ties: most acquisitions first).
inline void sort_lock_rows(std::vector<lock_site_profile>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const lock_site_profile& a, const lock_site_profile& b) {
    return a.wait_ns != b.wait_ns ? a.wait_ns > b.wait_ns : a.acquisitions > b.acquisitions;
  });
}

// report::locks of a finished measurement whose threads' tables no task can
// change any more.
inline void add_lock_rows(report& rep, session& s) {
  std::map<std::uint64_t, lock_sums> merged;
  clock_kind wall = clock_kind::steady;
  {
    std::lock_guard<std::mutex> g(s.m);
    for (const auto& t : s.tables) {
      const lock_table* locks = t->observer(thread_observer::locks).find<lock_table>();
      if (!locks || !locks->ready) continue;
      wall = locks->wall;
      for (const auto& kv : locks->rows()) {
        lock_sums& m = merged[kv.first];
        const lock_sums& x = kv.second;
        m.acquisitions += x.acquisitions;
        m.contended += x.contended;
        m.wait += x.wait;
        m.max_wait = std::max(m.max_wait, x.max_wait);
        m.hold += x.hold;
        m.max_hold = std::max(m.max_hold, x.max_hold);
        m.blamed += x.blamed;
        m.blamed_waits += x.blamed_waits;
      }
    }
  }
  if (merged.empty()) return;
  const double f = lock_ns_per_tick(wall);
  const auto ns = [f](std::uint64_t ticks) {
    return f == 1.0 ? ticks : static_cast<std::uint64_t>(std::llround(static_cast<double>(ticks) * f));
  };
  const std::vector<record_site> sites = call_tree::instance().sites();
  const std::map<std::uint64_t, critical_holds> critical =
      rep.record ? critical_holds_by_site(*rep.record) : std::map<std::uint64_t, critical_holds>{};
  for (const auto& kv : merged) {
    const auto lock = static_cast<std::uint32_t>(kv.first >> 32);
    const auto where = static_cast<std::uint32_t>(kv.first & 0xffffffffu);
    if (lock >= sites.size() || where >= sites.size()) continue;
    const record_site& w = sites[where];
    const lock_sums& m = kv.second;
    lock_site_profile row;
    row.lock = sites[lock].name;
    row.name = w.name;
    row.file = w.file;
    row.line = w.line;
    row.function = w.function;
    row.tag = w.tag;
    row.acquisitions = m.acquisitions;
    row.contended = m.contended;
    row.wait_ns = ns(m.wait);
    row.max_wait_ns = ns(m.max_wait);
    row.hold_ns = ns(m.hold);
    row.max_hold_ns = ns(m.max_hold);
    row.blamed_wait_ns = ns(m.blamed);
    row.blamed_waits = m.blamed_waits;
    const auto c = critical.find(kv.first);
    if (c != critical.end()) {
      row.critical_holds = c->second.holds;
      // The record's times and the table's are rounded apart: keep the part
      // within the whole.
      row.critical_hold_ns = std::min(c->second.hold_ns, row.hold_ns);
      row.critical_wait_ns = std::min(c->second.wait_ns, row.wait_ns);
    }
    rep.locks.push_back(std::move(row));
  }
  sort_lock_rows(rep.locks);
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
