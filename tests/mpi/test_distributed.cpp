#include <herd/herd.hpp>
#include <herd/mpi/collective.hpp>
#include <herd/mpi/distributed_simulation.hpp>
#include <herd/mpi/local_graph.hpp>
#include <herd/mpi/local_snapshots.hpp>

#include <gtest/gtest.h>
#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using namespace herd;
// CUDA's headers declare a global ::half too; name Herd's.
using herd::half;
using Exec = Kokkos::DefaultExecutionSpace;
using Memory = Exec::memory_space;
using Graph = CsrGraph<Memory>;

int world_rank() { return mpi::rank_of(MPI_COMM_WORLD); }
int world_size() { return mpi::size_of(MPI_COMM_WORLD); }

template <class View>
std::vector<typename View::non_const_value_type> to_vector(View const& view) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  return std::vector<typename View::non_const_value_type>(host.data(), host.data() + host.size());
}

// Sum over ranks: a test fails on every rank if it fails on one.
long long total(long long value) {
  long long sum = 0;
  MPI_Allreduce(&value, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

Graph erdos_renyi() { return build_csr(Exec(), generate_edges(Exec(), ErdosRenyi{6000, 8.0}, 11)); }
Graph power_law() { return build_csr(Exec(), generate_edges(Exec(), PowerLaw{6000, 2.2, 6.0, 1500.0}, 12)); }
Graph population() {
  LayeredPopulation spec;
  spec.agents = 6000;
  return build_csr<float>(Exec(), generate_population(Exec(), spec, 13).edges, BuildOptions{});
}

struct Trajectory {
  std::vector<std::int64_t> history;
  std::vector<std::int64_t> state;   ///< final state of each agent, by global id (owned agents only when distributed)
  std::vector<std::int64_t> events;  ///< a scenario's counts per step and event, summed over ranks
};

SeirParameters seir_parameters(bool latent) {
  SeirParameters p;
  p.beta = 0.15;
  if (latent) p.latent = Period::geometric(0.5);
  p.infectious = latent ? Period::fixed(4) : Period::geometric(0.25);
  p.initial_infected = 15;
  return p;
}

template <class Sim, class Model, class State>
Trajectory run_model(Sim& sim, Model& model, State const& state, int steps) {
  model.initialise(sim, sim.num_global());
  auto history = run(sim, model, steps);
  Trajectory t;
  t.history = to_vector(history);
  t.state.assign(static_cast<std::size_t>(sim.num_global()), -1);
  auto const ids = to_vector(sim.global_ids());
  auto const values = to_vector(state.current());
  for (agent_index r = 0; r < sim.num_owned(); ++r)
    t.state[ids.empty() ? r : ids[r]] = values[static_cast<std::size_t>(r)];
  return t;
}

enum class Kind { sir, seir, voter, covid };

template <class Sim>
Trajectory simulate(Sim& sim, Kind kind, int steps) {
  if (kind == Kind::voter) {
    Opinion<Memory> model(sim.num_agents(), OpinionParameters{OpinionRule::voter, 0.4});
    return run_model(sim, model, model.opinion, steps);
  }
  if (kind == Kind::covid) {
    // Exposed and infected agents spread, and their days since exposure change every step: ghosts
    // change while they spread.
    CovidParameters p;
    p.transmission_rate = 12.0;
    p.initial_exposed = 15;
    Covid<Memory> model(sim.num_agents(), p);
    return run_model(sim, model, model.stage, steps);
  }
  Seir<Memory> model(sim.num_agents(), seir_parameters(kind == Kind::seir));
  return run_model(sim, model, model.state, steps);
}

Trajectory reference(Graph const& graph, Kind kind, int steps) {
  Simulation<Exec> sim(Exec(), graph, 99);
  return simulate(sim, kind, steps);
}

// How many of the steps this rank stepped on its active list (set by distributed()).
std::int64_t last_active_steps = 0;

// This rank's share of `graph` and its halo.
mpi::Ghosts<Exec> share_of(Graph const& graph, PartitionMethod method = PartitionMethod::contiguous,
                           mpi::DistributedOptions const& options = {}) {
  Exec exec;
  return {exec, MPI_COMM_WORLD, mpi::distribute(exec, MPI_COMM_WORLD, graph, method), options};
}

Trajectory distributed(Graph const& graph, Kind kind, int steps, PartitionMethod method,
                       mpi::DistributedOptions const& options = {}, Stepping stepping = Stepping::pull,
                       BinnedPush binned = BinnedPush::automatic, Schedule schedule = Schedule::automatic) {
  StepOptions step;
  step.stepping = stepping;
  step.active_threshold = default_active_threshold();
  step.binned_push = binned;
  step.schedule = schedule;
  mpi::DistributedSimulation<Exec> sim(Exec(), share_of(graph, method, options), 99, step);
  auto trajectory = simulate(sim, kind, steps);
  last_active_steps = sim.stepping_stats().active_steps;
  return trajectory;
}

// Compares a distributed trajectory with the single-process one: the global history on every
// rank, and each owned agent's final state.
void expect_same(Trajectory const& got, Trajectory const& want, std::string const& what) {
  EXPECT_EQ(total(got.history == want.history ? 0 : 1), 0) << what << ": histories differ on some rank";
  long long mismatched = 0, owned = 0;
  for (std::size_t g = 0; g < got.state.size(); ++g) {
    if (got.state[g] < 0) continue;
    ++owned;
    mismatched += got.state[g] != want.state[g];
  }
  EXPECT_EQ(total(mismatched), 0) << what;
  EXPECT_EQ(total(owned), static_cast<long long>(want.state.size())) << what << ": agents owned once";
}

std::string name(Kind kind) {
  return kind == Kind::sir ? "sir" : kind == Kind::seir ? "seir" : kind == Kind::covid ? "covid" : "voter";
}

// The graph families the trajectories are compared on.
struct GraphCase {
  char const* graph;
  Graph (*make)();
};
std::vector<GraphCase> graph_cases() {
  return {{"erdos-renyi", erdos_renyi}, {"power-law", power_law}, {"population", population}};
}

// The promise: the same trajectory, bit for bit, on any number of ranks.
TEST(Distributed, TrajectoriesMatchOneProcessForEveryGraphModelAndPartition) {
  for (GraphCase c : graph_cases()) {
    auto const graph = c.make();
    for (Kind kind : {Kind::sir, Kind::seir, Kind::voter}) {
      auto const want = reference(graph, kind, 40);
      if (kind != Kind::voter) {
        // The epidemic must spread, or matching it would prove little.
        std::int64_t touched = 0;
        for (auto s : want.state) touched += s != Seir<>::susceptible;
        EXPECT_GT(touched, 600) << c.graph << " " << name(kind);
      }
      for (auto method : {PartitionMethod::contiguous, PartitionMethod::metis}) {
        if (method == PartitionMethod::metis && !have_metis()) continue;
        expect_same(distributed(graph, kind, 40, method), want,
                    std::string(c.graph) + " " + name(kind) + " " + to_string(method));
      }
    }
  }
}

// A temporal network on ranks: each rank's snapshots are cut from the network every rank holds,
// under a partition of every pair that ever met, and the steps give one process's bits.
TEST(Distributed, TemporalNetworksMatchOneProcess) {
  TimedContacts contacts;
  contacts.num_agents = 3000;
  std::uint64_t x = 5;
  for (int k = 0; k < 100000; ++k) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;  // the same contacts on every rank
    contacts.times.push_back(static_cast<std::int64_t>(x >> 50));
    contacts.first.push_back(static_cast<agent_index>((x >> 20) % 3000));
    contacts.second.push_back(static_cast<agent_index>((x >> 36) % 3000));
  }
  Exec exec;
  // Every pair that ever met: the graph the ranks are partitioned by.
  auto const met = met_graph(exec, contacts);
  for (auto weights : {SnapshotWeights::met, SnapshotWeights::contacts}) {
    auto const network = build_temporal_network(exec, contacts, 1000, AfterLastWindow::loop, weights);
    ASSERT_EQ(network.num_windows(), 17u);
    std::string const weighted = weights == SnapshotWeights::contacts ? " weighted" : "";
    for (Kind kind : {Kind::sir, Kind::seir}) {
      Simulation<Exec> one(exec, network, 99);
      auto const want = simulate(one, kind, 150);
      std::int64_t touched = 0;
      for (auto s : want.state) touched += s != Seir<>::susceptible;
      EXPECT_GT(touched, 300) << name(kind) << weighted;
      for (auto method : {PartitionMethod::contiguous, PartitionMethod::metis}) {
        if (method == PartitionMethod::metis && !have_metis()) continue;
        auto local = mpi::distribute(exec, MPI_COMM_WORLD, met, method);
        auto snapshots = mpi::local_snapshots(exec, network, local);
        mpi::DistributedSimulation<Exec> sim(exec, mpi::Ghosts<Exec>(exec, MPI_COMM_WORLD, std::move(local)),
                                             std::move(snapshots), 99);
        expect_same(simulate(sim, kind, 150), want, "temporal" + weighted + " " + name(kind) + " " + to_string(method));
      }
    }
  }
}

// SIR on the layered population with a weekly school closure (days 6 and 7) and a lockdown of
// workplaces and the community: the factors the steps read change on ranks as on one process.
// With `isolating`, also test-and-isolate: from step 5 to 30 each infectious agent is detected
// with probability 0.3 and isolated for 6 steps, keeping its household: closed entries, and the
// flags of isolated ghosts, change on ranks as on one process.
template <class Sim>
Trajectory with_layer_events(Sim& sim, int steps, bool isolating = false) {
  ScenarioEvent weekend;
  weekend.kind = ScenarioEvent::Kind::layer;
  weekend.first = 1;
  weekend.last = steps;
  weekend.layers = {{"school", 0.0}};
  weekend.period = 7;
  weekend.days = (1u << 5) | (1u << 6);
  ScenarioEvent lockdown = weekend;
  lockdown.first = 10;
  lockdown.last = 25;
  lockdown.period = 0;
  lockdown.days = 0;
  lockdown.layers = {{"workplace", 0.2}, {"community", 0.3}};
  Scenario scenario;
  scenario.layer_names = population_layer_names();
  scenario.events = {weekend, lockdown};
  if (isolating) {
    ScenarioEvent isolate;
    isolate.kind = ScenarioEvent::Kind::isolate;
    isolate.first = 5;
    isolate.last = 30;
    isolate.probability = 0.3;
    isolate.duration = 6;
    isolate.keeps = {"household"};
    scenario.events.push_back(isolate);
  }
  Seir<Memory> model(sim.num_agents(), seir_parameters(false));
  model.initialise(sim, sim.num_global());
  Interventions<Sim, Seir<Memory>> events(sim, model, scenario, steps);
  Trajectory t;
  t.history = to_vector(run_scenario(sim, model, steps, events));
  t.events = to_vector(events.finish(sim));
  // Summed over the ranks once: asking again gives the same counts.
  EXPECT_EQ(total(to_vector(events.finish(sim)) == t.events ? 0 : 1), 0) << "a second finish on some rank";
  t.state.assign(static_cast<std::size_t>(sim.num_global()), -1);
  auto const ids = to_vector(sim.global_ids());
  auto const values = to_vector(model.state.current());
  for (agent_index r = 0; r < sim.num_owned(); ++r)
    t.state[ids.empty() ? r : ids[r]] = values[static_cast<std::size_t>(r)];
  return t;
}

// The scenario of with_layer_events on every partition and stepping, against one process.
void expect_layer_events_match(Graph const& graph, Trajectory const& want, bool isolating) {
  for (auto method : {PartitionMethod::contiguous, PartitionMethod::metis}) {
    if (method == PartitionMethod::metis && !have_metis()) continue;
    for (Stepping stepping : {Stepping::pull, Stepping::active}) {
      StepOptions step;
      step.stepping = stepping;
      mpi::DistributedSimulation<Exec> sim(Exec(), share_of(graph, method), 99, step);
      auto const got = with_layer_events(sim, 40, isolating);
      std::string const what = std::string(isolating ? "isolation, " : "layer events, ") + to_string(method) +
                               (stepping == Stepping::pull ? " pull" : " active");
      expect_same(got, want, what);
      EXPECT_EQ(total(got.events == want.events ? 0 : 1), 0) << what << ": the events' counts differ on some rank";
    }
  }
}

TEST(Distributed, LayerEventsMatchOneProcess) {
  auto const graph = population();
  Simulation<Exec> one(Exec(), graph, 99);
  auto const want = with_layer_events(one, 40);
  std::int64_t touched = 0;
  for (auto s : want.state) touched += s != Seir<>::susceptible;
  EXPECT_GT(touched, 300) << "the epidemic must spread";
  expect_layer_events_match(graph, want, false);
}

TEST(Distributed, IsolationMatchesOneProcess) {
  auto const graph = population();
  Simulation<Exec> one(Exec(), graph, 99);
  auto const want = with_layer_events(one, 40, true);
  Simulation<Exec> open(Exec(), graph, 99);
  EXPECT_NE(with_layer_events(open, 40).history, want.history) << "isolation must change the epidemic";
  expect_layer_events_match(graph, want, true);
}

TEST(Distributed, OverlapSchedulesAndStagingDoNotChangeTheTrajectory) {
  auto const graph = power_law();
  auto const want = reference(graph, Kind::seir, 30);
  for (bool overlap : {true, false})
    for (Schedule s : {Schedule::thread, Schedule::team, Schedule::hybrid, Schedule::edge}) {
      mpi::DistributedOptions options;
      options.overlap = overlap;
      expect_same(distributed(graph, Kind::seir, 30, PartitionMethod::contiguous, options, Stepping::pull,
                              BinnedPush::automatic, s),
                  want, std::string(overlap ? "overlap " : "no overlap ") + to_string(s));
    }
  // Dense halo messages (every value every step) give the same trajectory as sparse ones.
  mpi::DistributedOptions dense;
  dense.sparse_halo = false;
  expect_same(distributed(graph, Kind::seir, 30, PartitionMethod::contiguous, dense), want, "dense halo");
  // Messages staged through host buffers, as GPU builds without GPU-aware MPI send them, and
  // handed to MPI where they lie: both paths run on every build.
  for (bool stage : {false, true})
    for (bool sparse : {false, true}) {
      mpi::DistributedOptions options;
      options.always_stage = stage;
      options.sparse_halo = sparse;
      expect_same(distributed(graph, Kind::seir, 30, PartitionMethod::contiguous, options), want,
                  std::string(stage ? "staged " : "direct ") + (sparse ? "sparse" : "dense"));
    }
}

// Each rank steps its own active agents, choosing per step on its own; ghosts that spread mark the
// owned agents that read them, and are followed from the ghosts that sparse messages change;
// sparse messages after a listed phase carry the listed agents' changes. None of it changes a bit
// of the trajectory.
TEST(Distributed, ActiveSteppingGivesThePullTrajectoryOnAnyRankCount) {
  for (GraphCase c : graph_cases()) {
    auto const graph = c.make();
    for (Kind kind : {Kind::sir, Kind::seir, Kind::covid}) {
      auto const want = reference(graph, kind, 40);
      std::int64_t touched = 0;
      for (auto s : want.state) touched += s != 0;  // susceptible is 0 in every model here
      EXPECT_GT(touched, 300) << c.graph << " " << name(kind) << ": the epidemic must spread";
      for (Stepping stepping : {Stepping::active, Stepping::automatic})
        for (bool sparse : {true, false}) {
          mpi::DistributedOptions options;
          options.sparse_halo = sparse;
          std::string const what = std::string(c.graph) + " " + name(kind) +
                                   (stepping == Stepping::active ? " active" : " automatic") +
                                   (sparse ? " sparse" : " dense");
          expect_same(distributed(graph, kind, 40, PartitionMethod::contiguous, options, stepping), want, what);
          // Under active every step is listed; automatic lists the early ones at least.
          if (stepping == Stepping::active)
            EXPECT_EQ(last_active_steps, 40) << what;
          else
            EXPECT_GT(last_active_steps, 0) << what;
        }
    }
  }
  // Without overlap, and on a METIS partition (few ghosts, most agents interior).
  auto const graph = power_law();
  auto const want = reference(graph, Kind::seir, 40);
  mpi::DistributedOptions no_overlap;
  no_overlap.overlap = false;
  expect_same(distributed(graph, Kind::seir, 40, PartitionMethod::contiguous, no_overlap, Stepping::automatic), want,
              "automatic without overlap");
  if (have_metis())
    expect_same(distributed(graph, Kind::seir, 40, PartitionMethod::metis, {}, Stepping::active), want, "metis active");
}

// Pushing through bins (forced on: these graphs are below the automatic threshold) adds the same
// integers as the atomic pushes, from the owned sources and from the ghosts that spread.
TEST(Distributed, BinnedPushesGiveThePullTrajectoryOnAnyRankCount) {
  for (GraphCase c : graph_cases()) {
    auto const graph = c.make();
    for (Kind kind : {Kind::sir, Kind::covid})
      expect_same(distributed(graph, kind, 40, PartitionMethod::contiguous, {}, Stepping::active, BinnedPush::on),
                  reference(graph, kind, 40), std::string(c.graph) + " " + name(kind) + " binned");
  }
}

// With ghosts exchanged every few steps only the trajectory is another one, but still the same
// whichever agents the steps visit: listed phases keep the stale ghosts as pulled ones do.
TEST(Distributed, ActiveSteppingKeepsStaleGhostsAsPullDoes) {
  auto const graph = erdos_renyi();
  mpi::DistributedOptions every_third;
  every_third.exchange_every = 3;
  auto const want = distributed(graph, Kind::seir, 40, PartitionMethod::contiguous, every_third, Stepping::pull);
  for (Stepping stepping : {Stepping::active, Stepping::automatic})
    expect_same(distributed(graph, Kind::seir, 40, PartitionMethod::contiguous, every_third, stepping), want,
                stepping == Stepping::active ? "active" : "automatic");
}

// Sparse messages after listed phases: few values travel early in an epidemic, as after pulled
// ones.
TEST(Distributed, ListedPhasesSendSparseMessages) {
  auto const graph = erdos_renyi();
  mpi::DistributedOptions dense;
  dense.sparse_halo = false;
  StepOptions active;
  active.stepping = Stepping::active;
  auto const make = [&](mpi::DistributedOptions const& options) {
    return mpi::DistributedSimulation<Exec>(Exec(), share_of(graph, PartitionMethod::contiguous, options), 5, active);
  };
  auto full = make(dense);
  auto sparse = make({});
  Seir<Memory> a(full.num_agents(), seir_parameters(false)), b(sparse.num_agents(), seir_parameters(false));
  a.initialise(full, full.num_global());
  b.initialise(sparse, sparse.num_global());
  auto const before = sparse.distribution().halo().times().bytes_sent;
  EXPECT_EQ(to_vector(run(full, a, 8)), to_vector(run(sparse, b, 8)));
  EXPECT_EQ(sparse.stepping_stats().active_steps, 8);
  if (world_size() == 1) return;
  EXPECT_GT(sparse.distribution().halo().times().sparse_messages, 0);
  EXPECT_LT(total(sparse.distribution().halo().times().bytes_sent - before),
            total(full.distribution().halo().times().bytes_sent) / 2);
}

// The Erdos-Renyi graph in contiguous blocks of agents, one per rank.
mpi::DistributedSimulation<Exec> contiguous_erdos_renyi(mpi::DistributedOptions const& options = {}) {
  Exec exec;
  auto const graph = erdos_renyi();
  auto const partition = partition_graph(exec, graph, world_size(), PartitionMethod::contiguous);
  return {exec,
          mpi::Ghosts<Exec>(exec, MPI_COMM_WORLD, extract_local_graph(exec, graph, partition, world_rank()), options),
          5};
}

mpi::DistributedOptions dense_halo() {
  mpi::DistributedOptions options;
  options.sparse_halo = false;
  return options;
}

TEST(Distributed, EachStepExchangesOnceWithEveryNeighbour) {
  auto sim = contiguous_erdos_renyi(dense_halo());
  Seir<Memory> model(sim.num_agents(), seir_parameters(false));
  model.initialise(sim, sim.num_global());
  run(sim, model, 12);
  auto const& plan = sim.distribution().halo().plan();
  EXPECT_EQ(sim.distribution().halo().times().exchanges, world_size() > 1 ? 12 : 0);
  EXPECT_EQ(sim.distribution().halo().times().messages_sent, 12 * static_cast<long long>(plan.send_ranks.size()));
  // Only the 1-byte state is neighbour-visible: the timer stays home.
  EXPECT_EQ(sim.distribution().halo().times().bytes_sent, 12 * static_cast<long long>(plan.sends()));
  EXPECT_EQ(total(plan.sends()), total(plan.receives()));
  EXPECT_EQ(plan.receives(), sim.distribution().local_graph().ghosts());
}

// Early in an epidemic few boundary agents change: sparse messages carry only those, with their
// slots (5 bytes for a 1-byte state), and far fewer bytes travel than with dense messages.
TEST(Distributed, SparseMessagesCarryOnlyTheValuesThatChanged) {
  auto dense = contiguous_erdos_renyi(dense_halo());
  auto sparse = contiguous_erdos_renyi();
  Seir<Memory> a(dense.num_agents(), seir_parameters(false)), b(sparse.num_agents(), seir_parameters(false));
  a.initialise(dense, dense.num_global());
  b.initialise(sparse, sparse.num_global());
  auto const before = sparse.distribution().halo().times().bytes_sent;
  EXPECT_EQ(to_vector(run(dense, a, 8)), to_vector(run(sparse, b, 8)));
  if (world_size() == 1) return;
  auto const& times = sparse.distribution().halo().times();
  EXPECT_GT(times.sparse_messages, 0);
  EXPECT_LT(total(times.bytes_sent - before), total(dense.distribution().halo().times().bytes_sent) / 2);
  EXPECT_EQ(dense.distribution().halo().times().sparse_messages, 0);
}

// Telemetry moves the halo's time out of the step phase and counts its messages; the distributed
// loop allocates nothing either.
TEST(Distributed, TelemetrySeparatesTheHaloFromTheStep) {
  auto sim = contiguous_erdos_renyi(dense_halo());
  Seir<Memory> model(sim.num_agents(), seir_parameters(false));
  model.initialise(sim, sim.num_global());
  auto const before = sim.distribution().halo().times();
  Telemetry telemetry;
  run(sim, model, 12, NoProgress{}, &telemetry);
  auto const& plan = sim.distribution().halo().plan();
  bool const exchanges = world_size() > 1;
  EXPECT_EQ(telemetry.messages_sent(), 12 * static_cast<long long>(plan.send_ranks.size()));
  EXPECT_EQ(telemetry.bytes_sent(), 12 * static_cast<long long>(plan.sends()));
  EXPECT_EQ(telemetry.memory().allocations, 0);
  EXPECT_EQ(telemetry.seconds(LoopPhase::halo_pack) > 0.0, exchanges);
  EXPECT_EQ(telemetry.seconds(LoopPhase::halo_unpack) > 0.0, exchanges);
  EXPECT_GT(telemetry.seconds(LoopPhase::step), 0.0);
  double const halo = telemetry.seconds(LoopPhase::halo_pack) + telemetry.seconds(LoopPhase::halo_wait) +
                      telemetry.seconds(LoopPhase::halo_unpack);
  // All the halo's time inside the loop, no more: its exchange for initialise() came before.
  auto const& after = sim.distribution().halo().times();
  EXPECT_NEAR(halo, after.pack + after.wait + after.unpack - (before.pack + before.wait + before.unpack), 1e-9);
}

// Owned agents get values derived from their global ids, ghosts a marker the exchange must
// overwrite. (A free function: CUDA does not allow device lambdas in the private TestBody.)
template <class Ids, class A, class B, class C, class D>
void fill_owned(Ids ids, agent_index owned, A va, B vb, C vc, D vd) {
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, ids.extent(0)), KOKKOS_LAMBDA(std::size_t k) {
        auto const i = static_cast<agent_index>(k);
        bool const mine = i < owned;
        va(i) = mine ? static_cast<std::uint8_t>(ids(i) % 251) : 255;
        vb(i) = storage_traits<half>::store(mine ? static_cast<float>(ids(i) % 1000) : -1.0f);
        vc(i) = mine ? static_cast<float>(ids(i)) * 0.5f : -1.0f;
        vd(i) = mine ? ids(i) * 1000003 : -1;
      });
}

