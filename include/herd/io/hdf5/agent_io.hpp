#pragma once

// Per-agent datasets written and read in parallel without a gather. A dataset holds one value per
// agent of the whole simulation, in global id order. Ranks own arbitrary sets of agents (a METIS
// partition scatters them), but each rank does its file I/O on one contiguous block of rows
// (rows [r N / P, (r + 1) N / P) on rank r of P): values travel between owners and blocks in one
// MPI_Alltoallv, and every file access is one collective hyperslab. This is what lets a checkpoint
// written on P ranks restart on any other number.

#include <herd/core/types.hpp>
#include <herd/io/hdf5/file.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace herd::io::h5 {

/// Writes `values` (one element of `type` per entry of `ids`, the global ids this rank owns) into
/// the new 1-D dataset `dataset` of `global` rows. Over all ranks the ids must cover 0..global-1
/// exactly once; that is checked, and every rank throws if not. Collective.
void write_agents(File& file, std::string const& dataset, Type type, std::uint64_t global,
                  std::vector<global_id> const& ids, void const* values);

/// Reads the values of agents `ids` (any global ids, repeats allowed) from the 1-D dataset
/// `dataset` of `global` rows into `values`, converted to `type`. Collective.
void read_agents(File const& file, std::string const& dataset, Type type, std::uint64_t global,
                 std::vector<global_id> const& ids, void* values);

}  // namespace herd::io::h5
