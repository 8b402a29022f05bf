// Linked into the libomp test only in ThreadSanitizer builds, and compiled without
// -fsanitize=thread (its own bookkeeping must not be tracked).
//
// Archer (libarcher.so, LLVM's OMPT tool for TSan) tells TSan how OpenMP orders
// tasks, but not how libomp 14 reuses a task's memory: a finished task's block goes
// back to libomp's own allocator, invisible to TSan, and a new task — created on
// another thread — gets the same block and writes its firstprivate copies and
// shared-variable pointers over the old task's. TSan then reports a race between
// the old task's reads and the new task's initialisation. A plain OpenMP program
// (a tree of tasks with one firstprivate int, no forkscale) gets such reports in
// every run on a 2-core machine.
//
// This tool adds the missing edge — a task's completion happens before the next
// allocation of its block — and loads Archer behind it with LLVM's
// ompt-multiplex.h (the path of libarcher.so in FORKSCALE_ARCHER_LIBRARY):
//  - at the completion of a task (OMPT task_schedule), __tsan_release on its
//    block (ompt_get_task_memory gives the task's data; its kmp_task_t starts at
//    the cache line before);
//  - __kmpc_omp_task_alloc, which the compiled program calls to allocate every
//    task, is wrapped: __tsan_acquire on the block it returns, before the program
//    writes into it.
// Real races are still found: the edge only orders a task's accesses before
// accesses by later tasks to the *same* recycled block.
#define CLIENT_TOOL_LIBRARIES_VAR "FORKSCALE_ARCHER_LIBRARY"
#include <ompt-multiplex.h>
#include <sanitizer/tsan_interface.h>

#include <cstddef>
#include <cstdint>

namespace {

void* task_block(void* task_data) {
  return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(task_data) & ~std::uintptr_t(63));
}

ompt_get_task_memory_t get_task_memory = nullptr;

void on_task_schedule(ompt_data_t*, ompt_task_status_t status, ompt_data_t*) {
  if (status != ompt_task_complete && status != ompt_task_cancel && status != ompt_task_late_fulfill) return;
  void* addr = nullptr;
  std::size_t size = 0;
  if (get_task_memory(&addr, &size, 0) && size > 0) __tsan_release(task_block(addr));
}

int initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
  auto set_callback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  get_task_memory = reinterpret_cast<ompt_get_task_memory_t>(lookup("ompt_get_task_memory"));
  if (!set_callback || !get_task_memory) return 0;
  set_callback(ompt_callback_task_schedule, reinterpret_cast<ompt_callback_t>(&on_task_schedule));
  return 1;
}

void finalize(ompt_data_t*) {}

}  // namespace

// Renamed by ompt-multiplex.h, which defines the real ompt_start_tool.
extern "C" ompt_start_tool_result_t* ompt_start_tool(unsigned int, const char*) {
  static ompt_start_tool_result_t result = {&initialize, &finalize, {0}};
  return &result;
}

extern "C" void* __kmpc_omp_task_alloc(void* loc, std::int32_t gtid, std::int32_t flags, std::size_t sizeof_task,
                                       std::size_t sizeof_shareds, void* entry) {
  using alloc_fn = void* (*)(void*, std::int32_t, std::int32_t, std::size_t, std::size_t, void*);
  static const auto real = reinterpret_cast<alloc_fn>(dlsym(RTLD_NEXT, "__kmpc_omp_task_alloc"));
  void* task = real(loc, gtid, flags, sizeof_task, sizeof_shareds, entry);
  __tsan_acquire(task_block(task));
  return task;
}
