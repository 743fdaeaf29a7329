#include "input.hpp"

#include <herd/herd.hpp>

#include <cmath>

namespace herd::cli {

template <class WeightStorage>
Input<WeightStorage> make_graph(Options const& o, Exec const& exec) {
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
  // Anything else names an edge-list file.
  build.symmetrise = !o.directed;
  return {build_csr<WeightStorage>(exec, to_device(exec, read_edge_list(o.graph)), build), o.graph};
}

template Input<float> make_graph<float>(Options const&, Exec const&);
template Input<half> make_graph<half>(Options const&, Exec const&);

}  // namespace herd::cli
