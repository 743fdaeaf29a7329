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
/// Contact layer of an edge (household, school, ...): one byte, whose low 7 bits hold the layer and
/// whose top bit (closed_layer) marks an entry that isolation closed, so a graph has at most 128 layers.
using layer_index = std::uint8_t;
/// Layers a graph may have.
inline constexpr int max_layers = 128;
/// The bit of a stored layer byte that closes its entry: its weight reads 0 until it reopens.
inline constexpr layer_index closed_layer = 0x80;
/// The largest finite 32-bit float (FLT_MAX): a weight or factor up to it is finite, one above is not.
inline constexpr float largest_float = 3.40282347e38f;
/// Entries of a simulation's factor table: one per layer byte, those of closed entries 0.
inline constexpr int layer_factor_slots = 2 * max_layers;

}  // namespace herd
