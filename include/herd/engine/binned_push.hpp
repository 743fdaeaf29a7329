#pragma once

// Pushing contributions through bins (propagation blocking), on CPUs.
//
// Pushing a spreading agent's contribution straight into each reader's sum costs one cache miss
// per push once the sums outgrow the caches (8 bytes an agent: 80 MB at 10^7 agents), and atomic
// adds on x86 are full barriers, so those misses do not overlap. Binned, the push runs in three
// passes over the sources of a slice: count the pushes per block of readers, write each push
// (reader, value) into its block's bin (sequential writes), then add each block's bin into the
// sums, one block per thread: plain adds into a block of sums that stays in the core's cache.
// The sums are integers, so their totals do not depend on the order the pushes land in.

#include <herd/core/device_pass.hpp>
#include <herd/core/types.hpp>
#include <herd/engine/activity.hpp>
#include <herd/engine/model_traits.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

namespace herd {

/// Whether active-set stepping pushes contributions through bins (CPUs only): automatically from
/// binned_push_min_agents stepped agents, always, or never (atomic adds into the sums).
enum class BinnedPush { automatic, on, off };

/// From how many stepped agents BinnedPush::automatic bins: when the pushed sums (8 bytes an
/// agent, 32 MB here) outgrow a CPU's last-level cache. Below, at 10^6 agents, binning gained on
/// random graphs and lost on the layered population, whose pushes stay near in memory. Measured in
/// docs/benchmarks.md "Pushing through bins".
inline constexpr agent_index binned_push_min_agents = agent_index{1} << 22;
/// A step bins its pushes when it will make at least this many per stepped agent (estimated);
/// fewer go atomic. Measured in the same section.
inline constexpr double binned_push_min_share = 0.25;
/// Whether `choice` bins the pushes into `stepped` agents.
inline bool bins_pushes(BinnedPush choice, agent_index stepped) {
  return choice == BinnedPush::on || (choice == BinnedPush::automatic && stepped >= binned_push_min_agents);
}

namespace Details {

// Whether an execution space's memory is the host's (where the bins are used).
template <class ExecutionSpace>
inline constexpr bool is_host_space_v =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecutionSpace::memory_space>::accessible;

// Readers are binned by blocks of 2^15 agents: a block's sums (256 KB), marks and states fit a
// core's L2 cache.
inline constexpr int push_block_shift = 15;

// Sources of one slice are split in this many chunks per thread, each a bin row of its own.
inline constexpr int push_chunks_per_thread = 8;

// The bins' storage, allocated once: `capacity` pushes (reader, and value unless every push adds
// the same: see pushes_values), and per chunk and block of readers the pushes counted, then where
// the next one goes.
template <class MemorySpace>
struct PushBins {
  Kokkos::View<agent_index*, MemorySpace> readers;
  Kokkos::View<std::uint64_t*, MemorySpace> values;
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, MemorySpace> cursors;  ///< chunk x block
  Kokkos::View<std::int64_t*, MemorySpace> block_starts;                   ///< blocks + 1

  int chunks() const { return static_cast<int>(cursors.extent(0)); }
  agent_index blocks() const { return static_cast<agent_index>(cursors.extent(1)); }
  std::int64_t capacity() const { return static_cast<std::int64_t>(readers.extent(0)); }

  bool allocated() const { return readers.extent(0) > 0; }
  bool holds_values() const { return values.extent(0) > 0; }

