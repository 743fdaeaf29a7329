#include "test_common.hpp"

#include <herd/core/incomplete_gamma.hpp>

#include <cmath>
#include <limits>

namespace {

using namespace herd;
using herd::test::to_vector;
using Exec = Kokkos::DefaultExecutionSpace;
using Model = Covid<Exec::memory_space>;

// P(n, x) for whole n: 1 - e^-x sum_{k<n} x^k / k!, the Erlang CDF.
double erlang_cdf(int n, double x) {
  double term = 1.0, sum = 0.0;
  for (int k = 0; k < n; ++k) {
    sum += term;
    term *= x / (k + 1);
  }
  return 1.0 - std::exp(-x) * sum;
}

TEST(IncompleteGamma, MatchesClosedForms) {
  for (double x : {0.01, 0.3, 1.0, 2.5, 6.0, 13.0, 40.0}) {
    for (int n : {1, 2, 5, 12, 30}) EXPECT_NEAR(regularised_gamma_p(n, x), erlang_cdf(n, x), 1e-13) << n << " " << x;
    EXPECT_NEAR(regularised_gamma_p(0.5, x), std::erf(std::sqrt(x)), 1e-13) << x;
  }
  EXPECT_EQ(regularised_gamma_p(3.0, 0.0), 0.0);
  EXPECT_THROW(regularised_gamma_p(0.0, 1.0), Error);
  // AgentTorch's profile (mean 5.5, sd 2.4): its masses over days sum to one.
  EXPECT_NEAR(gamma_cdf(5.5, 2.4, 254.0), 1.0, 1e-15);
}

CsrGraph<Exec::memory_space> directed_graph(agent_index agents, std::vector<global_id> const& rows,
                                            std::vector<global_id> const& reads,
                                            std::vector<float> const& weights = {}) {
  BuildOptions options;
  options.symmetrise = false;
  return build_csr(Exec(), herd::test::edge_list<Exec>(agents, rows, reads, weights), options);
}

// Every agent's stage after each step (row 0: the start).
std::vector<std::vector<std::uint8_t>> stages_over_time(CsrGraph<Exec::memory_space> const& graph, Model& model,
                                                        int steps, std::uint64_t seed = 3,
                                                        Schedule schedule = Schedule::automatic) {
  StepOptions options;
  options.schedule = schedule;
  Simulation<Exec> sim(Exec(), graph, seed, options);
  model.initialise(sim, graph.num_agents());
  std::vector<std::vector<std::uint8_t>> out{to_vector(model.stage.current())};
  for (int t = 0; t < steps; ++t) {
    model.step(sim);
    sim.end_step();
    out.push_back(to_vector(model.stage.current()));
  }
  return out;
}

CovidParameters certain_transmission(double mortality) {
  CovidParameters p;
  p.transmission_rate = 1e6;  // every exposure that can happen does
  p.mortality = mortality;
  return p;
}

// Agent 0 starts exposed. Row 1 reads agent 0 (0 -> 1); row 0 reads agent 2 (2 -> 0): agent 2 is
// never exposed, because the edge points from it, not to it. AgentTorch's schedule: the initial
// exposed turn infected at step 3 and leave at step 8; agent 1 is exposed at step 1 (the profile
// gives nothing the step after exposure), infected at 1 + 1 + 5 = 7 and leaves at 12.
TEST(Covid, StagesFollowAgentTorchScheduleAndEdgeDirection) {
  auto const graph = directed_graph(3, {1, 0}, {0, 2});
  for (double mortality : {0.0, 1.0}) {
    CovidPopulation population;
    population.stage = {Model::exposed, Model::susceptible, Model::susceptible};
    Model model(3, certain_transmission(mortality), population);
    auto const stages = stages_over_time(graph, model, 14);
    Model::Stage const end = mortality > 0 ? Model::dead : Model::recovered;
    for (int row = 0; row <= 14; ++row) {
      std::uint8_t const first = row <= 3 ? Model::exposed : (row <= 8 ? Model::infected : end);
      std::uint8_t const second =
          row <= 1 ? Model::susceptible : (row <= 7 ? Model::exposed : (row <= 12 ? Model::infected : end));
      EXPECT_EQ(stages[row][0], first) << "after " << row << " steps";
      EXPECT_EQ(stages[row][1], second) << "after " << row << " steps";
      EXPECT_EQ(stages[row][2], Model::susceptible) << "after " << row << " steps";
    }
  }
}

// The pressure agent j puts over an edge of weight w, as a step computes it.
std::uint64_t contribution_on_device(Model const& model, agent_index j, float w) {
  Kokkos::View<std::uint64_t, Exec::memory_space> said("said");
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, 1), KOKKOS_LAMBDA(int) { said() = model.contribution(j, w); });
  std::uint64_t out = 0;
  Kokkos::deep_copy(out, said);
  return out;
}

