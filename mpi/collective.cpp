#include <herd/mpi/collective.hpp>

#include <vector>

namespace herd::mpi {

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

int size_of(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return size;
}

void raise_if_any_failed(MPI_Comm comm, std::string const& failure) {
  int const rank = rank_of(comm), size = size_of(comm);
  int const failed = failure.empty() ? 0 : 1;
  int failures = 0;
  MPI_Allreduce(&failed, &failures, 1, MPI_INT, MPI_SUM, comm);
  if (failures == 0) return;
  int first = 0;
  int const candidate = failed ? rank : size;
  MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, comm);
  // The first failing rank's message goes to everyone.
  int length = rank == first ? static_cast<int>(failure.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  std::vector<char> text(static_cast<std::size_t>(length));
  if (rank == first) text.assign(failure.begin(), failure.end());
  MPI_Bcast(text.data(), length, MPI_CHAR, first, comm);
  std::string message(text.begin(), text.end());
  if (failures < size) message += " (rank " + std::to_string(first) + " of " + std::to_string(size) + ")";
  throw CollectiveError(message);
}

}  // namespace herd::mpi
