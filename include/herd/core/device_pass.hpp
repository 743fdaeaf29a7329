#pragma once

// Whether the current compiler pass generates GPU code (the device pass of CUDA or HIP). Code that
// uses host-only instructions (F16C, prefetch) or a layout that suits CPUs but not GPUs tests this
// one macro, so that a new GPU backend is added here once.
//
// Inside a KOKKOS_LAMBDA both passes must name the same variables of the enclosing scope. The
// lambda captures what its body names, and nvcc names the kernel after the captured types: a
// variable named in the host pass only gives the host's launch a kernel that the device code does
// not hold, and the launch fails at run time ("invalid resource handle"), with nothing reported at
// compile time. A branch that uses a variable in the host pass alone names it in an #else as well.

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define HERD_DEVICE_PASS 1
#else
#define HERD_DEVICE_PASS 0
#endif
