// overhead_workloads: the programs of the overhead suite (bench_overhead.cpp runs
// them). This one source file is compiled twice — bench_overhead_workload_off with
// FORKSCALE_ENABLE=0 (every guard an empty type, fs::measure just runs the
// callable) and bench_overhead_workload_on with profiling fully on (the engine,
// call-site and spawn-site profiles: fs::options' defaults) — so the two differ in
// nothing but forkscale.
//
//   bench_overhead_workload_{on,off} --bench NAME --backend tbb|serial --threads T
//                                    [--size N]
//   bench_overhead_workload_on       --micro [--quick]
//   bench_overhead_workload_{on,off} --info
//
// One run sets the input up, runs the benchmark once inside fs::measure (timed
// with steady_clock around the whole fs::measure call, so the on run pays for
// building its report too), verifies the result, and prints one machine-readable
// line that starts with "RESULT " (key=value pairs) on stdout. bench_overhead runs
// each in a fresh process and reads the peak RSS from wait4().
//
// The benchmarks, modeled on Cilkprof (SPAA'15) Fig. 11, each annotated the way
// the examples are (a task_group per fork, the last branch a profiled call):
//   fib        every call spawns fib(n-1) and calls fib(n-2); no coarsening
//   quicksort  10M 64-bit integers, Hoare partition, insertion sort below 32
//   matmul     divide-and-conquer C += A·B, two phases of 3 spawns + 1 call, 32³ base
//   mergesort  cilksort style: halves sorted in parallel, merged by a parallel merge
//   nqueens    Cilk-5's nqueens: a fresh board per placement, every placement forked
//   heat       2D heat diffusion, a cilk_for-style divide-and-conquer loop over rows
//              per time step (Cilk-5's heat, 4096 × 1024 × 40 in Fig. 11)
//   treesum    TaskProf Fig. 2: build a balanced tree serially (its nodes scattered
//              over memory), sum it in parallel
//   flatloop   one parent spawns every task of a flat loop, then one sync
//
// Backends: tbb (forkscale/tbb.hpp on oneTBB, at most --threads threads through
// tbb::global_control) when oneTBB was found at build time, and serial
// (forkscale/serial.hpp: the serial elision, every spawn run inline).
//
// Exit status: 0 verified; 1 wrong result or forkscale reported misuse; 2 bad
// command line.
#include <forkscale/adapters/serial.hpp>
#include <forkscale/detail/util/spinlock.hpp>  // detail::spinlock: the lock workload's baseline
#include <forkscale/forkscale.hpp>

#if defined(BENCH_OVERHEAD_HAVE_TBB)
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/version.h>
#include <forkscale/adapters/tbb.hpp>
#endif

#if defined(__SANITIZE_THREAD__)
#define BENCH_OVERHEAD_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BENCH_OVERHEAD_TSAN 1
#endif
#endif
#ifndef BENCH_OVERHEAD_TSAN
#define BENCH_OVERHEAD_TSAN 0
#endif
#if BENCH_OVERHEAD_TSAN
#include <sanitizer/tsan_interface.h>
#endif

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace fs = forkscale;

