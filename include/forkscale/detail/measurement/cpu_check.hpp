// detail/measurement/cpu_check.hpp: a timed measurement's work against the CPU
// time the process used meanwhile (measure.hpp's finish_session; the OMPT
// tool's whole-program report). In both forms: it is a few lines, and tests
// call it directly.
#pragma once
#include <cstdint>
#include <string>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../report.hpp"
#include "../macro_scope.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// The CPU time the process has used (ns; 0 where it cannot be read).
inline std::uint64_t process_cpu_now_ns() noexcept {
#if defined(CLOCK_PROCESS_CPUTIME_ID)
  timespec ts{};
  if (::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
#else
  return 0;
#endif
}

// Work is time the measured threads ran: it cannot exceed the CPU time the
// process used meanwhile, unless a wall clock counted waits for a CPU (a busy
// machine). The report says so then, once.
inline void note_work_above_cpu(report& rep, std::uint64_t cpu_ns, const std::string& where) {
  if (rep.unit != "ns" || cpu_ns == 0 || rep.work() <= cpu_ns) return;
  for (const diagnostic& d : rep.diagnostics)
    if (d.problem.find("exceeds the CPU time") != std::string::npos) return;
  rep.diagnostics.push_back(diagnostic{
      where, "the work (" + std::to_string(rep.work()) +
                 " ns) exceeds the CPU time the process used during the measurement (" + std::to_string(cpu_ns) +
                 " ns): the " + to_string(rep.clock) +
                 " clock counted time the threads waited for a CPU (a busy machine); work and span are inflated "
                 "(thread_cpu, the default where the TSC is invariant, counts CPU time only)"});
  ++rep.diagnostic_count;
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
