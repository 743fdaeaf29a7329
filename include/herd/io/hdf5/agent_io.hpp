#pragma once

// Per-agent datasets written and read in parallel without a gather. A dataset holds one value per
// agent of the whole simulation, in global id order. Ranks own arbitrary sets of agents (a METIS
// partition scatters them), but each rank does its file I/O on one contiguous block of rows
// (rows [r N / P, (r + 1) N / P) on rank r of P): values travel between owners and blocks in one
// MPI_Alltoallv, and every file access is one collective hyperslab. This is what lets a checkpoint
// written on P ranks restart on any other number.
//
// Where each value goes is worked out once, in an AgentBlocks plan, and applied to every property.
// When every rank already holds its own block in order (one process, a contiguous partition) the
// plan moves nothing between ranks.

#include <herd/core/types.hpp>
#include <herd/io/hdf5/file.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace herd::io::h5 {

/// The contiguous block of rows [first, last) of a `global`-row dataset that rank `rank` of
/// `ranks` reads and writes: rows [rank global / ranks, (rank + 1) global / ranks).
std::pair<std::uint64_t, std::uint64_t> block_of(std::uint64_t global, int rank, int ranks);

/// The routes between the agents each rank holds and the blocks of rows each rank reads and
/// writes, for datasets of `global` rows.
class AgentBlocks {
 public:
  /// `ids`: the global ids of the values this rank will pass to write() or want from read(), in
  /// that order (repeats allowed for reading). Every id must be in [0, global); `what` names the
  /// file in errors, which every rank raises together. Collective.
  AgentBlocks(MPI_Comm comm, std::uint64_t global, std::vector<global_id> const& ids, std::string const& what);
  /// The same for the ids first_id, first_id + 1, ..., first_id + count - 1, without listing them
  /// (one process, a contiguous partition). Collective.
  AgentBlocks(MPI_Comm comm, std::uint64_t global, global_id first_id, std::uint64_t count, std::string const& what);

  /// Writes `values` (one element of `type` per id) into the new 1-D dataset `dataset`. Over all
  /// ranks the ids must name every agent exactly once; that is checked, and every rank throws if
  /// not. Collective.
  void write(File& file, std::string const& dataset, Type type, void const* values) const;

  /// Reads the values of the ids from the 1-D dataset `dataset`, converted to `type`. Collective.
  void read(File const& file, std::string const& dataset, Type type, void* values) const;

 private:
  AgentBlocks(MPI_Comm comm, std::uint64_t global);
  void route(std::vector<global_id> const& ids, std::string const& what);

  MPI_Comm comm_;
  std::uint64_t global_ = 0, first_ = 0, count_ = 0;  // this rank's block: rows [first_, first_ + count_)
  bool direct_ = false;                               // on every rank, ids are the rank's block in order
  std::vector<std::size_t> order_;                    // positions in ids, grouped by the rank of their block
  std::vector<int> send_counts_, send_displacements_;
  std::vector<int> receive_counts_, receive_displacements_;
  std::vector<std::uint64_t> rows_;  // row in this block of each value received, in arrival order
  std::string coverage_failure_;     // why a write would be refused (empty: every row exactly once)
};

}  // namespace herd::io::h5
