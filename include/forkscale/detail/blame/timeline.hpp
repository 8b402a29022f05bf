// detail/blame/timeline.hpp: the computations behind fs::analyze_timeline
// (blame.hpp) over a recorded strand graph (record.hpp): when each strand was
// ready, the number of strands running and ready between change points, the
// idle time each strand is blamed for, and how long each sync kept its thread
// waiting.
//
// Undirected blame shifting (Tallent and Mellor-Crummey, PPoPP'09; the
// Mellor-Crummey lecture, "Blame-shifting"): while k of the P threads run
// strands and P - k are idle, the idle time (P - k)·dt is charged to the k
// running strands equally — they are the serial stretches that left the others
// nothing to do. With F(t) = the integral of (P - k)/k over the time where k > 0,
// a strand running over [s, e) is charged F(e) - F(s); F is kept at the change
// points, which include every strand's start and end.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "../../config.hpp"
#include "../../record.hpp"
#include "../macro_scope.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace blame {

// When each join is done: the latest end of the strands reported to it and of
// the joins handed on to it (memoized, without recursion: chains of joins
// handed on can be long).
inline std::vector<std::uint64_t> join_done_times(const execution_record& r) {
  const std::size_t m = r.joins.size();
  std::vector<std::uint64_t> done(m, 0);
  std::vector<unsigned char> state(m, 0);  // 0 new, 1 on the stack, 2 done
  std::vector<std::uint32_t> stack;
  for (std::uint32_t root = 0; root < m; ++root) {
    if (state[root] == 2) continue;
    stack.push_back(root);
    while (!stack.empty()) {
      const std::uint32_t j = stack.back();
      if (state[j] == 0) {
        state[j] = 1;
        for (std::uint32_t k : r.joins[j].joins)
          if (k < m && state[k] == 0) stack.push_back(k);
        continue;
      }
      stack.pop_back();
      if (state[j] == 2) continue;
      std::uint64_t t = 0;
      for (std::uint32_t s : r.joins[j].strands)
        if (s < r.strands.size()) t = std::max(t, r.strands[s].end_ns);
      for (std::uint32_t k : r.joins[j].joins)
        if (k < m && state[k] == 2) t = std::max(t, done[k]);  // a cycle (a broken record) is cut
      done[j] = t;
      state[j] = 2;
    }
  }
  return done;
}

// When each strand became ready: the latest end of its predecessors (its prev —
// for a task's first strand the spawner's strand that ended at the spawn — and
// its join), never after its start; a strand with no predecessor is ready when
// it starts.
inline std::vector<std::uint64_t> ready_times(const execution_record& r, const std::vector<std::uint64_t>& join_done) {
  std::vector<std::uint64_t> ready(r.strands.size(), 0);
  for (std::size_t i = 0; i < r.strands.size(); ++i) {
    const record_strand& s = r.strands[i];
    bool any = false;
    std::uint64_t t = 0;
    if (s.prev >= 0 && static_cast<std::size_t>(s.prev) < r.strands.size()) {
      t = r.strands[static_cast<std::size_t>(s.prev)].end_ns;
      any = true;
    }
    if (s.join >= 0 && static_cast<std::size_t>(s.join) < join_done.size()) {
      t = std::max(t, join_done[static_cast<std::size_t>(s.join)]);
      any = true;
    }
    ready[i] = any ? std::min(t, s.start_ns) : s.start_ns;
  }
  return ready;
}

// The running and ready counts between change points.
struct sweep_result {
  std::vector<std::uint64_t> time;            // change points, ascending; time[0] = 0, the last one the wall time
  std::vector<std::uint32_t> running, ready;  // on [time[k], time[k+1]) (the last entry: after the end)
  std::vector<long double> charge;            // F(time[k]), ns of idle blamed per running strand so far
  std::uint64_t idle_ns = 0;                  // the integral of max(P - k, 0): the threads' idle time
  std::uint64_t idle_nothing_running = 0;     // the part of it where k = 0
  bool overfull = false;                      // k > P somewhere: the record is not one of P threads
};

