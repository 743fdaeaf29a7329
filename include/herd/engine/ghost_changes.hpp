#pragma once

// Which ghosts changed: what a distributed simulation's halo tells active-set stepping, so that a
// rank follows its spreading ghosts in proportion to the ghosts that change, not to all of them.

#include <herd/core/types.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace herd {

/// The ghosts (agents past the stepped ones, whose values arrive from other ranks) that changed
/// since the last report. When `known` is false every ghost counts as changed: a message carried
/// all of its values, or nothing recorded the changes.
template <class MemorySpace>
struct GhostChanges {
  bool known = false;
  Kokkos::View<agent_index*, MemorySpace> list;  ///< local indices of the changed ghosts, each once, in no order
  agent_index count = 0;                         ///< how many `list` holds
  /// One per ghost (local index minus the stepped agents): nonzero for the listed ones.
  Kokkos::View<std::uint32_t*, MemorySpace> flags;
};

}  // namespace herd
