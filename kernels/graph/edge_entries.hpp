#pragma once

#include <herd/graph/csr_graph.hpp>

#include <Kokkos_Core.hpp>

namespace herd::Details {

// The CSR entries one edge makes: none for a dropped self-loop, one, or two when symmetrising.
// Graph construction on one process (build_csr) and by shares (mpi::build_local_graph) read
// edges through it alike, so both keep the same entries.
template <class MemorySpace>
struct EdgeEntries {
  EdgeList<MemorySpace> edges;
  bool drop_loops;
  bool both_ways;
  /// Calls put(row, neighbour, weight, layer) for each entry of edge e (weight 1 and layer 0 where
  /// the edges have none).
  template <class F>
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t e, F const& put) const {
    auto const s = static_cast<agent_index>(edges.sources(e)), t = static_cast<agent_index>(edges.targets(e));
    if (drop_loops && s == t) return;
    float const w = edges.weights.extent(0) ? edges.weights(e) : 1.0f;
    layer_index const l = edges.layers.extent(0) ? edges.layers(e) : layer_index{0};
    put(s, t, w, l);
    if (both_ways && s != t) put(t, s, w, l);
  }
};

}  // namespace herd::Details
