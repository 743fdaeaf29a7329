#pragma once

// Ensemble members that share a graph, counted in one pass over it.
//
// A member of a model that counts its spreaders (herd::counts_spreaders_v: SIR, SEIR) on an
// unweighted graph needs, per agent, only how many of its neighbours spread. Up to 32 members'
// "spreads" bits sit side by side in one word per agent, so one pass over the rows reads each
// neighbour index and each neighbour's word once for all of them, and adds the 32 bits into byte
// lanes: a sparse matrix times 32 bit-vectors, in place of 32 passes. Each member's step then reads
// its counts instead of its rows (Simulation::count_spreaders_for_next_phase): the same integer
// sums, hence the same bits as the member run on its own.

#include <herd/core/byte_order.hpp>
#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/types.hpp>
#include <herd/engine/activity.hpp>
#include <herd/engine/activity_lanes.hpp>
#include <herd/engine/model_traits.hpp>
#include <herd/graph/csr_graph.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <string>

namespace herd {

namespace Details {

// The eight bits of `byte` (0..255), one per byte lane: lane k holds bit k. Byte k of the product
// holds bit k in its place k; adding 128 - 2^k carries it to the lane's top bit, without carrying
// out of the lane.
KOKKOS_INLINE_FUNCTION std::uint64_t bits_to_lanes(std::uint64_t byte) {
  std::uint64_t const in_place = (byte * 0x0101010101010101ull) & 0x8040201008040201ull;
  return ((in_place + 0x00406070787C7E7Full) >> 7) & 0x0101010101010101ull;
}

// Transposes a 32 x 32 matrix of bits in place, row k being rows[k] with column c its bit 31 - c
// (Hacker's Delight, 7-3): five rounds of swaps of ever smaller blocks.
KOKKOS_INLINE_FUNCTION void transpose_bits(std::uint32_t (&rows)[32]) {
  std::uint32_t mask = 0x0000FFFFu;
  for (int j = 16; j != 0; j >>= 1, mask ^= mask << j)
    for (int k = 0; k < 32; k = (k + j + 1) & ~j) {
      std::uint32_t const t = (rows[k] ^ (rows[k + j] >> j)) & mask;
      rows[k] ^= t;
      rows[k + j] ^= t << j;
    }
}

// bits_to_lanes of every byte, looked up on CPUs: one load in place of five dependent operations.
struct LaneTable {
  std::uint64_t lanes[256];
  constexpr LaneTable() : lanes() {
    for (std::uint64_t byte = 0; byte < 256; ++byte)
      for (int k = 0; k < 8; ++k) lanes[byte] |= ((byte >> k) & 1u) << (8 * k);
  }
};
inline constexpr LaneTable lane_table{};

// Transposes an 8 x 8 matrix of bytes in place, row k being rows[k] with column c its byte c
// (bits 8c to 8c + 7): swaps of 4 x 4, then 2 x 2, then single bytes.
inline void transpose_bytes(std::uint64_t (&rows)[8]) {
  auto const swap = [&](int k, int j, int shift, std::uint64_t mask) {
    std::uint64_t const t = ((rows[k] >> shift) ^ rows[j]) & mask;
    rows[k] ^= t << shift;
    rows[j] ^= t;
  };
  for (int k = 0; k < 4; ++k) swap(k, k + 4, 32, 0x00000000FFFFFFFFull);
  for (int k : {0, 1, 4, 5}) swap(k, k + 2, 16, 0x0000FFFF0000FFFFull);
  for (int k = 0; k < 8; k += 2) swap(k, k + 1, 8, 0x00FF00FF00FF00FFull);
}

}  // namespace Details

/// Per member and owned agent, the agent's spreading neighbours plus one where the agent itself is
/// a source (activity::source): what Simulation::count_spreaders_for_next_phase takes, for up to
/// max_members members of one model on one graph, counted in one pass over the graph. Each step:
/// mark() every member's state, then count(), then hand each member its counts().
template <class ExecutionSpace = Kokkos::DefaultExecutionSpace, class WeightStorage = float>
class SharedSpreaderCounts {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using graph_type = CsrGraph<memory_space, WeightStorage>;
  using counts_type = Kokkos::View<std::uint8_t const*, memory_space, Kokkos::MemoryUnmanaged>;

