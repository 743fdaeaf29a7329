#pragma once

// A run of the herd command with the model of one entry (model_registry.hpp): on one process,
// distributed over ranks, or as an ensemble. Each entry's runs compile in a file of their own
// (job_<model>.cpp), so that the models, each a dozen simulations' kernels, compile side by side.

#include "input.hpp"
#include "input_fingerprint.hpp"
#include "job.hpp"
#include "memory_budget.hpp"
#include "model_registry.hpp"
#include "models.hpp"
#include "run_files.hpp"
#include "scenario_file.hpp"

#include <herd/graph/graph_hash.hpp>
#include <herd/herd.hpp>
#include <herd/io/device_copy.hpp>
#include <herd/models/covid_astoria.hpp>
#include <herd/mpi/local_graph.hpp>
#include <herd/scenario/run_scenario.hpp>
#if HERD_ENABLE_MPI
#include <herd/mpi/attribute_reader.hpp>
#include <herd/mpi/collective.hpp>
#include <herd/mpi/distributed_graph.hpp>
#include <herd/mpi/distributed_population.hpp>
#include <herd/mpi/distributed_simulation.hpp>
#include <herd/mpi/edge_list_reader.hpp>
#include <herd/mpi/repartition.hpp>
#include <herd/mpi/temporal_share.hpp>
#endif
#if HERD_ENABLE_HDF5
#include <herd/io/hdf5/population.hpp>
#include <herd/io/output_file.hpp>
#endif

#include <Kokkos_Timer.hpp>

#include <algorithm>
#include <iterator>
#include <limits>
#include <optional>

namespace herd::io::h5 {
class File;  // held by pointer also where Herd is built without HDF5
}  // namespace herd::io::h5

namespace herd::cli {

// The classes of `--scenario`'s vaccinations in the order oldest-first, for covid on Astoria's
// age groups: the oldest group, 65A, is class 0, and U19 (the last age code) class 5.
template <class Sim, class Model>
typename Interventions<Sim, Model>::Priority vaccination_classes(Sim const& sim, Model const& model) {
  auto const& rank = astoria_oldest_first();
  require(static_cast<std::size_t>(model.num_age_groups()) == rank.size(),
          "covid: oldest-first needs Astoria's age groups");
  Kokkos::View<std::uint8_t*, Memory> class_of_group("herd::scenario::class_of_group", rank.size());
  Kokkos::deep_copy(class_of_group, Kokkos::View<std::uint8_t const*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                        rank.data(), rank.size()));
  typename Interventions<Sim, Model>::Priority classes(
      Kokkos::ViewAllocateWithoutInitializing("herd::scenario::classes"), sim.num_agents());
  auto const age = model.age;
  Kokkos::parallel_for(
      "herd::scenario::oldest_first", Kokkos::RangePolicy<Exec>(sim.execution_space_instance(), 0, sim.num_agents()),
      KOKKOS_LAMBDA(agent_index i) { classes(i) = class_of_group(age.stored(i)); });
  return classes;
}

namespace detail {

// Where the run's files go: the world (one rank, or all of a distributed run).
#if HERD_ENABLE_MPI
inline MPI_Comm world() { return MPI_COMM_WORLD; }
#else
inline int world() { return 0; }
#endif

// The loop's telemetry as the report shows it; over ranks when distributed (collective).
LoopProfile summarise(Telemetry const& t, bool distributed);

// Sets result's columns and counts to the `shown` observables of `all`, a history of every
// observable in `names`, row after row.
void take_counts(JobResult& result, std::vector<std::string> const& names, std::vector<int> const& shown,
                 std::vector<std::int64_t> const& all);

BinnedPush binned_push(Options const& o);

Stepping parse_stepping(std::string const& stepping);

// What the report says of the graph, taken before the graph as built is released.
struct GraphFacts {
  std::string name;
  agent_index agents = 0;
  std::uint64_t edges = 0;
  double mean_degree = 0.0;
  int max_degree = 0;
  bool weighted = false;
  std::uint64_t hash = 0;                ///< herd::graph_hash, which HDF5 files record (0 in a run without them)
  std::vector<std::string> layer_names;  ///< the names of its contact layers, by number
};

void describe(JobResult& result, GraphFacts const& graph, Exec const& exec, std::string const& schedule);

// The report of each event: what it set, or the agents it changed per step (`rows`, summed over
// ranks, row t for step t) from the step after `start`.
inline std::vector<EventRun> event_runs(Scenario const& scenario, std::vector<std::int64_t> const& rows, int start) {
  std::size_t const columns = scenario.events.size();
  auto const steps = static_cast<int>(columns == 0 ? 0 : rows.size() / columns);
  std::vector<EventRun> runs;
  for (std::size_t k = 0; k < scenario.events.size(); ++k) {
    auto const& e = scenario.events[k];
    EventRun r{event_name(scenario, k),
               to_string(e.kind),
               e.first,
               e.last,
               e.parameter,
               e.value,
               e.reverts,
               {},
               e.layers,
               e.period,
               {},
               e.probability,
               e.duration,
               e.keeps};
    for (int d = 1; d <= e.period; ++d)
      if ((e.days >> (d - 1)) & 1u) r.days.push_back(d);
    if (e.kind != ScenarioEvent::Kind::set && e.kind != ScenarioEvent::Kind::layer)
      for (int t = std::max(e.first, start + 1); t <= std::min(e.last, steps - 1); ++t)
        r.agents.push_back(rows[static_cast<std::size_t>(t) * columns + k]);
    runs.push_back(std::move(r));
  }
  return runs;
}

template <class Model, class Sim>
JobResult simulate(Options const& o, Sim& sim, Model& model, std::vector<int> const& shown,
                   std::function<void(int, int)> const& progress, std::uint64_t edges, std::uint64_t hash,
                   bool distributed, std::vector<std::string> const& layer_names, io::h5::File const* resumed) {
  JobResult result;
  // An ensemble's member on one rank reads and keeps its state alone; one on a graph that the
  // ranks share, with every rank.
  RunFiles<Sim, Model> files(o, sim, model, edges, hash, o.member >= 0 && !distributed ? MPI_COMM_SELF : world(),
                             distributed);
#if HERD_ENABLE_HDF5
  files.resume_from(resumed);
#else
  (void)resumed;
#endif
  // Before a checkpoint is loaded: every value the scenario sets is a valid one for its states.
  std::optional<Interventions<Sim, Model>> events;
  if (!o.scenario.empty()) {
    // An edge list's layer names are checked here, when it has been read: on every rank alike.
    auto const make_events = [&] {
      auto scenario = read_scenario(o.scenario, *o.scenario_text, o.steps, continues(o), layer_names);
      try {
        events.emplace(sim, model, std::move(scenario), o.steps);
      } catch (Error const& e) {
        throw Error(o.scenario + ": " + e.what());
      }
    };
#if HERD_ENABLE_MPI
    if (distributed)
      mpi::collectively(world(), make_events);
    else
      make_events();
#else
    make_events();
#endif
  }
  if (events && events->isolates())
    files.keep_isolation(events->isolation_timers(), events->longest_isolation(),
                         [&events, &sim] { events->restore_isolation(sim); });
  if (events)
    files.keep_events(events->scenario().events.size(),
                      [&events](std::uint32_t last) { return host_rows(events->counts(), last); });
  auto const first = files.initialise();
  if constexpr (std::is_same_v<Model, Covid<Memory>>)
    if (events) events->set_priority(sim, vaccination_classes(sim, model));
  Kokkos::fence();
  Telemetry telemetry;
  telemetry.record_steps(!o.profile_steps.empty());
  Kokkos::Timer timer;
  auto const each_step = [&](int t, int steps, auto const& h) {
    progress(static_cast<int>(first) + t, o.steps);
    (void)steps;
    files.after_step(t, h);
  };
  auto* const profile = o.profile ? &telemetry : nullptr;
  auto history = events ? run_scenario(sim, model, o.steps - static_cast<int>(first), *events, each_step, profile)
                        : run(sim, model, o.steps - static_cast<int>(first), each_step, profile);
  Kokkos::fence();
  result.step_seconds = timer.seconds();
  result.first_step = static_cast<long long>(first);
  result.spreader_bits = sim.reads_spreader_bits(model);
  result.gather_ahead = sim.gathers_ahead_for(model) && !result.spreader_bits;
  result.weight_codes = result.spreader_bits && sim.code_bytes_per_edge() > 0;
  auto const footprint = sim.footprint(model);
  result.bytes_per_agent = footprint.bytes_per_agent;
  result.bytes_per_edge = footprint.bytes_per_edge;
  if (o.profile) result.profile = summarise(telemetry, distributed);
  // The history comes back in one copy, after the loop.
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), history);
  std::vector<std::int64_t> rows(host.data(), host.data() + host.size());
  auto const all = files.finish(rows, *result.outputs);
  // The events' counts from step 0 (the checkpoint's before a resume), summed over ranks after the
  // files took this rank's.
  if (events)
    result.events = event_runs(events->scenario(),
                               files.whole_events(host_rows(events->finish(sim), static_cast<std::uint32_t>(o.steps))),
                               files.knows_earlier_events() ? 0 : static_cast<int>(first));
  take_counts(result, model.observable_names(), shown, all);
