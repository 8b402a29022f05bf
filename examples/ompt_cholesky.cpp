// ompt_cholesky: a tiled Cholesky factorization written in plain OpenMP — tasks
// with `depend` clauses, no forkscale annotation — profiled through OMPT
// (forkscale/ompt.hpp, docs/ompt.md). Build it with clang++ -fopenmp=libomp.
//
//   ompt_cholesky [N] [--tile B] [--threads T] [--clock auto|cost] [--out DIR]
//
// Factors an N×N symmetric positive definite matrix (default N = 512) into L·Lᵀ,
// in B×B tiles (default B = 64): for each diagonal tile k, potrf(k, k), then a
// trsm per tile below it, then for the trailing matrix a syrk per diagonal tile
// and a gemm per tile below the diagonal — every kernel an OpenMP task whose
// `depend` clauses name the tiles it reads and writes (the classic dag of
// Buttari et al., "A class of parallel tiled linear algebra algorithms", 2009).
// forkscale sees each task through OMPT and each depend edge as a join.
//
// Each kernel also charges its floating-point operations with fs::charge, so
// that under --clock cost the report is the dag's own numbers: work N³/3 flops
// and a span of the critical chain potrf → trsm → syrk → potrf → ...
//
// The result is checked: the largest |(L·Lᵀ − A)ij| must be tiny. Exit status: 0
// done; 1 wrong result, or forkscale found misuse; 2 bad command line, or the
// report cannot be written.
#include <forkscale/ompt.hpp>

#include <omp.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

namespace fs = forkscale;

