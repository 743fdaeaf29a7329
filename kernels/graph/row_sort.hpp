#pragma once

#include <herd/core/half.hpp>
#include <herd/core/types.hpp>

#include <Kokkos_Core.hpp>

namespace herd::Details {

// In-place sort of one CSR row by one thread. Rows are short except at hubs; heap sort keeps hubs
// at O(d log d) without recursion or scratch memory, which device code cannot afford.
//
// A row is sorted through an accessor (entry type, get, put, before) so that the neighbours and
// the weights of a row are sorted together where they lie, without packing them into 64-bit keys
// first: that array would be the largest allocation of graph construction and relabelling.

// A row of neighbours alone.
struct NeighbourRow {
  using entry = agent_index;
  agent_index* neighbours;
  KOKKOS_INLINE_FUNCTION entry get(edge_offset k) const { return neighbours[k]; }
  KOKKOS_INLINE_FUNCTION void put(edge_offset k, entry v) const { neighbours[k] = v; }
  KOKKOS_INLINE_FUNCTION static bool before(entry a, entry b) { return a < b; }
};

// A row of neighbours and their edge weights, ordered by neighbour and, among duplicate edges,
// by weight descending: the order is total, so the result does not depend on the input order,
// and the first of a run of duplicates carries the largest weight.
template <class WeightStorage>
struct WeightedRow {
  struct entry {
    agent_index neighbour;
    WeightStorage weight;
  };
  agent_index* neighbours;
  WeightStorage* weights;
  KOKKOS_INLINE_FUNCTION entry get(edge_offset k) const { return {neighbours[k], weights[k]}; }
  KOKKOS_INLINE_FUNCTION void put(edge_offset k, entry const& v) const {
    neighbours[k] = v.neighbour;
    weights[k] = v.weight;
  }
  KOKKOS_INLINE_FUNCTION static bool before(entry const& a, entry const& b) {
    return a.neighbour < b.neighbour ||
           (a.neighbour == b.neighbour &&
            storage_traits<WeightStorage>::load(a.weight) > storage_traits<WeightStorage>::load(b.weight));
  }
};

// A row of neighbours with their layers and weights, ordered by neighbour, then layer, then weight
// descending: the first of a run of repeats within a layer carries the largest weight, and edges
// to one neighbour in two layers are not repeats.
template <class WeightStorage>
struct LayeredRow {
  struct entry {
    agent_index neighbour;
    layer_index layer;
    WeightStorage weight;
  };
  agent_index* neighbours;
  layer_index* layers;
  WeightStorage* weights;
  KOKKOS_INLINE_FUNCTION entry get(edge_offset k) const { return {neighbours[k], layers[k], weights[k]}; }
  KOKKOS_INLINE_FUNCTION void put(edge_offset k, entry const& v) const {
    neighbours[k] = v.neighbour;
    layers[k] = v.layer;
    weights[k] = v.weight;
  }
  KOKKOS_INLINE_FUNCTION static bool before(entry const& a, entry const& b) {
    if (a.neighbour != b.neighbour) return a.neighbour < b.neighbour;
    if (a.layer != b.layer) return a.layer < b.layer;
    return storage_traits<WeightStorage>::load(a.weight) > storage_traits<WeightStorage>::load(b.weight);
  }
};

template <class Row>
KOKKOS_INLINE_FUNCTION void sift_down(Row const& row, edge_offset root, edge_offset n) {
  while (2 * root + 1 < n) {
    edge_offset child = 2 * root + 1;
    if (child + 1 < n && Row::before(row.get(child), row.get(child + 1))) ++child;
    auto const top = row.get(root), larger = row.get(child);
    if (!Row::before(top, larger)) return;
    row.put(root, larger);
    row.put(child, top);
    root = child;
  }
}

template <class Row>
KOKKOS_INLINE_FUNCTION void sort_row(Row const& row, edge_offset n) {
  if (n <= 24) {
    for (edge_offset i = 1; i < n; ++i) {
      auto const v = row.get(i);
      edge_offset j = i;
      for (; j > 0 && Row::before(v, row.get(j - 1)); --j) row.put(j, row.get(j - 1));
      row.put(j, v);
    }
    return;
  }
  for (edge_offset start = n / 2; start-- > 0;) sift_down(row, start, n);
  for (edge_offset end = n - 1; end > 0; --end) {
    auto const first = row.get(0);
    row.put(0, row.get(end));
    row.put(end, first);
    sift_down(row, 0, end);
  }
}

// Sorts `length` entries from `first` of a row whose layers and weights (either may be empty) lie
// beside its neighbours, in the order of the row types above.
template <class WeightStorage, class Neighbours, class Layers, class Weights>
KOKKOS_INLINE_FUNCTION void sort_row_at(Neighbours const& neighbours, Layers const& layers, Weights const& weights,
                                        edge_offset first, edge_offset length) {
  if (layers.extent(0))
    sort_row(LayeredRow<WeightStorage>{neighbours.data() + first, layers.data() + first, weights.data() + first},
             length);
  else if (weights.extent(0))
    sort_row(WeightedRow<WeightStorage>{neighbours.data() + first, weights.data() + first}, length);
  else
    sort_row(NeighbourRow{neighbours.data() + first}, length);
}

}  // namespace herd::Details
