#include <herd/graph/reorder.hpp>

#include "breadth_first_order.hpp"
#include "numbering.hpp"

#include <herd/config.hpp>
#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/profiling_region.hpp>
#include <herd/core/random.hpp>
#include <herd/graph/build_csr.hpp>

#include <Kokkos_Core.hpp>

#if HERD_ENABLE_KOKKOSKERNELS
#include <KokkosGraph_RCM.hpp>
#endif

namespace herd {

Ordering parse_ordering(std::string const& name) {
  if (name == "none") return Ordering::none;
  if (name == "rcm") return Ordering::rcm;
  if (name == "degree") return Ordering::degree;
  if (name == "random") return Ordering::random;
  if (name == "bfs") return Ordering::bfs;
  throw Error("unknown ordering '" + name + "' (expected none, rcm, degree, random or bfs)");
}

std::string to_string(Ordering ordering) {
  switch (ordering) {
    case Ordering::none:
      return "none";
    case Ordering::rcm:
      return "rcm";
    case Ordering::degree:
      return "degree";
    case Ordering::random:
      return "random";
    case Ordering::bfs:
      return "bfs";
  }
  return "?";
}

namespace Details {

template <class ExecutionSpace, class WeightStorage>
Kokkos::View<std::uint64_t*, typename ExecutionSpace::memory_space> ordering_keys(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph,
    Ordering ordering, std::uint64_t seed) {
  agent_index const n = graph.num_agents();
  Kokkos::View<std::uint64_t*, typename ExecutionSpace::memory_space> keys(
      Kokkos::ViewAllocateWithoutInitializing("herd::ordering::keys"), n);
  auto offsets = graph.row_offsets;
  CounterRng const rng{seed};
  bool const by_degree = ordering == Ordering::degree, shuffle = ordering == Ordering::random;
  Kokkos::parallel_for(
      "herd::ordering::keys", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n), KOKKOS_LAMBDA(agent_index i) {
        std::uint64_t const high = by_degree ? 0xffffffffu - static_cast<std::uint32_t>(offsets(i + 1) - offsets(i))
                                   : shuffle ? rng.bits(i, 0, streams::graph, 0)
                                             : 0u;
        keys(i) = (high << 32) | static_cast<std::uint32_t>(i);
      });
  return keys;
}

template <class ExecutionSpace, class WeightStorage>
Permutation<typename ExecutionSpace::memory_space> rcm(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph) {
#if HERD_ENABLE_KOKKOSKERNELS
  using memory_space = typename ExecutionSpace::memory_space;
  // Kokkos Kernels 3.4 computes RCM serially on the host; handing it host copies works with every
  // version and backend.
  auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.row_offsets);
  auto neighbours = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.neighbours);
  using host_device = Kokkos::Device<Kokkos::DefaultHostExecutionSpace, Kokkos::HostSpace>;
  auto labels = KokkosGraph::Experimental::graph_rcm<host_device>(offsets, neighbours);
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace> host_keys("herd::ordering::keys", labels.extent(0));
  for (std::size_t i = 0; i < labels.extent(0); ++i)
    host_keys(i) = (static_cast<std::uint64_t>(labels(i)) << 32) | static_cast<std::uint32_t>(i);
  auto keys = Kokkos::create_mirror_view_and_copy(memory_space(), host_keys);
  return order_by_keys(exec, keys);
#else
  (void)exec;
  (void)graph;
  throw Error("rcm ordering needs Kokkos Kernels, which this build of Herd was configured without");
#endif
}

// The pattern of `graph` with every entry both ways, each contact once and rows in order, as
// build_csr symmetrises an edge list: a breadth-first order walks this on a directed graph, whose
// one-way rows may reach few agents from any start, and it counts a row's distinct neighbours as
// its degree. No weights: the order reads the pattern alone.
template <class ExecutionSpace, class WeightStorage>
CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> both_ways(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph) {
  using memory_space = typename ExecutionSpace::memory_space;
  EdgeList<memory_space> edges;
  edges.num_agents = graph.num_agents();
  edges.sources = Kokkos::View<global_id*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::ordering::sources"), graph.num_edges());
  edges.targets = Kokkos::View<global_id*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::ordering::targets"), graph.num_edges());
  auto const offsets = graph.row_offsets;
  auto const neighbours = graph.neighbours;
  auto const sources = edges.sources, targets = edges.targets;
  Kokkos::parallel_for(
      "herd::ordering::entries", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, graph.num_agents()),
      KOKKOS_LAMBDA(agent_index i) {
        for (edge_offset e = offsets(i); e < offsets(i + 1); ++e) {
          sources(e) = static_cast<global_id>(i);
          targets(e) = static_cast<global_id>(neighbours(e));
        }
      });
  return build_csr<WeightStorage>(exec, edges);
}

}  // namespace Details

template <class ExecutionSpace, class WeightStorage>
Permutation<typename ExecutionSpace::memory_space> compute_ordering(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph,
    Ordering ordering, std::uint64_t seed) {
  Details::ProfilingRegion const region("herd::compute_ordering");
  Permutation<typename ExecutionSpace::memory_space> p;
  if (ordering == Ordering::rcm) {
    p = Details::rcm(exec, graph);
  } else if (ordering == Ordering::bfs) {
    auto const walked = graph.symmetric ? graph : Details::both_ways(exec, graph);
    p = Details::numbering(exec, Details::BreadthFirstOrder<ExecutionSpace, WeightStorage>(exec, walked).sequence());
  } else {
    p = Details::order_by_keys(exec, Details::ordering_keys(exec, graph, ordering, seed));
  }
  return p;
}

