// Moving rows from contiguous blocks to the parts a partitioner chose, on the host: setup runs
// once, and MPI reads host memory here anyway.

#include <herd/mpi/repartition.hpp>

#include "blocks.hpp"
#include "exchange.hpp"

#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/lowest_bit.hpp>
#include <herd/core/profiling_region.hpp>
#include <herd/mpi/collective.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace herd::mpi {

namespace {

// A row on its way to its part: its agent and how many entries follow it.
struct RowHead {
  global_id id;
  std::uint64_t entries;
};

// Agents as bits, with the count of set bits before each word: the position of a set agent among
// all set agents in ascending id, in O(1). N/4 bytes for N agents once counted (a rank's local
// agents fit 32 bits).
class AgentBits {
 public:
  explicit AgentBits(global_id agents) : words_(static_cast<std::size_t>((agents + 31) / 32), 0) {}
  void set(global_id g) { words_[static_cast<std::size_t>(g >> 5)] |= 1u << (g & 31); }
  bool test(global_id g) const { return (words_[static_cast<std::size_t>(g >> 5)] >> (g & 31)) & 1u; }
  void merge(AgentBits const& other) {
    for (std::size_t w = 0; w < words_.size(); ++w) words_[w] |= other.words_[w];
  }
  void count() {
    before_.assign(words_.size(), 0);
    std::uint32_t sum = 0;
    for (std::size_t w = 0; w < words_.size(); ++w) {
      before_[w] = sum;
      sum += static_cast<std::uint32_t>(std::bitset<32>(words_[w]).count());
    }
  }
  // After count(): how many set agents come before g.
  std::size_t position(global_id g) const {
    auto const w = static_cast<std::size_t>(g >> 5);
    std::uint32_t const below = words_[w] & ((1u << (g & 31)) - 1u);
    return static_cast<std::size_t>(before_[w] + std::bitset<32>(below).count());
  }
  // The set agents in ascending id.
  std::vector<global_id> list() const {
    std::vector<global_id> ids;
    for (std::size_t w = 0; w < words_.size(); ++w)
      for (std::uint32_t bits = words_[w]; bits != 0; bits &= bits - 1)
        ids.push_back(static_cast<global_id>(w * 32 + static_cast<std::size_t>(herd::Details::lowest_bit(bits))));
    return ids;
  }

 private:
  std::vector<std::uint32_t> words_;
  std::vector<std::uint32_t> before_;
};

}  // namespace

