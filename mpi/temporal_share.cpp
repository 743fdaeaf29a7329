#include <herd/mpi/temporal_share.hpp>

#include "blocks.hpp"
#include "exchange.hpp"
#include "line_ranges.hpp"

#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/half.hpp>
#include <herd/io/device_copy.hpp>
#include <herd/io/text/timed_contacts_parser.hpp>
#include <herd/mpi/collective.hpp>
#include <herd/mpi/local_snapshots.hpp>
#include <herd/mpi/partition.hpp>
#include <herd/mpi/repartition.hpp>

#include <algorithm>
#include <climits>
#include <limits>
#include <vector>

namespace herd::mpi {

namespace {

// Every rank's values, one after another in rank order, on every rank. Throws CollectiveError
// naming `what` when they exceed MPI's int counts.
template <class T>
std::vector<T> gather_everywhere(MPI_Comm comm, std::vector<T> const& mine, std::string const& what) {
  int const size = size_of(comm);
  unsigned long long const count = mine.size();
  std::vector<unsigned long long> counts(static_cast<std::size_t>(size));
  MPI_Allgather(&count, 1, MPI_UNSIGNED_LONG_LONG, counts.data(), 1, MPI_UNSIGNED_LONG_LONG, comm);
  unsigned long long total = 0;
  for (auto c : counts) total += c;
  if (total > static_cast<unsigned long long>(INT_MAX))
    throw CollectiveError(what + ": more than 2^31 values to share between the ranks");
  std::vector<int> sizes(counts.begin(), counts.end()), starts(counts.size(), 0);
  for (std::size_t q = 1; q < sizes.size(); ++q) starts[q] = starts[q - 1] + sizes[q - 1];
  std::vector<T> all(static_cast<std::size_t>(total));
  MPI_Datatype type;
  MPI_Type_contiguous(static_cast<int>(sizeof(T)), MPI_BYTE, &type);
  MPI_Type_commit(&type);
  MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), type, all.data(), sizes.data(), starts.data(), type, comm);
  MPI_Type_free(&type);
  return all;
}

// Sorted, each value once.
template <class T>
void sort_unique(std::vector<T>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

// A contact as it travels to the owners of its agents.
struct Contact {
  std::int64_t time;
  agent_index first, second;
};

// Sends the contacts send(k, to) names for each k < count (to(q, c): contact c to rank q), and
// returns those this rank receives, in the order of the ranks that sent them.
template <class Sends>
std::vector<Contact> route(MPI_Comm comm, std::size_t count, Sends const& sends, char const* what) {
  std::vector<std::size_t> counts(static_cast<std::size_t>(size_of(comm)), 0);
  for (std::size_t k = 0; k < count; ++k)
    sends(k, [&](int q, Contact const&) { ++counts[static_cast<std::size_t>(q)]; });
  auto const begin = Details::group_begins(counts);
  std::vector<Contact> outgoing(begin.back());
  auto next = begin;
  for (std::size_t k = 0; k < count; ++k)
    sends(k, [&](int q, Contact const& c) { outgoing[next[static_cast<std::size_t>(q)]++] = c; });
  std::vector<std::size_t> from;
  return Details::exchange(comm, outgoing, begin, from, what);
}

// `contacts` as TimedContacts of `agents` agents, in their order.
TimedContacts timed(std::vector<Contact> const& contacts, long long agents) {
  TimedContacts timed;
  timed.num_agents = static_cast<agent_index>(agents);
  timed.times.reserve(contacts.size());
  timed.first.reserve(contacts.size());
  timed.second.reserve(contacts.size());
  for (auto const& c : contacts) {
    timed.times.push_back(c.time);
    timed.first.push_back(c.first);
    timed.second.push_back(c.second);
  }
  return timed;
}

// The contacts of this rank's block (`held`) sent on to the parts of their agents (`part`, by
// local index of `blocks_share`, the block's rows), each named first by the agent it is sent for;
// `local` is this rank's share under those parts. An agent's part gets all its contacts, and a
// contact of two of its agents twice, once each way: it keeps one.
template <class MemorySpace, class WeightStorage>
std::vector<Contact> to_parts(MPI_Comm comm, TimedContacts const& held, Details::Blocks const& blocks,
                              LocalGraph<MemorySpace, WeightStorage> const& blocks_share, std::vector<int> const& part,
                              LocalGraph<MemorySpace, WeightStorage> const& local) {
  int const rank = rank_of(comm);
  auto const first = blocks.begin(rank), end = blocks.begin(rank + 1);
  // The block's rows lie interior first: its agents' parts by id.
  std::vector<int> part_by_id(static_cast<std::size_t>(end - first));
  auto const block_ids = herd::Details::copy_from<global_id>(
      Kokkos::subview(blocks_share.ids, std::make_pair(agent_index{0}, blocks_share.owned)));
  for (std::size_t l = 0; l < block_ids.size(); ++l)
    part_by_id[static_cast<std::size_t>(block_ids[l] - first)] = part[l];
  auto const mine = [&](agent_index a) { return a >= first && a < end; };
  auto const part_of = [&](agent_index a) { return part_by_id[static_cast<std::size_t>(a - first)]; };
  auto received = route(
      comm, held.size(),
      [&](std::size_t k, auto&& send) {
        Contact const c{held.times[k], held.first[k], held.second[k]};
        if (mine(c.first)) send(part_of(c.first), c);
        if (c.second != c.first && mine(c.second)) send(part_of(c.second), Contact{c.time, c.second, c.first});
      },
      "temporal network: contacts to their agents' parts");
  auto const ids =
      herd::Details::copy_from<global_id>(Kokkos::subview(local.ids, std::make_pair(agent_index{0}, local.owned)));
  std::vector<global_id> owned(ids.begin(), ids.end());
  std::sort(owned.begin(), owned.end());
  auto const owns = [&](agent_index a) { return std::binary_search(owned.begin(), owned.end(), global_id(a)); };
  received.erase(std::remove_if(received.begin(), received.end(),
                                [&](Contact const& c) { return c.first > c.second && owns(c.second); }),
                 received.end());
  return received;
}

}  // namespace

