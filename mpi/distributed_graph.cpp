#include <herd/mpi/distributed_graph.hpp>

#include "blocks.hpp"
#include "entry_routing.hpp"
#include "exchange.hpp"
#include "share_numbering.hpp"

#include "../kernels/graph/row_sort.hpp"
#include "../kernels/graph/scan.hpp"

#include <herd/core/bit_cast.hpp>
#include <herd/core/device_pass.hpp>
#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/kokkos_compat.hpp>
#include <herd/core/profiling_region.hpp>
#include <herd/detail/counters.hpp>
#include <herd/graph/build_csr.hpp>
#include <herd/graph/graph_hash.hpp>
#include <herd/io/device_copy.hpp>
#include <herd/mpi/collective.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace herd::mpi {

// Not an anonymous namespace: CUDA's extended lambdas need enclosing functions with external linkage.
namespace Details {

using herd::Details::fetch_add;
using herd::Details::fetch_or;
using herd::Details::shared_counters;

// How many messages ahead the passes over a round's messages ask, on a CPU, for what they update
// at random: the count of the message's row; in placing, the row's cursor, then the slot that the
// cursor names. Asked for ahead, the misses overlap: counting and placing took about 60 % less
// time on a rank of one thread.
inline constexpr std::size_t place_ahead = 64;

// The first pass: each row's entries, and whether it reads a ghost (reads_ghost_bit), in block order.
template <bool Shared, class ExecutionSpace, class Marks>
void count_marks(ExecutionSpace const& exec, Marks const& marks,
                 Kokkos::View<edge_offset*, typename ExecutionSpace::memory_space> entries) {
  Kokkos::parallel_for(
      "herd::distributed_graph::count_entries", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, marks.extent(0)),
      KOKKOS_LAMBDA(std::size_t k) {
        RowMark const mark = marks(k);
        auto& count = entries(static_cast<std::size_t>(mark & ~reads_ghost_mark));
#if !HERD_DEVICE_PASS && (defined(__GNUC__) || defined(__clang__))
        if (k + place_ahead < marks.extent(0))
          __builtin_prefetch(entries.data() + (marks(k + place_ahead) & ~reads_ghost_mark), 1);
#endif
        edge_offset const flag = (mark & reads_ghost_mark) != 0 ? reads_ghost_bit : 0;
        if constexpr (Shared) {
          Kokkos::atomic_add(&count, edge_offset{1});
          if (flag != 0) Kokkos::atomic_fetch_or(&count, flag);
        } else {
          count = (count + 1) | flag;
        }
      });
}

// A second-pass message's weight and layer, where it carries them.
template <class Weights, class Layers>
KOKKOS_INLINE_FUNCTION void put_weight_and_layer(Pair const&, edge_offset, Weights const&, Layers const&, bool, bool) {}
template <class Weights, class Layers>
KOKKOS_INLINE_FUNCTION void put_weight_and_layer(Entry const& entry, edge_offset slot, Weights const& weights,
                                                 Layers const& layers, bool weighted, bool layered) {
  using W = typename Weights::non_const_value_type;
  if (weighted) weights(slot) = storage_traits<W>::store(entry.weight);
  if (layered) layers(slot) = entry.layer;
}

// The second pass: each entry put in its row's next slot, and the ghosts it names marked.
template <bool Shared, class ExecutionSpace, class Messages, class WeightStorage>
void place_messages(ExecutionSpace const& exec, Messages const& messages,
                    Kokkos::View<edge_offset*, typename ExecutionSpace::memory_space> cursor,
                    CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph,
                    Kokkos::View<std::uint32_t*, typename ExecutionSpace::memory_space> ghost_bits, global_id first,
                    global_id end) {
  using Message = typename Messages::non_const_value_type;
  static_assert(std::is_same_v<Message, Pair> || std::is_same_v<Message, Entry>);
  auto neighbours = graph.neighbours;
  auto weights = graph.weights;
  auto layers = graph.layers;
  auto const stored = static_cast<edge_offset>(neighbours.extent(0));
  bool const weighted = graph.weighted(), layered = graph.layered();
  Kokkos::parallel_for(
      "herd::distributed_graph::place_entries", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, messages.extent(0)),
      KOKKOS_LAMBDA(std::size_t k) {
        Message const message = messages(k);
        edge_offset const slot = fetch_add<Shared>(cursor(static_cast<std::size_t>(message.row)), edge_offset{1});
        // A source that made other edges the second time would overflow a row, which the check of
        // the rows' ends below refuses on every rank; only the arrays' end is guarded here, so
        // that an entry reads no row's end (a cache miss of its own).
        if (slot >= stored) return;
#if !HERD_DEVICE_PASS && (defined(__GNUC__) || defined(__clang__))
        // The row cursor of the message place_ahead on, and the slot of the one half as far on,
        // whose cursor was asked for before (where no other thread moves the cursors).
        if (k + place_ahead < messages.extent(0)) __builtin_prefetch(cursor.data() + messages(k + place_ahead).row, 1);
        if (!Shared && k + place_ahead / 2 < messages.extent(0))
          __builtin_prefetch(neighbours.data() + cursor(static_cast<std::size_t>(messages(k + place_ahead / 2).row)),
                             1);
#endif
        global_id const j = message.neighbour;
        neighbours(slot) = message.neighbour;
        put_weight_and_layer(message, slot, weights, layers, weighted, layered);
        if (j < first || j >= end)
          fetch_or<Shared>(ghost_bits(static_cast<std::size_t>(j / 32)), std::uint32_t{1} << (j % 32));
      });
}