// Ghost copies receive exactly their owner's values, for every storage size.
TEST(Distributed, UpdateGhostsCopiesOwnersValuesOfEverySize) {
  Exec exec;
  auto const graph = power_law();
  mpi::DistributedSimulation<Exec> sim(exec, share_of(graph), 5);
  Property<std::uint8_t, Memory> a("a", sim.num_agents());
  Property<half, Memory> b("b", sim.num_agents());
  Property<float, Memory> c("c", sim.num_agents());
  Property<std::int64_t, Memory> d("d", sim.num_agents());
  auto ids = sim.global_ids();
  auto va = a.current();
  auto vb = b.current();
  auto vc = c.current();
  auto vd = d.current();
  agent_index const owned = sim.num_owned();
  fill_owned(ids, owned, va, vb, vc, vd);
  sim.update_ghosts(a, b, c, d);
  auto const h_ids = to_vector(ids);
  auto const ha = to_vector(va);
  auto const hb = to_vector(vb);
  auto const hc = to_vector(vc);
  auto const hd = to_vector(vd);
  long long wrong = 0;
  for (std::size_t i = 0; i < h_ids.size(); ++i) {
    auto const g = h_ids[i];
    wrong += ha[i] != g % 251;
    wrong += storage_traits<half>::load(hb[i]) != static_cast<float>(g % 1000);
    wrong += hc[i] != static_cast<float>(g) * 0.5f;
    wrong += hd[i] != g * 1000003;
  }
  EXPECT_EQ(total(wrong), 0);
  EXPECT_EQ(total(static_cast<long long>(h_ids.size()) - owned), total(sim.distribution().local_graph().ghosts()));
}

