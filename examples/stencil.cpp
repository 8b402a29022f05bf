// stencil: the 3D stencil of Cilkview (SPAA'10) §5, measured by forkscale, with
// the parallel loop in the innermost or the outermost dimension.
//
//   stencil [N] [--loop inner|outer] [--steps S] [--grain G]
//           [--backend serial|threads|tbb|openmp] [--threads T] [--out DIR]
//           [--clock auto|tsc|steady|thread_cpu|cost]
//
// Runs S (default 4) time steps of the heat equation on an N×N×N grid (default
// N = 128) with a 7-point stencil: each point becomes itself plus 0.1 times the
// sum of its six neighbours' differences from it, the grid's faces held at zero.
// (Cilkview's program solves the wave equation with a 25-point stencil; the
// lesson is about where the parallel loop goes, which is the same here.)
//
// The parallel loop is cilk_for's: a divide-and-conquer split of the iterations,
// spawning the first half and calling the second, down to G iterations run
// serially. G defaults to cilk_for's rule, min(2048, iterations / (8·P)),
// taken with P = 8 (the machine of Cilkview §5) so that the dag, and every
// number under --clock cost, does not depend on the machine or on --threads.
//
//   --loop inner   the loop over z is parallel: one tiny parallel loop per
//                  (step, x, y), N iterations of one point each. Every spawn
//                  buys a strand of a few points, far less than the 15,000
//                  cycles of burden a steal costs: burdened parallelism < 1,
//                  a parallel run would be slower than the serial one
//                  (Cilkview Fig. 8: parallelism 119, burdened 0.87).
//   --loop outer   the loop over x is parallel (Cilkview Fig. 9): one loop per
//                  step whose iterations are whole N×N planes; burdened
//                  parallelism well above 10 (at N = 128: about 17 under
//                  --clock cost, more under the TSC).
//
// Under --clock cost every point update charges one unit, and a continuation
// edge carries a burden of 15,000 units, so the finding holds exactly.
//
// Backends: 'serial' runs every spawned body inline (the serial elision);
// 'threads' runs the halves of each loop's top splits on std::threads, never
// more than --threads at once (example_args::fork_join) — with --loop inner
// that is a thread per loop, which is the point. 'tbb' (when oneTBB was found at
// build time) runs every split as a fs::tbb::task_group, 'openmp' (when OpenMP
// was found) as OpenMP tasks in a taskgroup (example_args::fork_join). All
// backends record the same dag, so under --clock cost all print the same
// numbers. (The loop is this cilk_for, not oneTBB's parallel_for or OpenMP's
// parallel for: those split differently — oneTBB spawns the second half,
// OpenMP's loop is a flat fork — and so give a different, if similar, dag.)
//
// The result is checked against a plain serial run of the same steps: every
// point must be bit-for-bit equal.
//
// Exit status: 0 computed and reported; 1 wrong result or forkscale found misuse;
// 2 bad command line or the report files cannot be written.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <forkscale/forkscale.hpp>

#include "example_args.hpp"

namespace fs = forkscale;
using example_args::backend;

namespace {

constexpr double ALPHA = 0.1;  // stable for ALPHA < 1/6

// An N×N×N grid with a one-point border of zeros on every face.
struct grid {
  std::size_t n = 0;      // interior points per side
  std::size_t side = 0;   // n + 2
  std::vector<double> v;  // side³ values, z fastest

