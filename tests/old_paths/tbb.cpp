#include <forkscale/tbb.hpp>
#include <string>
std::string old_path_tbb() {
  int x = 0;
  forkscale::tbb::parallel_invoke([&] { ++x; }, [&] { ++x; });
  return x == 2 ? "tbb.hpp" : "";
}
