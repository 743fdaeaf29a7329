#pragma once

// One rank's share of a distributed graph.
//
// Local index space: owned agents first, then ghosts (agents owned elsewhere that an owned agent
// reads):
//
//   [ interior owned | boundary owned | ghosts of rank q0 | ghosts of rank q1 | ... ]
//     0 ... interior-1                  owned ...                         ... local-1
//
// Interior agents read only owned agents, so they can be stepped while ghost values are still in
// flight; boundary agents read at least one ghost. Each group is in ascending global id, ghosts
// grouped by owner rank so that one message from q fills one contiguous range. The CSR holds the
// rows of owned agents only, its neighbour entries are local indices, and each row keeps the
// order of the global row, so a model that picks "the k-th neighbour" picks the same agent on any
// number of ranks.

#include <herd/graph/csr_graph.hpp>
#include <herd/graph/transpose.hpp>
#include <herd/mpi/partition.hpp>

#include <vector>

namespace herd {

template <class MemorySpace, class WeightStorage = float>
struct LocalGraph {
  CsrGraph<MemorySpace, WeightStorage> graph;  ///< rows of owned agents; entries index owned and ghosts
  Kokkos::View<global_id*, MemorySpace> ids;   ///< global id of each local agent, owned then ghosts
  int rank = 0;                                ///< the part this is
  int parts = 1;
  global_id global_agents = 0;
  agent_index owned = 0;
  agent_index interior = 0;                ///< owned agents with no ghost neighbour: local 0 ... interior-1
  std::vector<int> ghost_owners;           ///< ranks owning this rank's ghosts, ascending
  std::vector<agent_index> ghost_offsets;  ///< ghosts of ghost_owners[k]: owned + [offsets[k], offsets[k+1])
  edge_offset cut_edges = 0;               ///< entries of owned rows that point to a ghost
  /// Whether the whole graph stores every entry both ways, with the same weight and layer (a
  /// symmetrised build): an owned agent's readers on this rank are then its row's owned entries.
  bool mirrored = false;

  agent_index ghosts() const { return ghost_offsets.empty() ? 0 : ghost_offsets.back(); }
  agent_index local() const { return owned + ghosts(); }
};

/// Extracts `rank`'s share of `global` (a graph every rank holds) under `partition`. Runs on the
/// device; the maps between global and local ids are built here, once.
template <class ExecutionSpace, class WeightStorage>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> extract_local_graph(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& global,
    Partition<typename ExecutionSpace::memory_space> const& partition, int rank);

/// The least and greatest global ids of `local`'s owned agents (max and lowest of global_id when
/// it owns none): whether they fill a range, as they do in a share by blocks.
template <class ExecutionSpace, class WeightStorage>
Kokkos::pair<global_id, global_id> owned_id_range(
    ExecutionSpace const& exec, LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& local) {
  using minmax = Kokkos::MinMax<global_id>;
  typename minmax::value_type range;
  auto const ids = local.ids;
  Kokkos::parallel_reduce(
      "herd::local::owned_id_range", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, local.owned),
      KOKKOS_LAMBDA(agent_index r, typename minmax::value_type & m) {
        if (ids(r) < m.min_val) m.min_val = ids(r);
        if (ids(r) > m.max_val) m.max_val = ids(r);
      },
      minmax(range));
  return {range.min_val, range.max_val};
}

/// The transpose of `local`'s rows over its stored agents (herd::transpose): row a lists the owned
/// agents whose rows name a. Only the cut is inverted where the rows are mirrored.
template <class ExecutionSpace, class WeightStorage>
CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> transpose_share(
    ExecutionSpace const& exec, LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& local) {
  return local.mirrored ? transpose_mirrored(exec, local.graph, local.local())
                        : transpose(exec, local.graph, local.local());
}

}  // namespace herd
