#include "test_common.hpp"

#include <herd/engine/active_set.hpp>

#include <algorithm>
#include <string>

namespace {

using namespace herd;
using herd::test::to_vector;
using Exec = Kokkos::DefaultExecutionSpace;
using Graph = CsrGraph<Exec::memory_space>;

// Rows of a graph as sorted host vectors, to compare graphs whose rows are in any order.
std::vector<std::vector<agent_index>> rows_of(Graph const& g) {
  auto const offsets = to_vector(g.row_offsets);
  auto const neighbours = to_vector(g.neighbours);
  std::vector<std::vector<agent_index>> rows(static_cast<std::size_t>(g.num_agents()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].assign(neighbours.begin() + static_cast<std::ptrdiff_t>(offsets[i]),
                   neighbours.begin() + static_cast<std::ptrdiff_t>(offsets[i + 1]));
    std::sort(rows[i].begin(), rows[i].end());
  }
  return rows;
}

TEST(ActiveSet, TransposeReversesEveryEdge) {
  BuildOptions directed;
  directed.symmetrise = false;
  auto const g = build_csr(Exec(), herd::test::edge_list<Exec>(5, {0, 0, 1, 3, 4, 4}, {1, 2, 2, 0, 0, 3}), directed);
  auto const rows = rows_of(transpose(Exec(), g));
  std::vector<std::vector<agent_index>> const expected = {{3, 4}, {0}, {0, 1}, {4}, {}};
  EXPECT_EQ(rows, expected);
  // On a larger random directed graph, transposing twice gives the graph back.
  auto const big = build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{3000, 7.0}, 4), directed);
  EXPECT_EQ(rows_of(transpose(Exec(), transpose(Exec(), big))), rows_of(big));
}

// Every property of every agent (current buffers, as bytes) after each step.
template <class Model>
std::vector<std::vector<std::uint8_t>> trajectory(Graph const& graph, Model model, Stepping stepping, bool symmetric,
                                                  int steps, std::uint64_t seed, double* active_share = nullptr) {
  Simulation<Exec> sim(Exec(), graph, seed);
  sim.set_stepping(stepping, symmetric);
  model.initialise(sim, graph.num_agents());
  std::vector<std::vector<std::uint8_t>> out;
  for (int t = 0; t < steps; ++t) {
    sim.before_step(model);
    model.step(sim);
    sim.end_step();
    std::vector<std::uint8_t> bytes;
    model.for_each_property([&](auto const& p) {
      auto const values = to_vector(p.current());
      auto const* first = reinterpret_cast<std::uint8_t const*>(values.data());
      bytes.insert(bytes.end(), first, first + values.size() * sizeof(values[0]));
    });
    out.push_back(std::move(bytes));
  }
  if (active_share != nullptr) *active_share = sim.stepping_stats().mean_active_share();
  return out;
}

struct Case {
  char const* name;
  Graph graph;
};

std::vector<Case> symmetric_graphs() {
  Exec exec;
  LayeredPopulation population;
  population.agents = 30000;
  return {{"erdos-renyi", build_csr(exec, generate_edges(exec, ErdosRenyi{30000, 8.0}, 3))},
          {"power-law", build_csr(exec, generate_edges(exec, PowerLaw{30000, 2.1, 8.0, 0.0}, 3))},
          {"population (weighted)", build_csr(exec, generate_population(exec, population, 3).edges)}};
}

// The whole state after every step is the same, byte for byte, whether a step visits every agent
// or only the active ones, for SIR and SEIR with fixed and geometric periods.
TEST(ActiveSet, EpidemicsAreBitwiseTheSameAsThePullStep) {
  std::vector<std::pair<char const*, SeirParameters>> models;
  SeirParameters sir;
  sir.beta = 0.06;
  sir.initial_infected = 10;
  models.push_back({"sir fixed", sir});
  SeirParameters seir = sir;
  seir.latent = Period::geometric(0.4);
  seir.infectious = Period::geometric(0.2);
  models.push_back({"seir geometric", seir});
  seir.latent = Period::fixed(2);
  seir.infectious = Period::fixed(4);
  models.push_back({"seir fixed", seir});
  for (auto const& [graph_name, graph] : symmetric_graphs()) {
    for (auto const& [model_name, p] : models) {
      Seir<> model(graph.num_agents(), p);
      auto const pull = trajectory(graph, model, Stepping::pull, true, 60, 7);
      double share = 1.0;
      auto const active = trajectory(graph, model, Stepping::active, true, 60, 7, &share);
      EXPECT_EQ(active, pull) << graph_name << ", " << model_name;
      EXPECT_LT(share, 0.9) << graph_name << ", " << model_name << ": steps should have skipped agents";
      // The same graph declared directed: pushes go through its transpose.
      EXPECT_EQ(trajectory(graph, model, Stepping::active, false, 60, 7), pull) << graph_name << ", " << model_name;
      EXPECT_EQ(trajectory(graph, model, Stepping::automatic, true, 60, 7), pull) << graph_name << ", " << model_name;
    }
  }
}

