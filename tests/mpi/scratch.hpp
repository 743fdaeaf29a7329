#pragma once

// Files the ranks of an MPI test share.

#include <gtest/gtest.h>
#include <mpi.h>

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

}  // namespace herd::test
