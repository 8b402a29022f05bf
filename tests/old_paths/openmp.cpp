#include <forkscale/openmp.hpp>
#include <string>
std::string old_path_openmp() { return "openmp.hpp"; }
