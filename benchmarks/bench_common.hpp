#pragma once

#include <herd/config.hpp>
#include <herd/herd.hpp>

#include <benchmark/benchmark.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace herd::bench {

using Exec = Kokkos::DefaultExecutionSpace;
using Memory = Exec::memory_space;

/// Step options with `schedule`, the others at their defaults.
inline StepOptions scheduled(Schedule schedule) {
  StepOptions options;
  options.schedule = schedule;
  return options;
}

enum GraphKind { erdos_renyi = 0, power_law = 1, population = 2, watts_strogatz = 3, ring_lattice = 4 };
inline char const* graph_name(int kind) {
  return kind == erdos_renyi      ? "erdos-renyi"
         : kind == power_law      ? "power-law"
         : kind == watts_strogatz ? "watts-strogatz"
         : kind == ring_lattice   ? "ring-lattice"
                                  : "population";
}

/// Graphs of mean degree 16 (the population: its own), generated once per (kind, agents, ordering,
/// shuffled) and shared by all benchmarks of the run. Ordering::none keeps the generator's labels,
/// which carry no locality for Erdos-Renyi and power-law graphs (agents are labelled at random) but
/// do for the Watts-Strogatz ring (neighbours on the ring are neighbours in memory), the ring
/// lattice (the same ring, none of its links rewired: an agent's 16 neighbours are the 16 agents
/// nearest it in memory) and the population (households, classes and workplaces are runs of
/// consecutive agents). `shuffled` first relabels the agents at random, as ids drawn from a
/// database or a file would be, and then applies `ordering`: what reordering recovers from input
/// without locality.
template <class WeightStorage = float>
CsrGraph<Memory, WeightStorage> const& graph(int kind, agent_index agents, Ordering ordering, bool shuffled = false) {
  static std::map<std::tuple<int, agent_index, Ordering, bool>, CsrGraph<Memory, WeightStorage>> cache;
  // Views must be released before Kokkos::finalize, not at static destruction after it.
  static bool const hooked = (Kokkos::push_finalize_hook([] { cache.clear(); }), true);
  (void)hooked;
  auto const key = std::make_tuple(kind, agents, ordering, shuffled);
  auto found = cache.find(key);
  if (found != cache.end()) return found->second;
  // Bound memory: graphs of 10^7 agents take gigabytes, and generating one needs as much again.
  std::size_t cached_edges = 0;
  for (auto const& entry : cache) cached_edges += entry.second.num_edges();
  if (cache.size() > 4 || cached_edges > 1000000000) cache.clear();
  Exec exec;
  CsrGraph<Memory, WeightStorage> g;
  if (kind == erdos_renyi) {
    g = build_csr<WeightStorage>(exec, generate_edges(exec, ErdosRenyi{agents, 16.0}, 1));
  } else if (kind == power_law) {
    g = build_csr<WeightStorage>(exec, generate_edges(exec, PowerLaw{agents, 2.1, 16.0, 0.0}, 1));
  } else if (kind == watts_strogatz) {
    g = build_csr<WeightStorage>(exec, generate_edges(exec, WattsStrogatz{agents, 8, 0.1}, 1));
  } else if (kind == ring_lattice) {
    g = build_csr<WeightStorage>(exec, generate_edges(exec, WattsStrogatz{agents, 8, 0.0}, 1));
  } else {
    LayeredPopulation spec;
    spec.agents = agents;
    g = build_csr<WeightStorage>(exec, generate_population(exec, spec, 1).edges);
  }
  if (shuffled) g = permute(exec, g, compute_ordering(exec, g, Ordering::random, 2));
  if (ordering != Ordering::none) g = permute(exec, g, compute_ordering(exec, g, ordering, 1));
  return cache.emplace(key, g).first->second;
}

/// The orderings benchmarked: the generators' labels, Herd's own Cuthill-McKee (every build) and
/// reverse Cuthill-McKee from Kokkos Kernels, which builds without it (the GPU builds) lack.
inline std::vector<Ordering> orderings() {
#if HERD_ENABLE_KOKKOSKERNELS
  return {Ordering::none, Ordering::rcm, Ordering::bfs};
#else
  return {Ordering::none, Ordering::bfs};
#endif
}

/// Seconds `body` takes, with the device fenced on both sides.
template <class F>
double fenced_seconds(F&& body) {
  Kokkos::fence();
  Kokkos::Timer timer;
  body();
  Kokkos::fence();
  return timer.seconds();
}

/// Times `body` with the device fenced on both sides; reports the time as the iteration's.
template <class F>
void timed(benchmark::State& state, F&& body) {
  for (auto _ : state) state.SetIterationTime(fenced_seconds(body));
}

