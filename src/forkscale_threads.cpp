// src/forkscale_threads.cpp: libforkscale_threads.so, loaded with LD_PRELOAD
// into a program that uses threads and nothing of forkscale (docs/threads.md):
//
//  - the program is one measurement, from the library's load to the start of
//    the program's exit (an exit handler registered before the program's own,
//    so that its static destructors count); the main thread is the root task;
//  - each pthread_create is a spawn, with a join handle, at its caller's site
//    (the first frame of the program's own code); the thread's function is the
//    child; each pthread_join is the sync of that handle;
//  - a thread never joined is merged at the end when it has finished, and the
//    report says so once; one still running then is not counted (said too);
//  - pthread_mutex_lock, _trylock and _unlock feed the lock blame of
//    forkscale/mutex.hpp (docs/blame.md), each acquisition named by its caller;
//  - a thread that waits on a condition variable (a pool's worker) is measured
//    as a thread: the report says that the numbers are those of the threads,
//    not of the tasks a pool runs on them.
//
// The clock is FORKSCALE_CLOCK's (automatic when unset); the report goes where
// FORKSCALE_REPORT says (stderr when unset). A program that holds forkscale's
// own code measures itself: the library then steps aside, with one line.
#include <execinfo.h>
#include <pthread.h>

#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <forkscale/detail/ompt/sites.hpp>  // return addresses named file:line (addr2line)
#include <forkscale/detail/util/clock_env.hpp>
#include <forkscale/mutex.hpp>

#include "preload_common.hpp"

namespace {

namespace fs = forkscale;
using clock_policy = fs::default_clock;

// Non-zero while the library itself runs on this thread (the engine, the site
// names): the locks and threads it uses are not the program's.
__thread int busy __attribute__((tls_model("initial-exec"))) = 0;
struct inside {
  inside() noexcept { ++busy; }
  ~inside() { --busy; }
  inside(const inside&) = delete;
  inside& operator=(const inside&) = delete;
};

template <class Fn>
Fn next_symbol(const char* name) {
  void* f = ::dlsym(RTLD_NEXT, name);
  if (!f) {
    std::fprintf(stderr, "forkscale: %s not found after libforkscale_threads.so\n", name);
    std::abort();
  }
  return reinterpret_cast<Fn>(f);
}

using create_fn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
using join_fn = int (*)(pthread_t, void**);
using detach_fn = int (*)(pthread_t);
using mutex_fn = int (*)(pthread_mutex_t*);
using cond_wait_fn = int (*)(pthread_cond_t*, pthread_mutex_t*);
using cond_timedwait_fn = int (*)(pthread_cond_t*, pthread_mutex_t*, const struct timespec*);

struct real_functions {
  create_fn create = next_symbol<create_fn>("pthread_create");
  join_fn join = next_symbol<join_fn>("pthread_join");
  detach_fn detach = next_symbol<detach_fn>("pthread_detach");
  mutex_fn lock = next_symbol<mutex_fn>("pthread_mutex_lock");
  mutex_fn trylock = next_symbol<mutex_fn>("pthread_mutex_trylock");
  mutex_fn unlock = next_symbol<mutex_fn>("pthread_mutex_unlock");
  cond_wait_fn cond_wait = next_symbol<cond_wait_fn>("pthread_cond_wait");
  cond_timedwait_fn cond_timedwait = next_symbol<cond_timedwait_fn>("pthread_cond_timedwait");
};
const real_functions& real() {
  static const real_functions r;
  return r;
}

// A thread the program created inside the measurement.
struct thread_record {
  fs::join_handle handle;
  fs::spawn_token token;
  fs::site where;
  void* (*start)(void*) = nullptr;
  void* arg = nullptr;
  std::atomic<bool> done{false};  // its function returned (its child scope is closed)
};

struct program_state {
  fs::region* region = nullptr;
  pthread_t owner{};
  std::mutex m;  // the tables below (taken with `busy` set: no lock of the program's)
  std::unordered_map<pthread_t, thread_record*> joinable;
  std::vector<thread_record*> detached;
  std::atomic<unsigned> condition_waiters{0};
};
program_state& state() {
  static program_state* s = new program_state;  // never destroyed: late threads may still look
  return *s;
}

bool measuring() noexcept { return fs::detail::current_frame<clock_policy> != nullptr; }

// The library's own code (the engine's locks, where `busy` is not set: a
// thread's exit, say): its addresses, found at load.
std::uintptr_t own_begin = 0, own_end = 0;
int find_own_range(dl_phdr_info* info, std::size_t, void* self) {
  const auto at = reinterpret_cast<std::uintptr_t>(self);
  std::uintptr_t lo = ~std::uintptr_t{0}, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    if (p.p_type != PT_LOAD) continue;
    lo = std::min<std::uintptr_t>(lo, info->dlpi_addr + p.p_vaddr);
    hi = std::max<std::uintptr_t>(hi, info->dlpi_addr + p.p_vaddr + p.p_memsz);
  }
  if (at < lo || at >= hi) return 0;
  own_begin = lo;
  own_end = hi;
  return 1;
}
bool own_code(const void* ra) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(ra);
  return a >= own_begin && a < own_end;
}

