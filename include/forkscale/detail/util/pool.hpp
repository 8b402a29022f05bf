// detail/util/pool.hpp: pooled allocation for the engine's fixed-size objects
// (join sets, on-span chain nodes). No allocation on the event path once a
// thread's cache is warm; a process-wide free list is touched once per batch.
#pragma once
#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

#include "../../config.hpp"
#include "../macro_scope.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Pooled allocation for fixed-size engine objects: a per-thread cache in front of
// a process-wide free list that is touched once per batch. Memory is kept for
// reuse, so the pool's size is the high-water mark.
template <class T>
class object_pool {
 public:
  static constexpr unsigned batch = 64;

  static object_pool& instance() noexcept {
    static object_pool* p = new object_pool;  // never destroyed: late threads may still return objects
    return *p;
  }

  T* take_batch(unsigned& count) {
    {
      std::lock_guard<std::mutex> g(m_);
      if (free_) {
        T* head = free_;
        T* tail = head;
        count = 1;
        while (count < batch && tail->next_free) {
          tail = tail->next_free;
          ++count;
        }
        free_ = tail->next_free;
        tail->next_free = nullptr;
        return head;
      }
    }
    auto* chunk = new T[batch];
    {
      std::lock_guard<std::mutex> g(m_);
      chunks_.push_back(chunk);
    }
    reserved_.fetch_add(sizeof(T) * batch, std::memory_order_relaxed);
    for (unsigned i = 0; i + 1 < batch; ++i) chunk[i].next_free = &chunk[i + 1];
    count = batch;
    return chunk;
  }

  void give_back(T* head, T* tail) {
    std::lock_guard<std::mutex> g(m_);
    tail->next_free = free_;
    free_ = head;
  }

  std::size_t reserved_bytes() const noexcept { return reserved_.load(std::memory_order_relaxed); }

 private:
  std::mutex m_;
  T* free_ = nullptr;
  std::vector<T*> chunks_;  // keeps the memory reachable
  std::atomic<std::size_t> reserved_{0};
};

template <class T>
struct object_cache {
  T* head = nullptr;
  unsigned count = 0;
  ~object_cache() {
    if (head) {
      T* tail = head;
      while (tail->next_free) tail = tail->next_free;
      object_pool<T>::instance().give_back(head, tail);
    }
  }

  static object_cache& local() noexcept {
    static thread_local object_cache cache;
    return cache;
  }

  T* take() {
    if (FORKSCALE_DETAIL_UNLIKELY(!head)) head = object_pool<T>::instance().take_batch(count);
    T* o = head;
    head = o->next_free;
    --count;
    o->next_free = nullptr;
    return o;
  }

  void put(T* o) noexcept {
    o->next_free = head;
    head = o;
    if (FORKSCALE_DETAIL_UNLIKELY(++count > 2 * object_pool<T>::batch)) {
      // Hand a batch back so a thread that only frees does not hoard memory.
      T* first = head;
      T* last = first;
      for (unsigned i = 1; i < object_pool<T>::batch; ++i) last = last->next_free;
      head = last->next_free;
      count -= object_pool<T>::batch;
      object_pool<T>::instance().give_back(first, last);
    }
  }
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
