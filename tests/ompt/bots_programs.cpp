// Programs in the style of the Barcelona OpenMP Tasks Suite's kernels (fib,
// nqueens, sparselu in its `single` and `for` forms, health, sort), plus one of
// nested regions and an untied taskloop: plain OpenMP, most tasks untied, meant
// to be run whole-program (FORKSCALE_OMPT=1 FORKSCALE_OMPT_CLOCK=cost) many
// times by tests/ompt/ompt_stress.py, which holds the report to what the program
// says of itself.
//
//   ompt_bots <fib|nqueens|sparselu_single|sparselu_for|health|sort|nested_taskloop|empty>
//
// Each program verifies its own result and counts, with atomics, as it runs:
// the tasks it creates, the taskwaits it runs, the work it charges
// (fs::charge) and what the constructs around them add to the report's spawns
// and syncs (docs/ompt.md, "What maps to what": an implicit task per thread and
// phase of a region and a sync per barrier, counted by each team's thread 0; a
// chunk per thread's static share; a sync per taskgroup, a taskloop's
// included). It prints one line,
//
//   COUNTS program=<name> threads=<T> tasks=<n> taskwaits=<n> spawns=<n> syncs=<n> work=<n> span=<n|-> result=ok
//
// and exits 0 when its result is right (1 when not, 2 on bad arguments). The
// report's spawns must equal `spawns` (tasks included), its syncs `syncs`
// (taskwaits included), its work `work`, and its span `span` where the program
// knows it.
#include <forkscale/ompt.hpp>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace fs = forkscale;

namespace {

// ---- the program's own count ------------------------------------------------------
std::atomic<std::uint64_t> tasks_created{0}, taskwaits_run{0}, construct_spawns{0}, construct_syncs{0}, work_charged{0};

void created() { tasks_created.fetch_add(1, std::memory_order_relaxed); }
void waited() { taskwaits_run.fetch_add(1, std::memory_order_relaxed); }
void charge(std::uint64_t c) {
  fs::charge(c);
  work_charged.fetch_add(c, std::memory_order_relaxed);
}
// Called by every thread of a team at its start: thread 0 counts the region's
// `phases` (its barriers, the region's end included), each an implicit task per
// thread and one sync.
void region_phases(std::uint64_t phases) {
  if (omp_get_thread_num() != 0) return;
  construct_spawns.fetch_add(phases * static_cast<std::uint64_t>(omp_get_num_threads()), std::memory_order_relaxed);
  construct_syncs.fetch_add(phases, std::memory_order_relaxed);
}
// A `for schedule(static)` over at least one iteration: a share per thread.
void static_loop() {
  if (omp_get_thread_num() == 0)
    construct_spawns.fetch_add(static_cast<std::uint64_t>(omp_get_num_threads()), std::memory_order_relaxed);
}
void taskgroup_joined() { construct_syncs.fetch_add(1, std::memory_order_relaxed); }

// ---- fib: both calls untied tasks, serial below a depth cutoff --------------------
constexpr int fib_cutoff = 8;

long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

// A leaf charges 1; a call at the cutoff n (its serial recursion); an inner
// call 1 on entry and 1 after its taskwait.
long fib(int n, int depth) {
  if (n < 2) {
    charge(1);
    return n;
  }
  if (depth >= fib_cutoff) {
    charge(static_cast<std::uint64_t>(n));
    return fib_serial(n);
  }
  charge(1);
  long x = 0, y = 0;
  created();
#pragma omp task untied shared(x) firstprivate(n, depth)
  x = fib(n - 1, depth + 1);
  created();
#pragma omp task untied shared(y) firstprivate(n, depth)
  y = fib(n - 2, depth + 1);
  waited();
#pragma omp taskwait
  charge(1);
  return x + y;
}
std::uint64_t fib_span(int n, int depth) {
  if (n < 2) return 1;
  if (depth >= fib_cutoff) return static_cast<std::uint64_t>(n);
  return 2 + std::max(fib_span(n - 1, depth + 1), fib_span(n - 2, depth + 1));
}

bool run_fib(std::uint64_t& span) {
  constexpr int n = 20;
  long r = 0;
#pragma omp parallel shared(r)
  {
    region_phases(2);  // the single's barrier, the region's end
#pragma omp single
    r = fib(n, 0);
  }
  span = fib_span(n, 0);
  return r == fib_serial(n);
}

// ---- nqueens: a task per placement, each with its own copy of the board ---------
constexpr int max_queens = 16;

bool queens_ok(int n, const char* a) {
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      const int d = a[j] - a[i];
      if (d == 0 || d == j - i || d == i - j) return false;
    }
  return true;
}

