#pragma once

// The kernels that find a step's active agents for ActiveSet (active_set.hpp): marking from the
// sources, counting or adding their pushes, compacting the marks into the list, listing the sources
// after a pull step, and the counts the automatic mode estimates its pushes from. They stand outside
// the class because CUDA allows device lambdas only in functions that are not private members.

#include <herd/core/device_pass.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/lowest_bit.hpp>
#include <herd/core/types.hpp>
#include <herd/engine/activity.hpp>
#include <herd/engine/binned_push.hpp>
#include <herd/engine/model_traits.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace herd {

namespace Details {

inline constexpr agent_index marks_per_word = sizeof(std::uint64_t);

// Agents one item of a pass over every agent takes: on CPUs a block, which a thread counts or adds
// up in locals without a test per agent (such loops vectorise, and keep their totals out of
// memory). On GPUs eight: one agent a thread makes as many scan items as agents, and more than
// eight slow the reductions (docs/notes/active-set-on-gpus.md).
template <class ExecutionSpace>
inline constexpr agent_index agents_per_item = runs_on_host_v<ExecutionSpace> ? 1024 : 8;

// One agent's part of finding the active agents: lists it if it is a source (it changes on its
// own or spreads), and its readers that receive if it spreads. Every writer of a mark stores the
// same 1, so races between pushes are benign. Marks are bytes, stored in 8-byte words so that they
// can be compacted eight at a time. With `sums` (a model that declares contributions) a spreading
// agent also adds its contribution to each receiving reader's sum: integer atomics, whose total
// does not depend on the order they land in.
//
// A source is listed even when it spreads without changing on its own: then every source of the
// next step is on this step's list (an agent left off kept its state, hence its activity), and the
// list is all the next step needs to find its sources. Stepping such an agent leaves it as it was,
// as the pull step would.
//
// With `counts` (a model whose spreaders all contribute the same, on an unweighted graph whose push
// rows are shorter than 255) the marks count instead: a receiving reader's mark is the number of its
// spreading neighbours, plus one if it is a source itself, and no sums are kept (see
// ActiveSet::spreader_counts()). Marks are then added atomically, a word at a time: a count below 256 never
// carries into the next agent's byte.
template <class Model, class Graph>
struct MarkActive {
  using memory_space = typename Graph::memory_space;
  Model model;
  Kokkos::View<std::uint64_t*, memory_space> words;
  Graph push;  ///< row j: the agents that read j, with the weights they read it with
  Kokkos::View<std::uint64_t*, memory_space> sums;  ///< empty: marks only, or counts
  agent_index stepped;
  bool counts = false;  ///< the marks count the spreading neighbours (and the sources themselves)

  KOKKOS_INLINE_FUNCTION void count(agent_index k) const {
    Kokkos::atomic_add(&words(k / marks_per_word), std::uint64_t{1} << (8 * (k % marks_per_word)));
  }

