#include "test_common.hpp"

#include <herd/scenario/run_scenario.hpp>

#include <algorithm>
#include <set>

namespace {

using namespace herd;
using herd::test::sir;
using herd::test::to_vector;

constexpr agent_index agents = 20000;
constexpr std::uint64_t seed = 91;

ScenarioEvent set_event(std::string parameter, double value, int first, int last = -1) {
  ScenarioEvent e;
  e.kind = ScenarioEvent::Kind::set;
  e.parameter = std::move(parameter);
  e.value = value;
  e.first = first;
  e.last = last < 0 ? first : last;
  e.reverts = last >= 0;
  return e;
}

ScenarioEvent import_event(global_id count, int first, int last) {
  ScenarioEvent e;
  e.kind = ScenarioEvent::Kind::importation;
  e.count = count;
  e.first = first;
  e.last = last;
  return e;
}

ScenarioEvent vaccinate_event(global_id per_step, double efficacy, int first, int last) {
  ScenarioEvent e;
  e.kind = ScenarioEvent::Kind::vaccinate;
  e.count = per_step;
  e.efficacy = efficacy;
  e.first = first;
  e.last = last;
  return e;
}

// A run of `steps` steps with `scenario` under `stepping`: the history, then the final states.
template <class Exec>
std::vector<std::int64_t> scenario_run(CsrGraph<typename Exec::memory_space> const& graph, SeirParameters const& p,
                                       Scenario const& scenario, int steps, Stepping stepping) {
  Exec exec;
  using Sim = Simulation<Exec>;
  using Model = Seir<typename Exec::memory_space>;
  Sim sim(exec, graph, seed, herd::test::stepping_options(stepping));
  Model model(graph.num_agents(), p);
  model.initialise(sim, graph.num_agents());
  Interventions<Sim, Model> interventions(sim, model, scenario, steps);
  auto out = to_vector(run_scenario(sim, model, steps, interventions));
  for (auto s : to_vector(model.state.current())) out.push_back(s);
  return out;
}

// Vaccination classes 2 - id mod 3, on the device. Outside a test's body, which nvcc's device
// lambdas may not be in.
template <class Exec>
Kokkos::View<std::uint8_t*, typename Exec::memory_space> classes_by_id(agent_index n) {
  Kokkos::View<std::uint8_t*, typename Exec::memory_space> classes("classes", n);
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(agent_index i) { classes(i) = 2 - i % 3; });
  return classes;
}

template <class ExecutionSpace>
class Scenarios : public ::testing::Test {};
TYPED_TEST_SUITE(Scenarios, herd::test::ExecutionSpaces);

// With beta 0 nobody is infected: S stays what it was after step 5 until the lockdown ends after
// step 10, and falls again after. Every stepping mode gives the same bits, with every kind of
// event in the scenario.
TYPED_TEST(Scenarios, BetaZeroStopsInfectionsAndEveryModeAgrees) {
  using Exec = TypeParam;
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{agents, 8.0}, 5);
  Scenario scenario;
  scenario.events = {set_event("beta", 0.0, 6, 10), import_event(3, 12, 13), vaccinate_event(1500, 0.8, 14, 18),
                     set_event("infectious-steps", 3, 15)};
  int const steps = 24;
  auto const pulled = scenario_run<Exec>(graph, sir(0.15, 6, 20), scenario, steps, Stepping::pull);
  auto const s = [&](int t) { return pulled[static_cast<std::size_t>(t) * 4]; };
  for (int t = 6; t <= 10; ++t) EXPECT_EQ(s(t), s(5)) << "step " << t;
  EXPECT_LT(s(5), s(1));
  EXPECT_LT(s(13), s(10)) << "infections resume once beta returns";
  for (Stepping stepping : {Stepping::automatic, Stepping::active})
    EXPECT_EQ(scenario_run<Exec>(graph, sir(0.15, 6, 20), scenario, steps, stepping), pulled)
        << static_cast<int>(stepping);
}

