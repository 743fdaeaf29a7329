#pragma once

// Binary opinion dynamics, a non-epidemic family that exercises the engine differently: the voter
// model reads one random neighbour, majority rule reads them all.

#include <herd/agents/property.hpp>
#include <herd/core/error.hpp>
#include <herd/core/random.hpp>
#include <herd/models/seeding.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

namespace herd {

enum class OpinionRule : std::uint8_t {
  voter,    ///< copy the opinion of one uniformly random neighbour
  majority  ///< take the opinion held by most neighbours; keep one's own on a tie
};

struct OpinionParameters {
  OpinionRule rule = OpinionRule::voter;
  double initial_share = 0.5;  ///< probability that an agent starts with opinion 1
};

template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Opinion {
 public:
  Property<std::uint8_t, MemorySpace> opinion;

  Opinion(agent_index agents, OpinionParameters const& p) : params_(p) {
    require(p.initial_share >= 0.0 && p.initial_share <= 1.0,
            "the initial share of opinion 1 must lie in [0, 1], got " + number_text(p.initial_share));
    opinion = Property<std::uint8_t, MemorySpace>("opinion", agents, Visibility::neighbours);
  }

  static constexpr int num_observables() { return 2; }
  std::vector<std::string> observable_names() const { return {"opinion0", "opinion1"}; }

  /// Each agent holds opinion 1 with probability initial_share, drawn from its global id.
  template <class Simulation>
  void initialise(Simulation& sim, global_id /*population*/) {
    sim.check_sizes(*this);
    auto const share = to_threshold(params_.initial_share);
    initialise_from_draws(
        sim, "herd::opinion::initialise", opinion.current(),
        KOKKOS_LAMBDA(std::uint32_t bits) { return static_cast<std::uint8_t>(happens(bits, share) ? 1 : 0); });
  }

  template <class Simulation>
  void step(Simulation& sim) {
    sim.apply(*this, opinion);
  }

  /// Calls f on each property: the whole state of an agent, for checkpoints and outputs.
  template <class F>
  void for_each_property(F&& f) const {
    f(opinion);
  }

  template <class Agent>
  KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
    agent_index const degree = a.degree();
    if (degree == 0) return;
    if (params_.rule == OpinionRule::voter) {
      auto const k = static_cast<agent_index>(uniform_below(a.random(0), static_cast<std::uint32_t>(degree)));
      a.set(opinion, opinion(a.neighbour(k)));
    } else {
      auto const& op = opinion;  // a reference: a copy would copy its Views for every agent
      agent_index const ones = a.count_neighbours([&](agent_index j, float) { return op(j) == 1; });
      if (2 * ones != degree) a.set(opinion, 2 * ones > degree ? 1 : 0);
    }
  }

  /// Where a neighbour's opinion lies, so that pull steps on CPUs can ask for it ahead. The voter
  /// rule reads one neighbour of the row, picked by a draw, and gains too: that read missed the
  /// caches all the same.
  KOKKOS_INLINE_FUNCTION void const* contribution_address(agent_index j) const { return opinion.address(j); }

  KOKKOS_INLINE_FUNCTION void observe(agent_index i, std::int64_t* totals) const { totals[opinion(i)] += 1; }

  /// Whether agent i holds opinion 0 or 1 (checked on loading a state).
  KOKKOS_INLINE_FUNCTION bool holds_valid_state(agent_index i) const { return opinion(i) <= 1; }

 private:
  OpinionParameters params_;
};

}  // namespace herd
