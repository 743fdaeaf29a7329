// AgentTorch's COVID model on the Astoria population (37,518 agents, 21 steps), and on synthetic
// populations built like Astoria's at 10^6 and 10^7 agents: each new agent copies a random Astoria
// agent's age group, out-degree and in-degree, and the directed contacts pair out-stubs with
// in-stubs at random (a directed configuration model), so the age mix, both degree distributions
// and their correlation with age are Astoria's. The Astoria files come from HERD_ASTORIA (default:
// the data folder beside the source tree); without them these benchmarks are skipped.

#include "bench_common.hpp"

#include <herd/io/edge_list_reader.hpp>
#include <herd/io/text/attribute_table.hpp>
#include <herd/models/covid_astoria.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>

namespace herd::bench {
namespace {

// Astoria as read from its files: the directed contacts (row v lists u for a contact u -> v) and
// each agent's age group and initial stage.
struct Population {
  CsrGraph<Memory> graph;
  CovidPopulation agents;
  double load_seconds = 0.0;
};

std::string astoria_dir() {
  char const* dir = std::getenv("HERD_ASTORIA");
  return dir != nullptr ? dir : HERD_BENCH_ASTORIA;
}

bool have_astoria() { return std::ifstream(astoria_dir() + "/astoria_agents.csv").good(); }

// The CSV path of herd run --model covid --graph mobility_network_0.csv --directed --transpose
// --attributes astoria_agents.csv, timed as a whole.
Population const& astoria() {
  static std::unique_ptr<Population> cached;
  static bool const hooked = (Kokkos::push_finalize_hook([] { cached.reset(); }), true);
  (void)hooked;
  if (cached) return *cached;
  Kokkos::Timer timer;
  auto edges = read_edge_list(astoria_dir() + "/mobility_network_0.csv");
  std::swap(edges.sources, edges.targets);
  auto const table = read_attribute_table(astoria_dir() + "/astoria_agents.csv");
  edges.num_agents = static_cast<agent_index>(table.rows);
  auto const& labels = astoria_age_labels();
  cached = std::make_unique<Population>();
  cached->agents.age_group.resize(table.rows);
  cached->agents.stage.resize(table.rows);
  for (auto const& column : table.columns) {
    for (std::size_t r = 0; r < table.rows; ++r) {
      auto const agent = static_cast<std::size_t>(table.ids[r]);
      if (column.name == "age_group")
        cached->agents.age_group[agent] = static_cast<std::uint8_t>(
            std::find(labels.begin(), labels.end(), column.categories[static_cast<std::size_t>(column.integers[r])]) -
            labels.begin());
      if (column.name == "initial_disease_stage")
        cached->agents.stage[agent] = static_cast<std::uint8_t>(column.integers[r]);
    }
  }
  BuildOptions options;
  options.symmetrise = false;
  cached->graph = build_csr(Exec(), to_device(Exec(), edges), options);
  Kokkos::fence();
  cached->load_seconds = timer.seconds();
  return *cached;
}

// A population of `agents` built like Astoria's (see the top of this file), with Astoria's share
// of initially exposed agents exposed at random.
Population const& astoria_like(agent_index agents) {
  static std::map<agent_index, Population> cache;
  static bool const hooked = (Kokkos::push_finalize_hook([] { cache.clear(); }), true);
  (void)hooked;
  if (auto found = cache.find(agents); found != cache.end()) return found->second;
  cache.clear();  // 10^7 agents take a few hundred MB
  auto const& source = astoria();
  auto const offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), source.graph.row_offsets);
  auto const neighbours = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), source.graph.neighbours);
  auto const n = static_cast<std::size_t>(source.graph.num_agents());
  std::vector<agent_index> in_degree(n), out_degree(n, 0);
  for (std::size_t v = 0; v < n; ++v) {
    in_degree[v] = static_cast<agent_index>(offsets(v + 1) - offsets(v));
    for (auto e = offsets(v); e < offsets(v + 1); ++e) ++out_degree[static_cast<std::size_t>(neighbours(e))];
  }
  std::mt19937_64 rng(20201126);
  std::uniform_int_distribution<std::size_t> pick(0, n - 1);
  Population out;
  HostEdgeList edges;
  edges.num_agents = agents;
  std::vector<global_id> in_stubs;
  out.agents.age_group.resize(static_cast<std::size_t>(agents));
  out.agents.stage.resize(static_cast<std::size_t>(agents));
  std::bernoulli_distribution exposed(45.0 / 37518.0);
  for (agent_index i = 0; i < agents; ++i) {
    auto const like = pick(rng);
    out.agents.age_group[static_cast<std::size_t>(i)] = source.agents.age_group[like];
    out.agents.stage[static_cast<std::size_t>(i)] = exposed(rng) ? 1 : 0;
    edges.sources.insert(edges.sources.end(), static_cast<std::size_t>(in_degree[like]), i);  // rows: who is infected
    in_stubs.insert(in_stubs.end(), static_cast<std::size_t>(out_degree[like]), i);           // who infects
  }
  std::shuffle(in_stubs.begin(), in_stubs.end(), rng);
  auto const m = std::min(edges.sources.size(), in_stubs.size());
  edges.sources.resize(m);
  in_stubs.resize(m);
  std::shuffle(edges.sources.begin(), edges.sources.end(), rng);
  edges.targets = std::move(in_stubs);
  BuildOptions options;
  options.symmetrise = false;
  out.graph = build_csr(Exec(), to_device(Exec(), edges), options);
  return cache.emplace(agents, std::move(out)).first->second;
}