// Objects whose frames are not the program's own code.
bool runtime_object(const std::string& name) {
  static const char* const prefixes[] = {"libstdc++", "libc.so",  "libc-",  "libpthread",
                                         "libgcc_s",  "ld-linux", "libc++", "libforkscale_threads"};
  for (const char* p : prefixes)
    if (name.compare(0, std::strlen(p), p) == 0) return true;
  return false;
}

// The site of the program's code that created a thread: the first frame up the
// stack outside the C and C++ runtimes (std::thread calls pthread_create from
// libstdc++) and outside the standard headers.
fs::site creator_site() {
  void* frames[12];
  const int n = ::backtrace(frames, 12);
  auto& sites = fs::detail::ompt::code_sites::instance();
  fs::site first{"(unknown)", 0, "", nullptr};
  for (int i = 1; i < n; ++i) {
    if (runtime_object(forkscale_preload::object_name(frames[i]))) continue;
    const fs::site s = sites.find(frames[i], nullptr).where;
    if (std::strcmp(first.file, "(unknown)") == 0) first = s;
    if (std::strncmp(s.file, "/usr/include/", 13) == 0 || std::strncmp(s.file, "/usr/lib/", 9) == 0) continue;
    return s;
  }
  return first;
}

// The child's half: its scope opens before the thread's function and closes
// after it (also when the thread ends by pthread_exit, which unwinds).
class child_scope {
 public:
  explicit child_scope(thread_record& r) {
    inside g;
    scope_.emplace(std::move(r.token), r.where);
  }
  ~child_scope() {
    inside g;
    scope_.reset();
  }
  child_scope(const child_scope&) = delete;
  child_scope& operator=(const child_scope&) = delete;

 private:
  std::optional<fs::spawn_scope> scope_;
};

void* thread_start(void* p) {
  auto* r = static_cast<thread_record*>(p);
  void* result = nullptr;
  {
    child_scope scope(*r);
    result = r->start(r->arg);
  }
  r->done.store(true, std::memory_order_release);
  return result;
}

thread_record* take_joinable(pthread_t t) {
  program_state& s = state();
  std::lock_guard<std::mutex> g(s.m);
  auto it = s.joinable.find(t);
  if (it == s.joinable.end()) return nullptr;
  thread_record* r = it->second;
  s.joinable.erase(it);
  return r;
}

// ---- the measurement -------------------------------------------------------------

// At the end: threads never joined that have finished are joined into the
// root; those still running are left out.
void settle_unjoined(unsigned& merged, unsigned& running) {
  program_state& s = state();
  std::vector<thread_record*> left;
  {
    std::lock_guard<std::mutex> g(s.m);
    for (auto& e : s.joinable) left.push_back(e.second);
    s.joinable.clear();
    left.insert(left.end(), s.detached.begin(), s.detached.end());
    s.detached.clear();
  }
  for (thread_record* r : left) {
    if (r->done.load(std::memory_order_acquire)) {
      { fs::sync_point sp(r->handle, r->where); }
      ++merged;
      delete r;
    } else {
      ++running;  // its scope is still open on its thread: the record stays
    }
  }
}

void add_note(fs::report& rep, const std::string& text) {
  rep.diagnostics.push_back(fs::diagnostic{"(threads)", text});
  ++rep.diagnostic_count;
}

