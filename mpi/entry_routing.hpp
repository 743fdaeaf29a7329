#pragma once

// Building a share by rounds: each rank makes a slice of the edges, packs each entry's message by
// the rank owning its row, and one all-to-all per round delivers them. The first pass needs only
// the rows (4 bytes an entry), the second the neighbours too (8 bytes, 16 with weights or layers);
// entries whose row is this rank's own never pass through MPI.

#include "blocks.hpp"

#include "../kernels/graph/edge_entries.hpp"

#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/kokkos_compat.hpp>
#include <herd/graph/build_csr.hpp>
#include <herd/mpi/collective.hpp>
#include <herd/mpi/distributed_graph.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

namespace herd::mpi::Details {

// The first pass's message: the row's place in its owner's block, with the top bit set where the
// neighbour lies outside that block (the row reads a ghost).
using RowMark = std::uint32_t;
inline constexpr RowMark reads_ghost_mark = 0x80000000u;

// The second pass's message where the edges carry neither weights nor layers.
struct Pair {
  agent_index row;  ///< place in the owner's block
  agent_index neighbour;
};

// The second pass's message where they carry either.
struct Entry {
  agent_index row;  ///< place in the owner's block
  agent_index neighbour;
  float weight;
  layer_index layer;
};

// Where each rank's block begins (one more: the agents), at hand in the kernels: a message names
// its row by the place in its owner's block, without two more 64-bit divisions an entry.
template <class MemorySpace>
struct BlockStarts {
  Blocks blocks;
  Kokkos::View<global_id*, MemorySpace> starts;
  // A block's rows in buckets of 2^bucket_shift, at most buckets_per_rank of them: packing groups
  // a rank's messages by bucket, so that its owner places them sweeping its rows once per round
  // rather than at random.
  int bucket_shift = 0;
  int buckets_per_rank = 1;

  explicit BlockStarts(Blocks const& b)
      : blocks(b),
        starts(Kokkos::ViewAllocateWithoutInitializing("herd::distributed_graph::block_starts"), b.parts + 1) {
    auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), starts);
    for (int q = 0; q <= b.parts; ++q) host(q) = b.begin(q);
    Kokkos::deep_copy(starts, host);
    // Buckets of at least 2^12 rows, and at most 2^14 buckets over all ranks: a worker's cursors
    // stay within 128 KiB.
    global_id const largest = b.agents / b.parts + 1;
    int const most = std::max(1, (1 << 14) / b.parts);
    while ((largest >> bucket_shift) >= most || bucket_shift < 12) ++bucket_shift;
    buckets_per_rank = static_cast<int>((largest - 1) >> bucket_shift) + 1;
  }
  KOKKOS_INLINE_FUNCTION int owner(global_id g) const { return blocks.owner(g); }
  // Rank q's bucket of row g, numbered over all ranks.
  KOKKOS_INLINE_FUNCTION int bucket(int q, global_id g) const {
    return q * buckets_per_rank + static_cast<int>((g - starts(q)) >> bucket_shift);
  }
};

// Each pass's message made from an entry whose row rank q owns.
struct MarkRow {
  using type = RowMark;
  template <class Starts>
  KOKKOS_INLINE_FUNCTION RowMark operator()(Starts const& blocks, int q, agent_index row, agent_index neighbour, float,
                                            layer_index) const {
    global_id const first = blocks.starts(q);
    bool const outside = neighbour < first || neighbour >= blocks.starts(q + 1);
    return static_cast<RowMark>(row - first) | (outside ? reads_ghost_mark : RowMark{0});
  }
};

struct MakePair {
  using type = Pair;
  template <class Starts>
  KOKKOS_INLINE_FUNCTION Pair operator()(Starts const& blocks, int q, agent_index row, agent_index neighbour, float,
                                         layer_index) const {
    return Pair{static_cast<agent_index>(row - blocks.starts(q)), neighbour};
  }
};

struct MakeEntry {
  using type = Entry;
  template <class Starts>
  KOKKOS_INLINE_FUNCTION Entry operator()(Starts const& blocks, int q, agent_index row, agent_index neighbour,
                                          float weight, layer_index layer) const {
    return Entry{static_cast<agent_index>(row - blocks.starts(q)), neighbour, weight, layer};
  }
};

