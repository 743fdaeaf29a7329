// METIS k-way partitioning, on the host. Compiled without METIS it reports that METIS is missing.

#include <herd/config.hpp>
#include <herd/core/error.hpp>
#include <herd/mpi/partition.hpp>

#if HERD_ENABLE_METIS
#include <metis.h>
#endif

#include <limits>
#include <vector>

namespace herd {

bool have_metis() { return HERD_ENABLE_METIS != 0; }

namespace Details {

void metis_partition(Kokkos::View<edge_offset const*, Kokkos::HostSpace> offsets,
                     Kokkos::View<agent_index const*, Kokkos::HostSpace> neighbours, int parts,
                     Kokkos::View<int*, Kokkos::HostSpace> owner) {
#if HERD_ENABLE_METIS
  auto const n = static_cast<std::size_t>(owner.extent(0));
  require(neighbours.extent(0) <= static_cast<std::size_t>(std::numeric_limits<idx_t>::max()),
          "metis partitioning: " + std::to_string(neighbours.extent(0)) + " edges exceed METIS' " +
              std::to_string(sizeof(idx_t) * 8) + "-bit indices (use a METIS built with IDXTYPEWIDTH=64)");
  // METIS takes its own index type; the copies cost two passes over the graph, once.
  std::vector<idx_t> xadj(n + 1), adjncy(neighbours.extent(0)), part(n);
  for (std::size_t i = 0; i <= n; ++i) xadj[i] = static_cast<idx_t>(offsets(i));
  for (std::size_t e = 0; e < adjncy.size(); ++e) adjncy[e] = static_cast<idx_t>(neighbours(e));
  idx_t vertices = static_cast<idx_t>(n), constraints = 1, nparts = parts, cut = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;  // a fixed seed: every process computes the same partition
  options[METIS_OPTION_NUMBERING] = 0;
  int const status = METIS_PartGraphKway(&vertices, &constraints, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr,
                                         &nparts, nullptr, nullptr, options, &cut, part.data());
  require(status == METIS_OK, "metis partitioning failed (METIS status " + std::to_string(status) +
                                  "; the graph must be undirected, without self-loops)");
  for (std::size_t i = 0; i < n; ++i) owner(i) = static_cast<int>(part[i]);
#else
  (void)offsets;
  (void)neighbours;
  (void)parts;
  (void)owner;
  throw Error("metis partitioning: this build of Herd has no METIS");
#endif
}

}  // namespace Details

}  // namespace herd
