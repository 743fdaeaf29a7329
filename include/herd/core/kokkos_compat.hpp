#pragma once

// Every difference between the Kokkos versions Herd supports (3.4 and 4.x) lives here.

#include <Kokkos_Core.hpp>

#if !defined(KOKKOS_VERSION) || KOKKOS_VERSION < 30400
#error "Herd needs Kokkos 3.4 or newer"
#endif

// Array reductions: Kokkos 3.x calls join() on volatile references; 4.x deprecates that form.
#if KOKKOS_VERSION < 40000
#define HERD_JOIN_VOLATILE volatile
#else
#define HERD_JOIN_VOLATILE
#endif

namespace herd::compat {

/// Page-locked host memory for staging device buffers through MPI: transfers to and from it run
/// at full bus speed. Plain host memory where there is no device.
#if defined(KOKKOS_ENABLE_CUDA)
using HostPinnedSpace = Kokkos::CudaHostPinnedSpace;
#elif defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION >= 40000
using HostPinnedSpace = Kokkos::HIPHostPinnedSpace;
#elif defined(KOKKOS_ENABLE_HIP)
using HostPinnedSpace = Kokkos::Experimental::HIPHostPinnedSpace;
#else
using HostPinnedSpace = Kokkos::HostSpace;
#endif

/// Number of threads an execution space instance runs on.
template <class ExecutionSpace>
int concurrency(ExecutionSpace const& exec) {
#if KOKKOS_VERSION >= 40000
  return exec.concurrency();
#else
  (void)exec;
  return ExecutionSpace::concurrency();
#endif
}

/// GPUs this process can see (0 on a host-only build), asked of the runtime before Kokkos starts.
inline int visible_devices() {
  int count = 0;
#if defined(KOKKOS_ENABLE_CUDA)
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
#elif defined(KOKKOS_ENABLE_HIP)
  if (hipGetDeviceCount(&count) != hipSuccess) count = 0;
#endif
  return count;
}

/// Initialises Kokkos with `threads` host threads (0: Kokkos' default). `node_rank`, a rank's
/// index among the ranks of its node (-1: not under MPI), picks its GPU round-robin, so that more
/// ranks than GPUs share them instead of asking for devices that do not exist. Without
/// `warnings`, Kokkos prints none (some, such as oversubscribed cores, go to standard output).
inline void initialize(int threads, int node_rank = -1, bool warnings = true) {
  int const devices = node_rank >= 0 ? visible_devices() : 0;
  int const device_id = devices > 0 ? node_rank % devices : -1;
#if KOKKOS_VERSION >= 40000
  Kokkos::InitializationSettings settings;
  if (threads > 0) settings.set_num_threads(threads);
  if (device_id >= 0) settings.set_device_id(device_id);
  if (!warnings) settings.set_disable_warnings(true);
  Kokkos::initialize(settings);
#else
  Kokkos::InitArguments arguments;
  arguments.num_threads = threads > 0 ? threads : -1;
  arguments.device_id = device_id;
  arguments.disable_warnings = !warnings;
  Kokkos::initialize(arguments);
#endif
}

}  // namespace herd::compat