void nqueens(int n, int j, const char* a, int* solutions) {
  if (n == j) {
    *solutions = 1;
    return;
  }
  int csols[max_queens] = {};
  for (int i = 0; i < n; ++i) {
    created();
#pragma omp task untied firstprivate(i, j) shared(csols)
    {
      char b[max_queens];  // the task's own board: the parent's, plus queen i in row j
      std::memcpy(b, a, static_cast<std::size_t>(j));
      b[j] = static_cast<char>(i);
      charge(1);
      if (queens_ok(j + 1, b)) nqueens(n, j + 1, b, &csols[i]);
    }
  }
  waited();
#pragma omp taskwait
  for (int i = 0; i < n; ++i) *solutions += csols[i];
}

bool run_nqueens(std::uint64_t& span) {
  constexpr int n = 7;
  int total = 0;
#pragma omp parallel shared(total)
  {
    region_phases(2);
#pragma omp single
    {
      const char none[max_queens] = {};
      nqueens(n, 0, none, &total);
    }
  }
  span = n;  // a task per row down to a solution, each charging 1
  return total == 40;
}

// ---- sparselu: LU of a sparse matrix of dense blocks ------------------------------
constexpr int lu_blocks = 6, lu_size = 8;
using block = std::vector<double>;
using matrix = std::vector<std::vector<block>>;  // an empty block is a zero one

matrix lu_matrix() {
  matrix m(lu_blocks, std::vector<block>(lu_blocks));
  for (int ii = 0; ii < lu_blocks; ++ii)
    for (int jj = 0; jj < lu_blocks; ++jj) {
      const bool null =
          (ii < jj && ii % 3 != 0) || (ii > jj && jj % 3 != 0) || (ii % 2 == 1 && jj % 2 == 1 && ii != jj);
      if (null) continue;
      block b(lu_size * lu_size);
      for (int i = 0; i < lu_size; ++i)
        for (int j = 0; j < lu_size; ++j)
          b[static_cast<std::size_t>(i * lu_size + j)] = (i == j && ii == jj ? 4.0 * lu_size * lu_blocks : 0.0) +
                                                         1.0 / (1 + ((ii * 7 + jj * 13 + i * 3 + j) % 17));
      m[static_cast<std::size_t>(ii)][static_cast<std::size_t>(jj)] = std::move(b);
    }
  return m;
}
double& at(block& b, int i, int j) { return b[static_cast<std::size_t>(i * lu_size + j)]; }
block& blk(matrix& m, int i, int j) { return m[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]; }

void lu0(block& d) {
  for (int k = 0; k < lu_size; ++k)
    for (int i = k + 1; i < lu_size; ++i) {
      at(d, i, k) /= at(d, k, k);
      for (int j = k + 1; j < lu_size; ++j) at(d, i, j) -= at(d, i, k) * at(d, k, j);
    }
  charge(5);
}
void fwd(block& d, block& c) {
  for (int k = 0; k < lu_size; ++k)
    for (int i = k + 1; i < lu_size; ++i)
      for (int j = 0; j < lu_size; ++j) at(c, i, j) -= at(d, i, k) * at(c, k, j);
  charge(3);
}
void bdiv(block& d, block& r) {
  for (int i = 0; i < lu_size; ++i)
    for (int k = 0; k < lu_size; ++k) {
      at(r, i, k) /= at(d, k, k);
      for (int j = k + 1; j < lu_size; ++j) at(r, i, j) -= at(r, i, k) * at(d, k, j);
    }
  charge(3);
}
void bmod(block& r, block& c, block& t) {
  for (int i = 0; i < lu_size; ++i)
    for (int j = 0; j < lu_size; ++j)
      for (int k = 0; k < lu_size; ++k) at(t, i, j) -= at(r, i, k) * at(c, k, j);
  charge(2);
}

// The serial factorization, to check the parallel one against.
void lu_serial(matrix& m) {
  for (int kk = 0; kk < lu_blocks; ++kk) {
    lu0(blk(m, kk, kk));
    for (int jj = kk + 1; jj < lu_blocks; ++jj)
      if (!blk(m, kk, jj).empty()) fwd(blk(m, kk, kk), blk(m, kk, jj));
    for (int ii = kk + 1; ii < lu_blocks; ++ii)
      if (!blk(m, ii, kk).empty()) bdiv(blk(m, kk, kk), blk(m, ii, kk));
    for (int ii = kk + 1; ii < lu_blocks; ++ii)
      if (!blk(m, ii, kk).empty())
        for (int jj = kk + 1; jj < lu_blocks; ++jj)
          if (!blk(m, kk, jj).empty()) {
            if (blk(m, ii, jj).empty()) blk(m, ii, jj).assign(lu_size * lu_size, 0.0);
            bmod(blk(m, ii, kk), blk(m, kk, jj), blk(m, ii, jj));
          }
  }
}

