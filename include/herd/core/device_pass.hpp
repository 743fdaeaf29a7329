#pragma once

// Whether the current compiler pass generates GPU code (the device pass of CUDA or HIP). Code that
// uses host-only instructions (F16C, prefetch) or a layout that suits CPUs but not GPUs tests this
// one macro, so that a new GPU backend is added here once.

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define HERD_DEVICE_PASS 1
#else
#define HERD_DEVICE_PASS 0
#endif
