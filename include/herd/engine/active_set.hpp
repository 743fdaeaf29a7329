#pragma once

// Active-set stepping: a step that visits only the agents that can change.
//
// In an epidemic most agents do nothing in most steps: susceptible agents with no infectious
// neighbour, recovered agents. A model that says, per agent, whether it may change on its own,
// whether neighbours that read it may change because of it, and whether it may change when such a
// neighbour is near (Model::activity) lets the engine find this step's active agents by pushing
// from the spreading agents along the reversed edges, compacting the marks with a scan, and stepping
// only the list. The trajectory is bitwise the one of the full pull step: an agent left out would
// have kept its values, and random draws are addressed by (agent, step, phase, draw), not by the
// order in which agents are visited. The spreading and changing agents are carried from step to
// step, so that a step on a small list costs in proportion to the list, not to the population.
//
// Two counts a step come back to the host (scan results: the sources, the list) to size the
// launches and to choose between push (the active list) below a threshold fraction of the agents
// and the plain pull step above it, as direction-optimising BFS switches between top-down and
// bottom-up.

#include <herd/core/device_pass.hpp>
#include <herd/core/error.hpp>
#include <herd/core/kokkos_compat.hpp>
#include <herd/core/types.hpp>
#include <herd/engine/activity.hpp>
#include <herd/engine/binned_push.hpp>
#include <herd/engine/ghost_changes.hpp>
#include <herd/engine/model_traits.hpp>
#include <herd/graph/csr_graph.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace herd {

/// How steps choose their agents: all of them (pull), the active ones (active), or per step from
/// the active fraction (automatic).
enum class Stepping { pull, active, automatic };

namespace Details {

// The active set's kernels, outside the class: CUDA allows device lambdas only in functions that
// are not private members.

inline constexpr agent_index marks_per_word = sizeof(std::uint64_t);

// The activity bits that make an agent a source: it changes on its own or it spreads.
inline constexpr std::uint8_t source_bits = activity::changes | activity::spreads;

// One agent's part of finding the active agents: marks it if it changes on its own, and its
// readers that receive if it spreads. Every writer of a mark stores the same 1, so races between
// pushes are benign. Marks are bytes, stored in 8-byte words so that they can be compacted eight
// at a time. With `sums` (a model that declares contributions) a spreading agent also adds its
// contribution to each receiving reader's sum: integer atomics, whose total does not depend on the
// order they land in.
template <class Model, class Graph>
struct MarkActive {
  using memory_space = typename Graph::memory_space;
  Model model;
  Kokkos::View<std::uint64_t*, memory_space> words;
  Graph push;  ///< row j: the agents that read j, with the weights they read it with
  Kokkos::View<std::uint64_t*, memory_space> sums;  ///< empty: marks only
  agent_index stepped;

