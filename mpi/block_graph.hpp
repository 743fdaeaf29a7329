#pragma once

// A share in contiguous blocks as the parallel partitioners take it (PT-Scotch, ParMETIS): rank r
// holds vertices [begin(r), begin(r + 1)) of one global numbering, in CSR arrays of the
// partitioner's own integers, and gets back a part for each.

#include "blocks.hpp"
#include "exchange.hpp"

#include <herd/core/error.hpp>
#include <herd/mpi/collective.hpp>
#include <herd/mpi/local_graph.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace herd::mpi::Details {

// This rank's block of the symmetrised graph: rows in block order, each neighbour once, no
// self-loops; each vertex weighted by one plus its row's entries in the share.
template <class Num>
struct BlockRows {
  std::vector<Num> offsets, neighbours, weights;
};

// Throws CollectiveError on every rank unless `share` is this rank's contiguous block of at least
// one agent. `what` names the partitioning in the message.
template <class MemorySpace, class WeightStorage>
void require_block(MPI_Comm comm, LocalGraph<MemorySpace, WeightStorage> const& share, std::string const& what) {
  int const rank = rank_of(comm), size = size_of(comm);
  Blocks const blocks{share.global_agents, size};
  collectively(comm, [&] {
    require(share.parts == size && share.rank == rank && static_cast<global_id>(share.owned) == blocks.size(rank),
            what + ": rank " + std::to_string(rank) + "'s share is not its contiguous block");
    require(share.global_agents >= size, what + ": " + std::to_string(share.global_agents) + " agents cannot fill " +
                                             std::to_string(size) + " parts");
  });
}

// The block's rows in `Num`s. `symmetric`: the rows hold every entry both ways already; otherwise
// each entry i -> j also goes to j's home as j -> i. Throws CollectiveError on every rank when the
// graph is beyond `Num`: `what` names the partitioning, `who` the partitioner, `remedy` the build
// of it that would take the graph.
template <class Num, class MemorySpace, class WeightStorage>
BlockRows<Num> symmetrised_block(MPI_Comm comm, LocalGraph<MemorySpace, WeightStorage> const& share,
                                 Kokkos::View<global_id const*, Kokkos::HostSpace> ids, bool symmetric,
                                 std::string const& what, std::string const& who, std::string const& remedy) {
  int const rank = rank_of(comm), size = size_of(comm);
  Blocks const blocks{share.global_agents, size};
  global_id const first = blocks.begin(rank);
  auto const owned = static_cast<std::size_t>(share.owned);
  auto const offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), share.graph.row_offsets);
  auto const neighbours = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), share.graph.neighbours);

  using Pair = std::array<global_id, 2>;
  std::vector<Pair> links;
  if (symmetric) {
    // The rows hold every entry both ways already: this rank's entries are its block's links.
    links.reserve(offsets(owned));
    for (std::size_t l = 0; l < owned; ++l)
      for (auto e = offsets(l); e < offsets(l + 1); ++e)
        if (ids(neighbours(e)) != ids(l)) links.push_back({ids(l), ids(neighbours(e))});
  } else {
    // Each entry i -> j stays as (i, j) and goes to j's home as (j, i).
    std::vector<std::size_t> counts(size, 0);
    for (std::size_t l = 0; l < owned; ++l)
      for (auto e = offsets(l); e < offsets(l + 1); ++e) {
        global_id const j = ids(neighbours(e));
        if (j == ids(l)) continue;
        ++counts[rank];
        ++counts[blocks.owner(j)];
      }
    auto const begin = group_begins(counts);
    std::vector<Pair> pairs(begin[size]);
    auto cursor = begin;
    for (std::size_t l = 0; l < owned; ++l)
      for (auto e = offsets(l); e < offsets(l + 1); ++e) {
        global_id const i = ids(l), j = ids(neighbours(e));
        if (j == i) continue;
        pairs[cursor[rank]++] = {i, j};
        pairs[cursor[blocks.owner(j)]++] = {j, i};
      }
    std::vector<std::size_t> from;
    links = exchange(comm, pairs, begin, from, what.c_str());
    pairs = {};
  }
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());

  // The partitioner sums entries and agent weights over all ranks in its own integers.
  std::uint64_t totals[2] = {links.size(), owned + static_cast<std::uint64_t>(share.graph.num_edges())};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_UINT64_T, MPI_SUM, comm);
  collectively(comm, [&] {
    auto const most = static_cast<std::uint64_t>(std::numeric_limits<Num>::max());
    require(static_cast<std::uint64_t>(share.global_agents) <= most && totals[0] <= most && totals[1] <= most,
            what + ": " + std::to_string(share.global_agents) + " agents with " + std::to_string(totals[0]) +
                " symmetrised entries exceed " + who + "'s " + std::to_string(sizeof(Num) * 8) + "-bit integers (" +
                remedy + ")");
  });
  BlockRows<Num> rows;
  rows.offsets.assign(owned + 1, 0);
  rows.weights.assign(owned, 1);
  rows.neighbours.resize(links.size());
  for (std::size_t k = 0; k < links.size(); ++k) {
    ++rows.offsets[static_cast<std::size_t>(links[k][0] - first) + 1];
    rows.neighbours[k] = static_cast<Num>(links[k][1]);
  }
  for (std::size_t b = 0; b < owned; ++b) rows.offsets[b + 1] += rows.offsets[b];
  for (std::size_t l = 0; l < owned; ++l)
    rows.weights[static_cast<std::size_t>(ids(l) - first)] += static_cast<Num>(offsets(l + 1) - offsets(l));
  return rows;
}

// Each owned agent's part (by local index) from `part`, the block's parts in block order. Throws
// CollectiveError on every rank when a part is left without agents: every rank of a run needs one,
// and `who` (the partitioner) does not promise it.
template <class Num>
std::vector<int> parts_of_block(MPI_Comm comm, std::vector<Num> const& part,
                                Kokkos::View<global_id const*, Kokkos::HostSpace> ids, global_id first,
                                std::string const& what, std::string const& who) {
  int const size = size_of(comm);
  std::vector<std::uint64_t> per_part(static_cast<std::size_t>(size), 0);
  bool in_range = true;
  for (auto q : part) {
    if (q < 0 || q >= size) {
      in_range = false;
      continue;
    }
    ++per_part[static_cast<std::size_t>(q)];
  }
  raise_if_any_failed(comm, in_range ? std::string() : what + ": " + who + " gave a part out of range");
  MPI_Allreduce(MPI_IN_PLACE, per_part.data(), size, MPI_UINT64_T, MPI_SUM, comm);
  auto const empty = std::find(per_part.begin(), per_part.end(), std::uint64_t{0});
  if (empty != per_part.end())
    throw CollectiveError(what + ": " + who + " left part " + std::to_string(empty - per_part.begin()) + " of " +
                          std::to_string(size) + " without agents (use fewer ranks, or another partition)");
  std::vector<int> parts(part.size());
  for (std::size_t l = 0; l < part.size(); ++l)
    parts[l] = static_cast<int>(part[static_cast<std::size_t>(ids(l) - first)]);
  return parts;
}

}  // namespace herd::mpi::Details
