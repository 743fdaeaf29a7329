#pragma once

// The layered population (herd::generate_population) made by shares: no rank makes or holds the
// whole population.
//
// Rank r owns the agents of its contiguous block. It finds the households that hold them by a
// scan over all ranks' household sizes (each rank sums a block of households, one all-gather),
// and makes the pairs of the households whose first member it owns. Schools and workplaces are
// met at a home rank: each member is sent to the rank whose block of groups holds its group, which
// then knows each group's members in order and draws their contacts. Community contacts are split
// by id. The rank keeps what makes its edges (its households' starts, its groups' members) and makes
// the edges a round at a time while its share is built.

#include <herd/graph/generators.hpp>
#include <herd/mpi/distributed_graph.hpp>

#include <Kokkos_Core.hpp>

#include <mpi.h>

#include <cstdint>

namespace herd::mpi {

template <class MemorySpace>
struct PopulationPart {
  EdgePart<MemorySpace> edges;                         ///< this rank's part of the population's edges
  global_id first_agent = 0;                           ///< the rank's block of agents begins here
  Kokkos::View<std::uint8_t*, MemorySpace> age_group;  ///< herd::AgeGroup of the block's agents, in id order
  Kokkos::View<agent_index*, MemorySpace> household;   ///< household index of the block's agents
};

/// This rank's part of generate_population(exec, spec, seed): every edge of the whole population
/// is made by exactly one rank, with the same ends and weight, and the rank's block of agents
/// (partition_contiguous) gets the ages and households one process gives them. Build the rank's
/// share with build_local_graph(exec, comm, part.edges). Throws herd::Error on a bad parameter (on
/// every rank alike) and CollectiveError on every rank when there are more ranks than agents.
/// Collective over `comm`.
template <class ExecutionSpace>
PopulationPart<typename ExecutionSpace::memory_space> population_part(ExecutionSpace const& exec, MPI_Comm comm,
                                                                      LayeredPopulation const& spec,
                                                                      std::uint64_t seed);

}  // namespace herd::mpi
