#pragma once

// Pushing contributions through bins (propagation blocking), on CPUs.
//
// Pushing a spreading agent's contribution straight into each reader's sum costs one cache miss
// per push once the sums outgrow the caches (8 bytes an agent: 80 MB at 10^7 agents), and atomic
// adds on x86 are full barriers, so those misses do not overlap. Binned, the push runs in two
// passes: each chunk of sources writes each push (reader, value) into its bin for the reader's
// block, pages of up to 1 KB chained per chunk and block (sequential writes, and no pass
// to count the pushes first: it read every source row a second time), then each block's bins are
// added into its sums, one block per thread: plain adds into a block of sums that stays in the
// core's cache. When the pages run out, the chunks stop where they are, the pages written are
// added, and the chunks go on from there. The sums are integers, so their totals do not depend on
// the order the pushes land in.

#include <herd/core/device_pass.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/types.hpp>
#include <herd/detail/tuning.hpp>
#include <herd/engine/activity.hpp>
#include <herd/engine/model_traits.hpp>
#include <herd/engine/schedule.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace herd {

/// Whether `choice` bins the pushes into `stepped` agents, `counted` in the marks or not.
inline bool bins_pushes(BinnedPush choice, agent_index stepped, bool counted = false) {
  using Tuning = Details::Tuning;
  return choice == BinnedPush::on ||
         (choice == BinnedPush::automatic &&
          stepped >= (counted ? Tuning::binned_count_min_agents : Tuning::binned_push_min_agents));
}

namespace Details {

// Readers are binned by blocks of 2^15 agents: a block's sums (256 KB), marks and states fit a
// core's L2 cache.
inline constexpr int push_block_shift = 15;

// Sources are split in this many chunks per thread, each with bins of its own.
inline constexpr int push_chunks_per_thread = 8;

// Entries in a page of the bins: at most 1 KB of readers, and at least a cache line's worth. A
// page is made smaller where the pages that the chunks leave partly filled, one per chunk and block
// of readers, would take more than a quarter of the bins (many threads): 4,896 pages of 256
// entries out of 39,063 at 10^7 agents on 2 threads.
inline constexpr std::int64_t push_page_max = 256;
inline constexpr std::int64_t push_page_min = 16;

// Pages a chunk takes at a time: one atomic add for this many pages, not one a page.
inline constexpr std::int64_t push_pages_taken_together = 16;

// A chunk's bin for one block of readers: its first and last page (-1 before the first) and how
// many pages. The entry its next push goes to is kept apart (PushBins::ends), in a row of 8 bytes
// a block: every push reads and writes it, and the chains are touched once a page.
struct BinChain {
  std::int32_t first = -1;
  std::int32_t last = -1;
  std::int32_t pages = 0;

  /// The pushes in the chain of pages of `page` entries, whose next push goes to entry `end`.
  KOKKOS_INLINE_FUNCTION std::int64_t pushes(std::int64_t end, std::int64_t page) const {
    return last < 0 ? 0 : (pages - 1) * page + (end - last * page);
  }
};

// Where a chunk's pushes go on: the source `next` of its candidates, from `edge` of its push row
// when `within_row` (the source was marked and its row pushed up to there).
struct ChunkProgress {
  agent_index next = 0;
  bool within_row = false;
  edge_offset edge = 0;
};

// The bins' storage, allocated once: `capacity` pushes (reader, and value unless every push adds
// the same: see pushes_values) in pages, the chain of pages of each chunk and block of readers,
// and how far each chunk has pushed.
template <class MemorySpace>
struct PushBins {
  Kokkos::View<agent_index*, MemorySpace> readers;
  Kokkos::View<std::uint64_t*, MemorySpace> values;
  Kokkos::View<std::int32_t*, MemorySpace> next_page;                   ///< per page: the chain's next
  Kokkos::View<BinChain**, Kokkos::LayoutRight, MemorySpace> chains;    ///< chunk x block
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, MemorySpace> ends;  ///< chunk x block: next entry
  Kokkos::View<ChunkProgress*, MemorySpace> progress;                   ///< per chunk
  Kokkos::View<std::int64_t, MemorySpace> pages_taken;
  std::int64_t page = push_page_max;  ///< entries in a page, a power of 2

  int chunks() const { return static_cast<int>(chains.extent(0)); }
  agent_index blocks() const { return static_cast<agent_index>(chains.extent(1)); }
  std::int64_t pages() const { return static_cast<std::int64_t>(next_page.extent(0)); }

  bool allocated() const { return readers.extent(0) > 0; }
  bool holds_values() const { return values.extent(0) > 0; }