#if HERD_ENABLE_HDF5
  result.member_state = files.member_state();
#endif
  return result;
}

// Whether the run writes a file whose record holds the graph's hash, a checkpoint or a single
// run's output: a pass over the edges (and, distributed, an exchange) that other runs skip.
inline bool records_graph_hash(Options const& o) {
  return !o.checkpoint.empty() || !o.resume.empty() || (!o.output.empty() && !is_ensemble(o));
}

template <class WeightStorage>
GraphFacts graph_facts(Options const& o, Input<WeightStorage> const& input, Exec const& exec) {
  auto const stats = degree_stats(exec, input.graph);
  bool const hashed = records_graph_hash(o);
  return {input.name,
          input.graph.num_agents(),
          static_cast<std::uint64_t>(input.graph.num_edges()),
          stats.mean_degree,
          stats.max_degree,
          input.temporal ? input.temporal->weighted() : input.graph.weighted(),
          !hashed          ? 0
          : input.temporal ? graph_hash(exec, *input.temporal)
                           : graph_hash(exec, input.graph),
          input.layer_names};
}

#if HERD_ENABLE_MPI
// Each rank of a distributed run builds only its share of the graph (a generator's, an edge-list
// file's, a population file's or a timed-contact file's), in contiguous blocks. Whether the
// shares then move to the parts a partitioner gives them: METIS (on rank 0), PT-Scotch or
// ParMETIS. A model that reads attributes (a population file's, or --attributes') reads its own
// agents' values once its rows are in place.
inline bool partitions_shares(Options const& o) { return o.partition != "contiguous"; }

// The parts of the parallel partitioner --partition names for a share in contiguous blocks (of a
// graph whose rows are `symmetric`, or not), and the rows moved to them (collective). Adds the time
// of each to `partition_seconds` and `local_graph_seconds`.
template <class WeightStorage>
LocalGraph<Memory, WeightStorage> repartition(Options const& o, Exec const& exec, MPI_Comm comm,
                                              LocalGraph<Memory, WeightStorage> share, bool symmetric,
                                              double& partition_seconds, double& local_graph_seconds) {
  Kokkos::Timer phase;
  auto const parts = mpi::parts_by(parse_partition_method(o.partition), exec, comm, share, symmetric);
  partition_seconds += phase.seconds();
  phase.reset();
  auto moved = mpi::migrate_rows(exec, comm, share, parts);
  local_graph_seconds += phase.seconds();
  return moved;
}

// This rank's share of the layered population, made by shares (collective).
template <class WeightStorage>
LocalGraph<Memory, WeightStorage> population_share(Options const& o, Exec const& exec, MPI_Comm comm) {
  LayeredPopulation spec;
  spec.agents = static_cast<agent_index>(o.agents);
  auto part = mpi::population_part(exec, comm, spec, o.graph_seed);
  part.age_group = {};  // no model here reads them
  part.household = {};
  return mpi::build_local_graph<WeightStorage>(exec, comm, part.edges);
}

