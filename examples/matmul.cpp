// matmul: the divide-and-conquer matrix multiplication of Cilkprof (SPAA'15)
// Fig. 8, measured by forkscale.
//
//   matmul [N] [--backend serial|threads|tbb|openmp] [--threads T] [--out DIR]
//          [--clock auto|tsc|steady|thread_cpu|cost]
//
// Computes C = A·B for N×N matrices of doubles (default N = 512, the size of
// Cilkprof's Fig. 10). mm(C, A, B) splits each matrix into four quadrants and
// makes the eight quadrant products in two phases of four: it spawns three,
// calls the fourth and syncs, then does the same for the other four (they add
// into the same quadrants of C, so the phases cannot overlap). Matrices whose
// sides are all at most COARSENING (32) are multiplied by `base`, a serial
// triple loop. N need not be a power of two: a side of s splits into s/2 and
// s - s/2.
//
// Each phase halves the problem and the two phases run one after the other, so
// the span doubles per level while the work grows eightfold: the span is
// (N/32)·32³ and the parallelism about (N/32)², 256 at N = 512 under
// --clock cost (one unit per multiply-add; Cilkprof measured 233 in ns). The
// burdened parallelism is lower (each phase has three continuation edges) but
// healthy: the base cases are large enough to pay for the spawns.
//
// Backends: 'serial' runs every spawned body inline (the serial elision);
// 'threads' deals the four products of a phase to std::threads near the top of
// the recursion, never more than --threads at once; 'tbb' (when oneTBB was found
// at build time) runs each phase as a fs::tbb::task_group; 'openmp' (when OpenMP
// was found) as OpenMP tasks in a taskgroup (example_args::fork_join). The dag is
// the same, so under --clock cost all print the same numbers.
//
// The product is checked exactly with Freivalds' test: A and B hold small
// integers, so every sum is exact, and C·r must equal A·(B·r) for random r.
//
// Exit status: 0 multiplied and reported; 1 wrong product or forkscale found
// misuse; 2 bad command line or the report files cannot be written.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <forkscale/forkscale.hpp>

#include "example_args.hpp"

namespace fs = forkscale;
using example_args::backend;

namespace {

constexpr std::size_t COARSENING = 32;

// C[m×n] += A[m×k]·B[k×n], every matrix stored row-major with row stride `dim`.
// One unit of the cost clock per multiply-add.
void base(double* C, const double* A, const double* B, std::size_t dim, std::size_t m, std::size_t n,
          std::size_t k) noexcept {
  for (std::size_t i = 0; i < m; ++i) {
    double* c = C + i * dim;
    for (std::size_t l = 0; l < k; ++l) {
      const double a = A[i * dim + l];
      const double* b = B + l * dim;
      for (std::size_t j = 0; j < n; ++j) c[j] += a * b[j];
    }
  }
  fs::charge(static_cast<std::uint64_t>(m) * n * k);
}

struct multiplier {
  backend be;
  std::size_t dim;  // the row stride of every matrix

