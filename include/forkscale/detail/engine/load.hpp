// detail/engine/load.hpp: how busy the machine is — read at a measurement's start
// and end from the scheduler's counters, never on the event path.
//
// Linux keeps, per thread, the time it was ready to run but waited for a CPU
// (/proc/<pid>/task/<tid>/schedstat, second field, ns), its migrations and
// involuntary switches (.../sched); getrusage(RUSAGE_SELF) adds the involuntary
// switches of threads that have already exited; /proc/stat's procs_running is how
// many threads are ready to run on the whole machine right now.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../report.hpp"

#if defined(__linux__)
#include <dirent.h>
#include <sys/resource.h>
#define FORKSCALE_DETAIL_LOAD_CHECK 1
#else
#define FORKSCALE_DETAIL_LOAD_CHECK 0
#endif

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

struct thread_sched {
  long tid = 0;
  std::uint64_t wait_ns = 0;
  std::uint64_t migrations = 0;
};

struct load_snapshot {
  bool ok = false;
  std::vector<thread_sched> threads;  // sorted by tid
  std::uint64_t involuntary_switches = 0;
};

#if FORKSCALE_DETAIL_LOAD_CHECK
// The number after "key" and spaces or a colon in a small text file, or `fallback`.
inline bool read_counter(const char* path, const char* key, std::uint64_t& out) {
  std::FILE* f = std::fopen(path, "r");
  if (!f) return false;
  char line[256];
  bool found = false;
  const std::size_t n = std::strlen(key);
  while (!found && std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, key, n) != 0) continue;
    const char* p = line + n;
    while (*p == ' ' || *p == ':' || *p == '\t') ++p;
    unsigned long long v = 0;
    found = std::sscanf(p, "%llu", &v) == 1;
    out = v;
  }
  std::fclose(f);
  return found;
}

inline bool read_thread(long tid, thread_sched& t) {
  char path[320];
  std::snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", tid);
  std::FILE* f = std::fopen(path, "r");
  if (!f) return false;
  unsigned long long run = 0, wait = 0;
  const bool ok = std::fscanf(f, "%llu %llu", &run, &wait) == 2;
  std::fclose(f);
  if (!ok) return false;
  t.tid = tid;
  t.wait_ns = wait;
  std::snprintf(path, sizeof path, "/proc/self/task/%ld/sched", tid);
  std::uint64_t m = 0;
  if (read_counter(path, "se.nr_migrations", m)) t.migrations = m;
  return true;
}

// Calls fn(tid) for each thread of this process.
template <class Fn>
void for_each_thread(Fn&& fn) {
  DIR* d = opendir("/proc/self/task");
  if (!d) return;
  while (dirent* e = readdir(d))
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9') fn(std::atol(e->d_name));
  closedir(d);
}

inline load_snapshot take_load_snapshot() {
  load_snapshot s;
  for_each_thread([&](long tid) {
    thread_sched t;
    if (read_thread(tid, t)) s.threads.push_back(t);
  });
  std::sort(s.threads.begin(), s.threads.end(),
            [](const thread_sched& a, const thread_sched& b) { return a.tid < b.tid; });
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) == 0) s.involuntary_switches = static_cast<std::uint64_t>(ru.ru_nivcsw);
  s.ok = !s.threads.empty();
  return s;
}

// This process's threads that are running or ready to run (state R).
inline unsigned own_runnable_threads() {
  unsigned n = 0;
  for_each_thread([&](long tid) {
    char path[96];
    std::snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
    std::FILE* f = std::fopen(path, "r");
    if (!f) return;
    char buf[512];
    const std::size_t len = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[len] = 0;
    const char* close = std::strrchr(buf, ')');  // the name may hold spaces and parentheses
    if (close && close[1] == ' ' && close[2] == 'R') ++n;
  });
  return n;
}

// Threads of other processes ready to run on the machine right now.
inline unsigned runnable_threads() {
  std::uint64_t n = 0;
  if (!read_counter("/proc/stat", "procs_running", n)) return 0;
  const unsigned own = own_runnable_threads();
  return n > own ? static_cast<unsigned>(n - own) : 0;
}
#else
inline load_snapshot take_load_snapshot() { return load_snapshot{}; }
inline unsigned runnable_threads() { return 0; }
#endif

inline unsigned hardware_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return hw ? hw : 1;
}

// Other processes alone have a thread ready to run for every CPU: the measured
// threads will have to share them, and a wall-clock strand may wait.
// FORKSCALE_ASSUME_LOAD=1 (or 0) in the environment says so instead (tests, demos).
inline bool oversubscribed(unsigned runnable_elsewhere) {
  if (const char* v = std::getenv("FORKSCALE_ASSUME_LOAD")) return v[0] == '1';
  return runnable_elsewhere >= hardware_threads();
}

// What changed between two snapshots, for the threads present in both (threads
// created and ended in between count only through the involuntary switches).
// `work_ns` is the measured work, to judge whether the wait matters: more than 2%
// of it, under a wall clock, and the report says so.
inline load_check compare_load(const load_snapshot& a, const load_snapshot& b, clock_kind clock,
                               std::uint64_t work_ns) {
  load_check c;
  c.hardware_threads = hardware_threads();
  if (!a.ok || !b.ok) return c;
  c.checked = true;
  c.involuntary_switches = b.involuntary_switches - std::min(a.involuntary_switches, b.involuntary_switches);
  std::size_t i = 0;
  for (const thread_sched& t : b.threads) {
    while (i < a.threads.size() && a.threads[i].tid < t.tid) ++i;
    if (i == a.threads.size() || a.threads[i].tid != t.tid) continue;
    if (t.wait_ns > a.threads[i].wait_ns) c.wait_ns += t.wait_ns - a.threads[i].wait_ns;
    if (t.migrations > a.threads[i].migrations) c.migrations += t.migrations - a.threads[i].migrations;
  }
  const bool wall = clock == clock_kind::tsc || clock == clock_kind::steady || clock == clock_kind::arm_counter;
  c.inflated = wall && c.wait_ns * 50 > work_ns && c.wait_ns > 100000;
  return c;
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