// This rank's share of the edge list --graph names, read by byte ranges, with the agents `table`
// (--attributes) names as well (collective).
template <class WeightStorage, class Entry>
LocalGraph<Memory, WeightStorage> read_share(Options const& o, Exec const& exec, MPI_Comm comm, bool& symmetric,
                                             std::vector<std::string>& layer_names,
                                             std::optional<mpi::AttributeRows> const& table) {
  auto edges = mpi::read_edge_list(comm, o.graph);
  layer_names = edges.layer_names;
  auto lines = static_cast<unsigned long long>(edges.sources.size());
  MPI_Allreduce(MPI_IN_PLACE, &lines, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
  bool const directed = o.directed || edges.directed;
  mpi::collectively(comm, [&] {
    // Agents without contacts are agents too, as cover_table_agents makes them for one process.
    bool const table_ids =
        table && cover_agents(edges, agents_described(table->named, table->largest, table->rows, o.attributes));
    int const size = mpi::size_of(comm);
    herd::require(edges.num_agents >= size,
                  "--graph " + sized_by(o, table_ids) + ": cannot split its " + std::to_string(edges.num_agents) +
                      (edges.num_agents == 1 ? " agent into " : " agents into ") + std::to_string(size) +
                      " parts: every rank needs at least one agent (use fewer ranks)");
    // Held while building: the rank's lines, 20 bytes each (read in place, or a round at a time
    // copied to a device).
    check_share_fits(o, size, static_cast<double>(edges.num_agents),
                     static_cast<double>(lines) * (directed ? 1.0 : 2.0), 20.0 * static_cast<double>(lines) / size,
                     table_ids);
    (void)Entry::template make<WeightStorage>(o, 0, edges.num_agents, typename Entry::Inputs{});
  });
  // As graph_of_edges orients a whole list: --transpose swaps the columns.
  if (o.transpose) std::swap(edges.sources, edges.targets);
  BuildOptions build;
  build.symmetrise = !directed;
  symmetric = !directed;
  return mpi::build_local_graph<WeightStorage>(exec, comm, edges, build);
}

// This rank's share of the population file --graph names, each rank reading its block of rows
// (collective).
template <class WeightStorage, class Entry>
LocalGraph<Memory, WeightStorage> read_population_share(Options const& o, Exec const& exec, MPI_Comm comm) {
#if HERD_ENABLE_HDF5
  // --directed and --transpose were refused with it (check_graph_file).
  mpi::collectively(comm, [&] {
    auto const size = io::population_size(o.graph, comm);
    int const ranks = mpi::size_of(comm);
    // A file's agent count out of range is the reading's to report, naming the file.
    if (size.agents < static_cast<std::uint64_t>(ranks) ||
        size.agents > static_cast<std::uint64_t>(std::numeric_limits<agent_index>::max()))
      return;
    // Held while building: the rank's rows as read, 9 bytes an entry.
    check_share_fits(o, ranks, static_cast<double>(size.agents), static_cast<double>(size.entries),
                     9.0 * static_cast<double>(size.entries) / ranks);
  });
  auto const rows = io::read_population_rows(o.graph, comm);
  // The model's parameters, checked once the file is known sound, as for a graph read whole.
  mpi::collectively(
      comm, [&] { (void)Entry::template make<WeightStorage>(o, 0, rows.num_agents, typename Entry::Inputs{}); });
  // The rows as stored, as one process uses them.
  return mpi::build_local_graph<WeightStorage>(exec, comm, rows);
#else
  (void)exec;
  (void)comm;
  throw mpi::CollectiveError(o.graph + ": population files need a build of Herd with HDF5");
#endif
}

// What the report says of a graph built by shares (collective).
template <class WeightStorage>
GraphFacts share_facts(Options const& o, Exec const& exec, MPI_Comm comm,
                       LocalGraph<Memory, WeightStorage> const& local, std::vector<std::string> layer_names) {
  mpi::collectively(comm, [&] { check_weights_fit(exec, local.graph, o.graph); });
  auto const [max_degree, entries] = mpi::degree_extent(exec, comm, local);
  bool const hashed = records_graph_hash(o);
  return {o.graph,
          static_cast<agent_index>(local.global_agents),
          entries,
          static_cast<double>(entries) / static_cast<double>(local.global_agents),
          max_degree,
          local.graph.weighted(),
          hashed ? mpi::graph_hash(exec, comm, local) : 0,
          std::move(layer_names)};
}

// This rank's share of a timed-contact file's network in --window windows, read by parts (collective).
template <class WeightStorage, class Entry>
mpi::TemporalShare<Memory, WeightStorage> timed_share(Options const& o, Exec const& exec, MPI_Comm comm) {
  auto mine = mpi::read_timed_contacts(comm, o.graph);
  auto const frame = mpi::window_frame(comm, mine, o.window);
  agent_index const agents = mine.num_agents;
  unsigned long long contacts = mine.size();
  MPI_Allreduce(MPI_IN_PLACE, &contacts, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
  // Each rank builds a row offset per agent and window with contacts, as one process does, and
  // holds the contacts it read beside those routed to it: about 2.5 shares at the peak (1 at 2
  // ranks, 0.59 at 4, measured in docs/scenarios.md), all of them at most.
  double const held = std::min(1.0, 2.5 / mpi::size_of(comm)) * static_cast<double>(contacts);
  mpi::collectively(comm, [&] {
    check_windows_fit(o.graph + " in windows of " + std::to_string(o.window), agents,
                      static_cast<double>(frame.busy.size()), held, o.max_memory);
  });
  auto share = [&] {
    try {
      return mpi::temporal_share<WeightStorage>(
          exec, comm, std::move(mine), o.window, frame,
          o.after_last == "stop" ? AfterLastWindow::stop : AfterLastWindow::loop,
          o.window_weights == "contacts" ? SnapshotWeights::contacts : SnapshotWeights::met,
          parse_partition_method(o.partition));
    } catch (mpi::CollectiveError const& e) {
      throw mpi::CollectiveError(o.graph + ": " + e.what());  // still every rank's
    } catch (Error const& e) {
      throw Error(o.graph + ": " + e.what());  // the network's errors do not know its file
    }
  }();
  // The model's parameters, checked once the network is built, as one process checks them.
  mpi::collectively(comm, [&] { (void)Entry::template make<WeightStorage>(o, 0, agents, typename Entry::Inputs{}); });
  return share;
}

// What the report says of a temporal network built by shares, as graph_facts says it of the
// whole network (collective).
template <class WeightStorage>
GraphFacts timed_share_facts(Options const& o, Exec const& exec, MPI_Comm comm,
                             LocalGraph<Memory, WeightStorage> const& local,
                             TemporalNetwork<Memory, WeightStorage> const& network) {
  mpi::collectively(comm, [&] {
    for (auto const& g : network.graphs) check_weights_fit(exec, g, o.graph);
  });
  auto const [max_degree, entries] = mpi::degree_extent(exec, comm, local);
  int weighted = network.weighted() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &weighted, 1, MPI_INT, MPI_MAX, comm);
  std::uint64_t hash = 0;
  if (records_graph_hash(o)) {
    // graph_hash of the whole network, from each snapshot's shares.
    std::vector<std::uint64_t> snapshots;
    for (auto const& g : network.graphs) {
      auto part = local;
      part.graph = g;
      snapshots.push_back(mpi::graph_hash(exec, comm, part));
    }
    hash = temporal_hash(network, snapshots);
  }
  return {temporal_name(o, network.num_windows(), network.graphs.size() - 1),
          static_cast<agent_index>(local.global_agents),
          entries,
          static_cast<double>(entries) / static_cast<double>(local.global_agents),
          max_degree,
          weighted != 0,
          hash,
          {}};
}
#endif

// Runs the model of `Entry` (cli/model_registry.hpp) on `sim`; an ensemble's member resumes from
// `resumed`, the checkpoint its rank opened once for all its members, where given.
template <class Entry, class Sim>
JobResult run_model(Options const& o, Sim& sim, typename Entry::Inputs const& inputs,
                    std::function<void(int, int)> const& progress, GraphFacts const& graph, bool distributed,
                    io::h5::File const* resumed = nullptr) {
  auto model =
      Entry::template make<typename Sim::graph_type::weight_storage>(o, sim.num_agents(), sim.num_global(), inputs);
  return simulate(o, sim, model, Entry::shown(o), progress, graph.edges, graph.hash, distributed, graph.layer_names,
                  resumed);
}

// How the run's steps run. The active threshold's none: Herd's default for the backend, the model
// and the graph (chosen by the simulation).
template <class Entry>
StepOptions step_options(Options const& o) {
  StepOptions s;
  s.schedule = parse_schedule(o.schedule);
  s.gather_ahead = parse_gather_ahead(o.gather_ahead);
  s.binned_push = binned_push(o);
  s.stepping = steps_active_v<Entry> ? parse_stepping(o.stepping) : Stepping::pull;
  if (o.active_threshold > 0) s.active_threshold = o.active_threshold;
  return s;
}

// How the run's steps chose their agents; under mpiexec summed over ranks (each rank chooses for
// itself: a step counts once per rank) and the active share of all agents (collective).
template <class Sim>
void record_stepping(JobResult& result, Options const& o, Sim const& sim, bool distributed) {
  auto const& stats = sim.stepping_stats();
  // Agents stepped, over all steps, and the ranks that bin pushes, read spreader bits, add by
  // weight codes.
  std::vector<double> sums = {static_cast<double>(stats.steps),
                              static_cast<double>(stats.active_steps),
                              stats.active_share_sum * static_cast<double>(sim.num_owned()),
                              sim.bins_pushes() ? 1.0 : 0.0,
                              result.spreader_bits ? 1.0 : 0.0,
                              result.weight_codes ? 1.0 : 0.0};
#if HERD_ENABLE_MPI
  if (distributed)
    MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM, world());
#else
  (void)distributed;
#endif
  // What the steps did: a temporal network's are pulled whatever --stepping asked, and pulled
  // steps have no threshold.
  bool const pulled = sim.options().stepping == Stepping::pull;
  result.stepping = pulled ? "pull" : o.stepping;
  result.active_threshold = pulled ? 0.0 : sim.active_threshold();
  result.binned_push = sums[3] > 0;
  result.spreader_bits = sums[4] > 0;
  result.weight_codes = sums[5] > 0;
  result.steps_counted = static_cast<long long>(sums[0]);
  result.active_steps = static_cast<long long>(sums[1]);
  double const agent_steps = static_cast<double>(stats.steps) * static_cast<double>(sim.num_global());
  result.mean_active_share = agent_steps > 0 ? sums[2] / agent_steps : 1.0;
}

