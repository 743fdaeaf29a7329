#pragma once

#include <herd/core/error.hpp>
#include <herd/core/random.hpp>
#include <herd/core/types.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

namespace herd {

/// Throws herd::Error unless `population`, given to a model's initialise, is the simulation's
/// agent count `global` (num_global()): the agents seeded are chosen among them.
inline void check_population(global_id population, global_id global) {
  require(population == global, "initialise: a population of " + std::to_string(population) +
                                    " agents for a simulation of " + std::to_string(global) + " (num_global())");
}

/// `count` distinct global ids out of [0, population), chosen by the seed alone (Floyd's
/// algorithm on the counter-based stream), sorted, in a View of `MemorySpace`. The choice does not
/// depend on ordering, backend or how agents are distributed.
template <class MemorySpace>
Kokkos::View<global_id*, MemorySpace> choose_agents(std::uint64_t seed, global_id population, global_id count) {
  require(count >= 0 && count <= population,
          "cannot choose " + std::to_string(count) + " agents out of " + std::to_string(population));
  CounterRng const rng{seed};
  std::unordered_set<global_id> chosen;
  chosen.reserve(static_cast<std::size_t>(count) * 2);
  for (global_id j = population - count; j < population; ++j) {
    auto const t = static_cast<global_id>(
        uniform_below64(rng.bits64(j, 0, streams::initial_state, 0), static_cast<std::uint64_t>(j + 1)));
    chosen.insert(chosen.count(t) ? j : t);
  }
  std::vector<global_id> sorted(chosen.begin(), chosen.end());
  std::sort(sorted.begin(), sorted.end());
  Kokkos::View<global_id*, MemorySpace> ids(Kokkos::ViewAllocateWithoutInitializing("herd::seeding::ids"),
                                            sorted.size());
  Kokkos::deep_copy(ids, Kokkos::View<global_id*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                             sorted.data(), sorted.size()));
  return ids;
}

/// Sets each agent's entry of `values` (a View over the simulation's agents) to value_of(bits), bits
/// being the agent's initial-state draw keyed on its global id: the same initial state whatever the
/// ordering, backend or rank count. `value_of` runs on the device.
template <class Simulation, class Values, class ValueOf>
void initialise_from_draws(Simulation const& sim, std::string const& label, Values const& values,
                           ValueOf const& value_of) {
  auto const ids = sim.id_map();
  auto const rng = sim.rng();
  Kokkos::parallel_for(
      label,
      Kokkos::RangePolicy<typename Simulation::execution_space>(sim.execution_space_instance(), 0, sim.num_agents()),
      KOKKOS_LAMBDA(agent_index i) { values(i) = value_of(rng.bits(ids(i), 0, streams::initial_state, 0)); });
}

/// Whether `id` is in the sorted View `ids` (binary search, on the device).
template <class View>
KOKKOS_INLINE_FUNCTION bool contains_sorted(View const& ids, global_id id) {
  std::size_t lo = 0, hi = ids.extent(0);
  while (lo < hi) {
    std::size_t const mid = lo + (hi - lo) / 2;
    if (ids(mid) < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < ids.extent(0) && ids(lo) == id;
}

}  // namespace herd
