#pragma once

// One all-to-all of host values, grouped by destination rank: what moving rows, asking the
// directory of owners and symmetrising a graph for a partitioner each need once per setup.

#include <herd/mpi/collective.hpp>

#include <mpi.h>

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

namespace herd::mpi::Details {

// Counts per rank to where each rank's group begins (size P + 1).
inline std::vector<std::size_t> group_begins(std::vector<std::size_t> const& counts) {
  std::vector<std::size_t> begin(counts.size() + 1, 0);
  for (std::size_t q = 0; q < counts.size(); ++q) begin[q + 1] = begin[q] + counts[q];
  return begin;
}

// Sends values[begin[q], begin[q + 1]) to rank q; returns what every rank sent here, in rank
// order, with where each sender's values begin in `from` (size P + 1). Throws CollectiveError on
// every rank when a rank would send or receive more than MPI's int counts allow. Collective.
template <class T>
std::vector<T> exchange(MPI_Comm comm, std::vector<T> const& values, std::vector<std::size_t> const& begin,
                        std::vector<std::size_t>& from, char const* what) {
  int parts = 0;
  MPI_Comm_size(comm, &parts);
  std::vector<std::size_t> send_counts(parts), receive_counts(parts);
  for (int q = 0; q < parts; ++q) send_counts[q] = begin[q + 1] - begin[q];
  static_assert(sizeof(std::size_t) == sizeof(std::uint64_t), "counts travel as MPI_UINT64_T");
  MPI_Alltoall(send_counts.data(), 1, MPI_UINT64_T, receive_counts.data(), 1, MPI_UINT64_T, comm);
  from = group_begins(receive_counts);
  bool const fits =
      begin[parts] <= static_cast<std::size_t>(INT_MAX) && from[parts] <= static_cast<std::size_t>(INT_MAX);
  raise_if_any_failed(comm, fits ? std::string() : std::string(what) + ": one rank's exchange exceeds 2^31 values");
  std::vector<int> send_int(parts), send_displs(parts), receive_int(parts), receive_displs(parts);
  for (int q = 0; q < parts; ++q) {
    send_int[q] = static_cast<int>(send_counts[q]);
    send_displs[q] = static_cast<int>(begin[q]);
    receive_int[q] = static_cast<int>(receive_counts[q]);
    receive_displs[q] = static_cast<int>(from[q]);
  }
  std::vector<T> received(from[parts]);
  MPI_Datatype type;
  MPI_Type_contiguous(static_cast<int>(sizeof(T)), MPI_BYTE, &type);
  MPI_Type_commit(&type);
  MPI_Alltoallv(values.data(), send_int.data(), send_displs.data(), type, received.data(), receive_int.data(),
                receive_displs.data(), type, comm);
  MPI_Type_free(&type);
  return received;
}

}  // namespace herd::mpi::Details