  KOKKOS_INLINE_FUNCTION void operator()(agent_index i) const {
    auto* const marks = reinterpret_cast<std::uint8_t*>(words.data());
    auto const a = model.activity(i);
    if (i < stepped && (a & activity::changes)) marks[i] = 1;
    if (!(a & activity::spreads)) return;
    edge_offset const begin = push.row_offsets(i), end = push.row_offsets(i + 1);
    if constexpr (declares_contribution_v<Model>) {
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

// Marks from the agents [first, last).
template <class ExecutionSpace, class Mark>
void mark_range(ExecutionSpace const& exec, char const* label, Mark const& mark, agent_index first, agent_index last) {
  if (first < last)
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecutionSpace>(exec, first, last), KOKKOS_LAMBDA(agent_index i) { mark(i); });
}

// Marks from the agents agents(0 .. count). On CPUs, first asks for the push row of the agent 16
// places ahead: the sources lie far apart, the hardware prefetcher does not follow their rows, and
// each row start (its readers and their weights) missed in cache. GPUs hide those misses with
// other warps. (Written here, not in a function of its own: GCC takes a function that only
// prefetches for one without effect and drops it.)
template <class ExecutionSpace, class Mark, class Agents>
void mark_listed(ExecutionSpace const& exec, char const* label, Mark const& mark, Agents const& agents,
                 agent_index count) {
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count), KOKKOS_LAMBDA(agent_index k) {
#if !HERD_DEVICE_PASS && (defined(__GNUC__) || defined(__clang__))
        if (k + 16 < count) {
          edge_offset const ahead = mark.push.row_offsets(agents(k + 16));
          __builtin_prefetch(mark.push.neighbours.data() + ahead);
          if (mark.sums.extent(0) && mark.push.weighted()) __builtin_prefetch(mark.push.weights.data() + ahead);
        }
#else
        (void)count;  // captured in both passes: see device_pass.hpp
#endif
        mark(agents(k));
      });
}

// Mark words a compaction item covers: 128 agents. With an item per word, 10^7 agents made 1.25
// million items: on a GPU about ten thousand blocks of the scan, each with little work beyond the
// scan's own (a reduction, a fence, an atomic), and as many block totals for the scan's last block
// to add up alone. On CPUs, counting an item's marks without a branch vectorises: with 0.75 % of
// 10^6 agents marked the compaction took 0.06-0.08 instead of 0.11-0.15 ms (docs/benchmarks.md).
inline constexpr agent_index words_per_compaction_item = 16;

// Writes the marked agents to `list`, in increasing order, eight marks at a time; returns how many.
// Waits for the device.
template <class ExecutionSpace, class Words, class List>
agent_index compact_marks(ExecutionSpace const& exec, Words const& words, List const& list) {
  auto const word_count = static_cast<agent_index>(words.extent(0));
  agent_index const items = (word_count + words_per_compaction_item - 1) / words_per_compaction_item;
  agent_index found = 0;
  Kokkos::parallel_scan(
      "herd::active::compact", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, items),
      KOKKOS_LAMBDA(agent_index item, agent_index & partial, bool final) {
        agent_index const first = item * words_per_compaction_item;
        agent_index const last =
            first + words_per_compaction_item < word_count ? first + words_per_compaction_item : word_count;
        agent_index added = 0;
        if (final) {
          for (agent_index c = first; c < last; ++c) {
            if (words(c) == 0) continue;
            auto const* marks = reinterpret_cast<std::uint8_t const*>(&words(c));
            for (agent_index b = 0; b < marks_per_word; ++b)
              if (marks[b]) list(partial + added++) = c * marks_per_word + b;
          }
        } else {
          // Each mark is 0 or 1: the product's top byte sums the eight. No branch: the count of
          // the item's words vectorises on CPUs.
          for (agent_index c = first; c < last; ++c)
            added += static_cast<agent_index>((words(c) * 0x0101010101010101u) >> 56);
        }
        partial += added;
      },
      found);
  return found;
}

// Clears the marks, and the pushed sums if any, of list(0 .. count) (touches only those).
template <class ExecutionSpace, class Words, class List, class Sums>
void clear_marks(ExecutionSpace const& exec, Words const& words, List const& list, agent_index count,
                 Sums const& sums) {
  Kokkos::parallel_for(
      "herd::active::clear", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count), KOKKOS_LAMBDA(agent_index k) {
        agent_index const i = list(k);
        reinterpret_cast<std::uint8_t*>(words.data())[i] = 0;
        if (sums.extent(0)) sums(i) = 0;
      });
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

// Writes to `out`, in order, the candidates candidate(0 .. count) whose activity has a bit of
// `bits` and that pass `keep`; returns how many (low 32 bits) and how many of them spread (high
// 32). Waits for the device.
template <class ExecutionSpace, class Model, class Candidate, class Out, class Keep = bool>
std::uint64_t keep_sources(ExecutionSpace const& exec, Model const& model, std::uint8_t bits, agent_index count,
                           Candidate const& candidate, Out const& out, Keep const& keep = true) {
  std::uint64_t packed = 0;
  Kokkos::parallel_scan(
      "herd::active::sources", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count),
      KOKKOS_LAMBDA(agent_index k, std::uint64_t & partial, bool final) {
        agent_index const i = candidate(k);
        auto const a = model.activity(i);
        if (!(a & bits) || !passes(keep, k, i)) return;
        if (final) out(static_cast<agent_index>(partial & 0xffffffffu)) = i;
        // Low 32 bits: the position (sources so far); high: the spreading ones among them.
        partial += (static_cast<std::uint64_t>((a & activity::spreads) != 0) << 32) + 1;
      },
      packed);
  return packed;
}

// The candidates for the sources after a step on the list: the listed agents, then the old
// sources; the old sources that the list holds too are left out (the marks tell).
template <class MemorySpace>
struct ListThenSources {
  Kokkos::View<agent_index*, MemorySpace> list, sources;
  Kokkos::View<std::uint64_t*, MemorySpace> words;
  agent_index listed;

