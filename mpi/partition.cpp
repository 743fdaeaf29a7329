#include <herd/mpi/partition.hpp>
#include <herd/mpi/partition_stats.hpp>

#include <herd/config.hpp>
#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/detail/select.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>

namespace herd {

PartitionMethod parse_partition_method(std::string const& name) {
  if (name == "contiguous") return PartitionMethod::contiguous;
  if (name == "metis") return PartitionMethod::metis;
  if (name == "ptscotch") return PartitionMethod::ptscotch;
  if (name == "parmetis") return PartitionMethod::parmetis;
  throw Error("unknown partition method '" + name + "' (expected contiguous, metis, ptscotch or parmetis)");
}

std::string to_string(PartitionMethod method) {
  switch (method) {
    case PartitionMethod::metis:
      return "metis";
    case PartitionMethod::ptscotch:
      return "ptscotch";
    case PartitionMethod::parmetis:
      return "parmetis";
    default:
      return "contiguous";
  }
}

bool have_ptscotch() { return HERD_ENABLE_PTSCOTCH != 0; }
bool have_parmetis() { return HERD_ENABLE_PARMETIS != 0; }

namespace {

void check_parts(global_id agents, int parts) {
  require(parts >= 1, "a partition needs at least one part, got " + std::to_string(parts));
  require(agents >= parts, "cannot split " + std::to_string(agents) + " agents into " + std::to_string(parts) +
                               " parts: every rank needs at least one agent (use fewer ranks)");
}

}  // namespace

template <class ExecutionSpace>
Partition<typename ExecutionSpace::memory_space> partition_contiguous(ExecutionSpace const& exec, global_id agents,
                                                                      int parts) {
  check_parts(agents, parts);
  Partition<typename ExecutionSpace::memory_space> p;
  p.parts = parts;
  p.owner = Kokkos::View<int*, typename ExecutionSpace::memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::partition::owner"), agents);
  auto owner = p.owner;
  // Part r begins at floor(r N / P); the quotient below is a guess at most one off either way.
  Kokkos::parallel_for(
      "herd::partition::contiguous", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, agents), KOKKOS_LAMBDA(global_id g) {
        auto begin = [&](global_id r) { return r * agents / parts; };
        global_id r = g * parts / agents;
        while (r + 1 < parts && begin(r + 1) <= g) ++r;
        while (r > 0 && begin(r) > g) --r;
        owner(g) = static_cast<int>(r);
      });
  exec.fence();
  return p;
}

template <class ExecutionSpace, class WeightStorage>
Partition<typename ExecutionSpace::memory_space> partition_graph(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph, int parts,
    PartitionMethod method) {
  if (method == PartitionMethod::contiguous || parts == 1) return partition_contiguous(exec, graph.num_agents(), parts);
  check_parts(graph.num_agents(), parts);
  require(method != PartitionMethod::ptscotch,
          "ptscotch partitioning: PT-Scotch partitions a graph the ranks of a distributed run hold in shares "
          "(herd::mpi::ptscotch_parts), not a graph one process holds");
  require(method != PartitionMethod::parmetis,
          "parmetis partitioning: ParMETIS partitions a graph the ranks of a distributed run hold in shares "
          "(herd::mpi::parmetis_parts), not a graph one process holds");
  require(have_metis(), "metis partitioning: this build of Herd has no METIS (configure with Herd_ENABLE_METIS=ON)");
  auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.row_offsets);
  auto neighbours = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.neighbours);
  Kokkos::View<int*, Kokkos::HostSpace> host_owner("herd::partition::owner", graph.num_agents());
  Details::metis_partition(offsets, neighbours, graph.symmetric, parts, host_owner);
  Partition<typename ExecutionSpace::memory_space> p;
  p.parts = parts;
  p.owner = Kokkos::View<int*, typename ExecutionSpace::memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::partition::owner"), graph.num_agents());
  Kokkos::deep_copy(exec, p.owner, host_owner);
  exec.fence();
  return p;
}

namespace {

// Sorted, duplicate-free copy of `keys`, on the device.
template <class ExecutionSpace>
Kokkos::View<std::uint64_t*, typename ExecutionSpace::memory_space> sorted_unique(
    ExecutionSpace const& exec, Kokkos::View<std::uint64_t*, typename ExecutionSpace::memory_space> keys) {
  using memory_space = typename ExecutionSpace::memory_space;
  exec.fence();
  Kokkos::sort(keys);
  auto const firsts = Details::select_indices(
      exec, keys.extent(0), KOKKOS_LAMBDA(std::size_t i) { return i == 0 || keys(i) != keys(i - 1); },
      "herd::stats::firsts");
  Kokkos::View<std::uint64_t*, memory_space> unique(Kokkos::ViewAllocateWithoutInitializing("herd::stats::unique"),
                                                    firsts.extent(0));
  Kokkos::parallel_for(
      "herd::stats::unique", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, firsts.extent(0)),
      KOKKOS_LAMBDA(std::size_t k) { unique(k) = keys(firsts(k)); });
  exec.fence();
  return unique;
}

}  // namespace

