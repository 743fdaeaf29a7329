#include "test_common.hpp"

#include <herd/mpi/local_graph.hpp>
#include <herd/mpi/partition_stats.hpp>

#include <algorithm>
#include <set>

namespace {

using namespace herd;
using herd::test::to_vector;

template <class ExecutionSpace>
class Partitioning : public ::testing::Test {};
TYPED_TEST_SUITE(Partitioning, herd::test::ExecutionSpaces);

TYPED_TEST(Partitioning, ContiguousBlocksCoverEveryAgentOnceWithSizesWithinOne) {
  TypeParam exec;
  for (int parts : {1, 2, 3, 7, 64}) {
    auto const owner = to_vector(partition_contiguous(exec, 1000, parts).owner);
    std::vector<int> sizes(parts, 0);
    for (std::size_t g = 0; g < owner.size(); ++g) {
      ASSERT_GE(owner[g], 0);
      ASSERT_LT(owner[g], parts);
      if (g > 0) {
        ASSERT_GE(owner[g], owner[g - 1]) << "blocks must be contiguous";
      }
      ++sizes[owner[g]];
    }
    auto const [low, high] = std::minmax_element(sizes.begin(), sizes.end());
    EXPECT_LE(*high - *low, 1) << parts << " parts";
    EXPECT_GE(*low, 1);
  }
}

TYPED_TEST(Partitioning, MorePartsThanAgentsIsAClearError) {
  TypeParam exec;
  try {
    partition_contiguous(exec, 3, 4);
    FAIL() << "no error";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("cannot split 3 agents into 4 parts"), std::string::npos) << e.what();
  }
}

TYPED_TEST(Partitioning, MetisCutsFewerEdgesThanContiguousBlocksOfAShuffledGraph) {
  if (!have_metis()) GTEST_SKIP() << "built without METIS";
  TypeParam exec;
  // A ring lattice whose ids are shuffled: contiguous blocks cut nearly every edge, while the
  // graph has cuts of a few edges per part.
  auto ring = herd::test::generated_graph<TypeParam>(WattsStrogatz{4000, 3, 0.0}, 1);
  auto shuffled = permute(exec, ring, compute_ordering(exec, ring, Ordering::random, 9));
  auto edges_cut = [&](Partition<typename TypeParam::memory_space> const& p) {
    edge_offset cut = 0;
    for (auto const& s : partition_stats(exec, shuffled, p)) cut += s.cut_edges;
    return cut;
  };
  auto const metis = partition_graph(exec, shuffled, 4, PartitionMethod::metis);
  auto const owner = to_vector(metis.owner);
  for (int part = 0; part < 4; ++part) EXPECT_GT(std::count(owner.begin(), owner.end(), part), 800);
  EXPECT_LT(edges_cut(metis) * 20, edges_cut(partition_graph(exec, shuffled, 4, PartitionMethod::contiguous)));
}

// On a power-law graph, whose hubs hold many entries each, METIS weighs each agent by one plus its
// row's entries: no part holds 15 % more than a quarter of the entries (1.08 here), where parts of
// equal agents give one part 1.5 times a quarter.
TYPED_TEST(Partitioning, MetisBalancesEntriesNotOnlyAgents) {
  if (!have_metis()) GTEST_SKIP() << "built without METIS";
  TypeParam exec;
  auto const graph = herd::test::generated_graph<TypeParam>(PowerLaw{20000, 2.1, 4.0, 2000.0}, 5);
  auto const offsets = to_vector(graph.row_offsets);
  auto const owner = to_vector(partition_graph(exec, graph, 4, PartitionMethod::metis).owner);
  std::vector<double> entries(4, 0.0), agents(4, 0.0);
  for (std::size_t i = 0; i < owner.size(); ++i) {
    entries[static_cast<std::size_t>(owner[i])] += static_cast<double>(offsets[i + 1] - offsets[i]);
    agents[static_cast<std::size_t>(owner[i])] += 1.0;
  }
  double const mean = static_cast<double>(offsets.back()) / 4;
  EXPECT_LE(*std::max_element(entries.begin(), entries.end()), 1.15 * mean) << "the most entries a part holds";
  EXPECT_GT(*std::max_element(agents.begin(), agents.end()), 1.06 * owner.size() / 4)
      << "parts of equal entries hold unequal agents on this graph";
}

