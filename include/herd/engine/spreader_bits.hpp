#pragma once

// One bit per stored agent, set where its activity has `spreads`: what a pull step reads instead of
// the neighbours' states, for models that declare their activity and contributions (see
// SpreaderBits::reads_bits). At 10^7 agents the states take 10 MB and the bits 1.25 MB, so the random
// reads of a row's neighbours hit a cache eight times smaller. Where every spreading neighbour
// contributes the same, the sum is a count without branches, so an epidemic's peak, where
// spreaders fall at random among the neighbours, costs what its start does. Where isolation may
// close contacts and sums add by code, three bitmaps follow each other: who spreads, who spreads
// and is not isolated, and who is isolated. A contact reads one bit of its neighbour: from the
// first map where isolation does not change what the contact adds (a kept layer), else from the
// second (also where the contact adds nothing either way), so that the random reads stay on one
// bit per agent, in one map (Simulation::close_contacts).

#include <herd/core/execution_spaces.hpp>
#include <herd/core/types.hpp>
#include <herd/engine/activity.hpp>
#include <herd/engine/activity_lanes.hpp>
#include <herd/engine/model_traits.hpp>
#include <herd/engine/step_plan.hpp>
#include <herd/engine/weight_codes.hpp>
#include <herd/graph/csr_graph.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace herd {

namespace Details {

inline constexpr agent_index spreader_word_bits = 32;

/// Where the bits also say who is isolated: the bitmaps of who spreads, who spreads free (not
/// isolated) and who is isolated, each `SpreaderCounts::words` words, one after the other.
inline constexpr std::uint32_t spreader_maps = 3;
inline constexpr std::uint32_t free_spreader_map = 1, isolated_map = 2;

/// What a pull step reads to find its spreading neighbours, as the agent's view holds it.
struct SpreaderCounts {
  std::uint32_t const* bits = nullptr;     ///< one per stored agent; null: the sums read the states
  std::uint8_t const* codes = nullptr;     ///< one per edge, its weight's code; null: not summed by code
  std::uint64_t const* by_code = nullptr;  ///< what a spreading neighbour contributes, per weight code
  /// Whether `bits` holds the three maps of isolation (spreader_maps), and `by_code` the tables of
  /// isolation (isolated_code_table and after).
  bool isolating = false;
  std::uint32_t words = 0;  ///< the words of one map, where isolating
};

/// The offset in `by_code` of the table that a row whose agent is isolated reads: its entries of
/// layers that isolation does not keep hold what a closed contact adds.
inline constexpr std::uint32_t isolated_code_table = max_weight_codes;
/// Where isolating, by_code(code_selectors + k) says which map the contact of code k (in either
/// table) reads its neighbour's bit from: the map's offset in words, and the flag has_extra where an
/// isolated spreader adds by_code(code_extras + k) over it (a closed contact that does not add 0).
inline constexpr std::uint32_t code_selectors = 2 * max_weight_codes;
inline constexpr std::uint32_t code_extras = 4 * max_weight_codes;
/// Where isolating, by_code(any_extra) is has_extra where some code has it, else 0: a row then sums
/// without testing each contact's flag (a branch per edge that costs an isolating step about 3 %).
inline constexpr std::uint32_t any_extra = 6 * max_weight_codes;
inline constexpr std::uint32_t isolating_code_entries = 6 * max_weight_codes + 1;
inline constexpr std::uint64_t has_extra = std::uint64_t{1} << 63;

/// The same as Views, which a kernel holds.
template <class MemorySpace>
struct SpreaderViews {
  Kokkos::View<std::uint32_t const*, MemorySpace> bits;
  Kokkos::View<std::uint8_t const*, MemorySpace> codes;
  Kokkos::View<std::uint64_t const*, MemorySpace> by_code;
  bool isolating = false;

