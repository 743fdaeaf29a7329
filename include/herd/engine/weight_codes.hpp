#pragma once

// Edge weights as one-byte codes into a palette of the graph's distinct weights, where it has at
// most 256 of them: a layered contact network weighs its edges by layer (household, school,
// workplace, community), a handful of values. A model whose spreading neighbours contribute a
// function of the weight alone (counts_weighted_spreaders_v) then sums a row without a branch:
// each edge adds the contribution of its code, from a table of 256 computed once a phase, masked
// by its neighbour's spreader bit. The edge-by-edge sum tests each neighbour's state before it
// reads the weight and computes a hazard, and mispredicts where spreaders fall at random.
//
// On a layered graph a code stands for a (weight, layer byte) pair, and its contribution is
// computed from the weight times the layer's factor: closing a layer changes 256 table entries, no
// edge. Where isolation may close entries (the layer byte's closed_layer bit), each open pair has
// a closed twin, whose factor is 0, and closing an entry swaps its code for its twin's.

#include <herd/core/bit_cast.hpp>
#include <herd/core/types.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

namespace herd {

namespace Details {

/// Distinct weights a palette holds at most: the values of a one-byte code.
inline constexpr int max_weight_codes = 256;

// Slots of the hash set that finds the distinct weights: four per code, so that probes stay short
// with a full palette.
inline constexpr std::uint32_t weight_code_slots = 4 * max_weight_codes;
// An edge's key: its stored weight's bits, then its layer (0 without layers).
KOKKOS_INLINE_FUNCTION std::uint64_t weight_key(float weight, layer_index layer) {
  return std::uint64_t{bit_cast<std::uint32_t>(weight)} << 8 | layer;
}
// An empty slot: no key has bits above its 40th.
inline constexpr std::uint64_t no_weight = ~std::uint64_t{0};
// The key of a NaN that no weight may have (a graph with it gets no codes).
inline constexpr std::uint32_t bad_weight = 0xffffffffu;

KOKKOS_INLINE_FUNCTION std::uint32_t weight_slot(std::uint64_t key) {
  return static_cast<std::uint32_t>((key * 0x9e3779b97f4a7c15ull) >> 54);  // Fibonacci hashing to 10 bits
}

/// The weights of a graph's edges as codes: codes(e) is the position of (stored_weight(e),
/// layers(e)) in (`palette`, `layers`), whose pairs are distinct and ascending (a layer byte
/// includes its closed_layer bit). Empty when the graph has no weights or more than
/// max_weight_codes distinct pairs.
template <class MemorySpace>
struct WeightCodes {
  Kokkos::View<std::uint8_t*, MemorySpace> codes;
  Kokkos::View<float*, MemorySpace> palette;
  Kokkos::View<layer_index*, MemorySpace> layers;  ///< the codes' layer bytes; empty on a graph without layers
  Kokkos::View<float*, MemorySpace> factors;       ///< the graph's layer factors (shared), or empty
  /// Where entries may close: the code of each code's pair with its closed_layer bit flipped;
  /// else empty.
  Kokkos::View<std::uint8_t*, MemorySpace> twins;

