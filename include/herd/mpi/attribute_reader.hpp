#pragma once

// An agent attribute table (CSV, herd::parse_attribute_table's format) read by all ranks
// together, each parsing the lines of its own byte range of the file, then sent to the ranks that
// own the agents: no rank holds the whole table. Errors are those one process reading the whole
// file gives, naming the first bad line or agent, on every rank.

#include <herd/core/types.hpp>
#include <herd/io/text/attribute_table.hpp>

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace herd::mpi {

/// This rank's rows of an attribute table read by parts.
struct AttributeRows {
  /// This rank's rows, in file order. `ids` holds each row's agent: its id column's value, or the
  /// row's position in the whole file when the table has no id column. Columns have the kinds, and
  /// categories the codes, that one process reading the whole file gives.
  AttributeTable table;
  std::vector<std::size_t> lines;  ///< the line of each row in the file
  bool named = false;              ///< whether the file has an id column
  std::uint64_t rows = 0;          ///< the rows of the whole file
  global_id largest = -1;          ///< the largest agent of any row of the file
};

/// Reads this rank's part of the attribute table `path`: the rows of the lines that begin in its
/// byte range (see Details::rank_lines). Throws CollectiveError on every rank when the file
/// cannot be read, or holds no header or no rows, or for the first bad line (a field count, a
/// quote, an agent id that is no non-negative integer or repeats one), with the message one
/// process reading the whole file gives. Collective.
AttributeRows read_attribute_rows(MPI_Comm comm, std::string const& path);

/// The rows of the agents `owned` (global ids, each in [0, agents)), in that order, of a graph of
/// `agents` agents, without ids: each row travels to the rank whose contiguous block of agents
/// holds it, and from there to the rank that asks for it. Every agent of the graph must have
/// exactly one row: throws CollectiveError on every rank, naming `path`, when the table's rows
/// (without ids) are not as many as the agents, or when a row names no agent of the graph (the
/// first such line) or an agent has none (the lowest). Collective.
AttributeTable owned_attribute_rows(MPI_Comm comm, AttributeRows const& rows, global_id agents,
                                    std::vector<global_id> const& owned, std::string const& path);

}  // namespace herd::mpi
