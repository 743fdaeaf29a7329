#pragma once

// Permutations from the orders that define them.

#include <herd/core/types.hpp>
#include <herd/graph/reorder.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>

#include <cstdint>

namespace herd::Details {

// The permutation that numbers sequence(r) as r.
template <class ExecutionSpace>
Permutation<typename ExecutionSpace::memory_space> numbering(
    ExecutionSpace const& exec, Kokkos::View<agent_index*, typename ExecutionSpace::memory_space> sequence) {
  using memory_space = typename ExecutionSpace::memory_space;
  Permutation<memory_space> p;
  p.old_of_new = sequence;
  p.new_of_old = Kokkos::View<agent_index*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::ordering::new_of_old"), sequence.extent(0));
  auto new_of_old = p.new_of_old;
  Kokkos::parallel_for(
      "herd::ordering::number", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, sequence.extent(0)),
      KOKKOS_LAMBDA(std::size_t r) { new_of_old(sequence(r)) = static_cast<agent_index>(r); });
  return p;
}

// Orders agents by a 64-bit key whose low word is the agent itself, so keys are unique and the
// sorted order is the same whatever sort runs underneath.
template <class ExecutionSpace>
Permutation<typename ExecutionSpace::memory_space> order_by_keys(
    ExecutionSpace const& exec, Kokkos::View<std::uint64_t*, typename ExecutionSpace::memory_space> keys) {
  exec.fence();
  Kokkos::sort(keys);
  Kokkos::View<agent_index*, typename ExecutionSpace::memory_space> sequence(
      Kokkos::ViewAllocateWithoutInitializing("herd::ordering::old_of_new"), keys.extent(0));
  Kokkos::parallel_for(
      "herd::ordering::sequence", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, keys.extent(0)),
      KOKKOS_LAMBDA(std::size_t r) { sequence(r) = static_cast<agent_index>(keys(r) & 0xffffffffu); });
  return numbering(exec, sequence);
}

}  // namespace herd::Details