// An import infects exactly the agents drawn for it: Floyd's choice under the seed of draw 0 of
// the scenario stream for (event, step), as docs/scenarios.md says, recomputed here.
TYPED_TEST(Scenarios, ImportsInfectTheDrawnAgents) {
  using Exec = TypeParam;
  using Sim = Simulation<Exec>;
  using Model = Seir<typename Exec::memory_space>;
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{agents, 8.0}, 5);
  Scenario scenario;
  scenario.events = {import_event(7, 3, 5), import_event(11, 4, 4)};
  Exec exec;
  Sim sim(exec, graph, seed);
  Model model(graph.num_agents(), sir(0.0, 1000, 0));  // nobody transmits, nobody recovers
  model.initialise(sim, graph.num_agents());
  Interventions<Sim, Model> interventions(sim, model, scenario, 6);
  auto const history = to_vector(run_scenario(sim, model, 6, interventions));
  auto const counts = to_vector(interventions.finish(sim));
  std::set<global_id> infected;
  CounterRng const rng{seed};
  for (int t = 1; t <= 6; ++t) {
    std::size_t fresh[2] = {0, 0};
    for (std::size_t k = 0; k < 2; ++k) {
      auto const& e = scenario.events[k];
      if (t < e.first || t > e.last) continue;
      auto const drawn = choose_agents<Kokkos::HostSpace>(
          rng.bits64(static_cast<global_id>(k), static_cast<std::uint32_t>(t), streams::scenario, 0), agents, e.count);
      for (std::size_t j = 0; j < drawn.extent(0); ++j) fresh[k] += infected.insert(drawn(j)).second;
    }
    EXPECT_EQ(history[static_cast<std::size_t>(t) * 4 + 2], static_cast<std::int64_t>(infected.size())) << t;
    for (std::size_t k = 0; k < 2; ++k)
      EXPECT_EQ(counts[static_cast<std::size_t>(t) * 2 + k], static_cast<std::int64_t>(fresh[k])) << t << " " << k;
  }
  EXPECT_GE(infected.size(), 30u);  // of 32 draws
}

// A dose that protects makes a susceptible agent recovered before the step's infections, so a
// vaccinated agent is never infected afterwards with efficacy 1. Each agent's dose step is
// recomputed here from the documented order: its class (id mod 3 here), then its draw.
TYPED_TEST(Scenarios, VaccinatedAgentsAreNeverInfected) {
  using Exec = TypeParam;
  using Sim = Simulation<Exec>;
  using Model = Seir<typename Exec::memory_space>;
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{agents, 8.0}, 5);
  auto const classes = classes_by_id<Exec>(agents);
  global_id const per_step = 1200;
  int const first = 2, last = 12, steps = 16;
  Scenario scenario;
  scenario.events = {vaccinate_event(per_step, 1.0, first, last)};
  scenario.events[0].by_priority = true;
  Exec exec;
  Sim sim(exec, graph, seed);
  Model model(graph.num_agents(), sir(0.05, 4, 30));
  model.initialise(sim, graph.num_agents());
  Interventions<Sim, Model> interventions(sim, model, scenario, steps, classes);
  std::vector<std::vector<std::uint8_t>> states = {to_vector(model.state.current())};
  run_scenario(sim, model, steps, interventions, [&](int, int) { states.push_back(to_vector(model.state.current())); });
  auto const counts = to_vector(interventions.finish(sim));
  // The documented dose step of each agent.
  CounterRng const rng{seed};
  std::int64_t size[3] = {0, 0, 0};
  for (agent_index i = 0; i < agents; ++i) ++size[2 - i % 3];
  std::int64_t const before[3] = {0, size[0], size[0] + size[1]};
  std::int64_t doses = 0, protected_agents = 0;
  int last_class_dose[3] = {0, 0, 0}, first_class_dose[3] = {1 << 30, 1 << 30, 1 << 30};
  std::vector<std::int64_t> changed(static_cast<std::size_t>(steps) + 1, 0);
  for (agent_index i = 0; i < agents; ++i) {
    int const c = 2 - i % 3;
    auto const position = static_cast<std::uint64_t>(before[c]) +
                          uniform_below64(rng.bits64(i, 0, streams::scenario, 0), static_cast<std::uint64_t>(size[c]));
    auto const dose = first + static_cast<int>(position / static_cast<std::uint64_t>(per_step));
    if (dose > last) continue;
    ++doses;
    last_class_dose[c] = std::max(last_class_dose[c], dose);
    first_class_dose[c] = std::min(first_class_dose[c], dose);
    auto const at = static_cast<std::size_t>(dose);
    if (states[at - 1][static_cast<std::size_t>(i)] != Model::susceptible) continue;
    ++protected_agents;
    ++changed[at];
    for (std::size_t t = at; t < states.size(); ++t)
      ASSERT_EQ(states[t][static_cast<std::size_t>(i)], Model::recovered) << "agent " << i << " step " << t;
  }
  for (std::size_t t = 0; t < changed.size(); ++t) EXPECT_EQ(counts[t], changed[t]) << "step " << t;
  EXPECT_NEAR(static_cast<double>(doses), static_cast<double>(per_step * (last - first + 1)), 400.0);
  EXPECT_GT(protected_agents, 8000);
  EXPECT_LE(last_class_dose[0], first_class_dose[1]);
  EXPECT_LE(last_class_dose[1], first_class_dose[2]);
}