  KOKKOS_INLINE_FUNCTION agent_index operator()(agent_index k) const {
    return k < listed ? list(k) : sources(k - listed);
  }
  KOKKOS_INLINE_FUNCTION bool operator()(agent_index k, agent_index i) const {
    return k < listed || reinterpret_cast<std::uint8_t const*>(words.data())[i] == 0;
  }
};

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
// those that spread (high 32 bits) and the stepped ones that change on their own (low 32 bits).
// Waits for the device.
template <class ExecutionSpace, class Model>
std::uint64_t sum_activity(ExecutionSpace const& exec, Model const& model, agent_index agents, agent_index stepped) {
  // On CPUs each thread counts a block in two 32-bit locals, the block split where the stepped
  // agents end, so that the loops carry no test on the index and no 64-bit packing per agent
  // (measured: the pass over 10^7 agents takes a fifth of the time it took with a packed 64-bit
  // count per agent). GPU threads take one agent each, for coalesced reads.
  constexpr agent_index block =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecutionSpace::memory_space>::accessible ? 1024 : 1;
  std::uint64_t packed = 0;
  Kokkos::parallel_reduce(
      "herd::active::estimate", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, (agents + block - 1) / block),
      KOKKOS_LAMBDA(agent_index b, std::uint64_t & sum) {
        agent_index const first = b * block;
        agent_index const last = first + block < agents ? first + block : agents;
        agent_index const end_stepped = stepped < first ? first : stepped < last ? stepped : last;
        std::uint32_t spreading = 0;
        std::uint32_t changing = 0;
        for (agent_index i = first; i < end_stepped; ++i) {
          std::uint8_t const a = model.activity(i);
          spreading += (a & activity::spreads) != 0;
          changing += (a & activity::changes) != 0;
        }
        for (agent_index i = end_stepped; i < last; ++i) spreading += (model.activity(i) & activity::spreads) != 0;
        sum += (static_cast<std::uint64_t>(spreading) << 32) + changing;
      },
      packed);
  return packed;
}

}  // namespace Details

/// The active agents of one step, found on the device. `push_graph` lists for each agent the agents
/// that read it, with the weights they read it with: the graph itself when it is symmetric (every
/// edge in both directions, with the same weight), else its transpose (see transpose()).
/// Its rows may go beyond the `stepped` agents: ghosts, agents of other ranks that stepped agents
/// read, which are only ever pushed from (a ghost's activity counts for its `spreads` bit only, so
/// it must follow from the properties neighbours read).
///
/// Between steps it keeps the *sources*: the agents whose activity has `changes` or `spreads`. An
/// agent a step left out keeps its state, hence its activity, so after a step on the list the
/// sources are the old sources and the listed agents whose new state still has those bits: the set
/// follows the epidemic in time proportional to the active agents, without a pass over everyone.
/// After a step that pulled every agent (or when told the state changed, forget()) one pass over
/// all agents finds them again. The ghosts that spread are kept too: ghosts change through the
/// halo only, so from what it says changed (GhostChanges) they follow in proportion to the
/// changes, whichever way the steps went; a pass over every ghost finds them when it cannot say.
///
/// For a model that declares contributions, finding the list also pushes each spreading agent's
/// contribution into its receiving readers' sums (sums()), which the listed step reads instead of
/// its neighbours' states.
template <class ExecutionSpace, class WeightStorage = float>
class ActiveSet {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using graph_type = CsrGraph<memory_space, WeightStorage>;

  ActiveSet() = default;
  ActiveSet(ExecutionSpace const& exec, graph_type const& push_graph, agent_index stepped)
      : exec_(exec),
        push_(push_graph),
        stepped_(stepped),
        marks_("herd::active::marks",
               (static_cast<std::size_t>(stepped) + Details::marks_per_word - 1) / Details::marks_per_word),
        list_(Kokkos::ViewAllocateWithoutInitializing("herd::active::list"), stepped),
        sources_(Kokkos::ViewAllocateWithoutInitializing("herd::active::sources"), stepped),
        next_sources_(Kokkos::ViewAllocateWithoutInitializing("herd::active::next_sources"), stepped),
        ghost_sources_(Kokkos::ViewAllocateWithoutInitializing("herd::active::ghost_sources"),
                       push_graph.num_agents() - stepped),
        next_ghost_sources_(Kokkos::ViewAllocateWithoutInitializing("herd::active::next_ghost_sources"),
                            push_graph.num_agents() - stepped) {}

