// PT-Scotch on a graph distributed in contiguous blocks, which is the distribution PT-Scotch
// itself takes (rank r holds vertices [begin(r), begin(r + 1)) of a global numbering). Compiled
// without PT-Scotch it reports that PT-Scotch is missing.

#include <herd/mpi/repartition.hpp>

#include "blocks.hpp"
#include "exchange.hpp"

#include <herd/config.hpp>
#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/profiling_region.hpp>
#include <herd/mpi/collective.hpp>

#if HERD_ENABLE_PTSCOTCH
#include <ptscotch.h>
#endif

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <vector>

namespace herd::mpi {

#if HERD_ENABLE_PTSCOTCH
namespace {

// This rank's block of the symmetrised graph in PT-Scotch's arrays: rows in block order, each
// neighbour once, no self-loops; each vertex weighted by one plus its row's entries in `share`.
struct ScotchRows {
  std::vector<SCOTCH_Num> offsets, neighbours, weights;
};

template <class MemorySpace, class WeightStorage>
ScotchRows symmetrised_block(MPI_Comm comm, LocalGraph<MemorySpace, WeightStorage> const& share,
                             Kokkos::View<global_id const*, Kokkos::HostSpace> ids, bool symmetric) {
  int const rank = rank_of(comm), size = size_of(comm);
  Details::Blocks const blocks{share.global_agents, size};
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
    auto const begin = Details::group_begins(counts);
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
    links = Details::exchange(comm, pairs, begin, from, "ptscotch partitioning");
    pairs = {};
  }
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());

  // PT-Scotch sums entries and agent weights over all ranks in its own integers.
  std::uint64_t totals[2] = {links.size(), owned + static_cast<std::uint64_t>(share.graph.num_edges())};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_UINT64_T, MPI_SUM, comm);
  ScotchRows rows;
  collectively(comm, [&] {
    auto const most = static_cast<std::uint64_t>(std::numeric_limits<SCOTCH_Num>::max());
    require(static_cast<std::uint64_t>(share.global_agents) <= most && totals[0] <= most && totals[1] <= most,
            "ptscotch partitioning: " + std::to_string(share.global_agents) + " agents with " +
                std::to_string(totals[0]) + " symmetrised entries exceed PT-Scotch's " +
                std::to_string(sizeof(SCOTCH_Num) * 8) + "-bit SCOTCH_Num (use a Scotch built with 64-bit integers)");
  });
  rows.offsets.assign(owned + 1, 0);
  rows.weights.assign(owned, 1);
  rows.neighbours.resize(links.size());
  for (std::size_t k = 0; k < links.size(); ++k) {
    ++rows.offsets[static_cast<std::size_t>(links[k][0] - first) + 1];
    rows.neighbours[k] = static_cast<SCOTCH_Num>(links[k][1]);
  }
  for (std::size_t b = 0; b < owned; ++b) rows.offsets[b + 1] += rows.offsets[b];
  for (std::size_t l = 0; l < owned; ++l)
    rows.weights[static_cast<std::size_t>(ids(l) - first)] += static_cast<SCOTCH_Num>(offsets(l + 1) - offsets(l));
  return rows;
}

}  // namespace
#endif