// A run resumed after 9 steps from the states then, with the scenario's parameters caught up,
// ends as the run without a break: a reverting beta, an import and a vaccination span the break.
TYPED_TEST(Scenarios, AResumedRunFiresTheRestOfTheScenario) {
  using Exec = TypeParam;
  using Sim = Simulation<Exec>;
  using Model = Seir<typename Exec::memory_space>;
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{agents, 8.0}, 5);
  Scenario scenario;
  scenario.events = {set_event("beta", 0.02, 4, 12), import_event(5, 8, 11), vaccinate_event(900, 0.7, 7, 14),
                     set_event("latent-steps", 1, 6)};
  auto p = sir(0.2, 5, 15);
  p.latent = Period::fixed(3);
  int const steps = 20, before = 9;
  Exec exec;
  Sim whole_sim(exec, graph, seed);
  Model whole(graph.num_agents(), p);
  whole.initialise(whole_sim, graph.num_agents());
  Interventions<Sim, Model> whole_events(whole_sim, whole, scenario, steps);
  auto const expected = to_vector(run_scenario(whole_sim, whole, steps, whole_events));

  Sim first_sim(exec, graph, seed);
  Model first(graph.num_agents(), p);
  first.initialise(first_sim, graph.num_agents());
  Interventions<Sim, Model> first_events(first_sim, first, scenario, steps);
  run_scenario(first_sim, first, before, first_events);

  Sim sim(exec, graph, seed);
  Model model(graph.num_agents(), p);
  Interventions<Sim, Model> events(sim, model, scenario, steps);
  Kokkos::deep_copy(model.state.current(), first.state.current());
  Kokkos::deep_copy(model.timer.current(), first.timer.current());
  sim.set_step(before);
  auto const rest = to_vector(run_scenario(sim, model, steps - before, events));
  std::vector<std::int64_t> const tail(expected.begin() + before * 4, expected.end());
  EXPECT_EQ(rest, tail);
  EXPECT_EQ(to_vector(model.state.current()), to_vector(whole.state.current()));
  EXPECT_DOUBLE_EQ(model.parameters().beta, 0.2);
  EXPECT_EQ(model.parameters().latent.steps, 1);
}

// The COVID model takes every event too: no agent is exposed while the transmission rate is 0,
// the oldest age group takes its doses first, and every stepping mode gives the same bits.
template <class Exec>
std::vector<std::int64_t> covid_run(CsrGraph<typename Exec::memory_space> const& graph, Stepping stepping,
                                    std::vector<std::int64_t>* dosed_by_age) {
  using Sim = Simulation<Exec>;
  using Model = Covid<typename Exec::memory_space>;
  CovidParameters p;
  p.initial_exposed = 40;
  p.age_groups = {{"young", 1.0, 1.0, 0.6}, {"old", 1.5, 1.0, 0.4}};
  Exec exec;
  Sim sim(exec, graph, seed, herd::test::stepping_options(stepping));
  Model model(graph.num_agents(), p);
  model.initialise(sim, graph.num_agents());
  Scenario scenario;
  scenario.events = {set_event("transmission-rate", 0.0, 5, 9), import_event(10, 11, 11),
                     vaccinate_event(1500, 1.0, 12, 15), set_event("mortality", 0.5, 12)};
  scenario.events[2].by_priority = true;
  Kokkos::View<std::uint8_t*, typename Exec::memory_space> classes("classes", graph.num_agents());
  auto const age = model.age;
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, graph.num_agents()), KOKKOS_LAMBDA(agent_index i) { classes(i) = 1 - age(i); });
  Interventions<Sim, Model> interventions(sim, model, scenario, 20, classes);
  std::vector<std::uint8_t> before_doses;
  auto out = to_vector(run_scenario(sim, model, 20, interventions, [&](int t, int) {
    if (t == 11) before_doses = to_vector(model.stage.current());
  }));
  if (dosed_by_age) {
    // Agents susceptible after step 11 and recovered after step 15, by age: the doses, and the
    // few recoveries of agents exposed in between, which cannot recover within 4 steps.
    auto const after = to_vector(model.stage.current());
    auto const ages = to_vector(model.age.current());
    dosed_by_age->assign(2, 0);
    for (std::size_t i = 0; i < after.size(); ++i)
      (*dosed_by_age)[ages[i]] += before_doses[i] == Model::susceptible && after[i] == Model::recovered;
  }
  for (auto s : to_vector(model.stage.current())) out.push_back(s);
  return out;
}