// The edges this rank makes, split into rounds that every rank runs alike.
struct Rounds {
  std::size_t first = 0;  ///< this rank's first edge id
  std::size_t count = 0;  ///< this rank's edges
  std::size_t size = 1;   ///< edges per round
  std::size_t rounds = 0;
};

// Rounds for a rank holding edges [first, first + count), where no rank holds more than `most`.
inline Rounds rounds_of(std::size_t first, std::size_t count, std::size_t most, int parts, std::size_t round_edges) {
  Rounds r;
  r.first = first;
  r.count = count;
  auto const p = static_cast<std::size_t>(parts);
  // Buffers of about 64 bytes an edge: 1/64 of a rank's edges costs about a byte per edge held.
  // And at most 2^26 edges in a round over all ranks (2^27 entries, 1.5 GiB), however many of
  // them one rank receives: the rank owning the hubs of a power-law graph receives the most.
  std::size_t const cap = std::max<std::size_t>(std::size_t{1} << 10, (std::size_t{1} << 26) / p);
  r.size = round_edges > 0
               ? round_edges
               : std::min(cap, std::clamp<std::size_t>(most / 64, std::size_t{1} << 16, std::size_t{1} << 22));
  r.rounds = (most + r.size - 1) / r.size;
  return r;
}

// Edges split evenly: rank q makes [q M / P, (q + 1) M / P), as near as integers allow.
inline Rounds even_rounds(std::size_t edges, int parts, int rank, std::size_t round_edges) {
  auto const p = static_cast<std::size_t>(parts);
  auto const q = static_cast<std::size_t>(rank);
  return rounds_of(edges / p * q + std::min(q, edges % p), edges / p + (q < edges % p ? 1 : 0),
                   edges / p + (edges % p ? 1 : 0), parts, round_edges);
}

// Round k's messages on this rank, grouped by the rank that owns their row, and where each
// rank's group begins (one more: the total).
template <class Message, class MemorySpace>
struct Packed {
  Kokkos::View<Message*, MemorySpace> messages;
  std::vector<std::size_t> begin;
};

// What a round packs: the entries of its `count` edges, made into messages by `make`.
template <class Make, class MemorySpace>
struct Packing {
  herd::Details::EdgeEntries<MemorySpace> entries;
  std::size_t count;
  BlockStarts<MemorySpace> blocks;
  Make make;
};

// Packs by atomic cursors, one per rank: what a GPU does well.
template <class ExecutionSpace, class Make>
void pack_by_atomics(ExecutionSpace const& exec, Packing<Make, typename ExecutionSpace::memory_space> const& in,
                     Packed<typename Make::type, typename ExecutionSpace::memory_space>& packed) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  auto const parts = static_cast<int>(packed.begin.size()) - 1;
  Kokkos::View<std::size_t*, memory_space> per_rank("herd::distributed_graph::per_rank", parts + 1);
  Kokkos::parallel_for(
      "herd::distributed_graph::count_sends", policy(exec, 0, in.count), KOKKOS_LAMBDA(std::size_t e) {
        in.entries(e, [&](agent_index row, agent_index, float, layer_index) {
          Kokkos::atomic_add(&per_rank(in.blocks.owner(row)), std::size_t{1});
        });
      });
  auto host_counts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), per_rank);
  for (int q = 0; q < parts; ++q) packed.begin[q + 1] = packed.begin[q] + host_counts(q);
  // The places where each rank's messages begin, as cursors for the fill.
  for (int q = 0; q <= parts; ++q) host_counts(q) = packed.begin[q];
  Kokkos::deep_copy(exec, per_rank, host_counts);
  packed.messages = Kokkos::View<typename Make::type*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::distributed_graph::send"), packed.begin[parts]);
  auto send = packed.messages;
  Kokkos::parallel_for(
      "herd::distributed_graph::pack", policy(exec, 0, in.count), KOKKOS_LAMBDA(std::size_t e) {
        in.entries(e, [&](agent_index row, agent_index neighbour, float weight, layer_index layer) {
          int const q = in.blocks.owner(row);
          send(Kokkos::atomic_fetch_add(&per_rank(q), std::size_t{1})) =
              in.make(in.blocks, q, row, neighbour, weight, layer);
        });
      });
}