namespace {

// ============================================================================
// Small helpers
// ============================================================================
// The serial leaf kernels are kept out of line, so that both builds run the same
// machine code for them: inlined, the compiler laid matmul's base case out
// differently in the two builds, and the build without profiling ran 1.5x slower
// than the one with it — a difference that is not forkscale's.
#if defined(__GNUC__)
#define BENCH_LEAF __attribute__((noinline))
#else
#define BENCH_LEAF
#endif
inline void compiler_barrier() noexcept { asm volatile("" ::: "memory"); }
template <class T>
inline void keep(const T& v) noexcept {
  asm volatile("" : : "r"(v) : "memory");
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// splitmix64: a cheap, good 64-bit mixer (deterministic inputs everywhere).
inline std::uint64_t mix64(std::uint64_t z) noexcept {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::atomic<std::uint64_t> g_diagnostics{0};

fs::options profile_options() {
  fs::options o;  // the defaults: automatic clock, site profiles on, compensation on
  o.on_diagnostic = [](const fs::diagnostic& d) {
    if (g_diagnostics.fetch_add(1) < 5)
      std::fprintf(stderr, "overhead_workload: forkscale diagnostic: %s: %s\n", d.where.c_str(), d.problem.c_str());
  };
  return o;
}

// What a benchmark hands back: whether it verified, and a one-word description
// of its input for the table.
struct outcome {
  bool ok = false;
  std::string what;  // e.g. "fib(30)"
};

// Runs `kernel` inside fs::measure and times the whole call. `check` runs after,
// untimed.
struct timed_run {
  double seconds = 0;
  fs::report rep;
};
template <class Kernel>
timed_run time_measured(const char* label, Kernel&& kernel) {
  timed_run t;
  const fs::options opt = profile_options();
  const auto t0 = std::chrono::steady_clock::now();
  t.rep = fs::measure(label, std::forward<Kernel>(kernel), opt);
  t.seconds = seconds_since(t0);
  return t;
}

// ============================================================================
// The benchmarks. Each is a template over a backend type (fs::tbb::backend or
// fs::serial::backend): the same annotated code on either.
// ============================================================================

// --- fib: every call spawned, no coarsening (Cilkprof Fig. 5) -----------------
template <class B>
std::int64_t fib(int n) {
  if (n < 2) return n;
  std::int64_t x = 0, y = 0;
  typename B::task_group g;
  g.run([&x, n] { x = fib<B>(n - 1); });
  {
    fs::call_site cs;
    y = fib<B>(n - 2);
  }
  g.wait();
  return x + y;
}

template <class B>
outcome run_fib(std::uint64_t size, timed_run& t) {
  const int n = static_cast<int>(size);
  std::int64_t result = 0;
  t = time_measured("fib", [&] { result = fib<B>(n); });
  std::int64_t a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    const std::int64_t c = a + b;
    a = b;
    b = c;
  }
  return {result == a, "fib(" + std::to_string(n) + ")"};
}

// --- quicksort: Cilkprof Fig. 1, coarsened at 32 ------------------------------
constexpr std::ptrdiff_t qs_coarsening = 32;

// Pivot position: a hash of the range, so every run and backend splits alike.
std::ptrdiff_t qs_pivot(std::ptrdiff_t lo, std::ptrdiff_t hi) noexcept {
  const std::uint64_t h = mix64(static_cast<std::uint64_t>(lo) * 31 + static_cast<std::uint64_t>(hi));
  return lo + static_cast<std::ptrdiff_t>(h % static_cast<std::uint64_t>(hi - lo));
}

// Hoare partition of [lo, hi): returns p, lo < p < hi, with [lo, p) <= [p, hi).
BENCH_LEAF std::ptrdiff_t qs_partition(std::int64_t* a, std::ptrdiff_t lo, std::ptrdiff_t hi) noexcept {
  const std::int64_t pivot = a[qs_pivot(lo, hi)];
  std::ptrdiff_t i = lo - 1, j = hi;
  for (;;) {
    do ++i;
    while (a[i] < pivot);
    do --j;
    while (a[j] > pivot);
    if (i >= j) return i == lo ? i + 1 : i;
    std::swap(a[i], a[j]);
  }
}

BENCH_LEAF void qs_insertion(std::int64_t* a, std::ptrdiff_t lo, std::ptrdiff_t hi) noexcept {
  for (std::ptrdiff_t i = lo + 1; i < hi; ++i) {
    const std::int64_t v = a[i];
    std::ptrdiff_t j = i;
    for (; j > lo && v < a[j - 1]; --j) a[j] = a[j - 1];
    a[j] = v;
  }
}

template <class B>
void pqsort(std::int64_t* a, std::ptrdiff_t lo, std::ptrdiff_t hi) {
  if (hi - lo < qs_coarsening) {
    qs_insertion(a, lo, hi);
    return;
  }
  std::ptrdiff_t p;
  {
    fs::call_site cs;
    p = qs_partition(a, lo, hi);
  }
  typename B::task_group g;
  g.run([a, lo, p] { pqsort<B>(a, lo, p); });
  {
    fs::call_site cs;
    pqsort<B>(a, p, hi);
  }
  g.wait();
}

std::vector<std::int64_t> random_int64s(std::size_t n, std::uint64_t& checksum) {
  std::vector<std::int64_t> v(n);
  std::mt19937_64 gen(42);
  checksum = 0;
  for (auto& x : v) {
    x = static_cast<std::int64_t>(gen());
    checksum += static_cast<std::uint64_t>(x);
  }
  return v;
}

bool sorted_with_sum(const std::vector<std::int64_t>& v, std::uint64_t checksum) {
  std::uint64_t s = 0;
  for (const auto x : v) s += static_cast<std::uint64_t>(x);
  return s == checksum && std::is_sorted(v.begin(), v.end());
}

template <class B>
outcome run_quicksort(std::uint64_t size, timed_run& t) {
  std::uint64_t checksum = 0;
  std::vector<std::int64_t> v = random_int64s(static_cast<std::size_t>(size), checksum);
  t = time_measured("quicksort", [&] { pqsort<B>(v.data(), 0, static_cast<std::ptrdiff_t>(v.size())); });
  return {sorted_with_sum(v, checksum), std::to_string(size) + " int64"};
}

// --- matmul: divide and conquer (Cilkprof Fig. 8), 32³ base case ----------------
constexpr std::size_t mm_base = 32;

struct mm_problem {
  std::size_t stride;  // row stride of every matrix

  // C[m×n] += A[m×k]·B[k×n].
  BENCH_LEAF void base(double* C, const double* A, const double* Bm, std::size_t m, std::size_t n,
                       std::size_t k) const noexcept {
    for (std::size_t i = 0; i < m; ++i) {
      double* c = C + i * stride;
      for (std::size_t l = 0; l < k; ++l) {
        const double a = A[i * stride + l];
        const double* b = Bm + l * stride;
        for (std::size_t j = 0; j < n; ++j) c[j] += a * b[j];
      }
    }
  }

  template <class B>
  void mm(double* C, const double* A, const double* Bm, std::size_t m, std::size_t n, std::size_t k) const {
    if (m <= mm_base && n <= mm_base && k <= mm_base) {
      fs::call_site cs;
      base(C, A, Bm, m, n, k);
      return;
    }
    const std::size_t m0 = m / 2, m1 = m - m0, n0 = n / 2, n1 = n - n0, k0 = k / 2, k1 = k - k0;
    const std::size_t s = stride;
    auto q = [s](auto* M, std::size_t rows0, std::size_t cols0, int r, int c) {
      return M + (r ? rows0 * s : 0) + (c ? cols0 : 0);
    };
    for (int phase = 0; phase < 2; ++phase) {  // C += A[·,phase] × B[phase,·]
      const std::size_t kk = phase ? k1 : k0;
      const double* A0 = q(A, m0, k0, 0, phase);
      const double* A1 = q(A, m0, k0, 1, phase);
      const double* B0 = q(Bm, k0, n0, phase, 0);
      const double* B1 = q(Bm, k0, n0, phase, 1);
      double* C00 = q(C, m0, n0, 0, 0);
      double* C01 = q(C, m0, n0, 0, 1);
      double* C10 = q(C, m0, n0, 1, 0);
      double* C11 = q(C, m0, n0, 1, 1);
      typename B::task_group g;
      g.run([=] { mm<B>(C00, A0, B0, m0, n0, kk); });
      g.run([=] { mm<B>(C01, A0, B1, m0, n1, kk); });
      g.run([=] { mm<B>(C10, A1, B0, m1, n0, kk); });
      {
        fs::call_site cs;
        mm<B>(C11, A1, B1, m1, n1, kk);
      }
      g.wait();
    }
  }
};

// y = M·x for an N×N matrix M with row stride S.
std::vector<double> mat_vec(const double* M, const std::vector<double>& x, std::size_t N, std::size_t S) {
  std::vector<double> y(N, 0.0);
  for (std::size_t i = 0; i < N; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < N; ++j) s += M[i * S + j] * x[j];
    y[i] = s;
  }
  return y;
}

template <class B>
outcome run_matmul(std::uint64_t size, timed_run& t) {
  const std::size_t N = static_cast<std::size_t>(size);
  // The three matrices live in one buffer, at fixed offsets from a page boundary,
  // with rows padded by 8 doubles: a power-of-two stride, or matrices whose
  // relative placement is left to the allocator, made the time depend on where
  // the matrices landed (the two builds allocate differently) more than on the
  // profiling.
  const std::size_t S = N + 8;
  const std::size_t M = N * S + 72;  // doubles per matrix, with a gap
  std::vector<double> buf(3 * M + 512, 0.0);
  double* base = buf.data();
  while (reinterpret_cast<std::uintptr_t>(base) % 4096) ++base;
  double* A = base;
  double* Bm = base + M;
  double* C = base + 2 * M;
  std::mt19937_64 gen(7);
  std::uniform_int_distribution<int> small(-4, 4);  // small integers: every sum is exact
  for (std::size_t i = 0; i < N * S; ++i) A[i] = small(gen);
  for (std::size_t i = 0; i < N * S; ++i) Bm[i] = small(gen);
  const mm_problem p{S};
  t = time_measured("matmul", [&] { p.mm<B>(C, A, Bm, N, N, N); });
  // Freivalds' check, twice: C·r == A·(B·r), exactly.
  bool ok = true;
  for (int round = 0; round < 2 && ok; ++round) {
    std::vector<double> r(N);
    for (auto& x : r) x = small(gen);
    ok = mat_vec(C, r, N, S) == mat_vec(A, mat_vec(Bm, r, N, S), N, S);
  }
  return {ok, std::to_string(N) + "x" + std::to_string(N)};
}

// --- mergesort: cilksort style (halves in parallel, parallel merge) -------------
constexpr std::size_t ms_sort_grain = 2048;   // serial sort below this
constexpr std::size_t ms_merge_grain = 2048;  // serial merge below this

// Merges sorted a[0..na) and b[0..nb) into out, splitting the larger run at its
// middle and the other by binary search.
template <class B>
void pmerge(const std::int64_t* a, std::size_t na, const std::int64_t* b, std::size_t nb, std::int64_t* out) {
  if (na < nb) {
    std::swap(a, b);
    std::swap(na, nb);
  }
  if (na + nb <= ms_merge_grain) {
    std::merge(a, a + na, b, b + nb, out);
    return;
  }
  const std::size_t ma = na / 2;
  const std::size_t mb = static_cast<std::size_t>(std::lower_bound(b, b + nb, a[ma]) - b);
  out[ma + mb] = a[ma];
  typename B::task_group g;
  g.run([=] { pmerge<B>(a, ma, b, mb, out); });
  {
    fs::call_site cs;
    pmerge<B>(a + ma + 1, na - ma - 1, b + mb, nb - mb, out + ma + mb + 1);
  }
  g.wait();
}

// Sorts the n elements of a; the sorted run ends in b if `into_b`, else in a. The
// other array is scratch. The halves are sorted into the array the merge reads.
template <class B>
void msort(std::int64_t* a, std::int64_t* b, std::size_t n, bool into_b) {
  if (n <= ms_sort_grain) {
    std::sort(a, a + n);
    if (into_b) std::copy(a, a + n, b);
    return;
  }
  const std::size_t h = n / 2;
  typename B::task_group g;
  g.run([=] { msort<B>(a, b, h, !into_b); });
  {
    fs::call_site cs;
    msort<B>(a + h, b + h, n - h, !into_b);
  }
  g.wait();
  const std::int64_t* src = into_b ? a : b;
  std::int64_t* dst = into_b ? b : a;
  fs::call_site cs;
  pmerge<B>(src, h, src + h, n - h, dst);
}

template <class B>
outcome run_mergesort(std::uint64_t size, timed_run& t) {
  std::uint64_t checksum = 0;
  std::vector<std::int64_t> v = random_int64s(static_cast<std::size_t>(size), checksum);
  std::vector<std::int64_t> scratch(v.size());
  t = time_measured("mergesort", [&] { msort<B>(v.data(), scratch.data(), v.size(), false); });
  return {sorted_with_sum(v, checksum), std::to_string(size) + " int64"};
}

// --- nqueens: Cilk-5's nqueens (a board copy per placement, no coarsening) ------
using board_t = std::array<signed char, 32>;

bool queen_fits(const board_t& bd, int row) noexcept {  // does bd[row] clash with rows above?
  const int c = bd[static_cast<std::size_t>(row)];
  for (int r = 0; r < row; ++r) {
    const int d = bd[static_cast<std::size_t>(r)] - c;
    if (d == 0 || d == row - r || d == r - row) return false;
  }
  return true;
}

template <class B>
std::uint64_t nqueens(int n, int row, const board_t& bd) {
  if (row == n) return 1;
  // The placements that fit; every one but the last is spawned, the last is called.
  std::array<board_t, 32> next;
  int k = 0;
  for (int c = 0; c < n; ++c) {
    board_t nb = bd;
    nb[static_cast<std::size_t>(row)] = static_cast<signed char>(c);
    if (queen_fits(nb, row)) next[static_cast<std::size_t>(k++)] = nb;
  }
  if (k == 0) return 0;
  std::array<std::uint64_t, 32> found{};
  typename B::task_group g;
  for (int i = 0; i + 1 < k; ++i) {
    const std::size_t s = static_cast<std::size_t>(i);
    g.run([&found, &next, s, n, row] { found[s] = nqueens<B>(n, row + 1, next[s]); });
  }
  {
    fs::call_site cs;
    found[static_cast<std::size_t>(k - 1)] = nqueens<B>(n, row + 1, next[static_cast<std::size_t>(k - 1)]);
  }
  g.wait();
  std::uint64_t total = 0;
  for (int i = 0; i < k; ++i) total += found[static_cast<std::size_t>(i)];
  return total;
}

template <class B>
outcome run_nqueens(std::uint64_t size, timed_run& t) {
  const int n = static_cast<int>(size);
  std::uint64_t solutions = 0;
  t = time_measured("nqueens", [&] { solutions = nqueens<B>(n, 0, board_t{}); });
  // OEIS A000170.
  static const std::uint64_t known[] = {1,   1,   0,    0,     2,     10,     4,       40,      92,
                                        352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512};
  const bool ok = n >= 0 && n < 17 && solutions == known[n];
  return {ok, std::to_string(n) + "x" + std::to_string(n) + " board"};
}

// --- heat: 2D explicit heat diffusion, a divide-and-conquer loop over rows ------
constexpr std::size_t heat_cols = 1024;
constexpr std::size_t heat_grain = 16;  // rows per leaf
constexpr double heat_alpha = 0.2;

// next = one step of cur on rows [r0, r1) (periodic boundaries: the total is kept).
BENCH_LEAF void heat_rows(const double* cur, double* next, std::size_t rows, std::size_t r0, std::size_t r1) noexcept {
  const std::size_t W = heat_cols;
  for (std::size_t r = r0; r < r1; ++r) {
    const double* up = cur + ((r + rows - 1) % rows) * W;
    const double* mid = cur + r * W;
    const double* down = cur + ((r + 1) % rows) * W;
    double* out = next + r * W;
    out[0] = mid[0] + heat_alpha * (up[0] + down[0] + mid[W - 1] + mid[1] - 4 * mid[0]);
    for (std::size_t c = 1; c + 1 < W; ++c)
      out[c] = mid[c] + heat_alpha * (up[c] + down[c] + mid[c - 1] + mid[c + 1] - 4 * mid[c]);
    out[W - 1] = mid[W - 1] + heat_alpha * (up[W - 1] + down[W - 1] + mid[W - 2] + mid[0] - 4 * mid[W - 1]);
  }
}

// cilk_for over rows [r0, r1): spawn the first half, call the second, sync.
template <class B>
void heat_loop(const double* cur, double* next, std::size_t rows, std::size_t r0, std::size_t r1) {
  if (r1 - r0 <= heat_grain) {
    heat_rows(cur, next, rows, r0, r1);
    return;
  }
  const std::size_t mid = r0 + (r1 - r0) / 2;
  typename B::task_group g;
  g.run([=] { heat_loop<B>(cur, next, rows, r0, mid); });
  {
    fs::call_site cs;
    heat_loop<B>(cur, next, rows, mid, r1);
  }
  g.wait();
}

template <class B>
outcome run_heat(std::uint64_t size, timed_run& t) {
  const std::size_t rows = static_cast<std::size_t>(size);
  const std::size_t steps = 40;
  std::vector<double> g0(rows * heat_cols), g1(rows * heat_cols);
  std::mt19937_64 gen(3);
  std::uniform_real_distribution<double> u(0.0, 100.0);
  for (auto& x : g0) x = u(gen);
  const std::vector<double> initial = g0;
  t = time_measured("heat", [&] {
    for (std::size_t s = 0; s < steps; ++s) {
      const double* cur = s % 2 ? g1.data() : g0.data();
      double* next = s % 2 ? g0.data() : g1.data();
      heat_loop<B>(cur, next, rows, 0, rows);
    }
  });
  // The same steps serially must give the same bits (every point is computed the
  // same way whatever the schedule).
  std::vector<double> r0 = initial, r1(rows * heat_cols);
  for (std::size_t s = 0; s < steps; ++s) {
    heat_rows(s % 2 ? r1.data() : r0.data(), s % 2 ? r0.data() : r1.data(), rows, 0, rows);
  }
  const std::vector<double>& got = steps % 2 ? g1 : g0;
  const std::vector<double>& want = steps % 2 ? r1 : r0;
  return {got == want, std::to_string(rows) + "x" + std::to_string(heat_cols) + "x" + std::to_string(steps)};
}

// --- treesum: TaskProf Fig. 2 (serial build, parallel sum) -------------------------
constexpr std::uint64_t tree_base = 1024;  // subtrees this small are summed serially

struct tnode {
  std::int64_t value;
  std::uint64_t count;  // nodes in the subtree rooted here
  tnode* left;
  tnode* right;
};

// Nodes are taken from one pool (so nothing leaks) in a shuffled order, so that
// the tree is scattered over memory as a tree of separately allocated nodes is.
struct tree_builder {
  std::vector<tnode>& pool;
  const std::vector<std::uint32_t>& order;  // a permutation of the pool's slots
  std::size_t used = 0;
  std::mt19937_64 gen{11};
  std::int64_t total = 0;

