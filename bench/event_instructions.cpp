// event_instructions.cpp: n events of one kind in one measurement (the cost
// clock unless a wall configuration is asked), for bench_event_instructions.py,
// which counts the instructions per event with callgrind in both forms
// (header-only and compiled), with each subsystem on and off.
//
//   event_instructions spawn|call|sync N [default|no_profiles|what_if|record|wall|wall_no_profiles]
//   event_instructions fib N [config]
//
// fib N: fib(N) with every call annotated as fine-grained code is: a charge, the
// first child spawned and run at once, the second a call site, then a sync.
// Built with FORKSCALE_ENABLE=0 too, so that the instructions forkscale adds
// per call are the difference of the two builds.
//
// default: site profiles on, the rest off (options' defaults); no_profiles:
// site profiles off; what_if: the events run inside a what_if_region;
// record: options.record on; wall, wall_no_profiles: the automatic clock (the
// TSC here), where events share readings (a child run at once starts at its
// spawn's reading; a join that waited for nothing needs one reading).
#include <forkscale/forkscale.hpp>

#include <cstdlib>
#include <cstring>
#include <optional>

namespace fs = forkscale;

namespace {
long fib(int n) {
  fs::charge(1);
  if (n < 2) return n;
  long x = 0;
  long y = 0;
  fs::spawn([&] { x = fib(n - 1); })();
  {
    fs::call_site cs;
    y = fib(n - 2);
  }
  { fs::sync_point sp; }
  return x + y;
}
enum class event { spawn, call, sync, fib };

// The measured program: n events of one kind, or fib(n). (A class rather than
// a lambda: a lambda in forkscale_bench_counted would carry its name, and
// callgrind's --toggle-collect would toggle again on entering it.)
struct events_body {
  event kind;
  long n;
  bool in_what_if;
  long* result;
  void operator()() const {
    std::optional<fs::what_if_region> region;
    if (in_what_if) region.emplace("hot");
    if (kind == event::fib) {
      *result = fib(static_cast<int>(n));
      return;
    }
    for (long i = 0; i < n; ++i) {
      if (kind == event::spawn) {
        fs::spawn([] { fs::charge(1); })();  // run at once, as the serial adapter does
        fs::sync_point sp;
      } else if (kind == event::call) {
        fs::call_site cs;
        fs::charge(1);
      } else {
        fs::sync_point sp;
      }
    }
  }
};

// The measurement whose instructions bench_event_instructions.py counts (the
// only function callgrind collects in: --toggle-collect).
__attribute__((noinline)) fs::report forkscale_bench_counted(event kind, long n, bool in_what_if,
                                                             const fs::options& opt, long& result) {
  return fs::measure("cg", events_body{kind, n, in_what_if, &result}, opt);
}
}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "spawn";
  const long n = argc > 2 ? std::atol(argv[2]) : 1000;
  const char* config = argc > 3 ? argv[3] : "default";
  fs::options opt;
  const bool wall = std::strncmp(config, "wall", 4) == 0;
  opt.clock = wall ? fs::detail::resolve_automatic() : fs::clock_kind::cost;  // (not thread_cpu under load)
  opt.check_load = false;
  opt.what_if.read_environment = false;
  const bool in_what_if = std::strcmp(config, "what_if") == 0;
  if (std::strcmp(config, "no_profiles") == 0 || std::strcmp(config, "wall_no_profiles") == 0)
    opt.site_profiles = false;
  if (std::strcmp(config, "record") == 0) opt.record = true;
  // The event kind is decided here, once: a string comparison per iteration
  // would be counted as part of every event.
  const event kind = std::strcmp(mode, "spawn") == 0  ? event::spawn
                     : std::strcmp(mode, "call") == 0 ? event::call
                     : std::strcmp(mode, "fib") == 0  ? event::fib
                                                      : event::sync;
  // A timed clock's compensation is calibrated once per process, at its first
  // measurement, and its attempts depend on the machine's timing: that
  // measurement is made here, outside the counted function, so that the
  // counted one reuses the calibration.
  if (wall)
    fs::measure(
        "warm-up", [] {}, opt);
  long result = 0;
  const fs::report rep = forkscale_bench_counted(kind, n, in_what_if, opt, result);
  if (kind == event::fib) return result > 0 ? 0 : 1;
  return rep.empty() && FORKSCALE_ENABLE ? 1 : 0;
}
