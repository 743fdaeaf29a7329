// What a scenario's events cost a step, timed in pairs in one run, mid-epidemic: a vaccination
// campaign's turn on Erdős–Rényi, and layer factors and isolation on the layered population.

#include "bench_common.hpp"

#include <herd/scenario/run_scenario.hpp>

#include <string>

namespace herd::bench {
namespace {

void scenario_vaccination_step(benchmark::State& state) {
  auto const agents = static_cast<agent_index>(state.range(0));
  auto const& g = graph(erdos_renyi, agents, Ordering::none);
  StepOptions options;
  options.stepping = Stepping::pull;
  auto const make = [&](Simulation<Exec>& sim, Seir<Memory>& model) {
    model.initialise(sim, g.num_agents());
    put_mid_epidemic(sim, model, 60, 0, 10);
    sim.prepare(model);
  };
  SeirParameters p;
  p.beta = 1e-6;
  p.infectious = Period::fixed(60000);
  p.initial_infected = 0;
  Simulation<Exec> plain_sim(Exec(), g, 7, options), sim(Exec(), g, 7, options);
  Seir<Memory> plain_model(agents, p), model(agents, p);
  make(plain_sim, plain_model);
  make(sim, model);
  // A campaign over every step the benchmark could run: 0.1 % of the agents a step.
  int const steps = 100000;
  Scenario scenario;
  ScenarioEvent campaign;
  campaign.kind = ScenarioEvent::Kind::vaccinate;
  campaign.first = 1;
  campaign.last = steps;
  campaign.count = agents / 1000;
  campaign.efficacy = 0.9;
  scenario.events = {campaign};
  Interventions<Simulation<Exec>, Seir<Memory>> events(sim, model, scenario, steps);
  int step = 0;
  timed_pairs(
      state, "plain",
      [&] {
        plain_sim.run_step(plain_model);
        plain_sim.end_step();
      },
      "campaign",
      [&] {
        if (events(sim, model, ++step % steps + 1)) sim.prepare(model);
        sim.run_step(model);
        sim.end_step();
      });
  state.counters["campaign_cost"] = state.counters["campaign_ms"] / state.counters["plain_ms"] - 1.0;
  state.SetLabel("erdos-renyi sir, mid-epidemic, pull, 0.1 % vaccinated a step");
}
BENCHMARK(scenario_vaccination_step)
    ->Arg(1000000)
    ->ArgName("agents")
    ->Iterations(40)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// What layer factors cost a step: SIR's pulled step on the layered population, mid-epidemic,
// against the same step on the same edges without their layers (the graph as Herd kept it before
// it had layers), timed in pairs. The layered step follows a scenario whose factors change before
// every step: school closed on alternate steps, workplaces and the community at 0.2 on the others.
// `codes` 1: the sums add by weight code (the population's path); 0: edge by edge, reading each
// edge's layer and its factor. `detect` d > 0: test-and-isolate too, each infectious agent (10 %
// of them, infectious for good) detected with probability d / 1000 a step and isolated for 7
// steps, keeping its household. With d = 50, 2.6 % of the agents are isolated and 0.7 % start or
// end an isolation before each step; with d = 10, 0.7 % and 0.2 %.
void scenario_layer_step(benchmark::State& state) {
  auto const agents = static_cast<agent_index>(state.range(0));
  bool const codes = state.range(1) != 0;
  double const detect = static_cast<double>(state.range(2)) / 1000.0;
  bool const isolating = detect > 0.0;
  auto const& layered = graph(population, agents, Ordering::none);
  auto plain = layered;
  plain.layers = {};
  StepOptions options;
  options.stepping = Stepping::pull;
  options.weight_codes = codes;
  SeirParameters p;
  p.beta = 1e-3;
  p.infectious = Period::fixed(60000);
  p.initial_infected = 0;
  Simulation<Exec> plain_sim(Exec(), plain, 7, options), sim(Exec(), layered, 7, options);
  Seir<Memory> plain_model(agents, p), model(agents, p);
  auto const make = [&](Simulation<Exec>& s, Seir<Memory>& m) {
    m.initialise(s, s.num_agents());
    put_mid_epidemic(s, m, 60, 0, 10);
    s.prepare(m);
  };
  make(plain_sim, plain_model);
  make(sim, model);
  int const steps = 100000;
  ScenarioEvent closed, lockdown;
  closed.kind = lockdown.kind = ScenarioEvent::Kind::layer;
  closed.first = lockdown.first = 1;
  closed.last = lockdown.last = steps;
  closed.period = lockdown.period = 2;
  closed.days = 1;
  lockdown.days = 2;
  closed.layers = {{"school", 0.0}};
  lockdown.layers = {{"workplace", 0.2}, {"community", 0.2}};
  Scenario scenario;
  scenario.layer_names = population_layer_names();
  scenario.events = {closed, lockdown};
  if (isolating) {
    ScenarioEvent isolate;
    isolate.kind = ScenarioEvent::Kind::isolate;
    isolate.first = 1;
    isolate.last = steps;
    isolate.probability = detect;
    isolate.duration = 7;
    isolate.keeps = {"household"};
    scenario.events.push_back(isolate);
  }
  Interventions<Simulation<Exec>, Seir<Memory>> events(sim, model, scenario, steps);
  int step = 0;
  timed_pairs(
      state, "unlayered",
      [&] {
        plain_sim.run_step(plain_model);
        plain_sim.end_step();
      },
      "layers",
      [&] {
        if (events(sim, model, ++step % steps + 1)) sim.prepare(model);
        sim.run_step(model);
        sim.end_step();
      });
  state.counters["layers_cost"] = state.counters["layers_ms"] / state.counters["unlayered_ms"] - 1.0;
  state.SetLabel(std::string("population sir, mid-epidemic, pull, ") + (codes ? "weight codes" : "edge by edge") +
                 ", layer factors changed every step" +
                 (isolating ? ", test-and-isolate (detection " + std::to_string(state.range(2)) + " per mille)" : ""));
}
BENCHMARK(scenario_layer_step)
    ->ArgsProduct({{1000000, 10000000}, {1, 0}, {0, 10, 50}})
    ->ArgNames({"agents", "codes", "detect"})
    ->Iterations(30)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace herd::bench