  KOKKOS_INLINE_FUNCTION bool empty() const { return bits.extent(0) == 0; }
  KOKKOS_INLINE_FUNCTION SpreaderCounts pointers() const {
    return {bits.data(), codes.extent(0) ? codes.data() : nullptr, codes.extent(0) ? by_code.data() : nullptr,
            isolating, static_cast<std::uint32_t>(bits.extent(0) / spreader_maps)};
  }
};

/// Whether agent j spreads: 1 or 0.
KOKKOS_INLINE_FUNCTION std::uint32_t spreads_bit(std::uint32_t const* bits, agent_index j) {
  auto const u = static_cast<std::uint32_t>(j);
  return (bits[u / spreader_word_bits] >> (u % spreader_word_bits)) & 1u;
}

/// Where row i's contacts start in SpreaderCounts::by_code: the isolated table where i is isolated
/// (all its contacts but the kept ones are closed), else 0.
KOKKOS_INLINE_FUNCTION std::uint32_t row_code_table(SpreaderCounts const& spreading, agent_index i) {
  return spreading.isolating ? spreads_bit(spreading.bits + isolated_map * spreading.words, i) * isolated_code_table
                             : 0u;
}

/// Sets the words of `bits` that hold agents [from, to) from phase.activity, whole words (of the
/// first `stored` agents). With `isolated`, the three maps of spreader_maps, `bits` holding three
/// times the words: who spreads, who spreads and is not flagged by `isolated` (bit 0 of its byte),
/// and who is flagged. Does not wait.
template <class ExecutionSpace, class Phase>
void mark_spreaders(ExecutionSpace const& exec, Phase const& phase, agent_index from, agent_index to,
                    agent_index stored, Kokkos::View<std::uint32_t*, typename ExecutionSpace::memory_space> const& bits,
                    Kokkos::View<std::uint8_t const*, typename ExecutionSpace::memory_space> const& isolated = {}) {
  if (to <= from) return;
  bool const isolating = isolated.extent(0) != 0;
  auto const words = static_cast<agent_index>(isolating ? bits.extent(0) / spreader_maps : bits.extent(0));
  // The same for every word: a branch that never mispredicts, beside the word's 32 reads.
  Kokkos::parallel_for(
      isolating ? "herd::step::spreaders_and_isolated" : "herd::step::spreaders",
      Kokkos::RangePolicy<ExecutionSpace>(exec, from / spreader_word_bits,
                                          (to + spreader_word_bits - 1) / spreader_word_bits),
      KOKKOS_LAMBDA(agent_index w) {
        agent_index const base = w * spreader_word_bits;
        agent_index const count = stored - base < spreader_word_bits ? stored - base : spreader_word_bits;
        std::uint32_t spreads = 0, flagged = 0;
        for (agent_index b = 0; b < count; ++b)
          spreads |= static_cast<std::uint32_t>((phase.activity(base + b) & activity::spreads) != 0) << b;
        bits(w) = spreads;
        if (!isolating) return;
        // Eight flags a load: the bytes are read in place of 32 loads and shifts.
        for (agent_index b = 0; b < count; b += 8)
          flagged |= lanes_with(byte_lanes(isolated.data() + base + b, count - b < 8 ? count - b : agent_index{8}), 1)
                     << b;
        bits(free_spreader_map * words + w) = spreads & ~flagged;
        bits(isolated_map * words + w) = flagged;
      });
}

/// Sets by_code(c) to what a spreading neighbour contributes over an edge of code c's weight (times
/// its layer's factor now). With `keeps` (per layer, 1 where isolation keeps its contacts), also
/// the tables of isolation, for maps of `words` words each:
/// - by_code(isolated_code_table + c): what a contact of code c adds where either end is isolated:
///   the same for a kept layer, else what the code's closed twin contributes (its weight is 0), as
///   an entry closed in place would;
/// - the map a contact reads (code_selectors): who spreads, where an isolated neighbour adds what a
///   free one does and that is not 0 (a kept layer, a closed code whose weight of 0 adds
///   something, and such contacts of an isolated row); else who spreads free, with what an
///   isolated spreader adds kept apart (code_extras) where it is not 0, also where the contact
///   adds nothing either way;
/// - by_code(any_extra): whether any code has such an extra.
template <class ExecutionSpace, class Phase>
void fill_contribution_by_code(
    ExecutionSpace const& exec, Phase const& phase, WeightCodes<typename ExecutionSpace::memory_space> const& codes,
    Kokkos::View<std::uint64_t*, typename ExecutionSpace::memory_space> const& by_code,
    Kokkos::View<std::uint8_t const*, typename ExecutionSpace::memory_space> const& keeps = {},
    std::uint32_t words = 0) {
  using memory_space = typename ExecutionSpace::memory_space;
  Kokkos::RangePolicy<ExecutionSpace> const policy(exec, 0, static_cast<int>(codes.palette.extent(0)));
  if (keeps.extent(0) == 0) {
    Kokkos::parallel_for(
        "herd::step::contribution_by_code", policy, KOKKOS_LAMBDA(int c) {
          by_code(c) = static_cast<std::uint64_t>(phase.spreader_contribution(codes.weight(c)));
        });
    return;
  }
  // Whether any code has an extra, reduced into its slot of by_code on the device.
  Kokkos::View<std::uint64_t, memory_space> const any(by_code.data() + any_extra);
  Kokkos::parallel_reduce(
      "herd::step::contribution_by_code", policy,
      KOKKOS_LAMBDA(int c, std::uint64_t& extra) {
        auto const open = static_cast<std::uint64_t>(phase.spreader_contribution(codes.weight(c)));
        by_code(c) = open;
        bool const closed = (codes.layers(c) & closed_layer) != 0;
        // A closed code weighs 0 through its layer's closed slot, as the entry would.
        float const shut = codes.twins.extent(0) == 0 ? 0.0f : codes.weight(closed ? c : codes.twins(c));
        std::uint64_t const isolated = keeps(open_layer(codes.layers(c))) != 0
                                           ? open
                                           : static_cast<std::uint64_t>(phase.spreader_contribution(shut));
        by_code(isolated_code_table + c) = isolated;
        bool const same = isolated == open;
        std::uint64_t const flag = !same && isolated != 0 ? has_extra : 0;
        // A contact that adds nothing (a closed layer's, or closed by isolation) reads the map of
        // free spreaders, as the random reads of open contacts do: at 10^7 agents a closed school's
        // reads from the other map made the two overflow a core's L2 cache (+5 % a step).
        std::uint64_t const free_map = std::uint64_t{free_spreader_map * words};
        by_code(code_selectors + c) = same && open != 0 ? 0 : free_map | flag;
        by_code(code_extras + c) = same ? 0 : isolated;
        by_code(code_selectors + isolated_code_table + c) = isolated == 0 ? free_map : 0;
        by_code(code_extras + isolated_code_table + c) = 0;
        extra |= flag;
      },
      Kokkos::BOr<std::uint64_t, memory_space>(any));
}

/// The bits of a simulation's stored agents, marked before each pulled phase that counts its
/// spreaders, from the current states (ghosts included), so that nothing has to be kept up to date
/// between phases. Allocated with the simulation: the step loop allocates nothing. On a weighted
/// graph, also the weights' codes (weight_codes.hpp), made by prepare() for a model that counts
/// weighted spreaders, and the table of what a spreader contributes per code, filled by mark().
template <class ExecutionSpace>
class SpreaderBits {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using views_type = SpreaderViews<memory_space>;

