#include "test_common.hpp"

#include <herd/scenario/run_scenario.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace {

using namespace herd;
using herd::test::to_vector;

constexpr std::uint64_t seed = 23;

// Every entry of a graph as (row's id, neighbour's id, layer, weight), ids through `ids` (none:
// the indices), in a set: what a relabelling must keep.
template <class Graph>
std::multiset<std::tuple<global_id, global_id, int, float>> entries_of(Graph const& graph,
                                                                       std::vector<global_id> const& ids = {}) {
  auto const offsets = to_vector(graph.row_offsets);
  auto const neighbours = to_vector(graph.neighbours);
  auto const weights = to_vector(graph.weights);
  auto const layers = to_vector(graph.layers);
  auto const id = [&](agent_index i) { return ids.empty() ? global_id{i} : ids[static_cast<std::size_t>(i)]; };
  std::multiset<std::tuple<global_id, global_id, int, float>> all;
  for (agent_index i = 0; i < graph.num_agents(); ++i)
    for (auto e = offsets[static_cast<std::size_t>(i)]; e < offsets[static_cast<std::size_t>(i) + 1]; ++e)
      all.emplace(id(i), id(neighbours[e]), layers[e], weights[e]);
  return all;
}

template <class ExecutionSpace>
class Layers : public ::testing::Test {};
TYPED_TEST_SUITE(Layers, herd::test::ExecutionSpaces);

// A pair that meets in two layers keeps an edge in each, rows ordered by neighbour then layer; a
// pair repeated within a layer keeps its largest weight; edges given without weights weigh 1.
TYPED_TEST(Layers, APairKeepsAnEdgeInEachLayer) {
  using Exec = TypeParam;
  auto const graph = build_csr(Exec(), herd::test::edge_list<Exec>(3, {0, 1, 0, 0, 2}, {1, 0, 1, 2, 0},
                                                                   {0.5f, 0.9f, 0.3f, 1.0f, 0.2f}, {2, 2, 0, 1, 1}));
  ASSERT_TRUE(graph.layered());
  ASSERT_TRUE(graph.weighted());
  EXPECT_EQ(to_vector(graph.row_offsets), (std::vector<edge_offset>{0, 3, 5, 6}));
  EXPECT_EQ(to_vector(graph.neighbours), (std::vector<agent_index>{1, 1, 2, 0, 0, 0}));
  EXPECT_EQ(to_vector(graph.layers), (std::vector<layer_index>{0, 2, 1, 0, 2, 1}));
  EXPECT_EQ(to_vector(graph.weights), (std::vector<float>{0.3f, 0.9f, 1.0f, 0.3f, 0.9f, 1.0f}));

  auto const unweighted = build_csr(Exec(), herd::test::edge_list<Exec>(3, {0, 0}, {1, 1}, {}, {3, 1}));
  ASSERT_TRUE(unweighted.weighted()) << "a layered graph has weights";
  EXPECT_EQ(to_vector(unweighted.weights), (std::vector<float>(4, 1.0f)));
  EXPECT_EQ(to_vector(unweighted.layers), (std::vector<layer_index>{1, 3, 1, 3}));
  EXPECT_NO_THROW(validate(Exec(), unweighted));
}

