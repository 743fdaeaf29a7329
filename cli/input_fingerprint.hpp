#pragma once

// Fingerprints of a run's input files, which its checkpoints keep: a resumed run accepts the
// inputs by their bytes, under whatever name they are given (a run moved to another folder or
// machine), and refuses a file changed since, whose contacts or attributes would differ.

#include "options.hpp"

#include <herd/detail/mpi.hpp>

#include <cstdint>
#include <string>

namespace herd::cli {

/// A fingerprint of the bytes of the regular file `path`, never 0: each rank of `comm` reads its
/// share, and the value does not depend on their number. Throws herd::Error naming the file, on
/// every rank, where a rank cannot read it. Collective.
std::uint64_t file_fingerprint(std::string const& path, MPI_Comm comm);

/// Sets o.graph_file_hash and o.attributes_file_hash: file_fingerprint of the --graph and
/// --attributes files that are regular files, 0 for a generator, a pipe or no file. Collective.
void fingerprint_inputs(Options& o, MPI_Comm comm);

}  // namespace herd::cli