// Relabels `graph`'s agents by --reorder, in place, and returns their global ids (empty without
// a reordering: the ids are the indices).
template <class Graph>
Kokkos::View<global_id*, Memory> reorder(Options const& o, Exec const& exec, Graph& graph) {
  Kokkos::View<global_id*, Memory> ids;
  if (o.reorder == "none") return ids;
  auto permutation = compute_ordering(exec, graph, parse_ordering(o.reorder), o.graph_seed);
  graph = permute(exec, graph, permutation);
  return global_ids_of(exec, permutation);
}

// The entries a temporal network's snapshots hold over steps (first, last] (what the steps read).
template <class Network>
double snapshot_entries(Network const& network, long long first, int last) {
  double entries = 0;
  for (long long t = first + 1; t <= last; ++t)
    entries += static_cast<double>(network.graphs[network.graph_of_step(static_cast<std::uint64_t>(t))].num_edges());
  return entries;
}

// The simulation of one run: on a temporal network's snapshots (which it shares with other runs),
// or on `graph` with its global ids.
template <class WeightStorage>
Simulation<Exec, WeightStorage> simulation_of(Exec const& exec,
                                              std::optional<TemporalNetwork<Memory, WeightStorage>> const& temporal,
                                              CsrGraph<Memory, WeightStorage> const& graph, std::uint64_t seed,
                                              StepOptions const& options, Kokkos::View<global_id*, Memory> const& ids) {
  if (temporal) return Simulation<Exec, WeightStorage>(exec, *temporal, seed, options);
  return Simulation<Exec, WeightStorage>(exec, graph, seed, options, ids);
}

template <class WeightStorage, class Entry>
JobResult run_single(Options const& o, Entry, std::function<void(int, int)> const& progress) {
  Exec exec;
  Kokkos::Timer setup;
  auto input = make_graph<WeightStorage>(o, exec, world());
  auto const inputs = Entry::read_inputs(o, input, world());
  auto const facts = graph_facts(o, input, exec);
  double const graph_seconds = setup.seconds();
  // The simulation's graph from here: a reordering replaces it rather than keeping the graph as
  // built beside it through the run.
  auto graph = input.graph;
  input.graph = {};
  auto const ids = reorder(o, exec, graph);
  Kokkos::Timer preparation;
  auto sim = simulation_of(exec, input.temporal, graph, o.seed, step_options<Entry>(o), ids);
  if (input.temporal) graph = {};  // every pair that ever met: the steps read the snapshots
  auto const* const network = sim.temporal_network();
  double const simulation_seconds = preparation.seconds();
  double const setup_seconds = setup.seconds();
  JobResult result = run_model<Entry>(o, sim, inputs, progress, facts, false);
  result.setup_seconds = setup_seconds;
  if (network) result.edges_read = snapshot_entries(*network, result.first_step, o.steps);
  if (steps_active_v<Entry>) record_stepping(result, o, sim, false);
  describe(result, facts, exec, to_string(sim.plan().schedule));
  RankStats only;
  only.owned = result.agents;
  only.edges = result.edges;
  only.step_seconds = result.step_seconds;
  only.graph_seconds = graph_seconds;
  only.simulation_seconds = simulation_seconds;
  only.peak_memory_bytes = peak_resident_bytes();
  result.ranks.push_back(only);
  return result;
}

// Checks each point of an ensemble's sweep against a graph of `agents` agents and the model's
// inputs, by making its model (`base`: member_base(o)). Replicates differ by their seeds only.
template <class WeightStorage, class Entry>
void check_points(Options const& o, Options const& base, global_id agents, typename Entry::Inputs const& inputs) {
  for (long long m = 0; m < sweep_points(o) * o.replicates; m += o.replicates) {
    try {
      (void)Entry::template make<WeightStorage>(member_options(o, base, m), 0, agents, inputs);
    } catch (Error const& e) {
      // A message naming an option the sweep sets names the point the user gave through --sweep.
      std::string const what = e.what();
      bool swept = false;
      for (auto const& axis : o.sweep) {
        std::string const option = "--" + axis.name;
        swept = swept || what.find(option + " ") != std::string::npos || what.find(option + ":") != std::string::npos;
      }
      if (!swept) throw;
      throw Error(std::string("--sweep point ").append(point_text(o, m / o.replicates)).append(": ").append(what));
    }
  }
}

#if HERD_ENABLE_HDF5
// The record an ensemble's checkpoint begins with: the run's at its last step, with its members.
template <class WeightStorage, class Entry>
io::RunRecord ensemble_record(Options const& o, Options const& base, GraphFacts const& facts, long long members) {
  auto record = run_record(
      o, static_cast<std::uint64_t>(facts.agents), facts.edges, facts.hash,
      Entry::template make<WeightStorage>(base, 0, facts.agents, typename Entry::Inputs{}).observable_names());
  record.step = static_cast<std::uint32_t>(o.steps);
  record.members = static_cast<std::uint64_t>(members);
  return record;
}
#endif

