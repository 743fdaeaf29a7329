#pragma once

// One simulation spread over the ranks of a communicator: herd::Simulation with mpi::Ghosts as
// its distribution. Each rank steps its owned agents and keeps ghost copies of the agents they
// read; models are written exactly as for one process and run unchanged.

#include <herd/engine/simulation.hpp>
#include <herd/graph/graph_hash.hpp>
#include <herd/mpi/collective.hpp>
#include <herd/mpi/ghosts.hpp>
#include <herd/mpi/local_graph.hpp>
#include <herd/mpi/partition.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

namespace herd::mpi {

/// This rank's share of `global`, a graph every rank of `comm` holds alike, partitioned into one
/// part per rank with `method`. Collective: a failure on any rank (more ranks than agents, METIS
/// missing), or ranks holding other graphs (by graph_hash), throws CollectiveError on every rank.
template <class ExecutionSpace, class WeightStorage>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> distribute(
    ExecutionSpace const& exec, MPI_Comm comm,
    CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& global,
    PartitionMethod method = PartitionMethod::contiguous) {
  require_same(comm, "distribute",
               {{"graphs (a hash of their entries)", static_cast<std::int64_t>(graph_hash(exec, global))}});
  return collectively(comm, [&] {
    auto const partition = partition_graph(exec, global, size_of(comm), method);
    return extract_local_graph(exec, global, partition, rank_of(comm));
  });
}

/// A simulation whose agents are spread over ranks: made from an mpi::Ghosts (collective), as
/// `DistributedSimulation<Exec> sim(exec, Ghosts<Exec>(exec, comm, distribute(exec, comm, graph)), seed)`.
template <class ExecutionSpace = Kokkos::DefaultExecutionSpace, class WeightStorage = float>
using DistributedSimulation = Simulation<ExecutionSpace, WeightStorage, Ghosts<ExecutionSpace, WeightStorage>>;

}  // namespace herd::mpi