  /// Members side by side in one word per agent.
  static constexpr int max_members = 32;
  /// The largest degree whose count, with the agent's own bit, fits the byte a count takes.
  static constexpr agent_index max_degree = 254;

  /// Whether members of `Model` can share the pass over a graph of `weighted` edges whose largest
  /// degree is `largest_degree`: the model counts its spreaders, every edge weighs 1, and every
  /// count fits a byte.
  template <class Model>
  static bool applies(bool weighted, agent_index largest_degree) {
    return counts_spreaders_v<Model> && !weighted && largest_degree <= max_degree;
  }

  SharedSpreaderCounts() = default;
  /// For `members` (1 to max_members) members on the first `owned` rows of `graph`.
  SharedSpreaderCounts(ExecutionSpace const& exec, graph_type graph, agent_index owned, int members)
      : exec_(exec), graph_(std::move(graph)), owned_(owned), members_(members) {
    require(members >= 1 && members <= max_members,
            "SharedSpreaderCounts: 1 to " + std::to_string(max_members) + " members, got " + std::to_string(members));
    require(!graph_.weighted(), "SharedSpreaderCounts: the graph must be unweighted");
    auto const words = static_cast<std::size_t>((owned + word_bits - 1) / word_bits);
    spreads_ = Words("herd::ensemble::spreads", static_cast<std::size_t>(max_members), words);
    sources_ = Words("herd::ensemble::sources", static_cast<std::size_t>(max_members), words);
    masks_ = Kokkos::View<std::uint32_t*, memory_space>("herd::ensemble::masks", static_cast<std::size_t>(owned));
    counts_ = Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, memory_space>(
        "herd::ensemble::counts", static_cast<std::size_t>(members), static_cast<std::size_t>(owned));
  }

  int members() const { return members_; }

  /// Records which agents spread, and which are sources, in member `member`'s current state.
  /// Does not wait.
  template <class Model>
  void mark(int member, Model const& model) const {
    static_assert(counts_spreaders_v<Model>, "SharedSpreaderCounts: the model must count its spreaders");
    require(member >= 0 && member < members_, "SharedSpreaderCounts::mark: no member " + std::to_string(member));
    auto const spreads = spreads_;
    auto const sources = sources_;
    agent_index const owned = owned_;
    auto const m = static_cast<std::size_t>(member);
    Kokkos::parallel_for(
        "herd::ensemble::mark",
        Kokkos::RangePolicy<ExecutionSpace>(exec_, 0, static_cast<agent_index>(spreads.extent(1))),
        KOKKOS_LAMBDA(agent_index w) {
          agent_index const base = w * word_bits;
          agent_index const count = owned - base < word_bits ? owned - base : word_bits;
          std::uint32_t spreading = 0, source = 0;
          // Eight agents' activities a word, their flags then gathered by word operations: a
          // third of the operations of testing and shifting each agent's flags in turn.
          for (agent_index first = 0; first < count; first += 8) {
            std::uint64_t const lanes =
                Details::activities(model, base + first, count - first < 8 ? count - first : agent_index{8});
            spreading |= Details::lanes_with(lanes, activity::spreads) << first;
            source |= Details::lanes_with(lanes, activity::source) << first;
          }
          spreads(m, w) = spreading;
          sources(m, w) = source;
        });
  }

