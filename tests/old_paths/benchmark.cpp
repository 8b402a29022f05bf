#include <forkscale/benchmark.hpp>
#include <string>
std::string old_path_benchmark() { return "benchmark.hpp"; }