  /// Room for at least `capacity` pushes (whole pages, fewer than 2^31 of them) into `stepped`
  /// readers from `threads` threads, with their values or not.
  PushBins(agent_index stepped, std::int64_t capacity, int threads, bool with_values = true)
      : chains("herd::active::bin_chains", static_cast<std::size_t>(threads * push_chunks_per_thread),
               static_cast<std::size_t>((stepped >> push_block_shift) + 1)),
        ends("herd::active::bin_ends", chains.extent(0), chains.extent(1)),
        progress("herd::active::bin_progress", chains.extent(0)),
        pages_taken("herd::active::bin_pages_taken") {
    capacity = std::max<std::int64_t>(capacity, 1);
    auto const open = static_cast<std::int64_t>(chains.extent(0) * chains.extent(1));
    while (page > push_page_min && 4 * open * page > capacity) page /= 2;
    std::int64_t const page_total =
        std::min<std::int64_t>((capacity + page - 1) / page, std::numeric_limits<std::int32_t>::max());
    next_page = Kokkos::View<std::int32_t*, MemorySpace>(
        Kokkos::ViewAllocateWithoutInitializing("herd::active::bin_pages"), static_cast<std::size_t>(page_total));
    auto const entries = static_cast<std::size_t>(page_total * page);
    readers = Kokkos::View<agent_index*, MemorySpace>(
        Kokkos::ViewAllocateWithoutInitializing("herd::active::bin_readers"), entries);
    values = Kokkos::View<std::uint64_t*, MemorySpace>(
        Kokkos::ViewAllocateWithoutInitializing("herd::active::bin_values"), with_values ? entries : 0);
  }
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

// The candidates [0, count) split in `chunks` chunks: chunk c's first.
KOKKOS_INLINE_FUNCTION agent_index chunk_start(agent_index count, int chunks, int c) {
  return static_cast<agent_index>(static_cast<std::int64_t>(count) * c / chunks);
}

// Pushes from candidate(0 .. count) as MarkActive does (marks the sources, and the
// receiving readers of the spreading ones, adding their contributions to the readers' sums), in
// rounds of as many pushes as the bins hold. Host memory only (runs_on_host_v): the host reads
// the chunks' progress between rounds.
template <class ExecutionSpace, class Mark, class Candidate>
void push_binned(ExecutionSpace const& exec, Mark const& mark,
                 PushBins<typename ExecutionSpace::memory_space> const& bins, Candidate const& candidate,
                 agent_index count) {
  if (count <= 0) return;
  using Dynamic = Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  auto const model = mark.model;
  auto const push = mark.push;
  auto const sums = mark.sums;
  auto const stepped = mark.stepped;
  auto* const marks = reinterpret_cast<std::uint8_t*>(mark.words.data());
  bool const counts = mark.counts;
  auto const chains = bins.chains;
  auto const ends = bins.ends;
  auto const next_page = bins.next_page;
  auto const progress = bins.progress;
  auto const taken = bins.pages_taken;
  auto const readers = bins.readers;
  auto const values = bins.values;
  auto const blocks = bins.blocks();
  auto const pages = bins.pages();
  auto const page_entries = bins.page;
  // Pushes that all add `unit` are binned without their values.
  bool const same = !pushes_values<decltype(mark.model)>(push);
  std::uint64_t unit = 0;
  if constexpr (counts_spreaders_v<decltype(mark.model)>)
    unit = static_cast<std::uint64_t>(model.spreader_contribution());
  int const chunks = static_cast<int>(std::min<agent_index>(bins.chunks(), count));
  for (int c = 0; c < chunks; ++c) progress(c) = ChunkProgress{chunk_start(count, chunks, c), false, 0};
  for (bool done = false; !done;) {
    taken() = 0;
    // 1. Each chunk writes its pushes into its bins, from where it stopped, until it is through
    // or no page is left. A source marks itself when first met, so that a counting mark adds it
    // once; no other thread adds to the marks meanwhile, and each source is in one chunk.
    Kokkos::parallel_for(
        "herd::active::bin_fill", Dynamic(exec, 0, chunks), KOKKOS_LAMBDA(int c) {
          BinChain* const row = &chains(c, 0);
          std::int64_t* const row_ends = &ends(c, 0);
          for (agent_index b = 0; b < blocks; ++b) {
            row[b] = BinChain{};
            row_ends[b] = 0;
          }
          ChunkProgress at = progress(c);
          agent_index const last = chunk_start(count, chunks, c + 1);
          // Raw pointers in locals: the stores into the bins may alias anything (the chains' ends
          // among them), and would have the Views' pointers loaded again on every push.
          agent_index* const reader = readers.data();
          std::uint64_t* const value = values.data();
          std::int32_t* const next = next_page.data();
          // The pages this chunk took and has not used yet: [spare, spare_end).
          std::int64_t spare = 0, spare_end = 0;
          for (; at.next < last; ++at.next, at.within_row = false) {
#if !HERD_DEVICE_PASS && (defined(__GNUC__) || defined(__clang__))
            // The push row of the source 16 places ahead, if it spreads, as mark_listed asks.
            if (at.next + 16 < last) {
              agent_index const coming = candidate(at.next + 16);
              if (model.activity(coming) & activity::spreads)
                __builtin_prefetch(push.neighbours.data() + push.row_offsets(coming));
            }
#endif
            agent_index const i = candidate(at.next);
            auto const a = model.activity(i);
            if (!at.within_row && i < stepped && (a & activity::source)) marks[i] = counts ? marks[i] + 1 : 1;
            if (!(a & activity::spreads)) continue;
            // The row's end in a local, for the same reason as the pointers.
            edge_offset const end = push.row_offsets(i + 1);
            for (edge_offset e = at.within_row ? at.edge : push.row_offsets(i); e < end; ++e) {
              agent_index const r = push.neighbours(e);
              if (r >= stepped) continue;
              agent_index const block = r >> push_block_shift;
              std::int64_t slot = row_ends[block];
              if ((slot & (page_entries - 1)) == 0) {  // the last page is full, or there is none yet
                if (spare == spare_end) {
                  spare = Kokkos::atomic_fetch_add(taken.data(), push_pages_taken_together);
                  spare_end = spare + push_pages_taken_together < pages ? spare + push_pages_taken_together : pages;
                  if (spare >= pages) {
                    progress(c) = ChunkProgress{at.next, true, e};
                    return;
                  }
                }
                std::int64_t const page = spare++;
                next[page] = -1;
                BinChain& chain = row[block];
                if (chain.last < 0)
                  chain.first = static_cast<std::int32_t>(page);
                else
                  next[chain.last] = static_cast<std::int32_t>(page);
                chain.last = static_cast<std::int32_t>(page);
                ++chain.pages;
                slot = page * page_entries;
              }
              row_ends[block] = slot + 1;
              reader[slot] = r;
              if (!same) value[slot] = static_cast<std::uint64_t>(model.contribution(i, push.weight(e)));
            }
          }
          progress(c) = at;
        });
    // 2. Add each block's bins into the sums of its receiving readers: one thread a block.
    Kokkos::parallel_for(
        "herd::active::bin_add", Dynamic(exec, 0, blocks), KOKKOS_LAMBDA(agent_index b) {
#if !HERD_DEVICE_PASS && (defined(__GNUC__) || defined(__clang__))
          // First ask for the block's sums and marks, in order, when it has more pushes than sums'
          // cache lines: the pushes come in at random, and each of their first touches would miss.
          agent_index const lo = b << push_block_shift;
          agent_index const hi =
              stepped - lo > (agent_index{1} << push_block_shift) ? lo + (agent_index{1} << push_block_shift) : stepped;
          std::int64_t pushes = 0;
          for (int c = 0; c < chunks; ++c) pushes += chains(c, b).pushes(ends(c, b), page_entries);
          if (pushes > (hi - lo) / 8) {
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
          // Without a branch: near an epidemic's peak about half the readers receive, at random.
          auto const add = [&](std::int64_t at, std::uint64_t v) {
            agent_index const r = reader[at];
            auto const receives = static_cast<std::uint8_t>((model.activity(r) & activity::receives) != 0);
            marks[r] |= receives;
            sum[r] += v & (std::uint64_t{0} - receives);
          };
          for (int c = 0; c < chunks; ++c) {
            BinChain const chain = chains(c, b);
            for (std::int32_t page = chain.first; page >= 0; page = next_page(page)) {
              std::int64_t const from = page * page_entries;
              std::int64_t const to = page == chain.last ? ends(c, b) : from + page_entries;
#if !HERD_DEVICE_PASS && (defined(__GNUC__) || defined(__clang__))
              // The next page's start, while this one is added: pages lie anywhere in the bins.
              if (page != chain.last) {
                agent_index const* const coming = reader + static_cast<std::int64_t>(next_page(page)) * page_entries;
                for (std::int64_t line = 0; line < page_entries && line < 64; line += 16)
                  __builtin_prefetch(coming + line);
              }
#endif
              if (counts) {
                for (std::int64_t at = from; at < to; ++at) {
                  agent_index const r = reader[at];
                  marks[r] += static_cast<std::uint8_t>((model.activity(r) & activity::receives) != 0);
                }
              } else if (same) {
                for (std::int64_t at = from; at < to; ++at) add(at, unit);
              } else {
                for (std::int64_t at = from; at < to; ++at) add(at, value[at]);
              }
            }
          }
        });
    exec.fence();
    done = true;
    for (int c = 0; c < chunks; ++c) done = done && progress(c).next == chunk_start(count, chunks, c + 1);
  }
}

}  // namespace Details
}  // namespace herd