// Adds 1 to the owned values whose global id is a multiple of `every`. (A free function, as above.)
template <class Ids, class Values>
void change_owned(Ids ids, agent_index owned, Values values, global_id every) {
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, owned), KOKKOS_LAMBDA(agent_index i) {
        if (ids(i) % every == 0) values(i) = static_cast<std::uint8_t>(values(i) + 1);
      });
}

// Active-set stepping follows the spreading ghosts from what the halo says changed: a sparse
// message lists exactly the ghosts whose values changed, once each however many messages carry
// them; a dense one leaves which changed unknown.
TEST(Distributed, TheHaloReportsTheGhostsThatChanged) {
  Exec exec;
  auto local = mpi::distribute(exec, MPI_COMM_WORLD, erdos_renyi());
  mpi::Halo<Exec> halo(exec, MPI_COMM_WORLD, mpi::make_halo_plan(exec, MPI_COMM_WORLD, local), false);
  agent_index const owned = local.owned;
  Property<std::uint8_t, Memory> a("a", local.local()), b("b", local.local());
  auto const ids = local.ids;
  halo.exchange(mpi::halo_field(a), mpi::halo_field(b));  // of values that are all 0
  halo.record_ghost_changes(true);
  EXPECT_FALSE(halo.ghost_changes().known) << "nothing recorded yet";

  // The other buffers hold the values exchanged; change a few of them (sparse messages carry 5
  // bytes per change of a 1-byte value, so fewer than a fifth), in both properties for the
  // multiples of 143 (a ghost listed once).
  Kokkos::deep_copy(a.next(), a.current());
  Kokkos::deep_copy(b.next(), b.current());
  change_owned(ids, owned, a.current(), 11);
  change_owned(ids, owned, b.current(), 13);
  auto const sparse_a = mpi::sparse_halo_field(a), sparse_b = mpi::sparse_halo_field(b);
  halo.exchange(sparse_a, sparse_b);
  auto const changes = halo.ghost_changes();
  auto const h_ids = to_vector(ids);
  std::vector<global_id> want, got;
  for (auto i = static_cast<std::size_t>(owned); i < h_ids.size(); ++i)
    if (h_ids[i] % 11 == 0 || h_ids[i] % 13 == 0) want.push_back(h_ids[i]);
  if (world_size() > 1) {
    EXPECT_FALSE(want.empty());
  }
  EXPECT_TRUE(changes.known);
  auto const listed = to_vector(changes.list);
  auto const flags = to_vector(changes.flags);
  long long wrong = 0;
  for (agent_index k = 0; k < changes.count; ++k) got.push_back(h_ids[static_cast<std::size_t>(listed[k])]);
  for (std::size_t g = 0; g < flags.size(); ++g)
    wrong += (flags[g] != 0) != (h_ids[static_cast<std::size_t>(owned) + g] % 11 == 0 ||
                                 h_ids[static_cast<std::size_t>(owned) + g] % 13 == 0);
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(total(got == want ? 0 : 1), 0) << "listed ghosts differ on some rank";
  EXPECT_EQ(total(wrong), 0) << "flags differ from the list";

  // No exchange since: nothing changed. Then every value changes: dense messages, not known.
  auto const quiet = halo.ghost_changes();
  EXPECT_TRUE(quiet.known);
  EXPECT_EQ(quiet.count, 0);
  auto const cleared = to_vector(quiet.flags);
  EXPECT_EQ(total(static_cast<long long>(std::count(cleared.begin(), cleared.end(), 0u)) - local.ghosts()), 0)
      << "flags cleared";
  Kokkos::deep_copy(a.next(), a.current());
  change_owned(ids, owned, a.current(), 1);
  halo.exchange(sparse_a, sparse_b);
  EXPECT_EQ(halo.ghost_changes().known, world_size() == 1);
}

