// Random fork-join programs, a brute-force oracle for them, and an interpreter that
// runs them through forkscale's guards on a small help-while-waiting thread pool.
//
// The oracle knows nothing of the engine: it unrolls the program into an explicit
// dag of strands (one node per strand, split at every event), then computes longest
// paths by dynamic programming over the nodes in creation order (a topological
// order) and region totals from ancestor sets.
#pragma once
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <forkscale/forkscale.hpp>

namespace rp {

enum class op {
  charge,        // charge(cost) to the current strand
  spawn,         // spawn `body` into the task's own sync block
  spawn_group,   // spawn `body` into task group `id`
  spawn_handle,  // spawn `body` behind join handle `id`
  sync,          // join the task's own sync block (Cilk sync)
  join_handle,   // join the one task behind handle `id`
  group_scope,   // declare task group `id`, run `body`, then wait for the group
  call,          // run `body` inside a call_site guard (a sync scope)
  task_call,     // run `body` inside a task_call_site guard (counted, not a scope)
  region,        // run `body` inside region `label`
};

struct stmt;
using body = std::vector<stmt>;

struct stmt {
  op kind = op::charge;
  std::uint64_t cost = 0;
  int id = -1;
  std::string label;
  std::shared_ptr<body> sub;
};

struct program {
  body root;
  int groups = 0;
  int handles = 0;
  std::uint64_t burden = 0;
  std::string describe() const;
};

// ---------------------------------------------------------------------------
// Generator. Every program it makes is well formed: every spawn is joined before
// the measurement ends, by a sync, a handle join or a group wait that surely runs
// after the spawn finishes.
class generator {
 public:
  explicit generator(std::uint64_t seed) : rng_(seed) {}

  program make() {
    program p;
    budget_ = pick(4, 160);
    p.burden = pick(0, 3) == 0 ? 0 : pick(1, 400);
    std::vector<int> groups;
    p.root = make_body(0, groups, p);
    stmt s;
    s.kind = op::sync;  // the measured program joins everything it spawned
    p.root.push_back(s);
    if (pick(0, 1)) p.root.push_back(charge_stmt());
    return p;
  }

 private:
  std::uint64_t pick(std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng_);
  }
  stmt charge_stmt() {
    stmt s;
    s.kind = op::charge;
    const auto r = pick(0, 9);
    s.cost = r == 0 ? 0 : r < 7 ? pick(1, 100) : pick(100, 5000);
    return s;
  }
  std::shared_ptr<body> sub(int depth, const std::vector<int>& groups, program& p) {
    return std::make_shared<body>(make_body(depth + 1, groups, p));
  }