// A path 0 - 1 - 2 - ... - 9 in two blocks: rank 0 owns 0..4, whose agent 4 reads agent 5.
TYPED_TEST(Partitioning, LocalGraphOfAPathHasTheKnownGhostsAndBoundary) {
  using Exec = TypeParam;
  Exec exec;
  std::vector<global_id> from, to;
  for (global_id i = 0; i + 1 < 10; ++i) {
    from.push_back(i);
    to.push_back(i + 1);
  }
  auto graph = build_csr(exec, herd::test::edge_list<Exec>(10, from, to));
  auto const partition = partition_contiguous(exec, 10, 3);  // 0..2, 3..5, 6..9
  auto const middle = extract_local_graph(exec, graph, partition, 1);
  EXPECT_EQ(middle.owned, 3);
  EXPECT_EQ(middle.interior, 1);  // agent 4; 3 reads 2, 5 reads 6
  EXPECT_EQ(to_vector(middle.ids), (std::vector<global_id>{4, 3, 5, 2, 6}));
  EXPECT_EQ(middle.ghost_owners, (std::vector<int>{0, 2}));
  EXPECT_EQ(middle.ghost_offsets, (std::vector<agent_index>{0, 1, 2}));
  EXPECT_EQ(middle.cut_edges, 2u);
  // Rows in local indices, in global order: 4 -> {3, 5}, 3 -> {2, 4}, 5 -> {4, 6}.
  EXPECT_EQ(to_vector(middle.graph.row_offsets), (std::vector<edge_offset>{0, 2, 4, 6}));
  EXPECT_EQ(to_vector(middle.graph.neighbours), (std::vector<agent_index>{1, 2, 3, 0, 0, 4}));

  auto const stats = partition_stats(exec, graph, partition);
  ASSERT_EQ(stats.size(), 3u);
  EXPECT_EQ(stats[1].ghosts, 2);
  EXPECT_EQ(stats[1].sends, 2);
  EXPECT_EQ(stats[1].neighbours, 2);
  EXPECT_EQ(stats[0].ghosts, 1);
  EXPECT_EQ(stats[0].neighbours, 1);
  EXPECT_EQ(stats[1].edges, 6u);
  EXPECT_EQ(stats[1].cut_edges, 2u);
}

// A directed star: every agent of blocks 1 to 3 reads agent 0, which reads no one. Block 0 sends
// to three parts and receives from none: its messages are the parts it sends to.
TYPED_TEST(Partitioning, ADirectedHubSendsToPartsItReceivesNothingFrom) {
  using Exec = TypeParam;
  Exec exec;
  std::vector<global_id> from, to;
  for (global_id i = 3; i < 12; ++i) {
    from.push_back(i);
    to.push_back(0);
  }
  BuildOptions directed;
  directed.symmetrise = false;
  auto graph = build_csr(exec, herd::test::edge_list<Exec>(12, from, to), directed);
  auto const stats = partition_stats(exec, graph, partition_contiguous(exec, 12, 4));
  ASSERT_EQ(stats.size(), 4u);
  EXPECT_EQ(stats[0].ghosts, 0);
  EXPECT_EQ(stats[0].neighbours, 0);
  EXPECT_EQ(stats[0].sends, 3);
  EXPECT_EQ(stats[0].send_parts, 3);
  for (int p = 1; p < 4; ++p) {
    EXPECT_EQ(stats[p].ghosts, 1);
    EXPECT_EQ(stats[p].neighbours, 1);
    EXPECT_EQ(stats[p].send_parts, 0);
  }
}

// On any graph and partition: every agent owned by exactly one share, every ghost owned by the
// rank it is listed under, and local rows equal global rows.
TYPED_TEST(Partitioning, SharesOfAPowerLawGraphReassembleTheGraph) {
  using Exec = TypeParam;
  Exec exec;
  auto graph = herd::test::generated_graph<Exec>(PowerLaw{3000, 2.3, 6.0, 300.0}, 4);
  auto const offsets = to_vector(graph.row_offsets);
  auto const neighbours = to_vector(graph.neighbours);
  for (auto method : {PartitionMethod::contiguous, PartitionMethod::metis}) {
    if (method == PartitionMethod::metis && !have_metis()) continue;
    auto const partition = partition_graph(exec, graph, 3, method);
    auto const owner = to_vector(partition.owner);
    auto const stats = partition_stats(exec, graph, partition);
    std::vector<int> owned_by(3000, 0);
    for (int rank = 0; rank < 3; ++rank) {
      auto const local = extract_local_graph(exec, graph, partition, rank);
      auto const ids = to_vector(local.ids);
      auto const lo = to_vector(local.graph.row_offsets);
      auto const ln = to_vector(local.graph.neighbours);
      EXPECT_EQ(local.ghosts(), stats[rank].ghosts);
      EXPECT_EQ(local.cut_edges, stats[rank].cut_edges);
      for (agent_index r = 0; r < local.owned; ++r) {
        ASSERT_EQ(owner[ids[r]], rank);
        ++owned_by[ids[r]];
        auto const g = ids[r];
        ASSERT_EQ(lo[r + 1] - lo[r], offsets[g + 1] - offsets[g]);
        bool reads_ghost = false;
        for (edge_offset k = 0; k < lo[r + 1] - lo[r]; ++k) {
          ASSERT_EQ(ids[ln[lo[r] + k]], neighbours[offsets[g] + k]);
          reads_ghost |= ln[lo[r] + k] >= local.owned;
        }
        ASSERT_EQ(reads_ghost, r >= local.interior);
      }
      for (std::size_t k = 0; k < local.ghost_owners.size(); ++k)
        for (agent_index s = local.ghost_offsets[k]; s < local.ghost_offsets[k + 1]; ++s) {
          ASSERT_EQ(owner[ids[local.owned + s]], local.ghost_owners[k]);
          if (s > local.ghost_offsets[k]) {
            ASSERT_LT(ids[local.owned + s - 1], ids[local.owned + s]);
          }
        }
    }
    EXPECT_EQ(std::count(owned_by.begin(), owned_by.end(), 1), 3000) << to_string(method);
  }
}

}  // namespace