// Moves each row from its place under graph.row_offsets to its place under `kept`, which ends no
// later (duplicates were dropped from the rows' ends). On the host the rows move in order, in
// place, as kept(r) <= offsets(r); a GPU copies into new arrays.
template <class ExecutionSpace, class WeightStorage>
void close_gaps(ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage>& graph,
                Kokkos::View<edge_offset*, typename ExecutionSpace::memory_space> kept) {
  using memory_space = typename ExecutionSpace::memory_space;
  auto const rows = static_cast<std::size_t>(kept.extent(0) - 1);
  auto offsets = graph.row_offsets;
  auto neighbours = graph.neighbours;
  auto weights = graph.weights;
  auto layers = graph.layers;
  bool const weighted = graph.weighted(), layered = graph.layered();
  edge_offset const nnz = herd::Details::last_entry(exec, kept);
  auto const all = Kokkos::make_pair(edge_offset{0}, nnz);
  if constexpr (herd::Details::runs_on_host_v<ExecutionSpace>) {
    for (std::size_t r = 0; r < rows; ++r) {
      auto const length = static_cast<std::size_t>(kept(r + 1) - kept(r));
      std::memmove(neighbours.data() + kept(r), neighbours.data() + offsets(r), length * sizeof(agent_index));
      if (weighted) std::memmove(weights.data() + kept(r), weights.data() + offsets(r), length * sizeof(WeightStorage));
      if (layered) std::memmove(layers.data() + kept(r), layers.data() + offsets(r), length * sizeof(layer_index));
    }
    graph.neighbours = Kokkos::subview(neighbours, all);
    if (weighted) graph.weights = Kokkos::subview(weights, all);
    if (layered) graph.layers = Kokkos::subview(layers, all);
  } else {
    Kokkos::View<agent_index*, memory_space> moved(Kokkos::ViewAllocateWithoutInitializing("herd::local::neighbours"),
                                                   nnz);
    Kokkos::View<WeightStorage*, memory_space> moved_weights(
        Kokkos::ViewAllocateWithoutInitializing("herd::local::weights"), weighted ? nnz : 0);
    Kokkos::View<layer_index*, memory_space> moved_layers(
        Kokkos::ViewAllocateWithoutInitializing("herd::local::layers"), layered ? nnz : 0);
    Kokkos::parallel_for(
        "herd::distributed_graph::close_gaps", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, rows),
        KOKKOS_LAMBDA(std::size_t r) {
          for (edge_offset k = 0; k < kept(r + 1) - kept(r); ++k) {
            moved(kept(r) + k) = neighbours(offsets(r) + k);
            if (weighted) moved_weights(kept(r) + k) = weights(offsets(r) + k);
            if (layered) moved_layers(kept(r) + k) = layers(offsets(r) + k);
          }
        });
    graph.neighbours = moved;
    graph.weights = moved_weights;
    graph.layers = moved_layers;
  }
  graph.row_offsets = kept;
}

