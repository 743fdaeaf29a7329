#include <herd/graph/build_csr.hpp>

#include "row_sort.hpp"

#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <limits>
#include <string>

namespace herd {

// Not an anonymous namespace: CUDA's extended lambdas need enclosing functions with external linkage.
namespace Details {

template <class ExecutionSpace>
void check_edges(ExecutionSpace const& exec, EdgeList<typename ExecutionSpace::memory_space> const& edges) {
  require(edges.num_agents >= 0, "edge list: negative agent count " + std::to_string(edges.num_agents));
  require(edges.targets.extent(0) == edges.size(), "edge list: " + std::to_string(edges.size()) + " sources but " +
                                                       std::to_string(edges.targets.extent(0)) + " targets");
  bool const weighted = edges.weights.extent(0) != 0;
  require(!weighted || edges.weights.extent(0) == edges.size(),
          "edge list: " + std::to_string(edges.size()) + " edges but " + std::to_string(edges.weights.extent(0)) +
              " weights");
  auto const n = static_cast<global_id>(edges.num_agents);
  auto sources = edges.sources;
  auto targets = edges.targets;
  auto weights = edges.weights;
  std::size_t first_bad = std::numeric_limits<std::size_t>::max();
  Kokkos::parallel_reduce(
      "herd::build_csr::check_edges", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, edges.size()),
      KOKKOS_LAMBDA(std::size_t e, std::size_t & bad) {
        bool const ok = sources(e) >= 0 && sources(e) < n && targets(e) >= 0 && targets(e) < n &&
                        (!weighted || (weights(e) >= 0.0f && weights(e) <= 3.4e38f));
        if (!ok && e < bad) bad = e;
      },
      Kokkos::Min<std::size_t>(first_bad));
  if (first_bad == std::numeric_limits<std::size_t>::max()) return;
  global_id source, target;
  float weight = 1.0f;
  Kokkos::deep_copy(source, Kokkos::subview(sources, first_bad));
  Kokkos::deep_copy(target, Kokkos::subview(targets, first_bad));
  if (weighted) Kokkos::deep_copy(weight, Kokkos::subview(weights, first_bad));
  std::string const where = "edge list: edge " + std::to_string(first_bad) + " (" + std::to_string(source) + " -> " +
                            std::to_string(target) + ")";
  for (global_id id : {source, target}) {
    require(id >= 0, where + " has a negative agent id");
    require(id < n, where + " has an agent id not below the agent count " + std::to_string(n));
  }
  throw Error(where + " has weight " + std::to_string(weight) + "; weights must be finite and non-negative");
}

template <class ExecutionSpace>
Kokkos::View<edge_offset*, typename ExecutionSpace::memory_space> exclusive_scan(
    ExecutionSpace const& exec, Kokkos::View<edge_offset*, typename ExecutionSpace::memory_space> counts,
    char const* label) {
  // counts has n+1 entries, the last one 0: after the scan it holds the total.
  Kokkos::parallel_scan(
      label, Kokkos::RangePolicy<ExecutionSpace>(exec, 0, counts.extent(0)),
      KOKKOS_LAMBDA(std::size_t i, edge_offset & partial, bool final) {
        edge_offset const c = counts(i);
        if (final) counts(i) = partial;
        partial += c;
      });
  return counts;
}

template <class ExecutionSpace>
edge_offset last_entry(ExecutionSpace const& exec,
                       Kokkos::View<edge_offset*, typename ExecutionSpace::memory_space> v) {
  edge_offset value = 0;
  exec.fence();
  Kokkos::deep_copy(value, Kokkos::subview(v, v.extent(0) - 1));
  return value;
}

}  // namespace Details

