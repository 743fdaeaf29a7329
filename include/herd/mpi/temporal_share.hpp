#pragma once

// A timed-contact file read by all ranks together, and each rank's share of its temporal network
// under contiguous blocks of agents or the parts a partitioner gives them: no rank reads the
// whole file or holds the whole network. The share is the one local_snapshots and
// extract_local_graph cut from the whole network.

#include <herd/graph/temporal_network.hpp>
#include <herd/graph/timed_contacts.hpp>
#include <herd/mpi/local_graph.hpp>
#include <herd/mpi/partition.hpp>

#include <mpi.h>

#include <cstdint>
#include <string>

namespace herd::mpi {

/// This rank's part of the timed-contact file `path` (see herd::parse_timed_contacts for the
/// format): the contacts of the lines that begin in its byte range, their agents numbered in
/// increasing order of the ids of the whole file, and num_agents that of the whole file (`ids`
/// stays empty: every rank would hold them). Throws CollectiveError on every rank when the file
/// cannot be read or holds no contacts, or when any line is bad, naming the file and the first bad
/// line, as one process reading it names them. Collective over `comm`.
TimedContacts read_timed_contacts(MPI_Comm comm, std::string const& path);

/// A rank's share of a temporal network: its rows of the graph of every pair that ever met (and
/// so its ghosts, which cover every snapshot's), and its owned agents' rows of every snapshot.
template <class MemorySpace, class WeightStorage>
struct TemporalShare {
  LocalGraph<MemorySpace, WeightStorage> local;
  TemporalNetwork<MemorySpace, WeightStorage> network;
  double partition_seconds = 0.0;  ///< what the partitioner took, if one ran
};

/// The windows of `window` time units of the contacts the ranks hold between them (`mine`): from
/// the earliest of all, the windows holding any rank's contacts. Throws CollectiveError on every
/// rank for a window that is not positive. Collective over `comm`.
WindowFrame window_frame(MPI_Comm comm, TimedContacts const& mine, std::int64_t window);

/// This rank's share of the temporal network in the windows of `frame` (window_frame's) of the
/// contacts the ranks hold between them (`mine`: each rank's part, numbered alike, as
/// read_timed_contacts gives them, released once sent). Each contact travels to the owners of its
/// two agents under contiguous blocks, which build their rows alone. With `method` ptscotch,
/// parmetis or metis, the graph of every pair that met is partitioned from those blocks
/// (ptscotch_parts, parmetis_parts, metis_parts: one partition for every snapshot) and its rows and
/// the contacts move on to their parts (migrate_rows). Equal, field by field, to local_snapshots
/// of the whole network and extract_local_graph of the graph of every pair that met under that
/// partition, as one process builds them. Throws CollectiveError on every rank for a partitioner
/// this build lacks. Collective over `comm`.
template <class WeightStorage, class ExecutionSpace>
TemporalShare<typename ExecutionSpace::memory_space, WeightStorage> temporal_share(
    ExecutionSpace const& exec, MPI_Comm comm, TimedContacts mine, std::int64_t window, WindowFrame const& frame,
    AfterLastWindow after_last = AfterLastWindow::loop, SnapshotWeights weights = SnapshotWeights::met,
    PartitionMethod method = PartitionMethod::contiguous);

}  // namespace herd::mpi
