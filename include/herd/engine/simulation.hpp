#pragma once

#include <herd/core/kokkos_compat.hpp>
#include <herd/core/random.hpp>
#include <herd/engine/agent.hpp>
#include <herd/engine/step_plan.hpp>
#include <herd/graph/csr_graph.hpp>

#include <Kokkos_Core.hpp>

namespace herd {

namespace Details {

// The properties a phase writes, kept together without std::tuple (not usable in device code
// everywhere).
template <class... Properties>
struct Carry {
  KOKKOS_INLINE_FUNCTION void keep(agent_index) const {}
};
template <class First, class... Rest>
struct Carry<First, Rest...> {
  First first;
  Carry<Rest...> rest;
  KOKKOS_INLINE_FUNCTION void keep(agent_index i) const {
    first.keep(i);
    rest.keep(i);
  }
};
inline Carry<> make_carry() { return {}; }
template <class First, class... Rest>
Carry<First, Rest...> make_carry(First const& first, Rest const&... rest) {
  return {first, make_carry(rest...)};
}

/// Global id of each local agent: a View, or the identity when the View is empty.
template <class MemorySpace>
struct IdMap {
  Kokkos::View<global_id const*, MemorySpace> ids;
  KOKKOS_INLINE_FUNCTION global_id operator()(agent_index i) const { return ids.extent(0) ? ids(i) : global_id{i}; }
};

// The kernel of one phase: builds each agent's context, carries the written properties over, and
// calls the user's functor.
template <class Phase, class Graph, class... Written>
struct PhaseKernel {
  Phase phase;
  Graph graph;
  IdMap<typename Graph::memory_space> ids;
  Kokkos::View<agent_index const*, typename Graph::memory_space> agents;  // empty: all, in order
  CounterRng rng;
  std::uint32_t step;
  std::uint32_t stream;
  Carry<Written...> written;
  int rows_per_team;

  KOKKOS_INLINE_FUNCTION agent_index agent(agent_index k) const { return agents.extent(0) ? agents(k) : k; }

  template <Lanes Mode, class Member>
  KOKKOS_INLINE_FUNCTION void run(agent_index i, Member const& member) const {
    Agent<Graph, Mode, Member> const a(graph, i, ids(i), rng, step, stream, member);
    a.single([&]() { written.keep(i); });
    phase(a);
  }

  // Thread schedule.
  KOKKOS_INLINE_FUNCTION void operator()(agent_index k) const { run<Lanes::thread>(agent(k), 0); }
};

template <class Kernel>
struct VectorLaunch {
  Kernel kernel;
  agent_index count;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Member const& team) const {
    agent_index const first = team.league_rank() * kernel.rows_per_team;
    agent_index const rows = count - first < kernel.rows_per_team ? count - first : kernel.rows_per_team;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows),
                         [&](agent_index r) { kernel.template run<Lanes::vector>(kernel.agent(first + r), team); });
  }
};

template <class Kernel>
struct TeamLaunch {
  Kernel kernel;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Member const& team) const {
    kernel.template run<Lanes::team>(kernel.agent(team.league_rank()), team);
  }
};

// Sums a model's per-agent observables (counts per state, say) into one row of a device View.
template <class Model>
struct ObserveKernel {
  using value_type = std::int64_t[];
  using size_type = unsigned;
  Model model;
  size_type value_count;

  KOKKOS_INLINE_FUNCTION void operator()(agent_index i, std::int64_t* totals) const { model.observe(i, totals); }
  KOKKOS_INLINE_FUNCTION void init(std::int64_t* totals) const {
    for (size_type k = 0; k < value_count; ++k) totals[k] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(HERD_JOIN_VOLATILE std::int64_t* totals,
                                   HERD_JOIN_VOLATILE std::int64_t const* part) const {
    // Not +=: a compound assignment to a volatile is deprecated in C++20.
    for (size_type k = 0; k < value_count; ++k) totals[k] = totals[k] + part[k];
  }
};

}  // namespace Details

