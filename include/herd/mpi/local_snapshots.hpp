#pragma once

// A rank's share of a temporal network: each snapshot's rows of the rank's owned agents, their
// entries in the rank's local numbering (owned agents, then ghosts), as extract_local_graph gives
// the whole network's. The whole network's ghosts cover every snapshot's, so one halo plan serves
// every step.

#include <herd/core/error.hpp>
#include <herd/graph/csr_graph.hpp>
#include <herd/graph/temporal_network.hpp>
#include <herd/mpi/local_graph.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace herd::mpi {

/// Each snapshot of `global` (every rank holds it) cut to the rows of `local`'s owned agents,
/// with entries mapped to `local`'s indices and their weights, if any; each row keeps the order of
/// its global row. `local` is this rank's share of a graph that holds every snapshot's pairs (the
/// pairs that ever met).
/// Throws herd::Error when a snapshot names an agent that `local` neither owns nor reads.
template <class ExecutionSpace, class WeightStorage>
TemporalNetwork<typename ExecutionSpace::memory_space, WeightStorage> local_snapshots(
    ExecutionSpace const& exec, TemporalNetwork<typename ExecutionSpace::memory_space, WeightStorage> const& global,
    LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& local) {
  using memory_space = typename ExecutionSpace::memory_space;
  // Global id -> local index of the rank's stored agents, -1 for the others.
  Kokkos::View<agent_index*, memory_space> local_of(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::temporal::local_of"),
      static_cast<std::size_t>(global.num_agents()));
  Kokkos::deep_copy(exec, local_of, agent_index{-1});
  auto const ids = local.ids;
  Kokkos::parallel_for(
      "herd::temporal::local_of", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, local.local()),
      KOKKOS_LAMBDA(agent_index i) { local_of(ids(i)) = i; });
  TemporalNetwork<memory_space, WeightStorage> share;
  share.windows = global.windows;
  share.busy = global.busy;
  share.start = global.start;
  share.window = global.window;
  share.after_last = global.after_last;
  agent_index const owned = local.owned;
  for (auto const& g : global.graphs) {
    CsrGraph<memory_space, WeightStorage> part;
    part.row_offsets =
        Kokkos::View<edge_offset*, memory_space>("herd::temporal::local_offsets", static_cast<std::size_t>(owned) + 1);
    auto const offsets = part.row_offsets;
    auto const rows = g.row_offsets;
    Kokkos::parallel_for(
        "herd::temporal::local_degrees", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, owned),
        KOKKOS_LAMBDA(agent_index i) { offsets(i + 1) = rows(ids(i) + 1) - rows(ids(i)); });
    (void)herd::Details::counts_to_offsets(exec, offsets, "herd::temporal::local_cursor");
    edge_offset entries = 0;
    exec.fence();
    Kokkos::deep_copy(entries, Kokkos::subview(offsets, static_cast<std::size_t>(owned)));
    part.neighbours = Kokkos::View<agent_index*, memory_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::temporal::local_neighbours"), entries);
    if (g.weighted())
      part.weights = decltype(part.weights)(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::temporal::local_weights"), entries);
    auto const neighbours = part.neighbours;
    auto const weights = part.weights;
    auto const global_neighbours = g.neighbours;
    auto const global_weights = g.weights;
    agent_index unknown = 0;
    Kokkos::parallel_reduce(
        "herd::temporal::local_neighbours", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, owned),
        KOKKOS_LAMBDA(agent_index i, agent_index & missing) {
          auto const from = rows(ids(i));
          for (edge_offset e = 0; e < offsets(i + 1) - offsets(i); ++e) {
            agent_index const j = local_of(global_neighbours(from + e));
            neighbours(offsets(i) + e) = j;
            if (weights.extent(0) != 0) weights(offsets(i) + e) = global_weights(from + e);
            if (j < 0) ++missing;
          }
        },
        unknown);
    require(unknown == 0, "temporal network: a snapshot holds " + std::to_string(unknown) +
                              " entries of agents this rank neither owns nor reads (the share is of another graph)");
    share.graphs.push_back(part);
  }
  return share;
}

}  // namespace herd::mpi
