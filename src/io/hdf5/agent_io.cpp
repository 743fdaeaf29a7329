#include <herd/io/hdf5/agent_io.hpp>
#include <herd/mpi/collective.hpp>

#include <algorithm>
#include <cstring>

namespace herd::io::h5 {

namespace {

std::uint64_t block_start(std::uint64_t global, int rank, int ranks) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(global) * static_cast<unsigned>(rank)) /
                                    static_cast<unsigned>(ranks));
}

std::vector<int> displacements_of(std::vector<int> const& counts) {
  std::vector<int> d(counts.size(), 0);
  for (std::size_t k = 1; k < counts.size(); ++k) d[k] = d[k - 1] + counts[k - 1];
  return d;
}

std::vector<int> scaled(std::vector<int> v, int factor) {
  for (int& x : v) x *= factor;
  return v;
}

}  // namespace

std::pair<std::uint64_t, std::uint64_t> block_of(std::uint64_t global, int rank, int ranks) {
  return {block_start(global, rank, ranks), block_start(global, rank + 1, ranks)};
}

AgentBlocks::AgentBlocks(MPI_Comm comm, std::uint64_t global) : comm_(comm), global_(global) {
  auto const [first, last] = block_of(global, mpi::rank_of(comm), mpi::size_of(comm));
  first_ = first;
  count_ = last - first;
}

AgentBlocks::AgentBlocks(MPI_Comm comm, std::uint64_t global, std::vector<global_id> const& ids,
                         std::string const& what)
    : AgentBlocks(comm, global) {
  std::string failure;
  bool mine_in_order = ids.size() == count_;
  for (std::size_t k = 0; k < ids.size() && failure.empty(); ++k) {
    if (ids[k] < 0 || static_cast<std::uint64_t>(ids[k]) >= global)
      failure = what + ": agent id " + std::to_string(ids[k]) + " outside 0.." + std::to_string(global) + " - 1";
    mine_in_order = mine_in_order && static_cast<std::uint64_t>(ids[k]) == first_ + k;
  }
  mpi::raise_if_any_failed(comm, failure);
  int direct = mine_in_order ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &direct, 1, MPI_INT, MPI_MIN, comm);
  direct_ = direct != 0;
  if (!direct_) route(ids, what);
}

AgentBlocks::AgentBlocks(MPI_Comm comm, std::uint64_t global, global_id first_id, std::uint64_t count,
                         std::string const& what)
    : AgentBlocks(comm, global) {
  mpi::raise_if_any_failed(comm, first_id < 0 || static_cast<std::uint64_t>(first_id) + count > global
                                     ? what + ": agent ids " + std::to_string(first_id) + ".." +
                                           std::to_string(first_id + static_cast<global_id>(count)) +
                                           " - 1 outside 0.." + std::to_string(global) + " - 1"
                                     : "");
  int direct = static_cast<std::uint64_t>(first_id) == first_ && count == count_ ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &direct, 1, MPI_INT, MPI_MIN, comm);
  direct_ = direct != 0;
  if (direct_) return;
  std::vector<global_id> ids(count);
  for (std::uint64_t k = 0; k < count; ++k) ids[k] = first_id + static_cast<global_id>(k);
  route(ids, what);
}

