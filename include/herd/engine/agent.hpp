#pragma once

// The view a step functor has of one agent.
//
// The same functor body runs whichever schedule the engine picked. In vector and team schedules
// every lane of the agent's group executes the body: neighbour reductions are collective (each lane
// sums a share of the edges and all receive the total), random draws are pure functions of the
// counters so every lane draws the same number, and writes through set() are made by one lane only.
// Reductions are over integers: their result does not depend on the order lanes combine, which is
// what keeps trajectories bitwise identical across schedules, backends and thread counts.

#include <herd/core/random.hpp>
#include <herd/core/types.hpp>
#include <herd/engine/contribution_sum.hpp>
#include <herd/engine/schedule.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace herd {

template <class Graph, Details::Lanes Mode, class TeamMember = int>
class Agent {
 public:
  /// `pushed`: the sums of contributions the active set pushed for this step, indexed by agent, or
  /// null when the agent sums its neighbours' itself. `spreading`: one bit per stored agent, set
  /// where it spreads, and the weights' codes where the sums add by code (see spreader_bits.hpp),
  /// or nulls when the sum reads the neighbours' states. `counted`: instead of `pushed`, the
  /// spreading neighbours the active set counted per agent, plus one for an agent that is itself a
  /// source (ActiveSet::spreader_counts()), or null.
  KOKKOS_INLINE_FUNCTION Agent(Graph const& graph, agent_index index, global_id id, CounterRng rng, std::uint32_t step,
                               std::uint32_t stream, TeamMember const& team, std::uint64_t const* pushed = nullptr,
                               Details::SpreaderCounts spreading = {}, std::uint8_t const* counted = nullptr)
      : graph_(graph),
        team_(team),
        pushed_(pushed),
        counted_(counted),
        spreading_(spreading),
        index_(index),
        id_(id),
        rng_(rng),
        step_(step),
        stream_(stream) {}

  /// Local index: use it to read this agent's properties, `state(a.index())`.
  KOKKOS_INLINE_FUNCTION agent_index index() const { return index_; }
  /// Global id: the same on every rank and under any reordering.
  KOKKOS_INLINE_FUNCTION global_id id() const { return id_; }
  /// The step being computed (0 for the first step).
  KOKKOS_INLINE_FUNCTION std::uint32_t step() const { return step_; }

  KOKKOS_INLINE_FUNCTION agent_index degree() const { return graph_.degree(index_); }
  /// Whether the graph has edge weights (otherwise every weight is 1).
  KOKKOS_INLINE_FUNCTION bool weighted() const { return graph_.weighted(); }
  /// Local index of the k-th neighbour, k in [0, degree()).
  KOKKOS_INLINE_FUNCTION agent_index neighbour(agent_index k) const {
    return graph_.neighbours(graph_.row_offsets(index_) + k);
  }
  /// Weight of the edge to the k-th neighbour (1 in an unweighted graph), times its layer's factor
  /// on a layered graph.
  KOKKOS_INLINE_FUNCTION float weight(agent_index k) const { return graph_.weight(graph_.row_offsets(index_) + k); }
  /// Contact layer of the edge to the k-th neighbour (0 in a graph without layers).
  KOKKOS_INLINE_FUNCTION layer_index layer(agent_index k) const { return graph_.layer(graph_.row_offsets(index_) + k); }

  /// Sum of f(neighbour, weight) over all neighbours. T must be an integer type, so that the sum
  /// is the same whatever order the lanes add in.
  template <class T, class F>
  KOKKOS_INLINE_FUNCTION T sum_over_neighbours(F const& f) const {
    static_assert(std::is_integral<T>::value,
                  "neighbour sums must be integers (fixed point for fractions) to stay bitwise reproducible");
    return sum_over_edges<T>([&](edge_offset e) { return f(graph_.neighbours(e), graph_.weight(e)); });
  }

  /// Sum over the neighbours j of model.contribution(j, w), w the weight of the edge to j (1 in an
  /// unweighted graph; on a weighted graph a value that converts to float and is read when it
  /// does): what each neighbour adds to this agent's sum, an integer that must be 0 unless j's
  /// activity has `spreads`. The sum's type is the contribution's, an integer of at most 64 bits. When the step runs on
  /// the active list, the spreading agents have already pushed the sum to the agents that receive (integer adds, in no
  /// particular order, hence the same sum) and it is read here in one load instead of a pass over the row: so read it
  /// only in states whose activity has `receives`, in the model's first phase (later phases sum their rows).
  template <class Model>
  KOKKOS_INLINE_FUNCTION auto sum_of_contributions(Model const& model) const {
    using T = decltype(model.contribution(agent_index{}, 1.0f));
    static_assert(std::is_integral<T>::value && sizeof(T) <= sizeof(std::uint64_t),
                  "contributions must be integers of at most 64 bits (fixed point for fractions)");
    if (pushed_ != nullptr) return static_cast<T>(pushed_[index_]);
    if constexpr (counts_spreaders_v<Model>) {
      if (counted_ != nullptr) {
        T const own = (model.activity(index_) & activity::source) != 0 ? T{1} : T{0};
        return (static_cast<T>(counted_[index_]) - own) * static_cast<T>(model.spreader_contribution());
      }
    }
    if constexpr (Mode == Details::Lanes::thread) {
      return Details::sum_row_contributions<T>(model, graph_, spreading_, index_, graph_.row_offsets(index_),
                                               graph_.row_offsets(index_ + 1));
    } else {
      // The lanes share the row as Details::sum_row_contributions sums it.
      if constexpr (declares_activity_v<Model>) {
        if (spreading_.bits != nullptr && weighted()) {
          if constexpr (counts_weighted_spreaders_v<Model>) {
            if (spreading_.codes != nullptr) {
              std::uint32_t const table = Details::row_code_table(spreading_, index_);
              return sum_over_edges<T>(
                  [&](edge_offset e) { return Details::coded_contribution<T>(graph_, spreading_, table, e); });
            }
          }
          return sum_over_edges<T>([&](edge_offset e) {
            agent_index const j = graph_.neighbours(e);
            return Details::spreads_bit(spreading_.bits, j) != 0
                       ? static_cast<T>(model.contribution(j, Details::EdgeWeight<Graph>{graph_, e}))
                       : T{0};
          });
        }
      }
      if constexpr (counts_spreaders_v<Model>) {
        if (spreading_.bits != nullptr)
          return sum_over_edges<T>([&](edge_offset e) {
                   return static_cast<T>(Details::spreads_bit(spreading_.bits, graph_.neighbours(e)));
                 }) *
                 static_cast<T>(model.spreader_contribution());
      }
      // A constant weight on unweighted graphs lets the compiler fold the weight out of the sum.
      if (!weighted()) return sum_over_neighbours<T>([&](agent_index j, float) { return model.contribution(j, 1.0f); });
      return sum_over_edges<T>([&](edge_offset e) {
        return model.contribution(graph_.neighbours(e), Details::EdgeWeight<Graph>{graph_, e});
      });
    }
  }