template <class WeightStorage, class ExecutionSpace>
CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> build_csr(
    ExecutionSpace const& exec, EdgeList<typename ExecutionSpace::memory_space> const& edges,
    BuildOptions const& options) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  Kokkos::Profiling::pushRegion("herd::build_csr");
  Details::check_edges(exec, edges);

  auto const n = static_cast<std::size_t>(edges.num_agents);
  bool const weighted = edges.weights.extent(0) != 0;
  bool const both_ways = options.symmetrise;
  bool const drop_loops = options.drop_self_loops;
  auto sources = edges.sources;
  auto targets = edges.targets;
  auto in_weights = edges.weights;

  // 1. Degrees by atomic increments: integer counts do not depend on the order of updates.
  Kokkos::View<edge_offset*, memory_space> offsets("herd::graph::row_offsets", n + 1);
  Kokkos::parallel_for(
      "herd::build_csr::count", policy(exec, 0, edges.size()), KOKKOS_LAMBDA(std::size_t e) {
        auto const s = sources(e), t = targets(e);
        if (drop_loops && s == t) return;
        Kokkos::atomic_add(&offsets(s), edge_offset(1));
        if (both_ways && s != t) Kokkos::atomic_add(&offsets(t), edge_offset(1));
      });
  Details::exclusive_scan(exec, offsets, "herd::build_csr::scan_degrees");
  edge_offset const stored = Details::last_entry(exec, offsets);

  // 2. Scatter each edge into its row. The slot order depends on thread timing; the row sort below
  //    removes that dependence.
  Kokkos::View<edge_offset*, memory_space> cursor(Kokkos::ViewAllocateWithoutInitializing("herd::build_csr::cursor"),
                                                  n);
  Kokkos::deep_copy(exec, cursor, Kokkos::subview(offsets, Kokkos::make_pair(std::size_t{0}, n)));
  Kokkos::View<agent_index*, memory_space> slots(Kokkos::ViewAllocateWithoutInitializing("herd::graph::neighbours"),
                                                 stored);
  Kokkos::View<float*, memory_space> slot_weights(Kokkos::ViewAllocateWithoutInitializing("herd::build_csr::weights"),
                                                  weighted ? stored : 0);
  Kokkos::parallel_for(
      "herd::build_csr::scatter", policy(exec, 0, edges.size()), KOKKOS_LAMBDA(std::size_t e) {
        auto const s = static_cast<agent_index>(sources(e)), t = static_cast<agent_index>(targets(e));
        if (drop_loops && s == t) return;
        edge_offset const k = Kokkos::atomic_fetch_add(&cursor(s), edge_offset{1});
        slots(k) = t;
        if (weighted) slot_weights(k) = in_weights(e);
        if (both_ways && s != t) {
          edge_offset const back = Kokkos::atomic_fetch_add(&cursor(t), edge_offset{1});
          slots(back) = s;
          if (weighted) slot_weights(back) = in_weights(e);
        }
      });

  // 3. Sort every row (by neighbour, duplicates by weight descending); dynamic scheduling keeps
  //    hub rows from stalling a static chunk.
  Kokkos::parallel_for(
      "herd::build_csr::sort_rows", Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(exec, 0, n),
      KOKKOS_LAMBDA(std::size_t i) {
        edge_offset const first = offsets(i), length = offsets(i + 1) - offsets(i);
        if (weighted)
          Details::sort_row(Details::WeightedRow<float>{slots.data() + first, slot_weights.data() + first}, length);
        else
          Details::sort_row(Details::NeighbourRow{slots.data() + first}, length);
      });

  // 4. Count what each row keeps (the first of each run of duplicates, which carries the largest
  //    weight), scan, and compact.
  bool const unique = options.drop_duplicates;
  Kokkos::View<edge_offset*, memory_space> kept("herd::graph::row_offsets", n + 1);
  Kokkos::parallel_for(
      "herd::build_csr::count_kept", policy(exec, 0, n), KOKKOS_LAMBDA(std::size_t i) {
        edge_offset count = 0;
        for (edge_offset e = offsets(i); e < offsets(i + 1); ++e)
          if (!unique || e == offsets(i) || slots(e) != slots(e - 1)) ++count;
        kept(i) = count;
      });
  Details::exclusive_scan(exec, kept, "herd::build_csr::scan_kept");
  edge_offset const nnz = Details::last_entry(exec, kept);

  CsrGraph<memory_space, WeightStorage> graph;
  graph.row_offsets = kept;
  // Without duplicates the sorted slots are the neighbours already: no second array.
  bool const compact = nnz != stored;
  graph.neighbours = compact ? Kokkos::View<agent_index*, memory_space>(
                                   Kokkos::ViewAllocateWithoutInitializing("herd::graph::neighbours"), nnz)
                             : slots;
  if (weighted)
    graph.weights = Kokkos::View<WeightStorage*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::graph::weights"), nnz);
  auto out_neighbours = graph.neighbours;
  auto out_weights = graph.weights;
  if (compact) {
    Kokkos::parallel_for(
        "herd::build_csr::compact", policy(exec, 0, n), KOKKOS_LAMBDA(std::size_t i) {
          edge_offset out = kept(i);
          for (edge_offset e = offsets(i); e < offsets(i + 1); ++e) {
            if (unique && e != offsets(i) && slots(e) == slots(e - 1)) continue;
            out_neighbours(out) = slots(e);
            if (weighted) out_weights(out) = storage_traits<WeightStorage>::store(slot_weights(e));
            ++out;
          }
        });
  } else if (weighted) {
    Kokkos::parallel_for(
        "herd::build_csr::store_weights", policy(exec, 0, stored),
        KOKKOS_LAMBDA(edge_offset e) { out_weights(e) = storage_traits<WeightStorage>::store(slot_weights(e)); });
  }
  exec.fence();
  Kokkos::Profiling::popRegion();
  return graph;
}

