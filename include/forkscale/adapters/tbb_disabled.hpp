// tbb_disabled.hpp: the oneTBB adapter with FORKSCALE_ENABLE=0 (included by
// tbb.hpp). Every fs::tbb:: name is oneTBB's own: the algorithms are
// using-declarations of oneTBB's, task_group and task_arena are oneTBB's classes
// (with native(), which gives the object itself), so a call compiles to the
// oneTBB call and nothing of forkscale is left in the object. What oneTBB has
// not — parallel_for(first, last, f, fs::grainsize(g)) and the backend type — is
// a call of oneTBB's, inline.
#pragma once
#include <cstddef>
#include <utility>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_for_each.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/parallel_pipeline.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/parallel_scan.h>
#include <oneapi/tbb/parallel_sort.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include "split_tree.hpp"  // fs::grainsize

FORKSCALE_NAMESPACE_BEGIN
namespace tbb {

using ::oneapi::tbb::parallel_deterministic_reduce;
using ::oneapi::tbb::parallel_for;
using ::oneapi::tbb::parallel_for_each;
using ::oneapi::tbb::parallel_invoke;
using ::oneapi::tbb::parallel_pipeline;
using ::oneapi::tbb::parallel_reduce;
using ::oneapi::tbb::parallel_scan;
using ::oneapi::tbb::parallel_sort;

template <class Value>
using blocked_range = ::oneapi::tbb::blocked_range<Value>;
using split = ::oneapi::tbb::split;
using simple_partitioner = ::oneapi::tbb::simple_partitioner;
using auto_partitioner = ::oneapi::tbb::auto_partitioner;
using static_partitioner = ::oneapi::tbb::static_partitioner;
using affinity_partitioner = ::oneapi::tbb::affinity_partitioner;
using task_group_status = ::oneapi::tbb::task_group_status;
using forkscale::grainsize;
template <class Item>
using feeder = ::oneapi::tbb::feeder<Item>;

template <class Clock = default_clock>
class basic_task_group : public ::oneapi::tbb::task_group {
 public:
  using ::oneapi::tbb::task_group::task_group;
  ::oneapi::tbb::task_group& native() noexcept { return *this; }
};

template <class Clock = default_clock>
class basic_task_arena : public ::oneapi::tbb::task_arena {
 public:
  using ::oneapi::tbb::task_arena::task_arena;
  ::oneapi::tbb::task_arena& native() noexcept { return *this; }
};

using task_group = basic_task_group<default_clock>;
using task_arena = basic_task_arena<default_clock>;

// The grain form, which oneTBB spells with a blocked_range and simple_partitioner.
template <class Index, class Function>
void parallel_for(Index first, Index last, const Function& f, grainsize grain) {
  if (!(first < last)) return;
  ::oneapi::tbb::parallel_for(
      ::oneapi::tbb::blocked_range<Index>(first, last, grain.value ? grain.value : 1),
      [&f](const ::oneapi::tbb::blocked_range<Index>& r) {
        for (Index i = r.begin(); i != r.end(); ++i) f(i);
      },
      ::oneapi::tbb::simple_partitioner());
}

template <class Clock = default_clock>
struct basic_backend {
  using task_group = tbb::basic_task_group<Clock>;
  using task_arena = tbb::basic_task_arena<Clock>;
  template <class Value>
  using blocked_range = ::oneapi::tbb::blocked_range<Value>;
  using split = ::oneapi::tbb::split;
  using simple_partitioner = ::oneapi::tbb::simple_partitioner;
  using auto_partitioner = ::oneapi::tbb::auto_partitioner;
  using static_partitioner = ::oneapi::tbb::static_partitioner;
  using affinity_partitioner = ::oneapi::tbb::affinity_partitioner;

  template <class... A>
  static void parallel_invoke(A&&... a) {
    ::oneapi::tbb::parallel_invoke(std::forward<A>(a)...);
  }
  template <class... A>
  static void parallel_for(A&&... a) {
    tbb::parallel_for(std::forward<A>(a)...);
  }
  template <class... A>
  static decltype(auto) parallel_reduce(A&&... a) {
    return ::oneapi::tbb::parallel_reduce(std::forward<A>(a)...);
  }
};
using backend = basic_backend<default_clock>;

}  // namespace tbb
FORKSCALE_NAMESPACE_END
