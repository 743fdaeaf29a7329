// Halo exchange and distributed steps. Run under mpiexec at 2 and 4 ranks; each iteration is timed
// on every rank and the slowest rank's time is the iteration's.
//
// Bytes: the SEIR step sends its 1-byte state per ghost; packing reads the state of each sent
// agent through an index (1 + 4 bytes) and writes 1 byte; unpacking reads and writes 1 byte.

#include "bench_mpi_common.hpp"

#include <herd/mpi/distributed_simulation.hpp>
#include <herd/mpi/local_graph.hpp>
#include <herd/mpi/partition.hpp>

#include <mpi.h>

#include <memory>

namespace herd::bench {
namespace {

constexpr int iterations = 50;

// This rank's share of a benchmark graph, partitioned once per (graph, agents, method).
LocalGraph<Memory, float> const& local_share(int kind, agent_index agents, PartitionMethod method) {
  static std::map<std::tuple<int, agent_index, PartitionMethod>, LocalGraph<Memory, float>> cache;
  static bool const hooked = (Kokkos::push_finalize_hook([] { cache.clear(); }), true);
  (void)hooked;
  auto const key = std::make_tuple(kind, agents, method);
  if (auto found = cache.find(key); found != cache.end()) return found->second;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Exec exec;
  auto const& global = graph(kind, agents, Ordering::none);
  auto const partition = partition_graph(exec, global, size, method);
  return cache.emplace(key, extract_local_graph(exec, global, partition, rank)).first->second;
}

void label(benchmark::State& state, int kind, PartitionMethod method, LocalGraph<Memory, float> const& local,
           std::string const& suffix = "") {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  state.counters["ranks"] = size;
  state.counters["ghosts_max"] = max_over_ranks(static_cast<double>(local.ghosts()));
  state.counters["neighbours_max"] = max_over_ranks(static_cast<double>(local.ghost_owners.size()));
  state.SetLabel(std::string(graph_name(kind)) + " partition=" + to_string(method) + suffix);
}

PartitionMethod method_arg(benchmark::State const& state) {
  return state.range(2) == 0 ? PartitionMethod::contiguous : PartitionMethod::metis;
}

// The halo of this rank's share, carrying one 1-byte property (the SEIR state).
struct StateHalo {
  explicit StateHalo(LocalGraph<Memory, float> const& local)
      : halo(Exec(), MPI_COMM_WORLD, mpi::make_halo_plan(Exec(), MPI_COMM_WORLD, local), false),
        state("state", local.local(), Visibility::neighbours),
        field(mpi::halo_field(state)) {}
  mpi::Halo<Exec> halo;
  Property<std::uint8_t, Memory> state;
  mpi::HaloField<std::uint8_t, Memory> field;
};

// One exchange of a 1-byte property: pack, send, wait, unpack.
void halo_exchange(benchmark::State& state) {
  int const kind = static_cast<int>(state.range(0));
  auto const method = method_arg(state);
  auto const& local = local_share(kind, static_cast<agent_index>(state.range(1)), method);
  StateHalo h(local);
  timed_slowest(state, [&] { h.halo.exchange(h.field); });
  state.counters["bytes_sent_max/step"] = max_over_ranks(static_cast<double>(h.halo.plan().sends()));
  label(state, kind, method, local);
}

// Packing alone, and unpacking alone: throughput of the two kernels around the messages.
template <bool Pack>
void halo_kernel(benchmark::State& state) {
  int const kind = static_cast<int>(state.range(0));
  auto const method = method_arg(state);
  auto const& local = local_share(kind, static_cast<agent_index>(state.range(1)), method);
  StateHalo h(local);
  h.halo.pack({}, h.field);  // sizes the buffers
  timed_slowest(state, [&] {
    if constexpr (Pack)
      h.halo.pack({}, h.field);
    else
      h.halo.unpack();
  });
  auto const& plan = h.halo.plan();
  double const items = max_over_ranks(static_cast<double>(Pack ? plan.sends() : plan.receives()));
  double const bytes = items * (Pack ? 1.0 + 4.0 + 1.0 : 2.0);
  state.counters["values/s"] = benchmark::Counter(items * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["GB/s"] = benchmark::Counter(bytes * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  label(state, kind, method, local);
}

// Packing sparse messages of a 1-byte property after a phase that changed one owned agent in
// `every` (range 3): comparing every value sent, as after a pulled phase (Listed false), or
// looking among the phase's list only, as after a listed phase (Listed true; a list of twice as
// many agents as changed, every other one changed).
template <bool Listed>
void halo_pack_changes(benchmark::State& state) {
  int const kind = static_cast<int>(state.range(0));
  auto const method = method_arg(state);
  auto const& local = local_share(kind, static_cast<agent_index>(state.range(1)), method);
  auto const every = static_cast<agent_index>(state.range(3));
  StateHalo h(local);
  auto const current = h.state.current(), previous = h.state.next();
  agent_index const stride = every / 2;
  agent_index const listed = (local.owned + stride - 1) / stride;
  Kokkos::View<agent_index*, Memory> list("herd::bench::list", listed);
  Kokkos::parallel_for(
      "herd::bench::changes", Kokkos::RangePolicy<Exec>(0, local.owned), KOKKOS_LAMBDA(agent_index i) {
        current(i) = i % every == 0 ? 1 : 0;
        previous(i) = 0;
        if (i % stride == 0) list(i / stride) = i;
      });
  Kokkos::fence();
  auto const field = mpi::sparse_halo_field(h.state);
  mpi::SteppedAgents<Memory> stepped;
  if (Listed) stepped = {list, listed};
  h.halo.pack(stepped, field);  // sizes the buffers
  timed_slowest(state, [&] { h.halo.pack(stepped, field); });
  state.counters["listed_max"] = max_over_ranks(Listed ? static_cast<double>(listed) : 0.0);
  state.counters["sent_values_max"] = max_over_ranks(static_cast<double>(h.halo.plan().sends()));
  label(state, kind, method, local, Listed ? " listed" : " every value compared");
}

// SEIR with beta = 0 and `infected` agents that stay infectious: the same work every step.
Seir<Memory> steady_seir(mpi::DistributedSimulation<Exec, float>& sim, global_id infected) {
  SeirParameters p;
  p.beta = 0.0;
  p.infectious = Period::fixed(60000);
  p.initial_infected = infected;
  Seir<Memory> model(sim.num_agents(), p);
  model.initialise(sim, sim.num_global());
  return model;
}

// A full SEIR step (beta = 0: every susceptible agent reads all its neighbours, the same work each
// step), with the halo overlapped with the interior update or waited for first.
void distributed_step(benchmark::State& state) {
  int const kind = static_cast<int>(state.range(0));
  auto const agents = static_cast<agent_index>(state.range(1));
  auto const method = method_arg(state);
  bool const overlap = state.range(3) != 0;
  Exec exec;
  mpi::DistributedOptions options;
  options.overlap = overlap;
  mpi::DistributedSimulation<Exec, float> sim(
      exec, mpi::Ghosts<Exec>(exec, MPI_COMM_WORLD, local_share(kind, agents, method), options), 7);
  auto model = steady_seir(sim, agents / 100);
  timed_slowest(state, [&] {
    model.step(sim);
    sim.end_step();
    sim.wait_for_ghosts();  // the step's messages belong to this iteration
  });
  auto const& times = sim.distribution().halo().times();
  double const steps = static_cast<double>(state.iterations());
  state.counters["wait_ms_max"] = max_over_ranks(times.wait / steps * 1e3);
  state.counters["pack_ms_max"] = max_over_ranks(times.pack / steps * 1e3);
  state.counters["unpack_ms_max"] = max_over_ranks(times.unpack / steps * 1e3);
  auto const& g = graph(kind, agents, Ordering::none);
  set_rates(state, agents, static_cast<double>(g.num_edges()), seir_step_bytes(g));
  label(state, kind, method, sim.distribution().local_graph(), overlap ? " overlapped" : " not overlapped");
}

// A SEIR step late or early in an epidemic: 0.1 % of the agents infectious, for good, and beta = 0,
// so the same agents are active every step (the infectious ones and their susceptible neighbours,
// about 2 %) and no state changes. Pulled (range 3: 0) or listed (1). Listing marks from the
// spreading ghosts too; as no ghost changes, sparse messages say so and the spreading ghosts are
// carried from step to step, not found again among all the ghosts.
void distributed_active_step(benchmark::State& state) {
  int const kind = static_cast<int>(state.range(0));
  auto const agents = static_cast<agent_index>(state.range(1));
  auto const method = method_arg(state);
  bool const active = state.range(3) != 0;
  Exec exec;
  StepOptions options;
  options.stepping = active ? Stepping::active : Stepping::pull;
  mpi::DistributedSimulation<Exec, float> sim(
      exec, mpi::Ghosts<Exec>(exec, MPI_COMM_WORLD, local_share(kind, agents, method)), 7, options);
  auto model = steady_seir(sim, agents / 1000);
  sim.prepare(model);
  auto const step = [&] {
    sim.before_step(model);
    model.step(sim);
    sim.end_step();
    sim.wait_for_ghosts();  // the step's messages belong to this iteration
  };
  step();  // the first listing step finds the sources among every agent
  timed_slowest(state, step);
  auto const& stats = sim.stepping_stats();
  state.counters["listed_share_max"] = max_over_ranks(active ? stats.mean_active_share() : 1.0);
  label(state, kind, method, sim.distribution().local_graph(), active ? " listed" : " pulled");
}

void halo_sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t kind : {population, erdos_renyi})
    for (std::int64_t method : {0, 1}) b->Args({kind, 1000000, method});
  b->ArgNames({"graph", "agents", "metis"});
}

void change_sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t kind : {population, erdos_renyi})
    for (std::int64_t method : {0, 1})
      for (std::int64_t every : {1000, 100, 10}) b->Args({kind, 1000000, method, every});
  b->ArgNames({"graph", "agents", "metis", "every"});
}

