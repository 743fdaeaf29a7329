#pragma once

// The sum of a model's contributions over a run of one row's edges: what an agent reads through
// Agent::sum_of_contributions on the thread schedule, and what a share of the edge schedule adds.

#include <herd/core/device_pass.hpp>
#include <herd/core/lowest_bit.hpp>
#include <herd/core/types.hpp>
#include <herd/engine/activity.hpp>
#include <herd/engine/model_traits.hpp>
#include <herd/engine/spreader_bits.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace herd {

namespace Details {

/// The weight of one edge, read and decoded (half storage) only where it converts to float: a
/// contribution that returns 0 for most neighbours before looking at the weight then reads the
/// weights of the others alone.
template <class Graph>
struct EdgeWeight {
  Graph const& graph;
  edge_offset edge;
  // NOLINTNEXTLINE(google-explicit-constructor): it stands for a float wherever one is expected.
  KOKKOS_INLINE_FUNCTION operator float() const { return graph.weight(edge); }
};

// Edges whose neighbours are looked at together before any contribution is computed (the bits of
// one word).
inline constexpr edge_offset spreading_batch = 32;

/// Sum over the edges e in [from, to) of model.contribution(neighbours(e), weight(e)), edge by edge.
template <class T, class Model, class Graph>
KOKKOS_INLINE_FUNCTION T sum_each_contribution(Model const& model, Graph const& graph, edge_offset from,
                                               edge_offset to) {
  T total = 0;
  for (edge_offset e = from; e < to; ++e)
    total += static_cast<T>(model.contribution(graph.neighbours(e), EdgeWeight<Graph>{graph, e}));
  return total;
}

/// The same sum from `spreads(j)`, 1 where neighbour j spreads and 0 where not: first the
/// neighbours that spread, 32 edges at a time, by a loop without branches; then the contributions
/// of those alone (the others add 0, by the contract of Model::contribution).
template <class T, class Model, class Graph, class Spreads>
KOKKOS_INLINE_FUNCTION T sum_spreading_contributions(Model const& model, Graph const& graph, edge_offset from,
                                                     edge_offset to, Spreads const& spreads) {
  T total = 0;
  for (edge_offset batch = from; batch < to; batch += spreading_batch) {
    auto const count = static_cast<int>(to - batch < spreading_batch ? to - batch : spreading_batch);
    std::uint32_t spreading = 0;
    for (int u = 0; u < count; ++u) spreading |= spreads(graph.neighbours(batch + u)) << u;
    while (spreading != 0) {
      edge_offset const e = batch + static_cast<edge_offset>(lowest_bit(spreading));
      spreading &= spreading - 1;
      total += static_cast<T>(model.contribution(graph.neighbours(e), EdgeWeight<Graph>{graph, e}));
    }
  }
  return total;
}

/// The same for a model that declares its activity, which says who spreads.
template <class T, class Model, class Graph>
KOKKOS_INLINE_FUNCTION T sum_spreading_contributions(Model const& model, Graph const& graph, edge_offset from,
                                                     edge_offset to) {
  return sum_spreading_contributions<T>(model, graph, from, to, [&](agent_index j) {
    return static_cast<std::uint32_t>((model.activity(j) & activity::spreads) != 0);
  });
}

/// Sum over the edges e in [from, to) of model.contribution(neighbours(e), weight(e)): weight 1 on
/// an unweighted graph, where the constant folds out and the loop has no branch left to stall on.
///
/// On a weighted graph a contribution tests the neighbour's state, then reads the weight and
/// computes a hazard, and a GPU thread summing edge by edge could not load the next neighbour's
/// state before that branch was decided: one neighbour load in flight per thread, where the
/// unweighted loop, unrolled, has four. GPUs therefore find the spreading neighbours first
/// (sum_spreading_contributions), for models that declare their activity. CPUs sum edge by edge:
/// they issue the loads past a predicted branch, and the pass over the bits costs them more than
/// it saves (docs/notes/spreader-bits.md).
template <class T, class Model, class Graph>
KOKKOS_INLINE_FUNCTION T sum_contributions(Model const& model, Graph const& graph, edge_offset from, edge_offset to) {
  if (!graph.weighted()) {
    T total = 0;
    for (edge_offset e = from; e < to; ++e) total += static_cast<T>(model.contribution(graph.neighbours(e), 1.0f));
    return total;
  }
  if constexpr (HERD_DEVICE_PASS && declares_activity_v<Model>) {
    return sum_spreading_contributions<T>(model, graph, from, to);
  } else {
    return sum_each_contribution<T>(model, graph, from, to);
  }
}

/// The sum over the edges e in [from, to) of model.contribution(neighbours(e), weight(e)) on a
/// weighted graph, from the neighbours whose bit in `spreading` is set (the others add 0), 32
/// edges at a time as sum_spreading_contributions does. Only GPUs read bits on weighted graphs
/// (SpreaderBits::reads_bits).
template <class T, class Model, class Graph>
KOKKOS_INLINE_FUNCTION T sum_marked_contributions(Model const& model, Graph const& graph,
                                                  std::uint32_t const* spreading, edge_offset from, edge_offset to) {
  return sum_spreading_contributions<T>(model, graph, from, to,
                                        [&](agent_index j) { return spreads_bit(spreading, j); });
}

/// What edge e adds to its row's sum when the weights are coded: its code's contribution where its
/// neighbour spreads, else 0; without a branch (a mask from the bit). `table`: where the row's
/// codes start in by_code (row_code_table). Where the bits say who is isolated, the contact reads
/// its neighbour's bit from the map its code selects (fill_contribution_by_code): one bit per
/// neighbour, whether it spreads or spreads free. A contact is closed where either end is isolated.
/// `Extras` false: no code has an extra (by_code(any_extra) is 0), and the flag is not tested.
/// Forced inline: a call per edge, as g++ chose, costs an isolating step a further 12 %.
template <class T, bool Extras = true, class Graph>
KOKKOS_FORCEINLINE_FUNCTION T coded_contribution(Graph const& graph, SpreaderCounts const& spreading,
                                                 std::uint32_t table, edge_offset e) {
  agent_index const j = graph.neighbours(e);
  if (spreading.isolating) {
    std::uint32_t const k = table | spreading.codes[e];
    std::uint64_t const select = spreading.by_code[code_selectors + k];
    std::uint32_t const bit = spreads_bit(spreading.bits + static_cast<std::uint32_t>(select), j);
    T value = static_cast<T>(spreading.by_code[k]) & (T{0} - static_cast<T>(bit));
    // Only where a closed contact adds more than 0: an isolated spreader's share, from both maps.
    if constexpr (Extras) {
      if ((select & has_extra) != 0)
        value += static_cast<T>(spreading.by_code[code_extras + k]) &
                 (T{0} - static_cast<T>(spreads_bit(spreading.bits, j) ^ bit));
    }
    return value;
  }
  auto const spreads = static_cast<T>(spreads_bit(spreading.bits, j));
  return static_cast<T>(spreading.by_code[spreading.codes[e]]) & (T{0} - spreads);
}

/// The sum of contributions over the edges [from, to), from one bit per agent when the step
/// marked the spreading agents (`spreading.bits` not null): on an unweighted graph their count
/// times what each contributes (Model::spreader_contribution), on a weighted one with coded weights
/// the contributions of the codes of the marked neighbours' edges, on other weighted graphs the
/// contributions of the marked neighbours alone. Each is the integer the sum edge by edge gives,
/// since the others contribute 0. Otherwise as sum_contributions. `row`: the agent whose row holds
/// the edges.
template <class T, class Model, class Graph>
KOKKOS_INLINE_FUNCTION T sum_row_contributions(Model const& model, Graph const& graph, SpreaderCounts const& spreading,
                                               agent_index row, edge_offset from, edge_offset to) {
  if constexpr (declares_activity_v<Model>) {
    if (spreading.bits != nullptr) {
      if (graph.weighted()) {
        if constexpr (counts_weighted_spreaders_v<Model>) {
          if (spreading.codes != nullptr) {
            T total = 0;
            if (spreading.isolating) {  // a loop of its own: the branch in coded_contribution folds out
              std::uint32_t const table = row_code_table(spreading, row);
              if (spreading.by_code[any_extra] != 0) {
                for (edge_offset e = from; e < to; ++e) total += coded_contribution<T>(graph, spreading, table, e);
              } else {
                for (edge_offset e = from; e < to; ++e)
                  total += coded_contribution<T, false>(graph, spreading, table, e);
              }
            } else {
              for (edge_offset e = from; e < to; ++e) total += coded_contribution<T>(graph, spreading, 0, e);
            }
            return total;
          }
        }
        return sum_marked_contributions<T>(model, graph, spreading.bits, from, to);
      }
      if constexpr (counts_spreaders_v<Model>) {
        std::uint32_t count = 0;
        for (edge_offset e = from; e < to; ++e) count += spreads_bit(spreading.bits, graph.neighbours(e));
        return static_cast<T>(count) * static_cast<T>(model.spreader_contribution());
      }
    }
  }
  (void)spreading;
  (void)row;
  return sum_contributions<T>(model, graph, from, to);
}

}  // namespace Details

}  // namespace herd
