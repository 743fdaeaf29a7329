#pragma once

#include <herd/core/half.hpp>
#include <herd/core/types.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <utility>

namespace herd {

/// A directed neighbour graph in compressed sparse row form: the neighbours of agent i are
/// neighbours(row_offsets(i)) ... neighbours(row_offsets(i+1) - 1), in ascending order.
/// An undirected contact network stores each edge in both rows. Weights are optional (an empty
/// `weights` View means every edge weighs 1) and may be stored as float or a 16-bit type.
///
/// A layered graph also keeps each edge's contact layer, one byte (`layers`), and always has
/// weights (1 where its edges came without). An edge weighs its weight times its layer's factor:
/// a table of floats that a Simulation owns and a scenario changes between steps, so
/// that closing a layer rewrites no edge. Edges between one pair in two layers are both kept
/// (build_csr drops repeats within a layer only), so closing one layer leaves the other.
///
/// A stored layer byte with its top bit set (closed_layer) marks an entry that isolation closed
/// (herd::Interventions): its factor slot holds 0, so it weighs 0 on every path that reads
/// weights, until the bit is cleared. layer(e) gives the layer without the bit.
/// The layer a stored layer byte holds, without its closed_layer bit.
KOKKOS_INLINE_FUNCTION layer_index open_layer(layer_index byte) { return static_cast<layer_index>(byte & 0x7fu); }

template <class MemorySpace, class WeightStorage = float>
struct CsrGraph {
  using memory_space = MemorySpace;
  using weight_storage = WeightStorage;

  Kokkos::View<edge_offset*, MemorySpace> row_offsets;
  Kokkos::View<agent_index*, MemorySpace> neighbours;
  Kokkos::View<WeightStorage*, MemorySpace> weights;
  Kokkos::View<layer_index*, MemorySpace> layers;  ///< empty, or one layer byte per entry
  /// Empty, or a factor per layer byte (layer_factor_slots of them: those of closed entries 0)
  /// multiplying the weights of its edges.
  Kokkos::View<float*, MemorySpace> layer_factors;
  /// Whether every edge is stored in both directions with the same weight (as build_csr's
  /// symmetrise makes it): active-set stepping then pushes along the rows, without a transpose.
  /// False when unknown.
  bool symmetric = false;

  KOKKOS_INLINE_FUNCTION agent_index num_agents() const {
    return row_offsets.extent(0) == 0 ? 0 : static_cast<agent_index>(row_offsets.extent(0) - 1);
  }
  KOKKOS_INLINE_FUNCTION edge_offset num_edges() const { return neighbours.extent(0); }
  KOKKOS_INLINE_FUNCTION bool weighted() const { return weights.extent(0) != 0; }
  KOKKOS_INLINE_FUNCTION bool layered() const { return layers.extent(0) != 0; }
  /// Layer of entry e (0 in a graph without layers).
  KOKKOS_INLINE_FUNCTION layer_index layer(edge_offset e) const {
    return layered() ? open_layer(layers(e)) : layer_index{0};
  }
  /// Whether isolation closed entry e (see closed_layer).
  KOKKOS_INLINE_FUNCTION bool closed(edge_offset e) const { return layered() && (layers(e) & closed_layer) != 0; }
  /// The weight entry e stores, without its layer's factor.
  KOKKOS_INLINE_FUNCTION float stored_weight(edge_offset e) const {
    return weighted() ? storage_traits<WeightStorage>::load(weights(e)) : 1.0f;
  }
  KOKKOS_INLINE_FUNCTION agent_index degree(agent_index i) const {
    return static_cast<agent_index>(row_offsets(i + 1) - row_offsets(i));
  }
  /// The weight steps read: the stored weight times the layer's factor, where factors are set.
  KOKKOS_INLINE_FUNCTION float weight(edge_offset e) const {
    float const w = stored_weight(e);
    return layer_factors.extent(0) != 0 && layered() ? w * layer_factors(layers(e)) : w;
  }
};

/// The input of graph construction: one directed edge source -> target (and weight, and layer)
/// per entry.
template <class MemorySpace>
struct EdgeList {
  agent_index num_agents = 0;
  Kokkos::View<global_id*, MemorySpace> sources;
  Kokkos::View<global_id*, MemorySpace> targets;
  Kokkos::View<float*, MemorySpace> weights;       ///< empty, or one weight per edge
  Kokkos::View<layer_index*, MemorySpace> layers;  ///< empty, or one layer per edge

  std::size_t size() const { return sources.extent(0); }
};

/// Choices made while building a CSR graph from an edge list.
struct BuildOptions {
  bool symmetrise = true;       ///< store every edge in both directions (contact networks)
  bool drop_self_loops = true;  ///< drop edges i -> i
  /// Keep one of each repeated edge: the one with the largest weight. Edges between one pair in
  /// two layers are not repeats.
  bool drop_duplicates = true;
};

namespace Details {

/// Turns the rows' counts, stored at offsets(i + 1) with offsets(0) = 0, into the rows' offsets,
/// in place, and returns each row's first position in a new View (`cursor_label`): where a fill
/// that follows puts the row's next entry.
template <class ExecutionSpace, class Offset>
Kokkos::View<Offset*, typename ExecutionSpace::memory_space> counts_to_offsets(
    ExecutionSpace const& exec, Kokkos::View<Offset*, typename ExecutionSpace::memory_space> const& offsets,
    char const* cursor_label) {
  auto const n = static_cast<std::size_t>(offsets.extent(0));
  Kokkos::parallel_scan(
      "herd::csr::counts_to_offsets", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n),
      KOKKOS_LAMBDA(std::size_t i, Offset & partial, bool final) {
        partial += offsets(i);
        if (final) offsets(i) = partial;
      });
  Kokkos::View<Offset*, typename ExecutionSpace::memory_space> cursor(
      Kokkos::ViewAllocateWithoutInitializing(cursor_label), n > 0 ? n - 1 : 0);
  Kokkos::deep_copy(exec, cursor, Kokkos::subview(offsets, std::make_pair(std::size_t{0}, cursor.extent(0))));
  return cursor;
}

}  // namespace Details

}  // namespace herd