/// One simulation: a graph, the seed of its random stream, the step counter and the scheduling
/// plan. Models own their properties and advance through apply(); see herd::run for the loop.
template <class ExecutionSpace = Kokkos::DefaultExecutionSpace, class WeightStorage = float>
class Simulation {
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
  }

  ExecutionSpace const& execution_space_instance() const { return exec_; }
  graph_type const& graph() const { return graph_; }
  agent_index num_agents() const { return graph_.num_agents(); }
  std::uint64_t seed() const { return rng_.seed; }
  CounterRng rng() const { return rng_; }
  /// Steps completed so far.
  std::uint32_t step() const { return step_; }
  StepPlan<memory_space> const& plan() const { return plan_; }
  Kokkos::View<global_id*, memory_space> const& global_ids() const { return ids_; }
  /// Device-side map from local index to global id.
  Details::IdMap<memory_space> id_map() const { return {ids_}; }

  /// Runs one phase over every agent: each reads current buffers and writes the next buffers of
  /// `written` (which keep their value for agents the phase does not set), then those swap. Phases
  /// of one step draw from separate random streams, numbered in the order they are applied.
  template <class Phase, class... Written>
  void apply(Phase const& phase, Written&... written) {
    using kernel_type = Details::PhaseKernel<Phase, graph_type, Written...>;
    kernel_type const kernel{phase,
                             graph_,
                             id_map(),
                             plan_.light,
                             rng_,
                             step_,
                             streams::first_model_stream + phase_,
                             Details::make_carry(written...),
                             plan_.team_size};
    launch(kernel);
    (written.swap(), ...);
    ++phase_;
  }

  /// Marks the end of a step: the step counter moves on and phase numbering starts again.
  void end_step() {
    ++step_;
    phase_ = 0;
  }

  /// Sets the step counter (restarting from a saved state).
  void set_step(std::uint32_t step) { step_ = step; }

  /// Adds up `model.observe(i, totals)` over all agents into `row` (a device View of
  /// model.num_observables() entries) without waiting for the result.
  template <class Model, class Row>
  void observe(Model const& model, Row const& row) const {
    Details::ObserveKernel<Model> const kernel{model, static_cast<unsigned>(row.extent(0))};
    Kokkos::parallel_reduce("herd::observe", Kokkos::RangePolicy<ExecutionSpace>(exec_, 0, num_agents()), kernel, row);
  }

 private:
  template <class Kernel>
  void launch(Kernel kernel) const {
    if (plan_.light_count > 0) {
      if (plan_.light_lanes == Details::Lanes::thread) {
        Kokkos::parallel_for(
            "herd::step::thread",
            Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(exec_, 0, plan_.light_count),
            kernel);
      } else {
        agent_index const league = (plan_.light_count + plan_.team_size - 1) / plan_.team_size;
        Kokkos::parallel_for("herd::step::vector",
                             Kokkos::TeamPolicy<ExecutionSpace>(exec_, league, plan_.team_size, plan_.vector_length),
                             Details::VectorLaunch<Kernel>{kernel, plan_.light_count});
      }
    }
    if (plan_.hubs.extent(0) > 0) {
      kernel.agents = plan_.hubs;
      Kokkos::parallel_for(
          "herd::step::team",
          Kokkos::TeamPolicy<ExecutionSpace>(exec_, static_cast<int>(plan_.hubs.extent(0)), Kokkos::AUTO),
          Details::TeamLaunch<Kernel>{kernel});
    }
  }

  ExecutionSpace exec_;
  graph_type graph_;
  Kokkos::View<global_id*, memory_space> ids_;
  CounterRng rng_;
  StepPlan<memory_space> plan_;
  std::uint32_t step_ = 0;
  std::uint32_t phase_ = 0;
};

}  // namespace herd