// The share built from this rank's edges of `source`, those of `rounds`.
template <class WeightStorage, class ExecutionSpace>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> build_share(
    ExecutionSpace const& exec, MPI_Comm comm, EdgeSource<typename ExecutionSpace::memory_space> const& source,
    BuildOptions const& options, Rounds const& rounds) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  int const rank = rank_of(comm), parts = size_of(comm);
  collectively(comm, [&] {
    herd::require(source.agents >= parts, "cannot split " + std::to_string(source.agents) + " agents into " +
                                              std::to_string(parts) +
                                              " parts: every rank needs at least one agent (use fewer ranks)");
  });
  Details::Blocks const blocks{source.agents, parts};
  global_id const first = blocks.begin(rank), end = blocks.begin(rank + 1);
  auto const owned = static_cast<agent_index>(end - first);

  Details::BlockStarts<memory_space> const starts(blocks);
  bool const shared = Details::shared_counters(exec);

  // 1. Count each owned row's entries, and whether it reads a ghost.
  Kokkos::View<edge_offset*, memory_space> row_entries("herd::distributed_graph::row_entries", owned);
  for (std::size_t k = 0; k < rounds.rounds; ++k)
    Details::route_round(exec, comm, source, options, starts, rounds, k, Details::MarkRow{}, [&](auto const& marks) {
      if (shared)
        Details::count_marks<true>(exec, marks, row_entries);
      else
        Details::count_marks<false>(exec, marks, row_entries);
    });

  // 2. Local order of the rows: interior, boundary, each ascending.
  Kokkos::View<agent_index*, memory_space> local_of;
  bool const weighted = source.weighted || source.layered, layered = source.layered;
  auto local = Details::number_rows<WeightStorage>(exec, row_entries, blocks, rank, weighted, layered, local_of);
  local.mirrored = options.symmetrise;
  auto& graph = local.graph;
  auto const offsets = graph.row_offsets;
  auto const stored = static_cast<edge_offset>(graph.neighbours.extent(0));
  // 3. The second pass places each entry in its row and marks the ghosts. The rows' cursors are
  //    kept in the block's order, as the entries name their rows, so that an entry finds its slot
  //    with one read.
  Details::GhostBits<memory_space> ghost_bits;
  ghost_bits.bits = Kokkos::View<std::uint32_t*, memory_space>("herd::distributed_graph::ghost_bits",
                                                               (static_cast<std::size_t>(source.agents) + 31) / 32);
  {
    Kokkos::View<edge_offset*, memory_space> cursor(
        Kokkos::ViewAllocateWithoutInitializing("herd::distributed_graph::cursor"), owned);
    Kokkos::parallel_for(
        "herd::distributed_graph::row_cursors", policy(exec, 0, owned),
        KOKKOS_LAMBDA(agent_index b) { cursor(b) = offsets(local_of(b)); });
    auto place = [&](auto const& messages) {
      if (shared)
        Details::place_messages<true>(exec, messages, cursor, graph, ghost_bits.bits, first, end);
      else
        Details::place_messages<false>(exec, messages, cursor, graph, ghost_bits.bits, first, end);
    };
    for (std::size_t k = 0; k < rounds.rounds; ++k) {
      if (weighted)
        Details::route_round(exec, comm, source, options, starts, rounds, k, Details::MakeEntry{}, place);
      else
        Details::route_round(exec, comm, source, options, starts, rounds, k, Details::MakePair{}, place);
    }
    agent_index unfilled = 0;
    Kokkos::parallel_reduce(
        "herd::distributed_graph::check_rows", policy(exec, 0, owned),
        KOKKOS_LAMBDA(agent_index b, agent_index & bad) { bad += cursor(b) != offsets(local_of(b) + 1) ? 1 : 0; },
        unfilled);
    collectively(comm, [&] {
      herd::require(unfilled == 0, "edge source: " + std::to_string(unfilled) +
                                       " rows received other entries the second time their edges were made; a "
                                       "slice must be a function of its edge ids alone");
    });
  }
  // Then the ghosts, ascending, which is by owner.
  Details::number_ghosts(exec, ghost_bits, blocks, local_of, local);

  // 4. Each row sorted by global neighbour (then layer, repeats by weight, largest first), as
  //    build_csr sorts it; then repeats dropped and neighbours renumbered to local indices in place.
  auto neighbours = graph.neighbours;
  auto weights = graph.weights;
  auto layers = graph.layers;
  bool const unique = options.drop_duplicates;
  Kokkos::View<edge_offset*, memory_space> kept("herd::local::row_offsets", owned + 1);
  edge_offset cut = 0;
  Kokkos::parallel_reduce(
      "herd::distributed_graph::sort_rows",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(exec, 0, owned),
      KOKKOS_LAMBDA(agent_index r, edge_offset & cut_sum) {
        edge_offset const row = offsets(r), length = offsets(r + 1) - row;
        herd::Details::sort_row_at<WeightStorage>(neighbours, layers, weights, row, length);
        // Entries are renumbered where they lie, so the previous global id is kept aside.
        edge_offset out = row;
        agent_index previous = 0;
        layer_index previous_layer = 0;
        for (edge_offset e = row; e < row + length; ++e) {
          agent_index const j = neighbours(e);
          layer_index const l = layered ? layers(e) : layer_index{0};
          if (unique && e != row && j == previous && l == previous_layer) continue;
          previous = j;
          previous_layer = l;
          bool const is_owned = j >= first && j < end;
          neighbours(out) = is_owned ? local_of(static_cast<std::size_t>(j - first)) : owned + ghost_bits.rank(j);
          if (weighted) weights(out) = weights(e);
          if (layered) layers(out) = l;
          if (!is_owned) ++cut_sum;
          ++out;
        }
        kept(r) = out - row;
      },
      cut);
  local.cut_edges = cut;
  local_of = {};
  herd::Details::exclusive_scan(exec, kept, "herd::distributed_graph::kept_offsets");
  if (herd::Details::last_entry(exec, kept) != stored)
    Details::close_gaps(exec, graph, kept);
  else
    graph.row_offsets = kept;
  exec.fence();
  return local;
}

}  // namespace Details

