// Per-site profiles of small programs whose every number is worked out by hand in
// the comments below, from the definitions in docs/model.md ("Per-site profiles")
// alone — independently of the engine and of the property test's oracle. All run
// under the cost clock, where strand costs are the fs::charge(n) calls.
//
// Notation: W and S are work and span; {c, w, s} is a site measurement (count,
// summed work, summed span); "on span" means the invocation's end lies on the
// chosen critical path to the end of the measurement.
#include <gtest/gtest.h>

#include <forkscale/forkscale.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace fs = forkscale;

namespace {

fs::options cost_clock() {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  return o;
}

struct measure {
  std::uint64_t count, work;
  std::int64_t span;
};

void expect_measure(const fs::site_measure& got, measure want, const std::string& what) {
  EXPECT_EQ(got.count, want.count) << what << ": count";
  EXPECT_EQ(got.work, want.work) << what << ": work";
  EXPECT_EQ(got.span, want.span) << what << ": span";
}

// The six measurements of a call-site row, in the order of report.hpp.
struct call_row {
  bool recursive;
  measure top_call_site_on_work, top_call_site_on_span, top_caller_on_work, top_caller_on_span, local_on_work,
      local_on_span;
};

void expect_row(const fs::call_site_profile& got, const call_row& want, const std::string& what) {
  EXPECT_EQ(got.recursive, want.recursive) << what << ": recursive";
  expect_measure(got.top_call_site_on_work, want.top_call_site_on_work, what + " top-call-site on work");
  expect_measure(got.top_call_site_on_span, want.top_call_site_on_span, what + " top-call-site on span");
  expect_measure(got.top_caller_on_work, want.top_caller_on_work, what + " top-caller on work");
  expect_measure(got.top_caller_on_span, want.top_caller_on_span, what + " top-caller on span");
  expect_measure(got.local_on_work, want.local_on_work, what + " local on work");
  expect_measure(got.local_on_span, want.local_on_span, what + " local on span");
}

struct spawn_row {
  bool recursive;
  std::uint64_t tasks, work, span, exclusive_work;
  std::int64_t critical_span;
  double critical_percent;
};

void expect_row(const fs::spawn_site_profile& got, const spawn_row& want, const std::string& what) {
  EXPECT_EQ(got.recursive, want.recursive) << what << ": recursive";
  EXPECT_EQ(got.tasks, want.tasks) << what << ": tasks";
  EXPECT_EQ(got.work, want.work) << what << ": work";
  EXPECT_EQ(got.span, want.span) << what << ": span";
  EXPECT_EQ(got.exclusive_work, want.exclusive_work) << what << ": exclusive work";
  EXPECT_EQ(got.critical_span, want.critical_span) << what << ": critical span";
  EXPECT_NEAR(got.critical_percent, want.critical_percent, 1e-9) << what << ": critical percent";
}

// The row of the site named `name` (its tag) of kind `kind`; fails the test (and
// returns null) when there is not exactly one.
template <class Row>
const Row* find(const std::vector<Row>& rows, fs::site_kind kind, const std::string& name) {
  const Row* found = nullptr;
  int n = 0;
  for (const Row& r : rows)
    if (r.kind == kind && r.name == name) {
      found = &r;
      ++n;
    }
  EXPECT_EQ(n, 1) << "rows named " << name << " of kind " << fs::to_string(kind);
  return n == 1 ? found : nullptr;
}

// The root rows come first, and the profile's own self-checks hold.
void expect_shape(const fs::report& rep, std::size_t call_rows, std::size_t spawn_rows) {
  ASSERT_EQ(rep.call_sites.size(), call_rows);
  ASSERT_EQ(rep.spawn_sites.size(), spawn_rows);
  EXPECT_EQ(rep.call_sites.front().kind, fs::site_kind::root);
  EXPECT_EQ(rep.spawn_sites.front().kind, fs::site_kind::root);
  EXPECT_EQ(rep.check_profile(), "");
  EXPECT_EQ(rep.diagnostic_count, 0u);
}

// ---------------------------------------------------------------------------
// fib(4), Cilk style: spawn fib(n-1), call fib(n-2), sync. A node charges 1 before
// it spawns; the leaves charge 2 for fib(1) and 1 for fib(0), so that the spawned
// branch is strictly longer at every join and no tie arises.
constexpr fs::site fib_spawn{"src/fib.cpp", 12, "fib", "fib spawn"};
constexpr fs::site fib_call{"src/fib.cpp", 14, "fib", "fib call"};

void fib(int n) {
  if (n < 2) {
    fs::charge(n == 1 ? 2 : 1);
    return;
  }
  fs::charge(1);
  auto child = fs::spawn([n] { fib(n - 1); }, fib_spawn);
  child();
  {
    fs::call_site cs(fib_call);
    fib(n - 2);
  }
  fs::sync_point sp;
}

// Per fib(k): W(0) = 1, W(1) = 2, W(k) = 1 + W(k-1) + W(k-2): W(2) = 4, W(3) = 7,
// W(4) = 12. S(0) = 1, S(1) = 2, S(k) = 1 + max(S(k-1), S(k-2)) = 1 + S(k-1):
// S(2) = 3, S(3) = 4, S(4) = 5.
//
// Invocations (parent in brackets; the root R runs fib(4)):
//   T4 task fib(3) [R]     C4 call fib(2) [R]
//   T3 task fib(2) [T4]    C3 call fib(1) [T4]
//   T2 task fib(1) [T3]    C2 call fib(0) [T3]
//   T2' task fib(1) [C4]   C2' call fib(0) [C4]
// work/span: T4 7/4, T3 4/3, T2 2/2, T2' 2/2, C4 4/3, C3 2/2, C2 1/1, C2' 1/1.
//
// Chosen path: at every sync the task's own path (through the call, 1 + S(k-2))
// is shorter than the child's (1 + S(k-1)), so it runs R's charge, T4's, T3's,
// T2's, then the joins. On span: T4, T3, T2 (and the root); no call.
//
// Local work (own strands): R 1, T4 1, T3 1, T2 2, T2' 2, C4 1, C3 2, C2 1, C2' 1.
// Local span: leaves = span: T2 2, T2' 2, C3 2, C2 1, C2' 1; T3 = 3 - ls(T2) = 1;
// C4 = 3 - ls(T2') = 1 (T2' wins C4's inner sync); T4 = 4 - (ls(T3) + ls(T2)) = 1;
// root = 5 - (1 + 1 + 2) = 1.
//
// Top-call-site (no enclosing invocation of the same site): spawn T4, T2' (inside
// C4, a call); call C4, C3 (inside T4, a task), C2 (inside T3, T4). Top-caller
// (no enclosing invocation of any site in function "fib"): T4 and C4 only.
// Recursive: the spawn site (T3 in T4) and the call site (C2' in C4).
//
// Spawn-site table: exclusive work (the tasks' strands with their calls): T4 1 +
// C3 2 = 3, T3 1 + C2 1 = 2, T2 2, T2' 2 → 9; the root task 1 + C4 1 + C2' 1 = 3.
// Exclusive spans along the chosen path: T2 2, T3 3 - 2 = 1, T4 4 - 3 = 1, root
// 5 - 4 = 1. Critical span of the spawn site: T4 + T3 + T2 = 4 (80%).
TEST(ProfileCases, FibSpawnAndCallSites) {
  const fs::report rep = fs::measure(
      "fib", [] { fib(4); }, cost_clock());
  EXPECT_EQ(rep.work(), 12u);
  EXPECT_EQ(rep.span(), 5u);
  expect_shape(rep, 3, 2);

  expect_row(rep.call_sites.front(),
             call_row{false, {1, 12, 5}, {1, 12, 5}, {1, 12, 5}, {1, 12, 5}, {1, 1, 1}, {1, 1, 1}}, "root");
  if (auto* s = find(rep.call_sites, fs::site_kind::spawn, "fib spawn")) {
    EXPECT_EQ(s->file, "src/fib.cpp");
    EXPECT_EQ(s->line, 12u);
    EXPECT_EQ(s->function, "fib");
    EXPECT_EQ(s->tag, "fib spawn");
    // TCS: T4 (7, 4) + T2' (2, 2); on span T4. TC: T4. Local: 1 + 1 + 2 + 2 = 6 both;
    // on span T4, T3, T2: 1 + 1 + 2 = 4 both.
    expect_row(*s, call_row{true, {2, 9, 6}, {1, 7, 4}, {1, 7, 4}, {1, 7, 4}, {4, 6, 6}, {3, 4, 4}}, "spawn site");
  }
  if (auto* c = find(rep.call_sites, fs::site_kind::call, "fib call")) {
    EXPECT_EQ(c->line, 14u);
    // TCS: C4 (4, 3) + C3 (2, 2) + C2 (1, 1); TC: C4; local: 1 + 2 + 1 + 1 = 5 both;
    // no call is on span.
    expect_row(*c, call_row{true, {3, 7, 6}, {0, 0, 0}, {1, 4, 3}, {0, 0, 0}, {4, 5, 5}, {0, 0, 0}}, "call site");
  }
  expect_row(rep.spawn_sites.front(), spawn_row{false, 1, 12, 5, 3, 1, 20.0}, "root task");
  if (auto* s = find(rep.spawn_sites, fs::site_kind::spawn, "fib spawn"))
    expect_row(*s, spawn_row{true, 4, 9, 6, 9, 4, 80.0}, "spawn site");
}

// ---------------------------------------------------------------------------
// Ties. Paths of equal length meet at a join; the one from the task with the
// larger task id wins. Task ids (docs/model.md): the root is 1, the k-th task
// spawned by a task with id p is mix(p + k * 0x9E3779B97F4A7C15) | 1, mix being
// SplitMix64's finalizer (Steele, Lea and Flood, OOPSLA'14). Worked out with a
// calculator and re-derived by the test itself (TieTaskIds below):
//   root's 1st, 2nd, 3rd, 4th task: 0x910a2dec89025cc1, 0xbeeb8da1658eec67,
//                                   0xf893a2eefb32555f, 0x71c18690ee42c90b
//   the 2nd task's 1st and 2nd:     0x778b1aa9c29bc869, 0x08c9eb4685b1dad7
constexpr std::uint64_t mix(std::uint64_t z) {
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ull;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z;
}
constexpr std::uint64_t task_id(std::uint64_t parent, std::uint64_t k) {
  return mix(parent + k * 0x9E3779B97F4A7C15ull) | 1u;
}

TEST(ProfileCases, TieTaskIds) {
  EXPECT_EQ(task_id(1, 1), 0x910a2dec89025cc1ull);
  EXPECT_EQ(task_id(1, 2), 0xbeeb8da1658eec67ull);
  EXPECT_EQ(task_id(1, 3), 0xf893a2eefb32555full);
  EXPECT_EQ(task_id(1, 4), 0x71c18690ee42c90bull);
  EXPECT_EQ(task_id(0xbeeb8da1658eec67ull, 1), 0x778b1aa9c29bc869ull);
  EXPECT_EQ(task_id(0xbeeb8da1658eec67ull, 2), 0x08c9eb4685b1dad7ull);
}

constexpr fs::site p1{"src/tie.cpp", 1, "tie", "p1"};
constexpr fs::site p2{"src/tie.cpp", 2, "tie", "p2"};
constexpr fs::site p3{"src/tie.cpp", 3, "tie", "p3"};
constexpr fs::site p4{"src/tie.cpp", 4, "tie", "p4"};
constexpr fs::site r1{"src/tie.cpp", 5, "nested", "r1"};
constexpr fs::site r2{"src/tie.cpp", 6, "nested", "r2"};

// root:
//   spawn P1 { charge 10 }                          id 0x910a…
//   spawn P2 {                                      id 0xbeeb…
//     spawn R1 { charge 4 }                         id 0x778b…
//     spawn R2 { charge 4 }                         id 0x08c9…
//     charge 3; sync      P2's own 3 < R1 4 = R2 4: R1 wins (larger id, spawned first)
//     charge 6            P2 ends at 4 + 6 = 10
//   }
//   spawn P3 { charge 1 }                           id 0xf893… (largest, but short)
//   spawn P4 { charge 10 }                          id 0x71c1…
//   charge 10; sync       root 10 = P1 10 = P2 10 = P4 10 > P3 1: P2 wins (its id is
//                         the largest of the four; the root's, 1, the smallest)
// W = 10 + (3 + 6 + 4 + 4) + 1 + 10 + 10 = 48, S = 10.
// Chosen path: P2's start, R1 (4), P2's join, charge 6, the root's join. On span:
// R1, P2 (and the root); not P1, P3, P4, R2.
// Local spans: leaves P1 10, P3 1, P4 10, R1 4, R2 4; P2 = 10 - ls(R1) = 6; root =
// 10 - (6 + 4) = 0. Local work: P1 10, P2 9, P3 1, P4 10, R1 4, R2 4, root 10.
// No site recurses; top-caller = top-call-site everywhere (R1, R2 are in function
// "nested", their parent P2 in "tie"). Spawn table: exclusive work and span equal
// local work and span here (no calls); critical span P2 6 (60%), R1 4 (40%).
TEST(ProfileCases, TieGoesToLargerTaskId) {
  const fs::report rep = fs::measure(
      "tie",
      [] {
        auto a = fs::spawn([] { fs::charge(10); }, p1);
        a();
        auto b = fs::spawn(
            [] {
              auto x = fs::spawn([] { fs::charge(4); }, r1);
              x();
              auto y = fs::spawn([] { fs::charge(4); }, r2);
              y();
              fs::charge(3);
              { fs::sync_point sp; }
              fs::charge(6);
            },
            p2);
        b();
        auto c = fs::spawn([] { fs::charge(1); }, p3);
        c();
        auto d = fs::spawn([] { fs::charge(10); }, p4);
        d();
        fs::charge(10);
        fs::sync_point sp;
      },
      cost_clock());
  EXPECT_EQ(rep.work(), 48u);
  EXPECT_EQ(rep.span(), 10u);
  expect_shape(rep, 7, 7);

  const measure none{0, 0, 0};
  expect_row(rep.call_sites.front(),
             call_row{false, {1, 48, 10}, {1, 48, 10}, {1, 48, 10}, {1, 48, 10}, {1, 10, 0}, {1, 10, 0}}, "root");
  struct expected {
    const char* name;
    measure whole, local;
    bool on_span;
  };
  const expected rows[] = {
      {"p1", {1, 10, 10}, {1, 10, 10}, false}, {"p2", {1, 17, 10}, {1, 9, 6}, true},
      {"p3", {1, 1, 1}, {1, 1, 1}, false},     {"p4", {1, 10, 10}, {1, 10, 10}, false},
      {"r1", {1, 4, 4}, {1, 4, 4}, true},      {"r2", {1, 4, 4}, {1, 4, 4}, false},
  };
  for (const expected& e : rows) {
    if (auto* r = find(rep.call_sites, fs::site_kind::spawn, e.name)) {
      const measure s = e.on_span ? e.whole : none;
      const measure l = e.on_span ? e.local : none;
      expect_row(*r, call_row{false, e.whole, s, e.whole, s, e.local, l}, e.name);
    }
    if (auto* r = find(rep.spawn_sites, fs::site_kind::spawn, e.name)) {
      const std::int64_t critical = e.on_span ? e.local.span : 0;
      expect_row(*r,
                 spawn_row{false, 1, e.whole.work, static_cast<std::uint64_t>(e.whole.span), e.local.work, critical,
                           100.0 * static_cast<double>(critical) / 10.0},
                 e.name);
    }
  }
  expect_row(rep.spawn_sites.front(), spawn_row{false, 1, 48, 10, 10, 0, 0.0}, "root task");
}

// ---------------------------------------------------------------------------
// A serial loop of calls in function "loop", each making a nested call at another
// line of the same function:
//   charge 5; 3 x { call L { charge 10·i; call M { charge 1 } } }  (i = 1, 2, 3)
// W = S = 5 + 11 + 21 + 31 = 68; the only path is the chosen one, so everything is
// on span. L: 3 invocations, work/span 11 + 21 + 31 = 63, local 60; M: 3 x 1,
// top-call-site (no M encloses M) but never top-caller (L, in "loop", encloses
// every M). Root local: work 5, span 68 - (60 + 3) = 5. Spawn table: the root task
// alone, with all of it.
constexpr fs::site loop_outer{"src/loop.cpp", 30, "loop", nullptr};
constexpr fs::site loop_inner{"src/loop.cpp", 31, "loop", nullptr};

TEST(ProfileCases, SerialLoopOfCalls) {
  const fs::report rep = fs::measure(
      "loop",
      [] {
        fs::charge(5);
        for (std::uint64_t i = 1; i <= 3; ++i) {
          fs::call_site outer(loop_outer);
          fs::charge(10 * i);
          fs::call_site inner(loop_inner);
          fs::charge(1);
        }
      },
      cost_clock());
  EXPECT_EQ(rep.work(), 68u);
  EXPECT_EQ(rep.span(), 68u);
  expect_shape(rep, 3, 1);
  expect_row(rep.call_sites.front(),
             call_row{false, {1, 68, 68}, {1, 68, 68}, {1, 68, 68}, {1, 68, 68}, {1, 5, 5}, {1, 5, 5}}, "root");
  // untagged sites are named file:line, the file without its directory
  if (auto* l = find(rep.call_sites, fs::site_kind::call, "loop.cpp:30")) {
    EXPECT_EQ(l->tag, "");
    expect_row(*l, call_row{false, {3, 63, 63}, {3, 63, 63}, {3, 63, 63}, {3, 63, 63}, {3, 60, 60}, {3, 60, 60}},
               "outer call");
  }
  if (auto* m = find(rep.call_sites, fs::site_kind::call, "loop.cpp:31"))
    expect_row(*m, call_row{false, {3, 3, 3}, {3, 3, 3}, {0, 0, 0}, {0, 0, 0}, {3, 3, 3}, {3, 3, 3}}, "inner call");
  expect_row(rep.spawn_sites.front(), spawn_row{false, 1, 68, 68, 68, 68, 100.0}, "root task");
}

// ---------------------------------------------------------------------------
// A negative local span: a task_call_site (not a sync scope) whose sync joins a
// task spawned before it.
//   spawn A { charge 10 }; charge 8; task call T { sync; charge 1 }
// W = 19, S = 11 (A's 10, then T's 1). T starts at path length 8 and ends at 11:
// span(T) = 3, work(T) = 10 + 1 = 11 (it absorbs A). The chosen path runs through
// A (10 > 8) into T's join: on span A, T. Local spans: A 10; T = 3 - ls(A) = -7;
// root = 11 - (10 - 7) = 8, its local work 8. Spawn table: A's exclusive span 10
// (90.9…%); the root task's exclusive work 8 + 1 = 9, critical span 11 - 10 = 1.
constexpr fs::site neg_spawn{"src/neg.cpp", 40, "neg", "A"};
constexpr fs::site neg_call{"src/neg.cpp", 41, "neg", "T"};

TEST(ProfileCases, NegativeLocalSpan) {
  const fs::report rep = fs::measure(
      "neg",
      [] {
        auto a = fs::spawn([] { fs::charge(10); }, neg_spawn);
        a();
        fs::charge(8);
        fs::task_call_site t(neg_call);
        { fs::sync_point sp; }
        fs::charge(1);
      },
      cost_clock());
  EXPECT_EQ(rep.work(), 19u);
  EXPECT_EQ(rep.span(), 11u);
  expect_shape(rep, 3, 2);
  expect_row(rep.call_sites.front(),
             call_row{false, {1, 19, 11}, {1, 19, 11}, {1, 19, 11}, {1, 19, 11}, {1, 8, 8}, {1, 8, 8}}, "root");
  if (auto* a = find(rep.call_sites, fs::site_kind::spawn, "A"))
    expect_row(*a, call_row{false, {1, 10, 10}, {1, 10, 10}, {1, 10, 10}, {1, 10, 10}, {1, 10, 10}, {1, 10, 10}}, "A");
  // T's function is A's too, but A is not T's ancestor (A was spawned by the root).
  if (auto* t = find(rep.call_sites, fs::site_kind::call, "T"))
    expect_row(*t, call_row{false, {1, 11, 3}, {1, 11, 3}, {1, 11, 3}, {1, 11, 3}, {1, 1, -7}, {1, 1, -7}}, "T");
  expect_row(rep.spawn_sites.front(), spawn_row{false, 1, 19, 11, 9, 1, 100.0 / 11.0}, "root task");
  if (auto* a = find(rep.spawn_sites, fs::site_kind::spawn, "A"))
    expect_row(*a, spawn_row{false, 1, 10, 10, 10, 10, 1000.0 / 11.0}, "A");
}

// ---------------------------------------------------------------------------
// A call site and a spawn site at the same file, line, function and tag are two
// sites (the kind is part of a site's identity), and a call inside a task of the
// same function is not a top-caller invocation.
//   spawn S { charge 2; call C { charge 3 } }; sync      (S and C: one position)
// W = S = 5. S: {1, 5, 5} everywhere but local {1, 2, 2}; C: top-call-site {1, 3, 3}
// on work and span, top-caller none (S, same function, encloses it), local {1, 3, 3}.
constexpr fs::site same_spawn{"src/same.cpp", 50, "same", "here"};
constexpr fs::site same_call{"src/same.cpp", 50, "same", "here"};

TEST(ProfileCases, KindIsPartOfTheSite) {
  const fs::report rep = fs::measure(
      "same",
      [] {
        auto s = fs::spawn(
            [] {
              fs::charge(2);
              fs::call_site c(same_call);
              fs::charge(3);
            },
            same_spawn);
        s();
        fs::sync_point sp;
      },
      cost_clock());
  expect_shape(rep, 3, 2);
  if (auto* s = find(rep.call_sites, fs::site_kind::spawn, "here"))
    expect_row(*s, call_row{false, {1, 5, 5}, {1, 5, 5}, {1, 5, 5}, {1, 5, 5}, {1, 2, 2}, {1, 2, 2}}, "spawn");
  if (auto* c = find(rep.call_sites, fs::site_kind::call, "here"))
    expect_row(*c, call_row{false, {1, 3, 3}, {1, 3, 3}, {0, 0, 0}, {0, 0, 0}, {1, 3, 3}, {1, 3, 3}}, "call");
  expect_row(rep.call_sites.front(), call_row{false, {1, 5, 5}, {1, 5, 5}, {1, 5, 5}, {1, 5, 5}, {1, 0, 0}, {1, 0, 0}},
             "root");
  if (auto* s = find(rep.spawn_sites, fs::site_kind::spawn, "here"))
    expect_row(*s, spawn_row{false, 1, 5, 5, 5, 5, 100.0}, "spawn");
  expect_row(rep.spawn_sites.front(), spawn_row{false, 1, 5, 5, 0, 0, 0.0}, "root task");
}

// ---------------------------------------------------------------------------
// FORKSCALE_CALL(expr) is a call site named by its call: its tag is the text of
// the expression up to its first '(', its function the enclosing one, its line
// the macro's; it has the call's value. Serial code, so every invocation is on the
// span and its local work is its span: twice(i) charges i (1 + 2 + 3 = 6 over
// three calls), add_to charges 10 (30), element 1; profiled_calls charges 1 per
// iteration (3). W = S = 40, seven calls, no spawn.
int twice(int x) {
  fs::charge(static_cast<std::uint64_t>(x));
  return 2 * x;
}
void add_to(int& total, int k) {
  fs::charge(static_cast<std::uint64_t>(k));
  total += k;
}
int& element(std::vector<int>& v, std::size_t i) {
  fs::charge(1);
  return v[i];
}

unsigned twice_line = 0, add_to_line = 0, element_line = 0;

int profiled_calls(std::vector<int>& v, int& total) {
  int sum = 0;
  for (int i = 1; i <= 3; ++i) {
    fs::charge(1);
    twice_line = __LINE__ + 1;
    sum += FORKSCALE_CALL(twice(i));
    add_to_line = __LINE__ + 1;
    FORKSCALE_CALL(add_to(total, 10));
  }
  element_line = __LINE__ + 1;
  FORKSCALE_CALL(element(v, 1)) = 7;  // a reference stays one
  return sum;
}

TEST(ProfileCases, ForkscaleCallNamesItsSiteByTheCall) {
  std::vector<int> v{1, 2, 3};
  int total = 0;
  int sum = 0;
  const fs::report rep = fs::measure(
      "calls", [&] { sum = profiled_calls(v, total); }, cost_clock());
  EXPECT_EQ(sum, 12);  // 2 + 4 + 6: each call's value
  EXPECT_EQ(total, 30);
  EXPECT_EQ(v[1], 7);
  expect_shape(rep, 4, 1);
  EXPECT_EQ(rep.work(), 40u);
  EXPECT_EQ(rep.span(), 40u);
  EXPECT_EQ(rep.calls(), 7u);
  struct want {
    const char* tag;
    unsigned line;
    std::uint64_t count, work;
  };
  for (const want& w :
       {want{"twice", twice_line, 3, 6}, want{"add_to", add_to_line, 3, 30}, want{"element", element_line, 1, 1}}) {
    const fs::call_site_profile* c = find(rep.call_sites, fs::site_kind::call, w.tag);
    if (!c) continue;
    EXPECT_EQ(c->tag, w.tag);
    EXPECT_EQ(c->function, "profiled_calls") << w.tag;
    EXPECT_EQ(c->file, __FILE__) << w.tag;
    EXPECT_EQ(c->line, w.line) << w.tag;
    const measure all{w.count, w.work, static_cast<std::int64_t>(w.work)};
    expect_row(*c, call_row{false, all, all, all, all, all, all}, w.tag);
  }
}

TEST(ProfileCases, ForkscaleCallTagIsTheTextBeforeTheFirstParenthesis) {
  auto tag = [](const auto& text) { return std::string(fs::detail::call_name<sizeof(text)>(text).chars); };
  EXPECT_EQ(tag("partition(a, lo, hi)"), "partition");
  EXPECT_EQ(tag("sorter.run (x)"), "sorter.run");
  EXPECT_EQ(tag("std::max<int>(a, b)"), "std::max<int>");
  EXPECT_EQ(tag("(f)(x)"), "(f)(x)");  // nothing before the '(': the whole text
  EXPECT_EQ(tag("x + y"), "x + y");
}

}  // namespace

