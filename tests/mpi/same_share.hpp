#pragma once

// Checks that a rank's share of a distributed graph is the one extract_local_graph cuts from the
// whole graph, field by field, on this rank alone: nothing is gathered.

#include <herd/herd.hpp>
#include <herd/mpi/distributed_graph.hpp>
#include <herd/mpi/local_graph.hpp>

#include <gtest/gtest.h>
#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

namespace herd::test {

using Exec = Kokkos::DefaultExecutionSpace;
using Memory = Exec::memory_space;

template <class View>
std::vector<typename View::non_const_value_type> to_vector(View const& view) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  return std::vector<typename View::non_const_value_type>(host.data(), host.data() + host.size());
}

/// Whether every rank's check held.
inline bool on_every_rank(bool ok) {
  int all = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

/// Expects `built` to be this rank's share of `global` under `partition`. Collective.
template <class WeightStorage>
void expect_share_under(CsrGraph<Memory, WeightStorage> const& global, Partition<Memory> const& partition,
                        LocalGraph<Memory, WeightStorage> const& built, std::string const& what) {
  Exec exec;
  int const rank = mpi::rank_of(MPI_COMM_WORLD);
  auto const expected = extract_local_graph(exec, global, partition, rank);
  SCOPED_TRACE(what + " on rank " + std::to_string(rank) + " of " + std::to_string(partition.parts));
  bool same = built.owned == expected.owned && built.interior == expected.interior &&
              built.global_agents == expected.global_agents && built.ghost_owners == expected.ghost_owners &&
              built.ghost_offsets == expected.ghost_offsets && built.cut_edges == expected.cut_edges &&
              to_vector(built.ids) == to_vector(expected.ids) &&
              to_vector(built.graph.row_offsets) == to_vector(expected.graph.row_offsets) &&
              to_vector(built.graph.neighbours) == to_vector(expected.graph.neighbours) &&
              to_vector(built.graph.layers) == to_vector(expected.graph.layers);
  auto const weights = to_vector(built.graph.weights), expected_weights = to_vector(expected.graph.weights);
  bool same_weights = weights.size() == expected_weights.size();
  for (std::size_t k = 0; same_weights && k < weights.size(); ++k)
    same_weights =
        storage_traits<WeightStorage>::load(weights[k]) == storage_traits<WeightStorage>::load(expected_weights[k]);
  EXPECT_TRUE(same);
  EXPECT_TRUE(same_weights);
  EXPECT_TRUE(on_every_rank(same && same_weights));
}

/// Expects `built` to be this rank's share of `global` under contiguous blocks, with the whole
/// graph's hash and degree extent. Collective.
template <class WeightStorage>
void expect_share_of(CsrGraph<Memory, WeightStorage> const& global, LocalGraph<Memory, WeightStorage> const& built,
                     std::string const& what) {
  Exec exec;
  MPI_Comm const comm = MPI_COMM_WORLD;
  expect_share_under(global, partition_contiguous(exec, global.num_agents(), mpi::size_of(comm)), built, what);
  EXPECT_EQ(mpi::graph_hash(exec, comm, built), graph_hash(exec, global));
  auto const extent = mpi::degree_extent(exec, comm, built);
  EXPECT_EQ(extent.first, degree_stats(exec, global).max_degree);
  EXPECT_EQ(extent.second, static_cast<std::uint64_t>(global.num_edges()));
}

}  // namespace herd::test
