#pragma once

#include <Kokkos_Core.hpp>

#include <cstring>
#include <type_traits>

namespace herd::Details {

/// std::bit_cast for C++17 that also compiles for CUDA and HIP device code.
template <class To, class From>
KOKKOS_INLINE_FUNCTION To bit_cast(From const& from) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast needs types of one size");
  static_assert(std::is_trivially_copyable<From>::value && std::is_trivially_copyable<To>::value,
                "bit_cast needs trivially copyable types");
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

}  // namespace herd::Details
