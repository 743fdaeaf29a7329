// A population file read by row ranges: each rank reads its block of offsets and its rows'
// entries, and must build the share extract_local_graph cuts from the graph as stored. A bad row
// fails on every rank with the message one process reading the whole file gives. Attributes are
// read for the agents each rank asks for.
#include <herd/herd.hpp>
#include <herd/io/hdf5/agent_io.hpp>
#include <herd/io/hdf5/population.hpp>
#include <herd/mpi/collective.hpp>
#include <herd/mpi/distributed_graph.hpp>

#include "same_share.hpp"
#include "scratch.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using namespace herd;
using test::Exec;

std::string scratch(std::string const& name) {
  return test::scratch_path("herd_population_rows_" + name + "_" + std::to_string(mpi::size_of(MPI_COMM_WORLD)) +
                            ".h5");
}

// Random weighted pairs among `agents` agents built into a graph: rows both ways or one-way, and
// self-loops kept, which a population file may hold.
HostCsr random_graph(agent_index agents, bool directed) {
  Exec exec;
  HostEdgeList list;
  list.num_agents = agents;
  std::uint64_t state = 99;
  for (int k = 0; k < 8 * agents; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    list.sources.push_back(static_cast<global_id>((state >> 20) % static_cast<std::uint64_t>(agents)));
    list.targets.push_back(static_cast<global_id>((state >> 42) % static_cast<std::uint64_t>(agents)));
    list.weights.push_back(0.125f + static_cast<float>((state >> 8) % 1000) * 1e-3f);
  }
  BuildOptions options;
  options.symmetrise = !directed;
  options.drop_self_loops = false;
  return to_host(exec, build_csr<float>(exec, to_device(exec, list), options));
}

// The same, among the upper half of the agents only: the lower blocks' rows are empty.
HostCsr upper_half_graph(agent_index agents) {
  Exec exec;
  HostEdgeList list;
  list.num_agents = agents;
  for (agent_index k = 0; k < 4 * agents; ++k) {
    list.sources.push_back(agents / 2 + k % (agents / 2));
    list.targets.push_back(agents / 2 + (k * 7919) % (agents / 2));
  }
  return to_host(exec, build_csr<float>(exec, to_device(exec, list)));
}

TEST(PopulationRows, EachRankBuildsItsShareOfTheGraphAsStored) {
  Exec exec;
  for (bool directed : {false, true}) {
    auto const host = random_graph(4001, directed);
    auto const path = scratch(directed ? "directed" : "both-ways");
    io::PopulationInfo info;
    info.directed = directed;
    io::write_population(path, host, info, MPI_COMM_WORLD);
    auto const rows = io::read_population_rows(path, MPI_COMM_WORLD);
    EXPECT_EQ(rows.directed, directed);
    // Rows both ways are found so, by the ranks together and by one reader of the whole.
    EXPECT_EQ(rows.symmetric, !directed);
    EXPECT_EQ(io::read_population_graph(path, MPI_COMM_WORLD).symmetric, !directed);
    std::string const name = directed ? "one-way rows" : "rows both ways";
    auto const share = mpi::build_local_graph<float>(exec, MPI_COMM_WORLD, rows);
    EXPECT_EQ(share.mirrored, !directed);
    test::expect_share_of(to_device<float>(exec, host), share, name);
    test::expect_share_of(to_device<half>(exec, host), mpi::build_local_graph<half>(exec, MPI_COMM_WORLD, rows),
                          name + ", half");
    MPI_Barrier(MPI_COMM_WORLD);
    if (mpi::rank_of(MPI_COMM_WORLD) == 0) std::remove(path.c_str());
  }
  // The layered population, whose rows list a neighbour once in each layer they share: its layers
  // and their names come back.
  {
    LayeredPopulation spec;
    spec.agents = 4000;
    auto const global = build_csr<float>(exec, generate_population(exec, spec, 17).edges);
    auto host = to_host(exec, global);
    host.layer_names = population_layer_names();
    auto const path = scratch("layered");
    io::write_population(path, host, {}, MPI_COMM_WORLD);
    auto const rows = io::read_population_rows(path, MPI_COMM_WORLD);
    EXPECT_EQ(rows.layer_names, population_layer_names());
    EXPECT_TRUE(rows.symmetric);
    test::expect_share_of(global, mpi::build_local_graph<float>(exec, MPI_COMM_WORLD, rows), "layered");
    auto const whole = io::read_population_graph(path, MPI_COMM_WORLD);
    EXPECT_EQ(whole.layers, host.layers);
    EXPECT_EQ(whole.layer_names, population_layer_names());
    EXPECT_EQ(io::population_layer_names(path, MPI_COMM_WORLD), population_layer_names());
    MPI_Barrier(MPI_COMM_WORLD);
    if (mpi::rank_of(MPI_COMM_WORLD) == 0) std::remove(path.c_str());
  }
  // Unweighted, and the lower ranks' rows all empty: they read no entry, yet take part in the read.
  auto const host = upper_half_graph(3000);
  auto const path = scratch("upper-half");
  io::write_population(path, host, {}, MPI_COMM_WORLD);
  auto const rows = io::read_population_rows(path, MPI_COMM_WORLD);
  test::expect_share_of(to_device<float>(exec, host), mpi::build_local_graph<float>(exec, MPI_COMM_WORLD, rows),
                        "upper half");
  // Rows that are not the rank's block (here the last rank's, shifted by one) fail on every rank.
  auto shifted = rows;
  if (mpi::rank_of(MPI_COMM_WORLD) == mpi::size_of(MPI_COMM_WORLD) - 1) shifted.first -= 1;
  EXPECT_THROW((void)mpi::build_local_graph<float>(exec, MPI_COMM_WORLD, shifted), mpi::CollectiveError);
  MPI_Barrier(MPI_COMM_WORLD);
  if (mpi::rank_of(MPI_COMM_WORLD) == 0) std::remove(path.c_str());
}

