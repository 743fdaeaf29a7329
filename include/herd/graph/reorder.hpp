#pragma once

// Locality reordering. A permutation relabels agents so that neighbours sit close in memory; the
// engine keeps the original ids for random numbers and output, so a reordered simulation follows
// exactly the same trajectory as the original one, only faster.

#include <herd/graph/csr_graph.hpp>

#include <string>

namespace herd {

enum class Ordering {
  none,    ///< agents as given
  rcm,     ///< reverse Cuthill-McKee (Kokkos Kernels): bandwidth-reducing breadth-first order
  degree,  ///< descending degree: hubs first, grouping long rows
  random,  ///< a seeded shuffle: destroys locality, for measuring what reordering buys
  bfs      ///< Cuthill-McKee computed in parallel by Herd, on every backend (no Kokkos Kernels needed)
};

/// Parses "none", "rcm", "degree", "random" or "bfs"; throws herd::Error otherwise.
Ordering parse_ordering(std::string const& name);
std::string to_string(Ordering ordering);

/// new_of_old(i) is the new index of the agent that had index i; old_of_new is the inverse.
template <class MemorySpace>
struct Permutation {
  Kokkos::View<agent_index*, MemorySpace> new_of_old;
  Kokkos::View<agent_index*, MemorySpace> old_of_new;
};

/// Computes an ordering of a graph: Ordering::bfs walks a directed graph's entries both ways.
/// `seed` is used by Ordering::random only.
template <class ExecutionSpace, class WeightStorage>
Permutation<typename ExecutionSpace::memory_space> compute_ordering(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph,
    Ordering ordering, std::uint64_t seed = 0);

/// The graph relabelled by `permutation`. Each row keeps the order of its neighbours (and so
/// lists them by their global id where the graph was built sorted): a model that picks a neighbour
/// by its place in the row gets the same agent whatever the labels.
template <class ExecutionSpace, class WeightStorage>
CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> permute(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph,
    Permutation<typename ExecutionSpace::memory_space> const& permutation);

/// Global ids of the agents of a permuted graph: ids(i) = old_of_new(i), widened to 64 bits, for
/// herd::Simulation so that random draws and output follow the original ids.
template <class ExecutionSpace>
Kokkos::View<global_id*, typename ExecutionSpace::memory_space> global_ids_of(
    ExecutionSpace const& exec, Permutation<typename ExecutionSpace::memory_space> const& permutation);

/// Mean |i - j| over stored edges (i, j): a cheap measure of locality.
template <class ExecutionSpace, class WeightStorage>
double mean_edge_span(ExecutionSpace const& exec,
                      CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph);

}  // namespace herd