// The built-in population's layers hold what they say: household edges join members of one
// household and every pair of a household meets there, school edges join children, workplace
// edges adults. Relabelling and transposing keep each edge's layer.
TYPED_TEST(Layers, ThePopulationsLayersHoldTheirContactsThroughRelabelling) {
  using Exec = TypeParam;
  Exec exec;
  LayeredPopulation spec;
  spec.agents = 6000;
  auto const population = generate_population(exec, spec, seed);
  auto const graph = build_csr(exec, population.edges);
  ASSERT_TRUE(graph.layered());
  auto const household = to_vector(population.household);
  auto const age = to_vector(population.age_group);
  std::map<agent_index, std::size_t> members;
  for (auto h : household) ++members[h];
  std::size_t pairs_at_home = 0;
  for (auto const& [h, n] : members) pairs_at_home += n * (n - 1);
  std::vector<std::size_t> per_layer(4, 0);
  for (auto const& [i, j, layer, weight] : entries_of(graph)) {
    ASSERT_LT(layer, 4);
    ++per_layer[static_cast<std::size_t>(layer)];
    auto const a = static_cast<std::size_t>(i), b = static_cast<std::size_t>(j);
    switch (static_cast<PopulationLayer>(layer)) {
      case PopulationLayer::household:
        ASSERT_EQ(household[a], household[b]) << i << " - " << j;
        EXPECT_EQ(weight, spec.household_weight);
        break;
      case PopulationLayer::school:
        ASSERT_TRUE(age[a] == 0 && age[b] == 0) << i << " - " << j;
        EXPECT_EQ(weight, spec.school_weight);
        break;
      case PopulationLayer::workplace:
        ASSERT_TRUE(age[a] == 1 && age[b] == 1) << i << " - " << j;
        EXPECT_EQ(weight, spec.workplace_weight);
        break;
      case PopulationLayer::community:
        EXPECT_EQ(weight, spec.community_weight);
        break;
    }
  }
  EXPECT_EQ(per_layer[0], pairs_at_home) << "every pair of a household meets at home";
  for (std::size_t l = 1; l < 4; ++l) EXPECT_GT(per_layer[l], 1000u) << "layer " << l;

  auto const permutation = compute_ordering(exec, graph, Ordering::random, 7);
  auto const permuted = permute(exec, graph, permutation);
  EXPECT_EQ(entries_of(permuted, to_vector(global_ids_of(exec, permutation))), entries_of(graph));
  // The transpose of a symmetric graph holds its entries, row for column.
  auto flipped = entries_of(transpose(exec, graph));
  std::multiset<std::tuple<global_id, global_id, int, float>> back;
  for (auto const& [i, j, layer, weight] : flipped) back.emplace(j, i, layer, weight);
  EXPECT_EQ(back, entries_of(graph));
}

// SIR on the population with every layer but households closed from the first step: nobody is
// infected outside the households of the first infected. The same bits pulled with and without
// the weights' codes and active, and (a control) the infection leaves the households with the
// layers open.
TYPED_TEST(Layers, ClosingAllButHouseholdsKeepsInfectionsAtHome) {
  using Exec = TypeParam;
  using Sim = Simulation<Exec>;
  using Model = Seir<typename Exec::memory_space>;
  Exec exec;
  LayeredPopulation spec;
  spec.agents = 20000;
  auto const population = generate_population(exec, spec, seed);
  auto const graph = build_csr(exec, population.edges);
  auto const household = to_vector(population.household);
  int const steps = 30;
  ScenarioEvent closure;
  closure.kind = ScenarioEvent::Kind::layer;
  closure.first = 1;
  closure.last = steps;
  closure.layers = {{"school", 0.0}, {"workplace", 0.0}, {"community", 0.0}};
  Scenario scenario;
  scenario.layer_names = population_layer_names();
  scenario.events = {closure};
  SeirParameters p;
  p.beta = 0.6;
  p.infectious = Period::fixed(6);
  p.initial_infected = 40;
  auto const run_with = [&](Scenario const& s, StepOptions const& options, std::set<agent_index>* seeds) {
    Sim sim(exec, graph, seed, options);
    Model model(graph.num_agents(), p);
    model.initialise(sim, graph.num_agents());
    auto const first = to_vector(model.state.current());
    if (seeds)
      for (std::size_t i = 0; i < first.size(); ++i)
        if (first[i] != Model::susceptible) seeds->insert(household[i]);
    Interventions<Sim, Model> interventions(sim, model, s, steps);
    auto out = to_vector(run_scenario(sim, model, steps, interventions));
    for (auto state : to_vector(model.state.current())) out.push_back(state);
    // The pulled sums added by weight code where the codes were on (else the comparisons below
    // would compare the edge-by-edge sums with themselves).
    if (options.stepping == Stepping::pull) {
      EXPECT_EQ(sim.code_bytes_per_edge() > 0, options.weight_codes);
    }
    return out;
  };
  std::set<agent_index> homes;
  auto const closed = run_with(scenario, herd::test::stepping_options(Stepping::pull), &homes);
  ASSERT_EQ(homes.size(), 40u);
  auto const at_home = herd::test::infections_at_home(closed, household, homes);
  EXPECT_EQ(at_home.away, 0u) << "infections away from the seeds' households";
  EXPECT_GT(at_home.infected, 60u) << "the infection spread within the households";
  EXPECT_LE(at_home.infected, at_home.living_there);

  StepOptions uncoded;
  uncoded.weight_codes = false;
  EXPECT_EQ(run_with(scenario, uncoded, nullptr), closed) << "without the weights' codes";
  EXPECT_EQ(run_with(scenario, herd::test::stepping_options(Stepping::active), nullptr), closed) << "active";

  auto const open = run_with(Scenario{}, herd::test::stepping_options(Stepping::pull), nullptr);
  EXPECT_GT(herd::test::infections_at_home(open, household, homes).away, 100u)
      << "with the layers open the infection leaves home";
}