template <class WeightStorage, class ExecutionSpace>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> build_local_graph(
    ExecutionSpace const& exec, MPI_Comm comm, EdgeSource<typename ExecutionSpace::memory_space> const& source,
    BuildOptions const& options, std::size_t round_edges) {
  herd::Details::ProfilingRegion const region("herd::build_local_graph");
  // Each rank makes its slice of one source: other counts would make slices of other graphs.
  require_same(comm, "build_local_graph",
               {{"edge sources' agent counts", source.agents},
                {"edge sources' edge counts", static_cast<std::int64_t>(source.edges)},
                {"edge sources' weights (1: weighted)", source.weighted ? 1 : 0},
                {"edge sources' layers (1: layered)", source.layered ? 1 : 0}});
  auto const rounds = Details::even_rounds(source.edges, size_of(comm), rank_of(comm), round_edges);
  return Details::build_share<WeightStorage>(exec, comm, source, options, rounds);
}

namespace Details {

// The kinds of entries the ranks hold, ORed over `comm`: with weights (2) and without (1), with
// layers (8) and without (4); a rank of no entries says neither. Refuses, on every rank, ranks
// that name different agent counts, or some of whose entries have weights or layers where others'
// have none. `what`: what the ranks hold, for the messages ("edges", "rows").
inline int agreed_kinds(MPI_Comm comm, agent_index agents, std::size_t count, bool weighted, bool layered,
                        std::string const& what) {
  int kinds = count == 0 ? 0 : (weighted ? 2 : 1) | (layered ? 8 : 4);
  MPI_Allreduce(MPI_IN_PLACE, &kinds, 1, MPI_INT, MPI_BOR, comm);
  int extent[2] = {-agents, agents};
  MPI_Allreduce(MPI_IN_PLACE, extent, 2, MPI_INT, MPI_MAX, comm);
  collectively(comm, [&] {
    herd::require(-extent[0] == extent[1], "build_local_graph: the ranks' " + what + " are of graphs of " +
                                               std::to_string(-extent[0]) + " to " + std::to_string(extent[1]) +
                                               " agents; they must all name the graph's agent count");
    herd::require((kinds & 3) != 3, "build_local_graph: some ranks' " + what + " have weights and others' have none");
    herd::require((kinds & 12) != 12, "build_local_graph: some ranks' " + what + " have layers and others' have none");
  });
  return kinds;
}

// The share built from edges each rank holds, `count` of them, after the lower ranks' edges.
// `slice(first, n)` gives this rank's edges [first, first + n) of all, in the execution space's memory.
template <class WeightStorage, class ExecutionSpace, class Slice>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> build_held(ExecutionSpace const& exec, MPI_Comm comm,
                                                                            agent_index agents, std::size_t count,
                                                                            std::size_t weights, std::size_t layers,
                                                                            Slice slice, BuildOptions const& options,
                                                                            std::size_t round_edges) {
  std::uint64_t const held = count;
  std::uint64_t below = 0, total = 0, most = 0;
  MPI_Exscan(&held, &below, 1, MPI_UINT64_T, MPI_SUM, comm);
  if (rank_of(comm) == 0) below = 0;
  MPI_Allreduce(&held, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
  MPI_Allreduce(&held, &most, 1, MPI_UINT64_T, MPI_MAX, comm);
  int const kinds = agreed_kinds(comm, agents, count, weights != 0, layers != 0, "edges");
  collectively(comm, [&] {
    herd::require(weights == 0 || weights == count,
                  "build_local_graph: " + std::to_string(weights) + " weights for " + std::to_string(count) + " edges");
    herd::require(layers == 0 || layers == count,
                  "build_local_graph: " + std::to_string(layers) + " layers for " + std::to_string(count) + " edges");
  });
  EdgeSource<typename ExecutionSpace::memory_space> source;
  source.agents = agents;
  source.edges = static_cast<std::size_t>(total);
  source.weighted = (kinds & 2) != 0;
  source.layered = (kinds & 8) != 0;
  auto const offset = static_cast<std::size_t>(below);
  source.slice = [slice, offset](std::size_t first, std::size_t n) { return slice(first - offset, n); };
  auto const rounds = rounds_of(offset, count, static_cast<std::size_t>(most), size_of(comm), round_edges);
  return build_share<WeightStorage>(exec, comm, source, options, rounds);
}

}  // namespace Details

template <class WeightStorage, class ExecutionSpace>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> build_local_graph(
    ExecutionSpace const& exec, MPI_Comm comm, EdgeList<typename ExecutionSpace::memory_space> const& edges,
    BuildOptions const& options, std::size_t round_edges) {
  using memory_space = typename ExecutionSpace::memory_space;
  herd::Details::ProfilingRegion const region("herd::build_local_graph");
  auto slice = [edges](std::size_t first, std::size_t n) {
    auto const range = Kokkos::make_pair(first, first + n);
    EdgeList<memory_space> part;
    part.num_agents = edges.num_agents;
    part.sources = Kokkos::subview(edges.sources, range);
    part.targets = Kokkos::subview(edges.targets, range);
    if (edges.weights.extent(0) != 0) part.weights = Kokkos::subview(edges.weights, range);
    if (edges.layers.extent(0) != 0) part.layers = Kokkos::subview(edges.layers, range);
    return part;
  };
  return Details::build_held<WeightStorage>(exec, comm, edges.num_agents, edges.size(), edges.weights.extent(0),
                                            edges.layers.extent(0), slice, options, round_edges);
}

template <class WeightStorage, class ExecutionSpace>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> build_local_graph(
    ExecutionSpace const& exec, MPI_Comm comm, EdgePart<typename ExecutionSpace::memory_space> const& part,
    BuildOptions const& options, std::size_t round_edges) {
  herd::Details::ProfilingRegion const region("herd::build_local_graph");
  return Details::build_held<WeightStorage>(exec, comm, part.agents, part.edges, part.weighted ? part.edges : 0,
                                            part.layered ? part.edges : 0, part.slice, options, round_edges);
}

template <class WeightStorage, class ExecutionSpace>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> build_local_graph(ExecutionSpace const& exec,
                                                                                   MPI_Comm comm,
                                                                                   HostEdgeList const& edges,
                                                                                   BuildOptions const& options,
                                                                                   std::size_t round_edges) {
  using memory_space = typename ExecutionSpace::memory_space;
  herd::Details::ProfilingRegion const region("herd::build_local_graph");
  // A round's edges where the kernels can read them: the host's own vectors, or a copy of the
  // round on a device, which then never holds all of this rank's edges at once.
  auto slice = [&edges, exec](std::size_t first, std::size_t n) {
    auto view_of = [&](auto const& vector) {
      using T = typename std::decay_t<decltype(vector)>::value_type;
      return Kokkos::View<T const*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(vector.data() + first,
                                                                                                n);
    };
    EdgeList<memory_space> part;
    part.num_agents = edges.num_agents;
    if constexpr (std::is_same_v<memory_space, Kokkos::HostSpace>) {
      // The round read in place: the kernels only read it.
      (void)exec;
      part.sources = Kokkos::View<global_id*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          const_cast<global_id*>(edges.sources.data() + first), n);
      part.targets = Kokkos::View<global_id*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          const_cast<global_id*>(edges.targets.data() + first), n);
      if (!edges.weights.empty())
        part.weights = Kokkos::View<float*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
            const_cast<float*>(edges.weights.data() + first), n);
      if (!edges.layers.empty())
        part.layers = Kokkos::View<layer_index*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
            const_cast<layer_index*>(edges.layers.data() + first), n);
    } else {
      part.sources = Kokkos::View<global_id*, memory_space>(
          Kokkos::ViewAllocateWithoutInitializing("herd::distributed_graph::round_sources"), n);
      part.targets = Kokkos::View<global_id*, memory_space>(
          Kokkos::ViewAllocateWithoutInitializing("herd::distributed_graph::round_targets"), n);
      Kokkos::deep_copy(exec, part.sources, view_of(edges.sources));
      Kokkos::deep_copy(exec, part.targets, view_of(edges.targets));
      if (!edges.weights.empty()) {
        part.weights = Kokkos::View<float*, memory_space>(
            Kokkos::ViewAllocateWithoutInitializing("herd::distributed_graph::round_weights"), n);
        Kokkos::deep_copy(exec, part.weights, view_of(edges.weights));
      }
      if (!edges.layers.empty()) {
        part.layers = Kokkos::View<layer_index*, memory_space>(
            Kokkos::ViewAllocateWithoutInitializing("herd::distributed_graph::round_layers"), n);
        Kokkos::deep_copy(exec, part.layers, view_of(edges.layers));
      }
    }
    return part;
  };
  return Details::build_held<WeightStorage>(exec, comm, edges.num_agents, edges.sources.size(), edges.weights.size(),
                                            edges.layers.size(), slice, options, round_edges);
}