// Packs on CPU threads: each worker takes a fixed share of the edges and counts its entries per
// rank in counters of its own, which become its cursors. Every thread bumping the same few
// cursors atomically would make them take turns.
template <class ExecutionSpace, class Make>
void pack_by_workers(ExecutionSpace const& exec, Packing<Make, typename ExecutionSpace::memory_space> const& in,
                     Packed<typename Make::type, typename ExecutionSpace::memory_space>& packed) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace>;
  auto const parts = static_cast<int>(packed.begin.size()) - 1;
  auto const workers =
      static_cast<int>(std::min(static_cast<std::size_t>(compat::concurrency(exec)), in.count / 1024 + 1));
  // A cursor for each bucket of each rank's rows (BlockStarts::bucket). Each worker's cursors on
  // cache lines of their own (8 of 8 bytes), or neighbours' increments would contend for the line.
  int const per_rank = in.blocks.buckets_per_rank;
  std::size_t const keys = static_cast<std::size_t>(parts) * static_cast<std::size_t>(per_rank);
  std::size_t const stride = (keys + 7) / 8 * 8;
  Kokkos::View<std::size_t**, Kokkos::LayoutRight, memory_space> cursors("herd::distributed_graph::cursors", workers,
                                                                         stride);
  Kokkos::parallel_for(
      "herd::distributed_graph::count_sends", policy(exec, 0, workers), KOKKOS_LAMBDA(int w) {
        auto const v = static_cast<std::size_t>(w), all = static_cast<std::size_t>(workers);
        for (std::size_t e = in.count * v / all; e < in.count * (v + 1) / all; ++e)
          in.entries(e, [&](agent_index row, agent_index, float, layer_index) {
            ++cursors(w, in.blocks.bucket(in.blocks.owner(row), row));
          });
      });
  exec.fence();
  // Rank q's messages: its first bucket's from worker 0, then worker 1, ..., then its next bucket's.
  std::size_t at = 0;
  for (int q = 0; q < parts; ++q) {
    packed.begin[q] = at;
    for (auto key = static_cast<std::size_t>(q) * per_rank; key < static_cast<std::size_t>(q + 1) * per_rank; ++key)
      for (int w = 0; w < workers; ++w) {
        std::size_t const n = cursors(w, key);
        cursors(w, key) = at;
        at += n;
      }
  }
  packed.begin[parts] = at;
  packed.messages = Kokkos::View<typename Make::type*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::distributed_graph::send"), at);
  auto send = packed.messages;
  Kokkos::parallel_for(
      "herd::distributed_graph::pack", policy(exec, 0, workers), KOKKOS_LAMBDA(int w) {
        auto const v = static_cast<std::size_t>(w), all = static_cast<std::size_t>(workers);
        for (std::size_t e = in.count * v / all; e < in.count * (v + 1) / all; ++e)
          in.entries(e, [&](agent_index row, agent_index neighbour, float weight, layer_index layer) {
            int const q = in.blocks.owner(row);
            send(cursors(w, in.blocks.bucket(q, row))++) = in.make(in.blocks, q, row, neighbour, weight, layer);
          });
      });
}

