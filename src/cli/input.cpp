#include "input.hpp"

#include <herd/herd.hpp>
#if HERD_ENABLE_HDF5
#include <herd/io/hdf5/population.hpp>
#endif

#include <cmath>

namespace herd::cli {

bool is_generator(std::string const& graph) {
  return graph == "population" || graph == "erdos-renyi" || graph == "power-law" || graph == "watts-strogatz";
}

template <class WeightStorage>
Input<WeightStorage> make_graph(Options const& o, Exec const& exec, Comm comm) {
  auto const agents = static_cast<agent_index>(o.agents);
  BuildOptions build;
  if (o.graph == "population") {
    LayeredPopulation spec;
    spec.agents = agents;
    return {build_csr<WeightStorage>(exec, generate_population(exec, spec, o.seed).edges, build), "population"};
  }
  if (o.graph == "erdos-renyi")
    return {build_csr<WeightStorage>(exec, generate_edges(exec, ErdosRenyi{agents, o.mean_degree}, o.seed), build),
            o.graph};
  if (o.graph == "power-law")
    return {build_csr<WeightStorage>(
                exec, generate_edges(exec, PowerLaw{agents, o.exponent, o.mean_degree, 0.0}, o.seed), build),
            o.graph};
  if (o.graph == "watts-strogatz") {
    auto const k = static_cast<agent_index>(std::lround(o.mean_degree / 2));
    return {build_csr<WeightStorage>(exec, generate_edges(exec, WattsStrogatz{agents, k, o.rewire}, o.seed), build),
            o.graph};
  }
  // Anything else names a file: a population file in HDF5, or an edge list.
#if HERD_ENABLE_HDF5
  if (io::is_hdf5_file(o.graph)) {
    require(!o.directed, "--directed: " + o.graph + " is a population file, whose graph is stored as it is used");
    return {to_device<WeightStorage>(exec, io::read_population_graph(o.graph, comm)), o.graph};
  }
#else
  (void)comm;
#endif
  build.symmetrise = !o.directed;
  return {build_csr<WeightStorage>(exec, to_device(exec, read_edge_list(o.graph)), build), o.graph};
}

template Input<float> make_graph<float>(Options const&, Exec const&, Comm);
template Input<half> make_graph<half>(Options const&, Exec const&, Comm);

}  // namespace herd::cli