// The minimum bytes of one step: per agent the row offset (8) and the four one-byte properties read
// (4), three written; per edge the neighbour index (4) and its stage (1).
double covid_step_bytes(CsrGraph<Memory> const& g) {
  return static_cast<double>(g.num_agents()) * (8.0 + 4.0 + 3.0) + static_cast<double>(g.num_edges()) * 5.0;
}

// A run as AgentTorch's runtime notes time it: the initial state set, then 21 steps. The model and
// its tables are built outside the timed region (AgentTorch's 0.502 s include its set-up, its
// 0.217 s do not); this times initialise + 21 steps.
void covid_run(benchmark::State& state, Population const& population, std::string const& label) {
  auto const& g = population.graph;
  auto const agents = g.num_agents();
  Exec exec;
  constexpr int steps = 21;
  std::int64_t final_susceptible = 0;
  double seconds = 0.0;
  for (auto _ : state) {
    Simulation<Exec> sim(exec, g, 42);
    CovidParameters p;
    p.age_groups = astoria_age_groups("labels");
    Covid<Memory> model(agents, p, population.agents);
    Kokkos::fence();
    Kokkos::Timer timer;
    model.initialise(sim, agents);
    auto const history = run(sim, model, steps);
    Kokkos::fence();
    seconds += timer.seconds();
    state.SetIterationTime(timer.seconds());
    auto last = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Kokkos::subview(history, steps, 0));
    final_susceptible = last();
  }
  double const edges = static_cast<double>(g.num_edges());
  set_rates(state, agents * steps, edges * steps, covid_step_bytes(g) * steps);
  state.counters["ms/step"] = 1e3 * seconds / static_cast<double>(state.iterations()) / steps;
  state.counters["infected_share"] = 1.0 - static_cast<double>(final_susceptible) / agents;
  if (population.load_seconds > 0) state.counters["load_s"] = population.load_seconds;
  state.SetLabel(label + " agents=" + std::to_string(agents) + " contacts=" + std::to_string(g.num_edges()));
}

void covid_astoria(benchmark::State& state) {
  if (!have_astoria()) return state.SkipWithError(("no Astoria data in " + astoria_dir()).c_str());
  covid_run(state, astoria(), "astoria");
}
BENCHMARK(covid_astoria)->UseManualTime()->Unit(benchmark::kMillisecond);

void covid_astoria_like(benchmark::State& state) {
  if (!have_astoria()) return state.SkipWithError(("no Astoria data in " + astoria_dir()).c_str());
  covid_run(state, astoria_like(static_cast<agent_index>(state.range(0))), "astoria-like");
}
BENCHMARK(covid_astoria_like)->Arg(1000000)->Arg(10000000)->UseManualTime()->Unit(benchmark::kMillisecond);

// The reference in the same run: SIR (Herd's leanest epidemic step) for 21 steps on the same
// contacts, seeded with as many infectious agents as the COVID run has exposed ones.
void covid_astoria_like_sir_reference(benchmark::State& state) {
  if (!have_astoria()) return state.SkipWithError(("no Astoria data in " + astoria_dir()).c_str());
  auto const& population = astoria_like(static_cast<agent_index>(state.range(0)));
  auto const& g = population.graph;
  auto const agents = g.num_agents();
  Exec exec;
  constexpr int steps = 21;
  for (auto _ : state) {
    Simulation<Exec> sim(exec, g, 42);
    SeirParameters p;
    p.beta = 0.3;
    p.initial_infected = std::count(population.agents.stage.begin(), population.agents.stage.end(), 1);
    Seir<Memory> model(agents, p);
    Kokkos::fence();
    Kokkos::Timer timer;
    model.initialise(sim, agents);
    run(sim, model, steps);
    Kokkos::fence();
    state.SetIterationTime(timer.seconds());
  }
  set_rates(state, agents * steps, static_cast<double>(g.num_edges()) * steps, seir_step_bytes(g) * steps);
  state.SetLabel("sir on astoria-like agents=" + std::to_string(agents));
}
BENCHMARK(covid_astoria_like_sir_reference)
    ->Arg(1000000)
    ->Arg(10000000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace herd::bench
