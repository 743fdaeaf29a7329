// Rows moved from contiguous blocks to other parts, and PT-Scotch's and ParMETIS's parts: each rank's share must be
// the one extract_local_graph cuts from the whole graph under the same map of agents to parts, and
// a run on it the one-process run. Shares are compared on each rank; only the tests' expected maps
// are gathered.
#include <herd/herd.hpp>
#include <herd/mpi/collective.hpp>
#include <herd/mpi/distributed_simulation.hpp>
#include <herd/mpi/repartition.hpp>

#include "repeated_pairs.hpp"
#include "same_share.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <functional>
#include <string>
#include <vector>

namespace {

using namespace herd;
using herd::half;
using test::Exec;
using test::Memory;
using test::to_vector;

using PartOf = std::function<int(global_id)>;

int ranks() { return mpi::size_of(MPI_COMM_WORLD); }
int this_rank() { return mpi::rank_of(MPI_COMM_WORLD); }

Partition<Memory> partition_of(global_id agents, PartOf const& part_of) {
  Partition<Memory> p;
  p.parts = ranks();
  p.owner = Kokkos::View<int*, Memory>("owner", agents);
  auto host = Kokkos::create_mirror_view(p.owner);
  for (global_id g = 0; g < agents; ++g) host(g) = part_of(g);
  Kokkos::deep_copy(p.owner, host);
  return p;
}

template <class WeightStorage>
LocalGraph<Memory, WeightStorage> block_share(CsrGraph<Memory, WeightStorage> const& global) {
  Exec exec;
  return extract_local_graph(exec, global, partition_contiguous(exec, global.num_agents(), ranks()), this_rank());
}

// Moves this rank's block to the parts `part_of` names, and expects the share cut under that map.
template <class WeightStorage>
void expect_moved(CsrGraph<Memory, WeightStorage> const& global, PartOf const& part_of, std::string const& what) {
  Exec exec;
  auto const share = block_share(global);
  auto const ids = to_vector(share.ids);
  std::vector<int> parts(static_cast<std::size_t>(share.owned));
  for (std::size_t l = 0; l < parts.size(); ++l) parts[l] = part_of(ids[l]);
  auto const moved = mpi::migrate_rows(exec, MPI_COMM_WORLD, share, parts);
  test::expect_share_under(global, partition_of(global.num_agents(), part_of), moved, what);
  // The whole graph's hash, from shares under any partition (blocks reversed: each rank's agents
  // follow one another, but not those of lower ranks).
  EXPECT_EQ(mpi::graph_hash(exec, MPI_COMM_WORLD, moved), graph_hash(exec, global)) << what;
}

// A 64 x 64 torus whose ids follow no locality (a multiplicative shuffle), one edge right and one
// down per agent: symmetrised, or kept one-way; and `alone` more agents without contacts.
template <class WeightStorage = float>
CsrGraph<Memory, WeightStorage> shuffled_torus(bool directed, global_id alone = 0) {
  constexpr global_id side = 64, agents = side * side;
  auto const id = [&](global_id x, global_id y) { return ((y * side + x) * 1237) % agents; };
  EdgeList<Memory> list;
  list.num_agents = static_cast<agent_index>(agents + alone);
  list.sources = Kokkos::View<global_id*, Memory>("sources", 2 * agents);
  list.targets = Kokkos::View<global_id*, Memory>("targets", 2 * agents);
  auto s = Kokkos::create_mirror_view(list.sources);
  auto t = Kokkos::create_mirror_view(list.targets);
  for (global_id y = 0; y < side; ++y)
    for (global_id x = 0; x < side; ++x) {
      auto const k = static_cast<std::size_t>(2 * (y * side + x));
      s(k) = s(k + 1) = id(x, y);
      t(k) = id((x + 1) % side, y);
      t(k + 1) = id(x, (y + 1) % side);
    }
  Kokkos::deep_copy(list.sources, s);
  Kokkos::deep_copy(list.targets, t);
  BuildOptions options;
  options.symmetrise = !directed;
  return build_csr<WeightStorage>(Exec(), list, options);
}

std::uint64_t sum_over_ranks(std::uint64_t mine) {
  MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return mine;
}

TEST(Repartition, RowsMovedToAnyPartsAreTheOneProcessShare) {
  Exec exec;
  int const p = ranks();
  PartOf const scattered = [p](global_id g) {
    return static_cast<int>(((static_cast<std::uint64_t>(g) * 0x9e3779b97f4a7c15ull) >> 33) % static_cast<unsigned>(p));
  };
  auto const er_source = edge_source(exec, ErdosRenyi{4000, 8.0}, 31);
  auto const er = build_csr<float>(exec, er_source.slice(0, er_source.edges));
  auto const blocks = partition_contiguous(exec, er.num_agents(), p);
  auto const block_owner = to_vector(blocks.owner);
  PartOf const reversed = [&](global_id g) { return p - 1 - block_owner[static_cast<std::size_t>(g)]; };
  PartOf const first_rank = [](global_id) { return 0; };  // every other rank ends with nothing
  expect_moved(er, scattered, "erdos-renyi, scattered");
  expect_moved(er, reversed, "erdos-renyi, blocks reversed");
  expect_moved(er, first_rank, "erdos-renyi, all on rank 0");

  auto const source = test::repeated_pairs(3001, 20000);
  auto const pairs = source.slice(0, source.edges);
  expect_moved(build_csr<float>(exec, pairs), scattered, "weighted pairs");
  expect_moved(build_csr<half>(exec, pairs), scattered, "weighted pairs, half");
  BuildOptions one_way;
  one_way.symmetrise = false;
  expect_moved(build_csr<float>(exec, pairs, one_way), scattered, "weighted pairs, directed");
  LayeredPopulation population;
  population.agents = 3000;
  expect_moved(build_csr<float>(exec, generate_population(exec, population, 32).edges), scattered,
               "population, layered");
}

TEST(Repartition, APartOutOfRangeFailsOnEveryRank) {
  Exec exec;
  auto const share = block_share(shuffled_torus(false));
  std::vector<int> parts(static_cast<std::size_t>(share.owned), 0);
  if (this_rank() == ranks() - 1) parts.back() = ranks();
  try {
    (void)mpi::migrate_rows(exec, MPI_COMM_WORLD, share, parts);
    ADD_FAILURE() << "no error";
  } catch (mpi::CollectiveError const& e) {
    EXPECT_NE(std::string(e.what()).find("outside 0 ... " + std::to_string(ranks() - 1)), std::string::npos)
        << e.what();
  }
}

// The parallel partitioners, each giving the owned agents of a share in blocks their parts.
struct Partitioner {
  char const* name;
  bool available;
  std::vector<int> (*parts)(Exec const&, MPI_Comm, LocalGraph<Memory, float> const&, bool);
};

std::vector<Partitioner> partitioners() {
  return {{"ptscotch", have_ptscotch(), &mpi::ptscotch_parts<Exec, float>},
          {"parmetis", have_parmetis(), &mpi::parmetis_parts<Exec, float>},
          {"metis", have_metis(), &mpi::metis_parts<Exec, float>}};
}

// METIS on the rows gathered from the blocks gives one process's METIS partition of the whole graph.
TEST(Repartition, MetisOnOneRankGivesOneProcessParts) {
  if (!have_metis()) GTEST_SKIP() << "no METIS in this build";
  Exec exec;
  LayeredPopulation population;
  population.agents = 3000;
  for (auto const& [name, global] : std::vector<std::pair<std::string, CsrGraph<Memory, float>>>{
           {"torus", shuffled_torus(false)},
           {"directed torus", shuffled_torus(true)},
           {"population, layered", build_csr<float>(exec, generate_population(exec, population, 32).edges)}}) {
    SCOPED_TRACE(name);
    auto const share = block_share(global);
    auto const parts = mpi::metis_parts(exec, MPI_COMM_WORLD, share, global.symmetric);
    auto const expected = to_vector(partition_graph(exec, global, ranks(), PartitionMethod::metis).owner);
    auto const ids = to_vector(share.ids);
    ASSERT_EQ(parts.size(), static_cast<std::size_t>(share.owned));
    bool same = true;
    for (std::size_t l = 0; l < parts.size(); ++l)
      same = same && parts[l] == expected[static_cast<std::size_t>(ids[l])];
    EXPECT_TRUE(test::on_every_rank(same));
  }
}

TEST(Repartition, ParallelPartsCutLessThanBlocksAndMoveAsOneProcessCuts) {
  Exec exec;
  for (auto const& partitioner : partitioners()) {
    for (bool directed : {false, true}) {
      SCOPED_TRACE(std::string(partitioner.name) + (directed ? ", directed torus" : ", torus"));
      auto const global = shuffled_torus(directed);
      auto const share = block_share(global);
      if (!partitioner.available) {
        EXPECT_THROW((void)partitioner.parts(exec, MPI_COMM_WORLD, share, false), mpi::CollectiveError);
        continue;
      }
      auto const parts = partitioner.parts(exec, MPI_COMM_WORLD, share, false);
      ASSERT_EQ(parts.size(), static_cast<std::size_t>(share.owned));
      EXPECT_EQ(partitioner.parts(exec, MPI_COMM_WORLD, share, false), parts) << "not reproducible";
      // Rows stored both ways give the partitioner the same graph without routing, hence the same
      // parts.
      if (!directed) {
        EXPECT_EQ(partitioner.parts(exec, MPI_COMM_WORLD, share, true), parts);
      }
      bool in_range = true;
      std::vector<global_id> per_part(static_cast<std::size_t>(ranks()), 0);
      for (int q : parts) {
        in_range = in_range && q >= 0 && q < ranks();
        if (in_range) ++per_part[static_cast<std::size_t>(q)];
      }
      EXPECT_TRUE(test::on_every_rank(in_range));
      MPI_Allreduce(MPI_IN_PLACE, per_part.data(), ranks(), MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      for (auto count : per_part) EXPECT_GT(count, 0) << "an empty part";

      // The whole map, gathered for the expected share only.
      auto const ids = to_vector(share.ids);
      std::vector<int> owner(static_cast<std::size_t>(global.num_agents()), -1);
      for (std::size_t l = 0; l < parts.size(); ++l) owner[static_cast<std::size_t>(ids[l])] = parts[l];
      MPI_Allreduce(MPI_IN_PLACE, owner.data(), static_cast<int>(owner.size()), MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      auto const moved = mpi::migrate_rows(exec, MPI_COMM_WORLD, share, parts);
      test::expect_share_under(
          global, partition_of(global.num_agents(), [&](global_id g) { return owner[static_cast<std::size_t>(g)]; }),
          moved, partitioner.name);

      // Blocks of shuffled ids cut about (P - 1) / P of the entries; parts of a torus, a few per cent.
      auto const block_cut = sum_over_ranks(share.cut_edges), cut = sum_over_ranks(moved.cut_edges);
      if (ranks() > 1) {
        EXPECT_LT(4 * cut, block_cut) << cut << " entries cut against " << block_cut << " by blocks";
      }
    }
  }
}

// Agents without contacts take the highest ids (as those an attribute table adds to an edge list),
// so whole blocks give the partitioner no entries: it still gives every agent a part.
TEST(Repartition, BlocksWithoutContactsArePartitionedToo) {
  Exec exec;
  auto const global = shuffled_torus(false, 3 * 64 * 64);
  auto const share = block_share(global);
  for (auto const& partitioner : partitioners()) {
    if (!partitioner.available) continue;
    SCOPED_TRACE(partitioner.name);
    auto const parts = partitioner.parts(exec, MPI_COMM_WORLD, share, true);
    auto const moved = mpi::migrate_rows(exec, MPI_COMM_WORLD, share, parts);
    EXPECT_EQ(sum_over_ranks(static_cast<std::uint64_t>(moved.owned)), static_cast<std::uint64_t>(global.num_agents()));
    EXPECT_EQ(sum_over_ranks(moved.graph.num_edges()), static_cast<std::uint64_t>(global.num_edges()));
  }
}

TEST(Repartition, ARunOnParallelPartsMatchesOneProcess) {
  Exec exec;
  auto const source = edge_source(exec, PowerLaw{6000, 2.2, 6.0, 1500.0}, 23);
  auto const global = build_csr<float>(exec, source.slice(0, source.edges));
  SeirParameters p;
  p.beta = 0.15;
  p.infectious = Period::geometric(0.25);
  p.initial_infected = 15;
  Simulation<Exec> one(exec, global, 5);
  Seir<Memory> one_model(one.num_agents(), p);
  one_model.initialise(one, one.num_global());
  auto const expected = to_vector(run(one, one_model, 30));

  auto const share = block_share(global);
  for (auto const& partitioner : partitioners()) {
    if (!partitioner.available) continue;
    SCOPED_TRACE(partitioner.name);
    auto moved = mpi::migrate_rows(exec, MPI_COMM_WORLD, share, partitioner.parts(exec, MPI_COMM_WORLD, share, false));
    mpi::Ghosts<Exec> ghosts(exec, MPI_COMM_WORLD, std::move(moved));
    mpi::DistributedSimulation<Exec> sim(exec, std::move(ghosts), 5);
    Seir<Memory> model(sim.num_agents(), p);
    model.initialise(sim, sim.num_global());
    EXPECT_EQ(to_vector(run(sim, model, 30)), expected);
  }
}

}  // namespace
