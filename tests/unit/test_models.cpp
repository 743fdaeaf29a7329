#include "test_common.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace {

using namespace herd;
// CUDA's headers declare a global ::half too; name Herd's.
using herd::half;
using herd::test::to_vector;
using Exec = Kokkos::DefaultExecutionSpace;

// Final size R of an SIR epidemic on a large graph with Poisson degrees (mean c) where each edge
// transmits with probability T: the giant component of bond percolation, R = 1 - exp(-c T R).
double percolation_final_size(double c, double T) {
  double r = 1.0;
  for (int i = 0; i < 10000; ++i) r = 1.0 - std::exp(-c * T * r);
  return r;
}

struct Outcome {
  std::vector<std::int64_t> last;
  std::vector<std::int64_t> history;
  agent_index agents;
};

template <class Model>
Outcome run_model(CsrGraph<Exec::memory_space> const& graph, Model& model, int steps, std::uint64_t seed) {
  Simulation<Exec> sim(Exec(), graph, seed);
  model.initialise(sim, graph.num_agents());
  auto history = to_vector(run(sim, model, steps));
  int const k = model.num_observables();
  return {std::vector<std::int64_t>(history.end() - k, history.end()), history, graph.num_agents()};
}

TEST(Seir, AgentsAreConservedAndRecoveredNeverDecrease) {
  auto graph = herd::test::generated_graph<Exec>(ErdosRenyi{50000, 6.0}, 4);
  SeirParameters p;
  p.beta = 0.1;
  p.latent = Period::geometric(0.3);
  p.infectious = Period::geometric(0.2);
  p.initial_infected = 30;
  Seir<> model(graph.num_agents(), p);
  auto out = run_model(graph, model, 80, 9);
  std::int64_t last_recovered = 0;
  for (std::size_t t = 0; t * 4 < out.history.size(); ++t) {
    auto const* row = &out.history[t * 4];
    EXPECT_EQ(row[0] + row[1] + row[2] + row[3], 50000);
    EXPECT_GE(row[3], last_recovered);
    last_recovered = row[3];
  }
  EXPECT_EQ(out.history[2], 30);  // the seeds start infectious
}

// The fixed infectious period makes transmissions along different edges independent, so the
// final size is exactly the percolation giant component with T = 1 - (1 - beta)^tau.
TEST(Seir, SirFinalSizeMatchesPercolationTheory) {
  agent_index const n = 200000;
  auto graph = herd::test::generated_graph<Exec>(ErdosRenyi{n, 5.0}, 21);
  double const c = degree_stats(Exec(), graph).mean_degree;
  for (auto [beta, tau] : {std::pair{0.08, 4}, std::pair{0.2, 2}}) {
    SeirParameters p;
    p.beta = beta;
    p.infectious = Period::fixed(tau);
    p.initial_infected = 50;
    Seir<> model(n, p);
    auto out = run_model(graph, model, 400, 5);
    EXPECT_EQ(out.last[2], 0) << "the epidemic should be over";
    double const T = 1.0 - std::pow(1.0 - beta, tau);
    double const expected = percolation_final_size(c, T);
    double const measured = static_cast<double>(out.last[3]) / n;
    // Sampling error of the giant component at this size is about 0.003.
    EXPECT_NEAR(measured, expected, 0.012) << "beta " << beta << " tau " << tau << " cT " << c * T;
  }
}

TEST(Seir, LatentPeriodDelaysButDoesNotChangeTheFinalSize) {
  agent_index const n = 200000;
  auto graph = herd::test::generated_graph<Exec>(ErdosRenyi{n, 5.0}, 22);
  double const c = degree_stats(Exec(), graph).mean_degree;
  SeirParameters p;
  p.beta = 0.1;
  p.latent = Period::fixed(3);
  p.infectious = Period::fixed(3);
  p.initial_infected = 50;
  Seir<> model(n, p);
  auto out = run_model(graph, model, 600, 6);
  EXPECT_EQ(out.last[1] + out.last[2], 0);
  EXPECT_NEAR(static_cast<double>(out.last[3]) / n, percolation_final_size(c, 1.0 - std::pow(0.9, 3)), 0.012);
}