bool same(const matrix& a, const matrix& b) {
  for (int ii = 0; ii < lu_blocks; ++ii)
    for (int jj = 0; jj < lu_blocks; ++jj) {
      const block& x = a[static_cast<std::size_t>(ii)][static_cast<std::size_t>(jj)];
      const block& y = b[static_cast<std::size_t>(ii)][static_cast<std::size_t>(jj)];
      if (x.size() != y.size()) return false;
      for (std::size_t k = 0; k < x.size(); ++k)
        if (x[k] != y[k]) return false;  // the same operations in the same order per block
    }
  return true;
}

// Checks the result against the serial factorization (run on the root, after
// the region: its charges are the root's work).
bool lu_check(const matrix& parallel) {
  matrix m = lu_matrix();
  lu_serial(m);
  return same(parallel, m);
}

// BOTS's sparselu_single: one thread creates every task, untied; a taskwait after
// the fwd and bdiv tasks of a step, another after its bmod tasks. Then it
// creates a task per block that checks the block is finite, and leaves them:
// the single's barrier joins them.
std::atomic<int> finite_blocks{0};
bool run_sparselu_single() {
  matrix m = lu_matrix();
  finite_blocks = 0;
  int blocks = 0;
#pragma omp parallel shared(m, blocks)
  {
    region_phases(2);  // the single's barrier, the region's end
#pragma omp single
    {
      for (int kk = 0; kk < lu_blocks; ++kk) {
        lu0(blk(m, kk, kk));
        for (int jj = kk + 1; jj < lu_blocks; ++jj)
          if (!blk(m, kk, jj).empty()) {
            created();
#pragma omp task untied firstprivate(kk, jj) shared(m)
            fwd(blk(m, kk, kk), blk(m, kk, jj));
          }
        for (int ii = kk + 1; ii < lu_blocks; ++ii)
          if (!blk(m, ii, kk).empty()) {
            created();
#pragma omp task untied firstprivate(kk, ii) shared(m)
            bdiv(blk(m, kk, kk), blk(m, ii, kk));
          }
        waited();
#pragma omp taskwait
        for (int ii = kk + 1; ii < lu_blocks; ++ii)
          if (!blk(m, ii, kk).empty())
            for (int jj = kk + 1; jj < lu_blocks; ++jj)
              if (!blk(m, kk, jj).empty()) {
                if (blk(m, ii, jj).empty()) blk(m, ii, jj).assign(lu_size * lu_size, 0.0);
                created();
#pragma omp task untied firstprivate(kk, ii, jj) shared(m)
                bmod(blk(m, ii, kk), blk(m, kk, jj), blk(m, ii, jj));
              }
        waited();
#pragma omp taskwait
      }
      for (int ii = 0; ii < lu_blocks; ++ii)
        for (int jj = 0; jj < lu_blocks; ++jj)
          if (!blk(m, ii, jj).empty()) {
            ++blocks;
            created();
#pragma omp task untied firstprivate(ii, jj) shared(m)
            {
              bool finite = true;
              for (double v : blk(m, ii, jj)) finite = finite && v == v && v - v == 0;
              charge(1);
              if (finite) finite_blocks.fetch_add(1);
            }
          }
    }  // the barrier joins the checking tasks
  }
  return finite_blocks.load() == blocks && lu_check(m);
}

