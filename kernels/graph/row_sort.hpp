#pragma once

#include <herd/core/types.hpp>

#include <Kokkos_Core.hpp>

namespace herd::Details {

// In-place sort of one CSR row by one thread. Rows are short except at hubs; heap sort keeps hubs
// at O(d log d) without recursion or scratch memory, which device code cannot afford.
template <class T>
KOKKOS_INLINE_FUNCTION void sift_down(T* a, edge_offset root, edge_offset n) {
  while (2 * root + 1 < n) {
    edge_offset child = 2 * root + 1;
    if (child + 1 < n && a[child] < a[child + 1]) ++child;
    if (!(a[root] < a[child])) return;
    T const t = a[root];
    a[root] = a[child];
    a[child] = t;
    root = child;
  }
}

template <class T>
KOKKOS_INLINE_FUNCTION void sort_row(T* a, edge_offset n) {
  if (n <= 24) {
    for (edge_offset i = 1; i < n; ++i) {
      T const v = a[i];
      edge_offset j = i;
      for (; j > 0 && v < a[j - 1]; --j) a[j] = a[j - 1];
      a[j] = v;
    }
    return;
  }
  for (edge_offset start = n / 2; start-- > 0;) sift_down(a, start, n);
  for (edge_offset end = n - 1; end > 0; --end) {
    T const t = a[0];
    a[0] = a[end];
    a[end] = t;
    sift_down(a, 0, end);
  }
}

}  // namespace herd::Details