template <class ExecutionSpace, class WeightStorage>
void validate(ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph,
              std::string const& what) {
  require(graph.row_offsets.extent(0) >= 1, what + ": row offsets are empty (need num_agents + 1 entries)");
  auto const n = static_cast<std::size_t>(graph.num_agents());
  auto const nnz = graph.num_edges();
  auto offsets = graph.row_offsets;
  auto neighbours = graph.neighbours;
  auto weights = graph.weights;
  bool const weighted = graph.weighted();
  require(!weighted || weights.extent(0) == nnz,
          what + ": " + std::to_string(nnz) + " neighbours but " + std::to_string(weights.extent(0)) + " weights");
  edge_offset first{}, last{};
  Kokkos::deep_copy(first, Kokkos::subview(offsets, 0));
  Kokkos::deep_copy(last, Kokkos::subview(offsets, n));
  require(first == 0, what + ": row offsets start at " + std::to_string(first) + ", not 0");
  require(last == nnz, what + ": the last row offset is " + std::to_string(last) + " but there are " +
                           std::to_string(nnz) + " neighbour entries");
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  std::size_t bad_row = none;
  Kokkos::parallel_reduce(
      "herd::validate::offsets", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n),
      KOKKOS_LAMBDA(std::size_t i, std::size_t & bad) {
        if (offsets(i + 1) < offsets(i) && i < bad) bad = i;
      },
      Kokkos::Min<std::size_t>(bad_row));
  require(bad_row == none, what + ": row offsets decrease after row " + std::to_string(bad_row));
  auto const limit = static_cast<agent_index>(n);
  std::size_t bad_edge = none;
  Kokkos::parallel_reduce(
      "herd::validate::neighbours", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nnz),
      KOKKOS_LAMBDA(std::size_t e, std::size_t & bad) {
        float const w = weighted ? storage_traits<WeightStorage>::load(weights(e)) : 1.0f;
        bool const ok = neighbours(e) >= 0 && neighbours(e) < limit && w >= 0.0f && w <= 3.4e38f;
        if (!ok && e < bad) bad = e;
      },
      Kokkos::Min<std::size_t>(bad_edge));
  if (bad_edge == none) return;
  agent_index neighbour{};
  Kokkos::deep_copy(neighbour, Kokkos::subview(neighbours, bad_edge));
  require(neighbour >= 0 && neighbour < limit, what + ": neighbour entry " + std::to_string(bad_edge) + " is " +
                                                   std::to_string(neighbour) + ", outside [0, " + std::to_string(n) +
                                                   ")");
  throw Error(what + ": weight of entry " + std::to_string(bad_edge) + " is negative or not finite");
}

template <class ExecutionSpace, class WeightStorage>
DegreeStats degree_stats(ExecutionSpace const& exec,
                         CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph) {
  DegreeStats stats;
  agent_index const n = graph.num_agents();
  if (n == 0) return stats;
  auto offsets = graph.row_offsets;
  using minmax = Kokkos::MinMax<agent_index>;
  typename minmax::value_type range;
  Kokkos::parallel_reduce(
      "herd::degree_stats", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n),
      KOKKOS_LAMBDA(agent_index i, typename minmax::value_type & r) {
        auto const d = static_cast<agent_index>(offsets(i + 1) - offsets(i));
        if (d < r.min_val) r.min_val = d;
        if (d > r.max_val) r.max_val = d;
      },
      minmax(range));
  stats.min_degree = range.min_val;
  stats.max_degree = range.max_val;
  stats.mean_degree = static_cast<double>(graph.num_edges()) / n;
  return stats;
}

#define HERD_INSTANTIATE_BUILD_CSR_W(EXEC, W)                                                                   \
  template CsrGraph<EXEC::memory_space, W> build_csr<W, EXEC>(EXEC const&, EdgeList<EXEC::memory_space> const&, \
                                                              BuildOptions const&);                             \
  template void validate<EXEC, W>(EXEC const&, CsrGraph<EXEC::memory_space, W> const&, std::string const&);     \
  template DegreeStats degree_stats<EXEC, W>(EXEC const&, CsrGraph<EXEC::memory_space, W> const&);
#define HERD_INSTANTIATE_BUILD_CSR(EXEC)    \
  HERD_INSTANTIATE_BUILD_CSR_W(EXEC, float) \
  HERD_INSTANTIATE_BUILD_CSR_W(EXEC, half)

HERD_FOR_EACH_EXECUTION_SPACE(HERD_INSTANTIATE_BUILD_CSR)

}  // namespace herd