  KOKKOS_INLINE_FUNCTION void operator()(agent_index i) const {
    auto* const marks = reinterpret_cast<std::uint8_t*>(words.data());
    auto const a = model.activity(i);
    if (i < stepped && (a & activity::source)) {
      if (counts)
        count(i);
      else
        marks[i] = 1;
    }
    if (!(a & activity::spreads)) return;
    edge_offset const begin = push.row_offsets(i), end = push.row_offsets(i + 1);
    if constexpr (declares_contribution_v<Model>) {
      if (counts) {
        for (edge_offset e = begin; e < end; ++e) {
          agent_index const k = push.neighbours(e);
          if (k < stepped && (model.activity(k) & activity::receives)) count(k);
        }
        return;
      }
      if (sums.extent(0)) {
        for (edge_offset e = begin; e < end; ++e) {
          agent_index const k = push.neighbours(e);
          // Only receivers: each is listed, so its sum is read and cleared this step.
          if (k >= stepped || !(model.activity(k) & activity::receives)) continue;
          marks[k] = 1;
          auto const c = static_cast<std::uint64_t>(model.contribution(i, push.weight(e)));
          if (c != 0) Kokkos::atomic_add(&sums(k), c);
        }
        return;
      }
    }
    for (edge_offset e = begin; e < end; ++e) {
      agent_index const k = push.neighbours(e);
      // Reading first spares the cache line, and the reader's state, when k is marked already.
      if (k < stepped && marks[k] == 0 && (model.activity(k) & activity::receives)) marks[k] = 1;
    }
  }
};

// Marks from the agents agents(0 .. count). On CPUs, first asks for the push row of the agent 16
// places ahead if it spreads: the sources lie far apart, the hardware prefetcher does not follow
// their rows, and each row start (its readers and their weights) missed in cache. Most agents of a
// list do not spread (they received), and asking for their rows too made the pass slower than
// without. GPUs hide those misses with other warps. (Written here, not in a function of its own:
// GCC takes a function that only prefetches for one without effect and drops it.)
template <class ExecutionSpace, class Mark, class Agents>
void mark_listed(ExecutionSpace const& exec, char const* label, Mark const& mark, Agents const& agents,
                 agent_index count) {
  if (count == 0) return;  // no launch: a process without ghosts calls it for them every step
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count), KOKKOS_LAMBDA(agent_index k) {
        // Captured in this order in both passes: see device_pass.hpp.
        (void)count;
        (void)agents;
        (void)mark;
#if !HERD_DEVICE_PASS && (defined(__GNUC__) || defined(__clang__))
        if (k + 16 < count) {
          agent_index const coming = agents(k + 16);
          if (mark.model.activity(coming) & activity::spreads) {
            edge_offset const ahead = mark.push.row_offsets(coming);
            __builtin_prefetch(mark.push.neighbours.data() + ahead);
            if (mark.sums.extent(0) && mark.push.weighted()) __builtin_prefetch(mark.push.weights.data() + ahead);
          }
        }
#endif
        mark(agents(k));
      });
}

// Each byte of a word as 1 where it is not 0, else 0: the marks of a word, whether they are 0 or
// 1 or counts. Adding 0x7f to a byte's low seven bits sets its top bit unless they are 0, without
// carrying out of the byte.
KOKKOS_INLINE_FUNCTION std::uint64_t marked_bytes(std::uint64_t word) {
  constexpr std::uint64_t low7 = 0x7f7f7f7f7f7f7f7fu;
  return ((((word & low7) + low7) | word) >> 7) & 0x0101010101010101u;
}

// The marks (0 or 1) in the bytes of a word as its low eight bits, byte k's at bit k: the product
// puts byte k's mark at bit 56 + k, and every other partial product at a bit of its own below
// bit 56 or above bit 63, so nothing carries into the top byte.
KOKKOS_INLINE_FUNCTION std::uint32_t mark_bits(std::uint64_t word) {
  return static_cast<std::uint32_t>((word * 0x0102040810204080u) >> 56);
}

// Mark words a compaction item covers. With an item per word, 10^7 agents made 1.25 million
// items: on a GPU about ten thousand blocks of the scan, each with little work beyond the scan's
// own (a reduction, a fence, an atomic), and as many block totals for the scan's last block to add
// up alone. On CPUs 16 (128 agents): counting an item's marks without a branch vectorises. On GPUs
// 4, the fastest of 1, 4 and 16 (docs/notes/compacting-the-marks.md, active-set-on-gpus.md).
template <class ExecutionSpace>
inline constexpr agent_index words_per_compaction_item = runs_on_host_v<ExecutionSpace> ? 16 : 4;