// An ensemble: member m on rank m mod P, every rank holding the whole graph; the members' counts
// reach rank 0 in one gather. Each point's parameters are checked before any member runs, and a
// failure on one rank fails them all (collective).
template <class WeightStorage, class Entry>
JobResult run_ensemble(Options const& o, Entry, std::function<void(int, int)> const& progress) {
  Exec exec;
  int rank = 0, size = 1;
#if HERD_ENABLE_MPI
  MPI_Comm_rank(world(), &rank);
  MPI_Comm_size(world(), &size);
  auto const together = [&](auto&& f) { return size > 1 ? mpi::collectively(world(), f) : f(); };
#else
  auto const together = [](auto&& f) { return f(); };
#endif
  long long const members = sweep_points(o) * o.replicates;
  Options const base = member_base(o);
  Kokkos::Timer setup;
  auto input = together([&] {
    check_ensemble_fits(members, o.steps, o.max_memory);
    return make_graph<WeightStorage>(o, exec, world());
  });
  auto const inputs = together([&] {
    auto read = Entry::read_inputs(o, input, world());
    check_points<WeightStorage, Entry>(o, base, input.graph.num_agents(), read);
    return read;
  });
  auto const facts = graph_facts(o, input, exec);
  double const graph_seconds = setup.seconds();
  auto graph = input.graph;
  input.graph = {};
  auto const ids = together([&] { return reorder(o, exec, graph); });
  double const setup_seconds = setup.seconds();
  JobResult result;
  std::string schedule;
  std::vector<std::int64_t> mine;  // this rank's members' counts, one after another
  long long made = 0;              // the steps they made (fewer than their steps where resumed)
  // The members' time in all: each one's simulation and initial state as well as its steps.
  Kokkos::Timer loop;
  together([&] {
    using Model = std::decay_t<decltype(Entry::template make<WeightStorage>(
        o, agent_index{}, global_id{}, std::declval<typename Entry::Inputs const&>()))>;
    // With --stepping pull, members of a model that counts its spreaders, on an unweighted graph
    // whose counts fit a byte, share each step's pass over the graph (herd::run_together).
    // Otherwise each member steps as its single run would (with its own active set under
    // --stepping auto), one member after another: on a CPU the active sets' steps cost less than
    // shared pulls while an epidemic is small (docs/ensembles.md, "Cost").
    if constexpr (counts_spreaders_v<Model>) {
      if (o.stepping == "pull" && o.scenario.empty() && !input.temporal && o.checkpoint.empty() && o.resume.empty() &&
          SharedSpreaderCounts<Exec>::applies<Model>(facts.weighted, facts.max_degree)) {
        // This rank's members in groups that share each step's pass over the graph.
        std::vector<long long> own;
        for (long long m = rank; m < members; m += size) own.push_back(m);
        for (std::size_t first = 0; first < own.size(); first += SharedSpreaderCounts<Exec>::max_members) {
          std::size_t const last = std::min(own.size(), first + SharedSpreaderCounts<Exec>::max_members);
          std::vector<Simulation<Exec, WeightStorage>> sims;
          std::vector<Model> models;
          for (std::size_t k = first; k < last; ++k) {
            auto const mo = member_options(o, base, own[k]);
            sims.emplace_back(exec, graph, mo.seed, step_options<Entry>(mo), ids);  // pull, as asked
            models.push_back(
                Entry::template make<WeightStorage>(mo, sims.back().num_agents(), sims.back().num_global(), inputs));
            models.back().initialise(sims.back(), sims.back().num_global());
          }
          auto const histories = run_together(sims, models, o.steps);
          for (std::size_t k = 0; k < histories.size(); ++k) {
            auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), histories[k]);
            JobResult run;
            take_counts(run, models[k].observable_names(), Entry::shown(o),
                        std::vector<std::int64_t>(host.data(), host.data() + host.size()));
            result.columns = run.columns;
            for (auto const& row : run.counts) mine.insert(mine.end(), row.begin(), row.end());
          }
          schedule = to_string(sims.front().plan().schedule);
          result.shared_passes = true;
          progress(static_cast<int>(std::min(members - 1, own[last - 1] + size)), static_cast<int>(members));
        }
        return;
      }
    }
    io::h5::File const* resumes = nullptr;
#if HERD_ENABLE_HDF5
    // Each rank opens the checkpoint it resumes once, for all its members.
    std::optional<io::h5::File> resumed;
    together([&] {
      if (!o.resume.empty()) resumed.emplace(io::h5::File::open(o.resume, MPI_COMM_SELF));
    });
    if (resumed) resumes = &*resumed;
    // Each round's members, one per rank, are written to the checkpoint once all have run.
    std::optional<EnsembleCheckpoint> checkpoint;
    if (!o.checkpoint.empty()) {
      // Made on every rank alike before the file is begun, which every rank must reach.
      auto const record = together([&] { return ensemble_record<WeightStorage, Entry>(o, base, facts, members); });
      checkpoint.emplace(o.checkpoint, record, o.checkpoint_every, world());
    }
#endif
    for (long long round = 0; round < members; round += size) {
      long long const m = round + rank;
      JobResult run;
      // A member that fails fails the round on every rank, before the states are gathered.
      together([&] {
        if (m >= members) return;
        auto const mo = member_options(o, base, m);
        auto sim = simulation_of(exec, input.temporal, graph, mo.seed, step_options<Entry>(mo), ids);
        auto const no_progress = [](int, int) {};
        run = run_model<Entry>(mo, sim, inputs, no_progress, facts, false, resumes);
        result.columns = run.columns;
        schedule = to_string(sim.plan().schedule);
        for (auto const& row : run.counts) mine.insert(mine.end(), row.begin(), row.end());
        // Then what its events did: each one's agents.
        auto const totals = event_totals(run.events);
        mine.insert(mine.end(), totals.begin(), totals.end());
        if (result.events.empty()) result.events = event_schedule(run.events);
      });
      if (m < members) made += o.steps - run.first_step;
#if HERD_ENABLE_HDF5
      if (checkpoint) checkpoint->write_round(run.member_state.get());
#endif
      // Rank 0's members are 0, P, 2P, ...: the others have run about as many.
      progress(static_cast<int>(std::min(members, round + size)), static_cast<int>(members));
    }
#if HERD_ENABLE_HDF5
    if (checkpoint) result.outputs->add(checkpoint->finish());
#endif
  });
  result.step_seconds = loop.seconds();
  if (!o.resume.empty()) result.member_steps = made;  // rank 0's, the busiest
  // Rank k holds members k, k + P, ...: their counts, then their events' agents, go to rank 0 one
  // rank after another. Every rank that ran a member knows the scenario's events.
  std::size_t const columns = Entry::shown(o).size();
  auto events = static_cast<unsigned long long>(result.events.size());
#if HERD_ENABLE_MPI
  if (size > 1) MPI_Allreduce(MPI_IN_PLACE, &events, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, world());
#endif
  std::size_t const per_member = static_cast<std::size_t>(o.steps + 1) * columns + events;
  std::vector<std::size_t> held(static_cast<std::size_t>(size)), first(static_cast<std::size_t>(size) + 1, 0);
  for (std::size_t k = 0; k < held.size(); ++k) {
    auto const r = static_cast<long long>(k);
    held[k] = r < members ? static_cast<std::size_t>((members - r + size - 1) / size) * per_member : 0;
    first[k + 1] = first[k] + held[k];
  }
  std::vector<std::int64_t> all = mine;
#if HERD_ENABLE_MPI
  if (size > 1) {
    // Counted in members (at most a million), not in values, which could exceed an int.
    MPI_Datatype member_counts;
    MPI_Type_contiguous(static_cast<int>(per_member), MPI_INT64_T, &member_counts);
    MPI_Type_commit(&member_counts);
    std::vector<int> sizes(held.size()), offsets(held.size());
    for (std::size_t k = 0; k < held.size(); ++k) {
      sizes[k] = static_cast<int>(held[k] / per_member);
      offsets[k] = static_cast<int>(first[k] / per_member);
    }
    all.assign(rank == 0 ? first.back() : 0, 0);
    MPI_Gatherv(mine.data(), static_cast<int>(mine.size() / per_member), member_counts, all.data(), sizes.data(),
                offsets.data(), member_counts, 0, world());
    MPI_Type_free(&member_counts);
    MPI_Allreduce(MPI_IN_PLACE, &result.step_seconds, 1, MPI_DOUBLE, MPI_MAX, world());
  }
#endif
  progress(static_cast<int>(members), static_cast<int>(members));
  for (long long m = 0; rank == 0 && m < members; ++m) {
    MemberRun run;
    run.member = m;
    run.seed = replicate_seed(o.seed, static_cast<std::uint64_t>(m % o.replicates));
    auto row = all.begin() + static_cast<std::ptrdiff_t>(first[static_cast<std::size_t>(m % size)] +
                                                         static_cast<std::size_t>(m / size) * per_member);
    for (int t = 0; t <= o.steps; ++t, row += static_cast<std::ptrdiff_t>(columns))
      run.counts.emplace_back(row, row + static_cast<std::ptrdiff_t>(columns));
    run.event_agents.assign(row, row + static_cast<std::ptrdiff_t>(events));
    result.members.push_back(std::move(run));
  }
  result.setup_seconds = setup_seconds;
  describe(result, facts, exec, schedule);
  RankStats only;
  only.owned = result.agents;
  only.edges = result.edges;
  only.step_seconds = result.step_seconds;
  only.graph_seconds = graph_seconds;
  only.peak_memory_bytes = peak_resident_bytes();
  result.ranks.push_back(only);
  result.rank_zero = rank == 0;
  result.member_ranks = size;
  return result;
}

