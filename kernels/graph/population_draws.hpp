#pragma once

// The draws that make the generators' graphs, each a pure function of (seed, id): the one-process
// generators and the ranks that build the layered population by shares call the same functions,
// so both make the same edges, bit for bit.

#include <herd/core/error.hpp>
#include <herd/core/random.hpp>
#include <herd/core/types.hpp>
#include <herd/graph/generators.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace herd::Details {

// Random streams of the generators; each purpose draws from its own.
enum GraphStream : std::uint32_t {
  random_edges = 100,
  household_size,
  age,
  school_choice,
  class_contacts,
  employment,
  workplace_choice,
  workplace_contacts,
  community
};

inline void check_agents(agent_index agents, char const* generator) {
  require(agents > 0, std::string(generator) + ": the agent count must be positive, got " + std::to_string(agents));
}

inline void check_population(LayeredPopulation const& spec) {
  check_agents(spec.agents, "population");
  require(spec.school_size >= 1 && spec.class_size >= 1 && spec.workplace_size >= 1,
          "population: school, class and workplace sizes must be positive");
  require(spec.class_contacts >= 0 && spec.workplace_contacts >= 0 && spec.community_degree >= 0.0,
          "population: contact counts must not be negative");
  require(spec.employment >= 0.0 && spec.employment <= 1.0, "population: employment must lie in [0, 1]");
}

/// End `end` (0: source, 1: target) of the random pair with id `id` among n agents.
KOKKOS_INLINE_FUNCTION global_id random_end(CounterRng const& rng, global_id id, std::uint32_t stream,
                                            std::uint32_t end, std::uint64_t n) {
  return static_cast<global_id>(uniform_below64(rng.bits64(id, 0, stream, end), n));
}

/// Households and ages of the layered population. Households have sizes 1..6 with the shares of
/// a typical census (28, 35, 15, 13, 6, 3 %) and are laid out in agent order.
struct HouseholdDraws {
  CounterRng rng;
  probability_threshold s1, s2, s3, s4, s5, elder_head, child, elder;

  explicit HouseholdDraws(std::uint64_t seed)
      : rng{seed},
        s1(to_threshold(0.28)),
        s2(to_threshold(0.63)),
        s3(to_threshold(0.78)),
        s4(to_threshold(0.91)),
        s5(to_threshold(0.97)),
        elder_head(to_threshold(0.2)),
        child(to_threshold(0.4)),
        elder(to_threshold(0.5)) {}

  KOKKOS_INLINE_FUNCTION std::uint8_t size(global_id household) const {
    auto const r = rng.bits(household, 0, GraphStream::household_size, 0);
    return static_cast<std::uint8_t>(1 + !happens(r, s1) + !happens(r, s2) + !happens(r, s3) + !happens(r, s4) +
                                     !happens(r, s5));
  }

  /// The first member is an adult or an elder; the others children, adults or elders.
  KOKKOS_INLINE_FUNCTION std::uint8_t age_of(global_id agent, bool first) const {
    auto const r = rng.bits(agent, 0, GraphStream::age, 0);
    return static_cast<std::uint8_t>(first ? (happens(r, elder_head) ? AgeGroup::elder : AgeGroup::adult)
                                           : (happens(r, child)   ? AgeGroup::child
                                              : happens(r, elder) ? AgeGroup::elder
                                                                  : AgeGroup::adult));
  }
};

/// A contact layer of schools or workplaces: agents of `group` join with probability `share`,
/// pick one of members / group_size groups at random, and link to `contacts` random members of
/// their block of `block` consecutive members (a class in a school, or the whole workplace).
struct LayerSpec {
  AgeGroup group;
  double share;
  agent_index group_size, block;
  int contacts;
  std::uint32_t join_stream, choice_stream, contact_stream;
  float weight;
};

// Everyone of school age goes to school (share 1), so the join stream is then unused.
inline LayerSpec school_layer(LayeredPopulation const& spec) {
  return {AgeGroup::child,
          1.0,
          spec.school_size,
          spec.class_size,
          spec.class_contacts,
          GraphStream::employment,
          GraphStream::school_choice,
          GraphStream::class_contacts,
          spec.school_weight};
}

inline LayerSpec workplace_layer(LayeredPopulation const& spec) {
  return {
      AgeGroup::adult,         spec.employment,         spec.workplace_size,           spec.workplace_size,
      spec.workplace_contacts, GraphStream::employment, GraphStream::workplace_choice, GraphStream::workplace_contacts,
      spec.workplace_weight};
}

/// One contact layer's draws: who joins, and which group.
struct LayerDraws {
  CounterRng rng;
  std::uint8_t wanted;
  probability_threshold join;
  std::uint32_t join_stream, choice_stream;

  LayerDraws(std::uint64_t seed, LayerSpec const& layer)
      : rng{seed},
        wanted(static_cast<std::uint8_t>(layer.group)),
        join(to_threshold(layer.share)),
        join_stream(layer.join_stream),
        choice_stream(layer.choice_stream) {}

  KOKKOS_INLINE_FUNCTION bool joins(global_id agent, std::uint8_t age_group) const {
    return age_group == wanted && happens(rng.bits(agent, 0, join_stream, 0), join);
  }
  KOKKOS_INLINE_FUNCTION agent_index group_of(global_id agent, agent_index groups) const {
    return static_cast<agent_index>(
        uniform_below(rng.bits(agent, 0, choice_stream, 0), static_cast<std::uint32_t>(groups)));
  }
};

/// Groups of `members` members, `group_size` to a group (at least one group).
inline agent_index group_count(std::uint64_t members, agent_index group_size) {
  return members == 0 ? 1 : static_cast<agent_index>((members + group_size - 1) / group_size);
}

/// Contact c of the member at entry e of a membership CSR (row = group, members ascending): a
/// random member of its block of `block` consecutive entries of the row [begin, end). A draw that
/// hits the member itself is a self-loop, which building the graph drops.
template <class Members>
KOKKOS_INLINE_FUNCTION agent_index group_contact(CounterRng const& rng, Members const& members, edge_offset begin,
                                                 edge_offset end, edge_offset e, agent_index block,
                                                 std::uint32_t stream, std::uint32_t c) {
  edge_offset const block_begin = begin + (e - begin) / block * block;
  edge_offset const block_end = block_begin + block < end ? block_begin + block : end;
  auto const size = static_cast<std::uint32_t>(block_end - block_begin);
  auto const r = rng.bits(members(e), 0, stream, c);
  return members(block_begin + uniform_below(r, size));
}

}  // namespace herd::Details
