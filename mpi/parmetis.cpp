// ParMETIS on a graph distributed in contiguous blocks, ParMETIS's own distribution (vtxdist).
// Linked against ParMETIS itself, or against Scotch's library of the same interface (Debian's
// libscotchparmetis-dev). Compiled without either it reports that ParMETIS is missing.

#include <herd/mpi/repartition.hpp>

#include "block_graph.hpp"

#include <herd/config.hpp>
#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/profiling_region.hpp>
#include <herd/mpi/collective.hpp>

#if HERD_ENABLE_PARMETIS
#if HERD_PARMETIS_IS_SCOTCH
#include <ptscotch.h>  // its random state; parmetis.h then takes Scotch's integers
#endif
#include <parmetis.h>
#endif

#include <Kokkos_Core.hpp>

#include <cstdlib>
#include <string>
#include <vector>

namespace herd::mpi {

#if HERD_ENABLE_PARMETIS
namespace {
// ParMETIS's header declares its integers through metis.h; Scotch's stand-in, its SCOTCH_Num.
#if HERD_PARMETIS_IS_SCOTCH
using Index = SCOTCH_Num;
using Real = float;
char const* const library = "Scotch's ParMETIS interface";
char const* const wider = "use a Scotch built with 64-bit integers";
#else
using Index = idx_t;
using Real = real_t;
char const* const library = "ParMETIS";
char const* const wider = "use a ParMETIS built with IDXTYPEWIDTH 64";
#endif
}  // namespace
#endif

template <class ExecutionSpace, class WeightStorage>
std::vector<int> parmetis_parts(ExecutionSpace const& exec, MPI_Comm comm,
                                LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& share,
                                bool symmetric) {
  (void)exec;
#if HERD_ENABLE_PARMETIS
  herd::Details::ProfilingRegion const region("herd::mpi::parmetis_parts");
  int const rank = rank_of(comm), size = size_of(comm);
  std::string const what = "parmetis partitioning";
  Details::require_block(comm, share, what);
  auto const owned = static_cast<std::size_t>(share.owned);
  if (size == 1) return std::vector<int>(owned, 0);
  auto const ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), share.ids);
  auto rows = Details::symmetrised_block<Index>(comm, share, ids, symmetric, what, library, wider);
  Details::Blocks const blocks{share.global_agents, size};
  std::vector<Index> vertex_begin(static_cast<std::size_t>(size) + 1);
  for (int r = 0; r <= size; ++r) vertex_begin[static_cast<std::size_t>(r)] = static_cast<Index>(blocks.begin(r));

  // Vertex weights alone (wgtflag 2), one constraint, equal parts within 5 %; options[0] = 1 sets
  // a fixed seed (options[2]), so the same ranks always get the same parts.
  Index weight_flag = 2, numbering = 0, constraints = 1, parts = static_cast<Index>(size), cut = 0;
  std::vector<Real> part_weights(static_cast<std::size_t>(size), Real(1) / static_cast<Real>(size));
  Real imbalance = Real(1.05);
  Index options[3] = {1, 0, 15};
  std::vector<Index> part(owned, 0);
  // A block without contacts still hands ParMETIS an array, which it requires.
  Index no_neighbours = 0;
  Index* neighbours = rows.neighbours.empty() ? &no_neighbours : rows.neighbours.data();
  MPI_Comm partition_comm = comm;
#if HERD_PARMETIS_IS_SCOTCH
  // Scotch's interface ignores the seed and draws from Scotch's global random state, and its
  // threads share the work in no fixed order: with the state seeded and reset, and one thread
  // (unless the environment asks for more), the same ranks get the same parts on every run.
  setenv("SCOTCH_PTHREAD_NUMBER", "1", 0);
  SCOTCH_randomSeed(1);
  SCOTCH_randomReset();
#endif
  int const status = ParMETIS_V3_PartKway(vertex_begin.data(), rows.offsets.data(), neighbours, rows.weights.data(),
                                          nullptr, &weight_flag, &numbering, &constraints, &parts, part_weights.data(),
                                          &imbalance, options, &cut, part.data(), &partition_comm);
  raise_if_any_failed(comm, status == METIS_OK
                                ? std::string()
                                : what + ": ParMETIS_V3_PartKway failed (" + std::to_string(status) + ")");
  return Details::parts_of_block(comm, part, ids, blocks.begin(rank), what, "ParMETIS");
#else
  (void)comm;
  (void)share;
  (void)symmetric;
  // Every rank of the build lacks it alike: all throw together.
  throw CollectiveError(
      "parmetis partitioning: this build of Herd has no ParMETIS (configure with Herd_ENABLE_PARMETIS=ON)");
#endif
}

#define HERD_INSTANTIATE_PARMETIS_W(EXEC, W)                                                                         \
  template std::vector<int> parmetis_parts<EXEC, W>(EXEC const&, MPI_Comm, LocalGraph<EXEC::memory_space, W> const&, \
                                                    bool);
#define HERD_INSTANTIATE_PARMETIS(EXEC)    \
  HERD_INSTANTIATE_PARMETIS_W(EXEC, float) \
  HERD_INSTANTIATE_PARMETIS_W(EXEC, half)

HERD_FOR_EACH_EXECUTION_SPACE(HERD_INSTANTIATE_PARMETIS)

}  // namespace herd::mpi
