#pragma once

// What every Herd HDF5 file shares: root attributes naming its kind and format version, and
// writing under a temporary name that is renamed into place only once complete and flushed, so a
// job killed at any moment leaves the previous file whole.

#include <herd/io/hdf5/file.hpp>
#include <herd/io/output_file.hpp>

#include <cstdint>
#include <string>

namespace herd::io {

/// Version of the file schema (docs/file-formats.md) this Herd writes and the newest it reads.
constexpr std::int64_t format_version = 1;

/// Creates `final_path`'s temporary file with the attributes of a `kind` file (herd-checkpoint,
/// herd-output, herd-population). Collective.
h5::File create_partial(std::string const& final_path, std::string const& kind, MPI_Comm comm);
/// Closes a file from create_partial and renames it to `final_path`, flushed to storage. Collective.
void commit_file(h5::File& file, std::string const& final_path);
/// Closes a file from create_partial and flushes it to storage, under its temporary name: rank 0
/// gets what replace_with puts in place as `final_path`, the other ranks nothing to put in place.
/// Collective; on failure the file is removed on every rank.
WrittenFile finish_file(h5::File& file, std::string const& final_path);
/// Closes and deletes an unfinished file from create_partial. Collective; never throws. A rank
/// that fails alone (mpi::failing_alone: it throws or handles an error the other ranks do not
/// share) deletes it without closing it and returns at once; the job must then be aborted.
void discard_file(h5::File& file) noexcept;

/// Checks that an open file is a Herd file of `kind` in a version this Herd reads; throws
/// herd::Error naming the file otherwise. Collective.
void check_format(h5::File const& file, std::string const& kind);

}  // namespace herd::io