#if HERD_ENABLE_MPI
// This rank's share of a distributed run's graph, with what the report says of it, what the model
// reads per agent, and how long making each took.
template <class WeightStorage, class Entry>
struct DistributedInput {
  GraphFacts facts;
  typename Entry::Inputs inputs;
  LocalGraph<Memory, WeightStorage> local;
  std::optional<TemporalNetwork<Memory, WeightStorage>> network;  ///< this rank's snapshots, with --window
  double graph_seconds = 0.0, partition_seconds = 0.0, local_graph_seconds = 0.0;
};

// Makes this rank's share of the graph --graph names, as --partition splits it; checks the model's
// parameters (`o`'s) against it (collective).
template <class WeightStorage, class Entry>
DistributedInput<WeightStorage, Entry> distributed_input(Options const& o, Exec const& exec, MPI_Comm comm) {
  int const size = mpi::size_of(comm);
  Kokkos::Timer setup;
  DistributedInput<WeightStorage, Entry> in;
  bool reads_share = false, reads_rows = false, makes_population = false, reads_timed = false;
  bool symmetric = false;  // whether every row entry is also stored the other way (a partitioner's input)
  // --attributes, each rank reading its part of the table first, as one process reads the table
  // before the graph: its rows go to their agents' owners once the graph's rows are in place.
  std::optional<mpi::AttributeRows> table;
  if (!o.attributes.empty() && o.window == 0) table = mpi::read_attribute_rows(comm, o.attributes);
  auto source = mpi::collectively(comm, [&] {
    require(o.partition != "metis" || have_metis(),
            "--partition metis: this build of Herd has no METIS (configure with -DHerd_ENABLE_METIS=ON)");
    require(o.partition != "ptscotch" || have_ptscotch(),
            "--partition ptscotch: this build of Herd has no PT-Scotch (configure with -DHerd_ENABLE_PTSCOTCH=ON)");
    require(o.partition != "parmetis" || have_parmetis(),
            "--partition parmetis: this build of Herd has no ParMETIS (configure with -DHerd_ENABLE_PARMETIS=ON)");
    std::optional<EdgeSource<Memory>> share;
    // A timed-contact file is read by parts under every partition.
    if ((reads_timed = o.window > 0)) return share;
    if ((share = edge_source_of(o, exec))) {
      check_share_fits(o, size, static_cast<double>(o.agents), static_cast<double>(o.agents) * o.mean_degree);
      (void)Entry::template make<WeightStorage>(o, 0, share->agents, typename Entry::Inputs{});
    } else if ((makes_population = o.graph == "population")) {
      // Held while building: what makes the rank's edges (its households, its groups' members,
      // its agents' ages), about 24 bytes an agent.
      check_share_fits(o, size, static_cast<double>(o.agents), static_cast<double>(o.agents) * 10.0,
                       24.0 * static_cast<double>(o.agents) / size);
      (void)Entry::template make<WeightStorage>(o, 0, static_cast<agent_index>(o.agents), typename Entry::Inputs{});
    } else {
      reads_share = is_edge_list_file(o);
      // A population file, refused with --attributes (check_graph_file).
      reads_rows = !reads_share && !is_generator(o.graph);
    }
    return share;
  });
  // Not inside collectively: building and reading by shares run collectives of their own, and
  // fail on every rank together.
  if (source) {
    // Each rank makes a share of the edges and builds its own rows: no rank holds the graph.
    in.local = mpi::build_local_graph<WeightStorage>(exec, comm, *source);
    symmetric = true;  // built with BuildOptions' symmetrise
    source.reset();    // a power-law source holds 8 bytes per agent of the whole graph
    in.graph_seconds = setup.seconds();
    in.facts = share_facts(o, exec, comm, in.local, *layer_names_of(o, comm));
  } else if (makes_population) {
    // Each rank makes the households, group members and contacts of its part of the population.
    in.local = population_share<WeightStorage>(o, exec, comm);
    symmetric = true;
    in.graph_seconds = setup.seconds();
    in.facts = share_facts(o, exec, comm, in.local, *layer_names_of(o, comm));
  } else if (reads_timed) {
    // Each rank reads its part of the file, and each contact travels to the owners of its agents,
    // which build their rows of every snapshot: no rank holds the file or the whole network.
    auto share = timed_share<WeightStorage, Entry>(o, exec, comm);
    in.local = std::move(share.local);
    in.network = std::move(share.network);
    in.partition_seconds = share.partition_seconds;
    in.graph_seconds = setup.seconds() - in.partition_seconds;
    in.facts = timed_share_facts(o, exec, comm, in.local, *in.network);
  } else if (reads_share || reads_rows) {
    // Each rank reads its part of the file (the lines of its byte range, or its block of rows)
    // and builds its own rows.
    std::vector<std::string> names;
    in.local = reads_share ? read_share<WeightStorage, Entry>(o, exec, comm, symmetric, names, table)
                           : read_population_share<WeightStorage, Entry>(o, exec, comm);
    // A population file's rows found both ways go to the partitioner as they are, not symmetrised again.
    if (reads_rows) symmetric = in.local.mirrored;
    in.graph_seconds = setup.seconds();
    in.facts = share_facts(o, exec, comm, in.local, reads_share ? std::move(names) : *layer_names_of(o, comm));
  }
  // A temporal share is partitioned as it is built, with its snapshots.
  if (partitions_shares(o) && size > 1 && !reads_timed)
    in.local = repartition(o, exec, comm, std::move(in.local), symmetric, in.partition_seconds, in.local_graph_seconds);
  // A table of ids alone has no rows to hand on; the model refuses it as one process does (but
  // where a checkpoint of an earlier version's run resumes).
  bool const given_table = table.has_value() && !ids_alone_resumed(o, table->table);
  if (table && table->table.columns.empty()) table.reset();
  if constexpr (Entry::reads_attributes) {
    // Each rank takes its owned agents' attributes alone, wherever the partition put them: part
    // of reading the files.
    if (reads_rows || given_table) {
      Kokkos::Timer read;
      auto const owned =
          Details::copy_from<global_id>(Kokkos::subview(in.local.ids, std::make_pair(agent_index{0}, in.local.owned)));
      AttributeTable mine;
      if (table) mine = mpi::owned_attribute_rows(comm, *table, in.local.global_agents, owned, o.attributes);
      table.reset();
      in.inputs = mpi::collectively(
          comm, [&] { return Entry::read_owned_inputs(o, owned, in.local.global_agents, mine, comm); });
      in.graph_seconds += read.seconds();
    }
  }
  return in;
}

// The halo of this rank's share, as the options set it (collective: plans the halo).
template <class WeightStorage>
mpi::Ghosts<Exec, WeightStorage> ghosts_of(Options const& o, Exec const& exec, MPI_Comm comm,
                                           LocalGraph<Memory, WeightStorage> local) {
  mpi::DistributedOptions options;
  options.overlap = o.overlap;
  options.exchange_every = o.exchange_every;
  options.device_buffers = o.device_buffers;
  options.sparse_halo = o.sparse_halo;
  return mpi::Ghosts<Exec, WeightStorage>(exec, comm, std::move(local), options);
}

// A simulation of seed `seed` on this rank's share of the graph, or of its snapshots (collective).
template <class WeightStorage, class Entry>
mpi::DistributedSimulation<Exec, WeightStorage> distributed_simulation(Options const& o, Exec const& exec,
                                                                       mpi::Ghosts<Exec, WeightStorage> ghosts,
                                                                       DistributedInput<WeightStorage, Entry> const& in,
                                                                       std::uint64_t seed) {
  if (in.network)
    return mpi::DistributedSimulation<Exec, WeightStorage>(exec, std::move(ghosts), *in.network, seed,
                                                           step_options<Entry>(o));
  return mpi::DistributedSimulation<Exec, WeightStorage>(exec, std::move(ghosts), seed, step_options<Entry>(o));
}