// BOTS's sparselu_for: every thread runs the steps; a `single` does lu0, the fwd
// tasks come from a `for nowait`, the bdiv and bmod tasks from `for` loops
// (schedule(static), a share per thread): the loops' barriers join them.
bool run_sparselu_for() {
  matrix m = lu_matrix();
#pragma omp parallel shared(m)
  {
    // Each step: the single's barrier, the bdiv loop's, the bmod loop's; then the
    // region's end.
    region_phases(3 * lu_blocks + 1);
    for (int kk = 0; kk < lu_blocks; ++kk) {
#pragma omp single
      lu0(blk(m, kk, kk));
      static_loop();
#pragma omp for schedule(static) nowait
      for (int jj = 0; jj < lu_blocks; ++jj)
        if (jj > kk && !blk(m, kk, jj).empty()) {
          created();
#pragma omp task untied firstprivate(kk, jj) shared(m)
          fwd(blk(m, kk, kk), blk(m, kk, jj));
        }
      static_loop();
#pragma omp for schedule(static)
      for (int ii = 0; ii < lu_blocks; ++ii)
        if (ii > kk && !blk(m, ii, kk).empty()) {
          created();
#pragma omp task untied firstprivate(kk, ii) shared(m)
          bdiv(blk(m, kk, kk), blk(m, ii, kk));
        }
      static_loop();
#pragma omp for schedule(static)
      for (int ii = 0; ii < lu_blocks; ++ii)
        if (ii > kk && !blk(m, ii, kk).empty())
          for (int jj = kk + 1; jj < lu_blocks; ++jj)
            if (!blk(m, kk, jj).empty()) {
              if (blk(m, ii, jj).empty()) blk(m, ii, jj).assign(lu_size * lu_size, 0.0);
              created();
#pragma omp task untied firstprivate(kk, ii, jj) shared(m)
              bmod(blk(m, ii, kk), blk(m, kk, jj), blk(m, ii, jj));
            }
    }
  }
  return lu_check(m);
}

// ---- health: a tree of villages, each with linked lists --------------------------
struct patient {
  int visits = 0;
  patient* next = nullptr;
};
struct village {
  village* children = nullptr;  // a linked list of child villages
  village* next = nullptr;      // the next sibling
  patient* patients = nullptr;  // a linked list
};

constexpr int health_levels = 4, health_fanout = 3, health_patients = 5, health_steps = 3;

village* make_village(int level, std::vector<village*>& villages, std::vector<patient*>& patients) {
  village* v = new village;
  villages.push_back(v);
  for (int i = 0; i < health_patients; ++i) {
    patient* p = new patient;
    patients.push_back(p);
    p->next = v->patients;
    v->patients = p;
  }
  if (level > 1)
    for (int i = 0; i < health_fanout; ++i) {
      village* c = make_village(level - 1, villages, patients);
      c->next = v->children;
      v->children = c;
    }
  return v;
}

// A task per child village (untied), walking the list; a task per patient,
// walking the other; one taskwait for both.
void sim_village(village* v) {
  for (village* c = v->children; c; c = c->next) {
    created();
#pragma omp task untied firstprivate(c)
    sim_village(c);
  }
  for (patient* p = v->patients; p; p = p->next) {
    created();
#pragma omp task firstprivate(p)
    {
      ++p->visits;
      charge(2);
    }
  }
  charge(1);
  waited();
#pragma omp taskwait
}

bool run_health() {
  std::vector<village*> villages;
  std::vector<patient*> patients;
  village* top = make_village(health_levels, villages, patients);
  std::atomic<int> counted{0};
#pragma omp parallel shared(villages, counted)
  {
    region_phases(1);  // the region's end, which joins the census tasks the single nowait leaves
#pragma omp single nowait
    {
      for (int step = 0; step < health_steps; ++step) sim_village(top);
      for (village* v : villages) {
        created();
#pragma omp task untied firstprivate(v) shared(counted)
        {
          int n = 0;
          for (patient* p = v->patients; p; p = p->next) ++n;
          counted.fetch_add(n);
          charge(1);
        }
      }
    }
  }
  bool ok = counted.load() == static_cast<int>(patients.size());
  for (patient* p : patients) ok = ok && p->visits == health_steps;
  for (patient* p : patients) delete p;
  for (village* v : villages) delete v;
  return ok;
}

// ---- sort: divide and conquer with untied tasks (cilksort's shape) ---------------
constexpr std::size_t sort_cutoff = 256;

void merge(const long* a, std::size_t na, const long* b, std::size_t nb, long* out) {
  std::merge(a, a + na, b, b + nb, out);
  charge(1);
}

// Sorts a[0, n) with tmp[0, n) as scratch: four quarters in parallel, then the
// two halves merged in parallel into tmp, then tmp merged back into a.
void sort(long* a, long* tmp, std::size_t n) {
  if (n < sort_cutoff) {
    std::sort(a, a + n);
    charge(2);
    return;
  }
  const std::size_t q = n / 4;
  long *a1 = a, *a2 = a + q, *a3 = a + 2 * q, *a4 = a + 3 * q;
  long *t1 = tmp, *t2 = tmp + q, *t3 = tmp + 2 * q, *t4 = tmp + 3 * q;
  const std::size_t n4 = n - 3 * q;
  created();
#pragma omp task untied firstprivate(a1, t1, q)
  sort(a1, t1, q);
  created();
#pragma omp task untied firstprivate(a2, t2, q)
  sort(a2, t2, q);
  created();
#pragma omp task untied firstprivate(a3, t3, q)
  sort(a3, t3, q);
  created();
#pragma omp task untied firstprivate(a4, t4, n4)
  sort(a4, t4, n4);
  waited();
#pragma omp taskwait
  created();
#pragma omp task untied firstprivate(a1, a2, t1, q)
  merge(a1, q, a2, q, t1);
  created();
#pragma omp task untied firstprivate(a3, a4, t3, q, n4)
  merge(a3, q, a4, n4, t3);
  waited();
#pragma omp taskwait
  merge(t1, 2 * q, t3, q + n4, a);
}

