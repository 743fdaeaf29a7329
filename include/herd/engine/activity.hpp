#pragma once

// The bits a model reports per agent for active-set stepping (Model::activity), shared by the
// active set and the binned pushes.

#include <cstdint>

namespace herd {

/// What an agent's state allows this step, as Model::activity(i) reports it (bits).
namespace activity {
inline constexpr std::uint8_t none = 0;
inline constexpr std::uint8_t changes = 1;   ///< may change whatever its neighbours do (timers, draws)
inline constexpr std::uint8_t spreads = 2;   ///< neighbours that read it may change because of it
inline constexpr std::uint8_t receives = 4;  ///< may change if a neighbour spreads
/// The bits that make an agent a source of active-set stepping: it is listed whatever its
/// neighbours do, and the next step looks at it again.
inline constexpr std::uint8_t source = changes | spreads;
}  // namespace activity

}  // namespace herd