inline sweep_result sweep(const execution_record& r, const std::vector<std::uint64_t>& ready, std::uint32_t threads,
                          std::uint64_t wall) {
  struct change {
    std::uint64_t t;
    std::int32_t running, ready;
  };
  std::vector<change> changes;
  changes.reserve(4 * r.strands.size() + 2);
  changes.push_back({0, 0, 0});
  changes.push_back({wall, 0, 0});
  for (std::size_t i = 0; i < r.strands.size(); ++i) {
    const record_strand& s = r.strands[i];
    changes.push_back({s.start_ns, 1, 0});
    changes.push_back({s.end_ns, -1, 0});
    if (ready[i] < s.start_ns) {
      changes.push_back({ready[i], 0, 1});
      changes.push_back({s.start_ns, 0, -1});
    }
  }
  std::sort(changes.begin(), changes.end(), [](const change& a, const change& b) { return a.t < b.t; });
  sweep_result out;
  std::int64_t running = 0, ready_now = 0;
  long double f = 0;
  for (std::size_t i = 0; i < changes.size();) {
    const std::uint64_t t = changes[i].t;
    if (!out.time.empty()) {  // the interval that ends here
      const std::uint64_t dt = t - out.time.back();
      const std::int64_t k = out.running.back();
      const std::uint64_t idle = k < threads ? (threads - static_cast<std::uint64_t>(k)) * dt : 0;
      if (k > threads && dt > 0) out.overfull = true;
      out.idle_ns += idle;
      if (k == 0) {
        out.idle_nothing_running += idle;
      } else {
        f += static_cast<long double>(idle) / static_cast<long double>(k);
      }
    }
    for (; i < changes.size() && changes[i].t == t; ++i) {
      running += changes[i].running;
      ready_now += changes[i].ready;
    }
    out.time.push_back(t);
    out.running.push_back(static_cast<std::uint32_t>(std::max<std::int64_t>(running, 0)));
    out.ready.push_back(static_cast<std::uint32_t>(std::max<std::int64_t>(ready_now, 0)));
    out.charge.push_back(f);
  }
  return out;
}

// The idle time blamed on each strand: F(end) - F(start).
inline std::vector<long double> strand_blame(const execution_record& r, const sweep_result& sw) {
  std::vector<long double> out(r.strands.size(), 0);
  const auto at = [&](std::uint64_t t) {
    const auto it = std::lower_bound(sw.time.begin(), sw.time.end(), t);
    return sw.charge[static_cast<std::size_t>(it - sw.time.begin())];
  };
  for (std::size_t i = 0; i < r.strands.size(); ++i)
    if (r.strands[i].end_ns > r.strands[i].start_ns) out[i] = at(r.strands[i].end_ns) - at(r.strands[i].start_ns);
  return out;
}

// One thread's strands in time order, with the running total of their times,
// to find how much of an interval the thread spent in strands.
struct thread_strands {
  std::vector<std::uint64_t> start, end, before;  // before[k]: time of the strands before k

  std::uint64_t inside(std::uint64_t a, std::uint64_t b) const {
    if (b <= a || start.empty()) return 0;
    // The strands of a thread do not overlap, so their ends are in order too.
    const std::size_t lo = static_cast<std::size_t>(std::upper_bound(end.begin(), end.end(), a) - end.begin());
    const std::size_t hi = static_cast<std::size_t>(std::lower_bound(start.begin(), start.end(), b) - start.begin());
    if (lo >= hi) return 0;
    std::uint64_t t = before[hi] - before[lo];
    if (start[lo] < a) t -= std::min(a - start[lo], end[lo] - start[lo]);
    if (end[hi - 1] > b) t -= std::min(end[hi - 1] - b, end[hi - 1] - std::max(start[hi - 1], a));
    return t;
  }
};