  /// Counts every member's spreading neighbours, once every member is marked. Does not wait.
  void count() const {
    auto const spreads = spreads_;
    auto const masks = masks_;
    agent_index const owned = owned_;
    int const members = members_;
    // Turns member-major words into one word per agent, bit m for member m: a 32 x 32 transpose
    // of bits per 32 agents.
    Kokkos::parallel_for(
        "herd::ensemble::masks",
        Kokkos::RangePolicy<ExecutionSpace>(exec_, 0, static_cast<agent_index>(spreads.extent(1))),
        KOKKOS_LAMBDA(agent_index w) {
          std::uint32_t rows[word_bits];
          for (int m = 0; m < word_bits; ++m)
            rows[word_bits - 1 - m] = m < members ? spreads(static_cast<std::size_t>(m), w) : 0u;
          Details::transpose_bits(rows);
          agent_index const base = w * word_bits;
          agent_index const count = owned - base < word_bits ? owned - base : word_bits;
          for (agent_index b = 0; b < count; ++b) masks(base + b) = rows[word_bits - 1 - b];
        });
    switch ((members + 7) / 8) {
      case 1:
        count_groups<1>();
        break;
      case 2:
        count_groups<2>();
        break;
      case 3:
        count_groups<3>();
        break;
      default:
        count_groups<4>();
        break;
    }
  }

  // count()'s pass over the rows, for `Groups` groups of eight members: on a CPU by blocks of
  // agents, on a GPU an agent a thread.
  template <int Groups>
  void count_groups() const {
    if constexpr (Details::runs_on_host_v<ExecutionSpace>)
      count_blocks<Groups>();
    else
      count_rows<Groups>();
  }

  /// count()'s pass over the rows on a GPU, for `Groups` groups of eight members (public for CUDA's
  /// device lambdas): per agent, `Groups` words of eight byte lanes count members 0-7, 8-15, 16-23
  /// and 24-31, so that a neighbour costs one index, one mask and a spread into lanes per eight
  /// members.
  template <int Groups>
  void count_rows() const {
    auto const sources = sources_;
    auto const masks = masks_;
    auto const counts = counts_;
    auto const graph = graph_;
    agent_index const owned = owned_;
    int const members = members_;
    Kokkos::parallel_for(
        "herd::ensemble::count", Kokkos::RangePolicy<ExecutionSpace>(exec_, 0, owned), KOKKOS_LAMBDA(agent_index i) {
          // Named, not an array: the sums stay in registers.
          std::uint64_t l0 = 0, l1 = 0, l2 = 0, l3 = 0;
          edge_offset const end = graph.row_offsets(i + 1);
          for (edge_offset e = graph.row_offsets(i); e < end; ++e) {
            std::uint64_t const mask = masks(graph.neighbours(e));
            l0 += Details::bits_to_lanes(mask & 0xFFu);
            if constexpr (Groups > 1) l1 += Details::bits_to_lanes((mask >> 8) & 0xFFu);
            if constexpr (Groups > 2) l2 += Details::bits_to_lanes((mask >> 16) & 0xFFu);
            if constexpr (Groups > 3) l3 += Details::bits_to_lanes(mask >> 24);
          }
          std::uint64_t const lanes[4] = {l0, l1, l2, l3};
          agent_index const w = i / word_bits, b = i % word_bits;
          for (int m = 0; m < members; ++m) {
            auto const own = (sources(static_cast<std::size_t>(m), w) >> b) & 1u;
            auto const lane = static_cast<std::uint8_t>(lanes[m / 8] >> (8 * (m % 8)));
            counts(static_cast<std::size_t>(m), i) = static_cast<std::uint8_t>(lane + own);
          }
        });
  }

