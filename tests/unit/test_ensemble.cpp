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

}  // namespace