// A weekly schedule: school closed on days 6 and 7 of every 7 steps, workplaces at half weight
// on steps 4 to 9. The factors each step reads are the products of the events acting on it, and
// the steps give the same bits with and without codes, pulled or active, and in two pieces.
TYPED_TEST(Layers, AWeeklyScheduleSetsTheFactorsOfEachStep) {
  using Exec = TypeParam;
  using Sim = Simulation<Exec>;
  using Model = Seir<typename Exec::memory_space>;
  Exec exec;
  LayeredPopulation spec;
  spec.agents = 20000;
  auto const graph = build_csr(exec, generate_population(exec, spec, seed).edges);
  ScenarioEvent weekend;
  weekend.kind = ScenarioEvent::Kind::layer;
  weekend.first = 1;
  weekend.last = 40;
  weekend.layers = {{"school", 0.0}};
  weekend.period = 7;
  weekend.days = (1u << 5) | (1u << 6);
  ScenarioEvent half = weekend;
  half.first = 4;
  half.last = 9;
  half.period = 0;
  half.days = 0;
  half.layers = {{"workplace", 0.5}, {"school", 0.5}};
  Scenario scenario;
  scenario.layer_names = population_layer_names();
  scenario.events = {weekend, half};
  ASSERT_NO_THROW(check(scenario));
  SeirParameters p;
  p.beta = 0.2;
  p.infectious = Period::fixed(5);
  p.initial_infected = 30;
  int const steps = 20;
  auto const run_with = [&](StepOptions const& options, int pieces, std::vector<std::vector<float>>* factors) {
    Sim sim(exec, graph, seed, options);
    Model model(graph.num_agents(), p);
    model.initialise(sim, graph.num_agents());
    Interventions<Sim, Model> interventions(sim, model, scenario, steps);
    std::vector<std::int64_t> out;
    for (int piece = 0; piece < pieces; ++piece) {
      auto const history = to_vector(run_scenario(sim, model, steps / pieces, interventions, [&](int, int) {
        if (factors) factors->push_back(sim.layer_factors());
      }));
      out.insert(out.end(), history.begin(), history.end());
    }
    for (auto state : to_vector(model.state.current())) out.push_back(state);
    return out;
  };
  std::vector<std::vector<float>> factors;
  auto const pulled = run_with(herd::test::stepping_options(Stepping::pull), 1, &factors);
  ASSERT_EQ(factors.size(), static_cast<std::size_t>(steps));
  for (int t = 1; t <= steps; ++t) {
    bool const weekend_day = (t - 1) % 7 >= 5, halved = t >= 4 && t <= 9;
    auto const& f = factors[static_cast<std::size_t>(t - 1)];
    ASSERT_EQ(f.size(), static_cast<std::size_t>(max_layers));
    EXPECT_EQ(f[0], 1.0f) << "step " << t;
    EXPECT_EQ(f[1], weekend_day ? 0.0f : halved ? 0.5f : 1.0f) << "step " << t;
    EXPECT_EQ(f[2], halved ? 0.5f : 1.0f) << "step " << t;
    EXPECT_EQ(f[3], 1.0f) << "step " << t;
  }
  StepOptions uncoded;
  uncoded.weight_codes = false;
  EXPECT_EQ(run_with(uncoded, 1, nullptr), pulled) << "without the weights' codes";
  EXPECT_EQ(run_with(herd::test::stepping_options(Stepping::active), 1, nullptr), pulled) << "active";
  {
    // A step whose factors change says it acted (so the active set is forgotten), one whose
    // factors stay does not.
    Sim sim(exec, graph, seed);
    Model model(graph.num_agents(), p);
    model.initialise(sim, graph.num_agents());
    Interventions<Sim, Model> interventions(sim, model, scenario, steps);
    for (int t = 1; t <= 14; ++t)
      EXPECT_EQ(interventions(sim, model, t), t == 4 || t == 6 || t == 8 || t == 10 || t == 13) << "step " << t;
  }
  auto pieces = run_with(herd::test::stepping_options(Stepping::pull), 2, nullptr);
  // The second piece's history starts with the row the first one ended with.
  auto const row = static_cast<std::ptrdiff_t>((pulled.size() - static_cast<std::size_t>(graph.num_agents())) /
                                               static_cast<std::size_t>(steps + 1));
  pieces.erase(pieces.begin() + (steps / 2 + 1) * row, pieces.begin() + (steps / 2 + 2) * row);
  EXPECT_EQ(pieces, pulled) << "in two pieces";
}