template <class ExecutionSpace, class WeightStorage>
std::vector<int> ptscotch_parts(ExecutionSpace const& exec, MPI_Comm comm,
                                LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& share,
                                bool symmetric) {
  (void)exec;
#if HERD_ENABLE_PTSCOTCH
  herd::Details::ProfilingRegion const region("herd::mpi::ptscotch_parts");
  int const rank = rank_of(comm), size = size_of(comm);
  Details::Blocks const blocks{share.global_agents, size};
  global_id const first = blocks.begin(rank);
  auto const owned = static_cast<std::size_t>(share.owned);
  collectively(comm, [&] {
    require(share.parts == size && share.rank == rank && static_cast<global_id>(owned) == blocks.size(rank),
            "ptscotch partitioning: rank " + std::to_string(rank) + "'s share is not its contiguous block");
    require(share.global_agents >= size, "ptscotch partitioning: " + std::to_string(share.global_agents) +
                                             " agents cannot fill " + std::to_string(size) + " parts");
  });
  if (size == 1) return std::vector<int>(owned, 0);
  auto const ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), share.ids);
  auto rows = symmetrised_block(comm, share, ids, symmetric);

  // A context of its own, deterministic with a fixed seed: the same parts on every run of the same
  // ranks, whatever threads Scotch uses and whatever it ran before.
  std::vector<SCOTCH_Num> part(owned, 0);
  SCOTCH_Context context;
  SCOTCH_Dgraph graph, bound;
  SCOTCH_Strat strategy;
  SCOTCH_contextInit(&context);
  SCOTCH_stratInit(&strategy);
  // One thread per rank: the ranks already share the node's cores.
  int status = SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMDETERMINISTIC, 1) |
               SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1) |
               SCOTCH_contextRandomClone(&context) | SCOTCH_contextThreadSpawn(&context, 1, nullptr);
  SCOTCH_contextRandomSeed(&context, 1);
  status |= SCOTCH_dgraphInit(&graph, comm) | SCOTCH_dgraphInit(&bound, comm);
  // Each call below is collective inside PT-Scotch: every rank learns whether any failed first.
  auto const everywhere = [comm](int mine) {
    int ok = mine == 0 ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    return ok == 1;
  };
  std::string failure = "ptscotch partitioning: PT-Scotch could not start";
  if (everywhere(status)) {
    auto const vertices = static_cast<SCOTCH_Num>(owned), entries = static_cast<SCOTCH_Num>(rows.neighbours.size());
    status =
        SCOTCH_dgraphBuild(&graph, 0, vertices, vertices, rows.offsets.data(), rows.offsets.data() + 1,
                           rows.weights.data(), nullptr, entries, entries, rows.neighbours.data(), nullptr, nullptr) |
        SCOTCH_contextBindDgraph(&context, &graph, &bound);
    failure = "ptscotch partitioning: PT-Scotch could not take the graph";
    if (everywhere(status)) {
      status = SCOTCH_dgraphPart(&bound, static_cast<SCOTCH_Num>(size), &strategy, part.data());
      failure = "ptscotch partitioning: SCOTCH_dgraphPart failed";
    }
  }
  SCOTCH_stratExit(&strategy);
  SCOTCH_dgraphExit(&bound);
  SCOTCH_dgraphExit(&graph);
  SCOTCH_contextExit(&context);
  raise_if_any_failed(comm, status == 0 ? std::string() : failure);

  // Every rank of a run needs an agent; PT-Scotch does not promise it.
  std::vector<std::uint64_t> per_part(static_cast<std::size_t>(size), 0);
  for (auto q : part) ++per_part[static_cast<std::size_t>(q)];
  MPI_Allreduce(MPI_IN_PLACE, per_part.data(), size, MPI_UINT64_T, MPI_SUM, comm);
  auto const empty = std::find(per_part.begin(), per_part.end(), std::uint64_t{0});
  if (empty != per_part.end())
    throw CollectiveError("ptscotch partitioning: PT-Scotch left part " + std::to_string(empty - per_part.begin()) +
                          " of " + std::to_string(size) + " without agents (use fewer ranks, or another partition)");

  std::vector<int> parts(owned);
  for (std::size_t l = 0; l < owned; ++l) parts[l] = static_cast<int>(part[static_cast<std::size_t>(ids(l) - first)]);
  return parts;
#else
  (void)comm;
  (void)share;
  (void)symmetric;
  // Every rank of the build lacks it alike: all throw together.
  throw CollectiveError(
      "ptscotch partitioning: this build of Herd has no PT-Scotch (configure with Herd_ENABLE_PTSCOTCH=ON)");
#endif
}

#define HERD_INSTANTIATE_PTSCOTCH_W(EXEC, W)                                                                         \
  template std::vector<int> ptscotch_parts<EXEC, W>(EXEC const&, MPI_Comm, LocalGraph<EXEC::memory_space, W> const&, \
                                                    bool);
#define HERD_INSTANTIATE_PTSCOTCH(EXEC)    \
  HERD_INSTANTIATE_PTSCOTCH_W(EXEC, float) \
  HERD_INSTANTIATE_PTSCOTCH_W(EXEC, half)

HERD_FOR_EACH_EXECUTION_SPACE(HERD_INSTANTIATE_PTSCOTCH)

}  // namespace herd::mpi