// Writes `graph` (checked by no one) and returns what reading it by rows and whole say.
std::pair<std::string, std::string> errors_reading(HostCsr const& graph, std::string const& name) {
  auto const path = scratch(name);
  io::write_population(path, graph, {}, MPI_COMM_WORLD);
  std::string by_rows, whole;
  try {
    (void)io::read_population_rows(path, MPI_COMM_WORLD);
  } catch (mpi::CollectiveError const& e) {
    by_rows = e.what();
  }
  try {
    (void)io::read_population_graph(path, MPI_COMM_WORLD);
  } catch (Error const& e) {
    whole = e.what();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (mpi::rank_of(MPI_COMM_WORLD) == 0) std::remove(path.c_str());
  return {by_rows, whole};
}

// A file that says its rows were symmetrised, but one entry's weight, layer or reverse differs: its
// rows are valid, and are not taken as their own transpose, by the ranks or by one reader.
TEST(PopulationRows, RowsThatAreNotBothWaysAreNotTakenAsSymmetric) {
  Exec exec;
  LayeredPopulation spec;
  spec.agents = 3001;
  auto const good = to_host(exec, build_csr<float>(exec, generate_population(exec, spec, 5).edges));
  // An entry whose neighbour is alone in its row (in one layer), so that its layer may change.
  std::size_t at = 1;
  while (good.neighbours[at - 1] == good.neighbours[at] || good.neighbours[at + 1] == good.neighbours[at]) ++at;
  auto weight = good;
  weight.weights[at] *= 2.0f;
  auto layer = good;
  layer.layers[at] = static_cast<layer_index>((layer.layers[at] + 1) % 4);
  auto missing = good;  // without the last entry, which ends the last row that has one
  missing.neighbours.pop_back();
  missing.weights.pop_back();
  missing.layers.pop_back();
  for (auto& offset : missing.row_offsets)
    if (offset == good.row_offsets.back()) offset -= 1;
  for (auto const& [graph, name, symmetric] :
       {std::tuple{good, "good", true}, std::tuple{weight, "weight", false}, std::tuple{layer, "layer", false},
        std::tuple{missing, "missing", false}}) {
    SCOPED_TRACE(name);
    auto const path = scratch(std::string("mirror-") + name);
    io::write_population(path, graph, {}, MPI_COMM_WORLD);
    auto const rows = io::read_population_rows(path, MPI_COMM_WORLD);
    EXPECT_EQ(rows.symmetric, symmetric);
    EXPECT_EQ(io::read_population_graph(path, MPI_COMM_WORLD).symmetric, symmetric);
    EXPECT_EQ(mpi::build_local_graph<float>(exec, MPI_COMM_WORLD, rows).mirrored, symmetric);
    MPI_Barrier(MPI_COMM_WORLD);
    if (mpi::rank_of(MPI_COMM_WORLD) == 0) std::remove(path.c_str());
  }
}

TEST(PopulationRows, ABadRowFailsOnEveryRankNamingTheFirstAgentAtFault) {
  auto const good = random_graph(4001, false);
  auto const n = good.num_agents();
  auto row_of = [&](agent_index i) { return good.row_offsets[static_cast<std::size_t>(i)]; };
  // Agent n - 3's neighbours out of order: read by the last rank only.
  auto disorder = good;
  std::swap(disorder.neighbours[row_of(n - 3)], disorder.neighbours[row_of(n - 3) + 1]);
  // A negative weight in the middle, and then the disorder as well: the first is named.
  auto negative = good;
  negative.weights[row_of(n / 2)] = -1.0f;
  auto both = disorder;
  both.weights[row_of(n / 2)] = -1.0f;
  auto outside = good;
  outside.neighbours[row_of(n - 2)] = n + 5;
  for (auto const& [graph, name] : {std::pair{disorder, "disorder"}, std::pair{negative, "negative"},
                                    std::pair{both, "both"}, std::pair{outside, "outside"}}) {
    auto const [by_rows, whole] = errors_reading(graph, name);
    SCOPED_TRACE(name);
    EXPECT_FALSE(whole.empty());
    EXPECT_EQ(by_rows, whole);
  }
}

// Attributes read for the agents each rank asks for, scattered or its own block, in any order (a
// partition's owned agents): each gets the values one process reads for them, whichever rank's
// block holds them. A bad category code names the lowest agent at fault on every rank, wherever
// it was asked.
TEST(PopulationAttributes, EachRankGetsTheValuesOfTheAgentsItAsksFor) {
  auto const graph = random_graph(3001, false);
  auto const n = static_cast<std::size_t>(graph.num_agents());
  int const rank = mpi::rank_of(MPI_COMM_WORLD), ranks = mpi::size_of(MPI_COMM_WORLD);
  io::PopulationInfo info;
  info.attributes.rows = n;
  AttributeColumn group, x;
  group.name = "group";
  group.kind = AttributeColumn::Kind::category;
  group.categories = {"a", "b", "c"};
  x.name = "x";
  x.kind = AttributeColumn::Kind::real;
  for (std::size_t k = 0; k < n; ++k) {
    group.integers.push_back(static_cast<std::int64_t>(k * 7 % 3));
    x.reals.push_back(0.5 * static_cast<double>(k));
  }
  info.attributes.columns = {group, x};
  // Agents spread over the ranks by a hash, in descending order, with the last agent asked for
  // by every rank as well; and the rank's own block, in descending order.
  std::vector<global_id> scattered, own;
  for (std::size_t k = n; k-- > 0;)
    if (k * 2654435761u % 1009 % static_cast<std::size_t>(ranks) == static_cast<std::size_t>(rank))
      scattered.push_back(static_cast<global_id>(k));
  scattered.push_back(static_cast<global_id>(n - 1));
  auto const [first, last] = io::h5::block_of(n, rank, ranks);
  for (auto k = last; k-- > first;) own.push_back(static_cast<global_id>(k));
  auto const path = scratch("attributes");
  io::write_population(path, graph, info, MPI_COMM_WORLD);
  for (auto const* ids : {&scattered, &own}) {
    SCOPED_TRACE(ids == &own ? "own block" : "scattered");
    auto const read = io::read_population_attributes(path, {"group", "y", "x"}, MPI_COMM_WORLD, *ids);
    ASSERT_EQ(read.size(), 3u);
    EXPECT_FALSE(read[1]);
    ASSERT_TRUE(read[0] && read[2]);
    EXPECT_EQ(read[0]->kind, AttributeColumn::Kind::category);
    EXPECT_EQ(read[0]->categories, group.categories);
    EXPECT_EQ(read[2]->kind, AttributeColumn::Kind::real);
    ASSERT_EQ(read[0]->integers.size(), ids->size());
    ASSERT_EQ(read[2]->reals.size(), ids->size());
    for (std::size_t i = 0; i < ids->size(); ++i) {
      auto const k = static_cast<std::size_t>((*ids)[i]);
      ASSERT_EQ(read[0]->integers[i], group.integers[k]) << "agent " << k;
      ASSERT_EQ(read[2]->reals[i], x.reals[k]) << "agent " << k;
    }
  }
  // Codes outside the categories at agents 2000 and 2500.
  info.attributes.columns[0].integers[2500] = 9;
  info.attributes.columns[0].integers[2000] = 7;
  io::write_population(path, graph, info, MPI_COMM_WORLD);
  for (auto const* ids : {&scattered, &own}) {
    std::string message;
    try {
      (void)io::read_population_attributes(path, {"group"}, MPI_COMM_WORLD, *ids);
    } catch (mpi::CollectiveError const& e) {
      message = e.what();
    }
    EXPECT_EQ(message, path + ": /agents/group: agent 2000 has category code 7 of 3");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::remove(path.c_str());
}

}  // namespace
