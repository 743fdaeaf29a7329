#include "test_common.hpp"

namespace {

using namespace herd;
using herd::test::to_vector;

// Member k's parameters: its own beta and, for SEIR, a geometric latent period, so that members
// differ by their states as well as their seeds.
SeirParameters member_parameters(std::size_t k, bool latent) {
  SeirParameters p;
  p.beta = 0.05 + 0.01 * static_cast<double>(k % 7);
  if (latent) p.latent = Period::geometric(0.4);
  p.infectious = Period::fixed(4);
  p.initial_infected = 5 + k % 3;
  return p;
}

std::uint64_t member_seed(std::size_t k) { return replicate_seed(77, k); }

// Member k run alone, as herd run runs it (automatic stepping): its history, then its final states.
template <class Exec>
std::vector<std::int64_t> alone(CsrGraph<typename Exec::memory_space> const& graph, std::size_t k, bool latent,
                                int steps) {
  Exec exec;
  Simulation<Exec> sim(exec, graph, member_seed(k));
  Seir<typename Exec::memory_space> model(graph.num_agents(), member_parameters(k, latent));
  model.initialise(sim, graph.num_agents());
  auto out = to_vector(run(sim, model, steps));
  for (auto s : to_vector(model.state.current())) out.push_back(s);
  return out;
}

// Every member of run_together, in the same form as alone().
template <class Exec>
std::vector<std::vector<std::int64_t>> together(CsrGraph<typename Exec::memory_space> const& graph, std::size_t members,
                                                bool latent, int steps, Schedule schedule, bool* shared) {
  Exec exec;
  StepOptions options;
  options.stepping = Stepping::pull;
  options.schedule = schedule;
  std::vector<Simulation<Exec>> sims;
  std::vector<Seir<typename Exec::memory_space>> models;
  for (std::size_t k = 0; k < members; ++k) {
    sims.emplace_back(exec, graph, member_seed(k), options);
    models.emplace_back(graph.num_agents(), member_parameters(k, latent));
    models.back().initialise(sims.back(), graph.num_agents());
  }
  *shared = shares_graph_passes<Seir<typename Exec::memory_space>>(sims);
  auto const histories = run_together(sims, models, steps);
  std::vector<std::vector<std::int64_t>> out;
  for (std::size_t k = 0; k < members; ++k) {
    out.push_back(to_vector(histories[k]));
    for (auto s : to_vector(models[k].state.current())) out.back().push_back(s);
  }
  return out;
}

template <class ExecutionSpace>
class Ensemble : public ::testing::Test {};
TYPED_TEST_SUITE(Ensemble, herd::test::ExecutionSpaces);

// Members stepped together, their spreaders counted in one pass per group of 32, are each the run
// of their own, bit for bit: 35 members (a full group and a part), an agent count that is not a
// multiple of 32, SIR and SEIR, on the schedules whose lanes share a row.
TYPED_TEST(Ensemble, MembersSharingThePassAreEachTheirOwnRun) {
  using Exec = TypeParam;
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{20011, 8.0}, 3);
  int const steps = 25;
  for (bool latent : {false, true}) {
    for (Schedule schedule : {Schedule::thread, Schedule::team}) {
      bool shared = false;
      auto const members = together<Exec>(graph, 35, latent, steps, schedule, &shared);
      EXPECT_TRUE(shared);
      int spread = 0;
      for (std::size_t k : {0u, 1u, 17u, 31u, 32u, 34u}) {
        auto const one = alone<Exec>(graph, k, latent, steps);
        EXPECT_EQ(members[k], one) << "member " << k << (latent ? " seir " : " sir ") << to_string(schedule);
        // S after the last step (S, E, I, R per row).
        spread += one[static_cast<std::size_t>(steps) * 4] < 20011 - 500;
      }
      // Epidemics that spread: otherwise equal states would prove little.
      EXPECT_GE(spread, 3);
    }
  }
}

// A graph with an agent of more neighbours than a byte counts steps its members one after another,
// with the same results.
TYPED_TEST(Ensemble, AHubTooLargeForAByteStepsMembersInTurn) {
  using Exec = TypeParam;
  auto const graph = herd::test::generated_graph<Exec>(PowerLaw{5000, 2.2, 8.0, 1000.0}, 4);
  ASSERT_GT(degree_stats(Exec(), graph).max_degree, SharedSpreaderCounts<Exec>::max_degree);
  bool shared = true;
  auto const members = together<Exec>(graph, 3, true, 20, Schedule::automatic, &shared);
  EXPECT_FALSE(shared);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(members[k], alone<Exec>(graph, k, true, 20)) << "member " << k;
}