// A contact's weight, or its layer's factor, may be as large as a float: its pressure counts for
// at most most_pressure(), so that the conversion to an integer stays defined and the sum over a
// row does not wrap (64 such contacts of 3e38 would). Agents 0 to 63 start exposed; agent 64
// reads them all, agent 65 reads agent 0 alone: both are exposed at step 1, as with any weight
// above 1. An agent exposed the step before spreads nothing, even over an infinite weight (a
// weight times a layer factor beyond a float's range): 0 times infinity is no pressure.
TEST(Covid, HugeWeightsExposeForCertain) {
  agent_index const spreaders = 64;
  for (float weight : {1.0f, 1e13f, 3e13f, 1e15f, 3e38f}) {
    std::vector<global_id> rows, reads;
    for (global_id j = 0; j < spreaders; ++j) {
      rows.push_back(spreaders);
      reads.push_back(j);
    }
    rows.push_back(spreaders + 1);
    reads.push_back(0);
    auto const graph = directed_graph(spreaders + 2, rows, reads, std::vector<float>(rows.size(), weight));
    CovidPopulation population;
    population.stage.assign(static_cast<std::size_t>(spreaders), Model::exposed);
    population.stage.insert(population.stage.end(), {Model::susceptible, Model::susceptible});
    for (Schedule schedule : {Schedule::thread, Schedule::edge}) {
      Model model(spreaders + 2, certain_transmission(0.0), population);
      auto const stages = stages_over_time(graph, model, 2, 3, schedule);
      for (auto const reader : {spreaders, spreaders + 1})
        EXPECT_EQ(stages[2][static_cast<std::size_t>(reader)], Model::exposed)
            << "weight " << weight << ", agent " << reader << ", schedule " << static_cast<int>(schedule);
      // Agent 64, exposed in the last step, is on its first day.
      EXPECT_EQ(contribution_on_device(model, spreaders, std::numeric_limits<float>::infinity()), 0u)
          << "weight " << weight;
      // The population went to the first initialise: a second one would have drawn the exposed
      // agents from the seed instead.
      Simulation<Exec> again(Exec(), graph, 3);
      EXPECT_NE(herd::test::error_of([&] {
                  model.initialise(again, graph.num_agents());
                }).find("covid: initialise was called again"),
                std::string::npos);
    }
  }
}

// n pairs: agent 2k (exposed at the start) -> agent 2k + 1 (susceptible). With the profile a gamma
// of mean 2 and sd sqrt 2 (shape 2, scale 1), G(1) = P(2, 1) and G(2) = P(2, 2) - P(2, 1) in
// closed form, so the exposure probabilities at steps 1 and 2 are known without Herd's own gamma.
// Weighted by 0.5, or by 2e9 with a rate 4e9 times smaller (contact-seconds with a rate per
// second): the same force of infection, through pressures far above one day's.
TEST(Covid, ExposureProbabilityIsOneMinusExpOfTheForceOfInfection) {
  agent_index const pairs = 100000;
  for (float weight : {1.0f, 0.5f, 2e9f}) {
    bool const weighted = weight != 1.0f;
    std::vector<global_id> rows, reads;
    std::vector<float> weights;
    for (global_id k = 0; k < pairs; ++k) {
      rows.push_back(2 * k + 1);
      reads.push_back(2 * k);
      if (weighted) weights.push_back(weight);
    }
    auto const graph = directed_graph(2 * pairs, rows, reads, weights);
    CovidParameters p;
    p.transmission_rate = weight > 1.0f ? 3.0 / 4e9 : 3.0;
    p.profile_mean = 2.0;
    p.profile_sd = std::sqrt(2.0);
    p.age_groups = {{"a", 1.0, 2.0, 1.0}, {"b", 2.0, 1.0, 1.0}};  // lambda scale R s / m: 1.5 and 6
    CovidPopulation population;
    for (global_id k = 0; k < pairs; ++k) {
      population.stage.insert(population.stage.end(), {Model::exposed, Model::susceptible});
      population.age_group.insert(population.age_group.end(), {0, static_cast<std::uint8_t>(k % 2)});
    }
    Model model(2 * pairs, p, population);
    auto const stages = stages_over_time(graph, model, 3);
    double const g1 = erlang_cdf(2, 1.0), g2 = erlang_cdf(2, 2.0) - erlang_cdf(2, 1.0);
    for (int group : {0, 1}) {
      double const scale = (group == 0 ? 1.5 : 6.0) * p.exposed_infectiousness * (weighted ? 0.5 : 1.0);
      // Step 0 sees G(0) = 0; step 1 sees G(1); step 2 adds G(2) for those still susceptible.
      double const exposed_after[4] = {0.0, 0.0, 1.0 - std::exp(-scale * g1), 1.0 - std::exp(-scale * (g1 + g2))};
      for (int row = 1; row <= 3; ++row) {
        std::int64_t hits = 0, tries = 0;
        for (global_id k = group; k < pairs; k += 2, ++tries)
          hits += stages[static_cast<std::size_t>(row)][static_cast<std::size_t>(2 * k + 1)] != Model::susceptible;
        double const want = exposed_after[row];
        double const got = static_cast<double>(hits) / static_cast<double>(tries);
        double const sd = std::sqrt(want * (1 - want) / static_cast<double>(tries));
        EXPECT_NEAR(got, want, 5 * sd + 1e-12) << "weight " << weight << " group " << group << " row " << row;
      }
    }
  }
}