  /// Room for `capacity` pushes into `stepped` readers from `threads` threads, with their values
  /// or not.
  PushBins(agent_index stepped, std::int64_t capacity, int threads, bool with_values = true)
      : readers(Kokkos::ViewAllocateWithoutInitializing("herd::active::bin_readers"), capacity),
        values(Kokkos::ViewAllocateWithoutInitializing("herd::active::bin_values"), with_values ? capacity : 0),
        cursors("herd::active::bin_cursors", static_cast<std::size_t>(threads * push_chunks_per_thread),
                static_cast<std::size_t>((stepped >> push_block_shift) + 1)),
        block_starts("herd::active::bin_starts", cursors.extent(1) + 1) {}
  PushBins() = default;
};

// Whether pushes of `Model` along `push_graph` carry values: not where every spreader contributes
// the same (a model that counts its spreaders, on an unweighted graph), whose pushes are readers
// alone, a third of the bytes written to the bins and read back.
template <class Model, class Graph>
bool pushes_values(Graph const& push_graph) {
  return !counts_spreaders_v<Model> || push_graph.weighted();
}

// The length of the longest row of `graph`. Waits for the device.
template <class ExecutionSpace, class Graph>
edge_offset longest_row(ExecutionSpace const& exec, Graph const& graph) {
  auto const offsets = graph.row_offsets;
  edge_offset longest = 0;
  Kokkos::parallel_reduce(
      "herd::active::longest_row", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, graph.num_agents()),
      KOKKOS_LAMBDA(agent_index i, edge_offset & m) {
        edge_offset const length = offsets(i + 1) - offsets(i);
        if (length > m) m = length;
      },
      Kokkos::Max<edge_offset>(longest));
  return longest;
}

// The sources [first, first + count) of `candidate` split in `chunks` chunks: chunk c's first.
KOKKOS_INLINE_FUNCTION agent_index chunk_start(agent_index first, agent_index count, int chunks, int c) {
  return first + static_cast<agent_index>(static_cast<std::int64_t>(count) * c / chunks);
}

// Walks the sources candidate(begin .. last): calls source(i, activity) for each, then
// push(i, e, reader) for each entry of the push rows of those that spread. First asks for the push
// row of the source 16 places ahead if it spreads, as mark_listed does.
template <class Model, class Graph, class Candidate, class Source, class Push>
KOKKOS_INLINE_FUNCTION void for_each_push(Model const& model, Graph const& push_graph, Candidate const& candidate,
                                          agent_index begin, agent_index last, Source const& source, Push const& push) {
  for (agent_index k = begin; k < last; ++k) {
#if !HERD_DEVICE_PASS && (defined(__GNUC__) || defined(__clang__))
    if (k + 16 < last) {
      agent_index const coming = candidate(k + 16);
      if (model.activity(coming) & activity::spreads)
        __builtin_prefetch(push_graph.neighbours.data() + push_graph.row_offsets(coming));
    }
#endif
    agent_index const i = candidate(k);
    auto const a = model.activity(i);
    source(i, a);
    if (!(a & activity::spreads)) continue;
    // The row's end in a local: the callers store 64-bit integers, which the compiler takes for
    // possible aliases of the offsets.
    edge_offset const end = push_graph.row_offsets(i + 1);
    for (edge_offset e = push_graph.row_offsets(i); e < end; ++e) push(i, e, push_graph.neighbours(e));
  }
}

// Pushes from candidate(0 .. count) as MarkActive does (marks the sources, and the
// receiving readers of the spreading ones, adding their contributions to the readers' sums), in
// slices whose pushes fit the bins. Host memory only (is_host_space_v): the host reads the counts
// between passes.
template <class ExecutionSpace, class Mark, class Candidate>
void push_binned(ExecutionSpace const& exec, Mark const& mark,
                 PushBins<typename ExecutionSpace::memory_space> const& bins, Candidate const& candidate,
                 agent_index count) {
  using Dynamic = Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  auto const model = mark.model;
  auto const push = mark.push;
  auto const sums = mark.sums;
  auto const stepped = mark.stepped;
  auto* const marks = reinterpret_cast<std::uint8_t*>(mark.words.data());
  bool const counts = mark.counts;
  auto const cursors = bins.cursors;
  auto const readers = bins.readers;
  auto const values = bins.values;
  auto const blocks = bins.blocks();
  // Pushes that all add `unit` are binned without their values.
  bool const same = !pushes_values<decltype(mark.model)>(push);
  std::uint64_t unit = 0;
  if constexpr (counts_spreaders_v<decltype(mark.model)>)
    unit = static_cast<std::uint64_t>(model.spreader_contribution());
  double const mean_readers =
      push.num_agents() > 0 ? static_cast<double>(push.num_edges()) / static_cast<double>(push.num_agents()) : 1.0;
  // A first slice that fills about half the bins at the mean row length; halved when it overflows.
  agent_index slice =
      static_cast<agent_index>(std::max(1.0, static_cast<double>(bins.capacity()) / 2 / std::max(1.0, mean_readers)));
  for (agent_index first = 0; first < count;) {
    agent_index const n = std::min(slice, count - first);
    int const chunks = static_cast<int>(std::min<agent_index>(bins.chunks(), n));
    // 1. Count the pushes per chunk and block of readers.
    Kokkos::parallel_for(
        "herd::active::bin_count", Dynamic(exec, 0, chunks), KOKKOS_LAMBDA(int c) {
          std::int64_t* const row = &cursors(c, 0);
          for (agent_index b = 0; b < blocks; ++b) row[b] = 0;
          for_each_push(
              model, push, candidate, chunk_start(first, n, chunks, c), chunk_start(first, n, chunks, c + 1),
              [](agent_index, std::uint8_t) {},
              [=](agent_index, edge_offset, agent_index r) {
                if (r < stepped) ++row[r >> push_block_shift];
              });
        });
    exec.fence();
    // 2. Bins in block order, each block's chunks in turn: a block's pushes are contiguous.
    std::int64_t total = 0;
    for (agent_index b = 0; b < blocks; ++b) {
      bins.block_starts(b) = total;
      for (int c = 0; c < chunks; ++c) {
        std::int64_t const pushes = cursors(c, b);
        cursors(c, b) = total;
        total += pushes;
      }
    }
    bins.block_starts(blocks) = total;
    if (total > bins.capacity() && n > 1) {
      slice = n / 2;  // nothing marked yet: the fill pass marks
      continue;
    }
    // 3. Write each push into its bin, and mark the sources: here, where each slice passes once
    // (a slice that overflows counts again), so that a counting mark adds a source once. No other
    // thread adds to the marks meanwhile, and each source is in one chunk.
    Kokkos::parallel_for(
        "herd::active::bin_fill", Dynamic(exec, 0, chunks), KOKKOS_LAMBDA(int c) {
          std::int64_t* const cursor = &cursors(c, 0);
          agent_index* const reader = readers.data();
          std::uint64_t* const value = values.data();
          for_each_push(
              model, push, candidate, chunk_start(first, n, chunks, c), chunk_start(first, n, chunks, c + 1),
              [=](agent_index i, std::uint8_t a) {
                if (i < stepped && (a & activity::source)) marks[i] = counts ? marks[i] + 1 : 1;
              },
              [=](agent_index i, edge_offset e, agent_index r) {
                if (r >= stepped) return;
                std::int64_t const at = cursor[r >> push_block_shift]++;
                reader[at] = r;
                if (!same) value[at] = static_cast<std::uint64_t>(model.contribution(i, push.weight(e)));
              });
        });
    // 4. Add each block's bin into the sums of its receiving readers: one thread a block.
    auto const starts = bins.block_starts;
    Kokkos::parallel_for(
        "herd::active::bin_add", Dynamic(exec, 0, blocks), KOKKOS_LAMBDA(agent_index b) {
#if !HERD_DEVICE_PASS && (defined(__GNUC__) || defined(__clang__))
          // First ask for the block's sums and marks, in order, when it has more pushes than sums'
          // cache lines: the pushes come in at random, and each of their first touches missed
          // (measured: the pass took twice as long).
          agent_index const lo = b << push_block_shift;
          agent_index const hi =
              stepped - lo > (agent_index{1} << push_block_shift) ? lo + (agent_index{1} << push_block_shift) : stepped;
          if (starts(b + 1) - starts(b) > (hi - lo) / 8) {
            if (!counts)
              for (agent_index r = lo; r < hi; r += 8) __builtin_prefetch(&sums(r), 1);
            for (agent_index r = lo; r < hi; r += 64) __builtin_prefetch(marks + r, 1);
          }
#else
          (void)stepped;  // captured in both passes: see device_pass.hpp
#endif
          // Raw pointers in locals: the byte stores to the marks may alias anything, and would
          // have the Views' pointers loaded again on every push.
          agent_index const* const reader = readers.data();
          std::uint64_t const* const value = values.data();
          std::uint64_t* const sum = sums.data();
          std::int64_t const end = starts(b + 1);
          // Without a branch: near an epidemic's peak about half the readers receive, at random.
          auto const add = [&](std::int64_t at, std::uint64_t v) {
            agent_index const r = reader[at];
            auto const receives = static_cast<std::uint8_t>((model.activity(r) & activity::receives) != 0);
            marks[r] |= receives;
            sum[r] += v & (std::uint64_t{0} - receives);
          };
          if (counts) {
            for (std::int64_t at = starts(b); at < end; ++at) {
              agent_index const r = reader[at];
              marks[r] += static_cast<std::uint8_t>((model.activity(r) & activity::receives) != 0);
            }
          } else if (same) {
            for (std::int64_t at = starts(b); at < end; ++at) add(at, unit);
          } else {
            for (std::int64_t at = starts(b); at < end; ++at) add(at, value[at]);
          }
        });
    exec.fence();
    first += n;
    if (2 * total < bins.capacity()) slice = 2 * n;
  }
}

}  // namespace Details
}  // namespace herd
