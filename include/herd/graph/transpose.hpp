#pragma once

#include <herd/core/error.hpp>
#include <herd/core/types.hpp>
#include <herd/detail/invert_rows.hpp>
#include <herd/graph/csr_graph.hpp>

#include <Kokkos_Core.hpp>

namespace herd {

/// The transpose of a graph: row j lists the agents whose rows list j, in no particular order, with
/// the weights and layers of those edges when the graph has them (and its layers' factors). For pushing from agents to
/// the agents that read them on a directed graph. `columns` (at least the rows) gives the transpose a row for every
/// index the rows may list: a rank's graph also lists its ghosts, which have no rows of their own.
template <class ExecutionSpace, class WeightStorage>
CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> transpose(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph,
    agent_index columns = -1) {
  using memory_space = typename ExecutionSpace::memory_space;
  require(columns < 0 || columns >= graph.num_agents(), "transpose: fewer columns than rows");
  auto const rows = static_cast<edge_offset>(graph.num_agents());
  CsrGraph<memory_space, WeightStorage> t;
  t.symmetric = graph.symmetric;
  t.neighbours = Kokkos::View<agent_index*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::transpose::neighbours"), graph.num_edges());
  if (graph.weighted())
    t.weights = Kokkos::View<WeightStorage*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::transpose::weights"), graph.num_edges());
  if (graph.layered())
    t.layers = Kokkos::View<layer_index*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::transpose::layers"), graph.num_edges());
  if (graph.layered()) t.layer_factors = graph.layer_factors;
  auto const offsets = graph.row_offsets;
  auto const neighbours = graph.neighbours;
  auto const weights = graph.weights;
  auto const layers = graph.layers;
  auto const out = t.neighbours;
  auto const out_weights = t.weights;
  auto const out_layers = t.layers;
  t.row_offsets = Details::invert_rows(
      exec, rows, graph.num_edges(), columns < 0 ? rows : static_cast<edge_offset>(columns),
      KOKKOS_LAMBDA(edge_offset i) { return offsets(i); },
      KOKKOS_LAMBDA(edge_offset e) { return static_cast<edge_offset>(neighbours(e)); },
      KOKKOS_LAMBDA(edge_offset at, edge_offset i, edge_offset e) {
        out(at) = static_cast<agent_index>(i);
        if (out_weights.extent(0)) out_weights(at) = weights(e);
        if (out_layers.extent(0)) out_layers(at) = layers(e);
      },
      "herd::transpose");
  return t;
}

}  // namespace herd
