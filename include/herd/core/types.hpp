#pragma once

#include <cstddef>
#include <cstdint>

namespace herd {

/// Index of an agent on this process; also the type of CSR neighbour entries.
using agent_index = std::int32_t;
/// Offset into a CSR neighbour array: a graph may hold more than 2^31 edges.
using edge_offset = std::size_t;
/// Identity of an agent in the whole simulation, whatever rank or ordering holds it.
using global_id = std::int64_t;
/// Contact layer of an edge (household, school, ...): one byte, so a graph has at most 256 layers.
using layer_index = std::uint8_t;
/// Layers a graph may have: the values of a layer_index.
inline constexpr int max_layers = 256;

}  // namespace herd