inline std::vector<thread_strands> strands_by_thread(const execution_record& r) {
  std::vector<std::vector<std::uint32_t>> lists(r.threads.size());
  for (std::uint32_t i = 0; i < r.strands.size(); ++i)
    if (r.strands[i].thread < lists.size()) lists[r.strands[i].thread].push_back(i);
  std::vector<thread_strands> out(lists.size());
  for (std::size_t t = 0; t < lists.size(); ++t) {
    std::vector<std::uint32_t>& l = lists[t];
    std::stable_sort(l.begin(), l.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return r.strands[a].start_ns < r.strands[b].start_ns; });
    thread_strands& o = out[t];
    o.before.push_back(0);
    for (std::uint32_t i : l) {
      o.start.push_back(r.strands[i].start_ns);
      o.end.push_back(r.strands[i].end_ns);
      o.before.push_back(o.before.back() + (r.strands[i].end_ns - r.strands[i].start_ns));
    }
  }
  return out;
}

// Per join: how long its thread waited for it running nothing — the wait less
// the time the thread ran other strands meanwhile, and less the waits nested
// in it (a task the thread ran meanwhile that waited in a sync of its own: that
// idle time is the inner sync's). 0 for a join no strand waited at.
inline std::vector<std::uint64_t> sync_waits(const execution_record& r, const std::vector<thread_strands>& by_thread) {
  std::vector<std::uint64_t> out(r.joins.size(), 0);
  std::vector<unsigned char> waited(r.joins.size(), 0);
  for (const record_strand& s : r.strands)
    if (s.join >= 0 && static_cast<std::size_t>(s.join) < r.joins.size()) waited[static_cast<std::size_t>(s.join)] = 1;
  std::vector<std::vector<std::uint32_t>> per_thread(by_thread.size());
  for (std::uint32_t j = 0; j < r.joins.size(); ++j) {
    const record_join& w = r.joins[j];
    if (!waited[j] || w.wait_end_ns <= w.wait_start_ns || w.thread >= by_thread.size()) continue;
    const std::uint64_t busy = by_thread[w.thread].inside(w.wait_start_ns, w.wait_end_ns);
    const std::uint64_t span = w.wait_end_ns - w.wait_start_ns;
    out[j] = busy < span ? span - busy : 0;
    per_thread[w.thread].push_back(j);
  }
  // A thread's waits nest (its frames form a stack): outermost first.
  for (std::vector<std::uint32_t>& list : per_thread) {
    std::stable_sort(list.begin(), list.end(), [&](std::uint32_t a, std::uint32_t b) {
      const record_join &x = r.joins[a], &y = r.joins[b];
      return x.wait_start_ns != y.wait_start_ns ? x.wait_start_ns < y.wait_start_ns : x.wait_end_ns > y.wait_end_ns;
    });
    std::vector<std::uint32_t> open;
    for (std::uint32_t j : list) {
      const record_join& w = r.joins[j];
      while (!open.empty() && r.joins[open.back()].wait_end_ns <= w.wait_start_ns) open.pop_back();
      if (!open.empty() && r.joins[open.back()].wait_end_ns >= w.wait_end_ns) {
        std::uint64_t& outer = out[open.back()];
        outer = outer > out[j] ? outer - out[j] : 0;
      }
      open.push_back(j);
    }
  }
  return out;
}

// Integer shares of `total` in proportion to `parts` (largest remainder), so
// that they add up to `total` exactly.
inline std::vector<std::uint64_t> rounded_shares(const std::vector<long double>& parts, std::uint64_t total) {
  std::vector<std::uint64_t> out(parts.size(), 0);
  long double sum = 0;
  for (long double p : parts) sum += p > 0 ? p : 0;
  if (parts.empty() || !(sum > 0)) return out;
  std::vector<std::pair<long double, std::size_t>> rest;
  std::uint64_t given = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const long double exact = parts[i] > 0 ? parts[i] / sum * static_cast<long double>(total) : 0;
    out[i] = static_cast<std::uint64_t>(exact);
    given += out[i];
    rest.emplace_back(exact - static_cast<long double>(out[i]), i);
  }
  std::stable_sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t k = 0; given < total && k < rest.size(); ++k, ++given) ++out[rest[k].second];
  return out;
}

}  // namespace blame
}  // namespace detail
FORKSCALE_NAMESPACE_END
