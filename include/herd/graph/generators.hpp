#pragma once

// Random graph generators. Each is deterministic for a seed: edge e is a pure function of
// (seed, e) through the counter-based generator, so the graph is the same for any thread count
// and backend. All of them run on the device and return an edge list for herd::build_csr.

#include <herd/graph/csr_graph.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace herd {

/// G(n, m) with m = n * mean_degree / 2 uniformly random edges; self-loops and repeats are dropped
/// by build_csr, which lowers the mean degree by O(mean_degree^2 / n).
struct ErdosRenyi {
  agent_index agents = 0;
  double mean_degree = 0.0;
};

/// Chung-Lu graph with expected degrees following a power law P(k) ~ k^-exponent: agent i expects
/// a degree proportional to (i + 1)^(-1 / (exponent - 1)), shifted where the largest would exceed
/// `max_degree` (0: mean_degree * sqrt(agents), at most agents / 4) so that it meets that cap.
struct PowerLaw {
  agent_index agents = 0;
  double exponent = 2.5;
  double mean_degree = 0.0;
  double max_degree = 0.0;
};

/// Ring lattice where every agent links to its `neighbours_each_side` nearest agents on each side,
/// each link rewired to a uniformly random agent with probability `rewire`.
struct WattsStrogatz {
  agent_index agents = 0;
  agent_index neighbours_each_side = 0;
  double rewire = 0.0;
};

/// A synthetic population in layers: households (cliques), schools split into classes, workplaces,
/// and random community contacts. Each layer's edges carry the layer's weight and its layer
/// (PopulationLayer); a pair that two layers join keeps an edge in each.
struct LayeredPopulation {
  agent_index agents = 0;
  agent_index school_size = 500;
  agent_index class_size = 25;
  agent_index workplace_size = 20;
  int class_contacts = 6;         ///< random classmates each child links to
  int workplace_contacts = 5;     ///< random colleagues each worker links to
  double community_degree = 2.0;  ///< mean degree of the random community layer
  double employment = 0.7;        ///< fraction of working-age adults in a workplace
  float household_weight = 1.0f;
  float school_weight = 0.6f;
  float workplace_weight = 0.4f;
  float community_weight = 0.1f;
};

/// The layers of the layered population, as its edges number them.
enum class PopulationLayer : std::uint8_t { household = 0, school = 1, workplace = 2, community = 3 };

/// The names of PopulationLayer's layers, by number: how scenarios and population files name them.
inline std::vector<std::string> population_layer_names() { return {"household", "school", "workplace", "community"}; }

/// Age groups of the layered population.
enum class AgeGroup : std::uint8_t { child = 0, adult = 1, elder = 2 };

template <class MemorySpace>
struct Population {
  EdgeList<MemorySpace> edges;                         ///< weighted and layered, one direction per contact
  Kokkos::View<std::uint8_t*, MemorySpace> age_group;  ///< herd::AgeGroup of each agent
  Kokkos::View<agent_index*, MemorySpace> household;   ///< household index of each agent
};

/// The edges of a generator by id range: edge e is a pure function of (seed, e), so any slice of
/// the edges can be made alone, and a rank of a distributed run makes only its own
/// (herd::mpi::build_local_graph). Throws herd::Error on a bad parameter.
template <class MemorySpace>
struct EdgeSource {
  agent_index agents = 0;
  std::size_t edges = 0;  ///< the edges' ids are 0 ... edges - 1
  bool weighted = false;  ///< whether the slices carry weights
  bool layered = false;   ///< whether the slices carry layers
  /// The edges with ids first ... first + count - 1, in id order, as an edge list of `agents`.
  std::function<EdgeList<MemorySpace>(std::size_t first, std::size_t count)> slice;
};

template <class ExecutionSpace>
EdgeSource<typename ExecutionSpace::memory_space> edge_source(ExecutionSpace const& exec, ErdosRenyi const& spec,
                                                              std::uint64_t seed);
/// Holds the cumulative expected degrees (8 bytes per agent) while the source lives.
template <class ExecutionSpace>
EdgeSource<typename ExecutionSpace::memory_space> edge_source(ExecutionSpace const& exec, PowerLaw const& spec,
                                                              std::uint64_t seed);
template <class ExecutionSpace>
EdgeSource<typename ExecutionSpace::memory_space> edge_source(ExecutionSpace const& exec, WattsStrogatz const& spec,
                                                              std::uint64_t seed);

/// All the edges of ErdosRenyi, PowerLaw or WattsStrogatz: edge_source(exec, spec, seed).slice(0, edges).
template <class ExecutionSpace, class Spec>
EdgeList<typename ExecutionSpace::memory_space> generate_edges(ExecutionSpace const& exec, Spec const& spec,
                                                               std::uint64_t seed);
template <class ExecutionSpace>
Population<typename ExecutionSpace::memory_space> generate_population(ExecutionSpace const& exec,
                                                                      LayeredPopulation const& spec,
                                                                      std::uint64_t seed);

}  // namespace herd