  // `groups`: task groups whose wait surely comes after this code has finished.
  body make_body(int depth, const std::vector<int>& groups, program& p) {
    body b;
    const int n = static_cast<int>(pick(0, depth == 0 ? 8 : 5));
    std::vector<int> open_handles;
    for (int i = 0; i < n && budget_ > 0; ++i) {
      --budget_;
      const auto r = pick(0, 99);
      const bool can_nest = depth < 6;
      stmt s;
      if (r < 30 || !can_nest) {
        s = charge_stmt();
      } else if (r < 45) {
        s.kind = op::spawn;
        s.sub = sub(depth, groups, p);
      } else if (r < 53 && !groups.empty()) {
        s.kind = op::spawn_group;
        const auto k = pick(0, groups.size() - 1);
        s.id = groups[k];
        // The group's wait covers this task, but not waits of groups declared
        // inside the group's scope: the task may run after those.
        const std::vector<int> outer(groups.begin(), groups.begin() + static_cast<long>(k) + 1);
        s.sub = sub(depth, outer, p);
      } else if (r < 60) {
        s.kind = op::spawn_handle;
        s.id = p.handles++;
        s.sub = sub(depth, groups, p);
        open_handles.push_back(s.id);
      } else if (r < 70) {
        s.kind = op::sync;
      } else if (r < 76 && !open_handles.empty()) {
        const auto k = pick(0, open_handles.size() - 1);  // any order
        s.kind = op::join_handle;
        s.id = open_handles[k];
        open_handles.erase(open_handles.begin() + static_cast<long>(k));
      } else if (r < 84) {
        s.kind = op::group_scope;
        s.id = p.groups++;
        std::vector<int> inner = groups;
        inner.push_back(s.id);
        s.sub = std::make_shared<body>(make_body(depth + 1, inner, p));
        // Tasks in the sync block may spawn into the group: join them first.
        stmt sy;
        sy.kind = op::sync;
        s.sub->push_back(sy);
      } else if (r < 92) {
        s.kind = pick(0, 2) == 0 ? op::task_call : op::call;
        s.sub = sub(depth, groups, p);
      } else {
        s.kind = op::region;
        static const char* const labels[] = {"a", "b", "c"};
        s.label = labels[pick(0, 2)];
        s.sub = sub(depth, groups, p);
      }
      b.push_back(std::move(s));
    }
    for (int h : open_handles) {  // join the rest, in a random order
      stmt s;
      s.kind = op::join_handle;
      s.id = h;
      b.insert(b.begin() + static_cast<long>(pick(0, b.size())), s);
      // keep joins after their spawns: move it to the end if it landed before
      auto spawn_at = std::find_if(b.begin(), b.end(), [&](const stmt& x) {
        return x.kind == op::spawn_handle && x.id == h;
      });
      auto join_at = std::find_if(b.begin(), b.end(), [&](const stmt& x) {
        return x.kind == op::join_handle && x.id == h;
      });
      if (join_at < spawn_at) {
        stmt j = *join_at;
        b.erase(join_at);
        b.push_back(j);
      }
    }
    return b;
  }

  std::mt19937_64 rng_;
  int budget_ = 0;
};

inline void describe_body(std::ostringstream& os, const body& b, int indent) {
  for (const auto& s : b) {
    os << std::string(static_cast<std::size_t>(indent) * 2, ' ');
    switch (s.kind) {
      case op::charge: os << "charge " << s.cost << "\n"; break;
      case op::spawn: os << "spawn {\n"; break;
      case op::spawn_group: os << "spawn into group " << s.id << " {\n"; break;
      case op::spawn_handle: os << "spawn handle " << s.id << " {\n"; break;
      case op::sync: os << "sync\n"; break;
      case op::join_handle: os << "join handle " << s.id << "\n"; break;
      case op::group_scope: os << "group " << s.id << " {\n"; break;
      case op::call: os << "call {\n"; break;
      case op::task_call: os << "task call {\n"; break;
      case op::region: os << "region " << s.label << " {\n"; break;
    }
    if (s.sub) {
      describe_body(os, *s.sub, indent + 1);
      os << std::string(static_cast<std::size_t>(indent) * 2, ' ') << "}\n";
    }
  }
}

inline std::string program::describe() const {
  std::ostringstream os;
  os << "burden " << burden << "\n";
  describe_body(os, root, 0);
  return os.str();
}

// ---------------------------------------------------------------------------
// The numbers every check compares.
struct totals {
  std::uint64_t instances = 0, work = 0, span = 0, burdened_span = 0, spawns = 0, syncs = 0,
                calls = 0;
  bool operator==(const totals& o) const {
    return instances == o.instances && work == o.work && span == o.span &&
           burdened_span == o.burdened_span && spawns == o.spawns && syncs == o.syncs &&
           calls == o.calls;
  }
};

inline std::string to_string(const totals& t) {
  std::ostringstream os;
  os << "{instances " << t.instances << ", work " << t.work << ", span " << t.span
     << ", burdened " << t.burdened_span << ", spawns " << t.spawns << ", syncs " << t.syncs
     << ", calls " << t.calls << "}";
  return os.str();
}

using region_table = std::map<std::string, totals>;  // by path; the root is the label

