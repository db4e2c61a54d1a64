// Transparent huge pages for the arrays a simulation holds one element per task of (the event graph's tasks, the
// timings): tens of millions of elements first touched page by page cost a page fault per 4 KiB, where a 2 MiB page
// costs one (docs/performance.md, "Concurrent multi-axis collectives in the plan search"). Linux only; elsewhere, or
// where the kernel has no transparent huge pages or refuses, nothing changes but the time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace podsim {

// The size of a transparent huge page on x86-64 and most arm64 kernels; a range smaller than it is left alone.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// Asks the kernel to back the whole 2 MiB pages inside [data, data + bytes) with huge pages (madvise MADV_HUGEPAGE,
// which THP's "madvise" mode waits for). Advice only: its failure (no THP, an older kernel) is ignored.
inline void advise_huge_pages(const void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHugePageBytes - 1);
  if (last > first) (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

// v.reserve(count), then huge pages advised over its capacity; only the pages written are ever faulted in, so
// reserving an upper bound costs address space, not memory.
template <typename T>
void reserve_huge(std::vector<T>& v, std::size_t count) {
  if (count <= v.capacity()) return;
  v.reserve(count);
  advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

// v.resize(count) of a vector not yet holding its elements: reserved with huge pages first.
template <typename T>
void resize_huge(std::vector<T>& v, std::size_t count) {
  reserve_huge(v, count);
  v.resize(count);
}

}  // namespace podsim
