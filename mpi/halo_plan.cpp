#include <herd/mpi/halo_plan.hpp>

#include <limits>

namespace herd::mpi::Details {

Requests exchange_requests(MPI_Comm comm, std::vector<int> const& recv_ranks,
                           std::vector<agent_index> const& recv_offsets, std::vector<global_id> const& ghost_ids) {
  int const size = size_of(comm);
  std::vector<int> wanted_from(size, 0), wanted_by(size, 0);
  for (std::size_t k = 0; k < recv_ranks.size(); ++k)
    wanted_from[recv_ranks[k]] = recv_offsets[k + 1] - recv_offsets[k];
  MPI_Alltoall(wanted_from.data(), 1, MPI_INT, wanted_by.data(), 1, MPI_INT, comm);

  std::vector<int> send_displs(size, 0), recv_displs(size, 0);
  long long total = 0;
  for (int q = 0; q < size; ++q) {
    recv_displs[q] = static_cast<int>(total);
    total += wanted_by[q];
  }
  raise_if_any_failed(comm, total <= std::numeric_limits<int>::max()
                                ? std::string()
                                : "more than 2^31 agents of one rank are ghosts elsewhere: use more ranks");
  for (std::size_t k = 0; k < recv_ranks.size(); ++k) send_displs[recv_ranks[k]] = recv_offsets[k];
  Requests requests;
  requests.requested.resize(static_cast<std::size_t>(total));
  MPI_Alltoallv(ghost_ids.data(), wanted_from.data(), send_displs.data(), MPI_INT64_T, requests.requested.data(),
                wanted_by.data(), recv_displs.data(), MPI_INT64_T, comm);
  requests.offsets.push_back(0);
  for (int q = 0; q < size; ++q) {
    if (wanted_by[q] == 0) continue;
    requests.ranks.push_back(q);
    requests.offsets.push_back(requests.offsets.back() + wanted_by[q]);
  }
  return requests;
}

}  // namespace herd::mpi::Details
