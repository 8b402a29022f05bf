// ompt_stencil: a 2D heat stencil written as plain `#pragma omp parallel for`
// loops — no forkscale annotation — profiled through OMPT (forkscale/ompt.hpp,
// docs/ompt.md). Build it with clang++ -fopenmp=libomp.
//
//   ompt_stencil [N] [--steps S] [--schedule static|dynamic|guided] [--chunk C]
//                [--threads T] [--clock auto|cost]
//
// S time steps (default 8) on an N×N grid (default N = 1024): each step is one
// `parallel for` over the rows, each point becoming the mean of itself and its
// four neighbours, the border held at zero. forkscale sees each step's region,
// its threads' implicit tasks, and the loop's chunks: a statically scheduled
// thread's share is one strand (the compiled code walks it without asking the
// runtime), a dynamic or guided chunk is one strand each (forkscale sees every
// __kmpc_dispatch_next). So the report says what the schedule leaves to run in
// parallel: under --clock cost (one unit per point) the parallelism of
// schedule(static) is the team's size, that of schedule(dynamic, C) is about
// N / C.
//
// The result is checked against a serial run: every point must be equal. Exit
// status: 0 done; 1 wrong result, or forkscale found misuse; 2 bad command line.
#include <forkscale/ompt.hpp>

#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace fs = forkscale;

namespace {

enum class schedule { static_, dynamic, guided };

struct options {
  int n = 1024, steps = 8, chunk = 1, threads = 0;
  schedule kind = schedule::static_;
  fs::clock_kind clock = fs::clock_kind::automatic;
};

void row(const std::vector<double>& in, std::vector<double>& out, int n, int i) {
  for (int j = 1; j + 1 < n; ++j) {
    const std::size_t k = static_cast<std::size_t>(i) * n + j;
    out[k] = (in[k] + in[k - 1] + in[k + 1] + in[k - n] + in[k + n]) / 5;
  }
  fs::charge(static_cast<std::uint64_t>(n - 2));
}

// One time step: plain OpenMP.
void step(const std::vector<double>& in, std::vector<double>& out, int n, const options& o) {
  const int c = o.chunk;
  switch (o.kind) {
    case schedule::static_:
#pragma omp parallel for schedule(static)
      for (int i = 1; i < n - 1; ++i) row(in, out, n, i);
      break;
    case schedule::dynamic:
#pragma omp parallel for schedule(dynamic, c)
      for (int i = 1; i < n - 1; ++i) row(in, out, n, i);
      break;
    case schedule::guided:
#pragma omp parallel for schedule(guided, c)
      for (int i = 1; i < n - 1; ++i) row(in, out, n, i);
      break;
  }
}

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
    if (a == "--steps" && has_value) {
      o.steps = number(argv[++i], "--steps");
    } else if (a == "--chunk" && has_value) {
      o.chunk = number(argv[++i], "--chunk");
    } else if (a == "--threads" && has_value) {
      o.threads = number(argv[++i], "--threads");
    } else if (a == "--schedule" && has_value) {
      const std::string k = argv[++i];
      if (k == "static")
        o.kind = schedule::static_;
      else if (k == "dynamic")
        o.kind = schedule::dynamic;
      else if (k == "guided")
        o.kind = schedule::guided;
      else
        throw std::runtime_error("--schedule must be static, dynamic or guided (got '" + k + "')");
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
  if (o.n < 3) throw std::runtime_error("N must be at least 3");
  return o;
}

std::vector<double> initial(int n) {
  std::vector<double> g(static_cast<std::size_t>(n) * n, 0.0);
  for (int i = 1; i + 1 < n; ++i)
    for (int j = 1; j + 1 < n; ++j) g[static_cast<std::size_t>(i) * n + j] = (i * 31 + j * 17) % 97;
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  try {
    o = parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ompt_stencil: %s\n", e.what());
    return 2;
  }
  if (o.threads > 0) omp_set_num_threads(o.threads);
  std::vector<double> a = initial(o.n), b = a;
  fs::options opt;
  opt.clock = o.clock;
  const fs::report rep = fs::measure(
      "stencil",
      [&] {
        for (int s = 0; s < o.steps; ++s) {
          step(a, b, o.n, o);
          std::swap(a, b);
        }
      },
      opt);
  std::fputs(rep.to_text().c_str(), stdout);

  std::vector<double> x = initial(o.n), y = x;  // the same steps, serially
  for (int s = 0; s < o.steps; ++s) {
    for (int i = 1; i + 1 < o.n; ++i) row(x, y, o.n, i);
    std::swap(x, y);
  }
  const bool same = x == a;
  std::printf("result %s the serial run's\n", same ? "equals" : "DIFFERS FROM");
  if (!fs::ompt::active()) return same ? 0 : 1;  // measured nothing: said so at start-up
  return same && rep.diagnostic_count == 0 ? 0 : 1;
}
