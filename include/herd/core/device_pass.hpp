#pragma once

// Whether the current compiler pass generates GPU code (the device pass of CUDA or HIP). Code that
// uses host-only instructions (F16C, prefetch) or a layout that suits CPUs but not GPUs tests this
// one macro, so that a new GPU backend is added here once.
//
// Inside a KOKKOS_LAMBDA both passes must name the same variables of the enclosing scope, first
// named in the same order. The lambda captures what its body names, in the order it first names
// them, and nvcc names the kernel after the captured types in that order: a variable named in the
// host pass only, or named there before another that the device pass names first, gives the
// host's launch a kernel that the device code does not hold, and the launch fails at run time
// ("invalid resource handle"), with nothing reported at compile time. A lambda with a branch for
// one pass therefore names every variable it captures at its top, before the branch.

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define HERD_DEVICE_PASS 1
#else
#define HERD_DEVICE_PASS 0
#endif
