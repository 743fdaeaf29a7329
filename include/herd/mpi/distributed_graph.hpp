#pragma once

// Building a distributed graph without any rank holding all of it.
//
// Rank r owns the contiguous block of agents [r N / P, (r + 1) N / P). It generates edges
// [r M / P, (r + 1) M / P) of an EdgeSource and sends each entry to the owner of its row, in
// rounds of a bounded number of edges, twice: the first pass counts each row's entries and marks
// the ghosts, the second places the entries straight into the rows of the rank's LocalGraph. The
// edges are made again rather than kept, so a rank holds its rows, one round's buffers and one
// bit per agent (which agents are ghosts) with a count per 32 bits, never the whole edge list.

#include <herd/graph/csr_graph.hpp>
#include <herd/graph/generators.hpp>
#include <herd/io/host_csr.hpp>
#include <herd/io/text/edge_list_parser.hpp>
#include <herd/mpi/local_graph.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

namespace herd::mpi {

/// This rank's own part of a graph's edges, made a slice at a time: `slice(first, count)` gives
/// the part's edges [first, first + count), numbered from 0 on every rank. The parts of all ranks
/// together (rank 0's first) are the graph's edges. What a generator gives whose edges are not
/// each a function of one id, such as the layered population (mpi::population_part).
/// (Not an EdgeSource, whose slices number the graph's edges: one must not pass for the other.)
template <class MemorySpace>
struct EdgePart {
  agent_index agents = 0;
  std::size_t edges = 0;  ///< this rank's edges, numbered 0 ... edges - 1
  bool weighted = false;
  bool layered = false;  ///< whether the slices carry layers
  std::function<EdgeList<MemorySpace>(std::size_t first, std::size_t count)> slice;
};

/// This rank's share of the graph that build_csr(exec, source.slice(0, source.edges), options)
/// would make, under partition_contiguous: the LocalGraph extract_local_graph would give, entry
/// for entry, built from a 1/P share of the edges. `round_edges` bounds the edges each rank sends
/// in one round (0: Herd's choice, 1/64 of a rank's edges between 2^16 and 2^22). Throws
/// CollectiveError on every rank when any rank's edges hold an id out of range or a bad weight, or
/// there are more ranks than agents. Collective over `comm`.
template <class WeightStorage, class ExecutionSpace>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> build_local_graph(
    ExecutionSpace const& exec, MPI_Comm comm, EdgeSource<typename ExecutionSpace::memory_space> const& source,
    BuildOptions const& options = {}, std::size_t round_edges = 0);

/// This rank's share, as above, of the graph build_csr would make of all ranks' `edges` together
/// (rank 0's first, then rank 1's, ...), such as the parts of a file mpi::read_edge_list gives.
/// Every rank's edges name the same agent count, and carry weights on all ranks with edges or on
/// none. Collective over `comm`.
template <class WeightStorage, class ExecutionSpace>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> build_local_graph(
    ExecutionSpace const& exec, MPI_Comm comm, EdgeList<typename ExecutionSpace::memory_space> const& edges,
    BuildOptions const& options = {}, std::size_t round_edges = 0);

/// As above, from this rank's part of the edges made a round at a time, so that the rank never
/// holds all of them.
template <class WeightStorage, class ExecutionSpace>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> build_local_graph(
    ExecutionSpace const& exec, MPI_Comm comm, EdgePart<typename ExecutionSpace::memory_space> const& part,
    BuildOptions const& options = {}, std::size_t round_edges = 0);

/// As above, from this rank's edges in host memory (its part of a file, from mpi::read_edge_list),
/// read in place on a host backend and copied a round at a time to a device.
template <class WeightStorage, class ExecutionSpace>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> build_local_graph(ExecutionSpace const& exec,
                                                                                   MPI_Comm comm,
                                                                                   HostEdgeList const& edges,
                                                                                   BuildOptions const& options = {},
                                                                                   std::size_t round_edges = 0);

/// This rank's share of a graph stored as rows, from the rows of its block (`rows.first` the
/// block's first agent, as io::read_population_rows reads them): the share the overload above gives
/// of the same entries with symmetrise, drop_self_loops and drop_duplicates off, for rows that
/// are sorted, with each row kept as stored. Rows already on their owner need no routing: a pass
/// finds the ghosts, a second places each row renumbered. The rows must be valid as check_csr
/// checks a graph (the reader checks them). Throws CollectiveError on every rank when a rank's rows
/// are not its block, or the ranks disagree on the agent count, weights or layers. Collective over
/// `comm`.
template <class WeightStorage, class ExecutionSpace>
LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> build_local_graph(ExecutionSpace const& exec,
                                                                                   MPI_Comm comm, HostRows const& rows);

/// herd::graph_hash of the whole graph, computed from the ranks' shares of it under any partition.
/// Blocks of agents in rank order (build_local_graph's) need no messages but a scan; under other
/// partitions each row's entry count travels to the rank whose contiguous block holds its agent,
/// which answers where the row begins in the whole graph. Collective over `comm`.
template <class ExecutionSpace, class WeightStorage>
std::uint64_t graph_hash(ExecutionSpace const& exec, MPI_Comm comm,
                         LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& local);

/// The most entries in one row over all ranks, and the entries of all rows. Collective.
template <class ExecutionSpace, class WeightStorage>
std::pair<agent_index, std::uint64_t> degree_extent(
    ExecutionSpace const& exec, MPI_Comm comm,
    LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& local);

}  // namespace herd::mpi
