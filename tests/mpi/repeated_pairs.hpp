#pragma once

// A user's own edge source for the MPI tests, with what built-in generators never make.

#include <herd/herd.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace herd::test {

using Memory = Kokkos::DefaultExecutionSpace::memory_space;

// A user's own source: random pairs with repeats (half of them drawn twice, with another weight),
// self-loops and weights that a 16-bit store rounds together, to test which duplicate is kept.
inline EdgeSource<Memory> repeated_pairs(agent_index agents, std::size_t edges) {
  EdgeSource<Memory> source;
  source.agents = agents;
  source.edges = edges;
  source.weighted = true;
  source.slice = [agents](std::size_t first, std::size_t count) {
    EdgeList<Memory> list;
    list.num_agents = agents;
    list.sources = Kokkos::View<global_id*, Memory>("sources", count);
    list.targets = Kokkos::View<global_id*, Memory>("targets", count);
    list.weights = Kokkos::View<float*, Memory>("weights", count);
    auto host_s = Kokkos::create_mirror_view(list.sources);
    auto host_t = Kokkos::create_mirror_view(list.targets);
    auto host_w = Kokkos::create_mirror_view(list.weights);
    for (std::size_t k = 0; k < count; ++k) {
      std::uint64_t const e = first + k, pair = e / 2;  // edges 2p and 2p + 1 join the same agents
      std::uint64_t const h = pair * 0x9e3779b97f4a7c15ull;
      host_s(k) = static_cast<global_id>((h >> 20) % static_cast<std::uint64_t>(agents));
      host_t(k) = static_cast<global_id>((h >> 40) % static_cast<std::uint64_t>(agents));
      if (pair % 7 == 0) host_t(k) = host_s(k);
      host_w(k) = 0.25f + static_cast<float>((e * 2654435761u) % 1000) * 1e-4f;
    }
    Kokkos::deep_copy(list.sources, host_s);
    Kokkos::deep_copy(list.targets, host_t);
    Kokkos::deep_copy(list.weights, host_w);
    return list;
  };
  return source;
}

}  // namespace herd::test
