#pragma once

// The kernels behind Simulation::apply and Simulation::observe, whatever the simulation's
// distribution.

#include <herd/core/device_pass.hpp>
#include <herd/core/execution_spaces.hpp>
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

// Whether agent `i` reads its sum (and so its neighbours): the agents that receive, or every agent
// of a model that does not say. (A function of its own: an extended lambda may not first capture a
// variable under `if constexpr`.)
template <class Phase>
KOKKOS_INLINE_FUNCTION bool reads_sum(Phase const& phase, agent_index i) {
  if constexpr (declares_activity_v<Phase>) {
    return (phase.activity(i) & activity::receives) != 0;
  } else {
    (void)phase;
    (void)i;
    return true;
  }
}

// The kernel of one phase: builds each agent's context, carries the written properties over, and
// calls the user's functor.
template <class Phase, class Graph, class... Written>
struct PhaseKernel {
  PhaseKernel(Phase const& phase_, Graph const& graph_, IdMap<typename Graph::memory_space> const& ids_,
              CounterRng rng_, std::uint32_t step_, std::uint32_t stream_, Carry<Written...> const& written_)
      : phase(phase_), graph(graph_), ids(ids_), rng(rng_), step(step_), stream(stream_), written(written_) {}

  Phase phase;
  Graph graph;
  IdMap<typename Graph::memory_space> ids;
  Kokkos::View<agent_index const*, typename Graph::memory_space> agents;  // empty: rows from `first`, in order
  agent_index first = 0;
  agent_index count = 0;  // agents of the current launch: agent(0 .. count)
  CounterRng rng;
  std::uint32_t step;
  std::uint32_t stream;
  Carry<Written...> written;
  int rows_per_team = 0;
  Kokkos::View<std::uint64_t const*, typename Graph::memory_space> pushed;  // empty: sums are pulled
  bool gather_ahead = false;  // ask for the values contributions read, agents ahead (CPUs)
  // One bit per stored agent where it spreads, for the sums of a model that counts its spreaders,
  // with the weights' codes where those sums add by code; empty: sums read the neighbours' states.
  SpreaderViews<typename Graph::memory_space> spreading;
  // Per agent, its spreading neighbours counted by a listed step's pushes, instead of `pushed`
  // sums (see ActiveSet::spreader_counts()); empty: none.
  Kokkos::View<std::uint8_t const*, typename Graph::memory_space, Kokkos::MemoryUnmanaged> counted;

  KOKKOS_INLINE_FUNCTION agent_index agent(agent_index k) const { return agents.extent(0) ? agents(k) : first + k; }

  template <Lanes Mode, class Member>
  KOKKOS_INLINE_FUNCTION void run(agent_index i, Member const& member) const {
    Agent<Graph, Mode, Member> const a(graph, i, ids(i), rng, step, stream, member, pushed.data(), spreading.pointers(),
                                       counted.data());
    a.single([&]() { written.keep(i); });
    phase(a);
  }

