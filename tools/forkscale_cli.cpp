// forkscale-report: turns a saved forkscale JSON report or scaling study into
// text, CSV, JSON, SVG, gnuplot or HTML, and compares two reports. See
// forkscale_cli.hpp for the command line and docs/study.md for the outputs.
#include <iostream>
#include <string>
#include <vector>

#include "forkscale_cli.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return forkscale_cli::run(args, std::cout, std::cerr);
}
