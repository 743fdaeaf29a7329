// Ensemble members that share a graph: the step of R members of SIR stepped together, their
// spreaders counted in one pass over the graph (herd::SharedSpreaderCounts), against one run's
// step on its own, timed in pairs in one run. A member-step moves its share of the pass (the
// graph's indices and a word per neighbour, read once for R members) and its own agents' states.

#include "bench_common.hpp"

#include <string>
#include <vector>

namespace herd::bench {
namespace {

/// SIR whose states barely move over the iterations (the infectious periods are long): `mid` puts
/// the agents in the middle of an epidemic (S 60 %, I 10 %, R 30 %, other agents for each seed)
/// with a tiny beta, so that most susceptible agents draw every step; otherwise 1 % of the agents
/// are infectious and beta is 0, the full pull step of sir_step, whose cost is the pass over the
/// graph.
struct SteadySir {
  Simulation<Exec> sim;
  Seir<Memory> model;

  SteadySir(CsrGraph<Memory> const& g, std::uint64_t seed, bool mid)
      : sim(Exec(), g, seed, pulled()), model(g.num_agents(), parameters(g.num_agents(), mid)) {
    model.initialise(sim, g.num_agents());
    if (mid) put_mid_epidemic(sim, model, 60, 0, 10);
    sim.prepare(model);
  }
  static StepOptions pulled() {
    StepOptions options;
    options.stepping = Stepping::pull;
    return options;
  }
  static SeirParameters parameters(agent_index agents, bool mid) {
    SeirParameters p;
    p.beta = mid ? 1e-6 : 0.0;
    p.infectious = Period::fixed(60000);
    p.initial_infected = mid ? 0 : agents / 100;
    return p;
  }
};

// R members stepped together against one run's pull step, in pairs: member_step_ratio is a
// member-step's share of the members' step over the single step.
void ensemble_member_step(benchmark::State& state) {
  auto const agents = static_cast<agent_index>(state.range(0));
  auto const members = static_cast<std::size_t>(state.range(1));
  bool const mid = state.range(2) != 0;
  auto const& g = graph(erdos_renyi, agents, Ordering::none);
  SteadySir single(g, 7, mid);
  std::vector<Simulation<Exec>> sims;
  std::vector<Seir<Memory>> models;
  for (std::size_t k = 0; k < members; ++k) {
    SteadySir member(g, replicate_seed(7, k), mid);
    sims.push_back(member.sim);
    models.push_back(member.model);
  }
  if (!shares_graph_passes<Seir<Memory>>(sims)) {
    state.SkipWithError("the members cannot share the pass over this graph");
    return;
  }
  SharedSpreaderCounts<Exec> shared(Exec(), g, agents, static_cast<int>(members));
  timed_pairs(
      state, "single",
      [&] {
        single.sim.run_step(single.model);
        single.sim.end_step();
      },
      "members", [&] { step_sharing(shared, sims.data(), models.data()); });
  double const per_member = state.counters["members_ms"] / static_cast<double>(members);
  state.counters["member_step_ms"] = per_member;
  state.counters["member_step_ratio"] = per_member / state.counters["single_ms"];
  state.SetLabel(std::string("erdos-renyi sir, ") + (mid ? "mid-epidemic" : "full pull") + ", " +
                 std::to_string(members) + " members");
}
// The case of 10^6 agents of mean degree 16 with 32 members, and how the ratio falls with R.
BENCHMARK(ensemble_member_step)
    ->ArgsProduct({{1000000}, {1, 8, 32}, {0, 1}})
    ->ArgNames({"agents", "members", "mid"})
    ->Iterations(20)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace herd::bench