  tnode* build(std::uint64_t n) {  // a balanced tree of n nodes, in preorder
    if (n == 0) return nullptr;
    tnode* t = &pool[order[used++]];
    t->value = static_cast<std::int64_t>(gen() % 1000);
    total += t->value;
    t->count = n;
    const std::uint64_t l = (n - 1) / 2;
    t->left = build(l);
    t->right = build(n - 1 - l);
    return t;
  }
};

BENCH_LEAF std::int64_t serial_tree_sum(const tnode* t) noexcept {
  std::int64_t s = 0;
  while (t) {  // recursion on the left, iteration on the right
    s += t->value + serial_tree_sum(t->left);
    t = t->right;
  }
  return s;
}

template <class B>
std::int64_t tree_sum(const tnode* t) {
  if (t->count <= tree_base) {
    fs::call_site cs;
    return serial_tree_sum(t);
  }
  std::int64_t l = 0, r = 0;
  typename B::task_group g;
  if (t->left) g.run([&l, t] { l = tree_sum<B>(t->left); });
  if (t->right) g.run([&r, t] { r = tree_sum<B>(t->right); });
  g.wait();
  return l + r + t->value;
}

template <class B>
outcome run_treesum(std::uint64_t size, timed_run& t) {
  std::vector<tnode> pool(static_cast<std::size_t>(size));
  std::vector<std::uint32_t> order(pool.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(5));
  tree_builder tb{pool, order};
  std::int64_t sum = -1;
  t = time_measured("treesum", [&] {
    const tnode* root;
    {
      fs::call_site cs;  // the serial build, as in TaskProf's program
      root = tb.build(size);
    }
    sum = tree_sum<B>(root);
  });
  return {sum == tb.total && tb.used == pool.size(), std::to_string(size) + " nodes"};
}

// --- flatloop: one parent spawns every task, then one sync ----------------------
constexpr std::size_t flat_chunk = 32;  // elements per task
constexpr int flat_rounds = 24;         // mixing rounds per element (~1-2 µs per task)

BENCH_LEAF void flat_task(std::uint64_t* a) noexcept {
  for (std::size_t j = 0; j < flat_chunk; ++j) {
    std::uint64_t x = a[j];
    for (int r = 0; r < flat_rounds; ++r) x = mix64(x);
    a[j] = x;
  }
}

template <class B>
outcome run_flatloop(std::uint64_t size, timed_run& t) {
  const std::size_t tasks = static_cast<std::size_t>(size);
  std::vector<std::uint64_t> a(tasks * flat_chunk);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = i;
  t = time_measured("flatloop", [&] {
    typename B::task_group g;
    for (std::size_t i = 0; i < tasks; ++i) {
      std::uint64_t* chunk = a.data() + i * flat_chunk;
      g.run([chunk] { flat_task(chunk); });
    }
    g.wait();
  });
  bool ok = true;
  std::vector<std::uint64_t> want(flat_chunk);
  for (std::size_t i = 0; i < tasks && ok; ++i) {
    for (std::size_t j = 0; j < flat_chunk; ++j) want[j] = i * flat_chunk + j;
    flat_task(want.data());
    ok = std::equal(want.begin(), want.end(), a.begin() + static_cast<std::ptrdiff_t>(i * flat_chunk));
  }
  return {ok, std::to_string(tasks) + " tasks"};
}

// ============================================================================
// ThreadSanitizer only: the join edge oneTBB does not show
// ============================================================================
#if BENCH_OVERHEAD_TSAN
// The installed libtbb is not instrumented, so TSan does not see that a task's
// last write happens before task_group::wait() returns. With profiling on, the
// engine's own join states that edge; with FORKSCALE_ENABLE=0 nothing does, and
// every result a child hands its parent (fib's x, a merge's output) is reported as
// a race. (The hand-off to the task is stated by forkscale/tbb.hpp in both builds.)
// This backend wraps another and states the edge: each task releases a per-group
// marker as it ends, and wait() acquires it.
template <class B>
struct tsan_joined {
  class task_group {
   public:
    template <class F>
    void run(F&& f, const fs::site& where = fs::site::current()) {
      g_.run(
          [marker = &marker_, fn = std::decay_t<F>(std::forward<F>(f))] {
            fn();
            __tsan_release(marker);
          },
          where);
    }
    void wait(const fs::site& where = fs::site::current()) {
      g_.wait(where);
      __tsan_acquire(&marker_);
    }

