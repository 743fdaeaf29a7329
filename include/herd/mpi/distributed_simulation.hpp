#pragma once

// One simulation spread over the ranks of a communicator. Each rank steps its owned agents and
// keeps ghost copies of the agents they read; models are written exactly as for herd::Simulation
// and run unchanged.
//
// A step on one rank, with overlap:
//
//   phase p:  step interior agents | wait for the ghosts written by phase p-1 | step boundary agents
//             swap buffers, pack and send what phase p wrote of neighbour-visible properties
//
// Random draws are keyed on global ids and neighbour sums are integers, so the trajectory is the
// same, bit for bit, on any number of ranks. Observables are summed over owned agents and then
// over ranks with one integer MPI_Allreduce at the end of the run.
//
// With active-set stepping each rank chooses per step, on its own, whether to pull all its owned
// agents or to step its active list (the trajectory is the same either way). The push graph is the
// transpose of the rank's graph with a row per ghost, so that ghosts that spread mark the owned
// agents that read them: the owned sources mark while the exchange in flight completes, the ghosts
// once it has, and the listed phase steps only then (the list is short). The spreading ghosts are
// carried from step to step like the owned sources, from the ghosts that the halo's sparse
// messages changed. A listed phase commits its agents in place; its sparse halo messages then look
// for changes among the listed agents only, through the plan's slots of each agent, not among every
// agent sent.

#include <herd/agents/property.hpp>
#include <herd/engine/phase_kernel.hpp>
#include <herd/engine/step_choices.hpp>
#include <herd/engine/step_plan.hpp>
#include <herd/graph/transpose.hpp>
#include <herd/mpi/collective.hpp>
#include <herd/mpi/halo.hpp>
#include <herd/partition/local_graph.hpp>
#include <herd/partition/partition.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <memory>
#include <optional>