void program_ends() {
  program_state& s = state();
  fs::region* region = s.region;
  if (!region) return;
  inside g;
  s.region = nullptr;
  if (!pthread_equal(pthread_self(), s.owner)) {
    std::fprintf(stderr,
                 "forkscale: the program exited from another thread than its main one; the measurement of "
                 "libforkscale_threads.so belongs to the main thread: no report\n");
    return;
  }
  try {
    unsigned merged = 0, running = 0;
    settle_unjoined(merged, running);
    fs::report rep = region->stop();
    if (merged)
      add_note(rep, std::to_string(merged) +
                        " thread(s) were never joined (detached, or left): each is merged into the main thread at "
                        "the program's end, as a join there would");
    if (running)
      add_note(rep, std::to_string(running) + " thread(s) were still running at the program's end: not counted");
    if (const unsigned w = s.condition_waiters.load())
      add_note(rep, std::to_string(w) +
                        " thread(s) waited on condition variables (a thread pool's workers?): the numbers are "
                        "those of the threads, not of the tasks a pool runs on them");
    forkscale_preload::write_report(rep, std::getenv("FORKSCALE_REPORT"));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "forkscale: %s\n", e.what());
  }
  delete region;
}

__attribute__((constructor)) void forkscale_threads_loaded() {
  inside g;
  const std::string self = forkscale_preload::object_name(reinterpret_cast<const void*>(&forkscale_threads_loaded));
  forkscale_preload::remove_from_list("LD_PRELOAD", self);
  (void)real();
  ::dl_iterate_phdr(&find_own_range, reinterpret_cast<void*>(&forkscale_threads_loaded));
  if (forkscale_preload::program_has_forkscale()) {
    std::fprintf(stderr, "forkscale: this program is built with forkscale and measures itself; %s steps aside\n",
                 self.c_str());
    return;
  }
  void* warm[1];
  (void)::backtrace(warm, 1);  // loads the unwinder now, not inside the first pthread_create
  fs::detail::ompt::code_sites::instance().name_inlined_code_by_caller();
  fs::detail::ompt::code_sites::instance().start();
  fs::options opt;
  opt.clock = fs::detail::clock_from_environment({"FORKSCALE_CLOCK"});
  try {
    state().region = new fs::region("program", opt, fs::site{"(program)", 0, "", nullptr});
    state().owner = pthread_self();
    std::atexit(&program_ends);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "forkscale: %s; the program runs unmeasured\n", e.what());
  }
}

// ---- locks -------------------------------------------------------------------------

// A pthread mutex as the lockable lock_events takes: the object is the mutex
// itself (its address names it to the threads that wait for it).
__thread int last_rc __attribute__((tls_model("initial-exec"))) = 0;
struct pmutex {
  pthread_mutex_t* m() { return reinterpret_cast<pthread_mutex_t*>(this); }
  void lock() { last_rc = real().lock(m()); }
  bool try_lock() { return (last_rc = real().trylock(m())) == 0; }
  void unlock() { last_rc = real().unlock(m()); }
};

// The holds of this thread's measured acquisitions, in order. A fixed table of
// trivial type: the thread's exit may unlock after its thread_local objects
// are gone. Beyond it, an acquisition is not measured.
struct held_lock {
  pthread_mutex_t* m;
  fs::detail::lock_hold hold;
};
constexpr unsigned most_held = 32;
thread_local held_lock held[most_held];
thread_local unsigned held_count = 0;

// A measured hold, until its unlock.
void keep(held_lock& h) {
  if (h.hold.serial == 0) return;
  if (held_count == most_held) {
    fs::detail::lock_events<clock_policy>::forget(fs::detail::shared_holder_slot(h.m), h.hold);
    return;
  }
  held[held_count++] = h;
}

fs::site lock_site(const void* ra) { return fs::detail::ompt::code_sites::instance().find(ra, nullptr).where; }

}  // namespace

// ---- the interposed functions ------------------------------------------------------

#define FORKSCALE_THREADS_ENTRY extern "C" __attribute__((visibility("default")))

