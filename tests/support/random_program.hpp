// Random fork-join programs, a brute-force oracle for them, and an interpreter that
// runs them through forkscale's guards on a small help-while-waiting thread pool.
//
// The oracle knows nothing of the engine: it unrolls the program into an explicit
// dag of strands (one node per strand, split at every event), then computes longest
// paths by dynamic programming over the nodes in creation order (a topological
// order) and region totals from ancestor sets. From the same dag it computes the
// per-site profiles (docs/model.md, "Per-site profiles"): the invocation tree, the
// chosen critical path (with the task-id tie rule) and every profile column.
#pragma once
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
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
  what_if,       // run `body` inside a what_if_region guard at what_if_site_table[site]
};

// ---------------------------------------------------------------------------
// The sites programs use. Static storage only: the engine caches sites by the
// address of their strings. A handful of functions with a few lines each, so that
// random nesting makes direct recursion (a site inside itself), mutual recursion
// (fa's site inside fb's inside fa's) and same-function different-line nesting
// (top-caller) common. Call sites index call_site_table (call, task_call), spawn
// sites spawn_site_table (spawn, spawn_group, spawn_handle).
//
// call_site_table[0] and spawn_site_table[0] have the same file, line, function and
// tag: they differ only by kind, so they are two sites. call_site_table[2] and [3]
// differ only by the tag. "fc" has sites in two files: the function is the
// site's `function` string alone.
inline constexpr forkscale::site call_site_table[] = {
    {"src/alpha.cpp", 10, "fa", nullptr},     {"src/alpha.cpp", 14, "fa", nullptr},
    {"src/beta.cpp", 20, "fb", nullptr},      {"src/beta.cpp", 20, "fb", "hot, \"loop\""},
    {"include/gamma.hpp", 30, "fc", "gamma"}, {"src/delta.cpp", 40, "fc", nullptr},
};
inline constexpr forkscale::site spawn_site_table[] = {
    {"src/alpha.cpp", 10, "fa", nullptr},
    {"src/alpha.cpp", 12, "fa", nullptr},
    {"src/beta.cpp", 22, "fb", nullptr},
    {"include/gamma.hpp", 31, "fc", "task \u03b6"},
};
// The sites of what_if_region guards (generator flag `what_if`). A guard region is
// identified by its site's content, not by the addresses in it: entry [4] is entry
// [0] again, spelled with strings kept elsewhere, so the two are one region (and
// entering one inside the other counts once). Entry [5] differs from [1] by the
// line only: two regions that the report names alike ("wb"). Entry [3] has no tag:
// the report names it "delta.cpp:80".
inline constexpr char what_if_alias_file[] = "src/alpha.cpp";
inline constexpr char what_if_alias_function[] = "fa";
inline constexpr char what_if_alias_tag[] = "wa";
inline constexpr forkscale::site what_if_site_table[] = {
    {"src/alpha.cpp", 50, "fa", "wa"},
    {"src/beta.cpp", 60, "fb", "wb"},
    {"include/gamma.hpp", 70, "fc", "wc"},
    {"src/delta.cpp", 80, "fd", nullptr},
    {what_if_alias_file, 50, what_if_alias_function, what_if_alias_tag},
    {"src/beta.cpp", 61, "fb", "wb"},
};
inline constexpr int what_if_site_count = static_cast<int>(sizeof what_if_site_table / sizeof what_if_site_table[0]);

// Passed to spawn_scope guards, whose site is not the task's (the spawn point's is).
inline constexpr forkscale::site spawn_scope_decoy_site{"src/decoy.cpp", 99, "fz", "spawn scope decoy"};
inline constexpr int call_site_count = static_cast<int>(sizeof call_site_table / sizeof call_site_table[0]);
inline constexpr int spawn_site_count = static_cast<int>(sizeof spawn_site_table / sizeof spawn_site_table[0]);

inline bool is_spawn(op k) { return k == op::spawn || k == op::spawn_group || k == op::spawn_handle; }
inline bool is_call(op k) { return k == op::call || k == op::task_call; }

// A statement's site; statements made by hand without one use entry 0.
inline const forkscale::site& site_of(bool spawn, int index) {
  const int i = index < 0 ? 0 : index;
  return spawn ? spawn_site_table[i] : call_site_table[i];
}

// What a profile row is named by (report.hpp): the tag, or file:line with the file
// without its directory.
inline std::string site_name(const forkscale::site& w) {
  if (w.tag && *w.tag) return w.tag;
  std::string f = w.file;
  const auto slash = f.find_last_of("/\\");
  if (slash != std::string::npos) f = f.substr(slash + 1);
  return f + ":" + std::to_string(w.line);
}

struct stmt;
using body = std::vector<stmt>;

struct stmt {
  op kind = op::charge;
  std::uint64_t cost = 0;
  int id = -1;
  std::string label;
  std::shared_ptr<body> sub;
  int site = -1;  // call/task_call: index into call_site_table; spawns: spawn_site_table
};

// A what-if factor k = p/q exactly (q = 0: infinitely fast), and the double that
// options.what_if.factors is given.
struct what_if_factor {
  double value = 1;
  std::int64_t p = 1, q = 1;
};

struct program {
  body root;
  int groups = 0;
  int handles = 0;
  std::uint64_t burden = 0;
  // The what-if analysis asked for (generator flag `what_if`): when `what_if` is
  // set the interpreter passes these as options.what_if.factors and .call_sites.
  bool what_if = false;
  std::vector<what_if_factor> what_if_factors;
  std::vector<std::string> what_if_call_sites;
  std::string describe() const;
};

// Statements for hand-made programs.
inline stmt charge(std::uint64_t cost) {
  stmt s;
  s.kind = op::charge;
  s.cost = cost;
  return s;
}
inline stmt with_body(op kind, int site, body b) {
  stmt s;
  s.kind = kind;
  s.site = site;
  s.sub = std::make_shared<body>(std::move(b));
  return s;
}
inline stmt sync() {
  stmt s;
  s.kind = op::sync;
  return s;
}

// The factors random programs are analysed at: each with its exact fraction.
inline const std::vector<what_if_factor>& what_if_factor_table() {
  static const std::vector<what_if_factor> t = {
      {1, 1, 1},    {2, 2, 1},
      {3, 3, 1},    {1.5, 3, 2},
      {0.5, 1, 2},  // a slowdown
      {16, 16, 1},  {std::numeric_limits<double>::infinity(), 1, 0},
      {1.25, 5, 4},
  };
  return t;
}

// Call sites a program may name at run time: file:line and tag=NAME specs of
// call_site_table entries ("beta.cpp:20" names [2] and [3] together; a spec and its
// longer spelling are two regions), then specs that name no call guard of any
// program (a spawn site's line or tag, a suffix that does not start at a directory
// boundary, a what-if guard's tag, a file no site has): those never execute.
inline const std::vector<std::string>& what_if_spec_table() {
  static const std::vector<std::string> t = {
      "alpha.cpp:10",
      "src/alpha.cpp:10",
      "alpha.cpp:14",
      "beta.cpp:20",
      "gamma.hpp:30",
      "include/gamma.hpp:30",
      "delta.cpp:40",
      "tag=gamma",
      "tag=hot, \"loop\"",
      // never executed
      "alpha.cpp:12",
      "pha.cpp:10",
      "tag=task \u03b6",
      "tag=wa",
      "nowhere.cpp:5",
      "tag=spawn scope decoy",
  };
  return t;
}
inline constexpr std::size_t what_if_live_specs = 9;  // the first 9 can execute

// ---------------------------------------------------------------------------
// Generator. Every program it makes is well formed: every spawn is joined before
// the measurement ends, by a sync, a handle join or a group wait that surely runs
// after the spawn finishes.
class generator {
 public:
  // Sites (and the small-cost choice below) come from their own random stream, so
  // a seed gives the same program shape as before sites existed.
  explicit generator(std::uint64_t seed) : rng_(seed), site_rng_(seed ^ 0x5DEECE66DA3B1F27ull) {}
  // what_if: also make what-if region statements, name call sites at run time and
  // choose factors, all from a third random stream (without it a seed makes the
  // same program as before what-if regions existed).
  generator(std::uint64_t seed, bool what_if)
      : rng_(seed), site_rng_(seed ^ 0x5DEECE66DA3B1F27ull), wi_rng_(seed ^ 0x2545F4914F6CDD1Dull), what_if_(what_if) {}

  program make() {
    program p;
    budget_ = pick(4, 160);
    // In about a third of the programs every charge is 0, 1 or 2 units, so that
    // paths of equal length meet at joins often and the tie rule of the chosen
    // critical path decides which invocations are on span.
    small_costs_ = std::uniform_int_distribution<int>(0, 2)(site_rng_) == 0;
    p.burden = pick(0, 3) == 0 ? 0 : pick(1, 400);
    std::vector<int> groups;
    p.root = make_body(0, groups, p);
    stmt s;
    s.kind = op::sync;  // the measured program joins everything it spawned
    p.root.push_back(s);
    if (pick(0, 1)) p.root.push_back(charge_stmt());
    if (what_if_) choose_what_if_options(p);
    return p;
  }