// Members on a temporal network step in turn: one pass counted on the first window would serve
// every later one. Each member is its own run on the snapshots, bit for bit.
TYPED_TEST(Ensemble, MembersOnATemporalNetworkAreEachTheirOwnRun) {
  using Exec = TypeParam;
  Exec exec;
  TimedContacts contacts;
  contacts.num_agents = 3000;
  std::uint64_t z = 7;
  for (int c = 0; c < 200000; ++c) {
    z = z * 6364136223846793005ull + 1442695040888963407ull;
    contacts.times.push_back(static_cast<std::int64_t>(z >> 54));  // 1024 s: 11 windows of 100 s
    contacts.first.push_back(static_cast<agent_index>((z >> 20) % 3000));
    contacts.second.push_back(static_cast<agent_index>((z >> 36) % 3000));
  }
  auto const network = build_temporal_network(exec, contacts, 100);
  StepOptions options;
  options.stepping = Stepping::pull;
  int const members = 4, steps = 30;
  std::vector<Simulation<Exec>> sims;
  std::vector<Seir<typename Exec::memory_space>> models;
  for (std::size_t k = 0; k < members; ++k) {
    sims.emplace_back(exec, network, member_seed(k), options);
    models.emplace_back(sims.back().num_agents(), member_parameters(k, true));
    models.back().initialise(sims.back(), sims.back().num_agents());
  }
  EXPECT_FALSE(shares_graph_passes<Seir<typename Exec::memory_space>>(sims));
  auto const histories = run_together(sims, models, steps);
  int spread = 0;
  for (std::size_t k = 0; k < members; ++k) {
    Simulation<Exec> sim(exec, network, member_seed(k), options);
    Seir<typename Exec::memory_space> model(sim.num_agents(), member_parameters(k, true));
    model.initialise(sim, sim.num_agents());
    auto const one = to_vector(run(sim, model, steps));
    EXPECT_EQ(to_vector(histories[k]), one) << "member " << k;
    EXPECT_EQ(to_vector(models[k].state.current()), to_vector(model.state.current())) << "member " << k;
    spread += one[static_cast<std::size_t>(steps) * 4] < 3000 - 300;
  }
  EXPECT_GE(spread, 2);  // epidemics that spread: otherwise equal states would prove little
}

// Each member's counts are its infectious neighbours plus its own bit where the agent is exposed or
// infectious, counted directly on the host, for one to four groups of eight members (full and part
// groups) and an agent count that ends in a part block and a part word.
TYPED_TEST(Ensemble, SharedCountsAreEachMembersOwnCounts) {
  using Exec = TypeParam;
  using Memory = typename Exec::memory_space;
  agent_index const agents = 1005;
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{agents, 12.0}, 5);
  auto const offsets = to_vector(graph.row_offsets);
  auto const neighbours = to_vector(graph.neighbours);
  for (int members : {1, 8, 9, 17, 26, 32}) {
    SharedSpreaderCounts<Exec> shared(Exec(), graph, agents, members);
    std::vector<std::vector<std::uint8_t>> states(static_cast<std::size_t>(members));
    std::vector<Seir<Memory>> models;
    std::uint64_t z = 2024 + static_cast<std::uint64_t>(members);
    for (int m = 0; m < members; ++m) {
      auto& s = states[static_cast<std::size_t>(m)];
      for (agent_index i = 0; i < agents; ++i) {
        z = z * 6364136223846793005ull + 1442695040888963407ull;
        s.push_back(static_cast<std::uint8_t>(z >> 62));  // S, E, I, R alike
      }
      models.emplace_back(agents, member_parameters(static_cast<std::size_t>(m), true));
      Kokkos::View<std::uint8_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host(s.data(), s.size());
      Kokkos::deep_copy(models.back().state.current(), host);
      shared.mark(m, models.back());
    }
    shared.count();
    Kokkos::fence();
    for (int m = 0; m < members; ++m) {
      auto const& s = states[static_cast<std::size_t>(m)];
      auto const counts = to_vector(shared.counts(m));
      ASSERT_EQ(counts.size(), static_cast<std::size_t>(agents));
      for (agent_index i = 0; i < agents; ++i) {
        int expected = s[static_cast<std::size_t>(i)] == 1 || s[static_cast<std::size_t>(i)] == 2;
        for (auto e = offsets[static_cast<std::size_t>(i)]; e < offsets[static_cast<std::size_t>(i) + 1]; ++e)
          expected += s[static_cast<std::size_t>(neighbours[static_cast<std::size_t>(e)])] == 2;
        ASSERT_EQ(counts[static_cast<std::size_t>(i)], expected)
            << members << " members, member " << m << " agent " << i;
      }
    }
  }
}