template <class ExecutionSpace, class WeightStorage>
std::vector<PartStats> partition_stats(ExecutionSpace const& exec,
                                       CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph,
                                       Partition<typename ExecutionSpace::memory_space> const& partition) {
  using memory_space = typename ExecutionSpace::memory_space;
  using Counts = Kokkos::View<std::uint64_t*, memory_space>;
  agent_index const n = graph.num_agents();
  require(partition.num_agents() == n, "partition of " + std::to_string(partition.num_agents()) +
                                           " agents does not match the graph's " + std::to_string(n));
  auto const parts = static_cast<std::uint64_t>(partition.parts);
  auto owner = partition.owner;
  auto offsets = graph.row_offsets;
  auto neighbours = graph.neighbours;
  Counts owned("herd::stats::owned", parts), edges("herd::stats::edges", parts), cut("herd::stats::cut", parts);

  // Cut entries, as keys (reading part, read agent).
  Kokkos::View<edge_offset*, memory_space> cut_offsets(Kokkos::ViewAllocateWithoutInitializing("herd::stats::offsets"),
                                                       n + 1);
  Kokkos::parallel_scan(
      "herd::stats::count_cut", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n + 1),
      KOKKOS_LAMBDA(agent_index i, edge_offset & partial, bool final) {
        if (final) cut_offsets(i) = partial;
        if (i == n) return;
        edge_offset c = 0;
        for (edge_offset e = offsets(i); e < offsets(i + 1); ++e) c += owner(neighbours(e)) != owner(i) ? 1 : 0;
        partial += c;
        if (final) {
          auto const p = static_cast<std::size_t>(owner(i));
          Kokkos::atomic_add(&owned(p), std::uint64_t{1});
          Kokkos::atomic_add(&edges(p), static_cast<std::uint64_t>(offsets(i + 1) - offsets(i)));
          Kokkos::atomic_add(&cut(p), static_cast<std::uint64_t>(c));
        }
      });
  edge_offset total_cut = 0;
  exec.fence();
  Kokkos::deep_copy(total_cut, Kokkos::subview(cut_offsets, n));
  Kokkos::View<std::uint64_t*, memory_space> keys(Kokkos::ViewAllocateWithoutInitializing("herd::stats::keys"),
                                                  total_cut);
  auto const agents = static_cast<std::uint64_t>(n);
  Kokkos::parallel_for(
      "herd::stats::cut_keys", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n), KOKKOS_LAMBDA(agent_index i) {
        edge_offset k = cut_offsets(i);
        for (edge_offset e = offsets(i); e < offsets(i + 1); ++e)
          if (owner(neighbours(e)) != owner(i))
            keys(k++) = static_cast<std::uint64_t>(owner(i)) * agents + static_cast<std::uint64_t>(neighbours(e));
      });
  auto const ghost_keys = sorted_unique(exec, keys);

  // Ghosts per reading part, sends per owning part, and the (reader, owner) pairs that make messages.
  Counts ghosts("herd::stats::ghosts", parts), sends("herd::stats::sends", parts);
  Kokkos::View<std::uint64_t*, memory_space> pair_keys(Kokkos::ViewAllocateWithoutInitializing("herd::stats::pairs"),
                                                       ghost_keys.extent(0));
  Kokkos::parallel_for(
      "herd::stats::ghosts", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, ghost_keys.extent(0)),
      KOKKOS_LAMBDA(std::size_t k) {
        std::uint64_t const reader = ghost_keys(k) / agents;
        auto const from = static_cast<std::uint64_t>(owner(static_cast<agent_index>(ghost_keys(k) % agents)));
        Kokkos::atomic_add(&ghosts(reader), std::uint64_t{1});
        Kokkos::atomic_add(&sends(from), std::uint64_t{1});
        pair_keys(k) = reader * parts + from;
      });
  auto const pairs = sorted_unique(exec, pair_keys);
  Counts neighbour_parts("herd::stats::neighbours", parts), send_parts("herd::stats::send_parts", parts);
  Kokkos::parallel_for(
      "herd::stats::neighbours", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, pairs.extent(0)),
      KOKKOS_LAMBDA(std::size_t k) {
        Kokkos::atomic_add(&neighbour_parts(pairs(k) / parts), std::uint64_t{1});
        Kokkos::atomic_add(&send_parts(pairs(k) % parts), std::uint64_t{1});
      });
  exec.fence();

  auto host = [](Counts const& v) { return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v); };
  auto const h_owned = host(owned), h_edges = host(edges), h_cut = host(cut), h_ghosts = host(ghosts),
             h_sends = host(sends), h_neighbours = host(neighbour_parts), h_send_parts = host(send_parts);
  std::vector<PartStats> stats(parts);
  for (std::size_t p = 0; p < parts; ++p) {
    stats[p].owned = static_cast<global_id>(h_owned(p));
    stats[p].ghosts = static_cast<global_id>(h_ghosts(p));
    stats[p].sends = static_cast<global_id>(h_sends(p));
    stats[p].neighbours = static_cast<int>(h_neighbours(p));
    stats[p].send_parts = static_cast<int>(h_send_parts(p));
    stats[p].edges = h_edges(p);
    stats[p].cut_edges = h_cut(p);
  }
  return stats;
}

#define HERD_INSTANTIATE_PARTITION_W(EXEC, W)                                                                          \
  template Partition<EXEC::memory_space> partition_graph<EXEC, W>(EXEC const&, CsrGraph<EXEC::memory_space, W> const&, \
                                                                  int, PartitionMethod);                               \
  template std::vector<PartStats> partition_stats<EXEC, W>(EXEC const&, CsrGraph<EXEC::memory_space, W> const&,        \
                                                           Partition<EXEC::memory_space> const&);
#define HERD_INSTANTIATE_PARTITION(EXEC)                                                          \
  template Partition<EXEC::memory_space> partition_contiguous<EXEC>(EXEC const&, global_id, int); \
  HERD_INSTANTIATE_PARTITION_W(EXEC, float)                                                       \
  HERD_INSTANTIATE_PARTITION_W(EXEC, half)

HERD_FOR_EACH_EXECUTION_SPACE(HERD_INSTANTIATE_PARTITION)

}  // namespace herd