  // C[m×n] += A[m×k]·B[k×n] (Fig. 8's mm, for any sides).
  void mm(double* C, const double* A, const double* B, std::size_t m, std::size_t n, std::size_t k,
          unsigned budget) const {
    if (m <= COARSENING && n <= COARSENING && k <= COARSENING) {
      FORKSCALE_CALL(base(C, A, B, dim, m, n, k));
      return;
    }
    const std::size_t m0 = m / 2, m1 = m - m0;
    const std::size_t n0 = n / 2, n1 = n - n0;
    const std::size_t k0 = k / 2, k1 = k - k0;
    // Quadrant (r, c) of a matrix whose top-left block has r0 rows and c0 columns.
    const auto X = [this](auto* M, std::size_t r0, std::size_t c0, int r, int c) {
      return M + (r ? r0 * dim : 0) + (c ? c0 : 0);
    };
    double* C00 = X(C, m0, n0, 0, 0);
    double* C01 = X(C, m0, n0, 0, 1);
    double* C10 = X(C, m0, n0, 1, 0);
    double* C11 = X(C, m0, n0, 1, 1);
    const double* A00 = X(A, m0, k0, 0, 0);
    const double* A01 = X(A, m0, k0, 0, 1);
    const double* A10 = X(A, m0, k0, 1, 0);
    const double* A11 = X(A, m0, k0, 1, 1);
    const double* B00 = X(B, k0, n0, 0, 0);
    const double* B01 = X(B, k0, n0, 0, 1);
    const double* B10 = X(B, k0, n0, 1, 0);
    const double* B11 = X(B, k0, n0, 1, 1);

    {  // C += A·,0 × B0,·
      example_args::fork_join fj(be, budget);
      fj.spawn([&](unsigned b) { mm(C00, A00, B00, m0, n0, k0, b); });
      fj.spawn([&](unsigned b) { mm(C01, A00, B01, m0, n1, k0, b); });
      fj.spawn([&](unsigned b) { mm(C10, A10, B00, m1, n0, k0, b); });
      fj.call([&](unsigned b) { mm(C11, A10, B01, m1, n1, k0, b); });
      fj.sync();
    }
    {  // C += A·,1 × B1,·
      example_args::fork_join fj(be, budget);
      fj.spawn([&](unsigned b) { mm(C00, A01, B10, m0, n0, k1, b); });
      fj.spawn([&](unsigned b) { mm(C01, A01, B11, m0, n1, k1, b); });
      fj.spawn([&](unsigned b) { mm(C10, A11, B10, m1, n0, k1, b); });
      fj.call([&](unsigned b) { mm(C11, A11, B11, m1, n1, k1, b); });
      fj.sync();
    }
  }
};

// y = M·x for an N×N matrix M.
std::vector<double> times(const std::vector<double>& M, const std::vector<double>& x, std::size_t N) {
  std::vector<double> y(N, 0.0);
  for (std::size_t i = 0; i < N; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < N; ++j) s += M[i * N + j] * x[j];
    y[i] = s;
  }
  return y;
}

// Freivalds' test, twice: C·r == A·(B·r) for random integer vectors r. Every
// value is a small integer, so the comparison is exact.
bool product_is_right(const std::vector<double>& A, const std::vector<double>& B, const std::vector<double>& C,
                      std::size_t N) {
  std::mt19937_64 gen(7);
  std::uniform_int_distribution<int> digit(-8, 8);
  for (int round = 0; round < 2; ++round) {
    std::vector<double> r(N);
    for (auto& x : r) x = digit(gen);
    if (times(C, r, N) != times(A, times(B, r, N), N)) return false;
  }
  return true;
}

int run(int argc, char** argv) {
  const std::string program = "matmul";
  constexpr std::uint64_t default_n = 512;
  example_args::config cfg;
  try {
    // Three N×N matrices of doubles: 1.5 GiB at the bound.
    cfg = example_args::parse(argc, argv, default_n, 8192);
  } catch (const example_args::usage_error& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return 2;
  }
  if (cfg.help) {
    std::cout << example_args::usage(program, default_n);
    return 0;
  }

  const std::size_t N = static_cast<std::size_t>(cfg.n);
  std::vector<double> A, B, C;
  try {
    A.resize(N * N);
    B.resize(N * N);
    C.assign(N * N, 0.0);
  } catch (const std::exception&) {
    std::cerr << program << ": cannot allocate three " << N << "x" << N << " matrices\n";
    return 1;
  }
  std::mt19937_64 gen(42);
  std::uniform_int_distribution<int> digit(-8, 8);
  for (auto& x : A) x = digit(gen);
  for (auto& x : B) x = digit(gen);

  const unsigned budget = cfg.be == backend::threads ? cfg.threads : 1;
  const multiplier mult{cfg.be, N};
  fs::options opt;
  opt.clock = cfg.clock;
  opt.backend = example_args::library_of(cfg.be);  // its calibrated burden, if any

  std::cout << "matmul: " << N << "x" << N << " doubles, backend " << example_args::to_string(cfg.be);
  if (cfg.be == backend::threads) std::cout << " (at most " << budget << " threads at once)";
  std::cout << example_args::runtime_note(cfg) << ", COARSENING " << COARSENING << "\n\n";

  fs::report rep;
  example_args::run_on_backend(cfg, [&] {
    rep = fs::measure(
        "matmul", [&] { mult.mm(C.data(), A.data(), B.data(), N, N, N, budget); }, opt);
  });

  if (!product_is_right(A, B, C, N)) {
    std::cerr << program << ": the product is wrong\n";
    return 1;
  }

  return example_args::finish(rep, cfg, "matmul", program);
}

}  // namespace

int main(int argc, char** argv) { return example_args::guarded_main("matmul", run, argc, argv); }
