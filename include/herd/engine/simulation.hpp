#pragma once

#include <herd/core/kokkos_compat.hpp>
#include <herd/core/random.hpp>
#include <herd/engine/agent.hpp>
#include <herd/engine/phase_kernel.hpp>
#include <herd/engine/step_choices.hpp>
#include <herd/engine/step_plan.hpp>
#include <herd/graph/csr_graph.hpp>
#include <herd/graph/transpose.hpp>

#include <Kokkos_Core.hpp>

#include <optional>

namespace herd {

/// One simulation: a graph, the seed of its random stream, the step counter and the scheduling
/// plan. Models own their properties and advance through apply(); see herd::run for the loop. How
/// its steps run (active-set stepping, asking ahead, spreader bits) is set through the members it
/// inherits from herd::StepChoices.
template <class ExecutionSpace = Kokkos::DefaultExecutionSpace, class WeightStorage = float>
class Simulation : public StepChoices<Simulation<ExecutionSpace, WeightStorage>, ExecutionSpace, WeightStorage> {
  using Choices = StepChoices<Simulation, ExecutionSpace, WeightStorage>;

 public:
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using graph_type = CsrGraph<memory_space, WeightStorage>;

  /// `ids(i)` is the global id of local agent i; leave it empty when global ids are the indices
  /// (a single rank, no reordering).
  Simulation(ExecutionSpace const& exec, graph_type graph, std::uint64_t seed, Schedule schedule = Schedule::automatic,
             Kokkos::View<global_id*, memory_space> ids = {})
      : exec_(exec), graph_(std::move(graph)), ids_(std::move(ids)), rng_{seed} {
    require(ids_.extent(0) == 0 || ids_.extent(0) == static_cast<std::size_t>(graph_.num_agents()),
            "simulation: " + std::to_string(ids_.extent(0)) + " global ids for " + std::to_string(graph_.num_agents()) +
                " agents");
    plan_ = make_step_plan(exec_, graph_, schedule);
    spreaders_ = Details::SpreaderBits<ExecutionSpace>(graph_, num_agents());
  }

  ExecutionSpace const& execution_space_instance() const { return exec_; }
  graph_type const& graph() const { return graph_; }
  /// Agents whose properties this process stores (size properties with this).
  agent_index num_agents() const { return graph_.num_agents(); }
  /// Agents this process steps: all of them here (a distributed simulation also stores ghosts).
  agent_index num_owned() const { return graph_.num_agents(); }
  /// Agents in the whole simulation.
  global_id num_global() const { return graph_.num_agents(); }
  std::uint64_t seed() const { return rng_.seed; }
  CounterRng rng() const { return rng_; }
  StepPlan<memory_space> const& plan() const { return plan_; }
  Kokkos::View<global_id*, memory_space> const& global_ids() const { return ids_; }
  /// Device-side map from local index to global id.
  Details::IdMap<memory_space> id_map() const { return {ids_}; }

  /// Runs one phase over every agent: each reads current buffers and writes the next buffers of
  /// `written` (which keep their value for agents the phase does not set), then those swap. Phases
  /// of one step draw from separate random streams, numbered in the order they are applied.
  template <class Phase, class... Written>
  void apply(Phase const& phase, Written&... written) {
    auto kernel = this->phase_kernel(phase, written...);
    if (active_.listed() >= 0) {
      Details::launch_listed(exec_, active_.list(), active_.listed(), kernel);
    } else {
      kernel.spreading = spreaders_.mark(exec_, phase, 0, num_agents());
      Details::launch_phase(exec_, plan_, kernel);
      (written.swap(), ...);
    }
    this->end_phase();
  }

  /// Chooses how the following steps pick their agents. Stepping::active and automatic apply to
  /// models that declare their agents' activity (others are always pulled); they push from the
  /// spreading agents to the agents that read them, which on a graph that is not `symmetric`
  /// (every edge in both directions with the same weight) takes its transpose (built here, as much
  /// memory as the graph). Stepping::automatic lists a step when its pushes are estimated at most
  /// `threshold` times the agents (at most 0: never); without one, Herd's default for the backend,
  /// the model's pushes and the graph (herd::default_active_threshold). Allocates; call it before
  /// the step loop.
  void set_stepping(Stepping stepping, bool symmetric, std::optional<double> threshold = {}) {
    using Set = ActiveSet<ExecutionSpace, WeightStorage>;
    active_.set(stepping, threshold,
                stepping == Stepping::pull ? Set()
                : symmetric                ? Set(exec_, graph_, num_owned())
                                           : Set(exec_, transpose(exec_, graph_), num_owned()));
  }

  /// Readies the step loop of `model` (herd::run calls it before its loop): active-set stepping
  /// forgets what it knew of the agents, whose state may have been set since the last step, and
  /// allocates the pushed sums of a model that declares contributions (else the first active step
  /// would); a weighted graph's weights are coded for it once (set_weight_codes). Call it after changing the model's
  /// state outside the steps when stepping them one by one.
  template <class Model>
  void prepare(Model const& model) {
    active_.prepare(model);
    spreaders_.prepare(exec_, model, graph_);
  }

  /// Called before each step (herd::run does): finds the agents that may change this step and,
  /// when few enough, restricts the step's phases to them. Waits for the device (the counts of the sources and of the
  /// list).
  template <class Model>
  void before_step(Model const& model) {
    active_.before_step(model, num_owned());
  }

  /// Makes the ghost copies of `properties` current; nothing to do on one process.
  template <class... Properties>
  void update_ghosts(Properties&... /*properties*/) {}

  /// Completes a run whose observables went into `history`; nothing to do on one process (a
  /// distributed simulation sums the history over ranks here).
  template <class History>
  void finish(History const& /*history*/) {}

  /// Adds up `model.observe(i, totals)` over all agents into `row` (a device View of
  /// model.num_observables() entries) without waiting for the result.
  template <class Model, class Row>
  void observe(Model const& model, Row const& row) const {
    Details::observe_agents(exec_, "herd::observe", model, Details::EveryAgent{}, num_agents(), row);
  }

 private:
  ExecutionSpace exec_;
  graph_type graph_;
  Kokkos::View<global_id*, memory_space> ids_;
  CounterRng rng_;
  StepPlan<memory_space> plan_;
  using Choices::active_;
  using Choices::spreaders_;
};

}  // namespace herd