// Exchanging every k steps leaves ghosts stale in between: on one rank there are no ghosts and the
// trajectory is the exact one; on several it is a valid epidemic, not the same one.
TEST(Distributed, ExchangingEveryFewStepsKeepsCountsConsistent) {
  auto const graph = erdos_renyi();
  mpi::DistributedOptions options;
  options.exchange_every = 3;
  auto const got = distributed(graph, Kind::seir, 30, PartitionMethod::contiguous, options);
  if (world_size() == 1) expect_same(got, reference(graph, Kind::seir, 30), "every 3 steps on one rank");
  for (std::size_t t = 0; t < got.history.size(); t += 4) {
    EXPECT_EQ(got.history[t] + got.history[t + 1] + got.history[t + 2] + got.history[t + 3], 6000) << t / 4;
    if (t > 0) {
      EXPECT_GE(got.history[t + 3], got.history[t - 1]);  // R never shrinks
    }
  }
}

TEST(Distributed, AFailureOnOneRankReachesEveryRank) {
  int const rank = world_rank(), size = world_size();
  try {
    mpi::collectively(MPI_COMM_WORLD, [&] {
      if (rank == size - 1) throw Error("cannot open 'missing.txt'");
    });
    ADD_FAILURE() << "no error";
  } catch (Error const& e) {
    std::string const expected =
        size == 1 ? "cannot open 'missing.txt'"
                  : "cannot open 'missing.txt' (rank " + std::to_string(size - 1) + " of " + std::to_string(size) + ")";
    EXPECT_EQ(e.what(), expected);
  }
  // A value comes back when no rank fails.
  EXPECT_EQ(mpi::collectively(MPI_COMM_WORLD, [&] { return rank + 1; }), rank + 1);
}

