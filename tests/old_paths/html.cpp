#include <forkscale/html.hpp>
#include <string>
std::string old_path_html() { return "html.hpp"; }
