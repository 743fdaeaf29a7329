#pragma once

// The contiguous blocks of partition_contiguous, as a formula: what building by shares and the
// directory of owners use to find an agent's home rank without any table.

#include <herd/core/types.hpp>

#include <Kokkos_Macros.hpp>

namespace herd::mpi::Details {

// Part r owns [begin(r), begin(r + 1)).
struct Blocks {
  global_id agents;
  int parts;
  KOKKOS_INLINE_FUNCTION global_id begin(int r) const { return static_cast<global_id>(r) * agents / parts; }
  KOKKOS_INLINE_FUNCTION global_id size(int r) const { return begin(r + 1) - begin(r); }
  // The last r with floor(r N / P) <= g, i.e. r N < (g + 1) P.
  KOKKOS_INLINE_FUNCTION int owner(global_id g) const { return static_cast<int>(((g + 1) * parts - 1) / agents); }
};

}  // namespace herd::mpi::Details
