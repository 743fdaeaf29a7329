// Per-agent HDF5 datasets through AgentBlocks at 1-4 ranks: every element type round-trips
// whichever ranks hold which agents, reading ghosts (repeated ids) as well as owned agents; a
// write that misses an agent or names one twice is refused on every rank; a file reopened to
// write keeps its datasets, and takes groups whose parents it lacks.

#include <herd/core/half.hpp>
#include <herd/io/hdf5/agent_io.hpp>
#include <herd/io/hdf5/checkpoint.hpp>
#include <herd/io/hdf5/format.hpp>
#include <herd/io/hdf5/population.hpp>
#include <herd/mpi/collective.hpp>

#include "scratch.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {

using namespace herd;
using herd::half;
namespace h5 = herd::io::h5;

int world_rank() { return mpi::rank_of(MPI_COMM_WORLD); }
int world_size() { return mpi::size_of(MPI_COMM_WORLD); }

std::string scratch(char const* name) {
  return test::scratch_path("herd_agent_io_" + std::string(name) + "_" + std::to_string(world_size()) + ".h5");
}

// The agents this rank owns under a scattered (r, r + P, ...) or a contiguous deal.
std::vector<global_id> owned_ids(std::uint64_t agents, bool scattered) {
  std::vector<global_id> ids;
  int const r = world_rank(), p = world_size();
  if (scattered) {
    for (auto id = static_cast<global_id>(r); id < static_cast<global_id>(agents); id += p) ids.push_back(id);
  } else {
    auto const [first, last] = h5::block_of(agents, r, p);
    for (auto id = first; id < last; ++id) ids.push_back(static_cast<global_id>(id));
  }
  return ids;
}

// The value every test stores for agent `id`, exact in every type.
template <class T>
T value_of(global_id id) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(id % 97 + 1);
  else
    return T(static_cast<float>(id % 97) * 0.5f);
}

template <class T>
bool same(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
void round_trip(bool scattered) {
  constexpr std::uint64_t agents = 1009;  // prime: blocks of unequal sizes
  auto const path = scratch("round_trip");
  auto const mine = owned_ids(agents, scattered);
  std::vector<T> values;
  for (auto id : mine) values.push_back(value_of<T>(id));
  {
    auto file = h5::File::create(path, MPI_COMM_WORLD);
    h5::AgentBlocks(MPI_COMM_WORLD, agents, mine, path).write(file, "/values", h5::type_of<T>(), values.data());
    file.close();
  }
  auto const file = h5::File::open(path, MPI_COMM_WORLD);
  EXPECT_EQ(file.type("/values"), h5::type_of<T>());
  // Read back as a rank of a different layout would: some owned agents, some ghosts, repeats.
  std::vector<global_id> wanted;
  for (global_id k = 0; k < 300; ++k) wanted.push_back((k * 37 + world_rank() * 11) % static_cast<global_id>(agents));
  wanted.push_back(wanted.front());
  std::vector<T> got(wanted.size());
  h5::AgentBlocks(MPI_COMM_WORLD, agents, wanted, path).read(file, "/values", h5::type_of<T>(), got.data());
  long long wrong = 0;
  for (std::size_t k = 0; k < wanted.size(); ++k) wrong += same(got[k], value_of<T>(wanted[k])) ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(wrong, 0) << h5::to_string(h5::type_of<T>()) << (scattered ? " scattered" : " contiguous");
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) std::remove(path.c_str());
}

template <class T>
void round_trips() {
  round_trip<T>(false);
  round_trip<T>(true);
}

TEST(AgentBlocks, EveryTypeRoundTripsOnAnyLayout) {
  round_trips<std::uint8_t>();
  round_trips<std::uint16_t>();
  round_trips<std::uint32_t>();
  round_trips<std::uint64_t>();
  round_trips<std::int8_t>();
  round_trips<std::int16_t>();
  round_trips<std::int32_t>();
  round_trips<std::int64_t>();
  round_trips<half>();
  round_trips<bfloat16>();
  round_trips<float>();
  round_trips<double>();
}

