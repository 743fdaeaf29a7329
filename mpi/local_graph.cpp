#include <herd/mpi/local_graph.hpp>

#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/profiling_region.hpp>
#include <herd/detail/select.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>

namespace herd {

namespace {

// What an agent is to the rank extracting its share.
enum Role : std::uint8_t { elsewhere = 0, interior = 1, boundary = 2, ghost = 3 };

// Global ids of the agents with `role`, ascending.
template <class ExecutionSpace>
Kokkos::View<global_id*, typename ExecutionSpace::memory_space> select(
    ExecutionSpace const& exec, Kokkos::View<std::uint8_t*, typename ExecutionSpace::memory_space> roles,
    std::uint8_t role) {
  auto const n = static_cast<global_id>(roles.extent(0));
  return Details::select_indices(
      exec, n, KOKKOS_LAMBDA(global_id g) { return roles(g) == role; }, "herd::local::selected");
}

}  // namespace

template <class ExecutionSpace, class WeightStorage>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> extract_local_graph(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& global,
    Partition<typename ExecutionSpace::memory_space> const& partition, int rank) {
  using memory_space = typename ExecutionSpace::memory_space;
  Details::ProfilingRegion const region("herd::extract_local_graph");
  agent_index const n = global.num_agents();
  require(partition.num_agents() == n, "partition of " + std::to_string(partition.num_agents()) +
                                           " agents does not match the graph's " + std::to_string(n));
  require(rank >= 0 && rank < partition.parts,
          "rank " + std::to_string(rank) + " outside a partition of " + std::to_string(partition.parts) + " parts");
  auto owner = partition.owner;
  auto offsets = global.row_offsets;
  auto neighbours = global.neighbours;

  // Roles: owned agents are interior or boundary; agents elsewhere that an owned row reads are
  // ghosts (found from the reading side, so directed graphs work too).
  Kokkos::View<std::uint8_t*, memory_space> roles("herd::local::roles", n);
  Kokkos::View<int*, memory_space> read("herd::local::read", n);
  Kokkos::parallel_for(
      "herd::local::roles", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n), KOKKOS_LAMBDA(agent_index i) {
        if (owner(i) != rank) return;
        bool reads_ghost = false;
        for (edge_offset e = offsets(i); e < offsets(i + 1); ++e) {
          agent_index const j = neighbours(e);
          if (owner(j) != rank) {
            reads_ghost = true;
            Kokkos::atomic_add(&read(j), 1);
          }
        }
        roles(i) = reads_ghost ? boundary : interior;
      });
  Kokkos::parallel_for(
      "herd::local::ghost_roles", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n), KOKKOS_LAMBDA(agent_index i) {
        if (owner(i) != rank && read(i) > 0) roles(i) = ghost;
      });
  auto const interior_ids = select(exec, roles, interior);
  auto const boundary_ids = select(exec, roles, boundary);
  auto ghost_ids = select(exec, roles, ghost);

  LocalGraph<memory_space, WeightStorage> local;
  local.rank = rank;
  local.parts = partition.parts;
  local.global_agents = n;
  local.mirrored = global.symmetric;
  local.interior = static_cast<agent_index>(interior_ids.extent(0));
  local.owned = local.interior + static_cast<agent_index>(boundary_ids.extent(0));
  auto const ghosts = static_cast<agent_index>(ghost_ids.extent(0));

  // Ghosts grouped by owner: sort on (owner, id).
  auto const agents = static_cast<std::uint64_t>(n);
  Kokkos::View<std::uint64_t*, memory_space> keys(Kokkos::ViewAllocateWithoutInitializing("herd::local::ghost_keys"),
                                                  ghosts);
  Kokkos::View<agent_index*, memory_space> per_owner("herd::local::per_owner", partition.parts);
  Kokkos::parallel_for(
      "herd::local::ghost_keys", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, ghosts), KOKKOS_LAMBDA(agent_index k) {
        auto const g = static_cast<agent_index>(ghost_ids(k));
        keys(k) = static_cast<std::uint64_t>(owner(g)) * agents + static_cast<std::uint64_t>(g);
        Kokkos::atomic_add(&per_owner(owner(g)), 1);
      });
  exec.fence();
  Kokkos::sort(keys);
  auto const counts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), per_owner);
  local.ghost_offsets.push_back(0);
  for (int q = 0; q < partition.parts; ++q) {
    if (counts(q) == 0) continue;
    local.ghost_owners.push_back(q);
    local.ghost_offsets.push_back(local.ghost_offsets.back() + counts(q));
  }

  // Local ids: interior, boundary, ghosts; and the inverse map over global ids for the CSR.
  agent_index const owned = local.owned, first_boundary = local.interior;
  local.ids = Kokkos::View<global_id*, memory_space>(Kokkos::ViewAllocateWithoutInitializing("herd::local::ids"),
                                                     owned + ghosts);
  auto ids = local.ids;
  Kokkos::View<agent_index*, memory_space> local_of(Kokkos::ViewAllocateWithoutInitializing("herd::local::local_of"),
                                                    n);
  Kokkos::parallel_for(
      "herd::local::ids", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, owned + ghosts), KOKKOS_LAMBDA(agent_index r) {
        global_id const g = r < first_boundary ? interior_ids(r)
                            : r < owned        ? boundary_ids(r - first_boundary)
                                               : static_cast<global_id>(keys(r - owned) % agents);
        ids(r) = g;
        local_of(static_cast<agent_index>(g)) = r;
      });

  // The CSR of owned rows, entries renumbered, each row in its global order.
  Kokkos::View<edge_offset*, memory_space> row_offsets(
      Kokkos::ViewAllocateWithoutInitializing("herd::local::row_offsets"), owned + 1);
  Kokkos::parallel_scan(
      "herd::local::row_offsets", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, owned + 1),
      KOKKOS_LAMBDA(agent_index r, edge_offset & partial, bool final) {
        if (final) row_offsets(r) = partial;
        if (r < owned) {
          auto const g = static_cast<agent_index>(ids(r));
          partial += offsets(g + 1) - offsets(g);
        }
      });
  edge_offset entries = 0;
  exec.fence();
  Kokkos::deep_copy(entries, Kokkos::subview(row_offsets, owned));
  Kokkos::View<agent_index*, memory_space> local_neighbours(
      Kokkos::ViewAllocateWithoutInitializing("herd::local::neighbours"), entries);
  Kokkos::View<WeightStorage*, memory_space> local_weights;
  if (global.weighted())
    local_weights = Kokkos::View<WeightStorage*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::local::weights"), entries);
  Kokkos::View<layer_index*, memory_space> local_layers;
  if (global.layered())
    local_layers = Kokkos::View<layer_index*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::local::layers"), entries);
  auto weights = global.weights;
  auto layers = global.layers;
  bool const weighted = global.weighted(), layered = global.layered();
  edge_offset cut = 0;
  Kokkos::parallel_reduce(
      "herd::local::entries", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, owned),
      KOKKOS_LAMBDA(agent_index r, edge_offset & cut_sum) {
        auto const g = static_cast<agent_index>(ids(r));
        edge_offset out = row_offsets(r);
        for (edge_offset e = offsets(g); e < offsets(g + 1); ++e, ++out) {
          agent_index const l = local_of(neighbours(e));
          local_neighbours(out) = l;
          if (weighted) local_weights(out) = weights(e);
          if (layered) local_layers(out) = layers(e);
          if (l >= owned) ++cut_sum;
        }
      },
      cut);
  local.cut_edges = cut;
  local.graph.row_offsets = row_offsets;
  local.graph.neighbours = local_neighbours;
  local.graph.weights = local_weights;
  local.graph.layers = local_layers;
  exec.fence();
  return local;
}

#define HERD_INSTANTIATE_LOCAL_GRAPH_W(EXEC, W)                            \
  template LocalGraph<EXEC::memory_space, W> extract_local_graph<EXEC, W>( \
      EXEC const&, CsrGraph<EXEC::memory_space, W> const&, Partition<EXEC::memory_space> const&, int);
#define HERD_INSTANTIATE_LOCAL_GRAPH(EXEC)    \
  HERD_INSTANTIATE_LOCAL_GRAPH_W(EXEC, float) \
  HERD_INSTANTIATE_LOCAL_GRAPH_W(EXEC, half)

HERD_FOR_EACH_EXECUTION_SPACE(HERD_INSTANTIATE_LOCAL_GRAPH)

}  // namespace herd
