// detail/util/huge_pages.hpp: large arrays backed by transparent huge pages
// where the system offers them on request (Linux, `madvise` mode).
//
// The record's build and the trace's layout fill arrays of hundreds of MB once.
// Faulted in 4 KiB at a time, that is a page fault per 4 KiB, each a trap into
// the kernel that costs several microseconds on a virtual machine; backed by
// 2 MiB pages it is one per 2 MiB, and the arrays take fewer TLB entries while
// they are read. A hint only: nothing changes where it is not supported.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../../config.hpp"
#include "../macro_scope.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Asks for huge pages on the whole 2 MiB pages inside [p, p + bytes), when there
// are at least two of them. Call it before the memory is first written.
inline void advise_huge_pages(const void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
  if (p == nullptr || end < begin + 2 * huge) return;
  (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

// v.reserve(n), the new storage advised as above: a resize or assign of up to n
// elements that follows writes it without reallocating.
template <class V>
void reserve_huge(V& v, std::size_t n) {
  if (v.capacity() >= n) return;
  v.reserve(n);
  advise_huge_pages(v.data(), v.capacity() * sizeof(typename V::value_type));
}

// (A vector of bool's storage is not reachable: reserved only.)
template <class A>
void reserve_huge(std::vector<bool, A>& v, std::size_t n) {
  v.reserve(n);
}

}  // namespace detail
FORKSCALE_NAMESPACE_END
