#pragma once

#include <herd/core/execution_spaces.hpp>
#include <herd/detail/tuning.hpp>
#include <herd/engine/schedule.hpp>
#include <herd/graph/build_csr.hpp>
#include <herd/graph/csr_graph.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>

namespace herd {

namespace Details {

// Chunks of `size` that cover `rows` rows holding `edges` edges (at least one).
inline std::size_t edge_chunk_count(agent_index rows, edge_offset edges, edge_offset size) {
  return static_cast<std::size_t>(std::max<edge_offset>(1, (static_cast<edge_offset>(rows) + edges + size - 1) / size));
}

// Schedule::edge splits the rows [first, first + rows) by the merge path of their ends with their
// edges (Merrill and Garland's merge-based SpMV): the rows' ends and the edges in one sequence, in
// the order a sequential sum meets them, cut into shares of equal length. A share then holds as
// many edges as any other, however long a hub's row, and as many rows, however long a run of empty
// rows: cut by edges alone, the thousands of empty rows that Cuthill-McKee puts together fell to one
// thread. Returns how many rows end within the first `d` items of that sequence; the other
// d - (that many) items are edges. `start` is offsets(first), `edges` the rows' edge count.
template <class Offsets>
KOKKOS_INLINE_FUNCTION agent_index rows_ended_at(Offsets const& offsets, agent_index first, agent_index rows,
                                                 edge_offset start, edge_offset edges, edge_offset d) {
  // A row's end comes before edge e when the row ends at or before e (empty rows at once).
  auto const all = static_cast<edge_offset>(rows);
  agent_index low = d > edges ? static_cast<agent_index>(d - edges) : 0;
  agent_index high = d < all ? static_cast<agent_index>(d) : rows;
  while (low < high) {
    agent_index const middle = low + (high - low) / 2;
    if (offsets(first + middle + 1) - start <= d - static_cast<edge_offset>(middle) - 1)
      low = middle + 1;
    else
      high = middle;
  }
  return low;
}

// Cuts the rows of `plan` (plan.light_count rows from plan.first) into Schedule::edge's shares of
// `size` rows and edges: allocates what each share keeps, and finds the rows ended before each
// share begins (plan.share_rows, one entry a share and one for the end). Found here once, since the
// graph never changes, rather than by two binary searches per share in every step.
template <class ExecutionSpace, class Graph>
void cut_edge_shares(ExecutionSpace const& exec, Graph const& graph,
                     StepPlan<typename ExecutionSpace::memory_space>& plan, edge_offset size) {
  using memory_space = typename ExecutionSpace::memory_space;
  agent_index const first = plan.first, rows = plan.light_count;
  edge_offset begin = 0, end = 0;
  exec.fence();
  Kokkos::deep_copy(begin, Kokkos::subview(graph.row_offsets, first));
  Kokkos::deep_copy(end, Kokkos::subview(graph.row_offsets, first + rows));
  edge_offset const edges = end - begin;
  auto const chunks = edge_chunk_count(rows, edges, size);
  plan.chunk_size = size;
  plan.carried = Kokkos::View<agent_index*, memory_space>("herd::plan::carried", chunks);
  plan.parts = Kokkos::View<std::uint64_t*, memory_space>("herd::plan::parts", chunks);
  plan.share_rows = Kokkos::View<agent_index*, memory_space>("herd::plan::share_rows", chunks + 1);
  auto const share_rows = plan.share_rows;
  auto const offsets = graph.row_offsets;
  edge_offset const items = static_cast<edge_offset>(rows) + edges;  // row ends and edges
  Kokkos::parallel_for(
      "herd::plan::edge_shares", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, static_cast<agent_index>(chunks) + 1),
      KOKKOS_LAMBDA(agent_index c) {
        edge_offset const d = static_cast<edge_offset>(c) * size;
        share_rows(c) = rows_ended_at(offsets, first, rows, begin, edges, d < items ? d : items);
      });
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
inline agent_index default_hub_threshold() { return Details::Tuning::hub_threshold; }

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
  plan.light_lanes = Details::runs_on_host_v<ExecutionSpace> ? Details::Lanes::thread : Details::Lanes::vector;
  if (!Details::runs_on_host_v<ExecutionSpace>) {
    plan.vector_length = Details::vector_length_for(stats.mean_degree);
    plan.team_size = 256 / plan.vector_length;
  }
  // Without hubs a thread per agent is fastest on every device; with hubs a GPU's warps wait for
  // the longest row of their 32, which edge shares avoid (docs/notes/schedules.md).
  if (schedule == Schedule::automatic) {
    bool const hubs = stats.max_degree >= hub_threshold;
    schedule = !hubs ? Schedule::thread : Details::runs_on_host_v<ExecutionSpace> ? Schedule::hybrid : Schedule::edge;
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
    plan.sums = Kokkos::View<std::uint64_t*, memory_space>("herd::plan::sums", static_cast<std::size_t>(first + n));
    Details::cut_edge_shares(exec, graph, plan, Details::Tuning::edge_chunk_size<ExecutionSpace>());
  }
  exec.fence();
  return plan;
}

}  // namespace herd