   private:
    typename B::task_group g_;
    char marker_ = 0;
  };
};
#endif

// ============================================================================
// Dispatch
// ============================================================================
template <class B>
bool dispatch(const std::string& name, std::uint64_t size, timed_run& t, outcome& o) {
  if (name == "fib")
    o = run_fib<B>(size, t);
  else if (name == "quicksort")
    o = run_quicksort<B>(size, t);
  else if (name == "matmul")
    o = run_matmul<B>(size, t);
  else if (name == "mergesort")
    o = run_mergesort<B>(size, t);
  else if (name == "nqueens")
    o = run_nqueens<B>(size, t);
  else if (name == "heat")
    o = run_heat<B>(size, t);
  else if (name == "treesum")
    o = run_treesum<B>(size, t);
  else if (name == "flatloop")
    o = run_flatloop<B>(size, t);
  else
    return false;
  return true;
}

// ============================================================================
// --micro: what one event costs, against one clock read (profiling on only)
// ============================================================================
#if FORKSCALE_ENABLE
inline std::uint64_t now_ns() noexcept { return fs::detail::steady_ticks(); }

// Best of `reps` loops of `n` calls of `body`, in ns per call.
template <class Body>
double best_of(std::uint64_t n, int reps, Body&& body) {
  double b = std::numeric_limits<double>::infinity();
  for (int r = 0; r < reps; ++r) {
    const std::uint64_t t0 = now_ns();
    for (std::uint64_t i = 0; i < n; ++i) body();
    b = std::min(b, double(now_ns() - t0));
  }
  return b / double(n);
}

struct event_ns {
  double spawn = 0, sync = 0, call = 0;
};

// The three events, timed inside one measurement (with options `o`).
event_ns time_events(const char* label, std::uint64_t n, int reps, const fs::options& o) {
  event_ns e;
  fs::measure(
      label,
      [&] {
        // One spawn: spawn point, the child run inline (its scope opens and
        // closes), and the sync that joins it.
        e.spawn = best_of(n, reps, [] {
          fs::spawn([] { compiler_barrier(); })();
          fs::sync_point sp;
        });
        // One sync with nothing to join.
        e.sync = best_of(n, reps, [] {
          fs::sync_point sp;
          compiler_barrier();
        });
        e.call = best_of(n, reps, [] {
          fs::call_site cs;
          compiler_barrier();
        });
      },
      o);
  return e;
}

// The fixed cost of profiling: the process's first measurement calibrates the
// overhead compensation; later ones do not. (The TSC's rate is measured over the
// first 20 ms of the first measurement; one that ends sooner waits out the rest
// when its report is made. The probe's body runs 25 ms, as every benchmark here
// does at least, and its time is taken out.) Returns {first, later} in seconds.
std::pair<double, double> fixed_cost() {
  double body_s = 0;
  auto t0 = std::chrono::steady_clock::now();
  fs::measure(
      "first",
      [&] {
        const auto b0 = std::chrono::steady_clock::now();
        while (seconds_since(b0) < 0.025) compiler_barrier();
        body_s = seconds_since(b0);
      },
      profile_options());
  const double first = seconds_since(t0) - body_s;
  t0 = std::chrono::steady_clock::now();
  fs::measure(
      "later", [] { compiler_barrier(); }, profile_options());
  return {first, seconds_since(t0)};
}

int run_micro(bool quick) {
  const std::uint64_t n = quick ? 20'000 : 1'000'000;
  const int reps = 5;
  const auto [first_measure_s, later_measure_s] = fixed_cost();
  const bool use_tsc = fs::detail::invariant_tsc();
  const double loop = best_of(n, reps, [] { compiler_barrier(); });
  // The clock the automatic clock reads (asked once: the question is a cpuid).
  const double clock_read = use_tsc ? best_of(n, reps, [] { keep(fs::detail::tsc_ticks()); })
                                    : best_of(n, reps, [] { keep(fs::detail::steady_ticks()); });
  // One uncontended lock and unlock of the engine's spinlock: a join takes one
  // when a child reports and one when its parent joins.
  fs::detail::spinlock lock;
  const double lock_pair = best_of(n, reps, [&lock] {
    lock.lock();
    compiler_barrier();
    lock.unlock();
  });
  // A lock-free report's unit, for comparison with the lock pair: one
  // uncontended atomic add (the work) and one compare-and-swap maximum (a path
  // length) on a line this thread owns.
  std::atomic<std::uint64_t> cell{0};
  const double atomic_add = best_of(n, reps, [&cell] { cell.fetch_add(1, std::memory_order_acq_rel); });
  std::uint64_t rising = 0;
  const double cas_max = best_of(n, reps, [&cell, &rising] {
    const std::uint64_t v = ++rising + (std::uint64_t(1) << 40);
    std::uint64_t cur = cell.load(std::memory_order_relaxed);
    while (cur < v && !cell.compare_exchange_weak(cur, v, std::memory_order_acq_rel, std::memory_order_relaxed)) {
    }
  });
  const event_ns on = time_events("micro", n, reps, profile_options());
  // The same events with site profiles off (options::site_profiles): what the
  // strand boundaries and joins cost without the per-site records.
  fs::options no_profiles = profile_options();
  no_profiles.site_profiles = false;
  const event_ns off = time_events("micro without site profiles", n, reps, no_profiles);
  auto net = [&](double v) { return std::max(0.0, v - loop); };
  std::printf("RESULT micro=1 enabled=1 n=%" PRIu64
              " reps=%d clock=%s loop_ns=%.4f clock_read_ns=%.4f lock_pair_ns=%.4f atomic_add_ns=%.4f "
              "cas_max_ns=%.4f spawn_ns=%.4f "
              "sync_ns=%.4f call_site_ns=%.4f spawn_noprof_ns=%.4f sync_noprof_ns=%.4f call_site_noprof_ns=%.4f "
              "first_measure_s=%.6f later_measure_s=%.6f diagnostics=%" PRIu64 "\n",
              n, reps, use_tsc ? "tsc" : "steady", loop, net(clock_read), net(lock_pair), net(atomic_add), net(cas_max),
              net(on.spawn), net(on.sync), net(on.call), net(off.spawn), net(off.sync), net(off.call), first_measure_s,
              later_measure_s, g_diagnostics.load());
  return g_diagnostics.load() ? 1 : 0;
}
#endif

constexpr const char* usage =
    "usage: bench_overhead_workload --bench NAME --backend tbb|serial --threads T --size N\n"
    "       bench_overhead_workload --micro [--quick]      (profiling-on build only)\n"
    "       bench_overhead_workload --info";

bool parse_u64(const char* s, std::uint64_t& out) {
  if (!s || !*s) return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (errno || *end || s[0] == '-') return false;
  out = v;
  return true;
}

// The command line.
struct arguments {
  std::string bench, backend = "serial";
  std::uint64_t threads = 1, size = 0;
  bool micro = false, quick = false, info = false;
};

// Fills `args`; false (after saying why) on a bad argument.
bool parse_arguments(int argc, char** argv, arguments& args) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--bench" && v)
      args.bench = argv[++i];
    else if (a == "--backend" && v)
      args.backend = argv[++i];
    else if (a == "--threads" && v && parse_u64(argv[++i], args.threads) && args.threads > 0)
      continue;
    else if (a == "--size" && v && parse_u64(argv[++i], args.size) && args.size > 0)
      continue;
    else if (a == "--micro")
      args.micro = true;
    else if (a == "--quick")
      args.quick = true;
    else if (a == "--info")
      args.info = true;
    else {
      std::fprintf(stderr, "bench_overhead_workload: bad argument '%s'\n%s\n", a.c_str(), usage);
      return false;
    }
  }
  return true;
}