  /// count()'s pass over the rows on a CPU: as count_rows, with each byte's lanes looked up, by
  /// blocks of `block` agents. A block's lanes, [agent][member] bytes, turn into [member][agent]
  /// bytes by 8 x 8 transposes, so that each member's counts of the block take one 8-byte store
  /// (rather than one store per agent and member, which took a third of the pass).
  template <int Groups>
  void count_blocks() const {
    auto const sources = sources_;
    auto const masks = masks_;
    auto const counts = counts_;
    auto const graph = graph_;
    agent_index const owned = owned_;
    int const members = members_;
    Kokkos::parallel_for(
        "herd::ensemble::count", Kokkos::RangePolicy<ExecutionSpace>(exec_, 0, (owned + block - 1) / block),
        [=](agent_index k) {
          agent_index const base = k * block;
          agent_index const agents = owned - base < block ? owned - base : block;
          // [group][agent]: byte m of lanes[g][a] counts member 8g + m for agent base + a.
          std::uint64_t lanes[Groups][block] = {};
          for (agent_index a = 0; a < agents; ++a) {
            agent_index const i = base + a;
#if defined(__GNUC__) || defined(__clang__)
            // The masks of a row are scattered over 4 bytes per agent, beyond the inner caches,
            // and the hardware prefetcher does not follow them: ask for those of a row ahead.
            if (i + prefetch_distance < owned)
              for (edge_offset e = graph.row_offsets(i + prefetch_distance);
                   e < graph.row_offsets(i + prefetch_distance + 1); ++e)
                __builtin_prefetch(masks.data() + graph.neighbours(e));
#endif
            // Named, not an array: the sums stay in registers.
            std::uint64_t l0 = 0, l1 = 0, l2 = 0, l3 = 0;
            edge_offset const end = graph.row_offsets(i + 1);
            for (edge_offset e = graph.row_offsets(i); e < end; ++e) {
              std::uint32_t const mask = masks(graph.neighbours(e));
              l0 += Details::lane_table.lanes[mask & 0xFFu];
              if constexpr (Groups > 1) l1 += Details::lane_table.lanes[(mask >> 8) & 0xFFu];
              if constexpr (Groups > 2) l2 += Details::lane_table.lanes[(mask >> 16) & 0xFFu];
              if constexpr (Groups > 3) l3 += Details::lane_table.lanes[mask >> 24];
            }
            lanes[0][a] = l0;
            if constexpr (Groups > 1) lanes[1][a] = l1;
            if constexpr (Groups > 2) lanes[2][a] = l2;
            if constexpr (Groups > 3) lanes[3][a] = l3;
          }
          // A block lies within one word of source bits (block divides word_bits).
          agent_index const w = base / word_bits, b = base % word_bits;
          for (int g = 0; g < Groups; ++g) {
            Details::transpose_bytes(lanes[g]);
            for (int r = 0; r < 8 && 8 * g + r < members; ++r) {
              int const member = 8 * g + r;
              auto const m = static_cast<std::size_t>(member);
              // The agents' own bits, one per agent's lane.
              std::uint64_t const row = lanes[g][r] + Details::lane_table.lanes[(sources(m, w) >> b) & 0xFFu];
              std::uint8_t* const out = &counts(m, static_cast<std::size_t>(base));
              if (Details::little_endian && agents == block) {
                std::memcpy(out, &row, sizeof row);
              } else {
                for (agent_index a = 0; a < agents; ++a) out[a] = static_cast<std::uint8_t>(row >> (8 * a));
              }
            }
          }
        });
  }

  /// Member `member`'s counts from the last count(): one byte per owned agent.
  counts_type counts(int member) const {
    require(member >= 0 && member < members_, "SharedSpreaderCounts::counts: no member " + std::to_string(member));
    auto const owned = static_cast<std::size_t>(owned_);
    return counts_type(counts_.data() + static_cast<std::size_t>(member) * owned, owned);
  }

 private:
  static constexpr agent_index word_bits = 32;
  static constexpr agent_index prefetch_distance = 8;  // rows
  static constexpr agent_index block = 8;              // agents, on CPUs: the bytes of one word
  // Bits of 32 consecutive agents per member, [member][word]: a member's mark writes one stream.
  using Words = Kokkos::View<std::uint32_t**, Kokkos::LayoutRight, memory_space>;

  ExecutionSpace exec_;
  graph_type graph_;
  agent_index owned_ = 0;
  int members_ = 0;
  Words spreads_, sources_;
  Kokkos::View<std::uint32_t*, memory_space> masks_;
  Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, memory_space> counts_;
};

}  // namespace herd
