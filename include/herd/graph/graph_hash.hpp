#pragma once

// A 64-bit fingerprint of a graph: checkpoints store it, so that a run resumed on another graph
// with the same counts is refused rather than continued on the wrong contacts.

#include <herd/core/bit_cast.hpp>
#include <herd/graph/csr_graph.hpp>
#include <herd/graph/temporal_network.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace herd {

namespace Details {
// splitmix64's finaliser: every input bit moves about half the output bits.
KOKKOS_INLINE_FUNCTION std::uint64_t mix64(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace Details

/// The sum over entries of a hash of (place, neighbour, stored weight bits, layer if any) and over
/// rows of a hash of (row, its end): the same for the same CSR arrays on any backend or thread
/// count, and different, but for a collision, when any neighbour, weight, layer or row length
/// differs. The layers' factors, which a scenario changes, are not part of it.
template <class ExecutionSpace, class WeightStorage>
std::uint64_t graph_hash(ExecutionSpace const& exec,
                         CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph) {
  auto const offsets = graph.row_offsets;
  auto const g = graph;
  std::uint64_t rows = 0, entries = 0;
  Kokkos::parallel_reduce(
      "herd::graph_hash::rows", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, graph.num_agents()),
      KOKKOS_LAMBDA(agent_index i, std::uint64_t & sum) {
        sum += Details::mix64((static_cast<std::uint64_t>(i) << 1 | 1) ^ Details::mix64(offsets(i + 1)));
      },
      rows);
  Kokkos::parallel_reduce(
      "herd::graph_hash::entries", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, graph.num_edges()),
      KOKKOS_LAMBDA(edge_offset e, std::uint64_t & sum) {
        std::uint64_t const w = Details::bit_cast<std::uint32_t>(g.stored_weight(e));
        std::uint64_t entry = Details::mix64(static_cast<std::uint64_t>(g.neighbours(e)) << 32 | w);
        if (g.layered()) entry = Details::mix64(entry ^ (std::uint64_t{g.layer(e)} + 1));
        sum += Details::mix64((static_cast<std::uint64_t>(e) << 1) ^ entry);
      },
      entries);
  return Details::mix64(rows) ^ entries;
}

/// A temporal network's fingerprint from the graph_hash of each of its distinct snapshots
/// (`snapshots[k]` of network.graphs[k]): theirs in window order, and what the steps read after
/// the last window.
template <class Network>
std::uint64_t temporal_hash(Network const& network, std::vector<std::uint64_t> const& snapshots) {
  std::uint64_t h = Details::mix64(network.windows << 1 | (network.after_last == AfterLastWindow::stop ? 1u : 0u));
  // Window by window, the empty ones included: the busy windows come in order.
  std::size_t s = 0;
  for (std::uint64_t w = 0; w < network.windows; ++w) {
    bool const busy = s < network.busy.size() && network.busy[s] == w;
    h = Details::mix64(h ^ snapshots[busy ? s + 1 : 0]);
    if (busy) ++s;
  }
  return h;
}

/// A temporal network's fingerprint (temporal_hash). Two reductions a distinct snapshot, each
/// waiting for the device.
template <class ExecutionSpace, class WeightStorage>
std::uint64_t graph_hash(ExecutionSpace const& exec,
                         TemporalNetwork<typename ExecutionSpace::memory_space, WeightStorage> const& network) {
  std::vector<std::uint64_t> snapshots;
  for (auto const& g : network.graphs) snapshots.push_back(graph_hash(exec, g));
  return temporal_hash(network, snapshots);
}

}  // namespace herd
