#include <forkscale/assertions.hpp>
#include <string>
std::string old_path_assertions() { return "assertions.hpp"; }