// Writes the marked agents (a mark byte not 0) to `list`, in increasing order, eight marks at a
// time, and clears the marks unless they still count (`keep`); returns how many. Waits for the
// device. (A scan calls the final pass of an item after the counting passes of that item, on
// every backend: the final pass can clear what it read.)
template <class ExecutionSpace, class Words, class List>
agent_index compact_marks(ExecutionSpace const& exec, Words const& words, List const& list, bool keep = false) {
  constexpr agent_index per_item = words_per_compaction_item<ExecutionSpace>;
  auto const word_count = static_cast<agent_index>(words.extent(0));
  agent_index const items = (word_count + per_item - 1) / per_item;
  agent_index found = 0;
  Kokkos::parallel_scan(
      "herd::active::compact", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, items),
      KOKKOS_LAMBDA(agent_index item, agent_index & partial, bool final) {
        agent_index const first = item * per_item;
        agent_index const last = first + per_item < word_count ? first + per_item : word_count;
        agent_index added = 0;
        if (final) {
          for (agent_index c = first; c < last; ++c) {
            std::uint64_t const word = words(c);
            if (word == 0) continue;
            // The word's marks as bits, visited set bit by set bit: a branch per mark
            // mispredicted wherever marks fall at random, as the receivers of an epidemic do.
            std::uint32_t bits = mark_bits(marked_bytes(word));
            while (bits != 0) {
              list(partial + added++) = c * marks_per_word + lowest_bit(bits);
              bits &= bits - 1;
            }
            if (!keep) words(c) = 0;
          }
        } else {
          // Each byte as 0 or 1: the product's top byte sums the eight. No branch: the count of
          // the item's words vectorises on CPUs.
          for (agent_index c = first; c < last; ++c)
            added += static_cast<agent_index>((marked_bytes(words(c)) * 0x0101010101010101u) >> 56);
        }
        partial += added;
      },
      found);
  return found;
}

// Clears the pushed sums, or counting marks (a byte each, which threads store apart from their
// neighbours' bytes), of list(0 .. count), the only agents pushed to.
template <class ExecutionSpace, class List, class Pushed>
void clear_pushed(ExecutionSpace const& exec, List const& list, agent_index count, Pushed const& pushed) {
  if (count == 0) return;
  Kokkos::parallel_for(
      "herd::active::clear", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count),
      KOKKOS_LAMBDA(agent_index k) { pushed(list(k)) = 0; });
}

template <class Keep>
KOKKOS_INLINE_FUNCTION bool passes(Keep const& keep, agent_index k, agent_index i) {
  if constexpr (std::is_same_v<Keep, bool>) {
    (void)k;
    (void)i;
    return keep;
  } else {
    return keep(k, i);
  }
}

// Writes to `out`, in order, the candidates candidate(0 .. count) that spread and pass `keep`;
// returns how many. Waits for the device.
template <class ExecutionSpace, class Model, class Candidate, class Out, class Keep = bool>
agent_index keep_spreading(ExecutionSpace const& exec, Model const& model, agent_index count,
                           Candidate const& candidate, Out const& out, Keep const& keep = true) {
  agent_index kept = 0;
  Kokkos::parallel_scan(
      "herd::active::ghost_sources", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count),
      KOKKOS_LAMBDA(agent_index k, agent_index & partial, bool final) {
        agent_index const i = candidate(k);
        if (!(model.activity(i) & activity::spreads) || !passes(keep, k, i)) return;
        if (final) out(partial) = i;
        ++partial;
      },
      kept);
  return kept;
}

// Writes to `list`, in increasing order, the agents among [0, agents) that are sources (their
// activity has `changes` or `spreads`); returns how many. Waits for the device. After a pull step
// the sources are not known, and testing each agent's activity inside the push pass mispredicts
// wherever sources fall at random (docs/notes/active-set-stepping.md). On CPUs a scan item's
// block is counted without a branch and written with one.
template <class ExecutionSpace, class Model, class List>
agent_index list_sources(ExecutionSpace const& exec, Model const& model, agent_index agents, List const& list) {
  constexpr agent_index block = agents_per_item<ExecutionSpace>;
  agent_index found = 0;
  Kokkos::parallel_scan(
      "herd::active::sources", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, (agents + block - 1) / block),
      KOKKOS_LAMBDA(agent_index b, agent_index & partial, bool final) {
        agent_index const first = b * block;
        agent_index const last = first + block < agents ? first + block : agents;
        if (final) {
          for (agent_index i = first; i < last; ++i)
            if (model.activity(i) & activity::source) list(partial++) = i;
        } else {
          agent_index counted = 0;
          for (agent_index i = first; i < last; ++i) counted += (model.activity(i) & activity::source) != 0;
          partial += counted;
        }
      },
      found);
  return found;
}

