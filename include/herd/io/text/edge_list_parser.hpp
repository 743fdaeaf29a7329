#pragma once

// Plain-text edge lists (SNAP, .lg, CSV) parsed on the host. Free of Kokkos, so the parser can be
// fuzzed on its own; herd/io/edge_list_reader.hpp adds the copy to a device.

#include <herd/core/types.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace herd {

/// An edge list read into host memory.
struct HostEdgeList {
  agent_index num_agents = 0;
  std::vector<global_id> sources;
  std::vector<global_id> targets;
  std::vector<float> weights;  ///< empty unless the file has a third column
  bool directed = false;       ///< the file says its edges are one-way (an .lg header "nv,ne,d,name")
};

/// How a parser treats agent ids.
enum class EdgeIds {
  dense,  ///< ids are agent indices: the agent count is the largest id + 1 (or the .lg header's)
  any     ///< any non-negative 64-bit ids (SNAP user ids); compact_ids() then numbers them densely
};

/// Parses an edge list: two non-negative agent ids and an optional weight per line, separated by
/// spaces, tabs or commas; lines starting with '#' or '%' are comments (SNAP style). A first line
/// "nv,ne,u,graph" (or ",d,") is the header of the .lg format: nv agents, ids from 1. Otherwise ids
/// start at 0. Throws herd::Error naming `name`, the line and the problem.
HostEdgeList parse_edge_list(std::string_view text, std::string const& name, EdgeIds ids = EdgeIds::dense);

/// Reads and parses the edge-list file `path` (see parse_edge_list).
HostEdgeList read_edge_list(std::string const& path, EdgeIds ids = EdgeIds::dense);

/// Renumbers the agents of an edge list read with EdgeIds::any to 0..n-1 in increasing order of
/// their ids, counting also the agents `more` names (agents without edges, e.g. from an attribute
/// table). Returns the original id of each agent. Throws if there are more agents than an
/// agent_index holds.
std::vector<global_id> compact_ids(HostEdgeList& edges, std::vector<global_id> const& more);

/// The whole contents of a file; throws herd::Error naming the file if it cannot be read.
std::string read_text_file(std::string const& path);

}  // namespace herd