TEST(Seir, BelowThresholdTheOutbreakStaysSmall) {
  agent_index const n = 100000;
  auto graph = herd::test::generated_graph<Exec>(ErdosRenyi{n, 4.0}, 23);
  SeirParameters p;
  p.beta = 0.05;
  p.infectious = Period::fixed(2);  // c T = 0.39 < 1
  p.initial_infected = 20;
  Seir<> model(n, p);
  auto out = run_model(graph, model, 200, 7);
  // Mean outbreak size per seed below threshold is 1 / (1 - c T) = 1.64.
  EXPECT_LT(out.last[3], 20 * 5);
}

TEST(Seir, WeightedEdgesTransmitWithBetaTimesWeight) {
  // A star: the infected centre has 4000 neighbours with weight 0.5; beta = 0.4 gives each leaf
  // infection probability 0.2 in the first step.
  std::vector<global_id> src(4000, 0), dst(4000);
  std::iota(dst.begin(), dst.end(), 1);
  auto graph = build_csr(Exec(), herd::test::edge_list<Exec>(4001, src, dst, std::vector<float>(4000, 0.5f)));
  SeirParameters p;
  p.beta = 0.4;
  p.infectious = Period::fixed(1);
  p.initial_infected = 0;
  Seir<> model(4001, p);
  Simulation<Exec> sim(Exec(), graph, 3);
  model.initialise(sim, 4001);
  Kokkos::deep_copy(Kokkos::subview(model.state.current(), 0), std::uint8_t{Seir<>::infectious});
  Kokkos::deep_copy(Kokkos::subview(model.timer.current(), 0), std::uint16_t{1});
  auto history = to_vector(run(sim, model, 1));
  double const infected = static_cast<double>(history[4 + 2]);
  EXPECT_NEAR(infected / 4000, 0.2, 4 * std::sqrt(0.2 * 0.8 / 4000));
  EXPECT_EQ(history[4 + 3], 1);  // the centre recovered after its single step
}

TEST(Seir, RejectsBadParameters) {
  SeirParameters p;
  p.beta = 1.5;
  EXPECT_THROW(Seir<>(10, p), herd::Error);
  p.beta = 0.1;
  p.infectious = Period::fixed(0);
  EXPECT_THROW(Seir<>(10, p), herd::Error);
  p.infectious = Period::geometric(0.0);
  EXPECT_THROW(Seir<>(10, p), herd::Error);
  p.infectious = Period::fixed(3);
  p.latent = Period::fixed(70000);
  EXPECT_THROW(Seir<>(10, p), herd::Error);
}

// On a regular graph the voter model's fraction of opinion 1 is a martingale: averaged over
// independent runs it stays where it started.
TEST(Opinion, VoterModelConservesTheMeanOnARegularGraph) {
  auto graph = herd::test::generated_graph<Exec>(WattsStrogatz{2000, 2, 0.0}, 1);
  int const runs = 60;
  std::vector<double> drift;
  for (int r = 0; r < runs; ++r) {
    Opinion<> model(2000, OpinionParameters{OpinionRule::voter, 0.3});
    auto out = run_model(graph, model, 100, 100 + r);
    drift.push_back((out.last[1] - out.history[1]) / 2000.0);
    EXPECT_EQ(out.last[0] + out.last[1], 2000);
  }
  double const mean = std::accumulate(drift.begin(), drift.end(), 0.0) / runs;
  double var = 0;
  for (double d : drift) var += (d - mean) * (d - mean);
  double const stderr_mean = std::sqrt(var / (runs - 1) / runs);
  EXPECT_GT(stderr_mean, 0.0);  // opinions did move
  EXPECT_LT(std::fabs(mean), 4 * stderr_mean + 1e-3);
}