  // Thread schedule. On CPUs, first asks for the row of the agent 16 places ahead: the rows an
  // agent reads are often scattered, and the hardware prefetcher does not follow them. Not when
  // sums (or counts) were pushed: listed agents then read no rows. GPUs hide those misses with
  // other warps. (Written here: GCC drops a function that only prefetches.)
  //
  // With `gather_ahead`, it also asks for what that agent will read of its neighbours
  // (Model::contribution_address), if it receives: mispredicted branches near an epidemic's peak
  // would otherwise throw those loads away (docs/notes/gather-ahead.md). Not when the sums count
  // bits (`spreading`): those stay in the caches.
  KOKKOS_INLINE_FUNCTION void operator()(agent_index k) const {
#if !HERD_DEVICE_PASS && (defined(__GNUC__) || defined(__clang__))
    if (k + 16 < count && pushed.extent(0) == 0 && counted.extent(0) == 0) {
      agent_index const next = agent(k + 16);
      edge_offset const ahead = graph.row_offsets(next);
      __builtin_prefetch(graph.neighbours.data() + ahead);
      if (graph.weighted()) __builtin_prefetch(graph.weights.data() + ahead);
      if constexpr (gathers_ahead_v<Phase>) {
        if (gather_ahead && spreading.empty() && reads_sum(phase, next))
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

// Sums a model's per-agent observables (counts per state, say) over agents(0 .. count) into one
// row of a device View. GPU threads take one agent each (Block 1). On CPUs an item is a block of
// agents, added in turn into `lanes` rows of the item's own: an observe adds one to the entry the
// agent's state picks, and where states are mixed at random, adds to one row in memory would each
// wait for the last one's store (docs/notes/observables-from-the-list.md). Rows of more than
// `most_in_lanes` entries are added to directly.
template <class Model, class Agents = EveryAgent, agent_index Block = 1>
struct ObserveKernel {
  using value_type = std::int64_t[];
  using size_type = unsigned;
  static constexpr int lanes = 4;
  static constexpr size_type most_in_lanes = 8;
  Model model;
  size_type value_count;
  Agents agents;
  agent_index count;

  KOKKOS_INLINE_FUNCTION void operator()(agent_index item, std::int64_t* totals) const {
    if constexpr (Block == 1) {
      model.observe(agents(item), totals);
    } else {
      agent_index const first = item * Block;
      agent_index const last = first + Block < count ? first + Block : count;
      if (value_count > most_in_lanes) {
        for (agent_index k = first; k < last; ++k) model.observe(agents(k), totals);
        return;
      }
      std::int64_t rows[lanes][most_in_lanes] = {};
      agent_index k = first;
      for (; k + lanes <= last; k += lanes)
        for (int l = 0; l < lanes; ++l) model.observe(agents(k + l), rows[l]);
      for (; k < last; ++k) model.observe(agents(k), rows[0]);
      for (size_type v = 0; v < value_count; ++v) {
        std::int64_t sum = 0;
        for (int l = 0; l < lanes; ++l) sum += rows[l][v];
        totals[v] += sum;
      }
    }
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

// Agents one item of the observables' reduction takes: a block on CPUs (agents_per_item), one on
// GPUs, where a block's lane rows would live in local memory (docs/notes/active-set-on-gpus.md).
template <class ExecutionSpace>
inline constexpr agent_index agents_per_observed_item =
    runs_on_host_v<ExecutionSpace> ? agents_per_item<ExecutionSpace> : 1;

// Adds up `model.observe` over agents(0 .. count) into `row`, without waiting.
template <class ExecutionSpace, class Model, class Agents, class Row>
void observe_agents(ExecutionSpace const& exec, char const* label, Model const& model, Agents const& agents,
                    agent_index count, Row const& row) {
  constexpr agent_index block = agents_per_observed_item<ExecutionSpace>;
  ObserveKernel<Model, Agents, block> const kernel{model, static_cast<unsigned>(row.extent(0)), agents, count};
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecutionSpace>(exec, 0, (count + block - 1) / block), kernel,
                          row);
}

// Schedule::edge: the sum of `phase.contribution` over each row of the plan into plan.sums, by
// shares of plan.chunk_size rows and edges (see cut_edge_shares), so that neither a hub nor a run
// of empty rows lands on one thread. A share stores the sums of the rows that end in it, or the
// part of them it holds, with plain writes; its part of the row it leaves unfinished it keeps
// aside, and a second kernel adds those parts. Integer adds: the sums, hence the trajectory, are
// those of the thread schedule.
template <class ExecutionSpace, class Phase, class Graph>
void sum_by_edges(ExecutionSpace const& exec, StepPlan<typename ExecutionSpace::memory_space> const& plan,
                  Phase const& phase, Graph const& graph,
                  SpreaderViews<typename ExecutionSpace::memory_space> const& spreading = {}) {
  auto const offsets = graph.row_offsets;
  auto const sums = plan.sums;
  auto const carried = plan.carried;
  auto const parts = plan.parts;
  auto const shares = plan.share_rows;
  agent_index const first = plan.first, rows = plan.light_count;
  edge_offset const size = plan.chunk_size;
  auto const chunks = static_cast<agent_index>(carried.extent(0));
  Kokkos::parallel_for(
      "herd::step::edge_sums", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, chunks), KOKKOS_LAMBDA(agent_index c) {
        edge_offset const start = offsets(first), edges = offsets(first + rows) - start;
        edge_offset const d = static_cast<edge_offset>(c) * size;
        edge_offset const items = static_cast<edge_offset>(rows) + edges;  // row ends and edges
        edge_offset const d_end = d + size < items ? d + size : items;
        // Only the agents that receive read their sum (as on listed steps): the rows of the
        // others are not read.
        auto const sum = [&](agent_index row, edge_offset from, edge_offset to) {
          return reads_sum(phase, row)
                     ? sum_row_contributions<std::uint64_t>(phase, graph, spreading.pointers(), row, from, to)
                     : std::uint64_t{0};
        };
        agent_index const ended = shares(c), ended_by_end = shares(c + 1);
        edge_offset e = start + (d - static_cast<edge_offset>(ended));
        for (agent_index r = first + ended; r < first + ended_by_end; ++r) {
          edge_offset const row_end = offsets(r + 1);
          sums(r) = sum(r, e, row_end);
          e = row_end;
        }
        edge_offset const e_end = start + (d_end - static_cast<edge_offset>(ended_by_end));
        bool const leaves_part = ended_by_end < rows && e_end > e;
        carried(c) = leaves_part ? first + ended_by_end : agent_index{-1};
        parts(c) = leaves_part ? sum(first + ended_by_end, e, e_end) : 0;
      });
  Kokkos::parallel_for(
      "herd::step::edge_parts", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, chunks), KOKKOS_LAMBDA(agent_index c) {
        if (carried(c) >= 0) Kokkos::atomic_add(&sums(carried(c)), parts(c));
      });
}

// Runs `kernel` over the agents of `plan`: light agents a thread (or vector lanes) each, then hubs a
// team each. Under Schedule::edge, the first phase of a model that declares contributions reads
// sums computed by sum_by_edges (the first phase is the one drawing from the first model stream;
// later phases sum their rows, as on listed steps).
template <class ExecutionSpace, class Kernel>
void launch_phase(ExecutionSpace const& exec, StepPlan<typename ExecutionSpace::memory_space> const& plan,
                  Kernel kernel) {
  if constexpr (declares_contribution_v<decltype(kernel.phase)>) {
    if (plan.schedule == Schedule::edge && kernel.stream == streams::first_model_stream) {
      sum_by_edges(exec, plan, kernel.phase, kernel.graph, kernel.spreading);
      kernel.pushed = plan.sums;
    }
  }
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
  observe_agents(exec, "herd::observe::listed", model, Agents(list), count, row);
}

}  // namespace Details

}  // namespace herd
