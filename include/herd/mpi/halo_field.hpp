#pragma once

// One property as a halo exchange carries it: a typed View of its values (owned agents, then
// ghosts) and, for sparse messages, the values the last exchange sent and received.

#include <herd/core/types.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace herd::mpi {

/// `values`: the owned agents' values, then the ghosts'. `previous`, when `sparse`, holds what
/// the last exchange sent and received (the property's other buffer after a swap), so that a
/// message need carry only the values that differ from it.
template <class T, class MemorySpace>
struct HaloField {
  static_assert(std::is_trivially_copyable_v<T>, "halo values travel as bytes");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                "halo values are 1, 2, 4 or 8 bytes");
  using value_type = T;
  using memory_space = MemorySpace;

  Kokkos::View<T*, MemorySpace> values;
  Kokkos::View<T const*, MemorySpace> previous;
  bool sparse = false;
};

/// The current values of a double-buffered property (agents/property.hpp): every one travels.
template <class Property>
HaloField<typename Property::storage_type, typename Property::memory_space> halo_field(Property const& property) {
  return {property.current(), {}, false};
}

/// As halo_field, after the property's buffers swapped: only the values that changed since the
/// last exchange travel, where that is shorter.
template <class Property>
HaloField<typename Property::storage_type, typename Property::memory_space> sparse_halo_field(
    Property const& property) {
  return {property.current(), property.next(), true};
}

namespace Details {

// Values are compared and moved as unsigned integers of their size: a sparse message must see
// every change of bits (a half's -0 and +0 differ), and one kernel serves every type of a size.
template <class T>
using bits_t = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                                  std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                                     std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;

/// A field's values, and its previous values, as bits.
template <class T, class MemorySpace>
bits_t<T>* value_bits(HaloField<T, MemorySpace> const& field) {
  return reinterpret_cast<bits_t<T>*>(field.values.data());
}
template <class T, class MemorySpace>
bits_t<T> const* previous_bits(HaloField<T, MemorySpace> const& field) {
  return reinterpret_cast<bits_t<T> const*>(field.previous.data());
}

}  // namespace Details

}  // namespace herd::mpi