TEST(AgentBlocks, RefusesAWriteThatMissesOrRepeatsAnAgent) {
  constexpr std::uint64_t agents = 100;
  auto const path = scratch("refused");
  auto file = h5::File::create(path, MPI_COMM_WORLD);
  auto mine = owned_ids(agents, true);
  if (world_rank() == 0) mine.pop_back();  // agent 96 or so: held by no rank
  std::vector<std::uint8_t> values(mine.size(), 1);
  auto const write = [&](std::vector<global_id> const& ids) {
    try {
      h5::AgentBlocks(MPI_COMM_WORLD, agents, ids, path).write(file, "/values", h5::Type::u8, values.data());
    } catch (mpi::CollectiveError const& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(write(mine).find("agents are held by no rank"), std::string::npos);
  mine = owned_ids(agents, true);
  if (world_rank() == world_size() - 1) mine.back() = 0;  // agent 0 twice (or once at 1 rank, 99 missing)
  values.assign(mine.size(), 1);
  auto const message = write(mine);
  EXPECT_TRUE(message.find("held by two ranks") != std::string::npos ||
              message.find("held by no rank") != std::string::npos)
      << message;
  mine = {static_cast<global_id>(agents)};
  EXPECT_NE(write(mine).find("agent id 100 outside 0..100 - 1"), std::string::npos);
  io::discard_file(file);
}

TEST(AgentBlocks, AFileReopenedToWriteKeepsWhatItHeldAndTakesMore) {
  // How an ensemble's checkpoint goes on after being put in place: closed, then opened again.
  constexpr std::uint64_t agents = 101;
  auto const path = scratch("reopened");
  auto const mine = owned_ids(agents, true);
  auto const values_for = [&](int shift) {
    std::vector<std::int32_t> values;
    for (auto id : mine) values.push_back(static_cast<std::int32_t>(id) + shift);
    return values;
  };
  {
    auto file = h5::File::create(path, MPI_COMM_WORLD);
    h5::AgentBlocks(MPI_COMM_WORLD, agents, mine, path).write(file, "/first", h5::Type::i32, values_for(0).data());
    file.close();
  }
  {
    auto file = h5::File::open_to_write(path, MPI_COMM_WORLD);
    file.create_group("/more/deeper");  // and /more above it
    h5::AgentBlocks(MPI_COMM_WORLD, agents, mine, path)
        .write(file, "/more/deeper/second", h5::Type::i32, values_for(1000).data());
    file.set_attribute("/", "written", std::int64_t{2});
    file.close();
  }
  auto const file = h5::File::open(path, MPI_COMM_WORLD);
  EXPECT_EQ(file.int_attribute("/", "written"), 2);
  for (auto const& [dataset, shift] : {std::pair<std::string, int>{"/first", 0}, {"/more/deeper/second", 1000}}) {
    std::vector<std::int32_t> got(mine.size());
    h5::AgentBlocks(MPI_COMM_WORLD, agents, mine, path).read(file, dataset, h5::Type::i32, got.data());
    EXPECT_EQ(got, values_for(shift)) << dataset;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) std::remove(path.c_str());
  try {
    (void)h5::File::open_to_write(path, MPI_COMM_WORLD);
    ADD_FAILURE() << "a missing file opened to write";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": cannot open the file (No such file or directory)"),
              std::string::npos)
        << e.what();
  }
}

// A run's record stores its observables' names joined by commas, and its history once.
TEST(RunRecord, ANameWithACommaAndASecondHistoryAreRefused) {
  auto const path = scratch("record");
  io::RunRecord record;
  record.model = "sir";
  record.agents = 10;
  record.observables = {"S", "I,x"};
  auto const said = [](auto&& f) {
    try {
      f();
    } catch (Error const& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(said([&] {
              (void)io::begin_file(path, "herd-output", record, MPI_COMM_WORLD);
            }).find("the observable name 'I,x' cannot be stored"),
            std::string::npos);
  record.observables = {"S", "I"};
  auto file = io::begin_file(path, "herd-output", record, MPI_COMM_WORLD);
  record.step = 1;
  record.history = {9, 1, 8, 2};
  EXPECT_EQ(said([&] { io::update_record(file, record); }), "no error");
  EXPECT_NE(said([&] { io::update_record(file, record); }).find("update_record writes the history once"),
            std::string::npos);
  io::discard_file(file);
}

TEST(PopulationFile, WritesInBlocksAndReadsOnEveryRank) {
  // A ring with chords, written with each rank holding its block, read whole by every rank.
  HostCsr g;
  constexpr agent_index n = 2003;
  g.row_offsets.push_back(0);
  for (agent_index i = 0; i < n; ++i) {
    std::vector<agent_index> row = {(i + n - 1) % n, (i + 1) % n};
    if (i % 3 == 0) row.push_back((i + n / 2) % n);
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    for (auto j : row) {
      g.neighbours.push_back(j);
      g.weights.push_back(static_cast<float>(j % 7) * 0.25f);
    }
    g.row_offsets.push_back(g.neighbours.size());
  }
  auto const path = scratch("population");
  io::PopulationInfo info;
  info.source = "test";
  io::write_population(path, g, info, MPI_COMM_WORLD);
  bool directed = true;
  auto const back = io::read_population_graph(path, MPI_COMM_WORLD, &directed);
  EXPECT_FALSE(directed);
  EXPECT_EQ(back.row_offsets, g.row_offsets);
  EXPECT_EQ(back.neighbours, g.neighbours);
  EXPECT_EQ(back.weights, g.weights);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) std::remove(path.c_str());
}

}  // namespace
