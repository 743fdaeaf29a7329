#pragma once

#include <herd/core/error.hpp>
#include <herd/graph/csr_graph.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

namespace herd {

/// Builds a CSR graph on the device from an edge list: degrees counted (by atomics on GPUs, by
/// each CPU thread in counters of its own), offsets by a parallel scan, entries placed in their rows
/// and each row sorted in parallel (so the result does not depend on thread timing), then self-loops
/// and duplicates dropped as `options` asks. Edges with layers make a layered graph (weights 1
/// where the edges have none) whose duplicates are repeats within a layer. Throws herd::Error
/// naming the first edge with an id out of [0, num_agents) or a weight that is negative or not
/// finite.
template <class WeightStorage = float, class ExecutionSpace>
CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> build_csr(
    ExecutionSpace const& exec, EdgeList<typename ExecutionSpace::memory_space> const& edges,
    BuildOptions const& options = {});

/// Checks a CSR graph built elsewhere (read from a file, say): offsets start at 0, never decrease
/// and end at the neighbour count; neighbours lie in [0, num_agents); weights are finite and >= 0.
/// Throws herd::Error naming `what` and the first problem found.
template <class ExecutionSpace, class WeightStorage>
void validate(ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph,
              std::string const& what = "graph");

/// Throws herd::Error naming `what` where weights stored in 16 bits (half) hold one that did not
/// fit (above 65504: infinite), which a factor of 0 would turn into NaN, not a closed contact. A
/// pass over the entries; nothing for 32-bit weights.
template <class ExecutionSpace, class WeightStorage>
void check_weights_fit(ExecutionSpace const& exec,
                       CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph,
                       std::string const& what) {
  if constexpr (!std::is_same_v<WeightStorage, float>) {
    if (!graph.weighted()) return;
    auto const weights = graph.weights;
    std::size_t overflowed = 0;
    Kokkos::parallel_reduce(
        "herd::graph::check_weights_fit", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, graph.num_edges()),
        KOKKOS_LAMBDA(std::size_t e, std::size_t & count) {
          float const w = storage_traits<WeightStorage>::load(weights(e));
          if (!(w <= largest_float)) ++count;
        },
        overflowed);
    require(overflowed == 0, what +
                                 ": holds contact weights above 65504, the largest 16-bit float (half "
                                 "precision): store weights in 32 bits (--precision float)");
  } else {
    (void)exec, (void)graph, (void)what;
  }
}

namespace Details {
/// Throws herd::Error naming the first edge (numbered from `first_id`) with an id out of
/// [0, num_agents) or a weight that is negative or not finite.
template <class ExecutionSpace>
void check_edges(ExecutionSpace const& exec, EdgeList<typename ExecutionSpace::memory_space> const& edges,
                 std::size_t first_id);
}  // namespace Details

/// Degree statistics of a graph, reduced on the device.
struct DegreeStats {
  agent_index min_degree = 0;
  agent_index max_degree = 0;
  double mean_degree = 0.0;
};

template <class ExecutionSpace, class WeightStorage>
DegreeStats degree_stats(ExecutionSpace const& exec,
                         CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph);

}  // namespace herd