void step_sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t kind : {population, erdos_renyi})
    for (std::int64_t method : {0, 1})
      for (std::int64_t overlap : {0, 1}) b->Args({kind, 1000000, method, overlap});
  b->ArgNames({"graph", "agents", "metis", "overlap"});
}

void active_sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t kind : {population, erdos_renyi})
    for (std::int64_t method : {0, 1})
      for (std::int64_t active : {0, 1}) b->Args({kind, 1000000, method, active});
  b->ArgNames({"graph", "agents", "metis", "listed"});
}

BENCHMARK(halo_exchange)->Apply(halo_sizes)->Iterations(iterations)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(halo_kernel, true)
    ->Name("halo_pack")
    ->Apply(halo_sizes)
    ->Iterations(iterations)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(halo_kernel, false)
    ->Name("halo_unpack")
    ->Apply(halo_sizes)
    ->Iterations(iterations)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(halo_pack_changes, false)
    ->Name("halo_pack_changes_compared")
    ->Apply(change_sizes)
    ->Iterations(iterations)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(halo_pack_changes, true)
    ->Name("halo_pack_changes_listed")
    ->Apply(change_sizes)
    ->Iterations(iterations)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(distributed_step)->Apply(step_sizes)->Iterations(iterations)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(distributed_active_step)
    ->Apply(active_sizes)
    ->Iterations(iterations)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace herd::bench