bool run_sort() {
  constexpr std::size_t n = 20000;
  std::vector<long> a(n), tmp(n);
  std::uint64_t x = 12345, sum = 0;
  for (auto& v : a) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<long>(x >> 33);
    sum += static_cast<std::uint64_t>(v);
  }
#pragma omp parallel shared(a, tmp)
  {
    region_phases(2);
#pragma omp single
    sort(a.data(), tmp.data(), n);
  }
  std::uint64_t after = 0;
  for (long v : a) after += static_cast<std::uint64_t>(v);
  return std::is_sorted(a.begin(), a.end()) && after == sum;
}

// ---- nested regions and an untied taskloop ---------------------------------------
// Each thread of the outer region opens an inner region of two threads (nested
// parallelism on); the inner region's `single` leaves untied tasks to its
// barrier. (Not `single nowait`, the tasks left to the inner region's end:
// libomp 14 itself crashes or hangs on that within a few thousand such regions,
// with no tool loaded; docs/ompt.md, "Limits".) Then a `single` runs an untied taskloop of 8 tasks (no
// split: at most 10 per thread) and leaves a task for the single's barrier.
bool run_nested_taskloop() {
  omp_set_max_active_levels(2);
  std::atomic<int> inner_tasks{0}, iterations{0};
  int outer_threads = 0;
#pragma omp parallel shared(inner_tasks, iterations, outer_threads)
  {
    region_phases(2);  // the single's barrier, the region's end
#pragma omp single nowait
    outer_threads = omp_get_num_threads();
#pragma omp parallel num_threads(2) shared(inner_tasks)
    {
      region_phases(2);  // the single's barrier, the inner region's end
#pragma omp single
      for (int i = 0; i < 4; ++i) {
        created();
#pragma omp task untied shared(inner_tasks)
        {
          charge(3);
          inner_tasks.fetch_add(1);
        }
      }
    }
#pragma omp single
    {
      bool first = true;  // firstprivate: each task's own
      taskgroup_joined();
#pragma omp taskloop untied grainsize(4) firstprivate(first) shared(iterations)
      for (int i = 0; i < 32; ++i) {
        if (first) created();
        first = false;
        charge(1);
        iterations.fetch_add(1);
      }
      created();
#pragma omp task untied
      charge(7);
    }
  }
  return inner_tasks.load() == 4 * outer_threads && iterations.load() == 32;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string name = argc == 2 ? argv[1] : "";
  std::uint64_t span = 0;
  bool has_span = false, ok = false;
  if (name == "fib") {
    ok = run_fib(span);
    has_span = true;
  } else if (name == "nqueens") {
    ok = run_nqueens(span);
    has_span = true;
  } else if (name == "sparselu_single") {
    ok = run_sparselu_single();
  } else if (name == "sparselu_for") {
    ok = run_sparselu_for();
  } else if (name == "health") {
    ok = run_health();
  } else if (name == "sort") {
    ok = run_sort();
  } else if (name == "nested_taskloop") {
    ok = run_nested_taskloop();
  } else if (name == "empty") {  // an empty region: the root's work is the program's serial time
#pragma omp parallel
    region_phases(1);
    ok = true;
  } else {
    std::fprintf(
        stderr,
        "ompt_bots: usage: ompt_bots <fib|nqueens|sparselu_single|sparselu_for|health|sort|nested_taskloop|empty> "
        "(got '%s')\n",
        name.c_str());
    return 2;
  }
  const std::uint64_t tasks = tasks_created.load(), waits = taskwaits_run.load();
  std::printf(
      "COUNTS program=%s threads=%d tasks=%llu taskwaits=%llu spawns=%llu syncs=%llu work=%llu span=%s result=%s\n",
      name.c_str(), omp_get_max_threads(), static_cast<unsigned long long>(tasks),
      static_cast<unsigned long long>(waits), static_cast<unsigned long long>(tasks + construct_spawns.load()),
      static_cast<unsigned long long>(waits + construct_syncs.load()),
      static_cast<unsigned long long>(work_charged.load()), has_span ? std::to_string(span).c_str() : "-",
      ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
