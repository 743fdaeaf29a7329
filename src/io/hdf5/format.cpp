#include <herd/config.hpp>
#include <herd/io/hdf5/format.hpp>
#include <herd/io/output_file.hpp>
#include <herd/mpi/collective.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace herd::io {

namespace {

// Flushes a file's contents to storage (rank 0 only; errors returned as text).
std::string sync_to_storage(std::string const& path, int flags) {
  int const fd = ::open(path.c_str(), flags);
  if (fd < 0) return path + ": cannot open for syncing: " + std::strerror(errno);
  std::string failure;
  if (::fsync(fd) != 0 && errno != EINVAL) failure = path + ": fsync failed: " + std::strerror(errno);
  ::close(fd);
  return failure;
}

// What reading `partial` back finds wrong with what each rank wrote (the same text on every
// rank; empty when all is there). Some MPI-IO layers lose writes to a full disk without an error
// (Open MPI's OMPIO at 3 ranks and more): the file would look whole, and its checksums fail only
// when it is read. Collective.
std::string read_back(std::string const& partial, std::string const& final_path, MPI_Comm comm,
                      std::vector<h5::File::WrittenPart> const& parts) {
  try {
    std::optional<h5::File> again;
    mpi::collectively(comm, [&] { again.emplace(h5::File::open(partial, comm)); });
    again->named(final_path);
    again->check_written(parts);
    again->close();
  } catch (std::exception const& e) {
    return e.what();
  }
  return {};
}

}  // namespace

h5::File create_partial(std::string const& final_path, std::string const& kind, MPI_Comm comm) {
  // A unique name beside the target, chosen by rank 0: a user's file named like it is never touched.
  std::string temporary;
  mpi::collectively(comm, [&] {
    if (mpi::rank_of(comm) == 0) temporary = temporary_beside(replaced_file(final_path));
  });
  temporary = mpi::broadcast_text(comm, temporary);
  bool const made_here = mpi::rank_of(comm) == 0;
  if (!made_here) share_temporary(temporary);
  auto file = [&] {
    try {
      return h5::File::create(temporary, comm);
    } catch (...) {
      if (made_here) remove_temporary(temporary);
      unshare_temporary(temporary);
      throw;
    }
  }();
  file.named(final_path);  // errors name the file the user gave, not the one beside it
  try {
    file.set_attribute("/", "herd_format", kind);
    file.set_attribute("/", "format_version", format_version);
    file.set_attribute("/", "herd_version", std::string(HERD_VERSION_STRING));
  } catch (...) {
    discard_file(file);
    throw;
  }
  return file;
}

WrittenFile finish_file(h5::File& file, std::string const& final_path) {
  MPI_Comm const comm = file.communicator();
  std::string const partial = file.path();
  auto const parts = file.written();
  try {
    file.close();
  } catch (...) {
    // Its last writes failed (a full disk): the file is not whole, so it goes, also where this
    // rank alone failed and the job is about to be aborted.
    if (mpi::rank_of(comm) == 0 || mpi::failing_alone(comm)) remove_temporary(partial);
    unshare_temporary(partial);
    throw;
  }
  // Whole now: rank 0, which made it, puts it in place or removes it, after the barrier.
  if (mpi::rank_of(comm) != 0) unshare_temporary(partial);
  MPI_Barrier(comm);
  std::string failure = read_back(partial, final_path, comm, parts);
  WrittenFile written;
  if (mpi::rank_of(comm) == 0) {
    if (failure.empty()) failure = sync_to_storage(partial, O_RDONLY);
    if (failure.empty()) {
      try {
        written = {partial, replaced_file(final_path)};
      } catch (std::exception const& e) {
        failure = e.what();
      }
    }
    if (!failure.empty()) remove_temporary(partial);
  }
  mpi::raise_if_any_failed(comm, failure);
  return written;
}

void commit_file(h5::File& file, std::string const& final_path) {
  auto const written = finish_file(file, final_path);
  MPI_Comm const comm = file.communicator();
  std::string failure;
  if (!written.temporary.empty()) {
    try {
      replace_with(written.temporary, written.target);
    } catch (std::exception const& e) {
      failure = e.what();
    }
  }
  mpi::raise_if_any_failed(comm, failure);
}

void discard_file(h5::File& file) noexcept {
  std::string const partial = file.path();
  if (mpi::failing_alone(file.communicator())) {
    // The other ranks may wait in a collective call that the close would join out of turn: the
    // name goes now, the file stays open until the job is aborted.
    file.abandon();
    remove_temporary(partial);
    unshare_temporary(partial);
    return;
  }
  // The close flushes what HDF5 still holds, and a rank whose flush fails (a full disk: most often
  // why the file is discarded) leaves HDF5 1.10's collective steps out of turn, so that the others
  // wait for ever. The file goes anyway: emptying it first gives the flush room.
  MPI_Comm const comm = file.communicator();
  if (mpi::size_of(comm) > 1) {
    if (mpi::rank_of(comm) == 0) (void)::truncate(partial.c_str(), 0);
    MPI_Barrier(comm);
  }
  try {
    file.close();
  } catch (...) {
  }
  if (mpi::rank_of(comm) == 0) remove_temporary(partial);
  unshare_temporary(partial);
}

void check_format(h5::File const& file, std::string const& kind) {
  std::string const& path = file.path();
  std::string found;
  try {
    found = file.string_attribute("/", "herd_format");
  } catch (Error const&) {
    throw Error(path + ": not a Herd file (" +
                (file.has_attribute("/", "herd_format") ? "its herd_format attribute is not text"
                                                        : "no herd_format attribute") +
                ")");
  }
  require(found == kind, path + ": a " + found + " file, not a " + kind);
  auto const version = file.int_attribute("/", "format_version");
  require(version >= 1, path + ": invalid format_version " + std::to_string(version));
  require(version <= format_version, path + ": format version " + std::to_string(version) +
                                         " is newer than this Herd reads (" + std::to_string(format_version) +
                                         "); use a newer Herd");
}

}  // namespace herd::io
