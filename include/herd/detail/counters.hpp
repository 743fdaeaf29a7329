#pragma once

// Counters that kernels update at random places (a row's entries, a column's cursor): atomically
// where other threads may update them too, plainly on a host space of one thread, so that the
// cache misses of successive updates overlap, which each atomic's wait for its miss would not let
// them (a rank of one thread per core is how distributed runs use a CPU).

#include <herd/core/execution_spaces.hpp>
#include <herd/core/kokkos_compat.hpp>

#include <Kokkos_Core.hpp>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace herd::Details {

template <bool Shared, class T>
KOKKOS_INLINE_FUNCTION T fetch_add(T& x, T value) {
  if constexpr (Shared) {
    return Kokkos::atomic_fetch_add(&x, value);
  } else {
    T const old = x;
    x = old + value;
    return old;
  }
}

template <bool Shared, class T>
KOKKOS_INLINE_FUNCTION void fetch_or(T& x, T bits) {
  if constexpr (Shared)
    Kokkos::atomic_fetch_or(&x, bits);
  else
    x |= bits;
}

/// Whether the kernels on `exec` may run on more than one thread: on a GPU, on a host space of
/// more than one thread, and inside an OpenMP parallel region (where Kokkos 4 reports the one
/// thread of the enclosing team but may still spread a kernel over its pool).
template <class ExecutionSpace>
bool shared_counters(ExecutionSpace const& exec) {
#if defined(_OPENMP)
  if (omp_in_parallel()) return true;
#endif
  return !runs_on_host_v<ExecutionSpace> || compat::concurrency(exec) > 1;
}

}  // namespace herd::Details