  bool empty() const { return palette.extent(0) == 0; }
  /// The weight of code c as the graph's weight() gives it: times its layer's factor.
  KOKKOS_INLINE_FUNCTION float weight(int c) const {
    return factors.extent(0) != 0 ? palette(c) * factors(layers(c)) : palette(c);
  }
  /// Bytes the codes take per edge.
  static constexpr double bytes_per_edge() { return sizeof(std::uint8_t); }
};

/// Finds the distinct (weight, layer byte) pairs of `graph` and codes its edges; empty codes when
/// it has no weights or more than max_weight_codes distinct pairs. Weights compare by their bits as
/// floats, so a code stands for exactly the float the edge's stored_weight() returns, and its
/// weight() for the edge's weight(). `closable`, on a layered graph: every pair comes open and
/// closed, with its twin (WeightCodes::twins), so that isolation can close entries by their codes.
/// Allocates and waits for the device: call it before the step loop.
template <class ExecutionSpace, class Graph>
WeightCodes<typename ExecutionSpace::memory_space> make_weight_codes(ExecutionSpace const& exec, Graph const& graph,
                                                                     bool closable = false) {
  using memory_space = typename ExecutionSpace::memory_space;
  WeightCodes<memory_space> result;
  if (!graph.weighted()) return result;
  Kokkos::View<std::uint64_t*, memory_space> slots(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::codes::slots"), weight_code_slots);
  Kokkos::deep_copy(exec, slots, no_weight);
  Kokkos::View<int, memory_space> overflow("herd::codes::overflow");
  Kokkos::View<int, memory_space> found("herd::codes::found");
  // A copy the kernel holds: Kokkos 3.4's CUDA compare-exchange of a 64-bit `unsigned long` takes
  // its operands by reference, which may not bind to a host constant in device code.
  std::uint64_t const empty = no_weight;
  bool const twinned = closable && graph.layered();
  // 1. Every distinct weight into the set: a slot is read before it is claimed, so that the edges
  // of one weight, most of them, compete for no cache line. Once more weights than codes are
  // found, the other edges stop looking: with weights of many values (contact durations, say)
  // each would otherwise probe the whole set.
  Kokkos::parallel_for(
      "herd::codes::find", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, graph.num_edges()),
      KOKKOS_LAMBDA(edge_offset e) {
        if (overflow() != 0) return;
        float const weight = graph.stored_weight(e);
        if (bit_cast<std::uint32_t>(weight) == bad_weight) {
          overflow() = 1;
          return;
        }
        layer_index const byte = graph.layered() ? graph.layers(e) : layer_index{0};
        for (int twin = 0; twin < (twinned ? 2 : 1); ++twin) {
          std::uint64_t const key = weight_key(weight, static_cast<layer_index>(twin ? byte ^ closed_layer : byte));
          std::uint32_t slot = weight_slot(key);
          bool placed = false;
          for (std::uint32_t probe = 0; probe < weight_code_slots && !placed; ++probe) {
            std::uint64_t const held = slots(slot);
            placed = held == key;
            if (!placed && held == no_weight) {
              std::uint64_t const before = Kokkos::atomic_compare_exchange(&slots(slot), empty, key);
              if (before == no_weight && Kokkos::atomic_fetch_add(&found(), 1) >= max_weight_codes) overflow() = 1;
              placed = before == no_weight || before == key;
            }
            slot = (slot + 1) % weight_code_slots;
          }
          if (!placed) overflow() = 1;
        }
      });
  auto const host_slots = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), slots);
  auto const host_overflow = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), overflow);
  // (weight, layer) pairs, which order as (float, byte) pairs.
  auto const pair_of = [](std::uint64_t key) {
    return std::make_pair(bit_cast<float>(static_cast<std::uint32_t>(key >> 8)), static_cast<layer_index>(key & 0xff));
  };
  std::vector<std::pair<float, layer_index>> distinct;
  for (std::uint32_t s = 0; s < weight_code_slots; ++s)
    if (host_slots(s) != no_weight) distinct.push_back(pair_of(host_slots(s)));
  if (host_overflow() != 0 || distinct.size() > static_cast<std::size_t>(max_weight_codes)) return result;
  // 2. Codes in ascending order of (weight, layer) (the same codes whatever order the threads found
  // them in), looked up by slot.
  std::sort(distinct.begin(), distinct.end());
  // A View of its own: on the host, a mirror of `slots` would be `slots`.
  Kokkos::View<std::uint32_t*, Kokkos::HostSpace> host_codes(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::codes::of_slot"), weight_code_slots);
  for (std::uint32_t s = 0; s < weight_code_slots; ++s)
    host_codes(s) =
        host_slots(s) == no_weight
            ? 0
            : static_cast<std::uint32_t>(std::lower_bound(distinct.begin(), distinct.end(), pair_of(host_slots(s))) -
                                         distinct.begin());
  auto const code_of_slot = Kokkos::create_mirror_view_and_copy(memory_space(), host_codes);
  std::vector<float> weights(distinct.size());
  std::vector<layer_index> layers(distinct.size());
  for (std::size_t c = 0; c < distinct.size(); ++c) std::tie(weights[c], layers[c]) = distinct[c];
  result.palette = Kokkos::View<float*, memory_space>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::codes::palette"), distinct.size());
  Kokkos::deep_copy(exec, result.palette,
                    Kokkos::View<float const*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                        weights.data(), weights.size()));
  if (graph.layered()) {
    result.layers = Kokkos::View<layer_index*, memory_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::codes::layers"), distinct.size());
    Kokkos::deep_copy(exec, result.layers,
                      Kokkos::View<layer_index const*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                          layers.data(), layers.size()));
    result.factors = graph.layer_factors;
  }
  if (twinned) {
    Kokkos::View<std::uint8_t*, Kokkos::HostSpace> twins("herd::codes::twins::host", distinct.size());
    for (std::size_t c = 0; c < distinct.size(); ++c) {
      auto const other = std::make_pair(weights[c], static_cast<layer_index>(layers[c] ^ closed_layer));
      twins(c) =
          static_cast<std::uint8_t>(std::lower_bound(distinct.begin(), distinct.end(), other) - distinct.begin());
    }
    result.twins = Kokkos::create_mirror_view_and_copy(memory_space(), twins);
  }
  result.codes = Kokkos::View<std::uint8_t*, memory_space>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::codes"), graph.num_edges());
  auto const codes = result.codes;
  Kokkos::parallel_for(
      "herd::codes::assign", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, graph.num_edges()),
      KOKKOS_LAMBDA(edge_offset e) {
        std::uint64_t const key =
            weight_key(graph.stored_weight(e), graph.layered() ? graph.layers(e) : layer_index{0});
        std::uint32_t slot = weight_slot(key);
        while (slots(slot) != key) slot = (slot + 1) % weight_code_slots;
        codes(e) = static_cast<std::uint8_t>(code_of_slot(slot));
      });
  exec.fence();
  return result;
}

}  // namespace Details

}  // namespace herd