// COVID on a directed graph: exposed and infected agents spread along the transpose.
TEST(ActiveSet, CovidOnADirectedGraphIsBitwiseTheSame) {
  BuildOptions directed;
  directed.symmetrise = false;
  auto const graph = build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{30000, 5.0}, 9), directed);
  CovidParameters p;
  p.transmission_rate = 10.0;
  p.initial_exposed = 20;
  Covid<> model(graph.num_agents(), p);
  auto const pull = trajectory(graph, model, Stepping::pull, false, 50, 5);
  double share = 1.0;
  EXPECT_EQ(trajectory(graph, model, Stepping::active, false, 50, 5, &share), pull);
  EXPECT_LT(share, 0.5);
}

// Infects every 97th agent from outside the steps (as a user or a file would).
void infect_some(Seir<>& model) {
  auto const state = model.state.current();
  auto const timer = model.timer.current();
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, state.extent(0)), KOKKOS_LAMBDA(agent_index i) {
        if (i % 97 == 0 && state(i) == Seir<>::susceptible) {
          state(i) = Seir<>::infectious;
          timer(i) = 3;
        }
      });
}

// herd::run after the state was changed between runs: prepare() makes active stepping find the
// sources again. Stepping on without it would carry the old sources and miss the new infections,
// which this comparison detects.
std::vector<std::uint8_t> final_state(Graph const& graph, Stepping stepping, bool prepare) {
  Simulation<Exec> sim(Exec(), graph, 11);
  sim.set_stepping(stepping, true);
  SeirParameters p;
  p.beta = 0.05;
  p.initial_infected = 5;
  Seir<> model(graph.num_agents(), p);
  model.initialise(sim, graph.num_agents());
  run(sim, model, 6);
  infect_some(model);
  if (prepare) {
    run(sim, model, 10);
  } else {
    for (int t = 0; t < 10; ++t) {
      sim.before_step(model);
      model.step(sim);
      sim.end_step();
    }
  }
  return to_vector(model.state.current());
}

TEST(ActiveSet, StateSetBetweenRunsIsFoundAgain) {
  auto const graph = build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{20000, 8.0}, 6));
  auto const pull = final_state(graph, Stepping::pull, true);
  EXPECT_EQ(final_state(graph, Stepping::active, true), pull);
  EXPECT_EQ(final_state(graph, Stepping::automatic, true), pull);
  EXPECT_NE(final_state(graph, Stepping::active, false), pull) << "the comparison should see stale sources";
}

// Counts the launches of the automatic mode's estimate pass (a Kokkos Tools callback).
struct EstimateCounter {
  static inline int passes = 0;
  static void begin_reduce(char const* name, std::uint32_t, std::uint64_t*) {
    if (std::string(name) == "herd::active::estimate") ++passes;
  }
};

// Far above the threshold, automatic mode pulls several steps on one estimate: fewer estimate
// passes than pull steps, and the same trajectory.
TEST(ActiveSet, AutomaticModeSkipsEstimatesFarAboveTheThreshold) {
  namespace tools = Kokkos::Tools::Experimental;
  auto const graph = build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{20000, 16.0}, 8));
  SeirParameters p;
  p.beta = 0.2;
  p.infectious = Period::fixed(6);
  p.initial_infected = 20;
  Seir<> model(graph.num_agents(), p);
  Simulation<Exec> pulled_sim(Exec(), graph, 5);
  model.initialise(pulled_sim, graph.num_agents());
  auto const pull = to_vector(run(pulled_sim, model, 40));
  Simulation<Exec> sim(Exec(), graph, 5);
  sim.set_stepping(Stepping::automatic, true);
  model.initialise(sim, graph.num_agents());
  auto const original = tools::get_callbacks();
  auto counting = original;
  counting.begin_parallel_reduce = EstimateCounter::begin_reduce;
  tools::set_callbacks(counting);
  EstimateCounter::passes = 0;
  auto const automatic = to_vector(run(sim, model, 40));
  tools::set_callbacks(original);
  auto const& stats = sim.stepping_stats();
  auto const pulled = stats.steps - stats.active_steps;
  EXPECT_EQ(automatic, pull);
  EXPECT_GT(stats.active_steps, 0);
  EXPECT_GE(pulled, 8) << "the epidemic should spend steps far above the threshold";
  EXPECT_GT(EstimateCounter::passes, 0);
  EXPECT_LT(EstimateCounter::passes, pulled);
}

// A model that declares no activity is stepped in full whatever is asked.
TEST(ActiveSet, ModelsWithoutActivityAreAlwaysPulled) {
  auto const graph = build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{5000, 6.0}, 2));
  Opinion<> model(graph.num_agents(), OpinionParameters{});
  EXPECT_EQ(trajectory(graph, model, Stepping::active, true, 20, 3),
            trajectory(graph, model, Stepping::pull, true, 20, 3));
}

}  // namespace
