#include <forkscale/gtest.hpp>
#include <string>
std::string old_path_gtest() { return "gtest.hpp"; }
