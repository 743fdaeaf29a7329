// Step throughput of the built-in models, next to the reference kernels in bench_reference.cpp.
// Bytes per step: seir_step_bytes in bench_common.hpp.

#include "bench_common.hpp"

namespace herd::bench {
namespace {

template <class WeightStorage>
void sir_step(benchmark::State& state) {
  int const kind = static_cast<int>(state.range(0));
  auto const agents = static_cast<agent_index>(state.range(1));
  auto const ordering = static_cast<Ordering>(state.range(2));
  auto const schedule = static_cast<Schedule>(state.range(3));
  auto const& g = graph<WeightStorage>(kind, agents, ordering);
  Exec exec;
  Simulation<Exec, WeightStorage> sim(exec, g, 7, schedule);
  // beta = 0 keeps every susceptible agent scanning all its neighbours every step: the full pull
  // step, the same work in every iteration.
  SeirParameters p;
  p.beta = 0.0;
  p.infectious = Period::fixed(60000);
  p.initial_infected = agents / 100;
  Seir<Memory> model(agents, p);
  model.initialise(sim, agents);
  timed(state, [&] {
    model.step(sim);
    sim.end_step();
  });
  double const edges = static_cast<double>(g.num_edges());
  set_rates(state, agents, edges, seir_step_bytes(g));
  state.SetLabel(std::string(graph_name(kind)) + " order=" + to_string(ordering) +
                 " schedule=" + to_string(sim.plan().schedule));
}

void sizes(benchmark::internal::Benchmark* b, std::vector<int> kinds, std::vector<Schedule> schedules) {
  for (int kind : kinds)
    for (std::int64_t n : {100000, 1000000, 10000000})
      for (Ordering o : orderings())
        for (Schedule s : schedules) b->Args({kind, n, static_cast<std::int64_t>(o), static_cast<std::int64_t>(s)});
}

void unweighted(benchmark::internal::Benchmark* b) {
  sizes(b, {erdos_renyi}, {Schedule::automatic});
  sizes(b, {power_law}, {Schedule::thread, Schedule::hybrid});
  b->ArgNames({"graph", "agents", "order", "schedule"});
}
BENCHMARK_TEMPLATE(sir_step, float)->Apply(unweighted)->UseManualTime()->Unit(benchmark::kMillisecond);

// Weighted graphs: the population's layer weights as float and as half.
void weighted(benchmark::internal::Benchmark* b) {
  for (std::int64_t n : {1000000, 10000000}) b->Args({population, n, 0, 0});
  b->ArgNames({"graph", "agents", "order", "schedule"});
}
BENCHMARK_TEMPLATE(sir_step, float)->Apply(weighted)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(sir_step, half)->Apply(weighted)->UseManualTime()->Unit(benchmark::kMillisecond);

// DeGroot on the unweighted Erdos-Renyi graph with opinions stored as float or half. Minimum
// bytes: per agent the row offset (8), the own opinion read and the new one written (2 x storage);
// per edge the neighbour index (4) and the neighbour's opinion (storage).
template <class Storage>
void consensus_step(benchmark::State& state) {
  auto const agents = static_cast<agent_index>(state.range(0));
  auto const& g = graph(erdos_renyi, agents, Ordering::none);
  Exec exec;
  Simulation<Exec> sim(exec, g, 7);
  Consensus<Storage, Memory> model(agents, ConsensusParameters{});
  model.initialise(sim, agents);
  timed(state, [&] {
    model.step(sim);
    sim.end_step();
  });
  double const edges = static_cast<double>(g.num_edges());
  set_rates(state, agents, edges, agents * (8.0 + 2.0 * sizeof(Storage)) + edges * (4.0 + sizeof(Storage)));
  state.SetLabel(std::string("erdos-renyi storage=") + (sizeof(Storage) == 2 ? "half" : "float") +
                 " schedule=" + to_string(sim.plan().schedule));
}
BENCHMARK_TEMPLATE(consensus_step, float)->Arg(1000000)->Arg(10000000)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(consensus_step, half)->Arg(1000000)->Arg(10000000)->UseManualTime()->Unit(benchmark::kMillisecond);

void graph_construction(benchmark::State& state) {
  auto const agents = static_cast<agent_index>(state.range(0));
  Exec exec;
  std::size_t edges = 0;
  timed(state, [&] {
    auto g = build_csr(exec, generate_edges(exec, ErdosRenyi{agents, 16.0}, 1));
    edges = g.num_edges();
  });
  state.counters["edges/s"] =
      benchmark::Counter(static_cast<double>(edges) * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(graph_construction)->Arg(1000000)->Arg(10000000)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace herd::bench
