#pragma once

#include <herd/engine/schedule.hpp>
#include <herd/graph/build_csr.hpp>
#include <herd/graph/csr_graph.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>

namespace herd {

namespace Details {

template <class ExecutionSpace>
constexpr bool is_gpu() {
  return !std::is_same<typename ExecutionSpace::memory_space, Kokkos::HostSpace>::value;
}

// Rows plus edges one thread takes under Schedule::edge: enough that finding where its share
// begins (a binary search) costs little beside it on a CPU; on a GPU few enough to keep every SM
// busy at 10^6 edges.
template <class ExecutionSpace>
constexpr edge_offset edge_chunk_size() {
  return is_gpu<ExecutionSpace>() ? 64 : 2048;
}

// Chunks of `size` that cover `rows` rows holding `edges` edges (at least one).
inline std::size_t edge_chunk_count(agent_index rows, edge_offset edges, edge_offset size) {
  return static_cast<std::size_t>(std::max<edge_offset>(1, (static_cast<edge_offset>(rows) + edges + size - 1) / size));
}

// Vector lanes for one light agent on a GPU: the power of two nearest the mean degree, at most a
// warp (as Kokkos Kernels' SpMV chooses its vector length).
inline int vector_length_for(double mean_degree) {
  int lanes = 1;
  while (lanes < 32 && lanes * 2 <= mean_degree + 0.5) lanes *= 2;
  return lanes;
}

}  // namespace Details

/// Default degree from which an agent is a hub and gets a team of its own.
inline agent_index default_hub_threshold() { return 4096; }

/// Rows [first, first + count) of a graph: the agents one plan schedules.
struct RowRange {
  agent_index first = 0;
  agent_index count = -1;  ///< -1: up to the last row
};

/// Builds the scheduling plan of `graph` (of its rows `rows`) for `exec`. Schedule::automatic
/// becomes thread when the graph has no hubs (degree >= hub_threshold); with hubs, hybrid on CPUs
/// and edge on GPUs. The choice looks at the whole graph, so that every range of one graph gets
/// the same kind of schedule.
template <class ExecutionSpace, class WeightStorage>
StepPlan<typename ExecutionSpace::memory_space> make_step_plan(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph,
    Schedule schedule = Schedule::automatic, agent_index hub_threshold = default_hub_threshold(), RowRange rows = {}) {
  using memory_space = typename ExecutionSpace::memory_space;
  require(hub_threshold >= 1, "hub threshold must be positive");
  if (rows.count < 0) rows.count = graph.num_agents() - rows.first;
  require(rows.first >= 0 && rows.first + rows.count <= graph.num_agents(), "step plan rows out of range");
  StepPlan<memory_space> plan;
  agent_index const n = rows.count;
  agent_index const first = rows.first;
  plan.first = first;
  auto const stats = degree_stats(exec, graph);
  plan.hub_threshold = hub_threshold;
  plan.light_lanes = Details::is_gpu<ExecutionSpace>() ? Details::Lanes::vector : Details::Lanes::thread;
  if (Details::is_gpu<ExecutionSpace>()) {
    plan.vector_length = Details::vector_length_for(stats.mean_degree);
    plan.team_size = 256 / plan.vector_length;
  }
  // Measured with the SIR step (docs/benchmarks.md): without hubs a thread per agent is fastest
  // on both kinds of device (on a GPU vector lanes took 3× as long, edge shares 1.3-1.5×). With
  // hubs, a GPU's warps wait for the longest row of their 32: edge shares took half the time of
  // thread and hybrid at 10^6 and 10^7 agents. On CPUs hubs never held a step up.
  if (schedule == Schedule::automatic) {
    bool const hubs = stats.max_degree >= hub_threshold;
    schedule = !hubs ? Schedule::thread : Details::is_gpu<ExecutionSpace>() ? Schedule::edge : Schedule::hybrid;
  }
  if (schedule == Schedule::vector) plan.light_lanes = Details::Lanes::vector;
  if (schedule == Schedule::thread || schedule == Schedule::edge) plan.light_lanes = Details::Lanes::thread;
  plan.schedule = schedule;
  plan.light_count = n;
  if (schedule == Schedule::team) {
    plan.hubs = Kokkos::View<agent_index*, memory_space>("herd::plan::hubs", n);
    auto hubs = plan.hubs;
    Kokkos::parallel_for(
        "herd::plan::all_hubs", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n),
        KOKKOS_LAMBDA(agent_index i) { hubs(i) = first + i; });
    plan.light_count = 0;
  } else if (schedule == Schedule::hybrid && stats.max_degree >= hub_threshold) {
    // Stable split by a scan: light agents and hubs each stay in ascending order.
    Kokkos::View<agent_index*, memory_space> hub_rank(Kokkos::ViewAllocateWithoutInitializing("herd::plan::rank"),
                                                      n + 1);
    auto offsets = graph.row_offsets;
    auto const threshold = static_cast<edge_offset>(hub_threshold);
    Kokkos::parallel_scan(
        "herd::plan::rank_hubs", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n + 1),
        KOKKOS_LAMBDA(agent_index i, agent_index & partial, bool final) {
          if (final) hub_rank(i) = partial;
          if (i < n && offsets(first + i + 1) - offsets(first + i) >= threshold) ++partial;
        });
    agent_index hub_count = 0;
    exec.fence();
    Kokkos::deep_copy(hub_count, Kokkos::subview(hub_rank, n));
    plan.light_count = n - hub_count;
    plan.hubs = Kokkos::View<agent_index*, memory_space>("herd::plan::hubs", hub_count);
    plan.light = Kokkos::View<agent_index*, memory_space>("herd::plan::light", n - hub_count);
    auto hubs = plan.hubs;
    auto light = plan.light;
    Kokkos::parallel_for(
        "herd::plan::split", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n), KOKKOS_LAMBDA(agent_index i) {
          if (hub_rank(i + 1) != hub_rank(i))
            hubs(hub_rank(i)) = first + i;
          else
            light(i - hub_rank(i)) = first + i;
        });
  } else if (schedule == Schedule::hybrid) {
    plan.schedule = plan.light_lanes == Details::Lanes::vector ? Schedule::vector : Schedule::thread;
  } else if (schedule == Schedule::edge) {
    // The sums are indexed by agent, like the active set's pushed sums: rows up to first + n.
    plan.chunk_size = Details::edge_chunk_size<ExecutionSpace>();
    edge_offset begin = 0, end = 0;
    exec.fence();
    Kokkos::deep_copy(begin, Kokkos::subview(graph.row_offsets, first));
    Kokkos::deep_copy(end, Kokkos::subview(graph.row_offsets, first + n));
    auto const chunks = Details::edge_chunk_count(n, end - begin, plan.chunk_size);
    plan.sums = Kokkos::View<std::uint64_t*, memory_space>("herd::plan::sums", static_cast<std::size_t>(first + n));
    plan.carried = Kokkos::View<agent_index*, memory_space>("herd::plan::carried", chunks);
    plan.parts = Kokkos::View<std::uint64_t*, memory_space>("herd::plan::parts", chunks);
  }
  exec.fence();
  return plan;
}

}  // namespace herd