// --info: which build this is.
int print_info() {
#if defined(BENCH_OVERHEAD_HAVE_TBB)
  const bool have_tbb = true;
  const char* tbb_version = TBB_VERSION_STRING;
#else
  const bool have_tbb = false;
  const char* tbb_version = "none";
#endif
  std::printf("RESULT info=1 enabled=%d tbb=%d tbb_version=%s\n", FORKSCALE_ENABLE, have_tbb ? 1 : 0, tbb_version);
  return 0;
}

// Runs the benchmark on its backend; -1 when it ran (`known` says whether the
// benchmark exists), else main's exit status.
int run_benchmark(const arguments& args, timed_run& t, outcome& o, bool& known) {
  if (args.backend == "serial") {
    known = dispatch<fs::serial::backend>(args.bench, args.size, t, o);
  } else if (args.backend == "tbb") {
#if defined(BENCH_OVERHEAD_HAVE_TBB)
    ::oneapi::tbb::global_control limit(::oneapi::tbb::global_control::max_allowed_parallelism,
                                        static_cast<std::size_t>(args.threads));
#if BENCH_OVERHEAD_TSAN
    known = dispatch<tsan_joined<fs::tbb::backend>>(args.bench, args.size, t, o);
#else
    known = dispatch<fs::tbb::backend>(args.bench, args.size, t, o);
#endif
#else
    std::fprintf(stderr, "bench_overhead_workload: oneTBB was not found at build time\n");
    return 2;
#endif
  } else {
    std::fprintf(stderr, "bench_overhead_workload: unknown backend '%s'\n%s\n", args.backend.c_str(), usage);
    return 2;
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  arguments args;
  if (!parse_arguments(argc, argv, args)) return 2;
  if (args.info) return print_info();
  if (args.micro) {
#if FORKSCALE_ENABLE
    return run_micro(args.quick);
#else
    std::printf("RESULT micro=1 enabled=0\n");
    return 0;
#endif
  }
  if (args.bench.empty() || args.size == 0) {
    std::fprintf(stderr, "bench_overhead_workload: --bench and --size are required\n%s\n", usage);
    return 2;
  }

  timed_run t;
  outcome o;
  bool known = false;
  const int status = run_benchmark(args, t, o, known);
  if (status >= 0) return status;
  if (!known) {
    std::fprintf(stderr, "bench_overhead_workload: unknown benchmark '%s'\n", args.bench.c_str());
    return 2;
  }
  const std::uint64_t diagnostics = g_diagnostics.load();
  std::printf("RESULT bench=%s enabled=%d backend=%s threads=%" PRIu64 " size=%" PRIu64 " seconds=%.9f spawns=%" PRIu64
              " syncs=%" PRIu64 " calls=%" PRIu64
              " profiler_bytes=%zu"
              " parallelism=%.4f diagnostics=%" PRIu64 " ok=%d input=%s\n",
              args.bench.c_str(), FORKSCALE_ENABLE, args.backend.c_str(), args.threads, args.size, t.seconds,
              t.rep.spawns(), t.rep.syncs(), t.rep.calls(), t.rep.profiler_bytes, t.rep.parallelism(), diagnostics,
              o.ok ? 1 : 0, o.what.c_str());
  std::fflush(stdout);
  if (!o.ok) {
    std::fprintf(stderr, "bench_overhead_workload: %s gave a wrong result\n", args.bench.c_str());
    return 1;
  }
  return diagnostics ? 1 : 0;
}