inline region_table from_report(const forkscale::report& r) {
  region_table t;
  for (const auto& row : r.regions) {
    totals x;
    x.instances = row.instances;
    x.work = row.work;
    x.span = row.span;
    x.burdened_span = row.burdened_span;
    x.spawns = row.spawns;
    x.syncs = row.syncs;
    x.calls = row.calls;
    t[row.path] = x;
  }
  return t;
}

// ---------------------------------------------------------------------------
// The oracle: the explicit dag.
//
// Which strands a region counts: its task's own strands between its opening and
// its closing, and every task *absorbed* by a join of that task in between — a
// task is absorbed by the join that waits for it (for a task that ended before
// its own children, the join that waits for the task absorbs them too), and with
// it everything it absorbed during its own life.
class oracle {
 public:
  region_table evaluate(const program& p, const std::string& root_label) {
    burden_ = p.burden;
    nodes_.clear();
    absorbed_.clear();
    final_node_.clear();
    group_ends_.assign(static_cast<std::size_t>(p.groups), {});
    handle_ends_.assign(static_cast<std::size_t>(p.handles), {});
    regions_.clear();
    task t;
    t.id = new_task();
    t.cur = new_node(t.id);
    t.region_path = root_label;
    run(p.root, t);
    if (!t.block.empty()) throw std::logic_error("program leaves tasks unjoined");
    const int root_end = t.cur;

    // Longest paths, plain and burdened, in creation (= topological) order.
    std::vector<std::uint64_t> dist(nodes_.size()), bdist(nodes_.size());
    for (std::size_t v = 0; v < nodes_.size(); ++v) {
      std::uint64_t best = 0, bbest = 0;
      for (const auto& e : nodes_[v].preds) {
        best = std::max(best, dist[idx(e.from)]);
        bbest = std::max(bbest, bdist[idx(e.from)] + (e.continuation ? burden_ : 0));
      }
      dist[v] = best + nodes_[v].cost;
      bdist[v] = bbest + nodes_[v].cost;
    }
    // The last node of the root follows every other node.
    for (std::size_t v = 0; v < nodes_.size(); ++v)
      if (dist[v] > dist[idx(root_end)] || bdist[v] > bdist[idx(root_end)])
        throw std::logic_error("a strand does not precede the end of the program");

    region_table out;
    totals root = sum_region(t.id, -1, root_end);
    root.span = dist[idx(root_end)];
    root.burdened_span = bdist[idx(root_end)];
    root.instances = 1;
    out[root_label] = root;
    for (const auto& r : regions_) {
      totals x = sum_region(r.task, r.open, r.close);
      totals& acc = out[r.path];
      acc.instances += 1;
      acc.work += x.work;
      acc.span += dist[idx(r.close)] - dist[idx(r.open)];
      acc.burdened_span += bdist[idx(r.close)] - bdist[idx(r.open)];
      acc.spawns += x.spawns;
      acc.syncs += x.syncs;
      acc.calls += x.calls;
    }
    return out;
  }

 private:
  struct edge {
    int from;
    bool continuation;  // carries the burden
  };
  struct node {
    int task = -1;
    std::uint64_t cost = 0;
    std::vector<edge> preds;
    int spawns = 0;     // spawn events at the end of this node
    bool sync = false;  // this node starts after a join
    int calls = 0;      // call events inside this node
  };
  struct task {
    int id = -1;
    int cur = -1;
    std::vector<int> block;  // tasks in the task's own sync block
    std::string region_path;
  };
  struct region_instance {
    std::string path;
    int task, open, close;
  };
  struct absorption {
    int by_task = -1;
    int at_node = -1;
  };

  static std::size_t idx(int i) { return static_cast<std::size_t>(i); }