TEST(Opinion, MajorityRuleAmplifiesTheMajority) {
  auto graph = herd::test::generated_graph<Exec>(ErdosRenyi{20000, 20.0}, 1);
  Opinion<> model(20000, OpinionParameters{OpinionRule::majority, 0.6});
  auto out = run_model(graph, model, 20, 4);
  EXPECT_GT(out.last[1], 19500);
  Opinion<> minority(20000, OpinionParameters{OpinionRule::majority, 0.4});
  EXPECT_LT(run_model(graph, minority, 20, 4).last[1], 500);
}

// Gathering ahead for the neighbours' opinions (on CPUs) only prefetches: the same opinions after 15
// steps of either rule, the voter's too, which reads one neighbour of the row it asks for.
TEST(Opinion, AskingAheadLeavesOpinionsUnchanged) {
  static_assert(gathers_ahead_v<Opinion<>>, "opinion models say where they read their neighbours");
  auto graph = herd::test::generated_graph<Exec>(PowerLaw{4000, 2.1, 12.0, 0.0}, 7);
  auto opinions = [&](OpinionRule rule, GatherAhead ahead) {
    StepOptions options;
    options.gather_ahead = ahead;
    Simulation<Exec> sim(Exec(), graph, 3, options);
    Opinion<> model(graph.num_agents(), OpinionParameters{rule, 0.45});
    model.initialise(sim, graph.num_agents());
    run(sim, model, 15);
    return to_vector(model.opinion.current());
  };
  for (auto rule : {OpinionRule::voter, OpinionRule::majority})
    EXPECT_EQ(opinions(rule, GatherAhead::on), opinions(rule, GatherAhead::off)) << static_cast<int>(rule);
}

// Opinions after `steps` steps of a consensus model on `graph`, on the host as floats.
template <class Storage>
std::vector<float> consensus_opinions(CsrGraph<Exec::memory_space> const& graph, double confidence, int steps,
                                      Schedule schedule = Schedule::automatic, std::vector<float>* initial = nullptr,
                                      GatherAhead ahead = GatherAhead::automatic) {
  StepOptions options;
  options.schedule = schedule;
  options.gather_ahead = ahead;
  Simulation<Exec> sim(Exec(), graph, 5, options);
  Consensus<Storage> model(graph.num_agents(), ConsensusParameters{confidence});
  model.initialise(sim, graph.num_agents());
  auto read = [&] {
    auto const stored = to_vector(model.opinion.current());
    std::vector<float> out;
    for (auto v : stored) out.push_back(static_cast<float>(v));
    return out;
  };
  if (initial) *initial = read();
  run(sim, model, steps);
  return read();
}

template <class Storage>
void degroot_reaches_the_degree_weighted_mean(float tolerance) {
  // DeGroot counting one's own opinion is a random walk with stationary weights degree + 1:
  // every opinion tends to sum (d_i + 1) x_i(0) / sum (d_i + 1).
  auto graph = herd::test::generated_graph<Exec>(ErdosRenyi{3000, 8.0}, 2);
  auto const offsets = to_vector(graph.row_offsets);
  std::vector<float> initial;
  auto const final = consensus_opinions<Storage>(graph, 1.0, 300, Schedule::automatic, &initial);
  double weighted = 0.0, weights = 0.0;
  for (std::size_t i = 0; i < initial.size(); ++i) {
    double const w = static_cast<double>(offsets[i + 1] - offsets[i]) + 1.0;
    if (w == 1.0) continue;  // isolated agents keep their opinion
    weighted += w * initial[i];
    weights += w;
  }
  double const expected = weighted / weights;
  EXPECT_GT(expected, 0.4);
  EXPECT_LT(expected, 0.6);
  for (std::size_t i = 0; i < final.size(); ++i) {
    if (offsets[i + 1] > offsets[i]) {
      ASSERT_NEAR(final[i], expected, tolerance) << "agent " << i;
    }
  }
}

TEST(Consensus, DeGrootReachesTheDegreeWeightedMean) {
  degroot_reaches_the_degree_weighted_mean<float>(2e-5f);
  // Half storage rounds every stored opinion to 11 significant bits: the drift stays small.
  degroot_reaches_the_degree_weighted_mean<half>(2e-3f);
}

