#pragma once

// How a simulation's steps run, as opposed to what they compute: active-set stepping, asking ahead
// for the neighbours' values, spreader bits and weight codes. herd::Simulation and
// herd::mpi::DistributedSimulation make these choices alike (a distributed one for each rank, on
// its own agents) and inherit them from here. No choice changes a trajectory, only its speed.
// Here too are the step and phase counters, which number the random streams of each phase and so
// must advance alike in both.

#include <herd/engine/active_stepping.hpp>
#include <herd/engine/model_contract.hpp>
#include <herd/engine/model_traits.hpp>
#include <herd/engine/phase_kernel.hpp>
#include <herd/engine/schedule.hpp>
#include <herd/engine/spreader_bits.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace herd {

/// The choices of how the steps of a simulation run: the base of herd::Simulation and
/// herd::mpi::DistributedSimulation (`Derived`, which provides num_agents(), graph(), id_map(),
/// rng() and execution_space_instance()).
template <class Derived, class ExecutionSpace, class WeightStorage>
class StepChoices {
 public:
  using memory_space = typename ExecutionSpace::memory_space;

  /// Steps completed so far.
  std::uint32_t step() const { return step_; }
  /// Marks the end of a step: the step counter moves on and phase numbering starts again.
  void end_step() {
    active_.end_step();
    ++step_;
    phase_ = 0;
  }
  /// Sets the step counter (restarting from a saved state).
  void set_step(std::uint32_t step) { step_ = step; }

  /// How the steps pick their agents (set by the simulation's set_stepping).
  Stepping stepping() const { return active_.stepping(); }

  /// Whether pull steps on a CPU ask for their neighbours' values ahead (see GatherAhead);
  /// automatic counts the stored agents, a rank's ghosts included.
  void set_gather_ahead(GatherAhead choice) { gather_ahead_ = choice; }
  GatherAhead gather_ahead() const { return gather_ahead_; }
  /// Whether its pull steps for `model` do ask ahead: on a CPU execution space, for a model that
  /// says where it reads, as the choice says for the bytes of those values.
  template <class Model>
  bool asks_ahead(Model const& /*model*/) const {
    return Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible && gathers_ahead_v<Model> &&
           herd::gathers_ahead(gather_ahead_, derived().num_agents(), gathered_bytes_v<Model>);
  }

  /// Whether pull steps find their spreading neighbours from one bit per agent, marked before each
  /// such phase, where Details::SpreaderBits::counts says they can (on, the default), or read each
  /// neighbour's state. The trajectory is the same either way.
  void set_spreader_bits(bool on) { spreaders_.set_enabled(on); }
  bool spreader_bits() const { return spreaders_.enabled(); }
  /// Whether prepare() codes the weights of a weighted graph with at most 256 distinct weights, one
  /// byte per edge, for a model whose spreading neighbours contribute a function of the weight
  /// (counts_weighted_spreaders_v): its pull steps then add a contribution per edge from the code,
  /// masked by the spreader bit (on, the default), or read the weights of the spreading neighbours.
  /// The trajectory is the same either way.
  void set_weight_codes(bool on) { spreaders_.set_weight_codes(on); }
  bool weight_codes() const { return spreaders_.weight_codes(); }
  /// Bytes per edge the weights' codes take: 1 once prepare() made them, else 0.
  double code_bytes_per_edge() const { return spreaders_.code_bytes_per_edge(); }
  /// Whether the pull steps of `model` read spreader bits (see Details::SpreaderBits::counts),
  /// and not its neighbours' states, which they then do not ask for ahead either.
  template <class Model>
  bool reads_spreader_bits(Model const& /*model*/) const {
    return spreaders_.template counts<Model>();
  }

  /// Whether listed steps push sums through bins (CPUs; automatic: from Tuning::binned_push_min_agents,
  /// counting the owned agents).
  void set_binned_push(BinnedPush choice) { active_.set_binned_push(choice); }
  BinnedPush binned_push() const { return active_.binned_push(); }
  bool bins_pushes() const { return active_.bins_pushes(); }
  /// Whether listed steps count pushes instead of summing them (ActiveSet::counts_pushes()), for
  /// the model of the last step loop.
  bool counts_pushes() const { return active_.counts_pushes(); }
  /// The stepping choices made so far (a rank's own).
  SteppingStats const& stepping_stats() const { return active_.stats(); }
  /// The threshold of Stepping::automatic (see set_stepping), once prepare() knows the model; the
  /// default follows the graph's edges (a rank's own).
  double active_threshold() const { return active_.threshold(); }

  /// Owned agents the phases of the step under way run on (the first of the active list), or -1
  /// when they run on every owned agent. Known from before_step until end_step.
  agent_index listed_agents() const { return active_.listed(); }
  /// Adds up `model.observe` over the first `count` agents of the active list into `row`, without
  /// waiting: what the step on the list changes, observed before and after it.
  template <class Model, class Row>
  void observe_listed(Model const& model, agent_index count, Row const& row) const {
    Details::observe_list(derived().execution_space_instance(), active_.list(), count, model, row);
  }

 protected:
  StepChoices() = default;

  // The kernel of the phase under way, reading the sums the active set pushed for it, if any; the
  // caller marks its spreader bits, launches it and then calls end_phase().
  template <class Phase, class... Written>
  auto phase_kernel(Phase const& phase, Written&... written) const {
    static_assert(Details::check_model_hooks<Phase>());
    Derived const& sim = derived();
    return Details::PhaseKernel<Phase, typename Derived::graph_type, Written...>{
        phase,
        sim.graph(),
        sim.id_map(),
        {},
        0,
        0,
        sim.rng(),
        step_,
        streams::first_model_stream + phase_,
        Details::make_carry(written...),
        0,
        active_.pushed_sums(phase_),
        asks_ahead(phase),
        {},
        active_.pushed_counts(phase_),
    };
  }
  // The next phase of the step draws from the next stream.
  void end_phase() { ++phase_; }

  Details::ActiveStepping<ExecutionSpace, WeightStorage> active_;
  Details::SpreaderBits<ExecutionSpace> spreaders_;

 private:
  Derived const& derived() const { return static_cast<Derived const&>(*this); }

  GatherAhead gather_ahead_ = GatherAhead::automatic;
  std::uint32_t step_ = 0;
  std::uint32_t phase_ = 0;
};

}  // namespace herd