namespace herd::mpi {

struct DistributedOptions {
  Schedule schedule = Schedule::automatic;
  bool overlap = true;          ///< step interior agents while the halo is in flight
  int exchange_every = 1;       ///< exchange ghosts after every k-th step only (k > 1: stale ghosts)
  bool device_buffers = false;  ///< GPU-aware MPI: hand device buffers to MPI instead of staging
  /// Send a neighbour only the values that changed (with their slots) when that is shorter than all
  /// of them: few bytes while few agents change. Applies when exchanging every step.
  bool sparse_halo = true;
};

/// This rank's share of `global`, a graph every rank of `comm` holds alike, partitioned into one
/// part per rank with `method`. Collective: a failure on any rank (more ranks than agents, METIS
/// missing) throws CollectiveError on every rank.
template <class ExecutionSpace, class WeightStorage>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> distribute(
    ExecutionSpace const& exec, MPI_Comm comm,
    CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& global,
    PartitionMethod method = PartitionMethod::contiguous) {
  return collectively(comm, [&] {
    auto const partition = partition_graph(exec, global, size_of(comm), method);
    return extract_local_graph(exec, global, partition, rank_of(comm));
  });
}

/// How its steps run is chosen per rank through the members of herd::StepChoices.
template <class ExecutionSpace = Kokkos::DefaultExecutionSpace, class WeightStorage = float>
class DistributedSimulation
    : public herd::StepChoices<DistributedSimulation<ExecutionSpace, WeightStorage>, ExecutionSpace, WeightStorage> {
  using Choices = herd::StepChoices<DistributedSimulation, ExecutionSpace, WeightStorage>;

 public:
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using graph_type = CsrGraph<memory_space, WeightStorage>;
  using local_graph_type = LocalGraph<memory_space, WeightStorage>;

  /// `local` is this rank's share (extract_local_graph) of a partition whose parts are the ranks
  /// of `comm`. Collective.
  DistributedSimulation(ExecutionSpace const& exec, MPI_Comm comm, local_graph_type local, std::uint64_t seed,
                        DistributedOptions const& options = {})
      : exec_(exec), local_(std::move(local)), rng_{seed}, options_(options) {
    raise_if_any_failed(
        comm, options.exchange_every >= 1 ? std::string() : "the halo exchange interval must be at least 1 step");
    interior_ = make_step_plan(exec_, local_.graph, options.schedule, default_hub_threshold(), {0, local_.interior});
    boundary_ = make_step_plan(exec_, local_.graph, options.schedule, default_hub_threshold(),
                               {local_.interior, local_.owned - local_.interior});
    halo_ = std::make_shared<Halo<ExecutionSpace>>(exec_, comm, make_halo_plan(exec_, comm, local_),
                                                   options.device_buffers);
    spreaders_ = herd::Details::SpreaderBits<ExecutionSpace>(local_.graph, num_agents());
  }

  ExecutionSpace const& execution_space_instance() const { return exec_; }
  graph_type const& graph() const { return local_.graph; }
  local_graph_type const& local_graph() const { return local_; }
  /// Agents whose properties this rank stores: owned, then ghosts (size properties with this).
  agent_index num_agents() const { return local_.local(); }
  /// Agents this rank steps.
  agent_index num_owned() const { return local_.owned; }
  global_id num_global() const { return local_.global_agents; }
  std::uint64_t seed() const { return rng_.seed; }
  CounterRng rng() const { return rng_; }
  StepPlan<memory_space> const& plan() const { return interior_; }
  Kokkos::View<global_id*, memory_space> const& global_ids() const { return local_.ids; }
  herd::Details::IdMap<memory_space> id_map() const { return {local_.ids}; }
  Halo<ExecutionSpace> const& halo() const { return *halo_; }
  MPI_Comm communicator() const { return halo_->communicator(); }
  DistributedOptions const& options() const { return options_; }

  /// As Simulation::apply. Properties written here that neighbours see travel to the ghosts of
  /// other ranks before the next phase steps the agents that read them.
  template <class Phase, class... Written>
  void apply(Phase const& phase, Written&... written) {
    auto kernel = this->phase_kernel(phase, written...);
    bool const listed = active_.listed() >= 0;
    if (listed) {
      halo_->finish();
      herd::Details::launch_listed(exec_, active_.list(), active_.listed(), kernel);
    } else if (options_.overlap) {
      // Interior agents read owned agents' bits only; the ghosts' are marked once they arrived.
      kernel.spreading = spreaders_.mark(exec_, phase, 0, num_owned());
      herd::Details::launch_phase(exec_, interior_, kernel);
      halo_->finish();
      spreaders_.mark(exec_, phase, num_owned(), num_agents());
      herd::Details::launch_phase(exec_, boundary_, kernel);
    } else {
      halo_->finish();
      kernel.spreading = spreaders_.mark(exec_, phase, 0, num_agents());
      herd::Details::launch_phase(exec_, interior_, kernel);
      herd::Details::launch_phase(exec_, boundary_, kernel);
    }
    if (!listed) (written.swap(), ...);
    HaloFields fields;
    bool const sparse = options_.sparse_halo && options_.exchange_every == 1;
    (add_if_visible(fields, written, sparse), ...);
    if (listed) {
      fields.list = active_.list().data();
      fields.listed = active_.listed();
    }
    if (fields.count > 0) {
      if ((this->step() + 1) % static_cast<std::uint32_t>(options_.exchange_every) == 0)
        halo_->start(fields);
      else if (!listed)
        (keep_ghosts(written), ...);
    }
    this->end_phase();
  }

  /// Sizes the halo's buffers for every property of `model` that neighbours read, so that the
  /// step loop allocates nothing (herd::run calls it before its loop); active-set stepping forgets
  /// what it knew of the agents and allocates its pushed sums, and the weights are coded, as
  /// Simulation::prepare. A model
  /// without for_each_property gets its buffers at its first exchange instead.
  template <class Model>
  void prepare(Model const& model) {
    active_.prepare(model);
    spreaders_.prepare(exec_, model, local_.graph);
    if constexpr (lists_properties_v<Model>) {
      HaloFields fields;
      model.for_each_property([&](auto const& property) { add_if_visible(fields, property); });
      halo_->reserve(fields);
    } else {
      (void)model;
    }
  }

  /// As Simulation::set_stepping; the push graph is always a transpose here (with rows for the
  /// ghosts, which have none in the rank's graph), as much memory as the rank's graph structure.
  /// Allocates; call it before the step loop.
  void set_stepping(Stepping stepping, std::optional<double> threshold = {}) {
    using Set = ActiveSet<ExecutionSpace, WeightStorage>;
    active_.set(
        stepping, threshold,
        stepping == Stepping::pull ? Set() : Set(exec_, transpose(exec_, local_.graph, local_.local()), local_.owned));
    halo_->record_ghost_changes(stepping != Stepping::pull);
  }

  /// As Simulation::before_step, over this rank's owned agents; before listing them it completes
  /// the exchange in flight, as the ghosts that spread mark agents too, and the halo says which
  /// ghosts changed. Waits for this rank's device and, when it lists, for its neighbours' last
  /// messages.
  template <class Model>
  void before_step(Model const& model) {
    active_.before_step(model, num_owned(), [this] {
      halo_->finish();
      return halo_->ghost_changes();
    });
  }

  /// Makes the ghost copies of `properties` current (after setting owned values on the host, or
  /// from a file). Collective.
  template <class... Properties>
  void update_ghosts(Properties&... properties) {
    halo_->finish();
    HaloFields fields;
    (fields.add(halo_field(properties)), ...);
    halo_->exchange(fields);
  }

  /// Completes the exchange in flight, if any; the next phase would otherwise do it. Collective.
  void wait_for_ghosts() { halo_->finish(); }

  /// Sums `model.observe` over owned agents into `row`, without waiting.
  template <class Model, class Row>
  void observe(Model const& model, Row const& row) const {
    herd::Details::observe_agents(exec_, "herd::observe", model, herd::Details::EveryAgent{}, num_owned(), row);
  }

  /// Completes the last exchange and sums the history of observables over ranks, in place: every
  /// rank ends with the global counts. Integer sums, so they do not depend on the rank count.
  template <class History>
  void finish(History const& history) {
    halo_->finish();
    exec_.fence();
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), history);
    MPI_Allreduce(MPI_IN_PLACE, host.data(), static_cast<int>(host.size()), MPI_INT64_T, MPI_SUM, communicator());
    Kokkos::deep_copy(history, host);
  }

 private:
  // After the swap, the other buffer holds the values of the last exchange (owned agents' values
  // sent, ghosts' received): what a sparse message is relative to. After a listed phase it holds
  // them for the listed agents only (HaloFields::list).
  template <class Property>
  static void add_if_visible(HaloFields& fields, Property const& property, bool sparse = false) {
    if (property.visibility() != Visibility::neighbours) return;
    auto field = halo_field(property);
    if (sparse) field.previous = property.next().data();
    fields.add(field);
  }

  // Without an exchange, the ghost values of the buffer that just became current are two phases
  // old; the previous buffer holds the last ones received.
  template <class Property>
  void keep_ghosts(Property const& property) const {
    if (property.visibility() != Visibility::neighbours) return;
    auto const ghosts = std::make_pair(local_.owned, local_.local());
    Kokkos::deep_copy(exec_, Kokkos::subview(property.current(), ghosts), Kokkos::subview(property.next(), ghosts));
  }

  ExecutionSpace exec_;
  local_graph_type local_;
  CounterRng rng_;
  DistributedOptions options_;
  StepPlan<memory_space> interior_, boundary_;
  std::shared_ptr<Halo<ExecutionSpace>> halo_;
  using Choices::active_;
  using Choices::spreaders_;
};

}  // namespace herd::mpi