template <class ExecutionSpace, class WeightStorage>
CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> permute(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph,
    Permutation<typename ExecutionSpace::memory_space> const& permutation) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  Details::ProfilingRegion const region("herd::permute");
  agent_index const n = graph.num_agents();
  require(permutation.old_of_new.extent(0) == static_cast<std::size_t>(n),
          "permute: the permutation has " + std::to_string(permutation.old_of_new.extent(0)) +
              " entries but the graph has " + std::to_string(n) + " agents");
  auto in_offsets = graph.row_offsets;
  auto in_neighbours = graph.neighbours;
  auto in_weights = graph.weights;
  auto in_layers = graph.layers;
  auto new_of_old = permutation.new_of_old;
  auto old_of_new = permutation.old_of_new;
  bool const weighted = graph.weighted(), layered = graph.layered();

  CsrGraph<memory_space, WeightStorage> out;
  out.symmetric = graph.symmetric;
  out.row_offsets = Kokkos::View<edge_offset*, memory_space>("herd::graph::row_offsets", n + 1);
  auto offsets = out.row_offsets;
  Kokkos::parallel_scan(
      "herd::permute::offsets", policy(exec, 0, n + 1),
      KOKKOS_LAMBDA(agent_index r, edge_offset & partial, bool final) {
        if (final) offsets(r) = partial;
        if (r < n) partial += in_offsets(old_of_new(r) + 1) - in_offsets(old_of_new(r));
      });
  out.neighbours = Kokkos::View<agent_index*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::graph::neighbours"), graph.num_edges());
  if (weighted)
    out.weights = Kokkos::View<WeightStorage*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::graph::weights"), graph.num_edges());
  if (layered)
    out.layers = Kokkos::View<layer_index*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::graph::layers"), graph.num_edges());
  auto neighbours = out.neighbours;
  auto weights = out.weights;
  auto layers = out.layers;
  // Relabel each row into its new place, keeping its order: a model that picks a neighbour by its
  // place in the row (the voter model) then picks the same one whatever the labels.
  Kokkos::parallel_for(
      "herd::permute::rows", Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(exec, 0, n),
      KOKKOS_LAMBDA(agent_index r) {
        edge_offset const from = in_offsets(old_of_new(r)), to = offsets(r), length = offsets(r + 1) - offsets(r);
        for (edge_offset k = 0; k < length; ++k) neighbours(to + k) = new_of_old(in_neighbours(from + k));
        if (weighted)
          for (edge_offset k = 0; k < length; ++k) weights(to + k) = in_weights(from + k);
        if (layered)
          for (edge_offset k = 0; k < length; ++k) layers(to + k) = in_layers(from + k);
      });
  exec.fence();
  return out;
}

template <class ExecutionSpace, class WeightStorage>
double mean_edge_span(ExecutionSpace const& exec,
                      CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph) {
  agent_index const n = graph.num_agents();
  if (graph.num_edges() == 0) return 0.0;
  auto offsets = graph.row_offsets;
  auto neighbours = graph.neighbours;
  std::uint64_t total = 0;
  Kokkos::parallel_reduce(
      "herd::mean_edge_span", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n),
      KOKKOS_LAMBDA(agent_index i, std::uint64_t & sum) {
        for (edge_offset e = offsets(i); e < offsets(i + 1); ++e)
          sum += static_cast<std::uint64_t>(neighbours(e) > i ? neighbours(e) - i : i - neighbours(e));
      },
      total);
  return static_cast<double>(total) / static_cast<double>(graph.num_edges());
}

template <class ExecutionSpace>
Kokkos::View<global_id*, typename ExecutionSpace::memory_space> global_ids_of(
    ExecutionSpace const& exec, Permutation<typename ExecutionSpace::memory_space> const& permutation) {
  auto old_of_new = permutation.old_of_new;
  Kokkos::View<global_id*, typename ExecutionSpace::memory_space> ids(
      Kokkos::ViewAllocateWithoutInitializing("herd::ordering::global_ids"), old_of_new.extent(0));
  Kokkos::parallel_for(
      "herd::ordering::global_ids", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, old_of_new.extent(0)),
      KOKKOS_LAMBDA(std::size_t i) { ids(i) = old_of_new(i); });
  return ids;
}

#define HERD_INSTANTIATE_REORDER_W(EXEC, W)                                                                      \
  template Permutation<EXEC::memory_space> compute_ordering<EXEC, W>(                                            \
      EXEC const&, CsrGraph<EXEC::memory_space, W> const&, Ordering, std::uint64_t);                             \
  template CsrGraph<EXEC::memory_space, W> permute<EXEC, W>(EXEC const&, CsrGraph<EXEC::memory_space, W> const&, \
                                                            Permutation<EXEC::memory_space> const&);             \
  template double mean_edge_span<EXEC, W>(EXEC const&, CsrGraph<EXEC::memory_space, W> const&);
#define HERD_INSTANTIATE_REORDER(EXEC)                                                                               \
  template Kokkos::View<global_id*, EXEC::memory_space> global_ids_of<EXEC>(EXEC const&,                             \
                                                                            Permutation<EXEC::memory_space> const&); \
  HERD_INSTANTIATE_REORDER_W(EXEC, float)                                                                            \
  HERD_INSTANTIATE_REORDER_W(EXEC, half)

HERD_FOR_EACH_EXECUTION_SPACE(HERD_INSTANTIATE_REORDER)

}  // namespace herd
