// METIS k-way partitioning, on the host. Compiled without METIS it reports that METIS is missing.

#include <herd/config.hpp>
#include <herd/core/error.hpp>
#include <herd/mpi/partition.hpp>

#if HERD_ENABLE_METIS
#include <metis.h>
#endif

#include <algorithm>
#include <limits>
#include <vector>

namespace herd {

bool have_metis() { return HERD_ENABLE_METIS != 0; }

namespace Details {

#if HERD_ENABLE_METIS
namespace {
// Each row joined with its column (i lists j, or j lists i), without i itself or repeats: the
// undirected graph METIS requires, in its index type.
void symmetrise(Kokkos::View<edge_offset const*, Kokkos::HostSpace> offsets,
                Kokkos::View<agent_index const*, Kokkos::HostSpace> neighbours, std::vector<idx_t>& xadj,
                std::vector<idx_t>& adjncy) {
  auto const n = xadj.size() - 1;
  std::vector<std::size_t> start(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (auto e = offsets(i); e < offsets(i + 1); ++e) {
      ++start[i + 1];
      ++start[static_cast<std::size_t>(neighbours(e)) + 1];
    }
  for (std::size_t i = 0; i < n; ++i) start[i + 1] += start[i];
  std::vector<idx_t> both(start[n]);
  auto fill = start;
  for (std::size_t i = 0; i < n; ++i)
    for (auto e = offsets(i); e < offsets(i + 1); ++e) {
      auto const j = static_cast<std::size_t>(neighbours(e));
      both[fill[i]++] = static_cast<idx_t>(j);
      both[fill[j]++] = static_cast<idx_t>(i);
    }
  adjncy.clear();
  adjncy.reserve(both.size());
  for (std::size_t i = 0; i < n; ++i) {
    xadj[i] = static_cast<idx_t>(adjncy.size());
    auto const first = both.begin() + static_cast<std::ptrdiff_t>(start[i]);
    auto const last = both.begin() + static_cast<std::ptrdiff_t>(start[i + 1]);
    std::sort(first, last);
    for (auto k = first; k != last; ++k)
      if (*k != static_cast<idx_t>(i) && (k == first || *k != *(k - 1))) adjncy.push_back(*k);
  }
  xadj[n] = static_cast<idx_t>(adjncy.size());
}

// METIS k-way with a fixed seed on METIS' own arrays: every process computes the same parts.
void kway(std::vector<idx_t>& xadj, std::vector<idx_t>& adjncy, std::vector<idx_t>& weight, int parts,
          std::vector<idx_t>& part) {
  idx_t vertices = static_cast<idx_t>(weight.size()), constraints = 1, nparts = parts, cut = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;
  options[METIS_OPTION_NUMBERING] = 0;
  int const status = METIS_PartGraphKway(&vertices, &constraints, xadj.data(), adjncy.data(), weight.data(), nullptr,
                                         nullptr, &nparts, nullptr, nullptr, options, &cut, part.data());
  require(status == METIS_OK, "metis partitioning failed (METIS status " + std::to_string(status) +
                                  "; the graph must be undirected, without self-loops)");
}
}  // namespace
#endif

void metis_partition(Kokkos::View<edge_offset const*, Kokkos::HostSpace> offsets,
                     Kokkos::View<agent_index const*, Kokkos::HostSpace> neighbours, bool symmetric, int parts,
                     Kokkos::View<int*, Kokkos::HostSpace> owner) {
#if HERD_ENABLE_METIS
  auto const n = static_cast<std::size_t>(owner.extent(0));
  // A graph symmetrised here may hold up to twice its entries; the agents' weights add up to the
  // agents plus the entries.
  require((symmetric ? 1 : 2) * neighbours.extent(0) + n <= static_cast<std::size_t>(std::numeric_limits<idx_t>::max()),
          "metis partitioning: " + std::to_string(neighbours.extent(0)) + " edges exceed METIS' " +
              std::to_string(sizeof(idx_t) * 8) + "-bit indices (use a METIS built with IDXTYPEWIDTH=64)");
  // METIS takes its own index type; the copies cost two passes over the graph, once.
  std::vector<idx_t> xadj(n + 1), adjncy, part(n);
  if (symmetric) {
    // A layered graph's row lists a neighbour once per layer, in a run: METIS takes it once, and
    // no self-loop (which a population file's rows may hold).
    adjncy.reserve(neighbours.extent(0));
    for (std::size_t i = 0; i < n; ++i) {
      xadj[i] = static_cast<idx_t>(adjncy.size());
      for (auto e = offsets(i); e < offsets(i + 1); ++e)
        if ((e == offsets(i) || neighbours(e) != neighbours(e - 1)) && static_cast<std::size_t>(neighbours(e)) != i)
          adjncy.push_back(static_cast<idx_t>(neighbours(e)));
    }
    xadj[n] = static_cast<idx_t>(adjncy.size());
  } else {
    symmetrise(offsets, neighbours, xadj, adjncy);
  }
  // Each agent weighs one plus its row's entries, as PT-Scotch's do: parts then balance the
  // entries a step reads, not only the agents (a power-law graph's hubs would load one part).
  std::vector<idx_t> weight(n);
  for (std::size_t i = 0; i < n; ++i) weight[i] = static_cast<idx_t>(1 + offsets(i + 1) - offsets(i));
  kway(xadj, adjncy, weight, parts, part);
  for (std::size_t i = 0; i < n; ++i) owner(i) = static_cast<int>(part[i]);
#else
  (void)offsets;
  (void)neighbours;
  (void)symmetric;
  (void)parts;
  (void)owner;
  throw Error("metis partitioning: this build of Herd has no METIS");
#endif
}

void metis_partition_rows(std::vector<std::int64_t> const& offsets, std::vector<agent_index> const& neighbours,
                          std::vector<std::int64_t> const& weights, int parts, std::vector<int>& owner) {
#if HERD_ENABLE_METIS
  auto const n = weights.size();
  std::int64_t total_weight = 0;
  for (auto w : weights) total_weight += w;
  require(neighbours.size() <= static_cast<std::size_t>(std::numeric_limits<idx_t>::max()) &&
              total_weight <= static_cast<std::int64_t>(std::numeric_limits<idx_t>::max()),
          "metis partitioning: " + std::to_string(neighbours.size()) + " symmetrised entries exceed METIS' " +
              std::to_string(sizeof(idx_t) * 8) + "-bit indices (use a METIS built with IDXTYPEWIDTH=64)");
  std::vector<idx_t> xadj(offsets.begin(), offsets.end()), adjncy(neighbours.begin(), neighbours.end()),
      weight(weights.begin(), weights.end()), part(n);
  kway(xadj, adjncy, weight, parts, part);
  owner.assign(part.begin(), part.end());
#else
  (void)offsets;
  (void)neighbours;
  (void)weights;
  (void)parts;
  (void)owner;
  throw Error("metis partitioning: this build of Herd has no METIS");
#endif
}

}  // namespace Details

}  // namespace herd
