#pragma once

// One bit per stored agent, set where its activity has `spreads`: what a pull step reads instead of
// the neighbours' states, for models that declare their activity and contributions (see
// SpreaderBits::counts). At 10^7 agents the states take 10 MB and the bits 1.25 MB, so the random
// reads of a row's neighbours hit a cache eight times smaller. Where every spreading neighbour
// contributes the same, the sum is a count without branches, so an epidemic's peak, where
// spreaders fall at random among the neighbours, costs what its start does.

#include <herd/core/types.hpp>
#include <herd/engine/activity.hpp>
#include <herd/engine/model_traits.hpp>
#include <herd/engine/step_plan.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace herd {

namespace Details {

inline constexpr agent_index spreader_word_bits = 32;

/// Whether agent j spreads: 1 or 0.
KOKKOS_INLINE_FUNCTION std::uint32_t spreads_bit(std::uint32_t const* bits, agent_index j) {
  auto const u = static_cast<std::uint32_t>(j);
  return (bits[u / spreader_word_bits] >> (u % spreader_word_bits)) & 1u;
}

/// Sets the words of `bits` that hold agents [from, to) from phase.activity, whole words (of the
/// first `stored` agents). Does not wait.
template <class ExecutionSpace, class Phase>
void mark_spreaders(ExecutionSpace const& exec, Phase const& phase, agent_index from, agent_index to,
                    agent_index stored,
                    Kokkos::View<std::uint32_t*, typename ExecutionSpace::memory_space> const& bits) {
  if (to <= from) return;
  Kokkos::parallel_for(
      "herd::step::spreaders",
      Kokkos::RangePolicy<ExecutionSpace>(exec, from / spreader_word_bits,
                                          (to + spreader_word_bits - 1) / spreader_word_bits),
      KOKKOS_LAMBDA(agent_index w) {
        agent_index const base = w * spreader_word_bits;
        agent_index const count = stored - base < spreader_word_bits ? stored - base : spreader_word_bits;
        std::uint32_t word = 0;
        for (agent_index b = 0; b < count; ++b)
          word |= static_cast<std::uint32_t>((phase.activity(base + b) & activity::spreads) != 0) << b;
        bits(w) = word;
      });
}

/// The bits of a simulation's stored agents, marked before each pulled phase that counts its
/// spreaders, from the current states (ghosts included), so that nothing has to be kept up to date
/// between phases. Allocated with the simulation: the step loop allocates nothing.
template <class ExecutionSpace>
class SpreaderBits {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using bits_type = Kokkos::View<std::uint32_t const*, memory_space>;

  SpreaderBits() = default;
  /// Bits for the `stored` agents of `graph`.
  template <class Graph>
  SpreaderBits(Graph const& graph, agent_index stored)
      : bits_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::spreaders"),
              static_cast<std::size_t>((stored + spreader_word_bits - 1) / spreader_word_bits)),
        stored_(stored),
        weighted_(graph.weighted()) {}

  /// Pulled phases read neighbours' states instead (`on` false), or bits where they can.
  void set_enabled(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }

  /// Whether the pulled phases of `Phase`, a model that declares its activity and its
  /// contributions, read the bits:
  /// - on an unweighted graph when every spreading neighbour contributes the same
  ///   (counts_spreaders_v): the sum is a count, without branches;
  /// - on a weighted graph on GPUs, whose sums gather a word of "spreads" before the contributions
  ///   (Details::sum_contributions), now from the bits instead of the states. CPUs test each
  ///   neighbour's state there: bits measured slower (SEIR on the population, 2 cores, 287 against
  ///   223 ms at 10^7 agents, where the states are asked for ahead; 17.8 against 16.3 ms at 10^6).
  template <class Phase>
  bool counts() const {
    return marks_v<Phase> && enabled_ && bits_.extent(0) > 0 &&
           (weighted_ ? is_gpu<ExecutionSpace>() : counts_spreaders_v<Phase>);
  }

  /// Sets the bits of agents [from, to) from phase.activity, by whole words (a word shared with
  /// agents before `from` is rewritten with their bits too, from their current states), and
  /// returns all the bits; empty, with nothing launched, when the phase does not read them. Does
  /// not wait.
  template <class Phase>
  bits_type mark(ExecutionSpace const& exec, Phase const& phase, agent_index from, agent_index to) const {
    if constexpr (marks_v<Phase>) {
      if (!counts<Phase>()) return {};
      mark_spreaders(exec, phase, from, to, stored_, bits_);
      return bits_;
    } else {
      (void)exec;
      (void)phase;
      (void)from;
      (void)to;
      return {};
    }
  }

 private:
  Kokkos::View<std::uint32_t*, memory_space> bits_;
  template <class Phase>
  static constexpr bool marks_v = declares_activity_v<Phase>&& declares_contribution_v<Phase>;

  agent_index stored_ = 0;
  bool weighted_ = false;
  bool enabled_ = true;
};

}  // namespace Details

}  // namespace herd
