#pragma once

// Where a simulation's agents live when one process holds them all: every agent is owned, none
// is a ghost, and nothing is exchanged. The other distribution is mpi::Ghosts
// (herd/mpi/ghosts.hpp), one rank's share of a distributed simulation.

#include <herd/core/error.hpp>
#include <herd/core/types.hpp>
#include <herd/engine/telemetry.hpp>
#include <herd/graph/csr_graph.hpp>
#include <herd/graph/transpose.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <utility>

namespace herd {

namespace Details {
// How many of `ids` a numbering of ids.extent(0) agents would not hold: ids out of [0, n) and
// repeats. One pass, with a counter per agent.
template <class MemorySpace>
std::size_t ids_out_of_place(Kokkos::View<global_id*, MemorySpace> const& ids) {
  using Exec = typename MemorySpace::execution_space;
  auto const n = static_cast<global_id>(ids.extent(0));
  Kokkos::View<std::uint32_t*, MemorySpace> seen("herd::simulation::ids_seen", ids.extent(0));
  std::size_t wrong = 0;
  Kokkos::parallel_reduce(
      "herd::simulation::check_ids", Kokkos::RangePolicy<Exec>(0, ids.extent(0)),
      KOKKOS_LAMBDA(std::size_t i, std::size_t & count) {
        global_id const id = ids(i);
        if (id < 0 || id >= n || Kokkos::atomic_fetch_add(&seen(id), 1u) != 0) ++count;
      },
      wrong);
  return wrong;
}
}  // namespace Details

template <class ExecutionSpace, class WeightStorage = float>
class SingleProcess {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using graph_type = CsrGraph<memory_space, WeightStorage>;
  static constexpr bool has_ghosts = false;

  /// `ids(i)` is the global id of agent i; leave it empty when global ids are the indices (no
  /// reordering).
  explicit SingleProcess(graph_type graph, Kokkos::View<global_id*, memory_space> ids = {})
      : graph_(std::move(graph)), ids_(std::move(ids)) {
    require(ids_.extent(0) == 0 || ids_.extent(0) == static_cast<std::size_t>(graph_.num_agents()),
            "simulation: " + std::to_string(ids_.extent(0)) + " global ids for " + std::to_string(graph_.num_agents()) +
                " agents");
    // Random draws and seeded agents follow the global ids: a repeat would give two agents one fate.
    if (ids_.extent(0) == 0) return;
    auto const wrong = Details::ids_out_of_place(ids_);
    require(wrong == 0, "simulation: the global ids must number the " + std::to_string(graph_.num_agents()) +
                            " agents 0 to " + std::to_string(graph_.num_agents() - 1) +
                            ", each once: " + std::to_string(wrong) + " lie outside or repeat one");
  }

  graph_type const& graph() const { return graph_; }
  /// Steps read `graph` from now on (a temporal network's next snapshot): the same agents.
  void use_graph(graph_type const& graph) { graph_ = graph; }
  Kokkos::View<global_id*, memory_space> const& global_ids() const { return ids_; }
  /// Agents whose properties this process stores, steps, and steps without waiting for ghosts.
  agent_index stored() const { return graph_.num_agents(); }
  agent_index owned() const { return graph_.num_agents(); }
  agent_index interior() const { return graph_.num_agents(); }
  global_id global() const { return graph_.num_agents(); }
  /// Whether active-set stepping can push along the graph's own rows (else through a transpose).
  bool pushes_along_rows() const { return graph_.symmetric; }
  /// No transpose is shared on one process (see mpi::Ghosts::share_transpose).
  graph_type const* shared_transpose() const { return nullptr; }
  /// The transpose of graph(): row a lists the rows that name agent a.
  graph_type transposed(ExecutionSpace const& exec) const { return transpose(exec, graph_, graph_.num_agents()); }
  /// Whether pull steps step interior agents while ghosts are on their way.
  bool overlaps() const { return false; }

  // What a distribution does around the steps: nothing, on one process.
  void wait() {}
  template <class Model>
  void prepare(Model const& /*model*/) {}
  void record_ghost_changes(bool /*on*/) {}
  template <class List, class... Written>
  void after_phase(std::uint32_t /*step*/, List const& /*list*/, agent_index /*listed*/,
                   Written const&... /*written*/) {}
  template <class... Properties>
  void update_ghosts(Properties&... /*properties*/) {}
  template <class History>
  void finish(ExecutionSpace const& /*exec*/, History const& /*history*/) {}
  Details::HaloClock clock() const { return {}; }

 private:
  graph_type graph_;
  Kokkos::View<global_id*, memory_space> ids_;
};

}  // namespace herd