// What a rank's halo sent and spent, over one or more runs.
struct HaloTotals {
  double pack = 0.0, wait = 0.0, unpack = 0.0;
  double messages_sent = 0.0, bytes_sent = 0.0;
  template <class Sim>
  void add(Sim const& sim) {
    auto const& t = sim.distribution().halo().times();
    pack += t.pack;
    wait += t.wait;
    unpack += t.unpack;
    messages_sent += static_cast<double>(t.messages_sent);
    bytes_sent += static_cast<double>(t.bytes_sent);
  }
};

// Each rank's figures, gathered on rank 0 into result.ranks; the run's step and setup seconds
// become its slowest rank's (collective).
template <class WeightStorage, class Entry>
void gather_ranks(JobResult& result, LocalGraph<Memory, WeightStorage> const& share,
                  DistributedInput<WeightStorage, Entry> const& in, HaloTotals const& halo, double halo_plan_seconds,
                  double simulation_seconds, MPI_Comm comm) {
  int const rank = mpi::rank_of(comm), size = mpi::size_of(comm);
  constexpr int fields = 17;
  std::vector<double> mine = {static_cast<double>(share.owned),
                              static_cast<double>(share.ghosts()),
                              static_cast<double>(share.graph.num_edges()),
                              static_cast<double>(share.cut_edges),
                              static_cast<double>(share.ghost_owners.size()),
                              result.step_seconds,
                              halo.pack,
                              halo.wait,
                              halo.unpack,
                              halo.messages_sent,
                              halo.bytes_sent,
                              in.graph_seconds,
                              in.partition_seconds,
                              in.local_graph_seconds,
                              halo_plan_seconds,
                              static_cast<double>(peak_resident_bytes()),
                              simulation_seconds};
  std::vector<double> all(rank == 0 ? static_cast<std::size_t>(fields * size) : 0);
  MPI_Gather(mine.data(), fields, MPI_DOUBLE, all.data(), fields, MPI_DOUBLE, 0, comm);
  double slowest = 0.0;
  MPI_Allreduce(&result.step_seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  result.step_seconds = slowest;
  MPI_Allreduce(&result.setup_seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  result.setup_seconds = slowest;
  for (int r = 0; r < (rank == 0 ? size : 0); ++r) {
    double const* f = all.data() + static_cast<std::size_t>(r) * fields;
    RankStats s;
    s.owned = static_cast<long long>(f[0]);
    s.ghosts = static_cast<long long>(f[1]);
    s.edges = static_cast<unsigned long long>(f[2]);
    s.cut_edges = static_cast<unsigned long long>(f[3]);
    s.neighbours = static_cast<int>(f[4]);
    s.step_seconds = f[5];
    s.pack_seconds = f[6];
    s.wait_seconds = f[7];
    s.unpack_seconds = f[8];
    s.messages_sent = static_cast<long long>(f[9]);
    s.bytes_sent = static_cast<long long>(f[10]);
    s.graph_seconds = f[11];
    s.partition_seconds = f[12];
    s.local_graph_seconds = f[13];
    s.halo_plan_seconds = f[14];
    s.peak_memory_bytes = static_cast<long long>(f[15]);
    s.simulation_seconds = f[16];
    result.ranks.push_back(s);
  }
  result.rank_zero = rank == 0;
}

template <class WeightStorage, class Entry>
JobResult run_distributed(Options const& o, Entry, std::function<void(int, int)> const& progress, MPI_Comm comm) {
  Exec exec;
  int const rank = mpi::rank_of(comm);
  Kokkos::Timer setup;
  auto const in = distributed_input<WeightStorage, Entry>(o, exec, comm);
  Kokkos::Timer phase;
  auto ghosts = ghosts_of(o, exec, comm, in.local);
  double const halo_plan_seconds = phase.seconds();
  phase.reset();
  auto sim = distributed_simulation(o, exec, std::move(ghosts), in, o.seed);
  double const simulation_seconds = phase.seconds();
  double const setup_seconds = setup.seconds();
  auto const rank_progress = [&](int step, int steps) {
    if (rank == 0) progress(step, steps);
  };
  // Inputs were checked collectively above: what fails from here on fails on one rank, and the
  // herd command aborts the job.
  JobResult result = run_model<Entry>(o, sim, in.inputs, rank_progress, in.facts, true);
  result.setup_seconds = setup_seconds;
  if (in.network) {
    result.edges_read = snapshot_entries(*in.network, result.first_step, o.steps);
    MPI_Allreduce(MPI_IN_PLACE, &result.edges_read, 1, MPI_DOUBLE, MPI_SUM, comm);
  }
  describe(result, in.facts, exec, to_string(sim.plan().schedule));
  // Whether the pull steps asked for their neighbours' values ahead on some rank: each decides
  // from its own stored agents, and simulate() recorded this rank's choice.
  int gathers = result.gather_ahead ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &gathers, 1, MPI_INT, MPI_MAX, comm);
  result.gather_ahead = gathers != 0;
  if (steps_active_v<Entry>) record_stepping(result, o, sim, true);
  HaloTotals halo;
  halo.add(sim);
  // The share as built: a temporal network's simulation holds the window it stepped last.
  gather_ranks(result, in.local, in, halo, halo_plan_seconds, simulation_seconds, comm);
  return result;
}

// An ensemble on a graph distributed over the ranks (--partition): every rank holds its share of
// the graph, made once with the transpose its listed steps push through, and the members run one
// after another on all the ranks, each as its distributed run (the same bits as its single run).
// Rank 0 keeps the members' counts, which every rank's history sums.
template <class WeightStorage, class Entry>
JobResult run_ensemble_over_ranks(Options const& o, Entry, std::function<void(int, int)> const& progress,
                                  MPI_Comm comm) {
  Exec exec;
  int const rank = mpi::rank_of(comm);
  long long const members = sweep_points(o) * o.replicates;
  Options const base = member_base(o);
  Kokkos::Timer setup;
  auto const in = distributed_input<WeightStorage, Entry>(o, exec, comm);
  // Each point's parameters, checked against the graph before any member runs, on every rank.
  mpi::collectively(comm, [&] {
    check_ensemble_fits(members, o.steps, o.max_memory);
    check_points<WeightStorage, Entry>(o, base, in.facts.agents, in.inputs);
  });
  // Listed steps push through a transpose of the rank's rows: made once, for every member, where
  // the steps may be listed (a model that declares its activity, not pulled, on a static graph).
  std::optional<CsrGraph<Memory, WeightStorage>> transposed;
  if (steps_active_v<Entry> && o.stepping != "pull" && !in.network) transposed = transpose_share(exec, in.local);
  double const setup_seconds = setup.seconds();
  JobResult result;
  std::string schedule;
  HaloTotals halo;
  double halo_plan_seconds = 0.0, simulation_seconds = 0.0;
  Kokkos::Timer loop;
#if HERD_ENABLE_HDF5
  // Each member's states meet on rank 0 when it has run, which writes them as the other layouts do.
  std::optional<EnsembleCheckpoint> checkpoint;
  if (!o.checkpoint.empty()) {
    checkpoint.emplace(
        o.checkpoint,
        mpi::collectively(comm, [&] { return ensemble_record<WeightStorage, Entry>(o, base, in.facts, members); }),
        o.checkpoint_every, comm);
  }
#endif
  long long made = 0;  // member-steps (fewer than members × steps where resumed)
  for (long long m = 0; m < members; ++m) {
    auto const mo = member_options(o, base, m);
    Kokkos::Timer phase;
    auto ghosts = ghosts_of(mo, exec, comm, in.local);
    if (transposed) ghosts.share_transpose(*transposed);
    halo_plan_seconds += phase.seconds();
    phase.reset();
    auto sim = distributed_simulation(mo, exec, std::move(ghosts), in, mo.seed);
    simulation_seconds += phase.seconds();
    auto const no_progress = [](int, int) {};
    auto const run = run_model<Entry>(mo, sim, in.inputs, no_progress, in.facts, true);
    made += o.steps - run.first_step;
    result.columns = run.columns;
    schedule = to_string(sim.plan().schedule);
    halo.add(sim);
#if HERD_ENABLE_HDF5
    if (checkpoint) checkpoint->write_round(run.member_state.get());
#endif
    if (rank == 0) {
      MemberRun member;
      member.member = m;
      member.seed = mo.seed;
      member.counts = run.counts;
      member.event_agents = event_totals(run.events);
      if (result.events.empty()) result.events = event_schedule(run.events);
      result.members.push_back(std::move(member));
      progress(static_cast<int>(m + 1), static_cast<int>(members));
    }
  }
#if HERD_ENABLE_HDF5
  if (checkpoint) result.outputs->add(checkpoint->finish());
#endif
  result.step_seconds = loop.seconds();
  if (!o.resume.empty()) result.member_steps = made;
  result.setup_seconds = setup_seconds;
  describe(result, in.facts, exec, schedule);
  gather_ranks(result, in.local, in, halo, halo_plan_seconds, simulation_seconds, comm);
  result.member_ranks = 1;
  result.graph_ranks = mpi::size_of(comm);
  return result;
}
#endif

// Reads the scenario file to refuse a bad one before the graph is built: its events are tried on
// a model of no agents, as the run's Interventions try them.
template <class Entry>
void check_scenario(Options const& o) {
  auto const names = layer_names_of(o, world());
  auto const scenario = read_scenario(o.scenario, *o.scenario_text, o.steps, continues(o), names);
  check_scenario_fits(o.scenario, scenario.events.size(), o.steps, o.max_memory);
  for (std::size_t k = 0; k < scenario.events.size(); ++k) {
    if (scenario.events[k].by_priority && !model_has_age_groups(o.model))
      throw Error(o.scenario + ": " + event_name(scenario, k) + ": the order oldest-first needs agents' ages, which " +
                  o.model + " does not keep (covid does)");
    if (scenario.events[k].kind == ScenarioEvent::Kind::isolate && names && names->empty())
      throw Error(o.scenario + ": " + event_name(scenario, k) +
                  ": isolation closes contacts by their layer, and the graph has no layers");
  }
  // Each point of a sweep runs the events with its own parameters: a swept gamma makes the period
  // geometric, which a fixed default would refuse to set. Only the sets depend on the point (the
  // other events on the model alone, and they change no parameter), so the first point checks
  // every event and the others the sets alone.
  Options const base = o.sweep.empty() ? o : member_base(o);
  Scenario sets;
  sets.layer_names = scenario.layer_names;
  std::copy_if(scenario.events.begin(), scenario.events.end(), std::back_inserter(sets.events),
               [](ScenarioEvent const& e) { return e.kind == ScenarioEvent::Kind::set; });
  auto const failure = [&](long long point, Scenario const& events) -> std::optional<std::string> {
    // The point's model, made as its run makes it: an error of its own is not the scenario's.
    Options const p = o.sweep.empty() ? o : member_options(o, base, point * o.replicates);
    auto model = Entry::template make<float>(p, 0, std::numeric_limits<global_id>::max(), typename Entry::Inputs{});
    try {
      herd::check(events, model);
    } catch (Error const& e) {
      return std::string(e.what());
    }
    return std::nullopt;
  };
  auto const refuse = [&](std::string const& what, std::optional<long long> point) {
    throw Error(o.scenario + ": " + what + (point ? " (--sweep point " + point_text(o, *point) + ")" : std::string()));
  };
  long long const points = sweep_points(o);
  if (auto const first = failure(0, scenario)) {
    // Named as the point's where the point is at fault: a set that another point takes.
    bool const by_point = failure(0, sets).has_value() && [&] {
      for (long long point = 1; point < points; ++point)
        if (!failure(point, sets)) return true;
      return false;
    }();
    refuse(*first, by_point ? std::optional<long long>(0) : std::nullopt);
  }
  if (sets.empty()) return;
  for (long long point = 1; point < points; ++point)
    if (failure(point, sets)) refuse(failure(point, scenario).value_or("a set event failed"), point);
}

}  // namespace detail