TimedContacts read_timed_contacts(MPI_Comm comm, std::string const& path) {
  // Text that is no text fails first, as one process refuses it on reading; then the first bad
  // line of all.
  auto part = Details::text_lines(comm, path);
  herd::Details::TimedLines lines;
  std::pair<std::size_t, std::string> failure;
  Details::together(comm, [&] { failure = herd::Details::parse_timed_lines(part.text, path, part.first_line, lines); });
  part.text = std::string();
  raise_first_failure(comm, failure.first, failure.second);
  unsigned long long contacts = lines.times.size();
  MPI_Allreduce(MPI_IN_PLACE, &contacts, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
  if (contacts == 0) throw CollectiveError(herd::Details::no_timed_contacts(path));
  // Agents numbered by the ids of all ranks' lines, as one process numbers those of the file.
  std::vector<long long> ids(lines.first);
  ids.insert(ids.end(), lines.second.begin(), lines.second.end());
  sort_unique(ids);
  ids = gather_everywhere(comm, ids, path + ": the agents' ids");
  sort_unique(ids);
  if (ids.size() > static_cast<std::size_t>(std::numeric_limits<agent_index>::max()))
    throw CollectiveError(path + ": more agents than an agent index holds");
  TimedContacts mine;
  mine.num_agents = static_cast<agent_index>(ids.size());
  mine.times = std::move(lines.times);
  herd::Details::number_timed_agents(ids, lines, mine);
  return mine;
}

WindowFrame window_frame(MPI_Comm comm, TimedContacts const& mine, std::int64_t window) {
  collectively(comm, [&] {
    require(window > 0, "temporal network: the window must be positive, not " + std::to_string(window));
  });
  WindowFrame frame;
  frame.start = mine.size() == 0 ? std::numeric_limits<std::int64_t>::max()
                                 : *std::min_element(mine.times.begin(), mine.times.end());
  frame.latest = mine.size() == 0 ? std::numeric_limits<std::int64_t>::min()
                                  : *std::max_element(mine.times.begin(), mine.times.end());
  MPI_Allreduce(MPI_IN_PLACE, &frame.start, 1, MPI_INT64_T, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &frame.latest, 1, MPI_INT64_T, MPI_MAX, comm);
  frame.busy =
      gather_everywhere(comm, busy_windows(mine, window, frame.start), "temporal network: the windows with contacts");
  sort_unique(frame.busy);
  return frame;
}

template <class WeightStorage, class ExecutionSpace>
TemporalShare<typename ExecutionSpace::memory_space, WeightStorage> temporal_share(
    ExecutionSpace const& exec, MPI_Comm comm, TimedContacts mine, std::int64_t window, WindowFrame const& frame,
    AfterLastWindow after_last, SnapshotWeights weights, PartitionMethod method) {
  int const rank = rank_of(comm), parts = size_of(comm);
  long long agents = mine.num_agents, fewest = 0;
  MPI_Allreduce(&agents, &fewest, 1, MPI_LONG_LONG, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &agents, 1, MPI_LONG_LONG, MPI_MAX, comm);
  int const chosen = static_cast<int>(method);
  int methods[2] = {chosen, -chosen};
  MPI_Allreduce(MPI_IN_PLACE, methods, 2, MPI_INT, MPI_MAX, comm);
  // The blocks, made first: their check refuses more ranks than agents before any contact moves.
  auto const partition = collectively(comm, [&] {
    require(agents == fewest, "temporal network: the ranks hold contacts of different agent counts");
    require(methods[0] == chosen && -methods[1] == chosen, "temporal network: the ranks name different partitions");
    check_contacts(mine);  // before a contact is routed by its agents
    return partition_contiguous(exec, agents, parts);
  });
  // Each contact to the owners of its agents (rank q owns [q N / P, (q + 1) N / P)).
  Details::Blocks const blocks{static_cast<global_id>(agents), parts};
  auto held = route(
      comm, mine.size(),
      [&](std::size_t k, auto&& send) {
        Contact const c{mine.times[k], mine.first[k], mine.second[k]};
        int const p = blocks.owner(c.first), q = blocks.owner(c.second);
        send(p, c);
        if (q != p) send(q, c);
      },
      "temporal network: contacts to their agents' owners");
  mine = {};
  // Every contact of an owned agent is here, so its rows are the whole network's.
  auto contacts = timed(held, agents);
  held = {};
  using memory_space = typename ExecutionSpace::memory_space;
  TemporalShare<memory_space, WeightStorage> share;
  share.local = collectively(
      comm, [&] { return extract_local_graph(exec, met_graph<WeightStorage>(exec, contacts), partition, rank); });
  if (method != PartitionMethod::contiguous) {
    // The partitioner splits the graph of every pair that met (its blocks are complete for their
    // owned agents), whose rows then move to their parts; each block's owner sends the contacts
    // of its agents after them. One rank keeps its block, but a partitioner this build lacks is
    // refused on it too.
    Kokkos::Timer partitioning;
    auto const part = parts_by(method, exec, comm, share.local, true);
    share.partition_seconds = partitioning.seconds();
    if (parts > 1) {
      auto moved = migrate_rows(exec, comm, share.local, part);
      contacts = timed(to_parts(comm, contacts, blocks, share.local, part, moved), agents);
      share.local = std::move(moved);
    }
  }
  auto const network = collectively(
      comm, [&] { return build_temporal_network<WeightStorage>(exec, contacts, window, frame, after_last, weights); });
  share.network = collectively(comm, [&] { return local_snapshots(exec, network, share.local); });
  return share;
}

#define HERD_INSTANTIATE_TEMPORAL_SHARE_W(EXEC, W)                                                              \
  template TemporalShare<EXEC::memory_space, W> temporal_share<W, EXEC>(                                        \
      EXEC const&, MPI_Comm, TimedContacts, std::int64_t, WindowFrame const&, AfterLastWindow, SnapshotWeights, \
      PartitionMethod);
#define HERD_INSTANTIATE_TEMPORAL_SHARE(EXEC) \
  HERD_INSTANTIATE_TEMPORAL_SHARE_W(EXEC, float) HERD_INSTANTIATE_TEMPORAL_SHARE_W(EXEC, half)

HERD_FOR_EACH_EXECUTION_SPACE(HERD_INSTANTIATE_TEMPORAL_SHARE)

}  // namespace herd::mpi
