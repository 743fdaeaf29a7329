#pragma once

// The kernels behind Simulation::apply and Simulation::observe, shared by the single-process and
// the distributed simulation.

#include <herd/core/device_pass.hpp>
#include <herd/core/kokkos_compat.hpp>
#include <herd/core/random.hpp>
#include <herd/engine/active_set.hpp>
#include <herd/engine/agent.hpp>
#include <herd/engine/schedule.hpp>

#include <Kokkos_Core.hpp>

namespace herd {

namespace Details {

// The properties a phase writes, kept together without std::tuple (not usable in device code
// everywhere).
template <class... Properties>
struct Carry {
  KOKKOS_INLINE_FUNCTION void keep(agent_index) const {}
  KOKKOS_INLINE_FUNCTION void commit(agent_index) const {}
};
template <class First, class... Rest>
struct Carry<First, Rest...> {
  First first;
  Carry<Rest...> rest;
  KOKKOS_INLINE_FUNCTION void keep(agent_index i) const {
    first.keep(i);
    rest.keep(i);
  }
  KOKKOS_INLINE_FUNCTION void commit(agent_index i) const {
    first.commit(i);
    rest.commit(i);
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
  Kokkos::View<agent_index const*, typename Graph::memory_space> agents;  // empty: rows from `first`, in order
  agent_index first;
  agent_index count;  // agents of the current launch: agent(0 .. count)
  CounterRng rng;
  std::uint32_t step;
  std::uint32_t stream;
  Carry<Written...> written;
  int rows_per_team;
  Kokkos::View<std::uint64_t const*, typename Graph::memory_space> pushed;  // empty: sums are pulled
  bool gather_ahead = false;  // ask for the values contributions read, agents ahead (CPUs)

  KOKKOS_INLINE_FUNCTION agent_index agent(agent_index k) const { return agents.extent(0) ? agents(k) : first + k; }

  template <Lanes Mode, class Member>
  KOKKOS_INLINE_FUNCTION void run(agent_index i, Member const& member) const {
    Agent<Graph, Mode, Member> const a(graph, i, ids(i), rng, step, stream, member, pushed.data());
    a.single([&]() { written.keep(i); });
    phase(a);
  }

  // Thread schedule. On CPUs, first asks for the row of the agent 16 places ahead: the rows an
  // agent reads are often scattered (only the susceptible agents of an epidemic read theirs, a
  // listed step's agents lie anywhere), the hardware prefetcher does not follow them, and each row
  // start missed in cache; the pull step late in an epidemic, reading a third of the rows, cost as
  // much as reading all. Not when sums were pushed: listed agents then read no rows. GPUs hide
  // those misses with other warps. (Written here, not in a function of its own: GCC takes a
  // function that only prefetches for one without effect and drops it.)
  //
  // With `gather_ahead`, it also asks for what that agent's contributions will read, if it
  // receives: near an epidemic's peak the branches on states and draws mispredict, and each
  // misprediction threw away the neighbour loads of the agents after it, so once the states
  // outgrow the caches the step waited about one memory latency per susceptible agent, whatever
  // its row's length. The row is read just after it was asked for; asking for the states 4, 8 or
  // 32 agents ahead instead measured 5-15 % slower at 10^7 agents.
  KOKKOS_INLINE_FUNCTION void operator()(agent_index k) const {
#if !HERD_DEVICE_PASS && (defined(__GNUC__) || defined(__clang__))
    if (k + 16 < count && pushed.extent(0) == 0) {
      agent_index const next = agent(k + 16);
      edge_offset const ahead = graph.row_offsets(next);
      __builtin_prefetch(graph.neighbours.data() + ahead);
      if (graph.weighted()) __builtin_prefetch(graph.weights.data() + ahead);
      if constexpr (gathers_ahead_v<Phase>) {
        if (gather_ahead && (phase.activity(next) & activity::receives))
          for (edge_offset e = ahead; e < graph.row_offsets(next + 1); ++e)
            __builtin_prefetch(phase.contribution_address(graph.neighbours(e)));
      }
    }
#endif
    run<Lanes::thread>(agent(k), 0);
  }
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

// The agents an observation visits: every agent, or those of a list (a View of indices).
struct EveryAgent {
  KOKKOS_INLINE_FUNCTION agent_index operator()(agent_index k) const { return k; }
};

// Sums a model's per-agent observables (counts per state, say) into one row of a device View.
template <class Model, class Agents = EveryAgent>
struct ObserveKernel {
  using value_type = std::int64_t[];
  using size_type = unsigned;
  Model model;
  size_type value_count;
  Agents agents;

  KOKKOS_INLINE_FUNCTION void operator()(agent_index k, std::int64_t* totals) const {
    model.observe(agents(k), totals);
  }
  KOKKOS_INLINE_FUNCTION void init(std::int64_t* totals) const {
    for (size_type k = 0; k < value_count; ++k) totals[k] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(HERD_JOIN_VOLATILE std::int64_t* totals,
                                   HERD_JOIN_VOLATILE std::int64_t const* part) const {
    // Not +=: a compound assignment to a volatile is deprecated in C++20.
    for (size_type k = 0; k < value_count; ++k) totals[k] = totals[k] + part[k];
  }
};

// Runs `kernel` over the agents of `plan`: light agents a thread (or vector lanes) each, then hubs a
// team each.
template <class ExecutionSpace, class Kernel>
void launch_phase(ExecutionSpace const& exec, StepPlan<typename ExecutionSpace::memory_space> const& plan,
                  Kernel kernel) {
  kernel.agents = plan.light;
  kernel.first = plan.first;
  kernel.count = plan.light_count;
  kernel.rows_per_team = plan.team_size;
  if (plan.light_count > 0) {
    if (plan.light_lanes == Details::Lanes::thread) {
      Kokkos::parallel_for(
          "herd::step::thread",
          Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(exec, 0, plan.light_count), kernel);
    } else {
      agent_index const league = (plan.light_count + plan.team_size - 1) / plan.team_size;
      Kokkos::parallel_for("herd::step::vector",
                           Kokkos::TeamPolicy<ExecutionSpace>(exec, league, plan.team_size, plan.vector_length),
                           Details::VectorLaunch<Kernel>{kernel, plan.light_count});
    }
  }
  if (plan.hubs.extent(0) > 0) {
    kernel.agents = plan.hubs;
    Kokkos::parallel_for("herd::step::team",
                         Kokkos::TeamPolicy<ExecutionSpace>(exec, static_cast<int>(plan.hubs.extent(0)), Kokkos::AUTO),
                         Details::TeamLaunch<Kernel>{kernel});
  }
}

// Runs `kernel` over the agents list(0 .. count), a thread each, then makes their written values
// current: the agents not listed keep theirs, so the buffers are not swapped.
template <class ExecutionSpace, class Kernel>
void launch_listed(ExecutionSpace const& exec, Kokkos::View<agent_index*, typename ExecutionSpace::memory_space> list,
                   agent_index count, Kernel kernel) {
  kernel.agents = list;
  kernel.first = 0;
  kernel.count = count;
  Kokkos::parallel_for("herd::step::active",
                       Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(exec, 0, count), kernel);
  auto const written = kernel.written;
  Kokkos::parallel_for(
      "herd::step::commit", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count),
      KOKKOS_LAMBDA(agent_index k) { written.commit(list(k)); });
}

// Adds up `model.observe` over the first `count` agents of `list` into `row`, without waiting.
template <class ExecutionSpace, class Model, class Row>
void observe_list(ExecutionSpace const& exec, Kokkos::View<agent_index*, typename ExecutionSpace::memory_space> list,
                  agent_index count, Model const& model, Row const& row) {
  using Agents = Kokkos::View<agent_index const*, typename ExecutionSpace::memory_space>;
  ObserveKernel<Model, Agents> const kernel{model, static_cast<unsigned>(row.extent(0)), list};
  Kokkos::parallel_reduce("herd::observe::listed", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count), kernel, row);
}

}  // namespace Details

}  // namespace herd