  /// Bytes per agent it stores (a mark, list and sources entries in two buffers, and a pushed sum
  /// for a model that declares contributions, binned or not), besides a transpose; a ghost takes
  /// two sources entries. The bins hold a push (reader and value) per agent, fewer on a graph of
  /// fewer edges, and at least the longest push row.
  static constexpr double bytes_per_agent(bool contributions, bool binned = false) {
    return 1 + 3 * sizeof(agent_index) + (contributions ? sizeof(std::uint64_t) : 0) +
           (contributions && binned ? sizeof(agent_index) + sizeof(std::uint64_t) : 0);
  }

  /// Allocates what stepping `model` on its active agents needs beyond the marks and lists: the
  /// pushed sums, for a model that declares contributions. find() does it if not done before.
  template <class Model>
  void reserve(Model const& /*model*/) {
    if constexpr (declares_contribution_v<Model>) {
      if (sums_.extent(0) != static_cast<std::size_t>(stepped_))
        sums_ = Kokkos::View<std::uint64_t*, memory_space>("herd::active::sums", stepped_);
      if (bins_pushes() && !bins_.allocated()) allocate_bins();
    }
  }

  /// Whether pushed sums go through bins (CPUs; see BinnedPush), from the next reserve() or find().
  void set_binned_push(BinnedPush choice) { binned_push_ = choice; }
  bool bins_pushes() const {
    return Details::is_host_space_v<ExecutionSpace> && herd::bins_pushes(binned_push_, stepped_);
  }

  /// Brings the sources up to date with the state the last step left: from the list it stepped if
  /// find() was called since the last begin_step(), else (a pull step, or the first) by a pass over
  /// every agent when they are next needed. After a listed step, waits for the device (a count).
  template <class Model>
  void begin_step(Model const& model) {
    if (found_ < 0) {
      sources_known_ = false;
      binned_ = false;
      return;
    }
    update_sources(model);
    clear();
  }

  /// The state changed outside the steps (set from the host, restored, read from a file): the
  /// sources are found again before the next active step.
  void forget() {
    if (found_ >= 0) clear();
    sources_known_ = false;
    ghost_sources_known_ = false;
    binned_ = false;
  }

  /// An estimate of the pushes find() would make: the agents that change on their own plus the
  /// spreading agents times the mean number of agents that read one. From the sources' counts when
  /// known (every source counted as changing), else from one pass reading each agent's activity;
  /// tells whether pushing is worth it before any push is made. Waits for the device.
  template <class Model>
  double push_estimate(Model const& model) const {
    if (sources_known_) return estimate_of(source_activity_);
    return estimate_of(Details::sum_activity(exec_, model, push_.num_agents(), stepped_));
  }

  /// Marks and lists, in increasing order, the agents among the first `stepped` that may change
  /// this step; returns how many (waits for the device). Marks from the stepped agents first, then
  /// calls `ready()` and marks from the agents beyond them (ghosts), whose values may still be on
  /// their way: a distributed simulation completes its halo in `ready()` while the first marks run.
  /// `ready()` returns the GhostChanges since it last did, or nothing (every ghost counts as
  /// changed).
  template <class Model, class Ready = void (*)()>
  agent_index find(
      Model const& model, Ready&& ready = [] {}) {
    reserve(model);
    pushed_ = declares_contribution_v<Model>;
    Details::MarkActive<Model, graph_type> const mark{model, marks_, push_, pushed_sums(), stepped_};
    bool const known = sources_known_;
    // Binned when the pushes are many: a few, into the sums of few readers, cost less atomic than
    // three passes over the sources (the estimate is the pushes before the receivers are known).
    binned_ = pushed_ && bins_pushes() &&
              (!known || estimate_of(source_activity_) >= static_cast<double>(stepped_) * binned_push_min_share);
    bool const binned = binned_;
    if (binned && known)
      push_through_bins(mark, sources_, source_count_);
    else if (binned)
      push_through_bins(mark, Details::AgentsFrom{}, stepped_);
    else if (known)
      Details::mark_listed(exec_, "herd::active::mark", mark, sources_, source_count_);
    else
      Details::mark_range(exec_, "herd::active::mark_all", mark, 0, stepped_);
    if constexpr (std::is_void_v<decltype(ready())>) {
      ready();
      update_ghost_sources(model, GhostChanges<memory_space>{});
    } else {
      update_ghost_sources(model, ready());
    }
    if (binned)
      push_through_bins(mark, ghost_sources_, ghost_source_count_);
    else
      Details::mark_listed(exec_, "herd::active::mark_ghosts", mark, ghost_sources_, ghost_source_count_);
    // The sources among the stepped agents, for the steps that follow.
    if (!known)
      record_sources(
          Details::keep_sources(exec_, model, Details::source_bits, stepped_, Details::AgentsFrom{}, sources_));
    found_ = Details::compact_marks(exec_, marks_, list_);
    return found_;
  }

