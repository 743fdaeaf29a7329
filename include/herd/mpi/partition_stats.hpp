#pragma once

// What a partition costs each part: the figures that predict halo traffic before any MPI job runs.

#include <herd/graph/csr_graph.hpp>
#include <herd/mpi/partition.hpp>

#include <vector>

namespace herd {

struct PartStats {
  global_id owned = 0;
  global_id ghosts = 0;       ///< distinct agents of other parts that this part's agents read
  global_id sends = 0;        ///< (part, agent) pairs this part sends per exchange: its agents others read
  int neighbours = 0;         ///< parts this part receives ghosts from
  int send_parts = 0;         ///< parts this part sends ghosts to: on a directed graph, not the same
  edge_offset edges = 0;      ///< stored entries of this part's rows
  edge_offset cut_edges = 0;  ///< of which point to another part
};

/// Per-part statistics of `partition` on `graph`, computed on one device from the whole graph.
template <class ExecutionSpace, class WeightStorage>
std::vector<PartStats> partition_stats(ExecutionSpace const& exec,
                                       CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph,
                                       Partition<typename ExecutionSpace::memory_space> const& partition);

}  // namespace herd
