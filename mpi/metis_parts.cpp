// METIS on a graph the ranks hold in contiguous blocks: the blocks' rows, symmetrised as the
// parallel partitioners take them, are gathered on rank 0 alone, which partitions them as one
// process partitions the whole graph; each rank gets its block's parts back.

#include <herd/mpi/repartition.hpp>

#include "block_graph.hpp"

#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/profiling_region.hpp>
#include <herd/mpi/collective.hpp>
#include <herd/mpi/partition.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace herd::mpi {

namespace {

// Every rank's `mine`, one after another in rank order, on rank 0 (empty elsewhere).
template <class T>
std::vector<T> gather_on_first(MPI_Comm comm, std::vector<T> const& mine, MPI_Datatype type) {
  int const rank = rank_of(comm), size = size_of(comm);
  int const count = static_cast<int>(mine.size());
  std::vector<int> counts(rank == 0 ? static_cast<std::size_t>(size) : 0), starts(counts.size(), 0);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::size_t total = 0;
  for (std::size_t q = 0; q < counts.size(); ++q) {
    starts[q] = static_cast<int>(total);
    total += static_cast<std::size_t>(counts[q]);
  }
  // Rank 0 alone holds the whole: an allocation that fails there is every rank's error.
  std::vector<T> all;
  collectively(comm, [&] { all.resize(total); });
  MPI_Gatherv(mine.data(), count, type, all.data(), counts.data(), starts.data(), type, 0, comm);
  return all;
}

}  // namespace

template <class ExecutionSpace, class WeightStorage>
std::vector<int> metis_parts(ExecutionSpace const& exec, MPI_Comm comm,
                             LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& share,
                             bool symmetric) {
  (void)exec;
  herd::Details::ProfilingRegion const region("herd::mpi::metis_parts");
  int const rank = rank_of(comm), size = size_of(comm);
  std::string const what = "metis partitioning";
  collectively(comm, [&] {
    require(have_metis(), what + ": this build of Herd has no METIS (configure with Herd_ENABLE_METIS=ON)");
  });
  Details::require_block(comm, share, what);
  auto const owned = static_cast<std::size_t>(share.owned);
  if (size == 1) return std::vector<int>(owned, 0);
  auto const ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), share.ids);
  // 32-bit entries: what one gather on rank 0 counts, and what most METIS builds index.
  auto rows = Details::symmetrised_block<agent_index>(comm, share, ids, symmetric, what, "METIS on one rank",
                                                      "use --partition ptscotch or parmetis");
  std::vector<std::int64_t> degrees(owned), weights(rows.weights.begin(), rows.weights.end());
  for (std::size_t b = 0; b < owned; ++b) degrees[b] = rows.offsets[b + 1] - rows.offsets[b];
  rows.offsets = {};
  rows.weights = {};
  auto const all_degrees = gather_on_first(comm, degrees, MPI_INT64_T);
  auto const all_weights = gather_on_first(comm, weights, MPI_INT64_T);
  auto const all_neighbours = gather_on_first(comm, rows.neighbours, MPI_INT32_T);
  rows.neighbours = {};
  std::vector<int> owner;
  collectively(comm, [&] {
    if (rank != 0) return;
    std::vector<std::int64_t> offsets(all_degrees.size() + 1, 0);
    for (std::size_t i = 0; i < all_degrees.size(); ++i) offsets[i + 1] = offsets[i] + all_degrees[i];
    herd::Details::metis_partition_rows(offsets, all_neighbours, all_weights, size, owner);
  });
  // Each rank's block of parts back, in block order.
  Details::Blocks const blocks{share.global_agents, size};
  std::vector<int> counts(static_cast<std::size_t>(size)), starts(counts.size());
  for (int q = 0; q < size; ++q) {
    counts[static_cast<std::size_t>(q)] = static_cast<int>(blocks.size(q));
    starts[static_cast<std::size_t>(q)] = static_cast<int>(blocks.begin(q));
  }
  std::vector<int> part(owned);
  MPI_Scatterv(owner.data(), counts.data(), starts.data(), MPI_INT, part.data(), static_cast<int>(owned), MPI_INT, 0,
               comm);
  return Details::parts_of_block(comm, part, ids, blocks.begin(rank), what, "METIS");
}

#define HERD_INSTANTIATE_METIS_PARTS_W(EXEC, W) \
  template std::vector<int> metis_parts<EXEC, W>(EXEC const&, MPI_Comm, LocalGraph<EXEC::memory_space, W> const&, bool);
#define HERD_INSTANTIATE_METIS_PARTS(EXEC)    \
  HERD_INSTANTIATE_METIS_PARTS_W(EXEC, float) \
  HERD_INSTANTIATE_METIS_PARTS_W(EXEC, half)

HERD_FOR_EACH_EXECUTION_SPACE(HERD_INSTANTIATE_METIS_PARTS)

}  // namespace herd::mpi
