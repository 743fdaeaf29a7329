#pragma once

// Eight agents' bytes (their activities, their flags) as the byte lanes of one word, and which
// lanes hold a flag as the bits of a byte: what passes over every agent read in place of eight
// loads and eight branches.

#include <herd/core/byte_order.hpp>
#include <herd/core/types.hpp>
#include <herd/engine/model_traits.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>

namespace herd::Details {

/// The byte lanes of `lanes` that share a bit with `flags`, as the bits of a byte: lane k's top bit
/// says whether it is non-zero (its low seven bits plus 0x7F carry into it, not beyond), and the
/// product moves each lane's bit to its own place in the top byte.
KOKKOS_INLINE_FUNCTION std::uint32_t lanes_with(std::uint64_t lanes, std::uint8_t flags) {
  constexpr std::uint64_t low = 0x7F7F7F7F7F7F7F7Full;
  std::uint64_t const hit = lanes & (flags * 0x0101010101010101ull);
  std::uint64_t const nonzero = (((hit & low) + low) | hit) & ~low;
  return static_cast<std::uint32_t>(((nonzero >> 7) * 0x0102040810204080ull) >> 56);
}

/// bytes[0, count) (count at most 8), bytes[k] in lane k: one load where all eight are there.
KOKKOS_INLINE_FUNCTION std::uint64_t byte_lanes(std::uint8_t const* bytes, agent_index count) {
  std::uint64_t lanes = 0;
  if constexpr (little_endian) {
    if (count == 8) {
      std::memcpy(&lanes, bytes, sizeof lanes);
      return lanes;
    }
  }
  for (agent_index k = 0; k < count; ++k) lanes |= static_cast<std::uint64_t>(bytes[k]) << (8 * k);
  return lanes;
}

/// activity() of the `agents` (at most 8) agents from `first`, a multiple of 8, agent first + k's
/// in byte k: eight at once where the model gives them so (Model::activity_word). (A function of
/// its own: an extended lambda may not first capture a variable under `if constexpr`.)
template <class Model>
KOKKOS_INLINE_FUNCTION std::uint64_t activities(Model const& model, agent_index first, agent_index agents) {
  if constexpr (declares_activity_words_v<Model>) {
    if (agents == 8) return model.activity_word(first);
  }
  std::uint64_t lanes = 0;
  for (agent_index k = 0; k < agents; ++k) lanes |= static_cast<std::uint64_t>(model.activity(first + k)) << (8 * k);
  return lanes;
}

}  // namespace herd::Details