// ---------------------------------------------------------------------------
// A loop of one call site, 70,000 times in one task: the calls' records follow
// each other on the root's path and are summed into one as they come, past the
// 65,535 one summed record holds. Every 1,000 calls the task spawns a child
// shorter than what follows (so that the task's own path wins the join): the
// path is shared there and summing starts over. W = the calls' charges + 3 a
// child (its 1, the continuation's 2); S = the calls' charges + 2 a child (the
// continuation beats the child at each join). Every measure of the call's row
// counts all 70,000 calls with all their charges.
constexpr fs::site long_loop_call{"src/long_loop.cpp", 60, "long_loop", nullptr};

TEST(ProfileCases, LongLoopOfOneCallSite) {
  constexpr std::uint64_t calls = 70000;
  for (bool with_spawns : {false, true}) {
    std::uint64_t charged = 0, children = 0;
    const fs::report rep = fs::measure(
        "long loop",
        [&] {
          for (std::uint64_t i = 0; i < calls; ++i) {
            if (with_spawns && i % 1000 == 999) {
              fs::spawn([] { fs::charge(1); })();
              ++children;
              fs::charge(2);  // the parent's continuation, longer than the child
              fs::sync_point sp;
            }
            fs::call_site c(long_loop_call);
            const std::uint64_t w = 1 + i % 7;
            fs::charge(w);
            charged += w;
          }
        },
        cost_clock());
    const std::string what = with_spawns ? "with spawns" : "calls only";
    EXPECT_EQ(rep.work(), charged + 3 * children) << what;
    EXPECT_EQ(rep.span(), charged + 2 * children) << what;
    const auto* row = find(rep.call_sites, fs::site_kind::call, "long_loop.cpp:60");
    ASSERT_NE(row, nullptr) << what;
    const measure all{calls, charged, static_cast<std::int64_t>(charged)};
    expect_row(*row, call_row{false, all, all, all, all, all, all}, what);
  }
}