namespace Details {

// Step 1 of a share from its own rows: each row's entries, with reads_ghost_bit where it reads an
// agent outside the block, and those agents' bits.
template <bool Shared, class ExecutionSpace, class Offsets, class Neighbours>
void count_rows(ExecutionSpace const& exec, Offsets const& offsets, Neighbours const& neighbours,
                Kokkos::View<edge_offset*, typename ExecutionSpace::memory_space> entries,
                Kokkos::View<std::uint32_t*, typename ExecutionSpace::memory_space> bits, global_id first,
                global_id end) {
  Kokkos::parallel_for(
      "herd::distributed_graph::count_rows",
      Kokkos::RangePolicy<ExecutionSpace>(exec, 0, static_cast<agent_index>(entries.extent(0))),
      KOKKOS_LAMBDA(agent_index l) {
        edge_offset reads = 0;
        for (edge_offset e = offsets(l); e < offsets(l + 1); ++e) {
          global_id const j = neighbours(e);
          if (j >= first && j < end) continue;
          reads = reads_ghost_bit;
          fetch_or<Shared>(bits(static_cast<std::size_t>(j / 32)), std::uint32_t{1} << (j % 32));
        }
        entries(l) = (offsets(l + 1) - offsets(l)) | reads;
      });
}

// A host vector where the kernels of `MemorySpace` read it: in place on the host, else a copy.
template <class MemorySpace, class T>
auto readable(std::vector<T> const& vector) {
  Kokkos::View<T const*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(vector.data(), vector.size());
  return Kokkos::create_mirror_view_and_copy(MemorySpace(), host);
}

}  // namespace Details

