#pragma once

#include <herd/core/device_pass.hpp>
#include <herd/core/error.hpp>
#include <herd/core/types.hpp>
#include <herd/detail/invert_rows.hpp>
#include <herd/graph/csr_graph.hpp>

#include <Kokkos_Core.hpp>

namespace herd {

namespace Details {

// A transpose of `graph` with room for its entries (weights and layers where it has them), and
// no offsets yet.
template <class MemorySpace, class WeightStorage>
CsrGraph<MemorySpace, WeightStorage> transpose_entries(CsrGraph<MemorySpace, WeightStorage> const& graph) {
  CsrGraph<MemorySpace, WeightStorage> t;
  t.symmetric = graph.symmetric;
  t.neighbours = Kokkos::View<agent_index*, MemorySpace>(
      Kokkos::ViewAllocateWithoutInitializing("herd::transpose::neighbours"), graph.num_edges());
  if (graph.weighted())
    t.weights = Kokkos::View<WeightStorage*, MemorySpace>(
        Kokkos::ViewAllocateWithoutInitializing("herd::transpose::weights"), graph.num_edges());
  if (graph.layered())
    t.layers = Kokkos::View<layer_index*, MemorySpace>(
        Kokkos::ViewAllocateWithoutInitializing("herd::transpose::layers"), graph.num_edges());
  if (graph.layered()) t.layer_factors = graph.layer_factors;
  return t;
}

// Puts entry e of `from` at position `at` of its transpose `to`, as read by row `reader`.
template <class Graph>
struct TransposedEntry {
  Graph from, to;
  KOKKOS_INLINE_FUNCTION void operator()(edge_offset at, agent_index reader, edge_offset e) const {
    to.neighbours(at) = reader;
    if (to.weighted()) to.weights(at) = from.weights(e);
    if (to.layered()) to.layers(at) = from.layers(e);
  }
};

}  // namespace Details

/// The transpose of a graph: row j lists the agents whose rows list j, in no particular order, with
/// the weights and layers of those edges when the graph has them (and its layers' factors). For pushing from agents to
/// the agents that read them on a directed graph. `columns` (at least the rows) gives the transpose a row for every
/// index the rows may list: a rank's graph also lists its ghosts, which have no rows of their own.
template <class ExecutionSpace, class WeightStorage>
CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> transpose(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph,
    agent_index columns = -1) {
  require(columns < 0 || columns >= graph.num_agents(), "transpose: fewer columns than rows");
  auto const rows = static_cast<edge_offset>(graph.num_agents());
  auto t = Details::transpose_entries(graph);
  auto const offsets = graph.row_offsets;
  auto const neighbours = graph.neighbours;
  Details::TransposedEntry<CsrGraph<typename ExecutionSpace::memory_space, WeightStorage>> const place{graph, t};
  t.row_offsets = Details::invert_rows(
      exec, rows, graph.num_edges(), columns < 0 ? rows : static_cast<edge_offset>(columns),
      KOKKOS_LAMBDA(edge_offset i) { return offsets(i); },
      KOKKOS_LAMBDA(edge_offset e) { return static_cast<edge_offset>(neighbours(e)); },
      KOKKOS_LAMBDA(edge_offset at, edge_offset i, edge_offset e) { place(at, static_cast<agent_index>(i), e); },
      "herd::transpose");
  return t;
}

namespace Details {

// How many entries ahead the mirrored transpose asks for a ghost's counter on a CPU, and half as
// many for the slot that counter points to. Each entry that names a ghost costs two cache misses
// at random (its counter, then its slot), which the hardware prefetcher cannot foresee; asked for
// ahead, they overlap: the count and the fill take about 40 % less time on a rank of one thread.
inline constexpr edge_offset mirrored_ahead = 64;

// The ghost that the entry `distance` places after e names, or -1: a row's agent, or past the end.
template <class Graph>
KOKKOS_INLINE_FUNCTION agent_index ghost_ahead(Graph const& graph, edge_offset e, edge_offset distance) {
  if (e + distance >= static_cast<edge_offset>(graph.neighbours.extent(0))) return -1;
  agent_index const coming = graph.neighbours(e + distance);
  return coming >= graph.num_agents() ? coming : -1;
}

// transpose_mirrored's count: a row counts its own entries that name rows into its offset; the
// ghosts' counts are shared between rows.
template <bool Shared, class Graph>
struct MirroredCount {
  Graph graph;
  Kokkos::View<edge_offset*, typename Graph::memory_space> out_offsets;
  KOKKOS_INLINE_FUNCTION void operator()(agent_index a) const {
    agent_index const rows = graph.num_agents();
    edge_offset own = 0;
    for (edge_offset e = graph.row_offsets(a); e < graph.row_offsets(a + 1); ++e) {
#if !HERD_DEVICE_PASS && (defined(__GNUC__) || defined(__clang__))
      if (agent_index const g = ghost_ahead(graph, e, mirrored_ahead); g >= 0)
        __builtin_prefetch(out_offsets.data() + g + 1, 1);
#endif
      agent_index const j = graph.neighbours(e);
      if (j < rows)
        ++own;
      else
        fetch_add<Shared>(out_offsets(j + 1), edge_offset{1});
    }
    out_offsets(a + 1) = own;
  }
};

// transpose_mirrored's fill: an entry that names a row lists that row as a reader of the row's
// agent, in order; one that names a ghost lists the row's agent as the ghost's reader.
template <bool Shared, class Graph>
struct MirroredFill {
  Graph graph, t;
  Kokkos::View<edge_offset*, typename Graph::memory_space> cursor;
  KOKKOS_INLINE_FUNCTION void operator()(agent_index a) const {
    agent_index const rows = graph.num_agents();
    TransposedEntry<Graph> const place{graph, t};
    edge_offset at = t.row_offsets(a);
    for (edge_offset e = graph.row_offsets(a); e < graph.row_offsets(a + 1); ++e) {
#if !HERD_DEVICE_PASS && (defined(__GNUC__) || defined(__clang__))
      if (agent_index const g = ghost_ahead(graph, e, mirrored_ahead); g >= 0) __builtin_prefetch(cursor.data() + g, 1);
      // Read where no other thread moves the counters.
      if (!Shared)
        if (agent_index const g = ghost_ahead(graph, e, mirrored_ahead / 2); g >= 0)
          __builtin_prefetch(t.neighbours.data() + cursor(g), 1);
#endif
      agent_index const j = graph.neighbours(e);
      if (j < rows)
        place(at++, j, e);
      else
        place(fetch_add<Shared>(cursor(j), edge_offset{1}), a, e);
    }
  }
};

// The count and fill of transpose_mirrored into `t` (its offsets zero, its entries allocated), with
// the ghosts' counters shared between threads or not (counters.hpp).
template <bool Shared, class ExecutionSpace, class Graph>
void fill_mirrored_transpose(ExecutionSpace const& exec, Graph const& graph, Graph const& t) {
  Kokkos::RangePolicy<ExecutionSpace> const rows(exec, 0, graph.num_agents());
  Kokkos::parallel_for("herd::transpose::count", rows, MirroredCount<Shared, Graph>{graph, t.row_offsets});
  auto const cursor = counts_to_offsets(exec, t.row_offsets, "herd::transpose::cursor");
  Kokkos::parallel_for("herd::transpose::fill", rows, MirroredFill<Shared, Graph>{graph, t, cursor});
}

}  // namespace Details

/// The same transpose (but for the order within a row) of rows taken from a graph that stores
/// every entry both ways, with the same weight and layer (a symmetrised build), with the first
/// `graph.num_agents()` of `columns` agents having rows: a rank's share, whose ghosts have none.
/// An agent with a row is read by the rows that its own row names, so its row of the transpose is
/// its row's entries that name rows, copied in order; only the entries that name the others (the
/// ghosts: the cut) are inverted, which on a share of few ghosts is most of the cost saved.
template <class ExecutionSpace, class WeightStorage>
CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> transpose_mirrored(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph,
    agent_index columns) {
  using memory_space = typename ExecutionSpace::memory_space;
  require(columns >= graph.num_agents(), "transpose: fewer columns than rows");
  auto t = Details::transpose_entries(graph);
  t.row_offsets = Kokkos::View<edge_offset*, memory_space>("herd::transpose::offsets", columns + 1);
  if (Details::shared_counters(exec))
    Details::fill_mirrored_transpose<true>(exec, graph, t);
  else
    Details::fill_mirrored_transpose<false>(exec, graph, t);
  return t;
}

}  // namespace herd
