#include <herd/io/hdf5/agent_io.hpp>
#include <herd/mpi/collective.hpp>

#include <algorithm>
#include <cstring>
#include <numeric>

namespace herd::io::h5 {

namespace {

// The contiguous blocks of rows each rank reads and writes.
struct Blocks {
  std::vector<std::uint64_t> first;  // size + 1 entries

  Blocks(std::uint64_t global, int ranks) : first(static_cast<std::size_t>(ranks) + 1) {
    for (int r = 0; r <= ranks; ++r)
      first[static_cast<std::size_t>(r)] = static_cast<std::uint64_t>(
          (static_cast<unsigned __int128>(global) * static_cast<unsigned>(r)) / static_cast<unsigned>(ranks));
  }
  int owner(global_id id) const {
    auto const it = std::upper_bound(first.begin(), first.end(), static_cast<std::uint64_t>(id));
    return static_cast<int>(it - first.begin()) - 1;
  }
};

// Where each of `ids` goes: ranks' shares in rank order (`order` lists positions in `ids`), with
// per-rank counts and displacements.
struct Routing {
  std::vector<std::size_t> order;
  std::vector<int> counts, displacements;
};

Routing route(std::vector<global_id> const& ids, Blocks const& blocks, int ranks) {
  Routing r;
  r.counts.assign(static_cast<std::size_t>(ranks), 0);
  std::vector<int> owner(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    owner[i] = blocks.owner(ids[i]);
    ++r.counts[static_cast<std::size_t>(owner[i])];
  }
  r.displacements.assign(static_cast<std::size_t>(ranks), 0);
  for (int k = 1; k < ranks; ++k)
    r.displacements[static_cast<std::size_t>(k)] =
        r.displacements[static_cast<std::size_t>(k - 1)] + r.counts[static_cast<std::size_t>(k - 1)];
  r.order.resize(ids.size());
  auto next = r.displacements;
  for (std::size_t i = 0; i < ids.size(); ++i)
    r.order[static_cast<std::size_t>(next[static_cast<std::size_t>(owner[i])]++)] = i;
  return r;
}

std::vector<int> scaled(std::vector<int> v, int factor) {
  for (int& x : v) x *= factor;
  return v;
}

std::vector<int> displacements_of(std::vector<int> const& counts) {
  std::vector<int> d(counts.size(), 0);
  for (std::size_t k = 1; k < counts.size(); ++k) d[k] = d[k - 1] + counts[k - 1];
  return d;
}

// Sends each rank the ids it holds the block of; returns the ids received, grouped by sender.
std::vector<global_id> exchange_ids(MPI_Comm comm, std::vector<global_id> const& ids, Routing const& r,
                                    std::vector<int>& received_counts) {
  int const ranks = mpi::size_of(comm);
  received_counts.assign(static_cast<std::size_t>(ranks), 0);
  MPI_Alltoall(r.counts.data(), 1, MPI_INT, received_counts.data(), 1, MPI_INT, comm);
  std::vector<global_id> outgoing(ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) outgoing[k] = ids[r.order[k]];
  auto const received_displacements = displacements_of(received_counts);
  std::vector<global_id> incoming(
      static_cast<std::size_t>(std::accumulate(received_counts.begin(), received_counts.end(), 0)));
  MPI_Alltoallv(outgoing.data(), r.counts.data(), r.displacements.data(), MPI_INT64_T, incoming.data(),
                received_counts.data(), received_displacements.data(), MPI_INT64_T, comm);
  return incoming;
}

void check_ids(MPI_Comm comm, File const& file, std::string const& dataset, std::uint64_t global,
               std::vector<global_id> const& ids) {
  std::string failure;
  for (global_id id : ids)
    if (id < 0 || static_cast<std::uint64_t>(id) >= global) {
      failure = file.path() + ": " + dataset + ": agent id " + std::to_string(id) + " outside 0.." +
                std::to_string(global) + " - 1";
      break;
    }
  mpi::raise_if_any_failed(comm, failure);
  // Counts above 2^31 per rank pair would overflow MPI's int counts.
  mpi::raise_if_any_failed(comm, ids.size() * 8 > 0x7fffffffu
                                     ? file.path() + ": " + dataset + ": more than 2^28 agents on one rank"
                                     : std::string());
}

}  // namespace

void write_agents(File& file, std::string const& dataset, Type type, std::uint64_t global,
                  std::vector<global_id> const& ids, void const* values) {
  MPI_Comm const comm = file.communicator();
  int const ranks = mpi::size_of(comm), rank = mpi::rank_of(comm);
  check_ids(comm, file, dataset, global, ids);
  Blocks const blocks(global, ranks);
  Routing const r = route(ids, blocks, ranks);
  std::vector<int> received_counts;
  auto const incoming_ids = exchange_ids(comm, ids, r, received_counts);

  int const width = static_cast<int>(size_of(type));
  auto const* in = static_cast<unsigned char const*>(values);
  std::vector<unsigned char> outgoing(ids.size() * static_cast<std::size_t>(width));
  for (std::size_t k = 0; k < ids.size(); ++k)
    std::memcpy(&outgoing[k * static_cast<std::size_t>(width)], in + r.order[k] * static_cast<std::size_t>(width),
                static_cast<std::size_t>(width));
  std::vector<unsigned char> incoming(incoming_ids.size() * static_cast<std::size_t>(width));
  auto const send_counts = scaled(r.counts, width), send_displacements = scaled(r.displacements, width);
  auto const receive_counts = scaled(received_counts, width);
  auto const receive_displacements = displacements_of(receive_counts);
  MPI_Alltoallv(outgoing.data(), send_counts.data(), send_displacements.data(), MPI_BYTE, incoming.data(),
                receive_counts.data(), receive_displacements.data(), MPI_BYTE, comm);

  // Place into this rank's block; every row must arrive exactly once.
  std::uint64_t const first = blocks.first[static_cast<std::size_t>(rank)];
  std::uint64_t const count = blocks.first[static_cast<std::size_t>(rank) + 1] - first;
  std::vector<unsigned char> block(count * static_cast<std::size_t>(width));
  std::vector<bool> seen(count, false);
  std::string failure;
  for (std::size_t k = 0; k < incoming_ids.size(); ++k) {
    auto const row = static_cast<std::uint64_t>(incoming_ids[k]) - first;
    if (seen[row]) {
      failure = file.path() + ": " + dataset + ": agent " + std::to_string(incoming_ids[k]) + " written twice";
      break;
    }
    seen[row] = true;
    std::memcpy(&block[row * static_cast<std::size_t>(width)], &incoming[k * static_cast<std::size_t>(width)],
                static_cast<std::size_t>(width));
  }
  if (failure.empty() && incoming_ids.size() != count)
    failure =
        file.path() + ": " + dataset + ": " + std::to_string(count - incoming_ids.size()) + " agents have no value";
  mpi::raise_if_any_failed(comm, failure);

  file.create_dataset(dataset, type, {global});
  file.write_rows(dataset, type, first, count, block.data());
}

void read_agents(File const& file, std::string const& dataset, Type type, std::uint64_t global,
                 std::vector<global_id> const& ids, void* values) {
  MPI_Comm const comm = file.communicator();
  int const ranks = mpi::size_of(comm), rank = mpi::rank_of(comm);
  check_ids(comm, file, dataset, global, ids);
  Blocks const blocks(global, ranks);
  std::uint64_t const first = blocks.first[static_cast<std::size_t>(rank)];
  std::uint64_t const count = blocks.first[static_cast<std::size_t>(rank) + 1] - first;
  int const width = static_cast<int>(size_of(type));
  std::vector<unsigned char> block(count * static_cast<std::size_t>(width));
  file.read_rows(dataset, type, first, count, block.data());

  // Requests go to the block holders, which answer in the order asked.
  Routing const r = route(ids, blocks, ranks);
  std::vector<int> asked_counts;
  auto const asked = exchange_ids(comm, ids, r, asked_counts);
  std::vector<unsigned char> answers(asked.size() * static_cast<std::size_t>(width));
  for (std::size_t k = 0; k < asked.size(); ++k)
    std::memcpy(&answers[k * static_cast<std::size_t>(width)],
                &block[(static_cast<std::uint64_t>(asked[k]) - first) * static_cast<std::size_t>(width)],
                static_cast<std::size_t>(width));
  std::vector<unsigned char> replies(ids.size() * static_cast<std::size_t>(width));
  auto const answer_counts = scaled(asked_counts, width);
  auto const answer_displacements = displacements_of(answer_counts);
  auto const reply_counts = scaled(r.counts, width), reply_displacements = scaled(r.displacements, width);
  MPI_Alltoallv(answers.data(), answer_counts.data(), answer_displacements.data(), MPI_BYTE, replies.data(),
                reply_counts.data(), reply_displacements.data(), MPI_BYTE, comm);
  auto* out = static_cast<unsigned char*>(values);
  for (std::size_t k = 0; k < ids.size(); ++k)
    std::memcpy(out + r.order[k] * static_cast<std::size_t>(width), &replies[k * static_cast<std::size_t>(width)],
                static_cast<std::size_t>(width));
}

}  // namespace herd::io::h5