  int new_task() {
    absorbed_.emplace_back();
    final_node_.push_back(-1);
    return static_cast<int>(absorbed_.size()) - 1;
  }
  int new_node(int task_id) {
    nodes_.emplace_back();
    nodes_.back().task = task_id;
    return static_cast<int>(nodes_.size()) - 1;
  }
  int follow(int from, int task_id, bool continuation = false) {
    const int v = new_node(task_id);
    nodes_[idx(v)].preds.push_back({from, continuation});
    return v;
  }
  // A join in task `t`: one new node after `t.cur` and after every waited task.
  void join(task& t, std::vector<int>& tasks) {
    const int w = follow(t.cur, t.id);
    for (int x : tasks) {
      nodes_[idx(w)].preds.push_back({final_node_[idx(x)], false});
      absorbed_[idx(x)] = absorption{t.id, w};
    }
    nodes_[idx(w)].sync = true;
    tasks.clear();
    t.cur = w;
  }

  // Runs a child task to its end; returns the tasks its joiner waits for: the
  // child and the children it left unjoined (they outlive it).
  std::vector<int> spawn_child(const body& b, task& parent) {
    const int u = parent.cur;
    nodes_[idx(u)].spawns += 1;
    task child;
    child.id = new_task();
    child.cur = follow(u, child.id);
    child.region_path = parent.region_path;
    run(b, child);
    final_node_[idx(child.id)] = child.cur;
    parent.cur = follow(u, parent.id, /*continuation=*/true);
    std::vector<int> waited = child.block;
    waited.push_back(child.id);
    return waited;
  }

  void run(const body& b, task& t) {
    for (const auto& s : b) {
      switch (s.kind) {
        case op::charge: nodes_[idx(t.cur)].cost += s.cost; break;
        case op::spawn: {
          auto w = spawn_child(*s.sub, t);
          t.block.insert(t.block.end(), w.begin(), w.end());
          break;
        }
        case op::spawn_group: {
          auto w = spawn_child(*s.sub, t);
          auto& g = group_ends_[idx(s.id)];
          g.insert(g.end(), w.begin(), w.end());
          break;
        }
        case op::spawn_handle: {
          auto w = spawn_child(*s.sub, t);
          auto& h = handle_ends_[idx(s.id)];
          h.insert(h.end(), w.begin(), w.end());
          break;
        }
        case op::sync: join(t, t.block); break;
        case op::join_handle: join(t, handle_ends_[idx(s.id)]); break;
        case op::group_scope:
          run(*s.sub, t);
          join(t, group_ends_[idx(s.id)]);
          break;
        case op::task_call:
          nodes_[idx(t.cur)].calls += 1;
          run(*s.sub, t);
          break;
        case op::call: {
          // A call is a sync scope: its syncs join only what it spawned, and
          // what it leaves unjoined passes to the caller's sync block.
          nodes_[idx(t.cur)].calls += 1;
          std::vector<int> caller_block;
          caller_block.swap(t.block);
          run(*s.sub, t);
          caller_block.insert(caller_block.end(), t.block.begin(), t.block.end());
          t.block.swap(caller_block);
          break;
        }
        case op::region: {
          region_instance r;
          r.task = t.id;
          r.open = t.cur;
          r.path = t.region_path + "/" + s.label;
          t.cur = follow(t.cur, t.id);
          const std::string saved = t.region_path;
          t.region_path = r.path;
          run(*s.sub, t);
          t.region_path = saved;
          r.close = t.cur;
          t.cur = follow(t.cur, t.id);
          regions_.push_back(r);
          break;
        }
      }
    }
  }

  // Is node v counted by a region of task `owner` spanning nodes (open, close]?
  bool counted(int v, int owner, int open, int close) const {
    int x = nodes_[idx(v)].task;
    int at = v;
    while (x != owner) {
      const absorption& a = absorbed_[idx(x)];
      if (a.by_task < 0) return false;
      x = a.by_task;
      at = a.at_node;
    }
    return at > open && at <= close;
  }

  totals sum_region(int owner, int open, int close) const {
    totals x;
    for (std::size_t v = 0; v < nodes_.size(); ++v) {
      if (!counted(static_cast<int>(v), owner, open, close)) continue;
      x.work += nodes_[v].cost;
      x.spawns += static_cast<std::uint64_t>(nodes_[v].spawns);
      x.syncs += nodes_[v].sync ? 1 : 0;
      x.calls += static_cast<std::uint64_t>(nodes_[v].calls);
    }
    return x;
  }