// Infections end in death with the mortality probability; every agent is always in one stage.
TEST(Covid, MortalityFractionAndConservation) {
  agent_index const n = 200000;
  auto const graph = directed_graph(n, {}, {});
  CovidParameters p;
  p.mortality = 0.3;
  CovidPopulation population;
  population.stage.assign(static_cast<std::size_t>(n), Model::infected);
  Model model(n, p, population);
  Simulation<Exec> sim(Exec(), graph, 17);
  model.initialise(sim, n);
  auto const history = to_vector(run(sim, model, 7));
  for (std::size_t row = 0; row < 8; ++row) {
    auto const* c = &history[row * 5];
    EXPECT_EQ(c[0] + c[1] + c[2] + c[3] + c[4], n) << "row " << row;
    // Infected at the start: recovered or dead at step infected_to_recovered = 5 (row 6).
    EXPECT_EQ(c[2], row <= 5 ? n : 0) << "row " << row;
  }
  double const dead = static_cast<double>(history[7 * 5 + 4]) / n;
  EXPECT_NEAR(dead, 0.3, 5 * std::sqrt(0.3 * 0.7 / n));
}

// An epidemic on a random directed graph with ages drawn from the shares: the same stages, bit for
// bit, whichever way the engine maps agents and edges to threads and lanes.
TEST(Covid, TrajectoryIsTheSameOnEverySchedule) {
  agent_index const n = 20000;
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{n, 6.0}, 8);
  CovidParameters p;
  p.transmission_rate = 8.0;
  p.initial_exposed = 40;
  p.age_groups = {{"young", 0.5, 2.0, 1.0}, {"adult", 1.0, 3.0, 2.0}, {"old", 1.5, 4.0, 1.0}};
  auto trajectory = [&](Schedule schedule) {
    Model model(n, p);
    return stages_over_time(graph, model, 40, 11, schedule);
  };
  auto const reference = trajectory(Schedule::thread);
  std::int64_t ever = 0;
  for (auto s : reference.back()) ever += s != Model::susceptible;
  EXPECT_GT(ever, 400) << "the epidemic should spread beyond the seeds";
  for (auto schedule : {Schedule::vector, Schedule::team, Schedule::hybrid, Schedule::edge})
    EXPECT_EQ(trajectory(schedule), reference) << to_string(schedule);
  // Ages follow the shares 1 : 2 : 1.
  Model model(n, p);
  Simulation<Exec> sim(Exec(), graph, 11);
  model.initialise(sim, n);
  auto const ages = to_vector(model.age.current());
  EXPECT_NEAR(std::count(ages.begin(), ages.end(), 1) / static_cast<double>(n), 0.5, 5 * std::sqrt(0.25 / n));
}

TEST(Covid, RefusesBadParametersAndPopulations) {
  CovidParameters p;
  p.mortality = 1.5;
  EXPECT_THROW(Model(1, p), Error);
  p = {};
  p.infected_to_recovered = 0;
  EXPECT_THROW(Model(1, p), Error);
  p = {};
  CovidPopulation population;
  population.age_group = {0, 1};  // one group only
  EXPECT_THROW(Model(2, p, population), Error);
  population.age_group = {};
  population.stage = {0, 5};
  EXPECT_THROW(Model(2, p, population), Error);
  // A population for another agent count is refused when the state is set.
  population.stage = {0, 1};
  Model model(3, p, population);
  auto const graph = directed_graph(3, {}, {});
  Simulation<Exec> sim(Exec(), graph, 1);
  EXPECT_THROW(model.initialise(sim, 3), Error);
}

}  // namespace