namespace {

using tile = std::vector<double>;  // B×B, row-major

// A = L·Lᵀ for the diagonal tile (in place, lower triangle).
void potrf(tile& a, int b) {
  for (int j = 0; j < b; ++j) {
    for (int k = 0; k < j; ++k) a[j * b + j] -= a[j * b + k] * a[j * b + k];
    a[j * b + j] = std::sqrt(a[j * b + j]);
    for (int i = j + 1; i < b; ++i) {
      for (int k = 0; k < j; ++k) a[i * b + j] -= a[i * b + k] * a[j * b + k];
      a[i * b + j] /= a[j * b + j];
    }
  }
  fs::charge(static_cast<std::uint64_t>(b) * b * b / 3);
}

// X = X·L⁻ᵀ for a tile below the diagonal tile L.
void trsm(const tile& l, tile& x, int b) {
  for (int i = 0; i < b; ++i)
    for (int j = 0; j < b; ++j) {
      double s = x[i * b + j];
      for (int k = 0; k < j; ++k) s -= x[i * b + k] * l[j * b + k];
      x[i * b + j] = s / l[j * b + j];
    }
  fs::charge(static_cast<std::uint64_t>(b) * b * b);
}

// C -= A·Bᵀ (syrk when A is B: a diagonal tile of the trailing matrix).
void gemm(const tile& a, const tile& bt, tile& c, int b) {
  for (int i = 0; i < b; ++i)
    for (int j = 0; j < b; ++j) {
      double s = 0;
      for (int k = 0; k < b; ++k) s += a[i * b + k] * bt[j * b + k];
      c[i * b + j] -= s;
    }
  fs::charge(2 * static_cast<std::uint64_t>(b) * b * b);
}

// The tiled algorithm: plain OpenMP, one task per kernel.
void cholesky(std::vector<tile>& t, int nb, int b) {
#pragma omp parallel
#pragma omp single
  for (int k = 0; k < nb; ++k) {
    tile* kk = &t[k * nb + k];
#pragma omp task depend(inout : kk[0])
    potrf(*kk, b);
    for (int i = k + 1; i < nb; ++i) {
      tile* ik = &t[i * nb + k];
#pragma omp task depend(in : kk[0]) depend(inout : ik[0])
      trsm(*kk, *ik, b);
    }
    for (int i = k + 1; i < nb; ++i) {
      tile* ik = &t[i * nb + k];
      tile* ii = &t[i * nb + i];
#pragma omp task depend(in : ik[0]) depend(inout : ii[0])
      gemm(*ik, *ik, *ii, b);
      for (int j = k + 1; j < i; ++j) {
        tile* jk = &t[j * nb + k];
        tile* ij = &t[i * nb + j];
#pragma omp task depend(in : ik[0], jk[0]) depend(inout : ij[0])
        gemm(*ik, *jk, *ij, b);
      }
    }
  }
}

double entry(int i, int j, int n) { return i == j ? n + 1.0 : 1.0 / (1.0 + std::abs(i - j)); }

struct options {
  int n = 512, b = 64, threads = 0;
  fs::clock_kind clock = fs::clock_kind::automatic;
  std::string out;
};

options parse(int argc, char** argv) {
  options o;
  auto number = [](const std::string& s, const char* what) {
    char* end = nullptr;
    const long v = std::strtol(s.c_str(), &end, 10);
    if (s.empty() || *end || v <= 0 || v > 1 << 16)
      throw std::runtime_error(std::string(what) + " must be a positive integer (got '" + s + "')");
    return static_cast<int>(v);
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--tile" && has_value) {
      o.b = number(argv[++i], "--tile");
    } else if (a == "--threads" && has_value) {
      o.threads = number(argv[++i], "--threads");
    } else if (a == "--out" && has_value) {
      o.out = argv[++i];
    } else if (a == "--clock" && has_value) {
      const std::string c = argv[++i];
      if (c != "auto" && c != "cost") throw std::runtime_error("--clock must be auto or cost (got '" + c + "')");
      o.clock = c == "cost" ? fs::clock_kind::cost : fs::clock_kind::automatic;
    } else if (a[0] != '-' && i == 1) {
      o.n = number(a, "N");
    } else {
      throw std::runtime_error("unknown option or missing value '" + a + "'");
    }
  }
  if (o.n % o.b != 0)
    throw std::runtime_error("N (" + std::to_string(o.n) + ") must be a multiple of the tile size (" +
                             std::to_string(o.b) + ")");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  try {
    o = parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ompt_cholesky: %s\n", e.what());
    return 2;
  }
  if (o.threads > 0) omp_set_num_threads(o.threads);
  const int nb = o.n / o.b, b = o.b;
  std::vector<tile> t(static_cast<std::size_t>(nb) * nb, tile(static_cast<std::size_t>(b) * b));
  for (int i = 0; i < o.n; ++i)
    for (int j = 0; j < o.n; ++j) t[(i / b) * nb + j / b][(i % b) * b + j % b] = entry(i, j, o.n);

  fs::options opt;
  opt.clock = o.clock;
  const fs::report rep = fs::measure(
      "cholesky", [&] { cholesky(t, nb, b); }, opt);
  std::fputs(rep.to_text().c_str(), stdout);

  double worst = 0;  // |L·Lᵀ − A| over the lower triangle
  for (int i = 0; i < o.n; i += 7)
    for (int j = 0; j <= i; j += 5) {
      double s = 0;
      for (int k = 0; k <= j; ++k)
        s += t[(i / b) * nb + k / b][(i % b) * b + k % b] * t[(j / b) * nb + k / b][(j % b) * b + k % b];
      worst = std::max(worst, std::abs(s - entry(i, j, o.n)));
    }
  std::printf("max |L*L^T - A| = %.3g (%s)\n", worst, worst < 1e-8 * o.n ? "ok" : "WRONG");
  if (!o.out.empty()) {
    try {
      rep.write_json(o.out + "/ompt_cholesky.json");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ompt_cholesky: %s\n", e.what());
      return 2;
    }
  }
  if (!fs::ompt::active()) return 0;  // measured nothing: said so at start-up
  return worst < 1e-8 * o.n && rep.diagnostic_count == 0 ? 0 : 1;
}
