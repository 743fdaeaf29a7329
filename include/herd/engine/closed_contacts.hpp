#pragma once

// Contacts that isolation closes: while agent i or agent j is isolated, the entry i -> j weighs 0,
// unless its layer is one that isolated agents keep (their household). An entry is closed by the
// top bit of its layer byte (closed_layer), whose factor slot holds 0, so every path that reads
// weights (edge by edge, by code, pushed) sees it closed. Only the entries an agent's change
// touches are rewritten: its own row, and the entries that name it in other rows, found through a
// graph whose row a lists the rows that hold a (its readers).

#include <herd/core/types.hpp>
#include <herd/engine/weight_codes.hpp>
#include <herd/graph/csr_graph.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace herd {

namespace Details {

/// Who is isolated, on the device: what close_contacts reads. An agent's flag byte holds whether
/// it is isolated (bit 0) and whether that changed in the last round of detections (bit 1): a
/// rank's ghosts receive both from their owners, so no earlier copy is kept. Bit 2 marks an agent
/// whose detection is drawn ahead, for the rounds to visit it (the engine reads bits 0 and 1).
template <class MemorySpace>
struct Isolation {
  static constexpr std::uint8_t isolated_bit = 1;
  static constexpr std::uint8_t changed_bit = 2;
  static constexpr std::uint8_t waiting_bit = 4;

  Kokkos::View<std::uint8_t*, MemorySpace> flags;   ///< per stored agent
  Kokkos::View<std::uint8_t*, MemorySpace> keeps;   ///< per layer (max_layers): 1 where isolation keeps contacts
  Kokkos::View<agent_index*, MemorySpace> changed;  ///< the agents whose isolation changed, count() of them
  Kokkos::View<agent_index, MemorySpace> count;

  KOKKOS_INLINE_FUNCTION bool isolated(agent_index a) const { return (flags(a) & isolated_bit) != 0; }
  KOKKOS_INLINE_FUNCTION bool changes(agent_index a) const { return (flags(a) & changed_bit) != 0; }
  /// Lists agent a among those whose isolation changed.
  KOKKOS_INLINE_FUNCTION void list(agent_index a) const {
    changed(Kokkos::atomic_fetch_add(&count(), agent_index{1})) = a;
  }
  /// The layer byte of an entry between i and j of layer byte `stored`.
  KOKKOS_INLINE_FUNCTION layer_index byte(layer_index stored, agent_index i, agent_index j) const {
    auto const open = open_layer(stored);
    bool const closes = keeps(open) == 0 && (isolated(i) || isolated(j));
    return closes ? static_cast<layer_index>(open | closed_layer) : open;
  }
};

/// The highest layer byte of `layers` (0 when empty). Waits for the device.
template <class ExecutionSpace>
int highest_layer_byte(ExecutionSpace const& exec,
                       Kokkos::View<layer_index*, typename ExecutionSpace::memory_space> const& layers) {
  int highest = 0;
  Kokkos::parallel_reduce(
      "herd::layers::highest", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, layers.extent(0)),
      KOKKOS_LAMBDA(std::size_t e, int& h) { h = layers(e) > h ? layers(e) : h; }, Kokkos::Max<int>(highest));
  return highest;
}

// Rewrites one entry's layer byte, and its code's twin where the codes have twins.
template <class Layers, class Codes, class MemorySpace>
struct EntryRewrite {
  Layers layers;
  Codes codes;  ///< empty where there are none to keep
  Codes twins;
  Isolation<MemorySpace> iso;

  KOKKOS_INLINE_FUNCTION void operator()(edge_offset e, agent_index i, agent_index j) const {
    layer_index const now = iso.byte(layers(e), i, j);
    if (now == layers(e)) return;
    layers(e) = now;
    if (codes.extent(0) != 0) codes(e) = twins(codes(e));
  }
};