  Kokkos::View<agent_index*, memory_space> const& list() const { return list_; }
  /// Agents listed by the last find(), or -1 when none since the last begin_step().
  agent_index count() const { return found_; }
  /// Whether the last step was listed by a find() that pushed through bins (false after a step
  /// that pulled, once begin_step() has seen it, and after forget()).
  bool binned() const { return binned_; }
  /// The sums the last find() pushed, one per stepped agent (valid for the listed receivers until
  /// the next begin_step()); empty when it pushed none (the model declares no contributions).
  Kokkos::View<std::uint64_t*, memory_space> sums() const {
    return found_ >= 0 ? pushed_sums() : Kokkos::View<std::uint64_t*, memory_space>();
  }
  /// Sources known from the last step (-1: to be found by a pass over every agent).
  agent_index source_count() const { return sources_known_ ? source_count_ : -1; }

 private:
  double estimate_of(std::uint64_t packed) const {
    double const agents = static_cast<double>(push_.num_agents());
    double const mean_readers = agents > 0 ? static_cast<double>(push_.num_edges()) / agents : 0.0;
    return static_cast<double>(packed & 0xffffffffu) + static_cast<double>(packed >> 32) * mean_readers;
  }

  void record_sources(std::uint64_t packed) {
    source_count_ = static_cast<agent_index>(packed & 0xffffffffu);
    source_activity_ = packed;
    sources_known_ = true;
  }

  // The sources after a step on the list: the listed agents that still change or spread, and the
  // sources the list left out (unchanged, so still sources). The marks tell the two apart.
  template <class Model>
  void update_sources(Model const& model) {
    Details::ListThenSources<memory_space> const candidates{list_, sources_, marks_, found_};
    record_sources(Details::keep_sources(exec_, model, Details::source_bits, found_ + source_count_, candidates,
                                         next_sources_, candidates));
    std::swap(sources_, next_sources_);
  }

  // The ghosts that spread now: the ones that did and did not change, and the changed ones that
  // spread; all of them looked at when the changes are not known (a ghost counts only for its
  // `spreads` bit).
  template <class Model>
  void update_ghost_sources(Model const& model, GhostChanges<memory_space> const& changes) {
    agent_index const ghosts = push_.num_agents() - stepped_;
    if (ghosts == 0) return;
    std::uint64_t found = 0;
    if (changes.known && ghost_sources_known_) {
      Details::CarriedThenChanged<memory_space> const candidates{ghost_sources_, changes.list, changes.flags,
                                                                 ghost_source_count_, stepped_};
      found = Details::keep_sources(exec_, model, activity::spreads, ghost_source_count_ + changes.count, candidates,
                                    next_ghost_sources_, candidates);
    } else {
      found = Details::keep_sources(exec_, model, activity::spreads, ghosts, Details::AgentsFrom{stepped_},
                                    next_ghost_sources_);
    }
    std::swap(ghost_sources_, next_ghost_sources_);
    ghost_source_count_ = static_cast<agent_index>(found & 0xffffffffu);
    ghost_sources_known_ = true;
  }

  // Room in the bins for the pushes of a slice of sources: as many as the agents (at least 2^16,
  // at most the edges), and at least the longest push row, which a slice of one source needs.
  void allocate_bins() {
    edge_offset const longest = Details::longest_row(exec_, push_);
    auto const capacity = std::max<std::int64_t>(
        longest, std::min<std::int64_t>(push_.num_edges(), std::max<std::int64_t>(stepped_, std::int64_t{1} << 16)));
    bins_ = Details::PushBins<memory_space>(stepped_, std::max<std::int64_t>(capacity, 1), compat::concurrency(exec_));
  }

  // Pushes from candidate(0 .. count) through the bins: host memory only, where bins_pushes() can
  // be true (compiled for it only).
  template <class Mark, class Candidate>
  void push_through_bins(Mark const& mark, Candidate const& candidate, agent_index count) {
    if constexpr (Details::is_host_space_v<ExecutionSpace>) {
      if (!bins_.allocated()) allocate_bins();
      Details::push_binned(exec_, mark, bins_, candidate, count);
    } else {
      (void)mark;
      (void)candidate;
      (void)count;
    }
  }