/// Runs `o` with the model of `Entry` (collective under mpiexec).
template <class Entry>
JobResult run_entry(Options const& given, std::function<void(int, int)> const& progress) {
  using namespace detail;
  Entry const entry{};
  Options o = given;
  // A bad scenario file ends the run before the graph is built (and on every rank alike).
  if (!o.scenario.empty()) {
#if HERD_ENABLE_MPI
    // Rank 0 reads the file and hands its bytes on: every rank runs the same events, and a pipe,
    // which gives its bytes once, serves them all.
    std::string text, failure;
    mpi::collectively(world(), [&] {
      if (mpi::rank_of(world()) != 0) return;
      try {
        text = *read_scenario_text(o.scenario);
      } catch (Error const& e) {
        failure = e.what();
      }
    });
    // A file that cannot be read fails every rank alike, with one process's message.
    mpi::raise_if_any_failed(world(), mpi::broadcast_text(world(), failure));
    o.scenario_text = std::make_shared<std::string const>(mpi::broadcast_text(world(), text));
    mpi::collectively(world(), [&] { check_scenario<Entry>(o); });
#else
    o.scenario_text = read_scenario_text(o.scenario);
    check_scenario<Entry>(o);
#endif
  }
#if HERD_ENABLE_HDF5
  // A resumed run's fingerprints were taken and checked with its checkpoint (resume_options).
  if (!o.checkpoint.empty() && o.resume.empty()) fingerprint_inputs(o, MPI_COMM_WORLD);
#endif
#if HERD_ENABLE_MPI
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1 && is_ensemble(o) && o.graph_over_ranks)
    return o.precision == "half" ? run_ensemble_over_ranks<half>(o, entry, progress, MPI_COMM_WORLD)
                                 : run_ensemble_over_ranks<float>(o, entry, progress, MPI_COMM_WORLD);
#endif
  if (is_ensemble(o))
    return o.precision == "half" ? run_ensemble<half>(o, entry, progress) : run_ensemble<float>(o, entry, progress);
#if HERD_ENABLE_MPI
  if (size > 1)
    return o.precision == "half" ? run_distributed<half>(o, entry, progress, MPI_COMM_WORLD)
                                 : run_distributed<float>(o, entry, progress, MPI_COMM_WORLD);
#endif
  return o.precision == "half" ? run_single<half>(o, entry, progress) : run_single<float>(o, entry, progress);
}

// Compiled in job_<model>.cpp, one entry each.
extern template JobResult run_entry<EpidemicEntry>(Options const&, std::function<void(int, int)> const&);
extern template JobResult run_entry<OpinionEntry>(Options const&, std::function<void(int, int)> const&);
extern template JobResult run_entry<ConsensusEntry>(Options const&, std::function<void(int, int)> const&);
extern template JobResult run_entry<CovidEntry>(Options const&, std::function<void(int, int)> const&);

}  // namespace herd::cli
