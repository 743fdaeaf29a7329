// A timed-contact file read by byte ranges, its contacts sent to their agents' owners: each rank's
// share of the temporal network (its rows of the graph of every pair that met, its rows of every
// snapshot) and the network's hash must be what one process cuts from the whole network, and a
// bad file must be named as one process names it.
#include <herd/herd.hpp>
#include <herd/mpi/collective.hpp>
#include <herd/mpi/distributed_graph.hpp>
#include <herd/mpi/local_snapshots.hpp>
#include <herd/mpi/repartition.hpp>
#include <herd/mpi/temporal_share.hpp>

#include "same_share.hpp"
#include "scratch.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace herd;
using test::Exec;
using test::Memory;
using test::SharedFile;
using test::to_vector;

// SocioPatterns-like lines: sparse ids that do not start at 0, times out of order with gaps of
// windows without contacts and the earliest last, pairs named both ways, repeats in one window, a contact of an agent
// with itself, comments and separators of each kind.
std::string timed_text(int lines, bool bom) {
  std::string text = bom ? "\xEF\xBB\xBF" : "";
  text += "# t i j\n% a school day\n\n";
  std::uint64_t state = 2024;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  char const* separators[] = {" ", "\t", ",", "  "};
  for (int k = 0; k < lines; ++k) {
    // 40 agents with ids 1000 + 7 m, most contacts among near ids; times in bursts.
    auto const i = next() % 40, j = k % 53 == 0 ? i : (i + 1 + next() % 6) % 40;
    auto const time = 20 * (next() % 50) + (k % 3 == 0 ? 20 * (200 + next() % 30) : 0);
    std::string const separator = separators[next() % 4];
    text += std::to_string(time) + separator + std::to_string(1000 + 7 * i) + separator + std::to_string(1000 + 7 * j);
    text += k % 11 == 0 ? " 5A 5B\r\n" : "\n";
  }
  // The earliest contact last, in the last rank's part alone: it sets every rank's windows.
  return text + "-13 1000 1266\n";
}

void expect_same_network(TemporalNetwork<Memory, float> const& built, TemporalNetwork<Memory, float> const& expected) {
  EXPECT_EQ(built.windows, expected.windows);
  EXPECT_EQ(built.busy, expected.busy);
  EXPECT_EQ(built.start, expected.start);
  EXPECT_EQ(built.window, expected.window);
  EXPECT_EQ(built.after_last, expected.after_last);
  ASSERT_EQ(built.graphs.size(), expected.graphs.size());
  for (std::size_t k = 0; k < built.graphs.size(); ++k) {
    SCOPED_TRACE("snapshot " + std::to_string(k));
    EXPECT_EQ(to_vector(built.graphs[k].row_offsets), to_vector(expected.graphs[k].row_offsets));
    EXPECT_EQ(to_vector(built.graphs[k].neighbours), to_vector(expected.graphs[k].neighbours));
    EXPECT_EQ(to_vector(built.graphs[k].weights), to_vector(expected.graphs[k].weights));
  }
}

