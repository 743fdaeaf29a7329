#pragma once

// A CSR graph in host memory, as files hold it. Free of Kokkos: readers validate it here, before
// anything reaches a device, and the checks can be fuzzed on their own.

#include <herd/core/types.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace herd {

/// A CSR neighbour graph on the host: row i lists the agents whose state agent i reads.
struct HostCsr {
  std::vector<edge_offset> row_offsets;  ///< num_agents + 1 entries, from 0 to the entry count
  std::vector<agent_index> neighbours;   ///< each row in strictly increasing order (of layer, with layers)
  std::vector<float> weights;            ///< empty, or one finite non-negative weight per entry
  std::vector<layer_index> layers;       ///< empty, or one layer per entry (then weights are given too)
  std::vector<std::string> layer_names;  ///< what the layers are, by number (may be empty)
  /// Whether every entry is also stored the other way, with the same weight and layer (a file
  /// says its rows were symmetrised, and its reader found them so): see CsrGraph::symmetric.
  bool symmetric = false;

  agent_index num_agents() const { return row_offsets.empty() ? 0 : static_cast<agent_index>(row_offsets.size() - 1); }
};

/// A block of a graph's rows in host memory, as one rank of several reads them from a file: rows
/// [first, first + rows()) of a graph of num_agents agents, each row as stored, its neighbours in
/// global ids. See mpi::build_local_graph.
struct HostRows {
  agent_index num_agents = 0;            ///< the whole graph's agents
  global_id first = 0;                   ///< the agent of the first row
  std::vector<edge_offset> row_offsets;  ///< rows() + 1 entries, from 0
  std::vector<agent_index> neighbours;   ///< global ids
  std::vector<float> weights;            ///< empty, or one per entry
  std::vector<layer_index> layers;       ///< empty, or one per entry
  std::vector<std::string> layer_names;  ///< what the layers are, by number (may be empty)
  bool directed = false;                 ///< the file says its rows are one-way
  /// Whether the whole graph stores every entry both ways, with the same weight and layer (the
  /// file says so, and the ranks found it so together): see LocalGraph::mirrored.
  bool symmetric = false;

  agent_index rows() const { return row_offsets.empty() ? 0 : static_cast<agent_index>(row_offsets.size() - 1); }
};

/// Checks that `graph` is a valid CSR graph of at least one agent: offsets from 0 to the entry
/// count and never decreasing, neighbours inside [0, num_agents) and strictly increasing within a
/// row (no repeats; with layers, (neighbour, layer) pairs strictly increasing), weights (if any) one
/// per entry, finite and non-negative, layers (if any) one per entry, with weights. Throws herd::Error
/// starting with `what` and naming the first offending row or entry.
void check_csr(HostCsr const& graph, std::string const& what);

/// Some consecutive rows of a CSR graph: rows first ... first + count - 1, whose starts and end are
/// offsets[0 ... count] (positions in the whole graph), and the entries they span from offsets[0].
struct CsrRows {
  std::int64_t first = 0;
  std::size_t count = 0;
  edge_offset const* offsets = nullptr;
  agent_index const* neighbours = nullptr;
  float const* weights = nullptr;       ///< nullptr when the graph has none
  layer_index const* layers = nullptr;  ///< nullptr when the graph has none
};

/// The first of `rows` at fault as check_csr finds it, in a graph of `agents` agents and `entries`
/// entries whose offsets start at 0, and the problem; {agents, ""} when there is none.
std::pair<std::int64_t, std::string> first_bad_row(CsrRows const& rows, std::int64_t agents, std::uint64_t entries,
                                                   std::string const& what);

/// Sums over the entries (i, j, weight, layer) of some rows of a hash of the entry, and of a hash
/// of the entry reversed, (j, i, weight, layer), modulo 2^64. A graph stores every entry both ways,
/// with the same weight and layer, when the two sums over all its rows agree (unless the hashes
/// collide, a chance of about 2^-64): one pass in order, where comparing rows would read at random.
struct MirrorSums {
  std::uint64_t forward = 0, reversed = 0;
};
MirrorSums mirror_sums(CsrRows const& rows);

/// The part of check_csr a reader can make before it reads the rows: the last row offset must
/// count the neighbour entries. Throws herd::Error naming `what`.
void check_last_offset(edge_offset last, std::uint64_t entries, std::string const& what);

}  // namespace herd
