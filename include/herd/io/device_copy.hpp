#pragma once

// Host graphs from files to a device and back.

#include <herd/graph/csr_graph.hpp>
#include <herd/io/host_csr.hpp>
#include <herd/io/text/edge_list_parser.hpp>

#include <Kokkos_Core.hpp>

#include <vector>

namespace herd {

namespace Details {

// Copies a host vector into a new View of the same element type in `memory_space`.
template <class MemorySpace, class ExecutionSpace, class T>
Kokkos::View<T*, MemorySpace> copy_to(ExecutionSpace const& exec, std::vector<T> const& vector, char const* label) {
  Kokkos::View<T const*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(vector.data(), vector.size());
  Kokkos::View<T*, MemorySpace> view(Kokkos::ViewAllocateWithoutInitializing(label), vector.size());
  Kokkos::deep_copy(exec, view, host);
  return view;
}

template <class T, class View>
std::vector<T> copy_from(View const& view) {
  std::vector<T> vector(view.extent(0));
  Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(vector.data(), vector.size());
  Kokkos::deep_copy(host, view);
  return vector;
}

}  // namespace Details

/// Copies a host edge list to the memory space of `exec`.
template <class ExecutionSpace>
EdgeList<typename ExecutionSpace::memory_space> to_device(ExecutionSpace const& exec, HostEdgeList const& host) {
  using memory_space = typename ExecutionSpace::memory_space;
  EdgeList<memory_space> edges;
  edges.num_agents = host.num_agents;
  edges.sources = Details::copy_to<memory_space>(exec, host.sources, "herd::edge_list::sources");
  edges.targets = Details::copy_to<memory_space>(exec, host.targets, "herd::edge_list::targets");
  if (!host.weights.empty())
    edges.weights = Details::copy_to<memory_space>(exec, host.weights, "herd::edge_list::weights");
  if (!host.layers.empty()) edges.layers = Details::copy_to<memory_space>(exec, host.layers, "herd::edge_list::layers");
  exec.fence();
  return edges;
}

/// Copies a host CSR graph (checked with check_csr) to the memory space of `exec`, storing its
/// weights as WeightStorage.
template <class WeightStorage, class ExecutionSpace>
CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> to_device(ExecutionSpace const& exec,
                                                                         HostCsr const& host) {
  using memory_space = typename ExecutionSpace::memory_space;
  CsrGraph<memory_space, WeightStorage> graph;
  graph.row_offsets = Details::copy_to<memory_space>(exec, host.row_offsets, "herd::graph::row_offsets");
  graph.neighbours = Details::copy_to<memory_space>(exec, host.neighbours, "herd::graph::neighbours");
  if (!host.weights.empty()) {
    auto const weights = Details::copy_to<memory_space>(exec, host.weights, "herd::graph::file_weights");
    graph.weights = Kokkos::View<WeightStorage*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::graph::weights"), host.weights.size());
    auto stored = graph.weights;
    Kokkos::parallel_for(
        "herd::graph::store_weights", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, host.weights.size()),
        KOKKOS_LAMBDA(std::size_t e) { stored(e) = storage_traits<WeightStorage>::store(weights(e)); });
  }
  if (!host.layers.empty()) graph.layers = Details::copy_to<memory_space>(exec, host.layers, "herd::graph::layers");
  graph.symmetric = host.symmetric;
  exec.fence();
  return graph;
}

/// Copies a graph to the host, weights as float (stored weights: without the layers' factors).
template <class ExecutionSpace, class WeightStorage>
HostCsr to_host(ExecutionSpace const& exec,
                CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph) {
  exec.fence();
  HostCsr host;
  host.row_offsets = Details::copy_from<edge_offset>(graph.row_offsets);
  host.neighbours = Details::copy_from<agent_index>(graph.neighbours);
  if (graph.weighted()) {
    Kokkos::View<float*, typename ExecutionSpace::memory_space> weights(
        Kokkos::ViewAllocateWithoutInitializing("herd::graph::float_weights"), graph.num_edges());
    auto stored = graph.weights;
    Kokkos::parallel_for(
        "herd::graph::load_weights", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, graph.num_edges()),
        KOKKOS_LAMBDA(std::size_t e) { weights(e) = storage_traits<WeightStorage>::load(stored(e)); });
    exec.fence();
    host.weights = Details::copy_from<float>(weights);
  }
  if (graph.layered()) host.layers = Details::copy_from<layer_index>(graph.layers);
  return host;
}

}  // namespace herd