// Layer events name layers the graph has, with factors >= 0, on days inside their cycle; a graph
// without layers refuses them.
TEST(LayerEvents, BadLayersAreRefusedByName) {
  ScenarioEvent e;
  e.kind = ScenarioEvent::Kind::layer;
  e.label = "events[3]";
  e.layers = {{"schools", 0.0}};
  Scenario scenario;
  scenario.layer_names = population_layer_names();
  scenario.events = {e};
  auto const message = [&] {
    try {
      check(scenario);
    } catch (Error const& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(),
            "events[3]: unknown layer 'schools' (the graph's layers: household, school, workplace, community)");
  scenario.events[0].layers = {{"school", -0.5}};
  EXPECT_EQ(message(), "events[3]: layer school's factor must lie in [0, 3.4e38], got -0.5");
  scenario.events[0].layers = {{"school", 1e30}, {"school", 1e10}};
  EXPECT_EQ(message(), "events[3]: layer school's factors could multiply past the largest float on a step");
  scenario.events[0].layers = {{"school", 0.5}};
  scenario.events[0].period = 7;
  scenario.events[0].days = 1u << 7;
  EXPECT_EQ(message(), "events[3]: its days must lie in 1 ... 7, at least one");
  scenario.events[0].period = 0;
  scenario.layer_names = {};
  EXPECT_EQ(message(), "events[3]: unknown layer 'school' (the graph has no layers)");
  // A scenario without the names is told so, whichever layers a rank's rows hold.
  using Exec = Kokkos::DefaultHostExecutionSpace;
  using Sim = Simulation<Exec>;
  using Model = Seir<Exec::memory_space>;
  LayeredPopulation spec;
  spec.agents = 1000;
  auto const graph = build_csr(Exec(), generate_population(Exec(), spec, 3).edges);
  Sim sim(Exec(), graph, 3);
  Model model(graph.num_agents(), SeirParameters{});
  std::string said = "no error";
  try {
    Interventions<Sim, Model> interventions(sim, model, scenario, 10);
  } catch (Error const& error) {
    said = error.what();
  }
  EXPECT_EQ(said,
            "events[3]: names a layer, and the scenario names none (Scenario::layer_names, by layer number; a graph "
            "without layers takes no layer events)");
}

}  // namespace