  explicit grid(std::size_t n_) : n(n_), side(n_ + 2), v(side * side * side, 0.0) {}
  std::size_t at(std::size_t x, std::size_t y, std::size_t z) const noexcept { return (x * side + y) * side + z; }
};

// Updates the points (x, y, z0..z1) of `next` from `cur` (interior coordinates
// start at 1). One unit of the cost clock per point.
void update_row(const grid& cur, grid& next, std::size_t x, std::size_t y, std::size_t z0, std::size_t z1) noexcept {
  const double* c = cur.v.data();
  double* o = next.v.data();
  const std::size_t sx = cur.side * cur.side, sy = cur.side;
  for (std::size_t z = z0; z < z1; ++z) {
    const std::size_t i = cur.at(x, y, z);
    const double centre = c[i];
    o[i] = centre + ALPHA * (c[i - sx] + c[i + sx] + c[i - sy] + c[i + sy] + c[i - 1] + c[i + 1] - 6.0 * centre);
  }
  fs::charge(z1 - z0);
}

// cilk_for over [lo, hi): split in halves, spawn the first, call the second,
// run `grain` iterations or fewer serially with body(lo, hi).
template <class Body>
void parallel_for(std::size_t lo, std::size_t hi, std::size_t grain, const Body& body, backend be, unsigned budget) {
  if (hi - lo <= grain) {
    body(lo, hi);
    return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  example_args::fork_join fj(be, budget);
  fj.spawn([&](unsigned b) { parallel_for(lo, mid, grain, body, be, b); });
  fj.call([&](unsigned b) { parallel_for(mid, hi, grain, body, be, b); });
  fj.sync();
}

enum class loop_kind { inner, outer };

struct stepper {
  loop_kind loop;
  std::size_t grain;
  backend be;
  unsigned budget;

  void step(const grid& cur, grid& next) const {
    const std::size_t n = cur.n;
    if (loop == loop_kind::outer) {
      // Fig. 9: cilk_for over x; every iteration is a whole plane.
      parallel_for(
          1, n + 1, grain,
          [&](std::size_t x0, std::size_t x1) {
            for (std::size_t x = x0; x < x1; ++x)
              for (std::size_t y = 1; y <= n; ++y) update_row(cur, next, x, y, 1, n + 1);
          },
          be, budget);
    } else {
      // Fig. 7: cilk_for over z, inside the serial loops over x and y.
      for (std::size_t x = 1; x <= n; ++x)
        for (std::size_t y = 1; y <= n; ++y)
          parallel_for(
              1, n + 1, grain, [&](std::size_t z0, std::size_t z1) { update_row(cur, next, x, y, z0, z1); }, be,
              budget);
    }
  }
};

void initial(grid& g) {
  std::mt19937_64 gen(42);
  std::uniform_real_distribution<double> heat(0.0, 100.0);
  for (std::size_t x = 1; x <= g.n; ++x)
    for (std::size_t y = 1; y <= g.n; ++y)
      for (std::size_t z = 1; z <= g.n; ++z) g.v[g.at(x, y, z)] = heat(gen);
}

// The cilk_for grain for `iterations` on P = 8 workers.
std::size_t default_grain(std::size_t iterations) {
  const std::size_t g = iterations / 64;
  return std::max<std::size_t>(1, std::min<std::size_t>(2048, g));
}

// The command line: example_args' options, and the stencil's own.
struct settings {
  loop_kind loop = loop_kind::outer;
  std::uint64_t steps = 4;
  std::uint64_t grain = 0;  // 0: cilk_for's rule
  example_args::config cfg;
};

// --loop, --steps and --grain, which set `set`.
example_args::extra_options stencil_options(settings& set) {
  return {
      {"--loop", "inner|outer",
       "which loop is the parallel one: inner (z, Cilkview Fig. 7) or\n"
       "             outer (x, Fig. 9; default)",
       [&set](const std::string& v) {
         if (v == "inner")
           set.loop = loop_kind::inner;
         else if (v == "outer")
           set.loop = loop_kind::outer;
         else
           throw example_args::usage_error("unknown loop '" + v + "' (expected inner or outer)");
       }},
      {"--steps", "S", "time steps (default 4)",
       [&set](const std::string& v) { set.steps = example_args::parse_positive(v, 1'000'000, "--steps"); }},
      {"--grain", "G",
       "iterations a parallel loop runs serially (default: cilk_for's\n"
       "             min(2048, N / 64), i.e. for 8 workers)",
       [&set](const std::string& v) { set.grain = example_args::parse_positive(v, 1u << 30, "--grain"); }},
  };
}

// The two grids the measured run steps between and the two of the plain serial
// run, all N³ with the same initial values; false when they cannot be allocated.
bool make_grids(std::size_t n, std::vector<grid>& grids, grid (&reference)[2]) {
  try {
    grids.emplace_back(n);
    grids.emplace_back(n);
    reference[0] = grid(n);
    reference[1] = grid(n);
  } catch (const std::exception&) {
    return false;
  }
  initial(grids[0]);
  reference[0].v = grids[0].v;
  return true;
}

void print_setup(const settings& set, std::size_t n, unsigned budget) {
  const char* loop_name = set.loop == loop_kind::inner ? "inner" : "outer";
  std::cout << "stencil: " << n << "^3 points, " << set.steps << " steps, parallel loop " << loop_name
            << (set.loop == loop_kind::inner ? " (z" : " (x") << ", " << n << " iterations, grain " << set.grain
            << "), backend " << example_args::to_string(set.cfg.be);
  if (set.cfg.be == backend::threads) std::cout << " (at most " << budget << " threads at once)";
  std::cout << example_args::runtime_note(set.cfg) << "\n\n";
}

int run(int argc, char** argv) {
  const std::string program = "stencil";
  constexpr std::uint64_t default_n = 128;
  settings set;
  const example_args::extra_options extra = stencil_options(set);
  try {
    // Two (N+2)³ grids of doubles: 16 GiB at the bound.
    set.cfg = example_args::parse(argc, argv, default_n, 1024, extra);
  } catch (const example_args::usage_error& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return 2;
  }
  const example_args::config& cfg = set.cfg;
  if (cfg.help) {
    std::cout << example_args::usage(program, default_n, extra);
    return 0;
  }

  const std::size_t n = static_cast<std::size_t>(cfg.n);
  if (set.grain == 0) set.grain = default_grain(n);
  const std::string label = std::string("stencil-") + (set.loop == loop_kind::inner ? "inner" : "outer");

  std::vector<grid> grids;
  grid reference[2] = {grid(0), grid(0)};
  if (!make_grids(n, grids, reference)) {
    std::cerr << program << ": cannot allocate four grids of " << n + 2 << "^3 doubles\n";
    return 1;
  }

  const unsigned budget = cfg.be == backend::threads ? cfg.threads : 1;
  const stepper s{set.loop, static_cast<std::size_t>(set.grain), cfg.be, budget};
  fs::options opt;
  opt.clock = cfg.clock;
  opt.backend = example_args::library_of(cfg.be);  // its calibrated burden, if any
  print_setup(set, n, budget);

  const std::uint64_t steps = set.steps;
  fs::report rep;
  example_args::run_on_backend(cfg, [&] {
    rep = fs::measure(
        label,
        [&] {
          for (std::uint64_t t = 0; t < steps; ++t) s.step(grids[t % 2], grids[(t + 1) % 2]);
        },
        opt);
  });

  // The same steps, plain and serial.
  const stepper plain{loop_kind::outer, n, backend::serial, 1};
  for (std::uint64_t t = 0; t < steps; ++t) plain.step(reference[t % 2], reference[(t + 1) % 2]);
  if (grids[steps % 2].v != reference[steps % 2].v) {
    std::cerr << program << ": the result differs from a serial run of the same steps\n";
    return 1;
  }

  return example_args::finish(rep, cfg, label, program);
}

}  // namespace

int main(int argc, char** argv) { return example_args::guarded_main("stencil", run, argc, argv); }