TYPED_TEST(Scenarios, CovidTakesEveryEvent) {
  using Exec = TypeParam;
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{agents, 8.0}, 5);
  std::vector<std::int64_t> dosed;
  auto const pulled = covid_run<Exec>(graph, Stepping::pull, &dosed);
  auto const s = [&](int t) { return pulled[static_cast<std::size_t>(t) * 5]; };
  for (int t = 5; t <= 9; ++t) EXPECT_EQ(s(t), s(4)) << "step " << t;
  EXPECT_LT(s(4), s(1));
  // 6,000 doses, all to the old (8,000 of them), none to the young.
  EXPECT_GT(dosed[1], 4000);
  EXPECT_EQ(dosed[0], 0);
  for (Stepping stepping : {Stepping::automatic, Stepping::active})
    EXPECT_EQ(covid_run<Exec>(graph, stepping, nullptr), pulled) << static_cast<int>(stepping);
}

// Events the model or the run cannot take are refused before any step, naming the event.
TEST(Scenario, BadEventsAreRefusedByName) {
  using Exec = Kokkos::DefaultHostExecutionSpace;
  using Sim = Simulation<Exec>;
  using Model = Seir<Exec::memory_space>;
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{1000, 4.0}, 5);
  Exec exec;
  Sim sim(exec, graph, seed);
  Model model(graph.num_agents(), sir(0.1, 4, 5));
  auto const refused = [&](ScenarioEvent const& e, std::string const& says) {
    Scenario scenario;
    scenario.events = {set_event("beta", 0.3, 2), e};
    try {
      Interventions<Sim, Model> events(sim, model, scenario, 10);
      ADD_FAILURE() << "accepted: " << says;
    } catch (Error const& error) {
      EXPECT_NE(std::string(error.what()).find("event 1 (" + std::string(to_string(e.kind)) + ")"), std::string::npos)
          << error.what();
      EXPECT_NE(std::string(error.what()).find(says), std::string::npos) << error.what();
    }
    EXPECT_DOUBLE_EQ(model.parameters().beta, 0.1) << "a refused scenario leaves the model as it was";
  };
  refused(set_event("beta", 1.5, 3), "beta must lie in [0, 1]");
  refused(set_event("omega", 0.5, 3), "no parameter 'omega'");
  refused(set_event("gamma", 0.5, 3), "set infectious-steps, not gamma");
  refused(set_event("latent-steps", 2, 3), "sir has no latent period");
  refused(set_event("infectious-steps", 2.5, 3), "whole number of steps");
  refused(import_event(5, 0, 3), "from 1 up");
  refused(import_event(-1, 2, 3), "must not be negative");
  refused(import_event(1001, 2, 3), "of 1000");
  refused(vaccinate_event(10, 1.5, 2, 3), "efficacy must lie in [0, 1]");
  // A vaccination by priority without classes stops the run when it acts.
  Scenario scenario;
  scenario.events = {vaccinate_event(10, 0.5, 2, 3)};
  scenario.events[0].by_priority = true;
  Interventions<Sim, Model> events(sim, model, scenario, 10);
  try {
    run_scenario(sim, model, 10, events);
    ADD_FAILURE() << "a vaccination by priority ran without classes";
  } catch (Error const& error) {
    EXPECT_NE(std::string(error.what()).find("event 0 (vaccinate): vaccinates by priority, but no agent has a class"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
