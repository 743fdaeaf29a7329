#pragma once

#include <herd/core/device_pass.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace herd::Details {

/// The position of the lowest set bit of a non-zero word.
KOKKOS_INLINE_FUNCTION int lowest_bit(std::uint32_t word) {
#if HERD_DEVICE_PASS
  return __ffs(static_cast<int>(word)) - 1;
#else
  return __builtin_ctz(word);
#endif
}

}  // namespace herd::Details