 private:
  std::uint64_t pick(std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng_);
  }
  std::uint64_t wi_pick(std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(wi_rng_);
  }
  // 1 to 5 factors (repeats allowed); in half the programs 1 to 3 named call sites,
  // mostly ones that can execute, sometimes one twice.
  void choose_what_if_options(program& p) {
    p.what_if = true;
    const auto& ft = what_if_factor_table();
    const auto nf = wi_pick(1, 5);
    for (std::uint64_t i = 0; i < nf; ++i) p.what_if_factors.push_back(ft[wi_pick(0, ft.size() - 1)]);
    if (wi_pick(0, 1)) {
      const auto& st = what_if_spec_table();
      const auto ns = wi_pick(1, 3);
      for (std::uint64_t i = 0; i < ns; ++i) {
        const bool dead = wi_pick(0, 3) == 0;
        p.what_if_call_sites.push_back(dead ? st[wi_pick(what_if_live_specs, st.size() - 1)]
                                            : st[wi_pick(0, what_if_live_specs - 1)]);
      }
    }
  }
  // Often an enclosing what-if region's site (a region inside itself), else any.
  int choose_what_if_site() {
    if (!wi_enclosing_.empty() && wi_pick(0, 2) == 0) return wi_enclosing_[wi_pick(0, wi_enclosing_.size() - 1)];
    return static_cast<int>(wi_pick(0, what_if_site_count - 1));
  }
  stmt charge_stmt() {
    stmt s;
    s.kind = op::charge;
    const auto r = pick(0, 9);
    s.cost = r == 0 ? 0 : r < 7 ? pick(1, 100) : pick(100, 5000);
    if (small_costs_) s.cost %= 3;
    return s;
  }
  std::shared_ptr<body> sub(int depth, const std::vector<int>& groups, program& p) {
    return std::make_shared<body>(make_body(depth + 1, groups, p));
  }
  // An invocation's body: generated with its site on the stack of enclosing
  // invocations (whose order is the invocation tree's).
  std::shared_ptr<body> invocation_body(stmt& s, int depth, const std::vector<int>& groups, program& p) {
    const bool spawn = is_spawn(s.kind);
    s.site = choose_site(spawn);
    enclosing_.emplace_back(spawn, s.site);
    auto b = sub(depth, groups, p);
    enclosing_.pop_back();
    return b;
  }
  // Often an enclosing invocation's site (recursion), else any site of the kind.
  int choose_site(bool spawn) {
    std::vector<int> same;
    for (const auto& e : enclosing_)
      if (e.first == spawn) same.push_back(e.second);
    const auto r = std::uniform_int_distribution<int>(0, 99)(site_rng_);
    if (!same.empty() && r < 25) return same.back();  // direct recursion
    if (!same.empty() && r < 40) return same[std::uniform_int_distribution<std::size_t>(0, same.size() - 1)(site_rng_)];
    return std::uniform_int_distribution<int>(0, (spawn ? spawn_site_count : call_site_count) - 1)(site_rng_);
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
      if (what_if_ && can_nest && wi_pick(0, 99) < 14) {
        s.kind = op::what_if;
        s.site = choose_what_if_site();
        wi_enclosing_.push_back(s.site);
        s.sub = sub(depth, groups, p);
        wi_enclosing_.pop_back();
      } else if (r < 30 || !can_nest) {
        s = charge_stmt();
      } else if (r < 45) {
        s.kind = op::spawn;
        s.sub = invocation_body(s, depth, groups, p);
      } else if (r < 53 && !groups.empty()) {
        s.kind = op::spawn_group;
        const auto k = pick(0, groups.size() - 1);
        s.id = groups[k];
        // The group's wait covers this task, but not waits of groups declared
        // inside the group's scope: the task may run after those.
        const std::vector<int> outer(groups.begin(), groups.begin() + static_cast<long>(k) + 1);
        s.sub = invocation_body(s, depth, outer, p);
      } else if (r < 60) {
        s.kind = op::spawn_handle;
        s.id = p.handles++;
        s.sub = invocation_body(s, depth, groups, p);
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
        s.sub = invocation_body(s, depth, groups, p);
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
      auto spawn_at =
          std::find_if(b.begin(), b.end(), [&](const stmt& x) { return x.kind == op::spawn_handle && x.id == h; });
      auto join_at =
          std::find_if(b.begin(), b.end(), [&](const stmt& x) { return x.kind == op::join_handle && x.id == h; });
      if (join_at < spawn_at) {
        stmt j = *join_at;
        b.erase(join_at);
        b.push_back(j);
      }
    }
    return b;
  }

  std::mt19937_64 rng_;
  std::mt19937_64 site_rng_;
  std::mt19937_64 wi_rng_;
  bool what_if_ = false;
  std::vector<int> wi_enclosing_;  // sites of the enclosing what-if statements
  bool small_costs_ = false;
  std::vector<std::pair<bool, int>> enclosing_;  // (spawn kind, site) of enclosing invocations
  int budget_ = 0;
};

// "[fa alpha.cpp:10]": the site's function and name.
inline std::string describe_site(bool spawn, int index) {
  const forkscale::site& w = site_of(spawn, index);
  return std::string("[") + w.function + " " + site_name(w) + "]";
}

