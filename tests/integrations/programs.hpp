// programs.hpp: small fork-join programs with known numbers under the cost clock,
// shared by the integration tests (Google Benchmark, GoogleTest, doctest).
#pragma once
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <forkscale/forkscale.hpp>

namespace integration_programs {

namespace fs = forkscale;

inline fs::options cost_clock(double burden = -1) {
  fs::options opt;
  opt.clock = fs::clock_kind::cost;
  opt.burden = burden;
  return opt;
}

// The root spawns `k` children of `cost` units each (run inline: the serial
// elision) and joins them with one sync. Work k·cost, span cost, parallelism k;
// with burden b, the burdened span is the longer of the path to the last child,
// (k−1)·b + cost, and the path along every continuation to the sync, k·b.
inline void fan_out_body(unsigned k, std::uint64_t cost) {
  for (unsigned i = 0; i < k; ++i) fs::spawn([cost] { fs::charge(cost); })();
  fs::sync_point sp;
}

inline fs::report fan_out(unsigned k, std::uint64_t cost, double burden = -1, const std::string& label = "fan_out") {
  return fs::measure(
      label, [&] { fan_out_body(k, cost); }, cost_clock(burden));
}

// The same dag with every child on its own std::thread, joined one at a time.
inline void fan_out_threads_body(unsigned k, std::uint64_t cost) {
  std::vector<fs::join_handle> handles(k);
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < k; ++i) threads.emplace_back(fs::spawn(handles[i], [cost] { fs::charge(cost); }));
  for (unsigned i = 0; i < k; ++i) {
    fs::sync_point sp(handles[i]);
    threads[i].join();
  }
}

// A serial stretch of `serial` units followed by a fan-out, inside regions
// "serial" and "parallel": the root's span is serial + cost.
inline fs::report phases(std::uint64_t serial, unsigned k, std::uint64_t cost, const std::string& label = "phases") {
  return fs::measure(
      label,
      [&] {
        {
          fs::region r("serial");
          fs::charge(serial);
        }
        fs::region r("parallel");
        fan_out_body(k, cost);
      },
      cost_clock());
}

// A run with one misuse: a spawned task that never runs.
inline fs::report misused(const std::string& label = "misused") {
  fs::options opt = cost_clock();
  opt.on_diagnostic = [](const fs::diagnostic&) {};  // counted in the report, not printed
  return fs::measure(
      label,
      [] {
        fs::charge(10);
        {
          auto never_run = fs::spawn([] { fs::charge(1); });
          (void)never_run;
        }
        fs::sync_point sp;
      },
      opt);
}

}  // namespace integration_programs