  SpreaderBits() = default;
  /// Bits for the `stored` agents of `graph`.
  template <class Graph>
  SpreaderBits(Graph const& graph, agent_index stored)
      : bits_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::spreaders"),
              static_cast<std::size_t>((stored + spreader_word_bits - 1) / spreader_word_bits)),
        stored_(stored),
        weighted_(graph.weighted()) {
    if (weighted_)
      by_code_ = Kokkos::View<std::uint64_t*, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::spreaders::by_code"), max_weight_codes);
  }

  /// Pulled phases read neighbours' states instead (`on` false), or bits where they can.
  void set_enabled(bool on) { enabled_ = on; }

  /// Whether prepare() codes the weights (`on`, the default) or the weighted sums read each
  /// marked neighbour's weight. Dropping the codes frees their memory.
  void set_weight_codes(bool on) {
    if (on == codes_on_) return;  // codes made stay made
    codes_on_ = on;
    if (!on) codes_ = {};
    coded_ = false;
  }
  /// Whether entries may close (isolation, see closed_layer): the codes then come in open and
  /// closed twins, and the bits and code table have room for who is isolated (isolate_by). Codes
  /// made without twins are dropped, and made again by prepare(). Allocates.
  void set_closable(bool on) {
    if (on == closable_) return;
    closable_ = on;
    codes_ = {};
    coded_ = false;
    if (!on) return;
    bits_ = Kokkos::View<std::uint32_t*, memory_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::spreaders"),
        spreader_maps * static_cast<std::size_t>((stored_ + spreader_word_bits - 1) / spreader_word_bits));
    if (weighted_)
      by_code_ = Kokkos::View<std::uint64_t*, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::spreaders::by_code"), isolating_code_entries);
  }
  /// Who is isolated (bit 0 of each stored agent's byte) and the layers whose contacts isolation
  /// keeps (per layer, 1 where kept): the pulled sums by code then read an isolated neighbour's or
  /// row's contacts as closed, with the entries left open (see Simulation::close_contacts). Needs
  /// set_closable(true).
  void isolate_by(Kokkos::View<std::uint8_t const*, memory_space> isolated,
                  Kokkos::View<std::uint8_t const*, memory_space> keeps) {
    isolated_ = std::move(isolated);
    keeps_ = std::move(keeps);
  }
  /// Bits per stored agent: 3 where they may also hold who is isolated (spreader_maps).
  int bits_per_agent() const { return closable_ ? static_cast<int>(spreader_maps) : 1; }
  /// The weights' codes, once prepare() made them (else empty).
  WeightCodes<memory_space> const& codes() const { return codes_; }

  /// Bytes per edge the weights' codes take: 1 once made, else 0.
  double code_bytes_per_edge() const { return codes_.empty() ? 0.0 : WeightCodes<memory_space>::bytes_per_edge(); }

  /// Before a step loop of `model` on `graph`: codes the weights once, if its pulled phases would
  /// add them by code (a model that counts weighted spreaders, on a weighted graph). Allocates and
  /// waits for the device.
  template <class Model, class Graph>
  void prepare(ExecutionSpace const& exec, Model const& /*model*/, Graph const& graph) {
    if constexpr (counts_weighted_spreaders_v<Model>) {
      if (weighted_ && codes_on_ && !coded_) {
        codes_ = make_weight_codes(exec, graph, closable_);
        coded_ = true;  // once, whether the graph has few enough weights or not
      }
    } else {
      (void)exec;
      (void)graph;
    }
  }

  /// Whether the pulled phases of `Phase`, a model that declares its activity and its
  /// contributions, read the bits:
  /// - on an unweighted graph when every spreading neighbour contributes the same
  ///   (counts_spreaders_v): the sum is a count, without branches;
  /// - on a weighted graph whose weights prepare() coded, when a spreading neighbour contributes
  ///   a function of the weight (counts_weighted_spreaders_v): the sum adds a table entry per
  ///   edge, masked by the bit, without branches;
  /// - on other weighted graphs on GPUs, whose sums gather a word of "spreads" before the
  ///   contributions (Details::sum_contributions), from the bits instead of the states. CPUs test
  ///   each neighbour's state there, which is faster for them (docs/notes/spreader-bits.md).
  template <class Phase>
  bool reads_bits() const {
    return marks_v<Phase> && enabled_ && bits_.extent(0) > 0 &&
           (weighted_ ? adds_by_code<Phase>() || !runs_on_host_v<ExecutionSpace> : counts_spreaders_v<Phase>);
  }

  /// Sets the bits of agents [from, to) from phase.activity, by whole words (a word shared with
  /// agents before `from` is rewritten with their bits too, from their current states), and
  /// returns them, with the weights' codes and each code's contribution (filled when `from` is 0)
  /// where the sums add by code; empty, with nothing launched, when the phase does not read them.
  /// Does not wait.
  /// With `marked_ahead`, the three maps of isolation hold the agents' bits already
  /// (marks_isolation), and are not marked again where the flags of isolate_by are in use.
  template <class Phase>
  views_type mark(ExecutionSpace const& exec, Phase const& phase, agent_index from, agent_index to,
                  bool marked_ahead = false) const {
    if constexpr (marks_v<Phase>) {
      if (!reads_bits<Phase>()) return {};
      if (!adds_by_code<Phase>()) {
        mark_spreaders(exec, phase, from, to, stored_, bits_);
        return {bits_, {}, {}};
      }
      bool const isolating = isolated_.extent(0) != 0;
      if (!(marked_ahead && isolating)) mark_spreaders(exec, phase, from, to, stored_, bits_, isolated_);
      if constexpr (counts_weighted_spreaders_v<Phase>) {
        if (from == 0)
          fill_contribution_by_code(exec, phase, codes_, by_code_, isolating ? keeps_ : decltype(keeps_)(),
                                    static_cast<std::uint32_t>(bits_.extent(0) / spreader_maps));
      }
      return {bits_, codes_.codes, by_code_, isolating};
    } else {
      (void)exec;
      (void)phase;
      (void)from;
      (void)to;
      (void)marked_ahead;
      return {};
    }
  }

  /// Whether mark() of `Phase` writes the three maps of isolation (spreader_maps): its sums add
  /// by code, on a graph whose contacts may close.
  template <class Phase>
  bool marks_isolation() const {
    if constexpr (marks_v<Phase>) {
      return closable_ && reads_bits<Phase>() && adds_by_code<Phase>();
    } else {
      return false;
    }
  }
  /// The bits themselves: where marks_isolation, the three maps, whose every word mark() writes.
  Kokkos::View<std::uint32_t*, memory_space> const& bits() const { return bits_; }

  /// Whether the pulled phases of `Phase` add their sums by code from the bits (mark() returns
  /// codes) and read their contacts through those sums alone (sums_contacts_only_v): those read
  /// who is isolated from the bits, and not from the entries' layer bytes.
  template <class Phase>
  bool sums_by_code() const {
    if constexpr (marks_v<Phase> && sums_contacts_only_v<Phase>) {
      return reads_bits<Phase>() && adds_by_code<Phase>();
    } else {
      return false;
    }
  }

 private:
  template <class Phase>
  static constexpr bool marks_v = declares_activity_v<Phase>&& declares_contribution_v<Phase>;
  template <class Phase>
  bool adds_by_code() const {
    return counts_weighted_spreaders_v<Phase> && weighted_ && !codes_.empty();
  }

  Kokkos::View<std::uint32_t*, memory_space> bits_;
  WeightCodes<memory_space> codes_;                           ///< empty until prepare() coded the weights
  Kokkos::View<std::uint64_t*, memory_space> by_code_;        ///< per code: what a spreading neighbour adds
  Kokkos::View<std::uint8_t const*, memory_space> isolated_;  ///< per stored agent, bit 0: isolated; or empty
  Kokkos::View<std::uint8_t const*, memory_space> keeps_;     ///< per layer: 1 where isolation keeps contacts
  agent_index stored_ = 0;
  bool weighted_ = false;
  bool enabled_ = true;
  bool codes_on_ = true;
  bool closable_ = false;
  bool coded_ = false;  ///< whether prepare() looked for the codes since they were last dropped
};

}  // namespace Details

}  // namespace herd
