#include <forkscale/tbb.hpp>
#include <string>
std::string old_path_tbb() {
  int a = 0, b = 0;  // one variable per task: the two may run at once
  forkscale::tbb::parallel_invoke([&] { a = 1; }, [&] { b = 1; });
  return a + b == 2 ? "tbb.hpp" : "";
}
