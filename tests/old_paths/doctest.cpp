#define DOCTEST_CONFIG_IMPLEMENT
#include <forkscale/doctest.hpp>
#include <string>
std::string old_path_doctest() { return "doctest.hpp"; }