  /// Number of neighbours for which `predicate(neighbour, weight)` holds.
  template <class F>
  KOKKOS_INLINE_FUNCTION agent_index count_neighbours(F const& predicate) const {
    return sum_over_neighbours<agent_index>(
        [&](agent_index j, float w) { return predicate(j, w) ? agent_index{1} : agent_index{0}; });
  }

  /// 32 random bits: draw number `draw` of this agent in this step and phase.
  KOKKOS_INLINE_FUNCTION std::uint32_t random(std::uint32_t draw) const { return rng_.bits(id_, step_, stream_, draw); }
  /// A uniform float in [0, 1) with 24 random bits.
  KOKKOS_INLINE_FUNCTION float uniform(std::uint32_t draw) const {
    return static_cast<float>(random(draw) >> 8) * 5.9604644775390625e-8f;
  }
  /// True with the probability a threshold stands for (see herd::to_threshold).
  KOKKOS_INLINE_FUNCTION bool bernoulli(std::uint32_t draw, probability_threshold threshold) const {
    return happens(random(draw), threshold);
  }
  /// A probability given as a floating-point number would convert to a threshold of 0 (never)
  /// without a word: refused, with the conversion to use.
  template <class Probability, std::enable_if_t<std::is_floating_point_v<Probability>, int> = 0>
  KOKKOS_INLINE_FUNCTION bool bernoulli(std::uint32_t, Probability) const {
    static_assert(!std::is_floating_point_v<Probability>,
                  "herd: bernoulli(draw, threshold) takes a herd::probability_threshold: convert the probability "
                  "once, on the host, with herd::to_threshold(p)");
    return false;
  }

  /// Sets this agent's next value of `property`.
  template <class Property, class Value>
  KOKKOS_INLINE_FUNCTION void set(Property const& property, Value const& value) const {
    auto const v = static_cast<typename Property::value_type>(value);
    if constexpr (Mode == Details::Lanes::thread) {
      property.store_next(index_, v);
    } else if constexpr (Mode == Details::Lanes::vector) {
      Kokkos::single(Kokkos::PerThread(team_), [&]() { property.store_next(index_, v); });
    } else {
      Kokkos::single(Kokkos::PerTeam(team_), [&]() { property.store_next(index_, v); });
    }
  }

  /// Runs f once for this agent, on one lane (for effects other than property writes).
  template <class F>
  KOKKOS_INLINE_FUNCTION void single(F const& f) const {
    if constexpr (Mode == Details::Lanes::thread) {
      f();
    } else if constexpr (Mode == Details::Lanes::vector) {
      Kokkos::single(Kokkos::PerThread(team_), f);
    } else {
      Kokkos::single(Kokkos::PerTeam(team_), f);
    }
  }

 private:
  // Sum of f(e) over this agent's edges e, split among the lanes of its schedule.
  template <class T, class F>
  KOKKOS_INLINE_FUNCTION T sum_over_edges(F const& f) const {
    edge_offset const begin = graph_.row_offsets(index_), end = graph_.row_offsets(index_ + 1);
    T total = 0;
    auto body = [&](edge_offset e, T& sum) { sum += f(e); };
    if constexpr (Mode == Details::Lanes::thread) {
      for (edge_offset e = begin; e < end; ++e) body(e, total);
    } else if constexpr (Mode == Details::Lanes::vector) {
      Kokkos::parallel_reduce(Kokkos::ThreadVectorRange(team_, begin, end), body, total);
    } else {
      Kokkos::parallel_reduce(Kokkos::TeamVectorRange(team_, begin, end), body, total);
    }
    return total;
  }

  Graph const& graph_;
  TeamMember const& team_;
  std::uint64_t const* pushed_;
  std::uint8_t const* counted_;
  Details::SpreaderCounts spreading_;
  agent_index index_;
  global_id id_;
  CounterRng rng_;
  std::uint32_t step_;
  std::uint32_t stream_;
};

}  // namespace herd
