#include <forkscale/plot.hpp>
#include <string>
std::string old_path_plot() { return "plot.hpp"; }
