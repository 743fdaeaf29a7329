#pragma once

// Partitioning a graph no rank holds whole, and moving its rows to their parts.
//
// The ranks start from shares in contiguous blocks (build_local_graph, or extract_local_graph
// under partition_contiguous). A parallel partitioner (PT-Scotch or ParMETIS), or METIS on one
// rank, then gives each of a rank's rows its part, and migrate_rows sends every row to its part. Nothing global is
// kept: the part of a ghost is asked of its home, the rank whose contiguous block holds it (a rendezvous directory), so
// no rank holds an owner map of all agents.

#include <herd/mpi/local_graph.hpp>
#include <herd/mpi/partition.hpp>

#include <mpi.h>

#include <vector>

namespace herd::mpi {

/// The part of each of this rank's owned agents (by local index) that PT-Scotch gives the whole
/// graph split into one part per rank. `share` is this rank's share in contiguous blocks. PT-Scotch
/// sees the graph symmetrised (an entry i -> j also links j to i), without self-loops or repeats,
/// with each agent weighted by one plus its row's entries, so that parts balance the step's work
/// (reads of neighbours), not only agents. Throws CollectiveError on every rank when this build has
/// no PT-Scotch, the graph is beyond PT-Scotch's integers, PT-Scotch fails, or a part is left
/// without agents (every rank of a run needs one). `symmetric`: the rows already hold each entry
/// both ways (a graph build_csr symmetrised), so PT-Scotch takes them as they are, without routing
/// every entry to its other end; a one-way graph claimed symmetric is one PT-Scotch does not allow.
/// Collective over `comm`.
template <class ExecutionSpace, class WeightStorage>
std::vector<int> ptscotch_parts(ExecutionSpace const& exec, MPI_Comm comm,
                                LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& share,
                                bool symmetric = false);

/// The same as ptscotch_parts, from ParMETIS's k-way partitioner (ParMETIS_V3_PartKway, equal
/// parts within 5 %, a fixed seed), or from Scotch's library of the same interface where Herd was
/// linked against that. Throws CollectiveError on every rank when this build has no ParMETIS, the
/// graph is beyond its integers, it fails, or a part is left without agents. Collective over `comm`.
template <class ExecutionSpace, class WeightStorage>
std::vector<int> parmetis_parts(ExecutionSpace const& exec, MPI_Comm comm,
                                LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& share,
                                bool symmetric = false);

/// The same as ptscotch_parts, from METIS k-way on one rank: the blocks' rows, symmetrised as
/// PT-Scotch takes them, are gathered on rank 0 alone (with METIS's copy, about 8 bytes an entry
/// and 40 an agent), which partitions them with partition_graph's seed and weights. The parts are those partition_graph
/// gives the whole graph on one process, and no other rank holds more than its block. Throws
/// CollectiveError on every rank when this build has no METIS, the graph is beyond 32-bit
/// integers (2^31 agents, symmetrised entries, or agents and stored entries together), rank 0
/// cannot hold it, METIS fails, or a part is left without agents. Collective over `comm`.
template <class ExecutionSpace, class WeightStorage>
std::vector<int> metis_parts(ExecutionSpace const& exec, MPI_Comm comm,
                             LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& share,
                             bool symmetric = false);

/// The parts `method` gives the owned agents of `share` (contiguous blocks): metis_parts,
/// ptscotch_parts or parmetis_parts; under contiguous blocks each stays on this rank.
template <class ExecutionSpace, class WeightStorage>
std::vector<int> parts_by(PartitionMethod method, ExecutionSpace const& exec, MPI_Comm comm,
                          LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& share,
                          bool symmetric = false) {
  switch (method) {
    case PartitionMethod::metis:
      return metis_parts(exec, comm, share, symmetric);
    case PartitionMethod::ptscotch:
      return ptscotch_parts(exec, comm, share, symmetric);
    case PartitionMethod::parmetis:
      return parmetis_parts(exec, comm, share, symmetric);
    case PartitionMethod::contiguous:
      break;
  }
  return std::vector<int>(static_cast<std::size_t>(share.owned), share.rank);
}

/// Moves each owned row of `share` (contiguous blocks) to rank parts[local index]: the result is
/// the LocalGraph extract_local_graph would cut from the whole graph under the partition the
/// ranks' `parts` describe, entry for entry. Ghosts learn their owners from the ranks whose blocks
/// hold them. A rank that no agent's part names ends with an empty share. Throws CollectiveError
/// on every rank when a part is out of range. Collective over `comm`.
template <class ExecutionSpace, class WeightStorage>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> migrate_rows(
    ExecutionSpace const& exec, MPI_Comm comm,
    LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& share, std::vector<int> const& parts);

}  // namespace herd::mpi