// The agents first, first + 1, ...
struct AgentsFrom {
  agent_index first = 0;
  KOKKOS_INLINE_FUNCTION agent_index operator()(agent_index k) const { return first + k; }
};

// The candidates for the spreading ghosts after a halo that recorded its changes: the ghosts that
// spread before, then the ghosts that changed; one that did both is looked at among the changed
// ones only (the others kept their values, hence their activity).
template <class MemorySpace>
struct CarriedThenChanged {
  Kokkos::View<agent_index*, MemorySpace> carried, changed;
  Kokkos::View<std::uint32_t*, MemorySpace> flags;  ///< by ghost: whether it changed
  agent_index carried_count, first_ghost;

  KOKKOS_INLINE_FUNCTION agent_index operator()(agent_index k) const {
    return k < carried_count ? carried(k) : changed(k - carried_count);
  }
  KOKKOS_INLINE_FUNCTION bool operator()(agent_index k, agent_index i) const {
    return k >= carried_count || flags(i - first_ghost) == 0;
  }
};

// What push estimates count over the agents [0, agents), of which the first `stepped` are stepped:
// those that spread (high 32 bits) and the stepped sources, which list themselves (low 32 bits).
// Waits for the device.
template <class ExecutionSpace, class Model>
std::uint64_t sum_activity(ExecutionSpace const& exec, Model const& model, agent_index agents, agent_index stepped) {
  // On CPUs each thread counts a block in two 32-bit locals, the block split where the stepped
  // agents end, so that the loops carry no test on the index and no 64-bit packing per agent.
  constexpr agent_index block = agents_per_item<ExecutionSpace>;
  std::uint64_t packed = 0;
  Kokkos::parallel_reduce(
      "herd::active::estimate", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, (agents + block - 1) / block),
      KOKKOS_LAMBDA(agent_index b, std::uint64_t & sum) {
        agent_index const first = b * block;
        agent_index const last = first + block < agents ? first + block : agents;
        agent_index const end_stepped = stepped < first ? first : stepped < last ? stepped : last;
        std::uint32_t spreading = 0;
        std::uint32_t sources = 0;
        for (agent_index i = first; i < end_stepped; ++i) {
          std::uint8_t const a = model.activity(i);
          spreading += (a & activity::spreads) != 0;
          sources += (a & activity::source) != 0;
        }
        for (agent_index i = end_stepped; i < last; ++i) spreading += (model.activity(i) & activity::spreads) != 0;
        sum += (static_cast<std::uint64_t>(spreading) << 32) + sources;
      },
      packed);
  return packed;
}

// As sum_activity over the stepped agents list(0 .. count).
template <class ExecutionSpace, class Model, class List>
std::uint64_t sum_listed_activity(ExecutionSpace const& exec, Model const& model, List const& list, agent_index count) {
  std::uint64_t packed = 0;
  Kokkos::parallel_reduce(
      "herd::active::estimate_listed", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count),
      KOKKOS_LAMBDA(agent_index k, std::uint64_t & sum) {
        std::uint8_t const a = model.activity(list(k));
        sum += (static_cast<std::uint64_t>((a & activity::spreads) != 0) << 32) + ((a & activity::source) != 0);
      },
      packed);
  return packed;
}

}  // namespace Details

}  // namespace herd
