// treesum: the tree sum of TaskProf (FSE'17) Fig. 2, measured by forkscale.
//
//   treesum [N] [--backend serial|threads|tbb|openmp] [--threads T] [--out DIR]
//           [--clock auto|tsc|steady|thread_cpu|cost]
//
// main builds a binary tree of N nodes (default 1,000,000) with create_tree —
// serially, one node at a time — then spawns compute_tree_sum on the root and
// syncs. compute_tree_sum spawns itself on each child and syncs; a subtree of at
// most BASE (1,024) nodes is summed serially by serial_tree_sum. Every node
// holds a value, the size of its subtree and its two children.
//
// The sum is as parallel as can be (about N / BASE-sized leaves at depth log N),
// but the build is serial and does as much work as the sum or more: the whole
// program's parallelism stays below 2 however many cores there are. That is
// what TaskProf's profile pointed at and what its causal profile quantified
// (make create_tree faster, and the program's parallelism grows). The report's
// region rows, "treesum/create_tree" and "treesum/tree_sum", show the two
// phases side by side: parallelism 1 for the build; for the sum about 1,000
// under --clock cost, and tens under the TSC, where each leaf's few
// microseconds of pointer chasing stand against the spawn overhead.
//
// Under --clock cost creating a node and adding a node's value to the sum each
// charge one unit: the work is 2N, the span a little over N.
//
// Backends: 'serial' runs every spawned body inline (the serial elision);
// 'threads' runs the two children of the top nodes on std::threads, never more
// than --threads at once; 'tbb' (when oneTBB was found at build time) runs every
// node's two children as a fs::tbb::task_group, 'openmp' (when OpenMP was found)
// as two OpenMP tasks in a taskgroup (example_args::fork_join). The dag is the
// same, so under --clock cost all print the same numbers.
//
// Exit status: 0 summed and reported; 1 wrong sum or forkscale found misuse;
// 2 bad command line or the report files cannot be written.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iostream>
#include <random>
#include <string>

#include <forkscale/forkscale.hpp>

#include "example_args.hpp"

namespace fs = forkscale;
using example_args::backend;

namespace {

constexpr std::uint64_t BASE = 1024;

struct node {
  std::int64_t value = 0;
  std::uint64_t num_nodes = 0;  // in the subtree rooted here
  node* left = nullptr;
  node* right = nullptr;
};

// A balanced tree of n nodes, values from `gen`; adds them to `total`. One unit
// of the cost clock per node.
node* create_tree(std::uint64_t n, std::mt19937_64& gen, std::int64_t& total) {
  if (n == 0) return nullptr;
  node* t = new node;
  t->value = static_cast<std::int64_t>(gen() % 1000);
  t->num_nodes = n;
  total += t->value;
  fs::charge(1);
  const std::uint64_t left = (n - 1) / 2;
  t->left = create_tree(left, gen, total);
  t->right = create_tree(n - 1 - left, gen, total);
  return t;
}

void delete_tree(node* t) noexcept {
  while (t) {  // recursion on the left, a loop down the right
    delete_tree(t->left);
    node* right = t->right;
    delete t;
    t = right;
  }
}

// One unit of the cost clock per node.
std::int64_t serial_tree_sum(const node* t) noexcept {
  std::int64_t sum = 0;
  std::uint64_t visited = 0;
  // An explicit stack: subtrees of up to BASE nodes are at most 11 levels deep.
  const node* stack[64];
  int top = 0;
  if (t) stack[top++] = t;
  while (top > 0) {
    const node* x = stack[--top];
    sum += x->value;
    ++visited;
    if (x->right) stack[top++] = x->right;
    if (x->left) stack[top++] = x->left;
  }
  fs::charge(visited);
  return sum;
}

struct summer {
  backend be;

  // Fig. 2's compute_tree_sum (which leaves out the value of an inner node; this
  // one adds it).
  void compute_tree_sum(const node* n, std::int64_t* sum, unsigned budget) const {
    if (n->num_nodes <= BASE) {
      *sum = FORKSCALE_CALL(serial_tree_sum(n));
      return;
    }
    std::int64_t left_sum = 0, right_sum = 0;
    example_args::fork_join fj(be, budget);
    if (n->left) fj.spawn([&](unsigned b) { compute_tree_sum(n->left, &left_sum, b); });
    if (n->right) fj.spawn([&](unsigned b) { compute_tree_sum(n->right, &right_sum, b); });
    fj.sync();
    *sum = left_sum + right_sum + n->value;
    fs::charge(1);
  }
};

int run(int argc, char** argv) {
  const std::string program = "treesum";
  constexpr std::uint64_t default_n = 1'000'000;
  example_args::config cfg;
  try {
    // 32 bytes a node: 3.2 GB at the bound.
    cfg = example_args::parse(argc, argv, default_n, 100'000'000);
  } catch (const example_args::usage_error& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return 2;
  }
  if (cfg.help) {
    std::cout << example_args::usage(program, default_n);
    return 0;
  }

  const unsigned budget = cfg.be == backend::threads ? cfg.threads : 1;
  const summer s{cfg.be};
  fs::options opt;
  opt.clock = cfg.clock;
  opt.backend = example_args::library_of(cfg.be);  // its calibrated burden, if any

  std::cout << "treesum: " << cfg.n << " nodes, backend " << example_args::to_string(cfg.be);
  if (cfg.be == backend::threads) std::cout << " (at most " << budget << " threads at once)";
  std::cout << example_args::runtime_note(cfg) << ", BASE " << BASE << "\n\n";

  node* root = nullptr;
  std::int64_t expected = 0, sum = 0;
  std::mt19937_64 gen(42);
  fs::report rep;
  try {
    example_args::run_on_backend(cfg, [&] {
      rep = fs::measure(
          "treesum",
          [&] {
            {
              fs::region r("create_tree");
              fs::what_if_region wi("create_tree");  // the report's what-if table
              root = FORKSCALE_CALL(create_tree(cfg.n, gen, expected));
            }
            fs::region r("tree_sum");
            example_args::fork_join fj(cfg.be, budget);
            fj.spawn([&](unsigned b) { s.compute_tree_sum(root, &sum, b); });
            fj.sync();
          },
          opt);
    });
  } catch (const std::bad_alloc&) {
    std::cerr << program << ": cannot allocate " << cfg.n << " tree nodes\n";
    return 1;
  }
  delete_tree(root);

  if (sum != expected) {
    std::cerr << program << ": the tree sums to " << sum << ", expected " << expected << "\n";
    return 1;
  }
  std::cout << "sum = " << sum << "\n\n";
  return example_args::finish(rep, cfg, "treesum", program);
}

}  // namespace

int main(int argc, char** argv) { return example_args::guarded_main("treesum", run, argc, argv); }
