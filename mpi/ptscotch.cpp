// PT-Scotch on a graph distributed in contiguous blocks, which is the distribution PT-Scotch
// itself takes (rank r holds vertices [begin(r), begin(r + 1)) of a global numbering). Compiled
// without PT-Scotch it reports that PT-Scotch is missing.

#include <herd/mpi/repartition.hpp>

#include "block_graph.hpp"

#include <herd/config.hpp>
#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/profiling_region.hpp>
#include <herd/mpi/collective.hpp>

#if HERD_ENABLE_PTSCOTCH
#include <ptscotch.h>
#endif

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

namespace herd::mpi {

template <class ExecutionSpace, class WeightStorage>
std::vector<int> ptscotch_parts(ExecutionSpace const& exec, MPI_Comm comm,
                                LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& share,
                                bool symmetric) {
  (void)exec;
#if HERD_ENABLE_PTSCOTCH
  herd::Details::ProfilingRegion const region("herd::mpi::ptscotch_parts");
  int const rank = rank_of(comm), size = size_of(comm);
  std::string const what = "ptscotch partitioning";
  Details::require_block(comm, share, what);
  auto const owned = static_cast<std::size_t>(share.owned);
  if (size == 1) return std::vector<int>(owned, 0);
  auto const ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), share.ids);
  auto rows = Details::symmetrised_block<SCOTCH_Num>(comm, share, ids, symmetric, what, "PT-Scotch",
                                                     "use a Scotch built with 64-bit integers");

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

  return Details::parts_of_block(comm, part, ids, Details::Blocks{share.global_agents, size}.begin(rank), what,
                                 "PT-Scotch");
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
