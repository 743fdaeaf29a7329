// The layered population made by shares: every rank's share, ages and households must be what
// one process makes of the whole population, at any rank count. Each rank compares its own share
// against the one-process graph it builds alone; nothing is gathered.
#include <herd/herd.hpp>
#include <herd/mpi/collective.hpp>
#include <herd/mpi/distributed_graph.hpp>
#include <herd/mpi/distributed_population.hpp>

#include "same_share.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

namespace {

using namespace herd;
using herd::half;
using test::Exec;
using test::Memory;
using test::to_vector;

template <class WeightStorage>
void expect_one_process_share(LayeredPopulation const& spec, std::uint64_t seed, std::size_t round_edges,
                              std::string const& what) {
  Exec exec;
  MPI_Comm const comm = MPI_COMM_WORLD;
  SCOPED_TRACE(what);
  auto const whole = generate_population(exec, spec, seed);
  auto const part = mpi::population_part(exec, comm, spec, seed);
  // Every edge is made once: the parts' edges add up to the whole population's.
  auto edges = static_cast<unsigned long long>(part.edges.edges);
  MPI_Allreduce(MPI_IN_PLACE, &edges, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
  EXPECT_EQ(edges, whole.edges.size());
  auto const global = build_csr<WeightStorage>(exec, whole.edges);
  auto const built = mpi::build_local_graph<WeightStorage>(exec, comm, part.edges, {}, round_edges);
  test::expect_share_of(global, built, what);
  // The block's ages and households, in id order.
  auto const range = Kokkos::make_pair(static_cast<std::size_t>(part.first_agent),
                                       static_cast<std::size_t>(part.first_agent) + part.age_group.extent(0));
  EXPECT_EQ(to_vector(part.age_group), to_vector(Kokkos::subview(whole.age_group, range)));
  EXPECT_EQ(to_vector(part.household), to_vector(Kokkos::subview(whole.household, range)));
  EXPECT_EQ(part.age_group.extent(0), static_cast<std::size_t>(built.owned));
}

TEST(DistributedPopulation, EveryRankBuildsTheOneProcessShare) {
  LayeredPopulation usual;
  usual.agents = 20000;
  // Small groups: many schools, classes and workplaces, and members of one group on every rank.
  LayeredPopulation small = usual;
  small.agents = 5003;
  small.school_size = 40;
  small.class_size = 7;
  small.workplace_size = 6;
  small.employment = 0.5;
  small.community_degree = 3.5;
  // No workers, no class contacts, no community: empty layers and one group for all.
  LayeredPopulation sparse = usual;
  sparse.agents = 3001;
  sparse.employment = 0.0;
  sparse.class_contacts = 0;
  sparse.community_degree = 0.0;
  // Fewer groups than ranks, and a block of one agent per rank at 4 ranks.
  LayeredPopulation tiny = usual;
  tiny.agents = 4;
  for (std::size_t round : {std::size_t{0}, std::size_t{611}}) {
    auto const r = std::to_string(round);
    expect_one_process_share<float>(usual, 7, round, "usual, rounds of " + r);
    expect_one_process_share<float>(small, 8, round, "small groups, rounds of " + r);
    expect_one_process_share<float>(sparse, 9, round, "empty layers, rounds of " + r);
    expect_one_process_share<half>(small, 10, round, "half weights, rounds of " + r);
  }
  if (mpi::size_of(MPI_COMM_WORLD) <= tiny.agents) expect_one_process_share<float>(tiny, 11, 0, "four agents");
}

TEST(DistributedPopulation, MoreRanksThanAgentsFailOnEveryRank) {
  int const size = mpi::size_of(MPI_COMM_WORLD);
  if (size == 1) GTEST_SKIP() << "needs two ranks or more";
  LayeredPopulation spec;
  spec.agents = size - 1;
  Exec exec;
  std::string message;
  try {
    (void)mpi::population_part(exec, MPI_COMM_WORLD, spec, 1);
  } catch (mpi::CollectiveError const& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("every rank needs at least one agent"), std::string::npos) << message;
}

TEST(DistributedPopulation, ABadParameterFailsOnEveryRankAsOneProcess) {
  LayeredPopulation spec;
  spec.agents = 100;
  spec.employment = 1.5;
  Exec exec;
  std::string one, part;
  try {
    (void)generate_population(exec, spec, 1);
  } catch (Error const& e) {
    one = e.what();
  }
  try {
    (void)mpi::population_part(exec, MPI_COMM_WORLD, spec, 1);
  } catch (Error const& e) {
    part = e.what();
  }
  EXPECT_FALSE(one.empty());
  EXPECT_EQ(part, one);
}

}  // namespace
