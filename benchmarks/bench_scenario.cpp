// What a scenario's events cost a step: SIR's pulled step alone, against the same step after a
// vaccination campaign's turn (a pass over the agents with two draws each, then the simulation
// forgets its active set), timed in pairs in one run, mid-epidemic on Erdős–Rényi.

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

}  // namespace
}  // namespace herd::bench