template <class WeightStorage, class ExecutionSpace>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> build_local_graph(ExecutionSpace const& exec,
                                                                                   MPI_Comm comm,
                                                                                   HostRows const& rows) {
  using memory_space = typename ExecutionSpace::memory_space;
  herd::Details::ProfilingRegion const region("herd::build_local_graph");
  int const rank = rank_of(comm), parts = size_of(comm);
  auto const entries = rows.neighbours.size();
  int const kinds =
      Details::agreed_kinds(comm, rows.num_agents, entries, !rows.weights.empty(), !rows.layers.empty(), "rows");
  Details::Blocks const blocks{rows.num_agents, parts};
  global_id const first = blocks.begin(rank), end = blocks.begin(rank + 1);
  auto const owned = static_cast<agent_index>(end - first);
  collectively(comm, [&] {
    herd::require(rows.num_agents >= parts, "cannot split " + std::to_string(rows.num_agents) + " agents into " +
                                                std::to_string(parts) +
                                                " parts: every rank needs at least one agent (use fewer ranks)");
    herd::require(rows.first == first && rows.rows() == owned,
                  "build_local_graph: rank " + std::to_string(rank) + " holds rows " + std::to_string(rows.first) +
                      " to " + std::to_string(rows.first + static_cast<global_id>(rows.rows())) + ", not its block, " +
                      std::to_string(first) + " to " + std::to_string(end));
    herd::require(rows.row_offsets.front() == 0 && rows.row_offsets.back() == entries,
                  "build_local_graph: row offsets that do not span the rows' entries");
    herd::require(rows.weights.empty() || rows.weights.size() == entries,
                  "build_local_graph: " + std::to_string(rows.weights.size()) + " weights for " +
                      std::to_string(entries) + " entries");
    herd::require(rows.layers.empty() || rows.layers.size() == entries,
                  "build_local_graph: " + std::to_string(rows.layers.size()) + " layers for " +
                      std::to_string(entries) + " entries");
  });
  bool const has_weights = !rows.weights.empty(), layered = (kinds & 8) != 0;
  auto const offsets_in = Details::readable<memory_space>(rows.row_offsets);
  auto const neighbours_in = Details::readable<memory_space>(rows.neighbours);

  // 1. Each row's entries, and the ghosts.
  Kokkos::View<edge_offset*, memory_space> row_entries("herd::distributed_graph::row_entries", owned);
  Details::GhostBits<memory_space> ghost_bits;
  ghost_bits.bits = Kokkos::View<std::uint32_t*, memory_space>("herd::distributed_graph::ghost_bits",
                                                               (static_cast<std::size_t>(rows.num_agents) + 31) / 32);
  if (Details::shared_counters(exec))
    Details::count_rows<true>(exec, offsets_in, neighbours_in, row_entries, ghost_bits.bits, first, end);
  else
    Details::count_rows<false>(exec, offsets_in, neighbours_in, row_entries, ghost_bits.bits, first, end);

  // 2. Local order: rows, then ghosts.
  Kokkos::View<agent_index*, memory_space> local_of;
  auto local =
      Details::number_rows<WeightStorage>(exec, row_entries, blocks, rank, (kinds & 10) != 0, layered, local_of);
  local.mirrored = rows.symmetric;
  Details::number_ghosts(exec, ghost_bits, blocks, local_of, local);

  // 3. Each row copied to its place in local order, its neighbours renumbered to local indices.
  auto const weights_in = Details::readable<memory_space>(rows.weights);
  auto const layers_in = Details::readable<memory_space>(rows.layers);
  auto const ids = local.ids;
  auto const graph = local.graph;
  bool const weighted = graph.weighted();
  edge_offset cut = 0;
  Kokkos::parallel_reduce(
      "herd::distributed_graph::place_rows", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, owned),
      KOKKOS_LAMBDA(agent_index r, edge_offset & cut_sum) {
        auto const l = static_cast<std::size_t>(ids(r) - first);
        edge_offset out = graph.row_offsets(r);
        for (edge_offset e = offsets_in(l); e < offsets_in(l + 1); ++e, ++out) {
          global_id const j = neighbours_in(e);
          bool const is_owned = j >= first && j < end;
          graph.neighbours(out) = is_owned ? local_of(static_cast<std::size_t>(j - first)) : owned + ghost_bits.rank(j);
          // A layered graph is weighted (build_csr's rule): weights 1 where the entries have none.
          if (weighted) graph.weights(out) = storage_traits<WeightStorage>::store(has_weights ? weights_in(e) : 1.0f);
          if (layered) graph.layers(out) = layers_in(e);
          if (!is_owned) ++cut_sum;
        }
      },
      cut);
  local.cut_edges = cut;
  exec.fence();
  return local;
}