template <class ExecutionSpace, class WeightStorage>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> migrate_rows(
    ExecutionSpace const& exec, MPI_Comm comm,
    LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& share, std::vector<int> const& parts) {
  using memory_space = typename ExecutionSpace::memory_space;
  herd::Details::ProfilingRegion const region("herd::mpi::migrate_rows");
  int const rank = rank_of(comm), size = size_of(comm);
  Details::Blocks const blocks{share.global_agents, size};
  global_id const first = blocks.begin(rank);
  auto const owned = static_cast<std::size_t>(share.owned);
  auto const ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), share.ids);
  collectively(comm, [&] {
    require(share.parts == size && share.rank == rank && static_cast<global_id>(owned) == blocks.size(rank),
            "migrate_rows: rank " + std::to_string(rank) + "'s share is not its contiguous block of " +
                std::to_string(share.global_agents) + " agents over " + std::to_string(size) + " ranks");
    require(parts.size() == owned, "migrate_rows: " + std::to_string(parts.size()) + " parts for " +
                                       std::to_string(owned) + " owned agents on rank " + std::to_string(rank));
    for (int p : parts)
      if (p < 0 || p >= size)
        throw Error("migrate_rows: part " + std::to_string(p) + " outside 0 ... " + std::to_string(size - 1));
  });
  auto const offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), share.graph.row_offsets);
  auto const neighbours = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), share.graph.neighbours);
  auto const weights = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), share.graph.weights);
  auto const layers = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), share.graph.layers);
  // A rank whose rows hold no entry has no weights or layers even when the graph has them.
  int kinds[2] = {share.graph.weighted() ? 1 : 0, share.graph.layered() ? 1 : 0};
  MPI_Allreduce(MPI_IN_PLACE, kinds, 2, MPI_INT, MPI_MAX, comm);
  bool const weighted = kinds[0] != 0, layered = kinds[1] != 0;

  // The directory: the part of each agent of this rank's block, which readers of it will ask for.
  std::vector<int> part_of_block(owned);
  for (std::size_t l = 0; l < owned; ++l) part_of_block[static_cast<std::size_t>(ids(l) - first)] = parts[l];

  // Each row, with its entries as global ids, to its part.
  std::vector<std::size_t> row_counts(size, 0), entry_counts(size, 0);
  for (std::size_t l = 0; l < owned; ++l) {
    ++row_counts[parts[l]];
    entry_counts[parts[l]] += offsets(l + 1) - offsets(l);
  }
  auto const row_begin = Details::group_begins(row_counts), entry_begin = Details::group_begins(entry_counts);
  std::vector<RowHead> heads(owned);
  std::vector<global_id> entries(entry_begin[size]);
  std::vector<WeightStorage> entry_weights(weighted ? entries.size() : 0);
  std::vector<layer_index> entry_layers(layered ? entries.size() : 0);
  {
    auto row_cursor = row_begin, entry_cursor = entry_begin;
    for (std::size_t l = 0; l < owned; ++l) {
      auto const q = static_cast<std::size_t>(parts[l]);
      heads[row_cursor[q]++] = {ids(l), offsets(l + 1) - offsets(l)};
      for (auto e = offsets(l); e < offsets(l + 1); ++e, ++entry_cursor[q]) {
        entries[entry_cursor[q]] = ids(neighbours(e));
        if (weighted) entry_weights[entry_cursor[q]] = weights(e);
        if (layered) entry_layers[entry_cursor[q]] = layers(e);
      }
    }
  }
  std::vector<std::size_t> from;
  auto const in_heads = Details::exchange(comm, heads, row_begin, from, "migrate_rows");
  auto const in_entries = Details::exchange(comm, entries, entry_begin, from, "migrate_rows");
  std::vector<WeightStorage> in_weights;
  if (weighted) in_weights = Details::exchange(comm, entry_weights, entry_begin, from, "migrate_rows");
  std::vector<layer_index> in_layers;
  if (layered) in_layers = Details::exchange(comm, entry_layers, entry_begin, from, "migrate_rows");
  heads = {};
  entries = {};
  entry_weights = {};
  entry_layers = {};

  // The rows received, by ascending id, and where each one's entries begin.
  std::size_t const rows = in_heads.size();
  std::vector<std::size_t> row_start(rows + 1, 0);
  for (std::size_t k = 0; k < rows; ++k) row_start[k + 1] = row_start[k] + in_heads[k].entries;
  std::vector<std::size_t> by_id(rows);
  std::iota(by_id.begin(), by_id.end(), std::size_t{0});
  std::sort(by_id.begin(), by_id.end(), [&](std::size_t a, std::size_t b) { return in_heads[a].id < in_heads[b].id; });

  // Owned agents, ghosts (agents elsewhere that owned rows read), and which rows read a ghost.
  AgentBits mine(share.global_agents), ghost_bits(share.global_agents);
  for (auto const& head : in_heads) mine.set(head.id);
  std::vector<char> boundary(rows, 0);
  for (std::size_t k = 0; k < rows; ++k)
    for (auto e = row_start[k]; e < row_start[k + 1]; ++e)
      if (!mine.test(in_entries[e])) {
        ghost_bits.set(in_entries[e]);
        boundary[k] = 1;
      }
  auto ghost_ids = ghost_bits.list();

  // Ghosts' owners, asked of their homes. Ghosts ascend by id, so they are grouped by home already.
  std::vector<std::size_t> per_home(size, 0);
  for (auto g : ghost_ids) ++per_home[blocks.owner(g)];
  auto const asked = Details::exchange(comm, ghost_ids, Details::group_begins(per_home), from, "migrate_rows");
  std::vector<int> answers(asked.size());
  for (std::size_t k = 0; k < asked.size(); ++k) answers[k] = part_of_block[static_cast<std::size_t>(asked[k] - first)];
  std::vector<std::size_t> answered_from;
  auto const ghost_owner = Details::exchange(comm, answers, from, answered_from, "migrate_rows");

  // Ghosts grouped by owner, ascending id within each group.
  std::vector<std::size_t> ghost_order(ghost_ids.size());
  std::iota(ghost_order.begin(), ghost_order.end(), std::size_t{0});
  std::stable_sort(ghost_order.begin(), ghost_order.end(),
                   [&](std::size_t a, std::size_t b) { return ghost_owner[a] < ghost_owner[b]; });

  LocalGraph<memory_space, WeightStorage> local;
  local.rank = rank;
  local.parts = size;
  local.global_agents = share.global_agents;
  local.owned = static_cast<agent_index>(rows);
  local.interior = static_cast<agent_index>(std::count(boundary.begin(), boundary.end(), 0));
  local.ghost_offsets.push_back(0);
  for (std::size_t j = 0; j < ghost_order.size(); ++j) {
    int const q = ghost_owner[ghost_order[j]];
    if (local.ghost_owners.empty() || local.ghost_owners.back() != q) {
      local.ghost_owners.push_back(q);
      local.ghost_offsets.push_back(local.ghost_offsets.back());
    }
    ++local.ghost_offsets.back();
  }

  // Local ids: interior rows, boundary rows, ghosts; local_of maps an agent's position among all
  // local agents (by id) to its local index.
  auto const locals = rows + ghost_ids.size();
  Kokkos::View<global_id*, Kokkos::HostSpace> local_ids("herd::migrate::ids", locals);
  std::vector<std::size_t> row_of(rows);  // received row of each local row
  {
    std::size_t interior = 0, boundary_row = static_cast<std::size_t>(local.interior);
    for (auto k : by_id) {
      auto const l = boundary[k] ? boundary_row++ : interior++;
      row_of[l] = k;
      local_ids(l) = in_heads[k].id;
    }
    for (std::size_t j = 0; j < ghost_order.size(); ++j) local_ids(rows + j) = ghost_ids[ghost_order[j]];
  }
  mine.merge(ghost_bits);
  ghost_bits = AgentBits(0);
  mine.count();
  std::vector<agent_index> local_of(locals);
  for (std::size_t l = 0; l < locals; ++l) local_of[mine.position(local_ids(l))] = static_cast<agent_index>(l);

  // The rows, each in the order it arrived in (its global order), entries renumbered.
  Kokkos::View<edge_offset*, Kokkos::HostSpace> local_offsets("herd::migrate::row_offsets", rows + 1);
  for (std::size_t l = 0; l < rows; ++l)
    local_offsets(l + 1) = local_offsets(l) + (row_start[row_of[l] + 1] - row_start[row_of[l]]);
  Kokkos::View<agent_index*, Kokkos::HostSpace> local_neighbours(
      Kokkos::ViewAllocateWithoutInitializing("herd::migrate::neighbours"), in_entries.size());
  Kokkos::View<WeightStorage*, Kokkos::HostSpace> local_weights(
      Kokkos::ViewAllocateWithoutInitializing("herd::migrate::weights"), in_weights.size());
  Kokkos::View<layer_index*, Kokkos::HostSpace> local_layers(
      Kokkos::ViewAllocateWithoutInitializing("herd::migrate::layers"), in_layers.size());
  edge_offset cut = 0;
  for (std::size_t l = 0; l < rows; ++l) {
    auto out = local_offsets(l);
    for (auto e = row_start[row_of[l]]; e < row_start[row_of[l] + 1]; ++e, ++out) {
      agent_index const j = local_of[mine.position(in_entries[e])];
      local_neighbours(out) = j;
      if (weighted) local_weights(out) = in_weights[e];
      if (layered) local_layers(out) = in_layers[e];
      cut += static_cast<std::size_t>(j) >= rows ? 1 : 0;
    }
  }
  local.cut_edges = cut;
  local.ids = Kokkos::create_mirror_view_and_copy(memory_space(), local_ids);
  local.graph.row_offsets = Kokkos::create_mirror_view_and_copy(memory_space(), local_offsets);
  local.graph.neighbours = Kokkos::create_mirror_view_and_copy(memory_space(), local_neighbours);
  local.graph.weights = Kokkos::create_mirror_view_and_copy(memory_space(), local_weights);
  local.graph.layers = Kokkos::create_mirror_view_and_copy(memory_space(), local_layers);
  local.graph.symmetric = share.graph.symmetric;
  local.mirrored = share.mirrored;
  exec.fence();
  return local;
}

#define HERD_INSTANTIATE_MIGRATE_W(EXEC, W)                         \
  template LocalGraph<EXEC::memory_space, W> migrate_rows<EXEC, W>( \
      EXEC const&, MPI_Comm, LocalGraph<EXEC::memory_space, W> const&, std::vector<int> const&);
#define HERD_INSTANTIATE_MIGRATE(EXEC)    \
  HERD_INSTANTIATE_MIGRATE_W(EXEC, float) \
  HERD_INSTANTIATE_MIGRATE_W(EXEC, half)

HERD_FOR_EACH_EXECUTION_SPACE(HERD_INSTANTIATE_MIGRATE)

}  // namespace herd::mpi