FORKSCALE_THREADS_ENTRY int pthread_create(pthread_t* t, const pthread_attr_t* attr, void* (*start)(void*), void* arg) {
  if (busy || !measuring()) return real().create(t, attr, start, arg);
  inside g;
  auto* r = new thread_record;
  r->start = start;
  r->arg = arg;
  r->where = creator_site();
  r->token = fs::spawn_point(r->handle, r->where);
  const int rc = real().create(t, attr, &thread_start, r);
  if (rc != 0) {
    fs::detail::task_hooks_now()->drop_unrun(r->token, r->where);
    delete r;
    return rc;
  }
  int detach_state = PTHREAD_CREATE_JOINABLE;
  if (attr) pthread_attr_getdetachstate(attr, &detach_state);
  program_state& s = state();
  std::lock_guard<std::mutex> lk(s.m);
  if (detach_state == PTHREAD_CREATE_DETACHED) {
    s.detached.push_back(r);
  } else {
    auto found = s.joinable.find(*t);
    if (found != s.joinable.end()) s.detached.push_back(found->second);  // (an id the program lost track of)
    s.joinable[*t] = r;
  }
  return 0;
}

FORKSCALE_THREADS_ENTRY int pthread_join(pthread_t t, void** result) {
  if (busy || !measuring()) return real().join(t, result);
  thread_record* r = nullptr;
  {
    inside g;
    r = take_joinable(t);
  }
  if (!r) return real().join(t, result);
  int rc = 0;
  {
    inside g;
    fs::sync_point sp(r->handle, lock_site(__builtin_return_address(0)));
    rc = real().join(t, result);
  }
  inside g;
  delete r;
  return rc;
}

FORKSCALE_THREADS_ENTRY int pthread_detach(pthread_t t) {
  const int rc = real().detach(t);
  if (busy || rc != 0) return rc;
  inside g;
  if (thread_record* r = take_joinable(t)) {
    program_state& s = state();
    std::lock_guard<std::mutex> lk(s.m);
    s.detached.push_back(r);
  }
  return rc;
}

FORKSCALE_THREADS_ENTRY int pthread_mutex_lock(pthread_mutex_t* m) {
  if (busy || !measuring() || own_code(__builtin_return_address(0))) return real().lock(m);
  inside g;
  const fs::site where = lock_site(__builtin_return_address(0));
  held_lock h{m, {}};
  auto& l = *reinterpret_cast<pmutex*>(m);
  fs::detail::lock_events<clock_policy>::lock(l, fs::detail::shared_holder_slot(m), where, where, h.hold);
  const int rc = last_rc;
  if (rc != 0) {
    fs::detail::lock_events<clock_policy>::forget(fs::detail::shared_holder_slot(m), h.hold);
    return rc;
  }
  keep(h);
  return 0;
}

FORKSCALE_THREADS_ENTRY int pthread_mutex_trylock(pthread_mutex_t* m) {
  if (busy || !measuring() || own_code(__builtin_return_address(0))) return real().trylock(m);
  inside g;
  const fs::site where = lock_site(__builtin_return_address(0));
  held_lock h{m, {}};
  auto& l = *reinterpret_cast<pmutex*>(m);
  if (!fs::detail::lock_events<clock_policy>::try_lock(l, fs::detail::shared_holder_slot(m), where, where, h.hold))
    return last_rc;
  keep(h);
  return 0;
}

FORKSCALE_THREADS_ENTRY int pthread_mutex_unlock(pthread_mutex_t* m) {
  if (busy || held_count == 0) return real().unlock(m);
  inside g;
  for (unsigned i = held_count; i-- > 0;) {
    if (held[i].m != m) continue;
    fs::detail::lock_hold h = held[i].hold;
    for (unsigned k = i + 1; k < held_count; ++k) held[k - 1] = held[k];
    --held_count;
    auto& l = *reinterpret_cast<pmutex*>(m);
    fs::detail::lock_events<clock_policy>::unlock(l, fs::detail::shared_holder_slot(m), h);
    return last_rc;
  }
  return real().unlock(m);
}

// A wait on a condition variable releases and retakes its mutex inside the C
// library (no lock call of the program's: the hold goes on); the thread is
// counted as one that waits for work.
namespace {
void note_condition_wait() {
  thread_local bool counted = false;
  if (counted || busy || !measuring()) return;
  counted = true;
  state().condition_waiters.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

FORKSCALE_THREADS_ENTRY int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  note_condition_wait();
  return real().cond_wait(c, m);
}

FORKSCALE_THREADS_ENTRY int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m, const struct timespec* t) {
  note_condition_wait();
  return real().cond_timedwait(c, m, t);
}

#undef FORKSCALE_THREADS_ENTRY