namespace {

// A row's agent and entries, on its way to the rank whose block holds the agent.
struct RowDegree {
  global_id agent;
  edge_offset degree;
};

// Where each of this rank's rows (agents `ids`, `degrees` entries) begins in the whole graph,
// whatever the partition: each degree goes to the rank whose contiguous block holds its agent,
// which numbers its block's rows in id order after the rows of lower blocks, and answers.
std::vector<edge_offset> row_starts_by_blocks(MPI_Comm comm, global_id agents, std::vector<global_id> const& ids,
                                              std::vector<edge_offset> const& degrees) {
  int const rank = rank_of(comm), parts = size_of(comm);
  Details::Blocks const blocks{agents, parts};
  std::vector<std::size_t> counts(static_cast<std::size_t>(parts), 0);
  for (auto g : ids) ++counts[static_cast<std::size_t>(blocks.owner(g))];
  auto const begin = Details::group_begins(counts);
  std::vector<RowDegree> outgoing(ids.size());
  std::vector<std::size_t> slot(ids.size());
  {
    auto next = begin;
    for (std::size_t r = 0; r < ids.size(); ++r) {
      slot[r] = next[static_cast<std::size_t>(blocks.owner(ids[r]))]++;
      outgoing[slot[r]] = {ids[r], degrees[r]};
    }
  }
  std::vector<std::size_t> from;
  auto incoming = Details::exchange(comm, outgoing, begin, from, "graph_hash: rows to their blocks");
  global_id const first = blocks.begin(rank);
  std::vector<edge_offset> start(static_cast<std::size_t>(blocks.size(rank)) + 1, 0);
  for (auto const& row : incoming) start[static_cast<std::size_t>(row.agent - first) + 1] = row.degree;
  for (std::size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
  long long entries = static_cast<long long>(start.back()), below = 0;
  MPI_Exscan(&entries, &below, 1, MPI_LONG_LONG, MPI_SUM, comm);
  if (rank == 0) below = 0;
  for (auto& row : incoming)
    row.degree = static_cast<edge_offset>(below) + start[static_cast<std::size_t>(row.agent - first)];
  // The answers travel back in the order the rows came.
  std::vector<std::size_t> back;
  auto const answers = Details::exchange(comm, incoming, from, back, "graph_hash: rows' starts");
  std::vector<edge_offset> starts(ids.size());
  for (std::size_t r = 0; r < ids.size(); ++r) starts[r] = answers[slot[r]].degree;
  return starts;
}

}  // namespace

template <class ExecutionSpace, class WeightStorage>
std::uint64_t graph_hash(ExecutionSpace const& exec, MPI_Comm comm,
                         LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& local) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  agent_index const owned = local.owned;
  auto const ids = local.ids;
  auto const graph = local.graph;
  auto const offsets = graph.row_offsets;
  auto const range = owned_id_range(exec, local);
  global_id const lowest = range.first, highest = range.second;
  // Where each owned row begins in the whole graph: the rows of lower ids.
  Kokkos::View<edge_offset*, memory_space> row_start("herd::distributed_graph::row_start", owned);
  // Blocks in rank order (build_local_graph's): each rank's agents follow those of lower ranks.
  long long owned_below = 0, owned_here = owned;
  MPI_Exscan(&owned_here, &owned_below, 1, MPI_LONG_LONG, MPI_SUM, comm);
  if (local.rank == 0) owned_below = 0;
  int blocks = owned == 0 || (highest - lowest + 1 == owned && lowest == owned_below) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &blocks, 1, MPI_INT, MPI_MIN, comm);
  if (blocks == 1) {
    // The rows of lower ranks, then lower ids.
    Kokkos::View<edge_offset*, memory_space> start("herd::distributed_graph::start", owned + 1);
    Kokkos::parallel_for(
        "herd::distributed_graph::degrees", policy(exec, 0, owned), KOKKOS_LAMBDA(agent_index r) {
          start(static_cast<std::size_t>(ids(r) - lowest)) = offsets(r + 1) - offsets(r);
        });
    herd::Details::exclusive_scan(exec, start, "herd::distributed_graph::starts");
    long long entries = static_cast<long long>(graph.num_edges()), below = 0;
    MPI_Exscan(&entries, &below, 1, MPI_LONG_LONG, MPI_SUM, comm);
    if (local.rank == 0) below = 0;
    auto const base = static_cast<edge_offset>(below);
    Kokkos::parallel_for(
        "herd::distributed_graph::row_starts", policy(exec, 0, owned),
        KOKKOS_LAMBDA(agent_index r) { row_start(r) = base + start(static_cast<std::size_t>(ids(r) - lowest)); });
  } else {
    // Any other partition: each row's degree goes to its agent's block, which answers.
    auto const host_ids =
        herd::Details::copy_from<global_id>(Kokkos::subview(ids, std::make_pair(agent_index{0}, owned)));
    auto const host_offsets = herd::Details::copy_from<edge_offset>(offsets);
    std::vector<edge_offset> degrees(static_cast<std::size_t>(owned));
    for (std::size_t r = 0; r < degrees.size(); ++r) degrees[r] = host_offsets[r + 1] - host_offsets[r];
    auto const starts = row_starts_by_blocks(comm, local.global_agents, host_ids, degrees);
    Kokkos::deep_copy(
        exec, row_start,
        Kokkos::View<edge_offset const*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(starts.data(), starts.size()));
    exec.fence();  // `starts` ends with this block
  }
  std::uint64_t sums[2] = {0, 0};
  Kokkos::parallel_reduce(
      "herd::distributed_graph::hash_rows", policy(exec, 0, owned),
      KOKKOS_LAMBDA(agent_index r, std::uint64_t & sum) {
        global_id const g = ids(r);
        edge_offset const end = row_start(r) + (offsets(r + 1) - offsets(r));
        sum += herd::Details::mix64((static_cast<std::uint64_t>(g) << 1 | 1) ^
                                    herd::Details::mix64(static_cast<std::uint64_t>(end)));
      },
      sums[0]);
  Kokkos::parallel_reduce(
      "herd::distributed_graph::hash_entries", policy(exec, 0, owned),
      KOKKOS_LAMBDA(agent_index r, std::uint64_t & sum) {
        edge_offset const global_start = row_start(r);
        for (edge_offset k = 0; k < offsets(r + 1) - offsets(r); ++k) {
          edge_offset const e = offsets(r) + k;
          // As herd::graph_hash hashes an entry.
          std::uint64_t const w = herd::Details::bit_cast<std::uint32_t>(graph.stored_weight(e));
          auto const neighbour = static_cast<std::uint64_t>(ids(graph.neighbours(e)));
          std::uint64_t entry = herd::Details::mix64(neighbour << 32 | w);
          if (graph.layered()) entry = herd::Details::mix64(entry ^ (std::uint64_t{graph.layer(e)} + 1));
          sum += herd::Details::mix64((static_cast<std::uint64_t>(global_start + k) << 1) ^ entry);
        }
      },
      sums[1]);
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_UINT64_T, MPI_SUM, comm);
  return herd::Details::mix64(sums[0]) ^ sums[1];
}

