#pragma once

// The Kokkos execution spaces this build of Herd instantiates its compiled kernels for, and whether
// one runs on the host. This is the one place that tests which backends Kokkos was built with.

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_SERIAL)
#define HERD_IMPL_FOR_SERIAL(MACRO) MACRO(Kokkos::Serial)
#else
#define HERD_IMPL_FOR_SERIAL(MACRO)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
#define HERD_IMPL_FOR_OPENMP(MACRO) MACRO(Kokkos::OpenMP)
#else
#define HERD_IMPL_FOR_OPENMP(MACRO)
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#define HERD_IMPL_FOR_CUDA(MACRO) MACRO(Kokkos::Cuda)
#else
#define HERD_IMPL_FOR_CUDA(MACRO)
#endif
#if defined(KOKKOS_ENABLE_HIP)
#if KOKKOS_VERSION >= 40000
#define HERD_IMPL_FOR_HIP(MACRO) MACRO(Kokkos::HIP)
#else
#define HERD_IMPL_FOR_HIP(MACRO) MACRO(Kokkos::Experimental::HIP)
#endif
#else
#define HERD_IMPL_FOR_HIP(MACRO)
#endif

/// Expands MACRO(ExecutionSpace) once for every enabled backend.
#define HERD_FOR_EACH_EXECUTION_SPACE(MACRO) \
  HERD_IMPL_FOR_SERIAL(MACRO) HERD_IMPL_FOR_OPENMP(MACRO) HERD_IMPL_FOR_CUDA(MACRO) HERD_IMPL_FOR_HIP(MACRO)

namespace herd::Details {

// Whether an execution space runs on the host's cores and reaches host memory (Serial, OpenMP,
// Threads) rather than on a GPU: the one test behind every choice that differs between the two.
template <class ExecutionSpace>
inline constexpr bool runs_on_host_v = Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible;

}  // namespace herd::Details
