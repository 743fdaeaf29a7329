// Step throughput of the built-in models, next to the reference kernels in bench_reference.cpp.
// Bytes per step: seir_step_bytes in bench_common.hpp.

#include "bench_common.hpp"

#include <array>
#include <string>

namespace herd::bench {
namespace {

/// SIR whose every step is the full pull step: beta = 0 keeps every susceptible agent scanning all
/// its neighbours every step, the same work in every iteration.
template <class WeightStorage>
struct FullPullSir {
  Simulation<Exec, WeightStorage> sim;
  Seir<Memory> model;

  FullPullSir(CsrGraph<Memory, WeightStorage> const& g, Schedule schedule)
      : sim(Exec(), g, 7, scheduled(schedule)), model(g.num_agents(), parameters(g.num_agents())) {
    model.initialise(sim, g.num_agents());
  }
  static SeirParameters parameters(agent_index agents) {
    SeirParameters p;
    p.beta = 0.0;
    p.infectious = Period::fixed(60000);
    p.initial_infected = agents / 100;
    return p;
  }
  void step() {
    model.step(sim);
    sim.end_step();
  }
};

/// Times the full pull step of SIR on `g`.
template <class WeightStorage>
void time_sir_step(benchmark::State& state, CsrGraph<Memory, WeightStorage> const& g, Schedule schedule,
                   std::string const& graph_label) {
  FullPullSir<WeightStorage> sir(g, schedule);
  timed(state, [&] { sir.step(); });
  set_rates(state, g.num_agents(), static_cast<double>(g.num_edges()), seir_step_bytes(g));
  state.SetLabel(graph_label + " schedule=" + to_string(sir.sim.plan().schedule));
}

template <class WeightStorage>
void sir_step(benchmark::State& state) {
  int const kind = static_cast<int>(state.range(0));
  auto const agents = static_cast<agent_index>(state.range(1));
  auto const ordering = static_cast<Ordering>(state.range(2));
  auto const schedule = static_cast<Schedule>(state.range(3));
  time_sir_step(state, graph<WeightStorage>(kind, agents, ordering), schedule,
                std::string(graph_name(kind)) + " order=" + to_string(ordering));
}

void sizes(benchmark::internal::Benchmark* b, std::vector<int> kinds, std::vector<Schedule> schedules) {
  for (int kind : kinds)
    for (std::int64_t n : {100000, 1000000, 10000000})
      for (Ordering o : orderings())
        for (Schedule s : schedules) b->Args({kind, n, static_cast<std::int64_t>(o), static_cast<std::int64_t>(s)});
}

void unweighted(benchmark::internal::Benchmark* b) {
  sizes(b, {erdos_renyi}, {Schedule::automatic, Schedule::vector, Schedule::edge});
  sizes(b, {power_law}, {Schedule::thread, Schedule::vector, Schedule::hybrid, Schedule::edge});
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

// SEIR on the layered population (latent period, layer weights as float or half) against SIR on
// the same edges without their weights, from the same state in the middle of an epidemic (S 60 %,
// E 5 %, I 10 %, R 25 %; SIR has the exposed agents recovered): what the latent state and the
// weights cost per step. beta is small enough that no state changes over the iterations, but not
// zero, so each susceptible agent reads its infectious neighbours' weights and computes their
// hazards as in a real step. Returns what its pull steps read: ", states", ", bits" or ", bits,
// codes" (weight codes, weight_codes.hpp).
template <class WeightStorage>
char const* time_seir_mid_epidemic(benchmark::State& state, CsrGraph<Memory, WeightStorage> const& g, bool latent,
                                   bool spreader_bits = true, bool weight_codes = true) {
  auto const agents = g.num_agents();
  Exec exec;
  StepOptions options;
  options.spreader_bits = spreader_bits;
  options.weight_codes = weight_codes;
  Simulation<Exec, WeightStorage> sim(exec, g, 7, options);
  SeirParameters p;
  p.beta = 1e-6;
  p.infectious = Period::fixed(60000);
  if (latent) p.latent = Period::fixed(60000);
  p.initial_infected = 0;
  Seir<Memory> model(agents, p);
  model.initialise(sim, agents);
  put_mid_epidemic(sim, model, 60, 5, 10);
  sim.prepare(model);
  timed(state, [&] {
    model.step(sim);
    sim.end_step();
  });
  set_rates(state, agents, static_cast<double>(g.num_edges()), seir_step_bytes(g));
  if (!sim.reads_spreader_bits(model)) return ", states";
  return sim.code_bytes_per_edge() > 0 ? ", bits, codes" : ", bits";
}

void seir_against_sir(benchmark::State& state) {
  auto const agents = static_cast<agent_index>(state.range(0));
  int const variant = static_cast<int>(state.range(1));
  bool const bits = state.range(2) != 0;
  bool const codes = state.range(2) == 2;
  char const* read = "";
  if (variant == 0) {
    CsrGraph<Memory> unweighted = graph(population, agents, Ordering::none);
    unweighted.weights = {};
    unweighted.layers = {};
    read = time_seir_mid_epidemic(state, unweighted, false, bits, codes);
  } else if (variant == 1) {
    read = time_seir_mid_epidemic(state, graph(population, agents, Ordering::none), true, bits, codes);
  } else {
    read = time_seir_mid_epidemic(state, graph<half>(population, agents, Ordering::none), true, bits, codes);
  }
  state.SetLabel(std::string(std::array<char const*, 3>{"sir unweighted", "seir float weights",
                                                        "seir half weights"}[static_cast<std::size_t>(variant)]) +
                 read);
}
// Third argument: the pull step may count spreading neighbours from bits and add weights by
// their codes (2, the default), from bits without codes (1), or read their states (0); the label
// says which it did.
BENCHMARK(seir_against_sir)
    ->ArgsProduct({{1000000, 10000000}, {0, 1, 2}, {2, 1, 0}})
    ->ArgNames({"agents", "variant", "bits"})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Graphs with structure (the Watts-Strogatz ring, rewired 10 %; the layered population) whose
// agents arrive labelled at random: `shuffled` 0 keeps the generator's labels (the locality the
// graph has), 1 shuffles them and then applies `order`. The step's speed-up from the shuffled labels
// to a reordering is what reordering recovers; edge_span is the mean |i - j| over the edges.
void sir_step_relabelled(benchmark::State& state) {
  int const kind = static_cast<int>(state.range(0));
  auto const agents = static_cast<agent_index>(state.range(1));
  bool const shuffled = state.range(2) != 0;
  auto const ordering = static_cast<Ordering>(state.range(3));
  auto const& g = graph(kind, agents, ordering, shuffled);
  time_sir_step(state, g, Schedule::automatic,
                std::string(graph_name(kind)) + (shuffled ? " labels=shuffled" : " labels=generator") +
                    " order=" + to_string(ordering));
  state.counters["edge_span"] = mean_edge_span(Exec(), g);
}

/// The reorderings applied to shuffled labels: degree, Herd's Cuthill-McKee, and RCM where Kokkos
/// Kernels is built in.
std::vector<Ordering> reorderings() {
  std::vector<Ordering> all{Ordering::degree};
  for (Ordering o : orderings())
    if (o != Ordering::none) all.push_back(o);
  return all;
}

void relabelled(benchmark::internal::Benchmark* b) {
  for (int kind : {watts_strogatz, population})
    for (std::int64_t n : {1000000, 10000000}) {
      b->Args({kind, n, 0, static_cast<std::int64_t>(Ordering::none)});
      b->Args({kind, n, 1, static_cast<std::int64_t>(Ordering::none)});
      for (Ordering o : reorderings()) b->Args({kind, n, 1, static_cast<std::int64_t>(o)});
    }
  // States beyond the last-level cache: 4 x 10^7 agents, 6.4 x 10^8 entries (about 14 GB and
  // minutes to generate, shuffle and reorder).
  for (Ordering o : orderings()) b->Args({watts_strogatz, 40000000, 1, static_cast<std::int64_t>(o)});
  b->ArgNames({"graph", "agents", "shuffled", "order"});
}
BENCHMARK(sir_step_relabelled)->Apply(relabelled)->UseManualTime()->Unit(benchmark::kMillisecond);

// SIR's full pull step on shuffled labels and on the same graph reordered, in pairs (timed_pairs):
// the speed-up a reordering gives, measured so that the host's drift does not fall on one of the
// two alone. Order `none` sets the generator's own labels against the shuffled ones: on the ring
// lattice, the most any order can give.
void reordering_speedup(benchmark::State& state) {
  int const kind = static_cast<int>(state.range(0));
  auto const agents = static_cast<agent_index>(state.range(1));
  auto const ordering = static_cast<Ordering>(state.range(2));
  // A copy (it shares the Views): the cache may drop a graph when it makes the next one.
  CsrGraph<Memory> const shuffled = graph(kind, agents, Ordering::none, true);
  CsrGraph<Memory> const reordered = graph(kind, agents, ordering, ordering != Ordering::none);
  FullPullSir<float> on_shuffled(shuffled, Schedule::automatic), on_reordered(reordered, Schedule::automatic);
  timed_pairs(
      state, "shuffled", [&] { on_shuffled.step(); }, "reordered", [&] { on_reordered.step(); });
  state.counters["edge_span_shuffled"] = mean_edge_span(Exec(), shuffled);
  state.counters["edge_span_reordered"] = mean_edge_span(Exec(), reordered);
  state.SetLabel(std::string(graph_name(kind)) + " order=" + to_string(ordering));
}
void reordering_pairs(benchmark::internal::Benchmark* b) {
  for (int kind : {watts_strogatz, population})
    for (std::int64_t n : {1000000, 10000000})
      for (Ordering o : orderings())
        if (o != Ordering::none) b->Args({kind, n, static_cast<std::int64_t>(o)});
  for (std::int64_t n : {1000000, 10000000})
    for (Ordering o : orderings()) b->Args({ring_lattice, n, static_cast<std::int64_t>(o)});
  b->ArgNames({"graph", "agents", "order"});
}
// Twenty pairs: a pair of steps of 10^7 agents takes about half a second on a CPU.
BENCHMARK(reordering_speedup)->Apply(reordering_pairs)->Iterations(20)->UseManualTime()->Unit(benchmark::kMillisecond);

// SIR's full pull step on the power-law graph and on the Erdős–Rényi graph of as many agents and
// the same mean degree, in pairs (timed_pairs), each with the schedule Herd picks for it: whether
// hubs slow a step down per edge. `power_law_per_edge` is the power-law step's edges a second over
// the Erdős–Rényi step's, from the median ratio of their times; 1 or more: hubs cost nothing.
void power_law_against_erdos_renyi(benchmark::State& state) {
  auto const agents = static_cast<agent_index>(state.range(0));
  auto const ordering = static_cast<Ordering>(state.range(1));
  CsrGraph<Memory> const uniform = graph(erdos_renyi, agents, ordering);
  CsrGraph<Memory> const heavy_tailed = graph(power_law, agents, ordering);
  FullPullSir<float> on_uniform(uniform, Schedule::automatic), on_heavy_tailed(heavy_tailed, Schedule::automatic);
  timed_pairs(
      state, "erdos_renyi", [&] { on_uniform.step(); }, "power_law", [&] { on_heavy_tailed.step(); });
  state.counters["power_law_per_edge"] = state.counters["power_law_speedup"] *
                                         static_cast<double>(heavy_tailed.num_edges()) /
                                         static_cast<double>(uniform.num_edges());
  state.SetLabel("order=" + to_string(ordering) + " schedules=" + to_string(on_uniform.sim.plan().schedule) + "," +
                 to_string(on_heavy_tailed.sim.plan().schedule));
}
void power_law_pairs(benchmark::internal::Benchmark* b) {
  for (std::int64_t n : {1000000, 10000000})
    for (Ordering o : orderings()) b->Args({n, static_cast<std::int64_t>(o)});
  b->ArgNames({"agents", "order"});
}
BENCHMARK(power_law_against_erdos_renyi)
    ->Apply(power_law_pairs)
    ->Iterations(20)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// What a reordering costs (computing the permutation and relabelling the graph), to set against the
// steps it saves.
void reordering(benchmark::State& state) {
  int const kind = static_cast<int>(state.range(0));
  auto const agents = static_cast<agent_index>(state.range(1));
  auto const ordering = static_cast<Ordering>(state.range(2));
  auto const& g = graph(kind, agents, Ordering::none, true);
  Exec exec;
  timed(state, [&] { benchmark::DoNotOptimize(permute(exec, g, compute_ordering(exec, g, ordering, 1))); });
  state.SetLabel(std::string(graph_name(kind)) + " order=" + to_string(ordering));
}
void reordering_sizes(benchmark::internal::Benchmark* b) {
  for (int kind : {watts_strogatz, population})
    for (std::int64_t n : {1000000, 10000000})
      for (Ordering o : reorderings()) b->Args({kind, n, static_cast<std::int64_t>(o)});
  b->ArgNames({"graph", "agents", "order"});
}
BENCHMARK(reordering)->Apply(reordering_sizes)->UseManualTime()->Unit(benchmark::kMillisecond);

// DeGroot (and bounded confidence, averaging the neighbours within 0.2) on the unweighted
// Erdos-Renyi graph with opinions stored as float or half. Minimum bytes: per agent the row offset
// (8), the own opinion read and the new one written (2 x storage); per edge the neighbour index (4)
// and the neighbour's opinion (storage). The timed steps start from uniform opinions and go on
// from where the last left them: under bounded confidence the clusters form as they repeat.
// ConsensusRun is one such model with a simulation of its own.
template <class Storage>
struct ConsensusRun {
  Simulation<Exec> sim;
  Consensus<Storage, Memory> model;

  ConsensusRun(CsrGraph<Memory> const& g, double confidence)
      : sim(Exec(), g, 7), model(g.num_agents(), ConsensusParameters{confidence}) {
    model.initialise(sim, g.num_agents());
  }
  void step() {
    model.step(sim);
    sim.end_step();
  }
};

template <class Storage>
void consensus_step_with(benchmark::State& state, double confidence) {
  auto const agents = static_cast<agent_index>(state.range(0));
  auto const& g = graph(erdos_renyi, agents, Ordering::none);
  ConsensusRun<Storage> run(g, confidence);
  timed(state, [&] { run.step(); });
  double const edges = static_cast<double>(g.num_edges());
  set_rates(state, agents, edges, agents * (8.0 + 2.0 * sizeof(Storage)) + edges * (4.0 + sizeof(Storage)));
  state.SetLabel(std::string("erdos-renyi storage=") + (sizeof(Storage) == 2 ? "half" : "float") +
                 " schedule=" + to_string(run.sim.plan().schedule));
}
template <class Storage>
void consensus_step(benchmark::State& state) {
  consensus_step_with<Storage>(state, 1.0);
}
template <class Storage>
void bounded_confidence_step(benchmark::State& state) {
  consensus_step_with<Storage>(state, 0.2);
}
BENCHMARK_TEMPLATE(consensus_step, float)->Arg(1000000)->Arg(10000000)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(consensus_step, half)->Arg(1000000)->Arg(10000000)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(bounded_confidence_step, float)
    ->Arg(1000000)
    ->Arg(10000000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(bounded_confidence_step, half)
    ->Arg(1000000)
    ->Arg(10000000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// DeGroot (bounded 0) or bounded confidence (bounded 1) with float and with half opinions, stepped
// in pairs (timed_pairs) on one graph: what half storage gains, measured so that the machine's
// drift over a run does not fall on one storage alone. Both start from the same opinions, up to
// their rounding.
void consensus_half_against_float(benchmark::State& state) {
  auto const agents = static_cast<agent_index>(state.range(0));
  double const confidence = state.range(1) != 0 ? 0.2 : 1.0;
  auto const& g = graph(erdos_renyi, agents, Ordering::none);
  ConsensusRun<float> as_float(g, confidence);
  ConsensusRun<half> as_half(g, confidence);
  timed_pairs(
      state, "float", [&] { as_float.step(); }, "half", [&] { as_half.step(); });
  state.SetLabel(std::string("erdos-renyi ") + (confidence < 1.0 ? "bounded-confidence" : "degroot") +
                 " schedule=" + to_string(as_half.sim.plan().schedule));
}
// Ten pairs: a pair of steps of 10^7 agents takes more than a second on a CPU.
BENCHMARK(consensus_half_against_float)
    ->ArgsProduct({{1000000, 10000000}, {0, 1}})
    ->ArgNames({"agents", "bounded"})
    ->Iterations(10)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

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
