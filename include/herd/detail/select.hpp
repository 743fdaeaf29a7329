#pragma once

// Stream compaction by scan: the one way Herd picks the indices that pass a test, in order.

#include <Kokkos_Core.hpp>

#include <string>

namespace herd::Details {

/// The indices i in [0, n) for which keep(i) holds, ascending. `keep` is a device function
/// (KOKKOS_LAMBDA) of one Index. Waits for the device (the count sizes the result).
template <class Index, class ExecutionSpace, class Keep>
Kokkos::View<Index*, typename ExecutionSpace::memory_space> select_indices(ExecutionSpace const& exec, Index n,
                                                                           Keep const& keep, std::string const& label) {
  using memory_space = typename ExecutionSpace::memory_space;
  Kokkos::View<Index*, memory_space> position(Kokkos::ViewAllocateWithoutInitializing(label + "::position"), n + 1);
  Kokkos::parallel_scan(
      label + "::scan", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n + 1),
      KOKKOS_LAMBDA(Index i, Index & partial, bool final) {
        if (final) position(i) = partial;
        if (i < n && keep(i)) ++partial;
      });
  Index count = 0;
  exec.fence();
  Kokkos::deep_copy(count, Kokkos::subview(position, n));
  Kokkos::View<Index*, memory_space> selected(Kokkos::ViewAllocateWithoutInitializing(label), count);
  Kokkos::parallel_for(
      label + "::fill", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n), KOKKOS_LAMBDA(Index i) {
        if (position(i + 1) != position(i)) selected(position(i)) = i;
      });
  return selected;
}

}  // namespace herd::Details
