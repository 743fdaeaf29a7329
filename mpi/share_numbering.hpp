#pragma once

// The local order of a share built by shares: its rows (interior, then boundary, each ascending),
// numbered from each row's entry count once the first pass has counted them, and its ghosts
// (ascending, which is by owner), numbered from a bit per agent once the second pass has placed
// the entries that name them.

#include "blocks.hpp"

#include "../kernels/graph/scan.hpp"

#include <herd/core/lowest_bit.hpp>
#include <herd/detail/select.hpp>
#include <herd/mpi/local_graph.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace herd::mpi::Details {

// A row's entry count, with the top bit set where the row reads an agent outside the block: one
// word, so that counting an entry misses the cache once.
inline constexpr edge_offset reads_ghost_bit = edge_offset{1} << (8 * sizeof(edge_offset) - 1);

KOKKOS_INLINE_FUNCTION int bit_count(std::uint32_t word) {
  word = word - ((word >> 1) & 0x55555555u);
  word = (word & 0x33333333u) + ((word >> 2) & 0x33333333u);
  return static_cast<int>((((word + (word >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

// Which agents outside this rank's block its rows read: one bit per agent, and the count of set
// bits before each word, so that a ghost's local index is found in O(1).
template <class MemorySpace>
struct GhostBits {
  Kokkos::View<std::uint32_t*, MemorySpace> bits;
  Kokkos::View<agent_index*, MemorySpace> before;  ///< set bits in words 0 ... w-1 (one more entry: the total)
  /// Ghosts with global ids below g.
  KOKKOS_INLINE_FUNCTION agent_index rank(global_id g) const {
    auto const w = static_cast<std::size_t>(g / 32);
    if (w >= bits.extent(0)) return before(bits.extent(0));
    auto const below = bits(w) & ((std::uint32_t{1} << (g % 32)) - 1u);
    return before(w) + bit_count(below);
  }
};

// The rows' local order from `row_entries` (counts with reads_ghost_bit, in block order, freed
// here): the interior and owned counts, the rows' offsets in that order with room for their
// entries (weights where `weighted`, layers where `layered`), and `local_of`, each owned agent's
// local index by its place in the block. The ids and ghosts wait for number_ghosts.
template <class WeightStorage, class ExecutionSpace>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> number_rows(
    ExecutionSpace const& exec, Kokkos::View<edge_offset*, typename ExecutionSpace::memory_space>& row_entries,
    Blocks const& blocks, int rank, bool weighted, bool layered,
    Kokkos::View<agent_index*, typename ExecutionSpace::memory_space>& local_of) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  auto const owned = static_cast<agent_index>(blocks.size(rank));
  auto entries = row_entries;
  auto interior_rows = herd::Details::select_indices(
      exec, owned, KOKKOS_LAMBDA(agent_index l) { return (entries(l) & reads_ghost_bit) == 0; },
      "herd::distributed_graph::interior");
  auto boundary_rows = herd::Details::select_indices(
      exec, owned, KOKKOS_LAMBDA(agent_index l) { return (entries(l) & reads_ghost_bit) != 0; },
      "herd::distributed_graph::boundary");

  LocalGraph<memory_space, WeightStorage> local;
  local.rank = rank;
  local.parts = blocks.parts;
  local.global_agents = blocks.agents;
  local.interior = static_cast<agent_index>(interior_rows.extent(0));
  local.owned = owned;
  agent_index const interior = local.interior;
  local_of = Kokkos::View<agent_index*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::distributed_graph::local_of"), owned);
  auto local_index = local_of;
  Kokkos::View<edge_offset*, memory_space> offsets(Kokkos::ViewAllocateWithoutInitializing("herd::local::row_offsets"),
                                                   owned + 1);
  Kokkos::parallel_scan(
      "herd::distributed_graph::row_offsets", policy(exec, 0, owned + 1),
      KOKKOS_LAMBDA(agent_index r, edge_offset & partial, bool final) {
        if (r == owned) {
          if (final) offsets(r) = partial;
          return;
        }
        agent_index const l = r < interior ? interior_rows(r) : boundary_rows(r - interior);
        if (final) {
          offsets(r) = partial;
          local_index(l) = r;
        }
        partial += entries(l) & ~reads_ghost_bit;
      });
  row_entries = {};
  entries = {};
  edge_offset const stored = herd::Details::last_entry(exec, offsets);
  auto& graph = local.graph;
  graph.row_offsets = offsets;
  graph.neighbours = Kokkos::View<agent_index*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::local::neighbours"), stored);
  if (weighted)
    graph.weights = Kokkos::View<WeightStorage*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::local::weights"), stored);
  if (layered)
    graph.layers = Kokkos::View<layer_index*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::local::layers"), stored);
  return local;
}

// The ghosts of `local` from their bits: `ghosts.before`, the ids (owned agents from `local_of`,
// then the ghosts ascending) and the ghosts' owners.
template <class WeightStorage, class ExecutionSpace>
void number_ghosts(ExecutionSpace const& exec, GhostBits<typename ExecutionSpace::memory_space>& ghosts,
                   Blocks const& blocks, Kokkos::View<agent_index*, typename ExecutionSpace::memory_space> local_of,
                   LocalGraph<typename ExecutionSpace::memory_space, WeightStorage>& local) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  auto const words = ghosts.bits.extent(0);
  auto bits = ghosts.bits;
  ghosts.before = Kokkos::View<agent_index*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::distributed_graph::ghosts_before"), words + 1);
  auto before = ghosts.before;
  Kokkos::parallel_scan(
      "herd::distributed_graph::number_ghosts", policy(exec, 0, words + 1),
      KOKKOS_LAMBDA(std::size_t w, agent_index & partial, bool final) {
        if (final) before(w) = partial;
        if (w < words) partial += bit_count(bits(w));
      });
  agent_index const count = herd::Details::last_entry(exec, before);
  agent_index const owned = local.owned;
  global_id const first = blocks.begin(local.rank);
  local.ids = Kokkos::View<global_id*, memory_space>(Kokkos::ViewAllocateWithoutInitializing("herd::local::ids"),
                                                     owned + count);
  auto ids = local.ids;
  Kokkos::parallel_for(
      "herd::distributed_graph::owned_ids", policy(exec, 0, owned),
      KOKKOS_LAMBDA(agent_index l) { ids(local_of(l)) = first + l; });
  Kokkos::parallel_for(
      "herd::distributed_graph::ghost_ids", policy(exec, 0, words), KOKKOS_LAMBDA(std::size_t w) {
        std::uint32_t word = bits(w);
        agent_index at = owned + before(w);
        while (word != 0) {
          int const b = herd::Details::lowest_bit(word);
          ids(at++) = static_cast<global_id>(w * 32 + static_cast<std::size_t>(b));
          word &= word - 1;
        }
      });
  // Ghosts per owner: the set bits in each other rank's block.
  int const parts = blocks.parts;
  Kokkos::View<agent_index*, memory_space> per_owner("herd::distributed_graph::per_owner", parts);
  auto const ghost_bits = ghosts;
  Kokkos::parallel_for(
      "herd::distributed_graph::ghosts_per_owner", policy(exec, 0, parts),
      KOKKOS_LAMBDA(int q) { per_owner(q) = ghost_bits.rank(blocks.begin(q + 1)) - ghost_bits.rank(blocks.begin(q)); });
  auto const host_per_owner = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), per_owner);
  local.ghost_owners.clear();
  local.ghost_offsets.assign(1, 0);
  for (int q = 0; q < parts; ++q) {
    if (host_per_owner(q) == 0) continue;
    local.ghost_owners.push_back(q);
    local.ghost_offsets.push_back(local.ghost_offsets.back() + host_per_owner(q));
  }
}

}  // namespace herd::mpi::Details