TEST(Consensus, HalfStorageFollowsTheFloatTrajectory) {
  auto graph = herd::test::generated_graph<Exec>(PowerLaw{5000, 2.5, 10.0, 0.0}, 3);
  for (int steps : {1, 5, 20}) {
    auto const f = consensus_opinions<float>(graph, 1.0, steps);
    auto const h = consensus_opinions<half>(graph, 1.0, steps);
    float worst = 0.0f;
    for (std::size_t i = 0; i < f.size(); ++i) worst = std::max(worst, std::fabs(f[i] - h[i]));
    EXPECT_LT(worst, 2e-3f) << steps << " steps";
  }
}

TEST(Consensus, BoundedConfidenceKeepsClustersApart) {
  // With a small confidence bound no global consensus forms (Hegselmann-Krause), and averaging
  // never leaves the range of the initial opinions.
  auto graph = herd::test::generated_graph<Exec>(ErdosRenyi{4000, 20.0}, 4);
  std::vector<float> initial;
  auto const final = consensus_opinions<float>(graph, 0.05, 100, Schedule::automatic, &initial);
  auto const [lo, hi] = std::minmax_element(initial.begin(), initial.end());
  auto const [flo, fhi] = std::minmax_element(final.begin(), final.end());
  EXPECT_GE(*flo, *lo);
  EXPECT_LE(*fhi, *hi);
  EXPECT_GT(*fhi - *flo, 0.8f);
  // With a bound of 0.5 most agents end at the middle.
  auto const wide = consensus_opinions<float>(graph, 0.5, 100);
  auto const middle = std::count_if(wide.begin(), wide.end(), [](float x) { return std::fabs(x - 0.5f) < 0.05f; });
  EXPECT_GT(middle, 3800);
}

// One bounded-confidence step against the definition, computed here in double: a hub of more
// neighbours than the single pass packs (2^19 + 999) sums in two passes; a hub of 2^19 - 1, nearly
// all within a bound of 0.999, packs a count of almost 2^19 and offsets of about 2^43 in one pass;
// the ring of short rows around them takes the single pass too. Thread and hybrid schedules.
template <class Storage>
void bounded_confidence_step_follows_its_definition(Schedule schedule) {
  agent_index const n = (agent_index{1} << 19) + 1000;
  std::vector<global_id> sources, targets;
  for (agent_index i = 1; i < n; ++i) {
    sources.push_back(0);  // hub 0: every other agent
    targets.push_back(i);
    if (i >= 2) {  // the ring of agents 2 .. n-1
      sources.push_back(i);
      targets.push_back(i + 1 < n ? i + 1 : 2);
    }
    if (i >= 2 && i < (agent_index{1} << 19)) {  // hub 1: agents 2 .. 2^19 - 1, and hub 0
      sources.push_back(1);
      targets.push_back(i);
    }
  }
  auto const graph = build_csr(Exec(), herd::test::edge_list<Exec>(n, sources, targets));
  auto const offsets = to_vector(graph.row_offsets);
  auto const neighbours = to_vector(graph.neighbours);
  ASSERT_EQ(offsets[2] - offsets[1], (agent_index{1} << 19) - 1);
  ASSERT_EQ(offsets[1] - offsets[0], n - 1);
  for (double confidence : {0.999, 0.1}) {
    std::vector<float> initial;
    auto const stepped = consensus_opinions<Storage>(graph, confidence, 1, schedule, &initial);
    auto const bound = static_cast<std::int64_t>(confidence * 16777216.0);
    auto const fixed = [](float x) {
      return (static_cast<std::int64_t>(static_cast<double>(x) * 33554432.0) + 1) >> 1;
    };
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < initial.size(); ++i) {
      std::int64_t const mine = fixed(initial[i]);
      std::int64_t sum = mine, count = 1;
      for (auto e = offsets[i]; e < offsets[i + 1]; ++e) {
        std::int64_t const q = fixed(initial[static_cast<std::size_t>(neighbours[static_cast<std::size_t>(e)])]);
        if (q - mine <= bound && mine - q <= bound) sum += q, ++count;
      }
      if (i == 1 && confidence > 0.9) {
        EXPECT_GT(count, (agent_index{1} << 19) - 1000) << "hub 1: a full packed sum";
      }
      auto const expected = static_cast<float>(
          static_cast<Storage>(static_cast<float>(static_cast<double>(sum) / static_cast<double>(count) / 16777216.0)));
      if (stepped[i] != expected && ++wrong <= 5) {
        ADD_FAILURE() << "agent " << i << " at confidence " << confidence << ": " << stepped[i] << ", expected "
                      << expected;
      }
    }
    EXPECT_EQ(wrong, 0u) << "confidence " << confidence;
  }
}

