// tests/support/views_program.hpp: the program of test_views_header_only.cpp
// and test_views_included.cpp: a recorded fork-join run on two threads, an
// environment variable set for a scope, a scratch folder.
#pragma once
#include <forkscale/forkscale.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace views_program {

inline long fib(int n) {
  forkscale::charge(1);
  if (n < 2) return n;
  long x = 0;
  forkscale::spawn([&] { x = fib(n - 1); })();
  const long y = fib(n - 2);
  forkscale::sync_point sp;
  return x + y;
}

// A recorded measurement with a thread spawned and joined, so the record has
// two threads and idle time; diagnostics go to `said` when given.
inline forkscale::report measure_recorded(std::vector<forkscale::diagnostic>* said = nullptr) {
  forkscale::options o;
  o.record = true;
  if (said) o.on_diagnostic = [said](const forkscale::diagnostic& d) { said->push_back(d); };
  return forkscale::measure(
      "views",
      [] {
        forkscale::join_handle h;
        long a = 0;
        std::thread t(forkscale::spawn(h, [&a] { a = fib(12); }));
        const long b = fib(10);
        forkscale::sync_point sp(h);
        t.join();
        if (a + b < 0) std::abort();
      },
      o);
}

// An environment variable set for the life of the object.
struct variable {
  std::string name;
  variable(const char* n, const std::string& value) : name(n) { ::setenv(n, value.c_str(), 1); }
  ~variable() { ::unsetenv(name.c_str()); }
  variable(const variable&) = delete;
  variable& operator=(const variable&) = delete;
};

inline std::filesystem::path scratch(const std::string& name) {
  const std::filesystem::path d = std::filesystem::temp_directory_path() / ("forkscale-" + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace views_program