inline void describe_body(std::ostringstream& os, const body& b, int indent) {
  for (const auto& s : b) {
    os << std::string(static_cast<std::size_t>(indent) * 2, ' ');
    const std::string at = is_spawn(s.kind) || is_call(s.kind) ? describe_site(is_spawn(s.kind), s.site) + " " : "";
    switch (s.kind) {
      case op::charge:
        os << "charge " << s.cost << "\n";
        break;
      case op::spawn:
        os << "spawn " << at << "{\n";
        break;
      case op::spawn_group:
        os << "spawn into group " << s.id << " " << at << "{\n";
        break;
      case op::spawn_handle:
        os << "spawn handle " << s.id << " " << at << "{\n";
        break;
      case op::sync:
        os << "sync\n";
        break;
      case op::join_handle:
        os << "join handle " << s.id << "\n";
        break;
      case op::group_scope:
        os << "group " << s.id << " {\n";
        break;
      case op::call:
        os << "call " << at << "{\n";
        break;
      case op::task_call:
        os << "task call " << at << "{\n";
        break;
      case op::region:
        os << "region " << s.label << " {\n";
        break;
      case op::what_if: {
        const forkscale::site& w = what_if_site_table[s.site < 0 ? 0 : s.site];
        os << "what-if #" << s.site << " [" << w.function << " " << site_name(w) << " line " << w.line << "] {\n";
        break;
      }
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
  if (what_if) {
    os << "what-if factors";
    for (const auto& f : what_if_factors) os << " " << f.value << " (" << f.p << "/" << f.q << ")";
    os << "\nwhat-if call sites:";
    for (const auto& c : what_if_call_sites) os << " \"" << c << "\"";
    os << (what_if_call_sites.empty() ? " none\n" : "\n");
  }
  describe_body(os, root, 0);
  return os.str();
}

// ---------------------------------------------------------------------------
// The numbers every check compares.
struct totals {
  std::uint64_t instances = 0, work = 0, span = 0, burdened_span = 0, spawns = 0, syncs = 0, calls = 0;
  bool operator==(const totals& o) const {
    return instances == o.instances && work == o.work && span == o.span && burdened_span == o.burdened_span &&
           spawns == o.spawns && syncs == o.syncs && calls == o.calls;
  }
};

inline std::string to_string(const totals& t) {
  std::ostringstream os;
  os << "{instances " << t.instances << ", work " << t.work << ", span " << t.span << ", burdened " << t.burdened_span
     << ", spawns " << t.spawns << ", syncs " << t.syncs << ", calls " << t.calls << "}";
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
//
// The per-site profiles (docs/model.md, "Per-site profiles"; Cilkprof, Schardl et
// al., SPAA'15, §3–§6; TaskProf, Yoga and Nagarakatte, FSE'17, for the spawn-site
// table), from the same dag:
//
// - Every call/task_call and every spawned task is an invocation; the measurement
//   is invocation 0, the root. A call splits its task's strand where it opens and
//   where it closes, so its start is the end of the node before it and its end the
//   end of its last node; a task starts at the end of its spawner's node and ends
//   at the end of its last node. Every node belongs to the innermost invocation
//   open in its task when it was made.
// - work(x): the nodes x's task counts between x's start and end, exactly as a
//   region does; span(x): longest path to its end minus to its start.
// - The chosen path: each node's chosen predecessor is the one with the longest
//   path, ties to the predecessor whose task has the larger task id (a join
//   node's predecessors are the joining task's previous node and the last node of
//   every task it absorbs). Walking chosen predecessors back from the program's
//   last node gives the chosen path; an invocation is on span when its last node
//   is on it.
// - L(v) = L(chosen predecessor of v) + the local span of the invocation ending at
//   v (if any), local span(x) = span(x) − (L(chosen predecessor of x's end) −
//   L(x's start)), over nodes in creation (topological) order; E(v) and the
//   exclusive span of tasks likewise with tasks only.

// The profiles the oracle computes, in the report's own row types (the root row
// first; identity fields of the root rows are left empty).
struct site_profiles {
  std::vector<forkscale::call_site_profile> call_sites;
  std::vector<forkscale::spawn_site_profile> spawn_sites;
};

// SplitMix64's finalizer (Steele, Lea and Flood, "Fast splittable pseudorandom
// number generators", OOPSLA'14), as docs/model.md defines task ids with it.
inline std::uint64_t splitmix64_mix(std::uint64_t z) {
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ull;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z;
}
// The id of the k-th task (k = 1, 2, ...) spawned by a task with id `parent`.
inline std::uint64_t child_task_id(std::uint64_t parent, std::uint64_t k) {
  return splitmix64_mix(parent + k * 0x9E3779B97F4A7C15ull) | 1u;
}

// ---------------------------------------------------------------------------
// What-if predictions from the same dag (the what-if model: docs/model.md, "What-if
// regions"; include/forkscale/detail/what_if.hpp).
//
// Every node (strand) carries the set of what-if regions open around it: those
// opened in its task and not yet closed, plus those its task inherited — a task
// inherits the set open in its spawner at the spawn point. A guard region is its
// site's content; a call site named at run time (one region per distinct text) is
// open inside every call/task_call guard whose site it names. An entry counts
// when the region was not open around it already. For each scenario (every region
// together; each region alone) and factor p/q, the predicted span × p is the
// longest path with each node weighing cost × q when it is in a region of the
// scenario (once, however many), cost × p otherwise: exact integers.

// A scenario's expected rows (the identity, then per factor the span).
struct what_if_scenario {
  forkscale::what_if_source source = forkscale::what_if_source::all;
  std::string name, file, function, tag;
  unsigned line = 0;
  // A named call site's identity is that of a site it matched: the call_site_table
  // entries it matched, in order of first execution (serial order).
  std::vector<int> call_candidates;
  std::uint64_t entries = 0, region_work = 0;
  bool executed = false;
  std::vector<std::int64_t> span_num;  // per factor: the predicted span × p
};

struct what_if_expected {
  std::vector<what_if_factor> factors;
  std::uint64_t work = 0, span = 0, burdened_span = 0;  // as measured
  std::vector<what_if_scenario> scenarios;              // empty: no rows; else [0] is all regions
};

// Deliberately wrong models, to show that the comparison can fail.
enum class what_if_mutant {
  none,
  no_inheritance,  // spawned tasks do not inherit the regions open at their spawn point
  every_entry,     // every entry counts, also inside the region already
};

// A named call site, parsed without the engine's code.
struct what_if_call_spec {
  std::string text, file, tag;
  unsigned line = 0;
  bool by_tag = false;

  explicit what_if_call_spec(const std::string& t) : text(t) {
    if (t.rfind("tag=", 0) == 0) {
      by_tag = true;
      tag = t.substr(4);
      return;
    }
    const auto colon = t.rfind(':');
    if (colon == std::string::npos) throw std::logic_error("call site spec without a line: " + t);
    file = t.substr(0, colon);
    line = static_cast<unsigned>(std::stoul(t.substr(colon + 1)));
  }
  // "file:line": the same line, and the file equal to the site's or a suffix of it
  // that starts after a '/'.
  bool names(const forkscale::site& w) const {
    if (by_tag) return w.tag != nullptr && tag == w.tag;
    if (w.line != line) return false;
    const std::string f = w.file;
    if (f == file) return true;
    return f.size() > file.size() && f.compare(f.size() - file.size(), file.size(), file) == 0 &&
           f[f.size() - file.size() - 1] == '/';
  }
};

class oracle {
 public:
  void set_what_if_mutant(what_if_mutant m) { mutant_ = m; }
  // The what-if rows of the program last evaluated.
  const what_if_expected& what_if() const { return what_if_; }

  region_table evaluate(const program& p, const std::string& root_label) {
    reset(p);
    task t = root_task(root_label);
    run(p.root, t);
    if (!t.block.empty()) throw std::logic_error("program leaves tasks unjoined");
    const int root_end = t.cur;
    invocations_[0].end = root_end;

    longest_paths();
    check_root_end_is_last(root_end);

    region_table out;
    totals root = sum_region(t.id, -1, root_end);
    root.span = dist_[idx(root_end)];
    root.burdened_span = bdist_[idx(root_end)];
    root.instances = 1;
    out[root_label] = root;
    add_region_rows(out);
    compute_profiles(root_end);
    compute_what_if(p, root_end, root.work, root.span, root.burdened_span);
    if (work_[0] != root.work) throw std::logic_error("invocation work disagrees with region work");
    return out;
  }

  // The per-site profiles of the program last evaluated.
  const site_profiles& profiles() const { return profiles_; }

  // Every invocation of the program last evaluated, one per line: site, parent,
  // task id, work, span, local work and span, on span (for failure messages).
  std::string explain() const {
    std::ostringstream os;
    for (std::size_t x = 0; x < invocations_.size(); ++x) {
      const invocation& in = invocations_[x];
      os << "  #" << x << " ";
      if (x == 0)
        os << "root";
      else
        os << (in.spawn ? "task " : "call ") << describe_site(in.spawn, in.site) << " parent #" << in.parent;
      os << " task id 0x" << std::hex << task_uid_[idx(in.task)] << std::dec << ": work " << work_[x] << ", span "
         << span_of(static_cast<int>(x)) << ", local work " << local_work_[x] << ", local span "
         << (x == 0 ? root_local_span_ : local_span_[x]);
      if (in.spawn) os << ", exclusive work " << exclusive_work_[x] << ", exclusive span " << exclusive_span_[x];
      os << (on_span_[x] ? ", on span" : "") << "\n";
    }
    return os.str();
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
    int spawns = 0;        // spawn events at the end of this node
    bool sync = false;     // this node starts after a join
    int calls = 0;         // call events inside this node
    int inv = -1;          // the invocation this node belongs to
    int ends = -1;         // the invocation whose last node this is
    std::uint32_t wi = 0;  // the what-if regions open around it (bit r: region r)
  };
  struct task {
    int id = -1;
    int cur = -1;
    std::vector<int> block;  // tasks in the task's own sync block
    std::string region_path;
    std::uint64_t uid = 0;      // the task id of docs/model.md
    std::uint64_t spawned = 0;  // spawns made so far, all kinds
    std::vector<int> invs;      // open invocations, innermost last (the task's own first)
  };
  struct region_instance {
    std::string path;
    int task, open, close;
  };
  struct absorption {
    int by_task = -1;
    int at_node = -1;
  };
  struct invocation {
    int site = -1;  // index into the kind's table; -1 for the root
    bool spawn = false;
    int parent = -1;
    int task = -1;
    int start = -1;  // the node whose end is the invocation's start (-1: the program's)
    int end = -1;    // its last node
  };

  static std::size_t idx(int i) { return static_cast<std::size_t>(i); }

  // Forgets the program evaluated before; the call sites `p` names at run time
  // become what-if regions 0 .. specs − 1 (each distinct text once).
  void reset(const program& p) {
    burden_ = p.burden;
    nodes_.clear();
    absorbed_.clear();
    final_node_.clear();
    task_uid_.clear();
    task_inv_.clear();
    open_inv_.clear();
    invocations_.clear();
    group_ends_.assign(static_cast<std::size_t>(p.groups), {});
    handle_ends_.assign(static_cast<std::size_t>(p.handles), {});
    regions_.clear();
    task_mask_.clear();
    wi_specs_.clear();
    for (const auto& text : p.what_if_call_sites) {
      bool seen = false;
      for (const auto& x : wi_specs_) seen = seen || x.text == text;
      if (!seen) wi_specs_.emplace_back(text);
    }
    wi_guards_.clear();
    wi_entries_.assign(wi_specs_.size(), 0);
    wi_candidates_.assign(wi_specs_.size(), {});
  }

  // The measurement's task, in the root invocation, at its first node.
  task root_task(const std::string& root_label) {
    task t;
    t.id = new_task();
    t.uid = 1;  // the root task's id
    task_uid_[idx(t.id)] = t.uid;
    invocations_.emplace_back();  // the root invocation
    invocations_[0].task = t.id;
    task_inv_[idx(t.id)] = 0;
    t.invs.push_back(0);
    open_inv_[idx(t.id)] = 0;
    t.cur = new_node(t.id);
    t.region_path = root_label;
    return t;
  }

  // Longest paths, plain and burdened, in creation (= topological) order; the
  // chosen predecessor of every node; L and E along the chosen paths.
  void longest_paths() {
    const std::size_t n = nodes_.size();
    dist_.assign(n, 0);
    bdist_.assign(n, 0);
    chosen_.assign(n, -1);
    lsum_.assign(n, 0);
    esum_.assign(n, 0);
    local_span_.assign(invocations_.size(), 0);
    exclusive_span_.assign(invocations_.size(), 0);
    for (std::size_t v = 0; v < n; ++v) {
      std::uint64_t best = 0, bbest = 0;
      int chosen = -1;
      for (const auto& e : nodes_[v].preds) {
        best = std::max(best, dist_[idx(e.from)]);
        bbest = std::max(bbest, bdist_[idx(e.from)] + (e.continuation ? burden_ : 0));
        if (chosen < 0 || beats(e.from, chosen)) chosen = e.from;
      }
      dist_[v] = best + nodes_[v].cost;
      bdist_[v] = bbest + nodes_[v].cost;
      chosen_[v] = chosen;
      const std::int64_t lbase = chosen < 0 ? 0 : lsum_[idx(chosen)];
      const std::int64_t ebase = chosen < 0 ? 0 : esum_[idx(chosen)];
      lsum_[v] = lbase;
      esum_[v] = ebase;
      const int x = nodes_[v].ends;
      if (x >= 0) {
        const invocation& in = invocations_[idx(x)];
        const std::int64_t sp = span_of(x);
        const std::int64_t ls = sp - (lbase - (in.start < 0 ? 0 : lsum_[idx(in.start)]));
        local_span_[idx(x)] = ls;
        lsum_[v] += ls;
        if (in.spawn) {
          const std::int64_t es = sp - (ebase - (in.start < 0 ? 0 : esum_[idx(in.start)]));
          exclusive_span_[idx(x)] = es;
          esum_[v] += es;
        }
      }
    }
  }

  // The last node of the root follows every other node.
  void check_root_end_is_last(int root_end) const {
    for (std::size_t v = 0; v < nodes_.size(); ++v)
      if (dist_[v] > dist_[idx(root_end)] || bdist_[v] > bdist_[idx(root_end)])
        throw std::logic_error("a strand does not precede the end of the program");
  }

  // A row per region path: the instances of each summed.
  void add_region_rows(region_table& out) const {
    for (const auto& r : regions_) {
      totals x = sum_region(r.task, r.open, r.close);
      totals& acc = out[r.path];
      acc.instances += 1;
      acc.work += x.work;
      acc.span += dist_[idx(r.close)] - dist_[idx(r.open)];
      acc.burdened_span += bdist_[idx(r.close)] - bdist_[idx(r.open)];
      acc.spawns += x.spawns;
      acc.syncs += x.syncs;
      acc.calls += x.calls;
    }
  }

  // Region r opens in task t (the caller restores the task's set when it closes).
  void enter_what_if(task& t, int r) {
    const std::uint32_t bit = std::uint32_t{1} << r;
    std::uint32_t& m = task_mask_[idx(t.id)];
    if (!(m & bit) || mutant_ == what_if_mutant::every_entry) wi_entries_[idx(r)] += 1;
    m |= bit;
  }
  // The region of a what_if_region guard: by the content of its site. Named call
  // sites come first (bits 0 .. specs − 1), then guard regions as first entered.
  int guard_region(const forkscale::site& w) {
    const std::string tag = w.tag ? w.tag : "";
    for (std::size_t k = 0; k < wi_guards_.size(); ++k) {
      const forkscale::site& g = wi_guards_[k];
      if (std::strcmp(g.file, w.file) == 0 && g.line == w.line && std::strcmp(g.function, w.function) == 0 &&
          (g.tag == nullptr) == (w.tag == nullptr) && (g.tag == nullptr || tag == g.tag))
        return static_cast<int>(wi_specs_.size() + k);
    }
    wi_guards_.push_back(w);
    wi_entries_.push_back(0);
    if (wi_entries_.size() > 32) throw std::logic_error("more than 32 what-if regions");
    return static_cast<int>(wi_entries_.size()) - 1;
  }

  // The expected what-if rows: none when the measurement has no region (no guard
  // entered, no call site named).
  void compute_what_if(const program& p, int root_end, std::uint64_t work, std::uint64_t span,
                       std::uint64_t burdened_span) {
    what_if_ = what_if_expected{};
    what_if_.factors =
        p.what_if ? p.what_if_factors
                  : std::vector<what_if_factor>{
                        {2, 2, 1}, {4, 4, 1}, {8, 8, 1}, {16, 16, 1}, {std::numeric_limits<double>::infinity(), 1, 0}};
    what_if_.work = work;
    what_if_.span = span;
    what_if_.burdened_span = burdened_span;
    const std::size_t regions = wi_entries_.size();
    if (regions == 0) return;
    const std::size_t n = nodes_.size();
    std::vector<std::int64_t> len(n);
    for (std::size_t sc = 0; sc <= regions; ++sc) {
      what_if_scenario x;
      const std::uint32_t in = sc == 0 ? ~std::uint32_t{0} : std::uint32_t{1} << (sc - 1);
      if (sc == 0) {
        x.name = "(all regions)";
        for (std::uint64_t e : wi_entries_) x.entries += e;
      } else if (sc - 1 < wi_specs_.size()) {
        const what_if_call_spec& sp = wi_specs_[sc - 1];
        x.source = forkscale::what_if_source::call_site;
        x.name = sp.text;
        x.call_candidates = wi_candidates_[sc - 1];
        if (sp.by_tag) x.tag = sp.tag;  // what a call site never entered shows
        x.entries = wi_entries_[sc - 1];
      } else {
        const forkscale::site& g = wi_guards_[sc - 1 - wi_specs_.size()];
        x.source = forkscale::what_if_source::region;
        x.name = site_name(g);
        x.file = g.file;
        x.line = g.line;
        x.function = g.function;
        x.tag = g.tag ? g.tag : "";
        x.entries = wi_entries_[sc - 1];
      }
      x.executed = x.entries > 0;
      for (const auto& nd : nodes_)
        if (nd.wi & in) x.region_work += nd.cost;
      for (const auto& f : what_if_.factors) {
        for (std::size_t v = 0; v < n; ++v) {
          std::int64_t best = 0;
          for (const auto& e : nodes_[v].preds) best = std::max(best, len[idx(e.from)]);
          const std::int64_t c = static_cast<std::int64_t>(nodes_[v].cost);
          len[v] = best + c * ((nodes_[v].wi & in) ? f.q : f.p);
        }
        x.span_num.push_back(len[idx(root_end)]);
      }
      what_if_.scenarios.push_back(std::move(x));
    }
  }

  int new_task() {
    absorbed_.emplace_back();
    final_node_.push_back(-1);
    task_uid_.push_back(0);
    task_inv_.push_back(-1);
    open_inv_.push_back(-1);
    task_mask_.push_back(0);
    return static_cast<int>(absorbed_.size()) - 1;
  }
  int new_node(int task_id) {
    nodes_.emplace_back();
    nodes_.back().task = task_id;
    nodes_.back().inv = open_inv_[idx(task_id)];
    nodes_.back().wi = task_mask_[idx(task_id)];
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

  void open_invocation(task& t, bool spawn, int site, int task_id, int start) {
    invocation in;
    in.site = site < 0 ? 0 : site;
    in.spawn = spawn;
    in.parent = t.invs.back();
    in.task = task_id;
    in.start = start;
    invocations_.push_back(in);
  }
  void end_invocation(int x, int last) {
    invocations_[idx(x)].end = last;
    if (nodes_[idx(last)].ends >= 0) throw std::logic_error("two invocations end at one node");
    nodes_[idx(last)].ends = x;
  }

  // Runs a child task to its end; returns the tasks its joiner waits for: the
  // child, whose end covers the children it left unjoined (they outlive it, and
  // belong to its invocation: docs/model.md, "Per-site profiles").
  std::vector<int> spawn_child(const stmt& s, task& parent) {
    const int u = parent.cur;
    nodes_[idx(u)].spawns += 1;
    task child;
    child.id = new_task();
    child.uid = child_task_id(parent.uid, ++parent.spawned);
    task_uid_[idx(child.id)] = child.uid;
    // The task's invocation: its parent is the innermost invocation open in the
    // spawning task at the spawn point.
    open_invocation(parent, true, s.site, child.id, u);
    const int x = static_cast<int>(invocations_.size()) - 1;
    task_inv_[idx(child.id)] = x;
    child.invs.push_back(x);
    open_inv_[idx(child.id)] = x;
    task_mask_[idx(child.id)] = mutant_ == what_if_mutant::no_inheritance ? 0u : task_mask_[idx(parent.id)];
    child.cur = follow(u, child.id);
    child.region_path = parent.region_path;
    run(*s.sub, child);
    int end = child.cur;
    if (!child.block.empty()) {
      // The task's end as its joiner sees it: after its last strand and the
      // ends of the children it left (no strand of its own: cost 0). Its
      // invocation ends there, and it absorbs those children there.
      end = follow(child.cur, child.id);
      for (int g : child.block) {
        nodes_[idx(end)].preds.push_back({final_node_[idx(g)], false});
        absorbed_[idx(g)] = absorption{child.id, end};
      }
    }
    final_node_[idx(child.id)] = end;
    end_invocation(x, end);
    parent.cur = follow(u, parent.id, /*continuation=*/true);
    return std::vector<int>{child.id};
  }

  // A call's invocation around `inner`: the strand splits where it opens and
  // where it closes.
  template <class Inner>
  void invoke_call(const stmt& s, task& t, Inner inner) {
    open_invocation(t, false, s.site, t.id, t.cur);
    const int x = static_cast<int>(invocations_.size()) - 1;
    t.invs.push_back(x);
    open_inv_[idx(t.id)] = x;
    // The call sites named at run time that name this one are open inside it.
    const std::uint32_t saved = task_mask_[idx(t.id)];
    const forkscale::site& w = site_of(false, s.site);
    for (std::size_t r = 0; r < wi_specs_.size(); ++r) {
      if (!wi_specs_[r].names(w)) continue;
      auto& c = wi_candidates_[r];
      if (std::find(c.begin(), c.end(), s.site) == c.end()) c.push_back(s.site);
      enter_what_if(t, static_cast<int>(r));
    }
    t.cur = follow(t.cur, t.id);
    inner();
    end_invocation(x, t.cur);
    t.invs.pop_back();
    open_inv_[idx(t.id)] = t.invs.back();
    task_mask_[idx(t.id)] = saved;
    t.cur = follow(t.cur, t.id);
  }

  void run(const body& b, task& t) {
    for (const auto& s : b) {
      switch (s.kind) {
        case op::charge:
          nodes_[idx(t.cur)].cost += s.cost;
          break;
        case op::spawn: {
          auto w = spawn_child(s, t);
          t.block.insert(t.block.end(), w.begin(), w.end());
          break;
        }
        case op::spawn_group: {
          auto w = spawn_child(s, t);
          auto& g = group_ends_[idx(s.id)];
          g.insert(g.end(), w.begin(), w.end());
          break;
        }
        case op::spawn_handle: {
          auto w = spawn_child(s, t);
          auto& h = handle_ends_[idx(s.id)];
          h.insert(h.end(), w.begin(), w.end());
          break;
        }
        case op::sync:
          join(t, t.block);
          break;
        case op::join_handle:
          join(t, handle_ends_[idx(s.id)]);
          break;
        case op::group_scope:
          run(*s.sub, t);
          join(t, group_ends_[idx(s.id)]);
          break;
        case op::task_call:
          nodes_[idx(t.cur)].calls += 1;
          invoke_call(s, t, [&] { run(*s.sub, t); });
          break;
        case op::call: {
          // A call is a sync scope: its syncs join only what it spawned, and
          // what it leaves unjoined passes to the caller's sync block.
          nodes_[idx(t.cur)].calls += 1;
          invoke_call(s, t, [&] {
            std::vector<int> caller_block;
            caller_block.swap(t.block);
            run(*s.sub, t);
            caller_block.insert(caller_block.end(), t.block.begin(), t.block.end());
            t.block.swap(caller_block);
          });
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
        case op::what_if: {
          // A new strand on both sides, with the region open in between.
          const std::uint32_t saved = task_mask_[idx(t.id)];
          enter_what_if(t, guard_region(what_if_site_table[s.site]));
          t.cur = follow(t.cur, t.id);
          run(*s.sub, t);
          task_mask_[idx(t.id)] = saved;
          t.cur = follow(t.cur, t.id);
          break;
        }
      }
    }
  }

  // Does the path to node a win over the path to node b at a join? Longer wins;
  // on a tie, the one from the task with the larger task id.
  bool beats(int a, int b) const {
    if (dist_[idx(a)] != dist_[idx(b)]) return dist_[idx(a)] > dist_[idx(b)];
    const std::uint64_t ia = task_uid_[idx(nodes_[idx(a)].task)];
    const std::uint64_t ib = task_uid_[idx(nodes_[idx(b)].task)];
    if (ia == ib) throw std::logic_error("two incoming paths of a join with one task id");
    return ia > ib;
  }

  std::int64_t span_of(int x) const {
    const invocation& in = invocations_[idx(x)];
    const std::uint64_t to_start = in.start < 0 ? 0 : dist_[idx(in.start)];
    return static_cast<std::int64_t>(dist_[idx(in.end)]) - static_cast<std::int64_t>(to_start);
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

  // Work of an invocation: what its task counts between its start and its end.
  // Summed by ancestor chains like sum_region, but for all invocations in one
  // pass over the nodes.
  void invocation_work() {
    const std::size_t ni = invocations_.size();
    work_.assign(ni, 0);
    // the invocations of each task, to find those whose (start, end] holds a point
    std::vector<std::vector<int>> of_task(absorbed_.size());
    for (std::size_t x = 0; x < ni; ++x) of_task[idx(invocations_[x].task)].push_back(static_cast<int>(x));
    for (std::size_t v = 0; v < nodes_.size(); ++v) {
      const std::uint64_t c = nodes_[v].cost;
      if (c == 0) continue;
      // every (task, node) the node is counted at: its own, then each absorption
      int tk = nodes_[v].task;
      int at = static_cast<int>(v);
      for (;;) {
        for (int x : of_task[idx(tk)]) {
          const invocation& in = invocations_[idx(x)];
          if (at > in.start && at <= in.end) work_[idx(x)] += c;
        }
        const absorption& a = absorbed_[idx(tk)];
        if (a.by_task < 0) break;
        tk = a.by_task;
        at = a.at_node;
      }
    }
  }

  using call_rows = std::map<std::pair<bool, int>, forkscale::call_site_profile>;  // by (spawn, site)
  using spawn_rows = std::map<int, forkscale::spawn_site_profile>;                 // by spawn site

  void compute_profiles(int root_end) {
    invocation_measures(root_end);
    const std::uint64_t total_work = work_[0];
    const std::int64_t total_span = span_of(0);
    root_local_span_ = total_span - lsum_[idx(root_end)];
    const std::int64_t root_critical = total_span - esum_[idx(root_end)];

    profiles_ = site_profiles{};
    add_root_rows(total_work, total_span, root_critical);
    call_rows rows;
    spawn_rows spawns;
    for (std::size_t x = 1; x < invocations_.size(); ++x) add_invocation(x, rows, spawns);
    for (auto& [key, r] : rows) profiles_.call_sites.push_back(r);
    for (auto& [key, sr] : spawns) {
      sr.critical_percent =
          total_span > 0 ? 100.0 * static_cast<double>(sr.critical_span) / static_cast<double>(total_span) : 0.0;
      profiles_.spawn_sites.push_back(sr);
    }
  }

  // Per invocation: work, local and exclusive work, on span (its last node is on
  // the chosen path to the program's end).
  void invocation_measures(int root_end) {
    const std::size_t ni = invocations_.size();
    invocation_work();
    local_work_.assign(ni, 0);
    exclusive_work_.assign(ni, 0);
    for (const auto& nd : nodes_) {
      local_work_[idx(nd.inv)] += nd.cost;
      exclusive_work_[idx(task_inv_[idx(nd.task)])] += nd.cost;
    }
    std::vector<bool> on_path(nodes_.size(), false);
    for (int v = root_end; v >= 0; v = chosen_[idx(v)]) on_path[idx(v)] = true;
    on_span_.assign(ni, false);
    for (std::size_t x = 0; x < ni; ++x) on_span_[x] = on_path[idx(invocations_[x].end)];
  }

  // The root rows of both tables: the whole measurement, once.
  void add_root_rows(std::uint64_t total_work, std::int64_t total_span, std::int64_t root_critical) {
    forkscale::call_site_profile root;
    root.kind = forkscale::site_kind::root;
    const forkscale::site_measure whole{1, total_work, total_span};
    const forkscale::site_measure own{1, local_work_[0], root_local_span_};
    root.top_call_site_on_work = root.top_call_site_on_span = whole;
    root.top_caller_on_work = root.top_caller_on_span = whole;
    root.local_on_work = root.local_on_span = own;
    profiles_.call_sites.push_back(root);
    forkscale::spawn_site_profile sroot;
    sroot.kind = forkscale::site_kind::root;
    sroot.tasks = 1;
    sroot.work = total_work;
    sroot.span = static_cast<std::uint64_t>(total_span);
    sroot.exclusive_work = exclusive_work_[0];
    sroot.critical_span = root_critical;
    sroot.critical_percent =
        total_span > 0 ? 100.0 * static_cast<double>(root_critical) / static_cast<double>(total_span) : 0.0;
    profiles_.spawn_sites.push_back(sroot);
  }

  static void add_measure(forkscale::site_measure& m, std::uint64_t w, std::int64_t s) {
    m.count += 1;
    m.work += w;
    m.span += s;
  }

  // Invocation x (not the root) into its site's call-site row and, for a task, its
  // spawn site's row.
  void add_invocation(std::size_t x, call_rows& rows, spawn_rows& spawns) const {
    const invocation& in = invocations_[x];
    const forkscale::site& where = site_of(in.spawn, in.site);
    bool same_site = false, same_function = false;
    for (int a = in.parent; a > 0; a = invocations_[idx(a)].parent) {
      const invocation& an = invocations_[idx(a)];
      if (an.spawn == in.spawn && an.site == in.site) same_site = true;
      if (std::strcmp(site_of(an.spawn, an.site).function, where.function) == 0) same_function = true;
    }
    forkscale::call_site_profile& r = call_row(rows, in, where);
    const std::uint64_t w = work_[x];
    const std::int64_t s = span_of(static_cast<int>(x));
    const bool on = on_span_[x];
    r.recursive = r.recursive || same_site;
    if (!same_site) {
      add_measure(r.top_call_site_on_work, w, s);
      if (on) add_measure(r.top_call_site_on_span, w, s);
    }
    if (!same_function) {
      add_measure(r.top_caller_on_work, w, s);
      if (on) add_measure(r.top_caller_on_span, w, s);
    }
    add_measure(r.local_on_work, local_work_[x], local_span_[x]);
    if (on) add_measure(r.local_on_span, local_work_[x], local_span_[x]);
    if (!in.spawn) return;
    forkscale::spawn_site_profile& sr = spawn_row(spawns, in.site, r);
    sr.recursive = sr.recursive || same_site;
    sr.tasks += 1;
    if (!same_site) {
      sr.work += w;
      sr.span += static_cast<std::uint64_t>(s);
    }
    sr.exclusive_work += exclusive_work_[x];
    if (on) sr.critical_span += exclusive_span_[x];
  }

  // The call-site row of in's site, made (identity, no measures) when new.
  static forkscale::call_site_profile& call_row(call_rows& rows, const invocation& in, const forkscale::site& where) {
    const std::pair<bool, int> key(in.spawn, in.site);
    auto it = rows.find(key);
    if (it == rows.end()) {
      forkscale::call_site_profile r;
      r.name = site_name(where);
      r.file = where.file;
      r.line = where.line;
      r.function = where.function;
      r.tag = where.tag ? where.tag : "";
      r.kind = in.spawn ? forkscale::site_kind::spawn : forkscale::site_kind::call;
      it = rows.emplace(key, r).first;
    }
    return it->second;
  }

  // The spawn-site row of spawn site `site`, made with the identity of its
  // call-site row `r` when new.
  static forkscale::spawn_site_profile& spawn_row(spawn_rows& spawns, int site, const forkscale::call_site_profile& r) {
    auto sit = spawns.find(site);
    if (sit == spawns.end()) {
      forkscale::spawn_site_profile sr;
      sr.name = r.name;
      sr.file = r.file;
      sr.line = r.line;
      sr.function = r.function;
      sr.tag = r.tag;
      sr.kind = forkscale::site_kind::spawn;
      sit = spawns.emplace(site, sr).first;
    }
    return sit->second;
  }

  std::uint64_t burden_ = 0;
  std::vector<node> nodes_;
  std::vector<absorption> absorbed_;
  std::vector<int> final_node_;
  std::vector<std::uint64_t> task_uid_;  // by task
  std::vector<int> task_inv_;            // by task: its own invocation
  std::vector<int> open_inv_;            // by task: its innermost open invocation
  std::vector<std::vector<int>> group_ends_, handle_ends_;
  std::vector<region_instance> regions_;
  std::vector<invocation> invocations_;
  // by node
  std::vector<std::uint64_t> dist_, bdist_;  // longest path to its end: plain, burdened
  std::vector<int> chosen_;
  std::vector<std::int64_t> lsum_, esum_;
  // by invocation
  std::vector<std::uint64_t> work_, local_work_, exclusive_work_;
  std::vector<std::int64_t> local_span_, exclusive_span_;
  std::vector<bool> on_span_;
  std::int64_t root_local_span_ = 0;
  site_profiles profiles_;
  // what-if
  what_if_mutant mutant_ = what_if_mutant::none;
  std::vector<std::uint32_t> task_mask_;  // by task: the what-if regions open in it now
  std::vector<what_if_call_spec> wi_specs_;
  std::vector<forkscale::site> wi_guards_;       // guard regions, as first entered
  std::vector<std::uint64_t> wi_entries_;        // by region
  std::vector<std::vector<int>> wi_candidates_;  // by named call site: the call sites it matched
  what_if_expected what_if_;
};

// ---------------------------------------------------------------------------
// Comparing per-site profiles: the oracle's against a report's, row by row by site
// identity (kind, file, line, function, tag), every field.

inline std::string to_string(const forkscale::site_measure& m) {
  return "{count " + std::to_string(m.count) + ", work " + std::to_string(m.work) + ", span " + std::to_string(m.span) +
         "}";
}

struct field_diff {
  std::string field, want, got;
  bool same = true;
};

namespace detail {

using site_key = std::tuple<int, std::string, unsigned, std::string, std::string>;

template <class Row>
site_key key_of(const Row& r) {
  return site_key(static_cast<int>(r.kind), r.file, r.line, r.function, r.tag);
}

template <class Row>
std::string row_title(const Row& r) {
  if (r.kind == forkscale::site_kind::root) return "root row";
  std::string t = std::string(forkscale::to_string(r.kind)) + " site " + r.name + " (" + r.file + ":" +
                  std::to_string(r.line) + " in " + r.function;
  if (!r.tag.empty()) t += ", tag \"" + r.tag + "\"";
  return t + ")";
}

inline void field(std::vector<field_diff>& out, const std::string& name, const std::string& want,
                  const std::string& got) {
  out.push_back(field_diff{name, want, got, want == got});
}

inline bool percent_close(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::max(std::fabs(a), std::fabs(b)));
}

inline std::string fmt_double(double d) {
  std::ostringstream os;
  os.precision(17);
  os << d;
  return os.str();
}

template <class Row>
void identity_fields(std::vector<field_diff>& out, const Row& want, const Row& got) {
  field(out, "kind", forkscale::to_string(want.kind), forkscale::to_string(got.kind));
  if (want.kind == forkscale::site_kind::root) return;  // the root's position is the engine's
  field(out, "name", want.name, got.name);
  field(out, "file", want.file, got.file);
  field(out, "line", std::to_string(want.line), std::to_string(got.line));
  field(out, "function", want.function, got.function);
  field(out, "tag", want.tag, got.tag);
}

inline std::vector<field_diff> fields(const forkscale::call_site_profile& w, const forkscale::call_site_profile& g) {
  std::vector<field_diff> out;
  identity_fields(out, w, g);
  field(out, "recursive", w.recursive ? "true" : "false", g.recursive ? "true" : "false");
  field(out, "top_call_site_on_work", to_string(w.top_call_site_on_work), to_string(g.top_call_site_on_work));
  field(out, "top_call_site_on_span", to_string(w.top_call_site_on_span), to_string(g.top_call_site_on_span));
  field(out, "top_caller_on_work", to_string(w.top_caller_on_work), to_string(g.top_caller_on_work));
  field(out, "top_caller_on_span", to_string(w.top_caller_on_span), to_string(g.top_caller_on_span));
  field(out, "local_on_work", to_string(w.local_on_work), to_string(g.local_on_work));
  field(out, "local_on_span", to_string(w.local_on_span), to_string(g.local_on_span));
  return out;
}

inline std::vector<field_diff> fields(const forkscale::spawn_site_profile& w, const forkscale::spawn_site_profile& g) {
  std::vector<field_diff> out;
  identity_fields(out, w, g);
  field(out, "recursive", w.recursive ? "true" : "false", g.recursive ? "true" : "false");
  field(out, "tasks", std::to_string(w.tasks), std::to_string(g.tasks));
  field(out, "work", std::to_string(w.work), std::to_string(g.work));
  field(out, "span", std::to_string(w.span), std::to_string(g.span));
  field(out, "exclusive_work", std::to_string(w.exclusive_work), std::to_string(g.exclusive_work));
  field(out, "critical_span", std::to_string(w.critical_span), std::to_string(g.critical_span));
  out.push_back(field_diff{"critical_percent", fmt_double(w.critical_percent), fmt_double(g.critical_percent),
                           percent_close(w.critical_percent, g.critical_percent)});
  return out;
}

// The same comparisons as fields() without formatting anything (most rows agree).
inline bool same_measure(const forkscale::site_measure& a, const forkscale::site_measure& b) {
  return a.count == b.count && a.work == b.work && a.span == b.span;
}
template <class Row>
bool same_identity(const Row& w, const Row& g) {
  if (w.kind != g.kind) return false;
  if (w.kind == forkscale::site_kind::root) return true;
  return w.name == g.name && w.file == g.file && w.line == g.line && w.function == g.function && w.tag == g.tag;
}
inline bool same(const forkscale::call_site_profile& w, const forkscale::call_site_profile& g) {
  return same_identity(w, g) && w.recursive == g.recursive &&
         same_measure(w.top_call_site_on_work, g.top_call_site_on_work) &&
         same_measure(w.top_call_site_on_span, g.top_call_site_on_span) &&
         same_measure(w.top_caller_on_work, g.top_caller_on_work) &&
         same_measure(w.top_caller_on_span, g.top_caller_on_span) && same_measure(w.local_on_work, g.local_on_work) &&
         same_measure(w.local_on_span, g.local_on_span);
}
inline bool same(const forkscale::spawn_site_profile& w, const forkscale::spawn_site_profile& g) {
  return same_identity(w, g) && w.recursive == g.recursive && w.tasks == g.tasks && w.work == g.work &&
         w.span == g.span && w.exclusive_work == g.exclusive_work && w.critical_span == g.critical_span &&
         percent_close(w.critical_percent, g.critical_percent);
}

inline std::string table(const std::string& title, const std::vector<field_diff>& f) {
  std::size_t w0 = 5, w1 = 6;
  for (const auto& d : f) {
    w0 = std::max(w0, d.field.size());
    w1 = std::max(w1, d.want.size());
  }
  auto pad = [](const std::string& s, std::size_t n) { return s + std::string(n - s.size(), ' '); };
  std::string t = "  " + title + ":\n    " + pad("field", w0) + "  " + pad("oracle", w1) + "  engine\n";
  for (const auto& d : f)
    t += "    " + pad(d.field, w0) + "  " + pad(d.want, w1) + "  " + d.got + (d.same ? "" : "   <-- differs") + "\n";
  return t;
}

// One table (call sites or spawn sites): a diff, empty when they agree.
template <class Row>
std::string compare_rows(const char* what, const std::vector<Row>& want, const std::vector<Row>& got) {
  std::string out;
  if (got.empty())
    return "  " + std::string(what) + ": the engine has no rows (the oracle has " + std::to_string(want.size()) + ")\n";
  if (got.front().kind != forkscale::site_kind::root)
    out +=
        "  " + std::string(what) + ": the engine's first row is not the root row but " + row_title(got.front()) + "\n";
  std::map<site_key, const Row*> by_key;
  const Row* got_root = nullptr;
  for (const Row& r : got) {
    if (r.kind == forkscale::site_kind::root) {
      if (got_root) out += "  " + std::string(what) + ": more than one root row\n";
      got_root = &r;
    } else if (!by_key.emplace(key_of(r), &r).second) {
      out += "  " + std::string(what) + ": two rows for " + row_title(r) + "\n";
    }
  }
  std::string first_table;
  std::vector<std::string> others;
  auto check = [&](const Row& w, const Row& g) {
    if (same(w, g)) return;
    const auto f = fields(w, g);
    if (first_table.empty())
      first_table = table(std::string(what) + ", first differing row: " + row_title(w), f);
    else
      others.push_back(row_title(w));
  };
  for (const Row& w : want) {
    if (w.kind == forkscale::site_kind::root) {
      if (got_root)
        check(w, *got_root);
      else
        out += "  " + std::string(what) + ": no root row\n";
      continue;
    }
    auto it = by_key.find(key_of(w));
    if (it == by_key.end()) {
      out += "  " + std::string(what) + ": the engine has no row for " + row_title(w) + "\n";
      continue;
    }
    check(w, *it->second);
    by_key.erase(it);
  }
  for (const auto& [key, r] : by_key) out += "  " + std::string(what) + ": unexpected " + row_title(*r) + "\n";
  out += first_table;
  if (!others.empty()) {
    out += "  " + std::string(what) + ", other differing rows:";
    for (const auto& o : others) out += " " + o + ";";
    out += "\n";
  }
  return out;
}

}  // namespace detail

// The region rows that differ between the oracle's table and the engine's, a
// line each (empty when they agree).
inline std::string compare_regions(const region_table& expected, const region_table& got) {
  std::string diff;
  for (const auto& [path, want] : expected) {
    auto it = got.find(path);
    if (it == got.end()) {
      diff += "  missing row " + path + "\n";
    } else if (!(it->second == want)) {
      diff += "  " + path + ": oracle " + to_string(want) + "\n" + std::string(path.size() + 4, ' ') + "engine " +
              to_string(it->second) + "\n";
    }
  }
  for (const auto& [path, row] : got)
    if (!expected.count(path)) diff += "  unexpected row " + path + "\n";
  return diff;
}

// A number from the environment (FORKSCALE_PROPERTY_COUNT, _SEED), or `fallback`.
inline std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::strtoull(v, nullptr, 10);
}

// Every row and every field of the report's profiles against the oracle's; empty
// when they agree. Also checks that the root rows come first and that the other
// call-site rows are sorted by local span on span, largest first (report.hpp).
inline std::string compare_profiles(const site_profiles& want, const forkscale::report& got) {
  std::string out = detail::compare_rows("call sites", want.call_sites, got.call_sites);
  out += detail::compare_rows("spawn sites", want.spawn_sites, got.spawn_sites);
  for (std::size_t i = 2; i < got.call_sites.size(); ++i)
    if (got.call_sites[i - 1].local_on_span.span < got.call_sites[i].local_on_span.span) {
      out += "  call sites: rows not sorted by local span on span: " + detail::row_title(got.call_sites[i - 1]) +
             " before " + detail::row_title(got.call_sites[i]) + "\n";
      break;
    }
  return out;
}

// The self-checks of docs/model.md on a set of profiles: local span on span summed
// over the call-site rows is the span, local work on work summed is the work, and
// likewise critical span and exclusive work over the spawn-site rows. Empty when
// they hold.
inline std::string profile_self_check(const site_profiles& p, std::uint64_t work, std::uint64_t span) {
  std::int64_t ls = 0, cs = 0;
  std::uint64_t lw = 0, ew = 0;
  for (const auto& r : p.call_sites) {
    ls += r.local_on_span.span;
    lw += r.local_on_work.work;
  }
  for (const auto& r : p.spawn_sites) {
    cs += r.critical_span;
    ew += r.exclusive_work;
  }
  std::string out;
  if (ls != static_cast<std::int64_t>(span))
    out += "  local span on span sums to " + std::to_string(ls) + ", span " + std::to_string(span) + "\n";
  if (lw != work) out += "  local work on work sums to " + std::to_string(lw) + ", work " + std::to_string(work) + "\n";
  if (cs != static_cast<std::int64_t>(span))
    out += "  critical span sums to " + std::to_string(cs) + ", span " + std::to_string(span) + "\n";
  if (ew != work) out += "  exclusive work sums to " + std::to_string(ew) + ", work " + std::to_string(work) + "\n";
  return out;
}

// ---------------------------------------------------------------------------
// Comparing what-if rows: the oracle's against a report's. The report has, when the
// oracle expects any, one block of 2F rows per scenario (F factors, each
// parallelized then optimized): "(all regions)" first, then the regions, sorted by
// the predicted parallelism at the last factor (parallelized), largest first, with
// regions never entered last. Blocks are matched to scenarios by identity.

namespace detail {

// Doubles the engine computes in floating point: equal, or within 1e-12 relative.
inline bool close_enough(double a, double b) {
  if (a == b) return true;
  if (std::isinf(a) || std::isinf(b) || std::isnan(a) || std::isnan(b)) return false;
  return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::max(std::fabs(a), std::fabs(b)));
}

inline std::string what_if_title(const forkscale::what_if_result& r) {
  std::string t = "\"" + r.region + "\" (" + forkscale::to_string(r.source);
  if (r.source == forkscale::what_if_source::region)
    t += " " + r.file + ":" + std::to_string(r.line) + " in " + r.function;
  return t + ")";
}

// The row the oracle expects for scenario x, factor i and model m; `site` is the
// call_site_table entry whose identity a named call site shows (-1: none).
inline forkscale::what_if_result expected_what_if_row(const what_if_expected& e, const what_if_scenario& x,
                                                      std::size_t i, forkscale::what_if_model m, int site) {
  forkscale::what_if_result r;
  const what_if_factor& f = e.factors[i];
  r.region = x.name;
  r.source = x.source;
  r.file = x.file;
  r.line = x.line;
  r.function = x.function;
  r.tag = x.tag;
  if (site >= 0) {
    const forkscale::site& w = call_site_table[site];
    r.file = w.file;
    r.line = w.line;
    r.function = w.function;
    r.tag = w.tag ? w.tag : "";
  }
  r.model = m;
  r.factor = f.value;
  r.executed = x.executed;
  r.entries = x.entries;
  r.region_work = x.region_work;
  if (!x.executed) return r;  // numbers 0, span 0/1
  const std::int64_t W = static_cast<std::int64_t>(e.work);
  // Work × p, exactly: unchanged, or the region's work at q/p.
  const std::int64_t work_num = m == forkscale::what_if_model::parallelized
                                    ? W * f.p
                                    : W * f.p - static_cast<std::int64_t>(x.region_work) * (f.p - f.q);
  const std::int64_t span_num = x.span_num[i];
  r.span_ticks_num = span_num;
  r.span_ticks_den = f.p;
  r.work = static_cast<double>(static_cast<long double>(work_num) / f.p);
  r.span = static_cast<double>(static_cast<long double>(span_num) / f.p);
  r.burdened_span = r.span + static_cast<double>(e.burdened_span - e.span);
  r.parallelism = span_num > 0 ? static_cast<double>(static_cast<long double>(work_num) / span_num)
                               : std::numeric_limits<double>::infinity();
  const double measured = e.span ? static_cast<double>(e.work) / static_cast<double>(e.span) : 0.0;
  r.gain = measured > 0 ? r.parallelism / measured : 0.0;
  return r;
}

inline std::vector<field_diff> what_if_fields(const forkscale::what_if_result& w, const forkscale::what_if_result& g) {
  std::vector<field_diff> out;
  auto yes = [](bool b) { return std::string(b ? "true" : "false"); };
  field(out, "region", w.region, g.region);
  field(out, "source", forkscale::to_string(w.source), forkscale::to_string(g.source));
  field(out, "file", w.file, g.file);
  field(out, "line", std::to_string(w.line), std::to_string(g.line));
  field(out, "function", w.function, g.function);
  field(out, "tag", w.tag, g.tag);
  field(out, "model", forkscale::to_string(w.model), forkscale::to_string(g.model));
  out.push_back(field_diff{"factor", fmt_double(w.factor), fmt_double(g.factor), w.factor == g.factor});
  field(out, "executed", yes(w.executed), yes(g.executed));
  field(out, "entries", std::to_string(w.entries), std::to_string(g.entries));
  field(out, "region_work", std::to_string(w.region_work), std::to_string(g.region_work));
  // The span as a fraction: equal by cross-multiplying (the values are small), and
  // with the factor's numerator as the denominator.
  const bool same_span =
      g.span_ticks_den > 0 && w.span_ticks_num * g.span_ticks_den == g.span_ticks_num * w.span_ticks_den;
  out.push_back(field_diff{"span_ticks", std::to_string(w.span_ticks_num) + "/" + std::to_string(w.span_ticks_den),
                           std::to_string(g.span_ticks_num) + "/" + std::to_string(g.span_ticks_den), same_span});
  field(out, "span_ticks_den", std::to_string(w.span_ticks_den), std::to_string(g.span_ticks_den));
  const std::pair<const char*, std::pair<double, double>> doubles[] = {
      {"work", {w.work, g.work}},
      {"span", {w.span, g.span}},
      {"burdened_span", {w.burdened_span, g.burdened_span}},
      {"parallelism", {w.parallelism, g.parallelism}},
      {"gain", {w.gain, g.gain}},
  };
  for (const auto& d : doubles)
    out.push_back(field_diff{d.first, fmt_double(d.second.first), fmt_double(d.second.second),
                             close_enough(d.second.first, d.second.second)});
  return out;
}

// Does the engine's block (first row `g`) show scenario x?
inline bool same_scenario(const what_if_scenario& x, const forkscale::what_if_result& g) {
  if (g.source != x.source || g.region != x.name) return false;
  if (x.source == forkscale::what_if_source::region)
    return g.file == x.file && g.line == x.line && g.function == x.function && g.tag == x.tag;
  return true;  // "(all regions)", or a named call site: its text is unique
}

// The message when the engine has not the rows the oracle expects (`per` rows
// per region).
inline std::string what_if_count_mismatch(const what_if_expected& want, const forkscale::report& got, std::size_t per) {
  std::string out = "  the engine has " + std::to_string(got.what_if.size()) + " what-if rows, the oracle expects " +
                    std::to_string(want.scenarios.size()) + " regions (with all) x " + std::to_string(per) +
                    "\n  engine rows:";
  for (std::size_t k = 0; k < got.what_if.size(); k += std::max<std::size_t>(per, 1))
    out += " " + what_if_title(got.what_if[k]) + ";";
  out += "\n  oracle regions:";
  for (const auto& x : want.scenarios) out += " \"" + x.name + "\";";
  return out + "\n";
}

// The oracle's scenario that the engine's block b (first row `head`) shows: block 0
// is all regions; the others any scenario not `used` yet. want.scenarios.size():
// none.
inline std::size_t find_scenario(const what_if_expected& want, const forkscale::what_if_result& head, std::size_t b,
                                 const std::vector<bool>& used) {
  std::size_t found = want.scenarios.size();
  if (b == 0) {
    if (same_scenario(want.scenarios[0], head)) found = 0;
  } else {
    for (std::size_t k = 1; k < want.scenarios.size() && found == want.scenarios.size(); ++k)
      if (!used[k] && same_scenario(want.scenarios[k], head)) found = k;
  }
  return found;
}

// The call_site_table entry whose identity the block of scenario x shows (-1: not a
// named call site): one of the sites it matched — the first in serial order when
// `exact_identity`, else the one the engine's block `head` shows.
inline int shown_call_site(const what_if_scenario& x, const forkscale::what_if_result& head, bool exact_identity) {
  int site = -1;
  if (!x.call_candidates.empty()) {
    site = x.call_candidates.front();
    if (!exact_identity)
      for (int c : x.call_candidates) {
        const forkscale::site& w = call_site_table[c];
        if (head.file == w.file && head.line == w.line && head.function == w.function &&
            head.tag == (w.tag ? w.tag : ""))
          site = c;
      }
  }
  return site;
}

// The rows of the engine's block b against scenario x's: the first differing row as
// a table (when none was yet), the others by title.
inline void compare_what_if_block(const what_if_expected& want, const what_if_scenario& x, int site,
                                  const forkscale::report& got, std::size_t b, std::size_t per,
                                  std::string& first_table, std::vector<std::string>& others) {
  using forkscale::what_if_model;
  for (std::size_t j = 0; j < per; ++j) {
    const forkscale::what_if_result& g = got.what_if[b * per + j];
    const forkscale::what_if_result w =
        expected_what_if_row(want, x, j / 2, j % 2 == 0 ? what_if_model::parallelized : what_if_model::optimized, site);
    const auto f = what_if_fields(w, g);
    bool same = true;
    for (const auto& d : f) same = same && d.same;
    if (same) continue;
    const std::string title = "what-if row " + what_if_title(w) + " factor #" + std::to_string(j / 2) + " " +
                              fmt_double(w.factor) + " " + forkscale::to_string(w.model);
    if (first_table.empty())
      first_table = table("first differing " + title, f);
    else
      others.push_back(title);
  }
}

}  // namespace detail

// Every what-if row and field against the oracle's; empty when they agree.
// `exact_identity`: a named call site must show the first site it matched in serial
// order (serial runs); else any site it matched (the first to reach the engine).
inline std::string compare_what_if(const what_if_expected& want, const forkscale::report& got, bool exact_identity) {
  std::string out;
  if (want.scenarios.empty()) {
    if (!got.what_if.empty())
      out += "  the engine has " + std::to_string(got.what_if.size()) +
             " what-if rows; the oracle expects none (first: " + detail::what_if_title(got.what_if.front()) + ")\n";
    return out;
  }
  const std::size_t F = want.factors.size(), per = 2 * F;
  if (got.what_if.size() != want.scenarios.size() * per) return out + detail::what_if_count_mismatch(want, got, per);
  std::vector<bool> used(want.scenarios.size(), false);
  std::string first_table;
  std::vector<std::string> others;
  double last_key = std::numeric_limits<double>::infinity();
  for (std::size_t b = 0; b < want.scenarios.size(); ++b) {
    const forkscale::what_if_result& head = got.what_if[b * per];
    const std::size_t found = detail::find_scenario(want, head, b, used);
    if (found == want.scenarios.size()) {
      out +=
          "  block " + std::to_string(b) + ": the oracle has no (other) region " + detail::what_if_title(head) + "\n";
      continue;
    }
    used[found] = true;
    const what_if_scenario& x = want.scenarios[found];
    const int site = detail::shown_call_site(x, head, exact_identity);
    detail::compare_what_if_block(want, x, site, got, b, per, first_table, others);
    // The order of the region blocks.
    if (b > 0) {
      const forkscale::what_if_result& key_row = got.what_if[b * per + per - 2];
      const double key = key_row.executed ? key_row.parallelism : -1.0;
      if (key > last_key)
        out += "  block " + std::to_string(b) + " " + detail::what_if_title(head) +
               " comes after a block with a smaller parallelism at the last factor\n";
      last_key = key;
    }
  }
  for (std::size_t k = 0; k < want.scenarios.size(); ++k)
    if (!used[k]) out += "  the engine has no block for the oracle's region \"" + want.scenarios[k].name + "\"\n";
  out += first_table;
  if (!others.empty()) {
    out += "  other differing what-if rows:";
    for (const auto& o : others) out += " " + o + ";";
    out += "\n";
  }
  return out;
}

// The oracle's what-if scenarios, one per line (for failure messages).
inline std::string explain_what_if(const what_if_expected& e) {
  std::ostringstream os;
  os << "  measured work " << e.work << ", span " << e.span << ", burdened span " << e.burdened_span << "\n";
  for (const auto& x : e.scenarios) {
    os << "  \"" << x.name << "\" (" << forkscale::to_string(x.source) << "): entries " << x.entries << ", region work "
       << x.region_work << (x.executed ? "" : ", never executed") << ", span x p:";
    for (std::size_t i = 0; i < x.span_num.size(); ++i)
      os << " " << detail::fmt_double(e.factors[i].value) << "->" << x.span_num[i] << "/" << e.factors[i].p;
    os << "\n";
  }
  return os.str();
}

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

  forkscale::report run(const program& p, const std::string& label, forkscale::options opt = forkscale::options{}) {
    forkscale::report rep = forkscale::measure<Clock>(
        label, [&] { run_inside(p); }, options_for(p, std::move(opt)));
    sched_.reset();
    return rep;
  }

  // The options run() measures `p` with: `opt` with the cost clock, the
  // program's burden and its what-if analysis.
  static forkscale::options options_for(const program& p, forkscale::options opt = forkscale::options{}) {
    opt.clock = Clock::fixed ? Clock::kind : forkscale::clock_kind::cost;
    opt.burden = static_cast<double>(p.burden);
    if (p.what_if) {
      opt.what_if.factors.clear();
      for (const auto& f : p.what_if_factors) opt.what_if.factors.push_back(f.value);
      opt.what_if.call_sites = p.what_if_call_sites;
      opt.what_if.read_environment = false;  // the program's own analysis only
    }
    return opt;
  }

  // Runs `p` inside the measurement the caller has open (run() opens one; an
  // fs::session's measure is another), which must use options_for(p).
  void run_inside(const program& p) {
    groups_.clear();
    handles_.clear();
    for (int i = 0; i < p.groups; ++i) groups_.push_back(std::make_unique<group_slot>());
    for (int i = 0; i < p.handles; ++i) handles_.push_back(std::make_unique<handle_slot>());
    scheduler::counter* block = sched_.make_counter();
    run_body(p.root, block);
    // Groups and handles end inside the measurement, so that misuse they find
    // is part of the report.
    groups_.clear();
    handles_.clear();
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

  // The other way to spawn: a spawn point now, a spawn_scope when the task runs.
  // The task's site is the spawn point's (docs/model.md); the scope gets a site
  // no program uses, which must not show in the profiles.
  template <class Task>
  static auto by_spawn_point(forkscale::spawn_token tk, Task task) {
    return [tk = std::move(tk), task]() mutable {
      forkscale::basic_spawn_scope<Clock> scope(std::move(tk), spawn_scope_decoy_site);
      task();
    };
  }

  template <class Spawned>
  void dispatch(Spawned&& task, scheduler::counter* target) {
    sched_.add(target);
    if (!sched_.parallel() || coin(25)) {  // run inline, now (serial elision, undeferred task)
      std::forward<Spawned>(task)();       // at once: a basic_spawned called as an rvalue
      sched_.done(target);
      return;
    }
    auto holder = std::make_shared<std::decay_t<Spawned>>(std::forward<Spawned>(task));
    sched_.submit(
        [this, holder, target] {
          (*holder)();
          sched_.done(target);
        },
        coin(50));
  }

  void run_body(const body& b, scheduler::counter* block) {
    for (const auto& s : b) {
      switch (s.kind) {
        case op::charge:
          forkscale::charge(s.cost);
          break;
        case op::spawn:
          spawn_into_block(s, block);
          break;
        case op::spawn_group:
          spawn_into_group(s);
          break;
        case op::spawn_handle:
          spawn_behind_handle(s);
          break;
        case op::sync:
          sync_block(block);
          break;
        case op::join_handle:
          join_handle(s);
          break;
        case op::group_scope:
          run_group_scope(s, block);
          break;
        case op::task_call:
          run_task_call(s, block);
          break;
        case op::call:
          run_call(s, block);
          break;
        case op::region:
          run_region(s, block);
          break;
        case op::what_if:
          run_what_if(s, block);
          break;
      }
    }
  }

  // The spawns: by a spawn point and a spawn_scope (30%) or by fs::spawn.
  void spawn_into_block(const stmt& s, scheduler::counter* block) {
    const body* sub = s.sub.get();
    auto task = [this, sub, block] { run_task(*sub, block); };
    if (coin(30))
      dispatch(by_spawn_point(forkscale::basic_spawn_point<Clock>(site_of(true, s.site)), task), block);
    else
      dispatch(forkscale::spawn<Clock>(task, site_of(true, s.site)), block);
  }
  void spawn_into_group(const stmt& s) {
    group_slot& g = *groups_[static_cast<std::size_t>(s.id)];
    const body* sub = s.sub.get();
    scheduler::counter* c = g.counter;
    auto task = [this, sub, c] { run_task(*sub, c); };
    if (coin(30))
      dispatch(by_spawn_point(forkscale::basic_spawn_point<Clock>(g.group, site_of(true, s.site)), task), c);
    else
      dispatch(forkscale::spawn(g.group, task, site_of(true, s.site)), c);
  }
  void spawn_behind_handle(const stmt& s) {
    handle_slot& h = *handles_[static_cast<std::size_t>(s.id)];
    h.counter = sched_.make_counter();
    const body* sub = s.sub.get();
    scheduler::counter* c = h.counter;
    auto task = [this, sub, c] { run_task(*sub, c); };
    if (coin(30))
      dispatch(by_spawn_point(forkscale::basic_spawn_point<Clock>(h.handle, site_of(true, s.site)), task), c);
    else
      dispatch(forkscale::spawn(h.handle, task, site_of(true, s.site)), c);
  }

  // The joins: the guard first, then the scheduler's wait.
  void sync_block(scheduler::counter* block) {
    forkscale::basic_sync_point<Clock> sp;
    sched_.wait(block);
  }
  void join_handle(const stmt& s) {
    handle_slot& h = *handles_[static_cast<std::size_t>(s.id)];
    forkscale::basic_sync_point<Clock> sp(h.handle);
    sched_.wait(h.counter);
  }
  void run_group_scope(const stmt& s, scheduler::counter* block) {
    group_slot& g = *groups_[static_cast<std::size_t>(s.id)];
    g.counter = sched_.make_counter();
    run_body(*s.sub, block);
    forkscale::basic_sync_point<Clock> sp(g.group);
    sched_.wait(g.counter);
  }

  // The statements with a body run inside a guard.
  void run_task_call(const stmt& s, scheduler::counter* block) {
    forkscale::basic_call_site<Clock, false> cs(site_of(false, s.site));
    run_body(*s.sub, block);
  }
  void run_call(const stmt& s, scheduler::counter* block) {
    forkscale::basic_call_site<Clock> cs(site_of(false, s.site));
    scheduler::counter* inner = sched_.make_counter();
    run_body(*s.sub, inner);
    sched_.forward(inner, block);  // what the call left unjoined
  }
  void run_region(const stmt& s, scheduler::counter* block) {
    forkscale::basic_region<Clock> r(s.label);
    run_body(*s.sub, block);
  }
  void run_what_if(const stmt& s, scheduler::counter* block) {
    // Both constructors: the site with its tag, or the tag apart.
    const forkscale::site& w = what_if_site_table[s.site];
    if (w.tag && coin(50)) {
      forkscale::basic_what_if_region<Clock> g(w.tag, w);
      run_body(*s.sub, block);
    } else {
      forkscale::basic_what_if_region<Clock> g(w);
      run_body(*s.sub, block);
    }
  }

  scheduler& sched_;
  std::mutex rng_m_;
  std::mt19937_64 rng_;
  std::vector<std::unique_ptr<group_slot>> groups_;
  std::vector<std::unique_ptr<handle_slot>> handles_;
};

}  // namespace rp
