#pragma once

// Which rank owns which agent. A partition is a map from global id to part, computed once before a
// distributed run; every rank holds the same map.
//
// Contiguous blocks need only the agent count, METIS needs the whole graph on one process.
// PT-Scotch and ParMETIS partition a graph the ranks hold in contiguous blocks, and no rank ever
// holds the whole map: see herd/mpi/repartition.hpp.

#include <herd/graph/csr_graph.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace herd {

enum class PartitionMethod {
  contiguous,  ///< rank r owns agents [r N / P, (r + 1) N / P): free, and good when ids follow locality
  metis,       ///< METIS k-way: fewer cut edges on graphs whose ids do not follow locality
  ptscotch,    ///< PT-Scotch on the distributed graph (mpi::ptscotch_parts): no rank holds the whole graph
  parmetis     ///< ParMETIS on the distributed graph (mpi::parmetis_parts): no rank holds the whole graph
};

/// Parses "contiguous", "metis", "ptscotch" or "parmetis"; throws herd::Error otherwise.
PartitionMethod parse_partition_method(std::string const& name);
std::string to_string(PartitionMethod method);
/// Whether this build of Herd can partition with METIS.
bool have_metis();
/// Whether this build of Herd can partition with PT-Scotch.
bool have_ptscotch();
/// Whether this build of Herd can partition with ParMETIS (or Scotch's library of its interface).
bool have_parmetis();

/// owner(g) is the part (rank) that owns global agent g.
template <class MemorySpace>
struct Partition {
  int parts = 1;
  Kokkos::View<int*, MemorySpace> owner;

  global_id num_agents() const { return static_cast<global_id>(owner.extent(0)); }
};

/// Contiguous blocks of agents, sizes differing by at most one.
template <class ExecutionSpace>
Partition<typename ExecutionSpace::memory_space> partition_contiguous(ExecutionSpace const& exec, global_id agents,
                                                                      int parts);

/// Partitions `graph` (symmetric, as built for contact networks) into `parts` with `method`.
/// METIS runs on the host with a fixed seed, so every process computing it gets the same map.
/// Throws herd::Error when there are more parts than agents or METIS is missing, and for PT-Scotch
/// and ParMETIS (which partition shares, not a graph one process holds) unless `parts` is 1.
template <class ExecutionSpace, class WeightStorage>
Partition<typename ExecutionSpace::memory_space> partition_graph(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph, int parts,
    PartitionMethod method);

namespace Details {
/// METIS k-way on a host CSR graph; owner receives one part per agent. A graph not known to be
/// symmetric (directed, or read from a file) is symmetrised first, without self-loops or repeated
/// neighbours, as METIS requires.
void metis_partition(Kokkos::View<edge_offset const*, Kokkos::HostSpace> offsets,
                     Kokkos::View<agent_index const*, Kokkos::HostSpace> neighbours, bool symmetric, int parts,
                     Kokkos::View<int*, Kokkos::HostSpace> owner);
/// METIS k-way, with the seed metis_partition uses, on rows already as METIS takes them (each
/// neighbour once, both ways, no self-loops), agent i weighing weights[i]: owner receives one
/// part per agent. Throws herd::Error when METIS is missing or fails.
void metis_partition_rows(std::vector<std::int64_t> const& offsets, std::vector<agent_index> const& neighbours,
                          std::vector<std::int64_t> const& weights, int parts, std::vector<int>& owner);
}  // namespace Details

}  // namespace herd