// What the ranks of one run must agree on: one rank's other value is named on every rank, where
// the others waited for it forever or stepped another run.
TEST(Distributed, RanksThatDisagreeAreStoppedTogether) {
  Exec exec;
  if (world_size() == 1) GTEST_SKIP() << "one rank agrees with itself";
  int const rank = world_rank();
  auto const graph = erdos_renyi();
  auto const local = mpi::distribute(exec, MPI_COMM_WORLD, graph);
  // Thrown on every rank alike: each check stops every rank, or none.
  auto const said = [&](auto&& f) {
    std::string message;
    try {
      f();
    } catch (mpi::CollectiveError const& e) {
      message = e.what();
    }
    EXPECT_EQ(total(message.empty() ? 1 : 0), 0) << message;
    return message;
  };
  EXPECT_NE(said([&] {
              (void)mpi::distribute(exec, MPI_COMM_WORLD, rank == 0 ? graph : power_law());
            }).find("distribute: the ranks give different graphs (a hash of their entries)"),
            std::string::npos);
  // A share on rank 1 that names one boundary agent twice and another not at all, its ids still
  // spanning its block: the agent the others read there is refused, not looked up in a gap.
  {
    auto broken = local;
    broken.ids = Kokkos::View<global_id*, Memory>("ids", local.ids.extent(0));
    Kokkos::deep_copy(broken.ids, local.ids);
    auto host_ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), broken.ids);
    agent_index const middle = local.interior + (local.owned - local.interior) / 2;
    if (rank == 1) host_ids(static_cast<std::size_t>(middle)) = host_ids(static_cast<std::size_t>(middle + 1));
    Kokkos::deep_copy(broken.ids, host_ids);
    EXPECT_NE(said([&] { (void)mpi::make_halo_plan(exec, MPI_COMM_WORLD, broken); }).find("are not owned there"),
              std::string::npos);
  }
  mpi::DistributedOptions stale;
  stale.exchange_every = rank == 0 ? 1 : 2;
  EXPECT_NE(said([&] {
              mpi::Ghosts<Exec> ghosts(exec, MPI_COMM_WORLD, local, stale);
            }).find("mpi::Ghosts: the ranks give different halo exchange intervals (exchange_every) (from 1 to 2)"),
            std::string::npos);
  EXPECT_NE(said([&] {
              mpi::DistributedSimulation<Exec> sim(exec, mpi::Ghosts<Exec>(exec, MPI_COMM_WORLD, local),
                                                   rank == 0 ? 7u : 8u);
            }).find("Simulation: the ranks give different seeds (from 7 to 8)"),
            std::string::npos);
  mpi::DistributedSimulation<Exec> sim(exec, mpi::Ghosts<Exec>(exec, MPI_COMM_WORLD, local), 7);
  Seir<Memory> model(sim.num_agents(), seir_parameters(false));
  model.initialise(sim, sim.num_global());
  EXPECT_NE(said([&] {
              run(sim, model, rank == 0 ? 40 : 50);
            }).find("run: the ranks give different step counts (from 40 to 50)"),
            std::string::npos);
  Scenario scenario;
  ScenarioEvent importation;
  importation.kind = ScenarioEvent::Kind::importation;
  importation.count = rank == 0 ? 3 : 4;
  scenario.events.push_back(importation);
  EXPECT_NE(said([&] {
              Interventions<decltype(sim), decltype(model)>(sim, model, scenario, 10);
            }).find("Interventions: the ranks give different scenarios"),
            std::string::npos);
  // A rank's own check of what it was given stops the others too: the steps beyond the events'
  // on one rank, and vaccination classes short of its agents on another.
  Interventions<decltype(sim), decltype(model)> events(sim, model, Scenario{}, 30);
  EXPECT_NE(said([&] {
              run_scenario(sim, model, rank == 1 ? 31 : 10, events);
            }).find("run_scenario: the ranks give different step counts (from 10 to 31)"),
            std::string::npos);
  EXPECT_NE(said([&] {
              events.set_priority(sim,
                                  Kokkos::View<std::uint8_t*, Memory>("classes", rank == 1 ? 10 : sim.num_agents()));
            }).find("scenario: the vaccination classes cover 10 agents of"),
            std::string::npos);
  // A property of another size on one rank alone (the others' own agents and ghosts fit): the
  // check before the steps and update_ghosts, which would write the ghosts past its end, stop
  // every rank.
  {
    Seir<Memory> off(sim.num_agents() + (rank == 1 ? 1 : 0), seir_parameters(false));
    auto const sizes = said([&] { run(sim, off, 5); });
    EXPECT_NE(sizes.find("property 'state' holds "), std::string::npos) << sizes;
    EXPECT_NE(sizes.find("(rank 1 of " + std::to_string(world_size()) + ")"), std::string::npos) << sizes;
    Property<std::uint8_t, Memory> owned("owned", rank == 1 ? sim.num_owned() : sim.num_agents());
    EXPECT_NE(said([&] { sim.update_ghosts(owned); }).find("property 'owned' holds"), std::string::npos);
  }
  // Agreeing, they run.
  EXPECT_EQ(run(sim, model, 5).extent(0), 6u);
}

TEST(Distributed, MoreRanksThanAgentsFailsOnEveryRank) {
  Exec exec;
  if (world_size() == 1) GTEST_SKIP() << "one agent fills one rank";
  EdgeList<Memory> none;
  none.num_agents = 1;
  auto const tiny = build_csr(exec, none);
  EXPECT_THROW(
      mpi::collectively(MPI_COMM_WORLD,
                        [&] { return partition_graph(exec, tiny, world_size(), PartitionMethod::contiguous); }),
      Error);
}

}  // namespace
