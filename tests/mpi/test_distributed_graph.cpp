// Distributed construction: each rank generates a share of the edges and builds only its rows,
// and must end with the share extract_local_graph cuts from the one-process graph. Each rank
// compares its own share; nothing is gathered.
#include <herd/herd.hpp>
#include <herd/mpi/collective.hpp>
#include <herd/mpi/distributed_graph.hpp>
#include <herd/mpi/distributed_simulation.hpp>
#include <herd/mpi/local_graph.hpp>

#include "repeated_pairs.hpp"
#include "same_share.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <memory>
#include <string>
#include <vector>

namespace {

using namespace herd;
using herd::half;
using test::Exec;
using test::Memory;
using test::repeated_pairs;
using test::to_vector;

// This rank's share built both ways, compared field by field.
template <class WeightStorage>
void expect_same_share(EdgeSource<Memory> const& source, BuildOptions const& options, std::size_t round_edges,
                       std::string const& what) {
  Exec exec;
  auto const global = build_csr<WeightStorage>(exec, source.slice(0, source.edges), options);
  auto const built = mpi::build_local_graph<WeightStorage>(exec, MPI_COMM_WORLD, source, options, round_edges);
  test::expect_share_of(global, built, what);
}

TEST(DistributedGraph, EveryGeneratorBuildsTheOneProcessShare) {
  Exec exec;
  // Small rounds: many of them, and some ranks with nothing to send in the last.
  for (std::size_t round : {std::size_t{0}, std::size_t{777}}) {
    expect_same_share<float>(edge_source(exec, ErdosRenyi{5000, 8.0}, 11), {}, round, "erdos-renyi");
    expect_same_share<float>(edge_source(exec, PowerLaw{5000, 2.2, 6.0, 1200.0}, 12), {}, round, "power-law");
    expect_same_share<float>(edge_source(exec, WattsStrogatz{5000, 3, 0.2}, 13), {}, round, "watts-strogatz");
    expect_same_share<half>(edge_source(exec, ErdosRenyi{5000, 8.0}, 14), {}, round, "erdos-renyi, half");
  }
}

// Blocks of many thousand rows: each rank's messages are packed by buckets of 4096 rows, which the
// smaller graphs above never fill past one.
TEST(DistributedGraph, LargeBlocksPackedByBucketsBuildTheOneProcessShare) {
  Exec exec;
  expect_same_share<float>(edge_source(exec, ErdosRenyi{50000, 6.0}, 15), {}, 0, "erdos-renyi, 50000 agents");
  expect_same_share<float>(edge_source(exec, PowerLaw{50000, 2.2, 4.0, 5000.0}, 16), {}, 4321,
                           "power-law, 50000 agents");
  expect_same_share<float>(repeated_pairs(40001, 150000), {}, 0, "repeated pairs, 40001 agents");
}

TEST(DistributedGraph, RepeatedEdgesKeepTheLargestWeightAsOneProcessDoes) {
  auto const source = repeated_pairs(3001, 40000);
  expect_same_share<float>(source, {}, 1000, "repeated pairs");
  expect_same_share<half>(source, {}, 1000, "repeated pairs, half");
  BuildOptions directed;
  directed.symmetrise = false;
  expect_same_share<float>(source, directed, 999, "repeated pairs, directed");
  BuildOptions everything;
  everything.drop_self_loops = false;
  everything.drop_duplicates = false;
  expect_same_share<float>(source, everything, 0, "repeated pairs, loops and repeats kept");
}

// The message of the CollectiveError that building `source` in rounds of 500 edges throws on
// every rank ("" and a failure if it throws none).
std::string collective_error(EdgeSource<Memory> const& source) {
  try {
    (void)mpi::build_local_graph<float>(Exec(), MPI_COMM_WORLD, source, {}, 500);
  } catch (mpi::CollectiveError const& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(DistributedGraph, ABadEdgeOnOneRankFailsOnEveryRank) {
  auto source = repeated_pairs(3001, 40000);
  auto const good = source.slice;
  // Edge 39999 is made by the last rank only.
  source.slice = [good](std::size_t first, std::size_t count) {
    auto list = good(first, count);
    if (first + count == 40000) Kokkos::deep_copy(Kokkos::subview(list.targets, count - 1), global_id{3001});
    return list;
  };
  auto const message = collective_error(source);
  EXPECT_NE(message.find("edge 39999"), std::string::npos) << message;
  EXPECT_NE(message.find("not below the agent count 3001"), std::string::npos) << message;
}

TEST(DistributedGraph, RanksGivenOtherSourcesFailTogether) {
  if (mpi::size_of(MPI_COMM_WORLD) == 1) GTEST_SKIP() << "one rank gives one source";
  bool const last = mpi::rank_of(MPI_COMM_WORLD) == mpi::size_of(MPI_COMM_WORLD) - 1;
  auto const message = collective_error(repeated_pairs(last ? 3000 : 2000, 40000));
  EXPECT_NE(message.find("build_local_graph: the ranks give different edge sources' agent counts (from 2000 to 3000)"),
            std::string::npos)
      << message;
}

TEST(DistributedGraph, ASourceThatChangesItsEdgesFailsOnEveryRank) {
  auto source = repeated_pairs(3001, 40000);
  auto const good = source.slice;
  // The second pass over the edges (after source.edges / P / 500 rounds) gets other targets.
  auto calls = std::make_shared<std::size_t>(0);
  source.slice = [good, calls](std::size_t first, std::size_t count) {
    auto list = good(first, count);
    if ((*calls)++ * 500 * static_cast<std::size_t>(mpi::size_of(MPI_COMM_WORLD)) >= 40000) {
      auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), list.targets);
      for (std::size_t k = 0; k < count; ++k) host(k) = (host(k) + 1) % 3001;
      Kokkos::deep_copy(list.targets, host);
    }
    return list;
  };
  auto const message = collective_error(source);
  EXPECT_NE(message.find("a function of its edge ids alone"), std::string::npos) << message;
}

TEST(DistributedGraph, ARunOnTheBuiltShareMatchesOneProcess) {
  Exec exec;
  auto const source = edge_source(exec, PowerLaw{6000, 2.2, 6.0, 1500.0}, 21);
  SeirParameters p;
  p.beta = 0.15;
  p.infectious = Period::geometric(0.25);
  p.initial_infected = 15;
  auto const global = build_csr<float>(exec, source.slice(0, source.edges));
  Simulation<Exec> one(exec, global, 5);
  Seir<Memory> one_model(one.num_agents(), p);
  one_model.initialise(one, one.num_global());
  auto const expected = to_vector(run(one, one_model, 30));

  mpi::Ghosts<Exec> ghosts(exec, MPI_COMM_WORLD, mpi::build_local_graph<float>(exec, MPI_COMM_WORLD, source, {}, 3000));
  mpi::DistributedSimulation<Exec> sim(exec, std::move(ghosts), 5);
  Seir<Memory> model(sim.num_agents(), p);
  model.initialise(sim, sim.num_global());
  auto const history = to_vector(run(sim, model, 30));
  EXPECT_EQ(history, expected);
}

}  // namespace
