// ompt_workloads_cholesky.hpp: the tiled Cholesky of the OMPT overhead bench
// (examples/ompt_cholesky.cpp's algorithm: a task per kernel, `depend` on the
// tiles), plain or annotated with the adapter's dependences. Included once by
// ompt_workloads.cpp.
#pragma once

namespace {

using tile = std::vector<double>;

void potrf(tile& a, int b) {
  for (int j = 0; j < b; ++j) {
    for (int k = 0; k < j; ++k) a[j * b + j] -= a[j * b + k] * a[j * b + k];
    a[j * b + j] = std::sqrt(a[j * b + j]);
    for (int i = j + 1; i < b; ++i) {
      for (int k = 0; k < j; ++k) a[i * b + j] -= a[i * b + k] * a[j * b + k];
      a[i * b + j] /= a[j * b + j];
    }
  }
}
void trsm(const tile& l, tile& x, int b) {
  for (int i = 0; i < b; ++i)
    for (int j = 0; j < b; ++j) {
      double s = x[i * b + j];
      for (int k = 0; k < j; ++k) s -= x[i * b + k] * l[j * b + k];
      x[i * b + j] = s / l[j * b + j];
    }
}
void gemm(const tile& a, const tile& bt, tile& c, int b) {
  for (int i = 0; i < b; ++i)
    for (int j = 0; j < b; ++j) {
      double s = 0;
      for (int k = 0; k < b; ++k) s += a[i * b + k] * bt[j * b + k];
      c[i * b + j] -= s;
    }
}

void cholesky_tasks(std::vector<tile>& t, int nb, int b) {
#if defined(BENCH_OMPT_ANNOTATED)
  fs::omp::dependences deps;
  for (int k = 0; k < nb; ++k) {
    tile* kk = &t[k * nb + k];
    {
      auto tk = fs::omp::spawn_point(deps, {fs::omp::inout(kk)});
#pragma omp task firstprivate(tk) depend(inout : kk[0])
      {
        fs::omp::task_scope ts(tk);
        potrf(*kk, b);
      }
    }
    for (int i = k + 1; i < nb; ++i) {
      tile* ik = &t[i * nb + k];
      auto tk = fs::omp::spawn_point(deps, {fs::omp::in(kk), fs::omp::inout(ik)});
#pragma omp task firstprivate(tk) depend(in : kk[0]) depend(inout : ik[0])
      {
        fs::omp::task_scope ts(tk);
        trsm(*kk, *ik, b);
      }
    }
    for (int i = k + 1; i < nb; ++i) {
      tile* ik = &t[i * nb + k];
      for (int j = k + 1; j <= i; ++j) {
        tile* jk = &t[j * nb + k];
        tile* ij = &t[i * nb + j];
        auto tk = fs::omp::spawn_point(deps, {fs::omp::in(ik), fs::omp::in(jk), fs::omp::inout(ij)});
#pragma omp task firstprivate(tk) depend(in : ik[0], jk[0]) depend(inout : ij[0])
        {
          fs::omp::task_scope ts(tk);
          gemm(*ik, *jk, *ij, b);
        }
      }
    }
  }
#else
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
      for (int j = k + 1; j <= i; ++j) {
        tile* jk = &t[j * nb + k];
        tile* ij = &t[i * nb + j];
#pragma omp task depend(in : ik[0], jk[0]) depend(inout : ij[0])
        gemm(*ik, *jk, *ij, b);
      }
    }
  }
#endif
}

double spd_entry(int i, int j, int n) { return i == j ? n + 1.0 : 1.0 / (1.0 + std::abs(i - j)); }

bool run_cholesky(int n, int b) {
  const int nb = n / b;
  std::vector<tile> t(static_cast<std::size_t>(nb) * nb, tile(static_cast<std::size_t>(b) * b));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) t[(i / b) * nb + j / b][(i % b) * b + j % b] = spd_entry(i, j, n);
#if defined(BENCH_OMPT_ANNOTATED)
  fs::omp::team team;
#pragma omp parallel shared(t, team)
#pragma omp single
  {
    fs::omp::task_scope ts(team);
    cholesky_tasks(t, nb, b);
  }
#else
#pragma omp parallel shared(t)
#pragma omp single
  cholesky_tasks(t, nb, b);
#endif
  const int i = n - 1, j = n / 2;  // one entry of L·Lᵀ against A
  double s = 0;
  for (int k = 0; k <= j; ++k)
    s += t[(i / b) * nb + k / b][(i % b) * b + k % b] * t[(j / b) * nb + k / b][(j % b) * b + k % b];
  return std::abs(s - spd_entry(i, j, n)) < 1e-8 * n;
}

}  // namespace
