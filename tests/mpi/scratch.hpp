#pragma once

// Files the ranks of an MPI test share.

#include <herd/mpi/collective.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace herd::test {

/// `file` in rank 0's temporary directory, for every rank (they share the node's file system).
inline std::string scratch_path(std::string const& file) {
  std::string dir = ::testing::TempDir();
  int length = static_cast<int>(dir.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  dir.resize(static_cast<std::size_t>(length));
  MPI_Bcast(dir.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  return dir + "/" + file;
}

/// A file rank 0 writes and every rank reads; removed when it goes.
class SharedFile {
 public:
  SharedFile(std::string const& name, std::string const& text) {
    path_ = scratch_path("herd_" + std::to_string(mpi::size_of(MPI_COMM_WORLD)) + "_" + name);
    if (mpi::rank_of(MPI_COMM_WORLD) == 0) std::ofstream(path_, std::ios::binary) << text;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  SharedFile(SharedFile const&) = delete;
  SharedFile& operator=(SharedFile const&) = delete;
  ~SharedFile() {
    MPI_Barrier(MPI_COMM_WORLD);
    if (mpi::rank_of(MPI_COMM_WORLD) == 0) std::filesystem::remove(path_);
  }
  std::string const& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace herd::test