// Makes round k's edges on this rank and packs their messages by owner. Throws herd::Error on a
// bad edge.
template <class ExecutionSpace, class Make>
Packed<typename Make::type, typename ExecutionSpace::memory_space> pack_round(
    ExecutionSpace const& exec, EdgeSource<typename ExecutionSpace::memory_space> const& source,
    BuildOptions const& options, BlockStarts<typename ExecutionSpace::memory_space> const& blocks, Rounds const& rounds,
    std::size_t k, Make const& make) {
  std::size_t const begin = std::min(rounds.count, k * rounds.size);
  std::size_t const count = std::min(rounds.count, begin + rounds.size) - begin;
  Packed<typename Make::type, typename ExecutionSpace::memory_space> packed;
  packed.begin.assign(blocks.starts.extent(0), 0);
  if (count == 0) return packed;
  auto const edges = source.slice(rounds.first + begin, count);
  exec.fence();
  bool const weights_as_said = (edges.weights.extent(0) != 0) == source.weighted;
  bool const layers_as_said = (edges.layers.extent(0) != 0) == source.layered;
  herd::require(edges.size() == count && edges.num_agents == source.agents && weights_as_said && layers_as_said,
                "edge source: a slice of " + std::to_string(count) + " edges held " + std::to_string(edges.size()) +
                    " edges of " + std::to_string(edges.num_agents) + " agents" +
                    (weights_as_said ? "" : ", weights unlike the source's `weighted`") +
                    (layers_as_said ? "" : ", layers unlike the source's `layered`"));
  herd::Details::check_edges(exec, edges, rounds.first + begin);
  Packing<Make, typename ExecutionSpace::memory_space> const in{
      {edges, options.drop_self_loops, options.symmetrise}, count, blocks, make};
  if constexpr (herd::Details::runs_on_host_v<ExecutionSpace>)
    pack_by_workers(exec, in, packed);
  else
    pack_by_atomics(exec, in, packed);
  exec.fence();
  return packed;
}

// Makes round k's edges on this rank and hands the messages of this rank's rows to
// use(View of messages): first those it made itself, then those the other ranks sent. Every rank
// calls it for the same k. A bad edge, or a round too large for MPI's int counts, on any rank
// throws CollectiveError on all of them before anything is sent.
template <class ExecutionSpace, class Make, class Use>
void route_round(ExecutionSpace const& exec, MPI_Comm comm,
                 EdgeSource<typename ExecutionSpace::memory_space> const& source, BuildOptions const& options,
                 BlockStarts<typename ExecutionSpace::memory_space> const& blocks, Rounds const& rounds, std::size_t k,
                 Make const& make, Use const& use) {
  using memory_space = typename ExecutionSpace::memory_space;
  using Message = typename Make::type;
  int const parts = static_cast<int>(blocks.starts.extent(0)) - 1;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  constexpr auto most = static_cast<std::size_t>(INT_MAX);
  auto const packed = collectively(comm, [&] {
    auto p = pack_round(exec, source, options, blocks, rounds, k, make);
    herd::require(p.begin[parts] <= most, "build_local_graph: a round sends more than 2^31 entries; lower round_edges");
    return p;
  });
  // Counts and offsets in messages, each an MPI type of its own bytes; none to this rank itself.
  std::vector<int> send_counts(parts), receive_counts(parts), send_displs(parts), receive_displs(parts);
  for (int q = 0; q < parts; ++q) {
    send_counts[q] = q == rank ? 0 : static_cast<int>(packed.begin[q + 1] - packed.begin[q]);
    send_displs[q] = static_cast<int>(packed.begin[q]);
  }
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, comm);
  std::size_t received = 0;
  for (int q = 0; q < parts; ++q) {
    receive_displs[q] = static_cast<int>(std::min(received, most));
    received += static_cast<std::size_t>(receive_counts[q]);
  }
  // MPI reads and writes host memory here: device buffers go through host copies.
  Kokkos::View<Message*, memory_space> receive;
  typename Kokkos::View<Message*, memory_space>::HostMirror host_receive;
  collectively(comm, [&] {
    herd::require(received <= most, "build_local_graph: a round receives more than 2^31 entries; lower round_edges");
    receive = Kokkos::View<Message*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::distributed_graph::receive"), received);
    host_receive = Kokkos::create_mirror_view(Kokkos::HostSpace(), receive);
  });
  auto host_send = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), packed.messages);
  MPI_Datatype type;
  MPI_Type_contiguous(static_cast<int>(sizeof(Message)), MPI_BYTE, &type);
  MPI_Type_commit(&type);
  // This rank's own messages are used while the others travel.
  MPI_Request request;
  MPI_Ialltoallv(host_send.data(), send_counts.data(), send_displs.data(), type, host_receive.data(),
                 receive_counts.data(), receive_displs.data(), type, comm, &request);
  use(Kokkos::subview(packed.messages, Kokkos::make_pair(packed.begin[rank], packed.begin[rank + 1])));
  exec.fence();
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Type_free(&type);
  Kokkos::deep_copy(exec, receive, host_receive);
  use(receive);
  exec.fence();
}

}  // namespace herd::mpi::Details
