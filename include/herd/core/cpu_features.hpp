#pragma once

// What the x86-64 CPU running this process can do, asked of the CPU itself (cpuid). Used where a
// build targets instructions beyond baseline x86-64 (F16C, for the half conversions) to stop with a
// message on a CPU without them, and by the build to decide whether to target them. No Kokkos:
// CMake compiles this header alone.

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

namespace herd::Details {

/// Whether the CPU has F16C and AVX and the operating system saves the AVX registers (-mf16c
/// implies AVX). False on any other architecture.
inline bool cpu_has_f16c() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  bool const f16c = (ecx >> 29) & 1u, avx = (ecx >> 28) & 1u, osxsave = (ecx >> 27) & 1u;
  if (!(f16c && avx && osxsave)) return false;
  unsigned low = 0, high = 0;
  __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  unsigned long long const xcr0 = static_cast<unsigned long long>(high) << 32 | low;
  return (xcr0 & 6u) == 6u;  // the operating system saves XMM and YMM registers
#else
  return false;
#endif
}

}  // namespace herd::Details
