#pragma once

#include <herd/core/types.hpp>

#include <Kokkos_Core.hpp>

namespace herd::Details {

/// Turns counts into where each begins, in place: `counts` has n + 1 entries, the last one 0,
/// which after the scan holds the total.
template <class ExecutionSpace>
Kokkos::View<edge_offset*, typename ExecutionSpace::memory_space> exclusive_scan(
    ExecutionSpace const& exec, Kokkos::View<edge_offset*, typename ExecutionSpace::memory_space> counts,
    char const* label) {
  Kokkos::parallel_scan(
      label, Kokkos::RangePolicy<ExecutionSpace>(exec, 0, counts.extent(0)),
      KOKKOS_LAMBDA(std::size_t i, edge_offset & partial, bool final) {
        edge_offset const c = counts(i);
        if (final) counts(i) = partial;
        partial += c;
      });
  return counts;
}

/// The last entry of `v` (a scan's total), once the device is done with it.
template <class ExecutionSpace, class T>
T last_entry(ExecutionSpace const& exec, Kokkos::View<T*, typename ExecutionSpace::memory_space> v) {
  T value{};
  exec.fence();
  Kokkos::deep_copy(value, Kokkos::subview(v, v.extent(0) - 1));
  return value;
}

}  // namespace herd::Details
