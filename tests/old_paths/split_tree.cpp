#include <forkscale/split_tree.hpp>
#include <string>
std::string old_path_split_tree() { return "split_tree.hpp"; }