/// Times two ways of doing the same work in pairs: each iteration runs `first` once and `second`
/// once, in turn the one and the other first. On a shared machine a step's time drifts by tens of
/// percent over a run, with what the other tenants do with the caches and the memory, much more
/// than between the two steps of one pair, which meet the same load. Reports the pair's time as the
/// iteration's, the median step times as `<name>_ms`, and the median over the pairs of the first's
/// time over the second's as `<second>_speedup`.
template <class First, class Second>
void timed_pairs(benchmark::State& state, std::string const& first_name, First&& first, std::string const& second_name,
                 Second&& second) {
  std::vector<double> first_times, second_times, ratios;
  bool first_leads = true;
  for (auto _ : state) {
    double a = 0.0, b = 0.0;
    if (first_leads) {
      a = fenced_seconds(first);
      b = fenced_seconds(second);
    } else {
      b = fenced_seconds(second);
      a = fenced_seconds(first);
    }
    first_leads = !first_leads;
    state.SetIterationTime(a + b);
    first_times.push_back(a);
    second_times.push_back(b);
    ratios.push_back(a / b);
  }
  auto const median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    auto const middle = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), middle, v.end());
    return *middle;
  };
  state.counters[first_name + "_ms"] = 1e3 * median(first_times);
  state.counters[second_name + "_ms"] = 1e3 * median(second_times);
  state.counters[second_name + "_speedup"] = median(ratios);
}

/// Puts the agents of a SEIR-family model in the middle of an epidemic, each at random with the
/// given percentages in S, E and I (the rest R); timers far from expiry. A model without a latent
/// period takes its exposed share as recovered, so two runs see the same susceptible and
/// infectious agents.
template <class Simulation>
void put_mid_epidemic(Simulation& sim, Seir<Memory>& model, std::uint32_t s, std::uint32_t e, std::uint32_t i) {
  using State = Seir<Memory>::State;
  auto states = model.state.current();
  auto timers = model.timer.current();
  auto ids = sim.id_map();
  CounterRng const rng{sim.seed()};
  bool const latent = model.has_latent();
  Kokkos::parallel_for(
      "herd::bench::mid_epidemic", Kokkos::RangePolicy<Exec>(0, sim.num_agents()), KOKKOS_LAMBDA(agent_index a) {
        std::uint32_t const u = uniform_below(rng.bits(ids(a), 0, streams::initial_state, 0), 100);
        State const x = u < s                 ? State::susceptible
                        : u < s + e && latent ? State::exposed
                        : u < s + e           ? State::recovered
                        : u < s + e + i       ? State::infectious
                                              : State::recovered;
        states(a) = x;
        timers(a) = x == State::exposed || x == State::infectious ? 30000 : 0;
      });
  Kokkos::fence();
}

/// Records the build in the output's context, so figures can be traced to it.
inline void add_build_context() {
  benchmark::AddCustomContext("herd_version", HERD_VERSION_STRING);
  benchmark::AddCustomContext("kokkos_version", std::to_string(KOKKOS_VERSION));
  benchmark::AddCustomContext("backend", Exec::name());
  benchmark::AddCustomContext("threads", std::to_string(compat::concurrency(Exec())));
  benchmark::AddCustomContext("half_conversion", HERD_HALF_USES_F16C ? "f16c" : "integer");
}

/// Bytes a SEIR-family step on `g` must move, counted as the minimum (each array element once):
/// per agent the row offset (8), the state and timer read (3) and written (3); per edge the
/// neighbour index (4), the neighbour's state byte (1) and the weight if any (4 or 2). A layered
/// graph's layer byte is not counted: the sums by weight code do not read it.
template <class WeightStorage>
double seir_step_bytes(CsrGraph<Memory, WeightStorage> const& g) {
  double const per_edge = 4.0 + 1.0 + (g.weighted() ? sizeof(WeightStorage) : 0);
  return static_cast<double>(g.num_agents()) * (8.0 + 6.0) + static_cast<double>(g.num_edges()) * per_edge;
}

/// Throughput counters a reader can hold against hardware limits.
inline void set_rates(benchmark::State& state, double agents, double edges, double bytes) {
  using benchmark::Counter;
  auto const iterations = static_cast<double>(state.iterations());
  state.counters["agent_updates/s"] = Counter(agents * iterations, Counter::kIsRate);
  state.counters["edges/s"] = Counter(edges * iterations, Counter::kIsRate);
  state.counters["GB/s"] = Counter(bytes * iterations / 1e9, Counter::kIsRate);
}

}  // namespace herd::bench