void AgentBlocks::route(std::vector<global_id> const& ids, std::string const& what) {
  MPI_Comm const comm = comm_;
  std::uint64_t const global = global_;
  int const ranks = mpi::size_of(comm);
  // Counts above 2^31 per rank pair would overflow MPI's int counts.
  mpi::raise_if_any_failed(comm, ids.size() * 8 > 0x7fffffffu ? what + ": more than 2^28 agents on one rank" : "");
  // Which rank's block holds each id; ids go out grouped by that rank.
  std::vector<std::uint64_t> starts(static_cast<std::size_t>(ranks) + 1);
  for (int r = 0; r <= ranks; ++r) starts[static_cast<std::size_t>(r)] = block_start(global, r, ranks);
  auto holder = [&](global_id id) {
    return static_cast<int>(std::upper_bound(starts.begin(), starts.end(), static_cast<std::uint64_t>(id)) -
                            starts.begin()) -
           1;
  };
  send_counts_.assign(static_cast<std::size_t>(ranks), 0);
  for (auto id : ids) ++send_counts_[static_cast<std::size_t>(holder(id))];
  send_displacements_ = displacements_of(send_counts_);
  order_.resize(ids.size());
  auto next = send_displacements_;
  for (std::size_t i = 0; i < ids.size(); ++i)
    order_[static_cast<std::size_t>(next[static_cast<std::size_t>(holder(ids[i]))]++)] = i;

  receive_counts_.assign(static_cast<std::size_t>(ranks), 0);
  MPI_Alltoall(send_counts_.data(), 1, MPI_INT, receive_counts_.data(), 1, MPI_INT, comm);
  receive_displacements_ = displacements_of(receive_counts_);
  std::vector<global_id> outgoing(ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) outgoing[k] = ids[order_[k]];
  std::vector<global_id> incoming(static_cast<std::size_t>(receive_displacements_.back() + receive_counts_.back()));
  MPI_Alltoallv(outgoing.data(), send_counts_.data(), send_displacements_.data(), MPI_INT64_T, incoming.data(),
                receive_counts_.data(), receive_displacements_.data(), MPI_INT64_T, comm);
  rows_.resize(incoming.size());
  std::vector<bool> seen(count_, false);
  for (std::size_t k = 0; k < incoming.size(); ++k) {
    rows_[k] = static_cast<std::uint64_t>(incoming[k]) - first_;
    if (seen[rows_[k]] && coverage_failure_.empty())
      coverage_failure_ = what + ": agent " + std::to_string(incoming[k]) + " is held by two ranks";
    seen[rows_[k]] = true;
  }
  if (coverage_failure_.empty() && incoming.size() != count_)
    coverage_failure_ = what + ": " + std::to_string(count_ - incoming.size()) + " agents are held by no rank";
}

void AgentBlocks::write(File& file, std::string const& dataset, Type type, void const* values) const {
  mpi::raise_if_any_failed(comm_, coverage_failure_.empty() ? "" : coverage_failure_ + " (writing " + dataset + ")");
  file.create_dataset(dataset, type, {global_});
  if (direct_) {
    file.write_rows(dataset, type, first_, count_, values);
    return;
  }
  auto const width = size_of(type);
  auto const* in = static_cast<unsigned char const*>(values);
  std::vector<unsigned char> outgoing(order_.size() * width), incoming(rows_.size() * width);
  for (std::size_t k = 0; k < order_.size(); ++k) std::memcpy(&outgoing[k * width], in + order_[k] * width, width);
  auto const w = static_cast<int>(width);
  MPI_Alltoallv(outgoing.data(), scaled(send_counts_, w).data(), scaled(send_displacements_, w).data(), MPI_BYTE,
                incoming.data(), scaled(receive_counts_, w).data(), scaled(receive_displacements_, w).data(), MPI_BYTE,
                comm_);
  std::vector<unsigned char> block(count_ * width);
  for (std::size_t k = 0; k < rows_.size(); ++k) std::memcpy(&block[rows_[k] * width], &incoming[k * width], width);
  file.write_rows(dataset, type, first_, count_, block.data());
}

void AgentBlocks::read(File const& file, std::string const& dataset, Type type, void* values) const {
  if (direct_) {
    file.read_rows(dataset, type, first_, count_, values);
    return;
  }
  auto const width = size_of(type);
  std::vector<unsigned char> block(count_ * width);
  file.read_rows(dataset, type, first_, count_, block.data());
  // The block holders answer requests in the order asked: the reverse of write's routes.
  std::vector<unsigned char> answers(rows_.size() * width), replies(order_.size() * width);
  for (std::size_t k = 0; k < rows_.size(); ++k) std::memcpy(&answers[k * width], &block[rows_[k] * width], width);
  auto const w = static_cast<int>(width);
  MPI_Alltoallv(answers.data(), scaled(receive_counts_, w).data(), scaled(receive_displacements_, w).data(), MPI_BYTE,
                replies.data(), scaled(send_counts_, w).data(), scaled(send_displacements_, w).data(), MPI_BYTE, comm_);
  auto* out = static_cast<unsigned char*>(values);
  for (std::size_t k = 0; k < order_.size(); ++k) std::memcpy(out + order_[k] * width, &replies[k * width], width);
}

}  // namespace herd::io::h5