TEST(Consensus, BoundedConfidenceStepFollowsItsDefinition) {
  for (auto schedule : {Schedule::thread, Schedule::hybrid}) {
    SCOPED_TRACE(to_string(schedule));
    bounded_confidence_step_follows_its_definition<float>(schedule);
    bounded_confidence_step_follows_its_definition<half>(schedule);
  }
}

TEST(Consensus, EveryScheduleGivesTheSameBits) {
  auto graph = herd::test::generated_graph<Exec>(PowerLaw{4000, 2.1, 12.0, 0.0}, 5);
  for (double confidence : {1.0, 0.2}) {
    auto const reference = consensus_opinions<half>(graph, confidence, 10, Schedule::thread);
    for (auto schedule : {Schedule::vector, Schedule::team, Schedule::hybrid})
      EXPECT_EQ(consensus_opinions<half>(graph, confidence, 10, schedule), reference)
          << to_string(schedule) << " confidence " << confidence;
  }
}

// Gathering ahead for the neighbours' opinions (on CPUs) only prefetches: the same bits, for DeGroot
// and bounded confidence, on every schedule that steps a row on one thread.
TEST(Consensus, AskingAheadLeavesOpinionsUnchanged) {
  static_assert(gathers_ahead_v<Consensus<float>> && gathers_ahead_v<Consensus<half>>,
                "consensus models say where they read their neighbours");
  // Automatic mode asks from 8 MB of the values read: float opinions from 2^21 agents, half
  // opinions from 2^22, one-byte states from 2^23.
  static_assert(gathered_bytes_v<Consensus<float>> == 4 && gathered_bytes_v<Consensus<half>> == 2 &&
                gathered_bytes_v<Seir<>> == 1 && gathered_bytes_v<Opinion<>> == 1);
  EXPECT_TRUE(gathers_ahead(GatherAhead::automatic, agent_index{1} << 21, gathered_bytes_v<Consensus<float>>));
  EXPECT_FALSE(gathers_ahead(GatherAhead::automatic, agent_index{1} << 21, gathered_bytes_v<Consensus<half>>));
  EXPECT_TRUE(gathers_ahead(GatherAhead::automatic, agent_index{1} << 22, gathered_bytes_v<Consensus<half>>));
  EXPECT_FALSE(gathers_ahead(GatherAhead::automatic, (agent_index{1} << 23) - 1, gathered_bytes_v<Seir<>>));
  EXPECT_TRUE(gathers_ahead(GatherAhead::on, 1, 1));
  EXPECT_FALSE(gathers_ahead(GatherAhead::off, agent_index{1} << 30, 4));
  auto graph = herd::test::generated_graph<Exec>(PowerLaw{4000, 2.1, 12.0, 0.0}, 6);
  for (double confidence : {1.0, 0.2})
    for (auto schedule : {Schedule::thread, Schedule::hybrid}) {
      auto const plain = consensus_opinions<float>(graph, confidence, 10, schedule, nullptr, GatherAhead::off);
      EXPECT_EQ(consensus_opinions<float>(graph, confidence, 10, schedule, nullptr, GatherAhead::on), plain)
          << to_string(schedule) << " confidence " << confidence;
      EXPECT_EQ(consensus_opinions<half>(graph, confidence, 10, schedule, nullptr, GatherAhead::on),
                consensus_opinions<half>(graph, confidence, 10, schedule, nullptr, GatherAhead::off))
          << to_string(schedule) << " confidence " << confidence;
    }
}

}  // namespace