/// Rewrites the layer bytes (and, where given, the weight codes) of `graph`'s entries that the
/// listed agents' changes touch: their own rows, and their entries in the rows that `readers`
/// lists for them, of agents whose isolation did not change (those rewrite their own rows). Each
/// entry is written by one thread. `launch`: the list's length, or a bound on it (the threads past
/// the count return at once), in chunks taken as threads come free: the work per agent varies.
/// Does not wait.
template <class ExecutionSpace, class Graph, class Readers>
void close_contacts(ExecutionSpace const& exec, Graph const& graph, Readers const& readers,
                    Isolation<typename ExecutionSpace::memory_space> const& iso, agent_index launch,
                    WeightCodes<typename ExecutionSpace::memory_space> const& codes) {
  if (!graph.layered() || launch == 0) return;
  using memory_space = typename ExecutionSpace::memory_space;
  using Codes = decltype(codes.codes);
  EntryRewrite<decltype(graph.layers), Codes, memory_space> const rewrite{
      graph.layers, codes.twins.extent(0) != 0 ? codes.codes : Codes(), codes.twins, iso};
  Kokkos::parallel_for(
      "herd::scenario::close_contacts",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(exec, 0, launch),
      KOKKOS_LAMBDA(agent_index n) {
        if (n >= iso.count()) return;
        agent_index const a = iso.changed(n);
        if (a < graph.num_agents())
          for (edge_offset e = graph.row_offsets(a); e < graph.row_offsets(a + 1); ++e)
            rewrite(e, a, graph.neighbours(e));
        if (a >= readers.num_agents()) return;
        for (edge_offset r = readers.row_offsets(a); r < readers.row_offsets(a + 1); ++r) {
          agent_index const x = readers.neighbours(r);
          // An entry of a kept layer never closes; the entry x -> a of this reader is of its layer.
          if (iso.keeps(readers.layer(r)) != 0 || x == a || x >= graph.num_agents() || iso.changes(x)) continue;
          // A row's entries need not be sorted by local index (a rank's ghosts), so it is scanned.
          for (edge_offset e = graph.row_offsets(x); e < graph.row_offsets(x + 1); ++e)
            if (graph.neighbours(e) == a) rewrite(e, x, a);
        }
      });
}

/// Sets every entry of `graph` (and its code, where the codes have twins) closed or open as `iso`
/// says now: a pass over every edge, for when the entries were left open while only sums by code
/// read who is isolated. Does not wait.
template <class ExecutionSpace, class Graph>
void close_every_contact(ExecutionSpace const& exec, Graph const& graph,
                         Isolation<typename ExecutionSpace::memory_space> const& iso,
                         WeightCodes<typename ExecutionSpace::memory_space> const& codes) {
  if (!graph.layered()) return;
  using Codes = decltype(codes.codes);
  EntryRewrite<decltype(graph.layers), Codes, typename ExecutionSpace::memory_space> const rewrite{
      graph.layers, codes.twins.extent(0) != 0 ? codes.codes : Codes(), codes.twins, iso};
  Kokkos::parallel_for(
      "herd::scenario::close_every_contact", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, graph.num_agents()),
      KOKKOS_LAMBDA(agent_index a) {
        for (edge_offset e = graph.row_offsets(a); e < graph.row_offsets(a + 1); ++e)
          rewrite(e, a, graph.neighbours(e));
      });
}

/// Opens every entry of `graph` that isolation closed (and swaps its code for its open twin).
/// Does not wait.
template <class ExecutionSpace, class Graph>
void open_every_contact(ExecutionSpace const& exec, Graph const& graph,
                        WeightCodes<typename ExecutionSpace::memory_space> const& codes) {
  if (!graph.layered()) return;
  auto const layers = graph.layers;
  auto const twins = codes.twins;
  auto const coded = twins.extent(0) != 0 ? codes.codes : decltype(codes.codes)();
  Kokkos::parallel_for(
      "herd::scenario::open_every_contact", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, layers.extent(0)),
      KOKKOS_LAMBDA(std::size_t e) {
        if ((layers(e) & closed_layer) == 0) return;
        layers(e) = open_layer(layers(e));
        if (coded.extent(0) != 0) coded(e) = twins(coded(e));
      });
}

}  // namespace Details

}  // namespace herd