TEST(TemporalShare, EachRankBuildsTheShareOneProcessCutsFromTheWholeNetwork) {
  Exec exec;
  MPI_Comm const comm = MPI_COMM_WORLD;
  int const rank = mpi::rank_of(comm), ranks = mpi::size_of(comm);
  for (bool const bom : {false, true}) {
    SharedFile const file("timed_" + std::to_string(bom) + ".txt", timed_text(3000, bom));
    auto const whole = read_timed_contacts(file.path());
    auto const mine = mpi::read_timed_contacts(comm, file.path());
    EXPECT_EQ(mine.num_agents, whole.num_agents);
    EXPECT_TRUE(mine.ids.empty());
    unsigned long long held = mine.size();
    MPI_Allreduce(MPI_IN_PLACE, &held, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
    EXPECT_EQ(held, whole.size());
    // The graph of every pair that met, and its contiguous blocks, as the run cuts them.
    auto const met = met_graph<float>(exec, whole);
    auto const partition = partition_contiguous(exec, whole.num_agents, ranks);
    for (std::int64_t const window : {20, 300, 86400})
      for (auto const weights : {SnapshotWeights::met, SnapshotWeights::contacts}) {
        std::string const what = "window " + std::to_string(window) +
                                 (weights == SnapshotWeights::contacts ? ", weighted" : "") + (bom ? ", BOM" : "");
        SCOPED_TRACE(what + " on rank " + std::to_string(rank) + " of " + std::to_string(ranks));
        auto const network = build_temporal_network<float>(exec, whole, window, AfterLastWindow::stop, weights);
        auto const frame = mpi::window_frame(comm, mine, window);
        auto const share = mpi::temporal_share<float>(exec, comm, mine, window, frame, AfterLastWindow::stop, weights);
        test::expect_share_under(met, partition, share.local, what);
        expect_same_network(share.network, mpi::local_snapshots(exec, network, share.local));
        // The whole network's hash, from the shares of its snapshots.
        std::vector<std::uint64_t> snapshots;
        for (auto const& g : share.network.graphs) {
          auto part = share.local;
          part.graph = g;
          snapshots.push_back(mpi::graph_hash(exec, comm, part));
        }
        EXPECT_EQ(temporal_hash(share.network, snapshots), graph_hash(exec, network));
      }
  }
}

// The parts of the graph of every pair that met that PT-Scotch or ParMETIS give its contiguous
// blocks (computed here from the blocks), or one process's METIS partition of it: every snapshot is
// cut under them, and a contact of two agents of one part counts once.
TEST(TemporalShare, APartitionerSplitsEverySnapshotAsTheGraphOfPairsThatMet) {
  Exec exec;
  MPI_Comm const comm = MPI_COMM_WORLD;
  int const rank = mpi::rank_of(comm), ranks = mpi::size_of(comm);
  SharedFile const file("timed_parts.txt", timed_text(3000, false));
  auto const whole = read_timed_contacts(file.path());
  auto const met = met_graph<float>(exec, whole);
  auto const blocks = extract_local_graph(exec, met, partition_contiguous(exec, whole.num_agents, ranks), rank);
  auto const mine = mpi::read_timed_contacts(comm, file.path());
  std::int64_t const window = 300;
  auto const frame = mpi::window_frame(comm, mine, window);
  struct Partitioner {
    PartitionMethod method;
    bool available;
    std::vector<int> (*parts)(Exec const&, MPI_Comm, LocalGraph<Memory, float> const&, bool);
  };
  for (auto const& partitioner :
       {Partitioner{PartitionMethod::ptscotch, have_ptscotch(), &mpi::ptscotch_parts<Exec, float>},
        Partitioner{PartitionMethod::parmetis, have_parmetis(), &mpi::parmetis_parts<Exec, float>},
        Partitioner{PartitionMethod::metis, have_metis(), nullptr}}) {
    std::string const name = to_string(partitioner.method);
    SCOPED_TRACE(name + " on rank " + std::to_string(rank) + " of " + std::to_string(ranks));
    if (!partitioner.available) {
      EXPECT_THROW((void)mpi::temporal_share<float>(exec, comm, mine, window, frame, AfterLastWindow::loop,
                                                    SnapshotWeights::met, partitioner.method),
                   mpi::CollectiveError);
      continue;
    }
    auto partition = partition_contiguous(exec, whole.num_agents, ranks);
    if (!partitioner.parts) {
      partition = partition_graph(exec, met, ranks, partitioner.method);
    } else if (ranks > 1) {
      // The whole map, gathered for the expected share only.
      std::vector<int> owner(static_cast<std::size_t>(whole.num_agents), 0);
      auto const parts = partitioner.parts(exec, comm, blocks, true);
      auto const ids = to_vector(blocks.ids);
      for (std::size_t l = 0; l < parts.size(); ++l) owner[static_cast<std::size_t>(ids[l])] = parts[l];
      MPI_Allreduce(MPI_IN_PLACE, owner.data(), static_cast<int>(owner.size()), MPI_INT, MPI_MAX, comm);
      Kokkos::deep_copy(partition.owner,
                        Kokkos::View<int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(owner.data(), owner.size()));
    }
    for (auto const weights : {SnapshotWeights::met, SnapshotWeights::contacts}) {
      std::string const what = name + (weights == SnapshotWeights::contacts ? ", weighted" : "");
      auto const network = build_temporal_network<float>(exec, whole, window, AfterLastWindow::loop, weights);
      auto const share = mpi::temporal_share<float>(exec, comm, mine, window, frame, AfterLastWindow::loop, weights,
                                                    partitioner.method);
      test::expect_share_under(met, partition, share.local, what);
      expect_same_network(share.network, mpi::local_snapshots(exec, network, share.local));
    }
  }
}

// Contacts given by a caller rather than read: an agent out of range on one rank is refused on
// every rank before any contact is routed by it.
TEST(TemporalShare, AContactOfAnAgentOutOfRangeIsRefusedOnEveryRank) {
  Exec exec;
  MPI_Comm const comm = MPI_COMM_WORLD;
  int const rank = mpi::rank_of(comm), ranks = mpi::size_of(comm);
  TimedContacts mine;
  mine.num_agents = 10;
  mine.times = {0, 5, 9};
  mine.first = {0, 3, 7};
  mine.second = {1, 4, rank == ranks - 1 ? 10 : 8};
  auto const frame = mpi::window_frame(comm, mine, 5);
  for (auto const method : {PartitionMethod::contiguous, PartitionMethod::ptscotch}) {
    if (method == PartitionMethod::ptscotch && !have_ptscotch()) continue;
    std::string message = "no error";
    try {
      (void)mpi::temporal_share<float>(exec, comm, mine, 5, frame, AfterLastWindow::stop, SnapshotWeights::met, method);
    } catch (mpi::CollectiveError const& e) {
      message = e.what();
    }
    EXPECT_NE(message.find("temporal network: contact 2 joins an agent out of [0, 10)"), std::string::npos)
        << to_string(method) << ": " << message;
  }
}

// The message every rank gets from reading `text` by parts, and the one one process gets.
std::pair<std::string, std::string> messages_for(std::string const& name, std::string const& text) {
  SharedFile const file(name, text);
  std::string by_parts = "no error", whole = "no error";
  try {
    (void)mpi::read_timed_contacts(MPI_COMM_WORLD, file.path());
  } catch (mpi::CollectiveError const& e) {
    by_parts = e.what();
  }
  try {
    (void)read_timed_contacts(file.path());
  } catch (Error const& e) {
    whole = e.what();
  }
  return {by_parts, whole};
}

TEST(TemporalShare, ABadFileIsNamedOnEveryRankAsOneProcessNamesIt) {
  auto const good = timed_text(400, false);
  // A bad line late in the file, in the last rank's part, and a worse one after it.
  std::string late = good;
  late.insert(late.rfind('\n', late.size() - 2) + 1, "1200 1007 x\n100 -4 1000\n");
  // A bad line near the start, in the first rank's part, and one in the last rank's.
  std::string early = "20 1000 1007\n20 1000\n" + good + "40 1000\n";
  // No contacts, only comments.
  std::string const none = "# t i j\n% nothing\n\n";
  // A NUL byte after a bad line: text that is no text is refused first, wherever it lies.
  std::string binary = "20 1000\n" + good;
  binary.insert(binary.size() - 5, std::string(1, '\0'));
  for (auto const& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"late", late}, {"early", early}, {"none", none}, {"binary", binary}}) {
    SCOPED_TRACE(name);
    auto const [by_parts, whole] = messages_for("timed_bad_" + name + ".txt", text);
    EXPECT_NE(whole, "no error");
    EXPECT_EQ(by_parts, whole);
  }
  // A missing file, on every rank.
  std::string missing = "no error";
  try {
    (void)mpi::read_timed_contacts(MPI_COMM_WORLD, test::scratch_path("herd_no_such_timed_file.txt"));
  } catch (mpi::CollectiveError const& e) {
    missing = e.what();
  }
  EXPECT_NE(missing.find("cannot open the file"), std::string::npos) << missing;
}

}  // namespace