// SEIR's eight activities a word are its activity() of each agent, for every state in every lane.
// Type 7 quantiles to the last bit of numpy's: 0.95 of {0, 0, 45} is 0.9 of the way from 0 to 45,
// 40.5, where interpolating from below alone gives 40.49999999999999.
TEST(Quantile, IsNumpysLinearQuantile) {
  EXPECT_EQ(herd::quantile({0.0, 45.0, 0.0}, 0.95), 40.5);
  EXPECT_EQ(herd::quantile({3.0, 1.0, 2.0, 4.0}, 0.5), 2.5);
  EXPECT_EQ(herd::quantile({3.0, 1.0, 2.0}, 0.0), 1.0);
  EXPECT_EQ(herd::quantile({3.0, 1.0, 2.0}, 1.0), 3.0);
  EXPECT_EQ(herd::quantile({7.0}, 0.25), 7.0);
}

TEST(SharedSpreaderCounts, ActivityWordsAreEachAgentsActivity) {
  static_assert(declares_activity_words_v<Seir<Kokkos::HostSpace>>);
  agent_index const agents = 4096;
  Seir<Kokkos::HostSpace> model(agents, member_parameters(0, true));
  auto const states = model.state.current();
  std::uint64_t z = 5;
  for (agent_index i = 0; i < agents; ++i) {
    z = z * 6364136223846793005ull + 1442695040888963407ull;
    states(i) = static_cast<std::uint8_t>(z >> 62);
  }
  for (agent_index first = 0; first < agents; first += 8) {
    std::uint64_t const word = model.activity_word(first);
    for (int k = 0; k < 8; ++k)
      ASSERT_EQ((word >> (8 * k)) & 0xFFu, model.activity(first + k))
          << "agent " << first + k << " state " << int{states(first + k)};
  }
}

// Each bit of a byte lands in its own byte lane.
TEST(SharedSpreaderCounts, BitsToLanesSpreadsEveryByte) {
  for (std::uint64_t byte = 0; byte < 256; ++byte) {
    std::uint64_t expected = 0;
    for (int k = 0; k < 8; ++k) expected |= ((byte >> k) & 1u) << (8 * k);
    EXPECT_EQ(Details::bits_to_lanes(byte), expected) << byte;
  }
}

// The transpose moves bit c of row k to bit k of row c (rows and columns counted from the top bit).
TEST(SharedSpreaderCounts, TransposeBitsSwapsRowsAndColumns) {
  std::uint32_t rows[32], original[32];
  std::uint64_t z = 12345;
  for (auto& r : rows) {
    z = z * 6364136223846793005ull + 1442695040888963407ull;
    r = static_cast<std::uint32_t>(z >> 32);
  }
  std::copy(rows, rows + 32, original);
  Details::transpose_bits(rows);
  for (int k = 0; k < 32; ++k)
    for (int c = 0; c < 32; ++c)
      EXPECT_EQ((rows[c] >> (31 - k)) & 1u, (original[k] >> (31 - c)) & 1u) << "row " << k << " column " << c;
}

// Bit k of lanes_with is whether byte k shares a bit with the flags.
TEST(SharedSpreaderCounts, LanesWithGathersTheLanesThatHoldAFlag) {
  std::uint64_t z = 99;
  for (int trial = 0; trial < 2000; ++trial) {
    z = z * 6364136223846793005ull + 1442695040888963407ull;
    // Sparse bytes as well as dense ones: zero lanes beside non-zero ones.
    std::uint64_t const lanes = z & (z >> 7) & (z >> 13);
    for (std::uint8_t flags :
         {std::uint8_t{1}, std::uint8_t{2}, std::uint8_t{3}, std::uint8_t{0x80}, std::uint8_t{0xFF}}) {
      std::uint32_t expected = 0;
      for (int k = 0; k < 8; ++k) expected |= static_cast<std::uint32_t>(((lanes >> (8 * k)) & flags) != 0) << k;
      EXPECT_EQ(Details::lanes_with(lanes, flags), expected) << std::hex << lanes << " " << int{flags};
    }
  }
}

// The byte transpose moves byte c of row k to byte k of row c.
TEST(SharedSpreaderCounts, TransposeBytesSwapsRowsAndColumns) {
  std::uint64_t rows[8];
  for (int k = 0; k < 8; ++k) {
    rows[k] = 0;
    for (int c = 0; c < 8; ++c) rows[k] |= static_cast<std::uint64_t>(16 * k + c) << (8 * c);
  }
  Details::transpose_bytes(rows);
  for (int k = 0; k < 8; ++k)
    for (int c = 0; c < 8; ++c)
      EXPECT_EQ((rows[c] >> (8 * k)) & 0xFFu, static_cast<std::uint64_t>(16 * k + c)) << "row " << k << " column " << c;
}

// The looked-up lanes are bits_to_lanes's.
TEST(SharedSpreaderCounts, TheLaneTableHoldsEachBytesLanes) {
  for (std::uint64_t byte = 0; byte < 256; ++byte)
    EXPECT_EQ(Details::lane_table.lanes[byte], Details::bits_to_lanes(byte)) << byte;
}

}  // namespace
