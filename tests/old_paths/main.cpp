// Runs one function per short include path (forkscale/tbb.hpp, ...); each
// returns its header's name when the header compiled and what it provides works.
#include <cstdio>
#include <string>
#include <vector>

std::string old_path_std_thread();
std::string old_path_serial();
std::string old_path_split_tree();
std::string old_path_study();
std::string old_path_plot();
std::string old_path_html();
std::string old_path_report_io();
std::string old_path_assertions();
std::string old_path_gtest();
std::string old_path_tbb();
std::string old_path_openmp();
std::string old_path_benchmark();
std::string old_path_doctest();

int main() {
  std::vector<std::string> got = {old_path_std_thread(), old_path_serial(),    old_path_study(),      old_path_plot(),
                                  old_path_html(),       old_path_report_io(), old_path_assertions(), old_path_gtest()};
#ifndef FORKSCALE_SHORT_PATHS_SINGLE  // split_tree.hpp is a part of the adapters, with no single header
  got.push_back(old_path_split_tree());
#endif
#ifdef FORKSCALE_OLD_PATHS_TBB
  got.push_back(old_path_tbb());
#else
  std::puts("oneTBB not found: forkscale/tbb.hpp not compiled");
#endif
#ifdef FORKSCALE_OLD_PATHS_OPENMP
  got.push_back(old_path_openmp());
#else
  std::puts("OpenMP not found (or TSan build): forkscale/openmp.hpp not compiled");
#endif
#ifdef FORKSCALE_OLD_PATHS_BENCHMARK
  got.push_back(old_path_benchmark());
#else
  std::puts("Google Benchmark not found: forkscale/benchmark.hpp not compiled");
#endif
#ifdef FORKSCALE_OLD_PATHS_DOCTEST
  got.push_back(old_path_doctest());
#else
  std::puts("doctest not found: forkscale/doctest.hpp not compiled");
#endif
  int failed = 0;
  for (const std::string& name : got) {
    if (name.empty())
      ++failed;
    else
      std::printf("ok forkscale/%s\n", name.c_str());
  }
  return failed == 0 ? 0 : 1;
}
