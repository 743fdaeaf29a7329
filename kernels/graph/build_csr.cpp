#include <herd/graph/build_csr.hpp>

#include "edge_entries.hpp"
#include "row_sort.hpp"
#include "scan.hpp"

#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/kokkos_compat.hpp>
#include <herd/core/profiling_region.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

namespace herd {

// Not an anonymous namespace: CUDA's extended lambdas need enclosing functions with external linkage.
namespace Details {

template <class ExecutionSpace>
void check_edges(ExecutionSpace const& exec, EdgeList<typename ExecutionSpace::memory_space> const& edges,
                 std::size_t first_id) {
  require(edges.num_agents >= 0, "edge list: negative agent count " + std::to_string(edges.num_agents));
  require(edges.targets.extent(0) == edges.size(), "edge list: " + std::to_string(edges.size()) + " sources but " +
                                                       std::to_string(edges.targets.extent(0)) + " targets");
  bool const weighted = edges.weights.extent(0) != 0;
  require(!weighted || edges.weights.extent(0) == edges.size(),
          "edge list: " + std::to_string(edges.size()) + " edges but " + std::to_string(edges.weights.extent(0)) +
              " weights");
  require(edges.layers.extent(0) == 0 || edges.layers.extent(0) == edges.size(),
          "edge list: " + std::to_string(edges.size()) + " edges but " + std::to_string(edges.layers.extent(0)) +
              " layers");
  auto const n = static_cast<global_id>(edges.num_agents);
  auto sources = edges.sources;
  auto targets = edges.targets;
  auto weights = edges.weights;
  auto layers = edges.layers;
  bool const layered = layers.extent(0) != 0;
  std::size_t first_bad = std::numeric_limits<std::size_t>::max();
  Kokkos::parallel_reduce(
      "herd::build_csr::check_edges", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, edges.size()),
      KOKKOS_LAMBDA(std::size_t e, std::size_t & bad) {
        bool const ok = sources(e) >= 0 && sources(e) < n && targets(e) >= 0 && targets(e) < n &&
                        (!weighted || (weights(e) >= 0.0f && weights(e) <= largest_float)) &&
                        (!layered || layers(e) < max_layers);
        if (!ok && e < bad) bad = e;
      },
      Kokkos::Min<std::size_t>(first_bad));
  if (first_bad == std::numeric_limits<std::size_t>::max()) return;
  global_id source, target;
  float weight = 1.0f;
  layer_index layer = 0;
  Kokkos::deep_copy(source, Kokkos::subview(sources, first_bad));
  Kokkos::deep_copy(target, Kokkos::subview(targets, first_bad));
  if (weighted) Kokkos::deep_copy(weight, Kokkos::subview(weights, first_bad));
  if (layered) Kokkos::deep_copy(layer, Kokkos::subview(layers, first_bad));
  std::string const where = "edge list: edge " + std::to_string(first_id + first_bad) + " (" + std::to_string(source) +
                            " -> " + std::to_string(target) + ")";
  require(layer < max_layers,
          where + " has layer " + std::to_string(layer) + ", outside [0, " + std::to_string(max_layers) + ")");
  for (global_id id : {source, target}) {
    require(id >= 0, where + " has a negative agent id");
    require(id < n, where + " has an agent id not below the agent count " + std::to_string(n));
  }
  throw Error(where + " has weight " + number_text(weight) + "; weights must be finite and non-negative");
}

// Where each entry goes, for the row sort: the rows' offsets (n + 1, the last the entry count), and
// each entry's neighbour, weight and layer (weights where the edges have weights or layers, layers
// where they have layers) in its row's slots, in an order that depends on thread timing.
template <class MemorySpace>
struct PlacedEntries {
  Kokkos::View<edge_offset*, MemorySpace> offsets;
  Kokkos::View<agent_index*, MemorySpace> neighbours;
  Kokkos::View<float*, MemorySpace> weights;
  Kokkos::View<layer_index*, MemorySpace> layers;
  /// Puts an entry in slot k.
  KOKKOS_INLINE_FUNCTION void put(edge_offset k, agent_index neighbour, float weight, layer_index layer) const {
    neighbours(k) = neighbour;
    if (weights.extent(0)) weights(k) = weight;
    if (layers.extent(0)) layers(k) = layer;
  }
};

// Whether sorted entry e (not a row's first) repeats the one before: the same neighbour in the same
// layer.
template <class MemorySpace>
struct Repeats {
  Kokkos::View<agent_index*, MemorySpace> neighbours;
  Kokkos::View<layer_index*, MemorySpace> layers;
  KOKKOS_INLINE_FUNCTION bool operator()(edge_offset e) const {
    return neighbours(e) == neighbours(e - 1) && (layers.extent(0) == 0 || layers(e) == layers(e - 1));
  }
};

template <class ExecutionSpace>
PlacedEntries<typename ExecutionSpace::memory_space> allocate_slots(
    ExecutionSpace const& exec, Kokkos::View<edge_offset*, typename ExecutionSpace::memory_space> offsets,
    EdgeList<typename ExecutionSpace::memory_space> const& edges) {
  using memory_space = typename ExecutionSpace::memory_space;
  edge_offset const stored = last_entry(exec, offsets);
  bool const layered = edges.layers.extent(0) != 0, weighted = layered || edges.weights.extent(0) != 0;
  return {offsets,
          Kokkos::View<agent_index*, memory_space>(Kokkos::ViewAllocateWithoutInitializing("herd::graph::neighbours"),
                                                   stored),
          Kokkos::View<float*, memory_space>(Kokkos::ViewAllocateWithoutInitializing("herd::build_csr::weights"),
                                             weighted ? stored : 0),
          Kokkos::View<layer_index*, memory_space>(Kokkos::ViewAllocateWithoutInitializing("herd::build_csr::layers"),
                                                   layered ? stored : 0)};
}

// Counts and places entries with atomic increments of one counter per row: what a GPU does well.
template <class ExecutionSpace>
PlacedEntries<typename ExecutionSpace::memory_space> place_by_atomics(
    ExecutionSpace const& exec, EdgeEntries<typename ExecutionSpace::memory_space> const& entries) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  auto const n = static_cast<std::size_t>(entries.edges.num_agents);
  Kokkos::View<edge_offset*, memory_space> offsets("herd::graph::row_offsets", n + 1);
  Kokkos::parallel_for(
      "herd::build_csr::count", policy(exec, 0, entries.edges.size()), KOKKOS_LAMBDA(std::size_t e) {
        entries(e, [&](agent_index row, agent_index, float, layer_index) {
          Kokkos::atomic_add(&offsets(row), edge_offset{1});
        });
      });
  exclusive_scan(exec, offsets, "herd::build_csr::scan_degrees");
  auto placed = allocate_slots(exec, offsets, entries.edges);
  Kokkos::View<edge_offset*, memory_space> cursor(Kokkos::ViewAllocateWithoutInitializing("herd::build_csr::cursor"),
                                                  n);
  Kokkos::deep_copy(exec, cursor, Kokkos::subview(offsets, Kokkos::make_pair(std::size_t{0}, n)));
  Kokkos::parallel_for(
      "herd::build_csr::scatter", policy(exec, 0, entries.edges.size()), KOKKOS_LAMBDA(std::size_t e) {
        entries(e, [&](agent_index row, agent_index neighbour, float w, layer_index l) {
          placed.put(Kokkos::atomic_fetch_add(&cursor(row), edge_offset{1}), neighbour, w, l);
        });
      });
  return placed;
}