template <class ExecutionSpace, class WeightStorage>
std::pair<agent_index, std::uint64_t> degree_extent(
    ExecutionSpace const& exec, MPI_Comm comm,
    LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& local) {
  auto const offsets = local.graph.row_offsets;
  agent_index most = 0;
  Kokkos::parallel_reduce(
      "herd::distributed_graph::max_degree", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, local.owned),
      KOKKOS_LAMBDA(agent_index r, agent_index & m) {
        auto const d = static_cast<agent_index>(offsets(r + 1) - offsets(r));
        if (d > m) m = d;
      },
      Kokkos::Max<agent_index>(most));
  auto entries = static_cast<std::uint64_t>(local.graph.num_edges());
  MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, &entries, 1, MPI_UINT64_T, MPI_SUM, comm);
  return {most, entries};
}

#define HERD_INSTANTIATE_DISTRIBUTED_GRAPH_W(EXEC, W)                                                               \
  template LocalGraph<EXEC::memory_space, W> build_local_graph<W, EXEC>(                                            \
      EXEC const&, MPI_Comm, EdgeSource<EXEC::memory_space> const&, BuildOptions const&, std::size_t);              \
  template LocalGraph<EXEC::memory_space, W> build_local_graph<W, EXEC>(                                            \
      EXEC const&, MPI_Comm, EdgeList<EXEC::memory_space> const&, BuildOptions const&, std::size_t);                \
  template LocalGraph<EXEC::memory_space, W> build_local_graph<W, EXEC>(                                            \
      EXEC const&, MPI_Comm, EdgePart<EXEC::memory_space> const&, BuildOptions const&, std::size_t);                \
  template LocalGraph<EXEC::memory_space, W> build_local_graph<W, EXEC>(EXEC const&, MPI_Comm, HostEdgeList const&, \
                                                                        BuildOptions const&, std::size_t);          \
  template LocalGraph<EXEC::memory_space, W> build_local_graph<W, EXEC>(EXEC const&, MPI_Comm, HostRows const&);    \
  template std::uint64_t graph_hash<EXEC, W>(EXEC const&, MPI_Comm, LocalGraph<EXEC::memory_space, W> const&);      \
  template std::pair<agent_index, std::uint64_t> degree_extent<EXEC, W>(EXEC const&, MPI_Comm,                      \
                                                                        LocalGraph<EXEC::memory_space, W> const&);
#define HERD_INSTANTIATE_DISTRIBUTED_GRAPH(EXEC)    \
  HERD_INSTANTIATE_DISTRIBUTED_GRAPH_W(EXEC, float) \
  HERD_INSTANTIATE_DISTRIBUTED_GRAPH_W(EXEC, half)

HERD_FOR_EACH_EXECUTION_SPACE(HERD_INSTANTIATE_DISTRIBUTED_GRAPH)

}  // namespace herd::mpi
