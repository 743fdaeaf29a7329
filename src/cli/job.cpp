#include "job.hpp"

#include <herd/herd.hpp>

#include <Kokkos_Timer.hpp>

namespace herd::cli {

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Memory = Exec::memory_space;

// The graph as stored, before any reordering, with what the models need to know about it.
template <class WeightStorage>
struct Input {
  CsrGraph<Memory, WeightStorage> graph;
  std::string name;
};

template <class WeightStorage>
Input<WeightStorage> make_graph(Options const& o, Exec const& exec) {
  auto const agents = static_cast<agent_index>(o.agents);
  BuildOptions build;
  if (o.graph == "population") {
    LayeredPopulation spec;
    spec.agents = agents;
    return {build_csr<WeightStorage>(exec, generate_population(exec, spec, o.seed).edges, build), "population"};
  }
  if (o.graph == "erdos-renyi")
    return {build_csr<WeightStorage>(exec, generate_edges(exec, ErdosRenyi{agents, o.mean_degree}, o.seed), build),
            o.graph};
  if (o.graph == "power-law")
    return {build_csr<WeightStorage>(
                exec, generate_edges(exec, PowerLaw{agents, o.exponent, o.mean_degree, 0.0}, o.seed), build),
            o.graph};
  if (o.graph == "watts-strogatz") {
    auto const k = static_cast<agent_index>(std::lround(o.mean_degree / 2));
    return {build_csr<WeightStorage>(exec, generate_edges(exec, WattsStrogatz{agents, k, o.rewire}, o.seed), build),
            o.graph};
  }
  // Anything else names an edge-list file.
  build.symmetrise = !o.directed;
  return {build_csr<WeightStorage>(exec, to_device(exec, read_edge_list(o.graph)), build), o.graph};
}

template <class Model, class Sim>
JobResult simulate(Options const& o, Sim& sim, Model& model, std::vector<int> const& shown,
                   std::function<void(int, int)> const& progress) {
  JobResult result;
  model.initialise(sim, sim.num_agents());
  Kokkos::fence();
  Kokkos::Timer timer;
  auto history = run(sim, model, o.steps, progress);
  Kokkos::fence();
  result.step_seconds = timer.seconds();
  // The history comes back in one copy, after the loop.
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), history);
  auto const names = model.observable_names();
  for (int c : shown) result.columns.push_back(names[c]);
  result.counts.reserve(host.extent(0));
  for (std::size_t t = 0; t < host.extent(0); ++t) {
    std::vector<long long> row;
    row.reserve(shown.size());
    for (int c : shown) row.push_back(host(t, c));
    result.counts.push_back(row);
  }
  return result;
}

template <class WeightStorage>
JobResult run_with(Options const& o, std::function<void(int, int)> const& progress) {
  Exec exec;
  Kokkos::Timer setup;
  auto input = make_graph<WeightStorage>(o, exec);
  auto graph = input.graph;
  Kokkos::View<global_id*, Memory> ids;
  if (o.reorder != "none") {
    auto permutation = compute_ordering(exec, graph, parse_ordering(o.reorder), o.seed);
    graph = permute(exec, graph, permutation);
    ids = global_ids_of(exec, permutation);
  }
  Simulation<Exec, WeightStorage> sim(exec, graph, o.seed, parse_schedule(o.schedule), ids);
  auto const stats = degree_stats(exec, graph);

  JobResult result;
  double state_bytes = 0.0;
  if (o.model == "sir" || o.model == "seir") {
    SeirParameters p;
    p.beta = o.beta;
    p.infectious = o.gamma > 0 ? Period::geometric(o.gamma) : Period::fixed(o.infectious_steps);
    if (o.model == "seir") p.latent = o.sigma > 0 ? Period::geometric(o.sigma) : Period::fixed(o.latent_steps);
    p.initial_infected = o.initial_infected;
    require(p.initial_infected <= graph.num_agents(), "--initial-infected " + std::to_string(o.initial_infected) +
                                                          " exceeds the agent count " +
                                                          std::to_string(graph.num_agents()));
    Seir<Memory> model(graph.num_agents(), p);
    state_bytes = decltype(model.state)::bytes_per_agent() + decltype(model.timer)::bytes_per_agent();
    double const setup_seconds = setup.seconds();
    result =
        simulate(o, sim, model, o.model == "seir" ? std::vector<int>{0, 1, 2, 3} : std::vector<int>{0, 2, 3}, progress);
    result.setup_seconds = setup_seconds;
  } else {
    OpinionParameters p;
    p.rule = o.model == "voter" ? OpinionRule::voter : OpinionRule::majority;
    p.initial_share = o.initial_share;
    Opinion<Memory> model(graph.num_agents(), p);
    state_bytes = decltype(model.opinion)::bytes_per_agent();
    double const setup_seconds = setup.seconds();
    result = simulate(o, sim, model, {0, 1}, progress);
    result.setup_seconds = setup_seconds;
  }
  result.graph_name = input.name;
  result.agents = graph.num_agents();
  result.edges = graph.num_edges();
  result.mean_degree = stats.mean_degree;
  result.max_degree = stats.max_degree;
  result.weighted = graph.weighted();
  result.schedule = to_string(sim.plan().schedule);
  result.bytes_per_agent = state_bytes + sizeof(edge_offset) + (ids.extent(0) ? sizeof(global_id) : 0);
  result.bytes_per_edge = sizeof(agent_index) + (graph.weighted() ? sizeof(WeightStorage) : 0);
  result.backend = Exec::name();
  result.threads = compat::concurrency(exec);
  return result;
}

}  // namespace

JobResult run_job(Options const& o, std::function<void(int, int)> const& progress) {
  return o.precision == "half" ? run_with<half>(o, progress) : run_with<float>(o, progress);
}

}  // namespace herd::cli