// Worker w's share of the edges: [first, second).
KOKKOS_INLINE_FUNCTION Kokkos::pair<std::size_t, std::size_t> share(std::size_t edges, int workers, int w) {
  auto const parts = static_cast<std::size_t>(workers);
  return {edges * static_cast<std::size_t>(w) / parts, edges * static_cast<std::size_t>(w + 1) / parts};
}

// Counts and places entries with plain increments: each of `workers` takes a fixed share of the
// edges and counts its entries per row in counters of its own, which then become its own cursors
// into each row. On CPUs an atomic increment waits for its cache miss before the next may start,
// while plain ones overlap their misses: at 10^8 agents and 10^9 entries, where every row's
// counter misses the cache, the atomics made construction take minutes.
template <class ExecutionSpace>
PlacedEntries<typename ExecutionSpace::memory_space> place_by_workers(
    ExecutionSpace const& exec, EdgeEntries<typename ExecutionSpace::memory_space> const& entries, int workers) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  auto const n = static_cast<std::size_t>(entries.edges.num_agents);
  std::size_t const edges = entries.edges.size();
  Kokkos::View<edge_offset**, Kokkos::LayoutRight, memory_space> cursors("herd::build_csr::cursors", workers, n);
  Kokkos::parallel_for(
      "herd::build_csr::count", policy(exec, 0, workers), KOKKOS_LAMBDA(int w) {
        auto const range = share(edges, workers, w);
        for (std::size_t e = range.first; e < range.second; ++e)
          entries(e, [&](agent_index row, agent_index, float, layer_index) { ++cursors(w, row); });
      });
  Kokkos::View<edge_offset*, memory_space> offsets("herd::graph::row_offsets", n + 1);
  Kokkos::parallel_for(
      "herd::build_csr::degrees", policy(exec, 0, n), KOKKOS_LAMBDA(std::size_t i) {
        edge_offset degree = 0;
        for (int w = 0; w < workers; ++w) degree += cursors(w, i);
        offsets(i) = degree;
      });
  exclusive_scan(exec, offsets, "herd::build_csr::scan_degrees");
  auto placed = allocate_slots(exec, offsets, entries.edges);
  // Worker w's entries of row i go after those of workers 0 .. w-1.
  Kokkos::parallel_for(
      "herd::build_csr::cursors", policy(exec, 0, n), KOKKOS_LAMBDA(std::size_t i) {
        edge_offset at = offsets(i);
        for (int w = 0; w < workers; ++w) {
          edge_offset const count = cursors(w, i);
          cursors(w, i) = at;
          at += count;
        }
      });
  Kokkos::parallel_for(
      "herd::build_csr::scatter", policy(exec, 0, workers), KOKKOS_LAMBDA(int w) {
        auto const range = share(edges, workers, w);
        for (std::size_t e = range.first; e < range.second; ++e)
          entries(e, [&](agent_index row, agent_index neighbour, float weight, layer_index layer) {
            placed.put(cursors(w, row)++, neighbour, weight, layer);
          });
      });
  return placed;
}

