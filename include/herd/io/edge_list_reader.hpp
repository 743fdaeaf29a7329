#pragma once

#include <herd/graph/csr_graph.hpp>

#include <string>
#include <vector>

namespace herd {

/// An edge list read into host memory.
struct HostEdgeList {
  agent_index num_agents = 0;
  std::vector<global_id> sources;
  std::vector<global_id> targets;
  std::vector<float> weights;  ///< empty unless the file has a third column
};

/// Reads a plain-text edge list: two non-negative agent ids per line and an optional weight,
/// separated by spaces, tabs or commas; lines starting with '#' or '%' are comments (SNAP style).
/// A first line "nv,ne,u,graph" (or ",d,") is the header of the .lg format: nv agents, ids from 1.
/// Otherwise ids start at 0 and the agent count is the largest id + 1.
/// Throws herd::Error naming the file, the line and the problem.
HostEdgeList read_edge_list(std::string const& path);

/// Copies a host edge list to the memory space of `exec`.
template <class ExecutionSpace>
EdgeList<typename ExecutionSpace::memory_space> to_device(ExecutionSpace const& exec, HostEdgeList const& host) {
  using memory_space = typename ExecutionSpace::memory_space;
  EdgeList<memory_space> edges;
  edges.num_agents = host.num_agents;
  auto copy = [&](auto const& vector, auto& view, char const* label) {
    using view_type = std::decay_t<decltype(view)>;
    Kokkos::View<typename view_type::value_type const*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
        unmanaged(vector.data(), vector.size());
    view = view_type(Kokkos::ViewAllocateWithoutInitializing(label), vector.size());
    Kokkos::deep_copy(exec, view, unmanaged);
  };
  copy(host.sources, edges.sources, "herd::edge_list::sources");
  copy(host.targets, edges.targets, "herd::edge_list::targets");
  if (!host.weights.empty()) copy(host.weights, edges.weights, "herd::edge_list::weights");
  exec.fence();
  return edges;
}

}  // namespace herd