  std::uint64_t burden_ = 0;
  std::vector<node> nodes_;
  std::vector<absorption> absorbed_;
  std::vector<int> final_node_;
  std::vector<std::vector<int>> group_ends_, handle_ends_;
  std::vector<region_instance> regions_;
};

// ---------------------------------------------------------------------------
// A small scheduler: a shared queue, worker threads, and joins that run queued
// tasks while they wait (as oneTBB's wait does). Its own bookkeeping of which
// tasks a join waits for is separate from forkscale's.
class scheduler {
 public:
  explicit scheduler(unsigned workers) {
    for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
  }
  ~scheduler() {
    {
      std::lock_guard<std::mutex> g(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  bool parallel() const { return !threads_.empty(); }

  // What a join waits for. A task that ends with children still pending forwards
  // them to whatever waits for the task itself.
  struct counter {
    int pending = 0;
    counter* forward = nullptr;
  };

  counter* make_counter() {
    std::lock_guard<std::mutex> g(m_);
    counters_.push_back(std::make_unique<counter>());
    return counters_.back().get();
  }
  void add(counter* c) {
    std::lock_guard<std::mutex> g(m_);
    ++c->pending;
  }
  void done(counter* c) {
    {
      std::lock_guard<std::mutex> g(m_);
      while (c && --c->pending == 0) c = c->forward;
    }
    cv_.notify_all();
  }
  // At the end of a task whose own sync block is `mine`: pending children now also
  // count for `target`.
  void forward(counter* mine, counter* target) {
    std::lock_guard<std::mutex> g(m_);
    if (mine->pending > 0) {
      mine->forward = target;
      ++target->pending;
    }
  }
  void submit(std::function<void()> job, bool front) {
    {
      std::lock_guard<std::mutex> g(m_);
      if (front)
        queue_.push_front(std::move(job));
      else
        queue_.push_back(std::move(job));
    }
    cv_.notify_all();
  }
  void wait(counter* c) {
    std::unique_lock<std::mutex> lk(m_);
    while (c->pending > 0) {
      if (!queue_.empty()) {
        auto job = std::move(queue_.front());
        queue_.pop_front();
        lk.unlock();
        job();
        lk.lock();
      } else {
        cv_.wait(lk);
      }
    }
  }
  void reset() {
    std::lock_guard<std::mutex> g(m_);
    counters_.clear();
  }

 private:
  void work() {
    std::unique_lock<std::mutex> lk(m_);
    for (;;) {
      cv_.wait(lk, [this] { return stop_ || !queue_.empty(); });
      if (stop_ && queue_.empty()) return;
      auto job = std::move(queue_.back());
      queue_.pop_back();
      lk.unlock();
      job();
      lk.lock();
    }
  }

  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::unique_ptr<counter>> counters_;
  std::vector<std::thread> threads_;
  bool stop_ = false;
};

// ---------------------------------------------------------------------------
// The interpreter: runs a program through the guards.
template <class Clock = forkscale::default_clock>
class interpreter {
 public:
  interpreter(scheduler& sched, std::uint64_t seed) : sched_(sched), rng_(seed) {}

  forkscale::report run(const program& p, const std::string& label,
                        forkscale::options opt = forkscale::options{}) {
    groups_.clear();
    handles_.clear();
    for (int i = 0; i < p.groups; ++i) groups_.push_back(std::make_unique<group_slot>());
    for (int i = 0; i < p.handles; ++i) handles_.push_back(std::make_unique<handle_slot>());
    opt.clock = Clock::fixed ? Clock::kind : forkscale::clock_kind::cost;
    opt.burden = static_cast<double>(p.burden);
    forkscale::report rep = forkscale::measure<Clock>(
        label,
        [&] {
          scheduler::counter* block = sched_.make_counter();
          run_body(p.root, block);
          // Groups and handles end inside the measurement, so that misuse they
          // find is part of the report.
          groups_.clear();
          handles_.clear();
        },
        opt);
    sched_.reset();
    return rep;
  }

 private:
  struct group_slot {
    forkscale::basic_task_group<Clock> group;
    scheduler::counter* counter = nullptr;
  };
  struct handle_slot {
    forkscale::basic_join_handle<Clock> handle;
    scheduler::counter* counter = nullptr;
  };

  bool coin(unsigned percent) {
    std::lock_guard<std::mutex> g(rng_m_);
    return std::uniform_int_distribution<unsigned>(0, 99)(rng_) < percent;
  }

  // A spawned task: its body, then its unjoined children forwarded to `target`.
  void run_task(const body& b, scheduler::counter* target) {
    scheduler::counter* block = sched_.make_counter();
    run_body(b, block);
    sched_.forward(block, target);
  }

  template <class Spawned>
  void dispatch(Spawned&& task, scheduler::counter* target) {
    sched_.add(target);
    if (!sched_.parallel() || coin(25)) {  // run inline, now (serial elision, undeferred task)
      task();
      sched_.done(target);
      return;
    }
    auto holder = std::make_shared<std::decay_t<Spawned>>(std::forward<Spawned>(task));
    sched_.submit([this, holder, target] {
      (*holder)();
      sched_.done(target);
    }, coin(50));
  }

  void run_body(const body& b, scheduler::counter* block) {
    for (const auto& s : b) {
      switch (s.kind) {
        case op::charge: forkscale::charge(s.cost); break;
        case op::spawn: {
          const body* sub = s.sub.get();
          auto t = forkscale::spawn<Clock>([this, sub, block] { run_task(*sub, block); });
          dispatch(std::move(t), block);
          break;
        }
        case op::spawn_group: {
          group_slot& g = *groups_[static_cast<std::size_t>(s.id)];
          const body* sub = s.sub.get();
          scheduler::counter* c = g.counter;
          auto t = forkscale::spawn(g.group, [this, sub, c] { run_task(*sub, c); });
          dispatch(std::move(t), c);
          break;
        }
        case op::spawn_handle: {
          handle_slot& h = *handles_[static_cast<std::size_t>(s.id)];
          h.counter = sched_.make_counter();
          const body* sub = s.sub.get();
          scheduler::counter* c = h.counter;
          auto t = forkscale::spawn(h.handle, [this, sub, c] { run_task(*sub, c); });
          dispatch(std::move(t), c);
          break;
        }
        case op::sync: {
          forkscale::basic_sync_point<Clock> sp;
          sched_.wait(block);
          break;
        }
        case op::join_handle: {
          handle_slot& h = *handles_[static_cast<std::size_t>(s.id)];
          forkscale::basic_sync_point<Clock> sp(h.handle);
          sched_.wait(h.counter);
          break;
        }
        case op::group_scope: {
          group_slot& g = *groups_[static_cast<std::size_t>(s.id)];
          g.counter = sched_.make_counter();
          run_body(*s.sub, block);
          forkscale::basic_sync_point<Clock> sp(g.group);
          sched_.wait(g.counter);
          break;
        }
        case op::task_call: {
          forkscale::basic_call_site<Clock, false> cs;
          run_body(*s.sub, block);
          break;
        }
        case op::call: {
          forkscale::basic_call_site<Clock> cs;
          scheduler::counter* inner = sched_.make_counter();
          run_body(*s.sub, inner);
          sched_.forward(inner, block);  // what the call left unjoined
          break;
        }
        case op::region: {
          forkscale::basic_region<Clock> r(s.label);
          run_body(*s.sub, block);
          break;
        }
      }
    }
  }

  scheduler& sched_;
  std::mutex rng_m_;
  std::mt19937_64 rng_;
  std::vector<std::unique_ptr<group_slot>> groups_;
  std::vector<std::unique_ptr<handle_slot>> handles_;
};

}  // namespace rp