// Workers for place_by_workers on a CPU, or 0 for atomics: a GPU has far more threads than a
// worker's counters could be afforded for, and does atomics well. The counters (8 bytes per agent
// and worker) may take about as much memory as the entries' neighbours (4 bytes per entry, two
// entries per symmetrised edge), no more; a single worker would leave the other threads idle, so
// a graph with fewer edges than agents keeps the atomics too. On a many-core CPU the cap leaves
// threads idle during the count and the scatter: fewer misses in flight than the atomics of all
// threads might have, which is to be measured there. A CPU of one thread (a rank of a distributed
// run) has one worker whatever the graph: its counters take what the atomics' cursors would.
template <class ExecutionSpace>
int host_workers(ExecutionSpace const& exec, std::size_t agents, std::size_t edges) {
  if (!std::is_same<typename ExecutionSpace::memory_space, Kokkos::HostSpace>::value || agents == 0) return 0;
  auto const threads = static_cast<std::size_t>(compat::concurrency(exec));
  if (threads == 1) return 1;
  std::size_t const workers = std::min(threads, edges / agents);
  return workers < 2 ? 0 : static_cast<int>(workers);
}

}  // namespace Details

template <class WeightStorage, class ExecutionSpace>
CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> build_csr(
    ExecutionSpace const& exec, EdgeList<typename ExecutionSpace::memory_space> const& edges,
    BuildOptions const& options) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  Details::ProfilingRegion const region("herd::build_csr");
  Details::check_edges(exec, edges, 0);

  auto const n = static_cast<std::size_t>(edges.num_agents);

  // 1. Count each row's entries, scan, and place every entry in its row.
  Details::EdgeEntries<memory_space> const entries{edges, options.drop_self_loops, options.symmetrise};
  int const workers = Details::host_workers(exec, n, edges.size());
  auto const placed =
      workers > 0 ? Details::place_by_workers(exec, entries, workers) : Details::place_by_atomics(exec, entries);
  auto const offsets = placed.offsets;
  auto const slots = placed.neighbours;
  auto const slot_weights = placed.weights;
  auto const slot_layers = placed.layers;
  auto const stored = static_cast<edge_offset>(slots.extent(0));
  bool const weighted = slot_weights.extent(0) != 0, layered = edges.layers.extent(0) != 0;

  // 2. Sort every row (by neighbour, then layer, repeats by weight descending); dynamic scheduling
  //    keeps hub rows from stalling a static chunk.
  Kokkos::parallel_for(
      "herd::build_csr::sort_rows", Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(exec, 0, n),
      KOKKOS_LAMBDA(std::size_t i) {
        Details::sort_row_at<float>(slots, slot_layers, slot_weights, offsets(i), offsets(i + 1) - offsets(i));
      });

  // 3. Count what each row keeps (the first of each run of repeats, which carries the largest
  //    weight), scan, and compact.
  bool const unique = options.drop_duplicates;
  Details::Repeats<memory_space> const repeats{slots, slot_layers};
  Kokkos::View<edge_offset*, memory_space> kept("herd::graph::row_offsets", n + 1);
  Kokkos::parallel_for(
      "herd::build_csr::count_kept", policy(exec, 0, n), KOKKOS_LAMBDA(std::size_t i) {
        edge_offset count = 0;
        for (edge_offset e = offsets(i); e < offsets(i + 1); ++e)
          if (!unique || e == offsets(i) || !repeats(e)) ++count;
        kept(i) = count;
      });
  Details::exclusive_scan(exec, kept, "herd::build_csr::scan_kept");
  edge_offset const nnz = Details::last_entry(exec, kept);

  CsrGraph<memory_space, WeightStorage> graph;
  graph.symmetric = options.symmetrise;
  graph.row_offsets = kept;
  // Without duplicates the sorted slots are the neighbours already: no second array.
  bool const compact = nnz != stored;
  graph.neighbours = compact ? Kokkos::View<agent_index*, memory_space>(
                                   Kokkos::ViewAllocateWithoutInitializing("herd::graph::neighbours"), nnz)
                             : slots;
  if (weighted)
    graph.weights = Kokkos::View<WeightStorage*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::graph::weights"), nnz);
  if (layered)
    graph.layers = compact ? Kokkos::View<layer_index*, memory_space>(
                                 Kokkos::ViewAllocateWithoutInitializing("herd::graph::layers"), nnz)
                           : slot_layers;
  auto out_neighbours = graph.neighbours;
  auto out_weights = graph.weights;
  auto out_layers = graph.layers;
  if (compact) {
    Kokkos::parallel_for(
        "herd::build_csr::compact", policy(exec, 0, n), KOKKOS_LAMBDA(std::size_t i) {
          edge_offset out = kept(i);
          for (edge_offset e = offsets(i); e < offsets(i + 1); ++e) {
            if (unique && e != offsets(i) && repeats(e)) continue;
            out_neighbours(out) = slots(e);
            if (weighted) out_weights(out) = storage_traits<WeightStorage>::store(slot_weights(e));
            if (layered) out_layers(out) = slot_layers(e);
            ++out;
          }
        });
  } else if (weighted) {
    Kokkos::parallel_for(
        "herd::build_csr::store_weights", policy(exec, 0, stored),
        KOKKOS_LAMBDA(edge_offset e) { out_weights(e) = storage_traits<WeightStorage>::store(slot_weights(e)); });
  }
  exec.fence();
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
  auto layers = graph.layers;
  bool const weighted = graph.weighted();
  bool const layered = graph.layered();
  require(!weighted || weights.extent(0) == nnz,
          what + ": " + std::to_string(nnz) + " neighbours but " + std::to_string(weights.extent(0)) + " weights");
  require(!graph.layered() || graph.layers.extent(0) == nnz,
          what + ": " + std::to_string(nnz) + " neighbours but " + std::to_string(graph.layers.extent(0)) + " layers");
  require(!graph.layered() || weighted, what + ": layers without weights (a layered graph has weights)");
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
        bool const ok = neighbours(e) >= 0 && neighbours(e) < limit && w >= 0.0f && w <= largest_float &&
                        (!layered || layers(e) < max_layers);
        if (!ok && e < bad) bad = e;
      },
      Kokkos::Min<std::size_t>(bad_edge));
  if (bad_edge == none) return;
  agent_index neighbour{};
  Kokkos::deep_copy(neighbour, Kokkos::subview(neighbours, bad_edge));
  layer_index layer = 0;
  if (layered) Kokkos::deep_copy(layer, Kokkos::subview(layers, bad_edge));
  require(layer < max_layers, what + ": entry " + std::to_string(bad_edge) + " has layer " + std::to_string(layer) +
                                  ", outside [0, " + std::to_string(max_layers) + ")");
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
#define HERD_INSTANTIATE_BUILD_CSR(EXEC)                                                                   \
  template void Details::check_edges<EXEC>(EXEC const&, EdgeList<EXEC::memory_space> const&, std::size_t); \
  HERD_INSTANTIATE_BUILD_CSR_W(EXEC, float)                                                                \
  HERD_INSTANTIATE_BUILD_CSR_W(EXEC, half)

HERD_FOR_EACH_EXECUTION_SPACE(HERD_INSTANTIATE_BUILD_CSR)

}  // namespace herd
