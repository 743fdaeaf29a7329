#pragma once

// Continuous opinion dynamics: each agent holds an opinion in [0, 1] and moves it to the average
// of its own and its neighbours' opinions (DeGroot), or of those within a confidence bound of its
// own (Hegselmann-Krause bounded confidence). The natural user of float and half properties:
// Storage = herd::half keeps opinions in 2 bytes.
//
// Neighbour sums are taken in 2^-24 fixed point (integers), so the trajectory is bitwise the same
// whatever order threads, lanes or ranks add in; a step's only rounding is the division and the
// store into Storage. On an undirected graph DeGroot with the agent's own opinion counted is a
// random walk with stationary weights d_i + 1: sum_i (d_i + 1) x_i is conserved up to that
// rounding, and on a connected graph every opinion tends to sum_i (d_i + 1) x_i(0) / sum_i (d_i + 1).

#include <herd/agents/property.hpp>
#include <herd/core/error.hpp>
#include <herd/core/random.hpp>
#include <herd/models/seeding.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

namespace herd {

struct ConsensusParameters {
  /// Neighbours whose opinion differs from the agent's by at most this much are averaged; 1 or
  /// more averages them all (DeGroot).
  double confidence = 1.0;
};

template <class Storage = float, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Consensus {
 public:
  static constexpr int bins = 5;
  Property<Storage, MemorySpace> opinion;

  Consensus(agent_index agents, ConsensusParameters const& p) : params_(p) {
    require(p.confidence > 0.0, "the confidence bound must be positive, got " + number_text(p.confidence));
    opinion = Property<Storage, MemorySpace>("opinion", agents, Visibility::neighbours);
    bound_ = p.confidence >= 1.0 ? one : static_cast<std::int64_t>(p.confidence * static_cast<double>(one));
  }

  static constexpr int num_observables() { return bins; }
  /// Agents with opinions in [0, 0.2), [0.2, 0.4), ... [0.8, 1].
  std::vector<std::string> observable_names() const { return {"0.0-0.2", "0.2-0.4", "0.4-0.6", "0.6-0.8", "0.8-1.0"}; }

  /// Opinions uniform in [0, 1), drawn from the global ids.
  template <class Simulation>
  void initialise(Simulation& sim, global_id /*population*/) {
    sim.check_sizes(*this);
    initialise_from_draws(
        sim, "herd::consensus::initialise", opinion.current(), KOKKOS_LAMBDA(std::uint32_t bits) {
          return storage_traits<Storage>::store(static_cast<float>(bits >> 8) * 5.9604644775390625e-8f);
        });
  }

  template <class Simulation>
  void step(Simulation& sim) {
    sim.apply(*this, opinion);
  }

  template <class F>
  void for_each_property(F&& f) const {
    f(opinion);
  }

  template <class Agent>
  KOKKOS_FORCEINLINE_FUNCTION void operator()(Agent const& a) const {
    if (a.degree() == 0) return;
    auto const& op = opinion;  // a reference: a copy would copy its Views for every agent
    std::int64_t const mine = fixed(op.stored(a.index()));
    std::int64_t sum = mine, count = 1;
    if (bound_ >= one) {
      sum += a.template sum_over_neighbours<std::int64_t>([&](agent_index j, float) { return fixed(op.stored(j)); });
      count += a.degree();
    } else {
      // A neighbour's offset q - mine + bound lies in [0, 2 bound] exactly when it is within the
      // bound: one unsigned comparison. Which neighbours are within is unpredictable, so a mask
      // keeps or drops it, not a branch (docs/notes/bounded-confidence.md).
      std::int64_t const bound = bound_;
      auto const offset = [&](agent_index j) { return fixed(op.stored(j)) - mine + bound; };
      auto const within = [=](std::int64_t off) {
        return static_cast<std::uint64_t>(off) <= static_cast<std::uint64_t>(2 * bound);
      };
      auto const mask = [=](std::int64_t off) { return -static_cast<std::int64_t>(within(off)); };
      if (a.degree() < packed_degree_limit) {
        // One pass over the row, counting and summing in one integer: a neighbour within the
        // bound adds 2^count_shift + its offset. Offsets are below 2^25, so fewer than 2^19 of
        // them sum to less than 2^count_shift, and the count (below 2^19) fits above.
        std::int64_t const packed = a.template sum_over_neighbours<std::int64_t>([&](agent_index j, float) {
          std::int64_t const off = offset(j);
          return ((std::int64_t{1} << count_shift) + off) & mask(off);
        });
        std::int64_t const near = packed >> count_shift;
        sum += (packed & ((std::int64_t{1} << count_shift) - 1)) - near * (bound - mine);
        count += near;
      } else {
        sum += a.template sum_over_neighbours<std::int64_t>([&](agent_index j, float) {
          std::int64_t const off = offset(j);
          return off & mask(off);
        });
        count += a.count_neighbours([&](agent_index j, float) { return within(offset(j)); });
        sum -= (count - 1) * (bound - mine);
      }
    }
    a.set(opinion, static_cast<float>(static_cast<double>(sum) / static_cast<double>(count) * (1.0 / one)));
  }

  /// Where a neighbour's opinion lies, so that pull steps on CPUs can ask for it ahead.
  KOKKOS_INLINE_FUNCTION Storage const* contribution_address(agent_index j) const { return opinion.address(j); }

  /// Whether agent i's opinion lies in [0, 1] (checked on loading a state; NaN fails).
  KOKKOS_INLINE_FUNCTION bool holds_valid_state(agent_index i) const {
    float const x = static_cast<float>(opinion(i));
    return x >= 0.0f && x <= 1.0f;
  }

  KOKKOS_INLINE_FUNCTION void observe(agent_index i, std::int64_t* totals) const {
    // opinion(i) is the value as a float, whatever the storage.
    int const bin = static_cast<int>(static_cast<float>(opinion(i)) * bins);
    totals[bin < 0 ? 0 : bin >= bins ? bins - 1 : bin] += 1;
  }

  /// A stored opinion as the neighbour sums take it, a multiple of 2^-24 (public for reference
  /// kernels that must add as the step adds).
  // A float in [0, 1] is rounded half up, without branches (opinions near 1/2 would make them
  // unpredictable): x 2^25 is exact in double, and (floor(2y) + 1) / 2 rounded down is
  // floor(y + 1/2).
  KOKKOS_FORCEINLINE_FUNCTION static std::int64_t fixed(float x) {
    return (static_cast<std::int64_t>(static_cast<double>(x) * 33554432.0) + 1) >> 1;
  }
  // Exact for binary16 (a half is a multiple of 2^-24) either way: through the F16C conversion
  // where the build has it, else with integer operations only: a normal half is
  // (1024 + m) 2^(e - 25), a subnormal m 2^-24.
  KOKKOS_FORCEINLINE_FUNCTION static std::int64_t fixed(half x) {
#if HERD_HALF_USES_F16C
    return fixed(static_cast<float>(x));
#else
    std::int64_t const e = (x.bits >> 10) & 0x1f, m = x.bits & 0x3ff;
    return e == 0 ? m : (1024 + m) << (e - 1);
#endif
  }
  template <class S>
  KOKKOS_FORCEINLINE_FUNCTION static std::int64_t fixed(S x) {
    return fixed(storage_traits<S>::load(x));
  }

 private:
  static constexpr std::int64_t one = std::int64_t{1} << 24;
  // Bounded confidence's single pass: where the count of near neighbours starts in the packed sum,
  // and the degrees below which it cannot overflow into it (see operator()).
  static constexpr int count_shift = 44;
  static constexpr agent_index packed_degree_limit = agent_index{1} << 19;

  ConsensusParameters params_;
  std::int64_t bound_ = one;
};

}  // namespace herd