  // The sums when the current (or coming) find() pushes them, else an empty View.
  Kokkos::View<std::uint64_t*, memory_space> pushed_sums() const {
    return pushed_ ? sums_ : Kokkos::View<std::uint64_t*, memory_space>();
  }

  // Clears the marks and pushed sums of the listed agents (the only ones pushed to), ready for the
  // next find().
  void clear() {
    Details::clear_marks(exec_, marks_, list_, found_, pushed_sums());
    found_ = -1;
    pushed_ = false;
  }

  ExecutionSpace exec_;
  graph_type push_;
  agent_index stepped_ = 0;
  Kokkos::View<std::uint64_t*, memory_space> marks_;  ///< one byte per agent, 0 or 1
  Kokkos::View<std::uint64_t*, memory_space> sums_;   ///< pushed contributions, one per agent
  bool pushed_ = false;                               ///< whether the last find() pushed sums
  Kokkos::View<agent_index*, memory_space> list_;
  Kokkos::View<agent_index*, memory_space> sources_, next_sources_;
  Kokkos::View<agent_index*, memory_space> ghost_sources_, next_ghost_sources_;  ///< ghosts that spread
  bool sources_known_ = false;
  bool ghost_sources_known_ = false;
  agent_index ghost_source_count_ = 0;
  agent_index source_count_ = 0;
  std::uint64_t source_activity_ = 0;  ///< spreading sources (high 32 bits), sources (low 32 bits)
  agent_index found_ = -1;
  BinnedPush binned_push_ = BinnedPush::automatic;
  Details::PushBins<memory_space> bins_;  ///< allocated when pushes go through bins
  bool binned_ = false;                   ///< whether the last listed step pushed through bins
};

/// How many steps went which way, and how many agents the active steps visited.
struct SteppingStats {
  std::int64_t steps = 0;         ///< steps of a model that declares activity
  std::int64_t active_steps = 0;  ///< of which stepped on the active list only
  double active_share_sum = 0.0;  ///< sum over all steps of agents stepped / agents owned
  double mean_active_share() const { return steps ? active_share_sum / static_cast<double>(steps) : 1.0; }
};

/// The transpose of a graph: row j lists the agents whose rows list j, in no particular order, with
/// the weights of those edges when the graph has weights. For pushing from agents to the agents
/// that read them on a directed graph. `columns` (at least the rows) gives the transpose a row for
/// every index the rows may list: a rank's graph also lists its ghosts, which have no rows of their
/// own.
template <class ExecutionSpace, class WeightStorage>
CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> transpose(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph,
    agent_index columns = -1) {
  using memory_space = typename ExecutionSpace::memory_space;
  require(columns < 0 || columns >= graph.num_agents(), "transpose: fewer columns than rows");
  agent_index const rows = graph.num_agents();
  agent_index const n = columns < 0 ? rows : columns;
  CsrGraph<memory_space, WeightStorage> t;
  t.row_offsets = Kokkos::View<edge_offset*, memory_space>("herd::transpose::offsets", n + 1);
  t.neighbours = Kokkos::View<agent_index*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::transpose::neighbours"), graph.num_edges());
  if (graph.weighted())
    t.weights = Kokkos::View<WeightStorage*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::transpose::weights"), graph.num_edges());
  auto const offsets = graph.row_offsets;
  auto const neighbours = graph.neighbours;
  auto const counts = t.row_offsets;
  Kokkos::parallel_for(
      "herd::transpose::count", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, graph.num_edges()),
      KOKKOS_LAMBDA(edge_offset e) { Kokkos::atomic_add(&counts(neighbours(e) + 1), edge_offset{1}); });
  auto const cursor = Details::counts_to_offsets(exec, t.row_offsets, "herd::transpose::cursor");
  auto const out = t.neighbours;
  auto const weights = graph.weights;
  auto const out_weights = t.weights;
  Kokkos::parallel_for(
      "herd::transpose::fill", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, rows), KOKKOS_LAMBDA(agent_index i) {
        for (edge_offset e = offsets(i); e < offsets(i + 1); ++e) {
          edge_offset const at = Kokkos::atomic_fetch_add(&cursor(neighbours(e)), edge_offset{1});
          out(at) = i;
          if (out_weights.extent(0)) out_weights(at) = weights(e);
        }
      });
  return t;
}

}  // namespace herd
