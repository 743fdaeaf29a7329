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
// order in which agents are visited. The sources (the spreading and changing agents) list
// themselves, so each step's list holds the next step's sources: a step on a small list costs in
// proportion to the list, not to the population.
//
// One count a step comes back to the host (the list's length, a scan result) to size the launches.
// The choice between push (the active list) below a threshold fraction of the agents and the plain
// pull step above it, as direction-optimising BFS switches between top-down and bottom-up, reads a
// second count only when a bound from the last list's length does not settle it.

#include <herd/core/execution_spaces.hpp>
#include <herd/core/kokkos_compat.hpp>
#include <herd/core/types.hpp>
#include <herd/engine/active_list_kernels.hpp>
#include <herd/engine/binned_push.hpp>
#include <herd/engine/ghost_changes.hpp>
#include <herd/engine/model_traits.hpp>
#include <herd/graph/csr_graph.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

namespace herd {

/// The active agents of one step, found on the device. `push_graph` lists for each agent the agents
/// that read it, with the weights they read it with: the graph itself when it is symmetric (every
/// edge in both directions, with the same weight), else its transpose (see transpose()).
/// Its rows may go beyond the `stepped` agents: ghosts, agents of other ranks that stepped agents
/// read, which are only ever pushed from (a ghost's activity counts for its `spreads` bit only, so
/// it must follow from the properties neighbours read).
///
/// The *sources* of a step are the agents whose activity has `changes` or `spreads`; each lists
/// itself. An agent a step left out keeps its state, hence its activity, so after a step on the
/// list the next step's sources are among the listed agents: it pushes from those, in time
/// proportional to the active agents, without a pass over everyone, and one scan (the compaction
/// of the marks) a step comes back to the host. After a step that pulled every agent (or when told
/// the state changed, forget()) one pass over all agents pushes from the sources again. The ghosts
/// that spread are kept too: ghosts change through the halo only, so from what it says changed
/// (GhostChanges) they follow in proportion to the changes, whichever way the steps went; a pass
/// over every ghost finds them when it cannot say.
///
/// For a model that declares contributions, finding the list also pushes each spreading agent's
/// contribution into its receiving readers' sums (sums()), which the listed step reads instead of
/// its neighbours' states; where every spreader contributes the same, it counts them in the marks
/// instead (spreader_counts()).
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
        ghost_sources_(Kokkos::ViewAllocateWithoutInitializing("herd::active::ghost_sources"),
                       push_graph.num_agents() - stepped),
        next_ghost_sources_(Kokkos::ViewAllocateWithoutInitializing("herd::active::next_ghost_sources"),
                            push_graph.num_agents() - stepped) {}

  /// Bytes per agent it stores (a mark, a list entry, and a pushed sum for a model that declares
  /// contributions, binned or not, unless the marks count them: `summed`), besides a transpose; a
  /// ghost takes two sources entries. The bins hold a push (reader, and value unless all pushes
  /// add the same: `binned_values`) per agent, fewer on a graph of fewer edges, and at least the
  /// longest push row.
  static constexpr double bytes_per_agent(bool contributions, bool binned = false, bool binned_values = true,
                                          bool summed = true) {
    return 1 + sizeof(agent_index) + (contributions && summed ? sizeof(std::uint64_t) : 0) +
           (contributions && binned ? sizeof(agent_index) + (binned_values ? sizeof(std::uint64_t) : 0) : 0);
  }

  /// Allocates what stepping `model` on its active agents needs beyond the marks and lists: the
  /// pushed sums, for a model that declares contributions. find() does it if not done before.
  template <class Model>
  void reserve(Model const& /*model*/) {
    counting_ = false;
    if constexpr (declares_contribution_v<Model>) {
      counting_ = counts_pushes<Model>();
      if (!counting_ && sums_.extent(0) != static_cast<std::size_t>(stepped_))
        sums_ = Kokkos::View<std::uint64_t*, memory_space>("herd::active::sums", stepped_);
      if (bins_pushes()) allocate_bins_for<Model>();
    }
  }

  /// Whether find() counts the pushes of `Model` in the marks instead of summing them (see
  /// spreader_counts()): where its pushes carry no values (every spreader contributes the same on an
  /// unweighted graph, Details::pushes_values) and a count (plus the agent's own mark as a source)
  /// fits a byte. Waits for the device the first time (the longest push row).
  template <class Model>
  bool counts_pushes() {
    return !Details::pushes_values<Model>(push_) && longest_push_row() < 255;
  }

  /// Whether the model of the last reserve() (or find()) has its pushes counted in the marks
  /// (counts_pushes()).
  bool counting() const { return counting_; }
  /// Edges of the graph it pushes along (the stepped agents' readers).
  edge_offset push_edges() const { return push_.num_edges(); }
  /// The graph it pushes along (empty under pull stepping).
  graph_type const& push_graph() const { return push_; }

  /// Whether pushes go through bins (CPUs; see BinnedPush), from the next reserve() or find().
  void set_binned_push(BinnedPush choice) { binned_push_ = choice; }
  /// Whether the pushes of the model of the last reserve() or find() go through bins (automatic:
  /// from fewer agents where they are counted).
  bool bins_pushes() const {
    return Details::runs_on_host_v<ExecutionSpace> && herd::bins_pushes(binned_push_, stepped_, counting_);
  }

  /// Starts a step: after a listed step (find() called since the last begin_step()) its list holds
  /// this step's sources, and its pushed sums are cleared; after a pull step, or the first, the
  /// sources are found by a pass over every agent when they are next needed. Waits for nothing.
  void begin_step() {
    estimate_ = -1.0;
    if (found_ < 0) {
      sources_known_ = false;
      binned_ = false;
      return;
    }
    clear();
    sources_known_ = true;
  }

  /// The state changed outside the steps (set from the host, restored, read from a file): the
  /// sources are found again before the next active step.
  void forget() {
    if (found_ >= 0) clear();
    sources_known_ = false;
    ghost_sources_known_ = false;
    binned_ = false;
    estimate_ = -1.0;
  }

  /// Whether the sources of this step are among the last list (else a pass over every agent finds
  /// them).
  bool sources_known() const { return sources_known_; }

  /// A bound on push_estimate() that costs nothing: every agent of the last list taken for a
  /// spreading source; infinite when the sources are not known. Early in an epidemic it stays far
  /// below the automatic mode's threshold, which then lists without an estimate.
  double push_bound() const {
    if (!sources_known_) return std::numeric_limits<double>::infinity();
    return static_cast<double>(candidates_) * (1.0 + mean_readers());
  }

  /// An estimate of the pushes find() would make: the sources plus the spreading agents times the
  /// mean number of agents that read one. From the last list when the sources are known, else
  /// from one pass reading each agent's activity; tells whether pushing is worth it before any
  /// push is made. Waits for the device, once a step.
  template <class Model>
  double push_estimate(Model const& model) {
    if (estimate_ < 0)
      estimate_ = estimate_of(sources_known_ ? Details::sum_listed_activity(exec_, model, list_, candidates_)
                                             : Details::sum_activity(exec_, model, push_.num_agents(), stepped_));
    return estimate_;
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
    Details::MarkActive<Model, graph_type> const mark{model, marks_, push_, pushed_sums(), stepped_, counts_pushed()};
    bool const known = sources_known_;
    // Binned when the pushes are many: a few, into the sums of few readers, cost less atomic than
    // two passes, one over the sources and one over every block of readers (the estimate is the
    // pushes before the receivers are known).
    double const min_pushes = static_cast<double>(stepped_) * Details::Tuning::binned_push_min_share;
    binned_ =
        pushed_ && bins_pushes() && (!known || (push_bound() >= min_pushes && push_estimate(model) >= min_pushes));
    // The sources go into the list, which the compaction below rewrites once they are read.
    if (!known) candidates_ = Details::list_sources(exec_, model, stepped_, list_);
    if (binned_)
      push_through_bins(mark, list_, candidates_);
    else
      Details::mark_listed(exec_, "herd::active::mark", mark, list_, candidates_);
    if constexpr (std::is_void_v<decltype(ready())>) {
      ready();
      update_ghost_sources(model, GhostChanges<memory_space>{});
    } else {
      update_ghost_sources(model, ready());
    }
    if (binned_)
      push_through_bins(mark, ghost_sources_, ghost_source_count_);
    else
      Details::mark_listed(exec_, "herd::active::mark_ghosts", mark, ghost_sources_, ghost_source_count_);
    found_ = Details::compact_marks(exec_, marks_, list_, counts_pushed());
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
  /// Instead of sums, where counts_pushes(): one byte per stepped agent, valid for the listed
  /// receivers until the next begin_step(), counting its spreading neighbours, plus one if the
  /// agent is itself a source (its activity has `changes` or `spreads`); its sum is the count of
  /// its spreading neighbours times Model::spreader_contribution(). Empty otherwise.
  using spreader_counts_type = Kokkos::View<std::uint8_t const*, memory_space, Kokkos::MemoryUnmanaged>;
  spreader_counts_type spreader_counts() const {
    if (found_ < 0 || !counts_pushed()) return {};
    return mark_bytes();
  }

 private:
  // The marks, a byte per stepped agent.
  Kokkos::View<std::uint8_t*, memory_space, Kokkos::MemoryUnmanaged> mark_bytes() const {
    return Kokkos::View<std::uint8_t*, memory_space, Kokkos::MemoryUnmanaged>(
        reinterpret_cast<std::uint8_t*>(marks_.data()), static_cast<std::size_t>(stepped_));
  }

  // The longest row of the push graph, found once. Waits for the device the first time.
  edge_offset longest_push_row() {
    if (!longest_known_) longest_ = Details::longest_row(exec_, push_);
    longest_known_ = true;
    return longest_;
  }

  double mean_readers() const {
    double const agents = static_cast<double>(push_.num_agents());
    return agents > 0 ? static_cast<double>(push_.num_edges()) / agents : 0.0;
  }

  double estimate_of(std::uint64_t packed) const {
    return static_cast<double>(packed & 0xffffffffu) + static_cast<double>(packed >> 32) * mean_readers();
  }

  // The ghosts that spread now: the ones that did and did not change, and the changed ones that
  // spread; all of them looked at when the changes are not known (a ghost counts only for its
  // `spreads` bit).
  template <class Model>
  void update_ghost_sources(Model const& model, GhostChanges<memory_space> const& changes) {
    agent_index const ghosts = push_.num_agents() - stepped_;
    if (ghosts == 0) return;
    agent_index found = 0;
    if (changes.known && ghost_sources_known_) {
      Details::CarriedThenChanged<memory_space> const candidates{ghost_sources_, changes.list, changes.flags,
                                                                 ghost_source_count_, stepped_};
      found = Details::keep_spreading(exec_, model, ghost_source_count_ + changes.count, candidates,
                                      next_ghost_sources_, candidates);
    } else {
      found = Details::keep_spreading(exec_, model, ghosts, Details::AgentsFrom{stepped_}, next_ghost_sources_);
    }
    std::swap(ghost_sources_, next_ghost_sources_);
    ghost_source_count_ = found;
    ghost_sources_known_ = true;
  }

  // Room in the bins for a round of pushes: as many as the agents (at least 2^16, at most the
  // edges), with their values where `Model`'s pushes carry them. Once, unless a model needs the
  // values that bins allocated without them lack.
  template <class Model>
  void allocate_bins_for() {
    bool const values = Details::pushes_values<Model>(push_);
    if (bins_.allocated() && (bins_.holds_values() || !values)) return;
    auto const capacity =
        std::min<std::int64_t>(push_.num_edges(), std::max<std::int64_t>(stepped_, std::int64_t{1} << 16));
    bins_ = Details::PushBins<memory_space>(stepped_, capacity, compat::concurrency(exec_), values);
  }

  // Pushes from candidate(0 .. count) through the bins: host memory only, where bins_pushes() can
  // be true (compiled for it only).
  template <class Mark, class Candidate>
  void push_through_bins(Mark const& mark, Candidate const& candidate, agent_index count) {
    if constexpr (Details::runs_on_host_v<ExecutionSpace>) {
      allocate_bins_for<decltype(mark.model)>();
      Details::push_binned(exec_, mark, bins_, candidate, count);
    } else {
      (void)mark;
      (void)candidate;
      (void)count;
    }
  }

  // The sums when the current (or coming) find() pushes them, else an empty View.
  Kokkos::View<std::uint64_t*, memory_space> pushed_sums() const {
    return pushed_ && !counting_ ? sums_ : Kokkos::View<std::uint64_t*, memory_space>();
  }
  // Whether the current (or coming) find() counts its pushes in the marks.
  bool counts_pushed() const { return pushed_ && counting_; }

  // After a listed step: its list becomes the candidates for the next step's sources, and the
  // sums or counts pushed to it are cleared (the compaction cleared the marks that do not count).
  void clear() {
    if (counts_pushed())
      Details::clear_pushed(exec_, list_, found_, mark_bytes());
    else if (pushed_)
      Details::clear_pushed(exec_, list_, found_, sums_);
    candidates_ = found_;
    found_ = -1;
    pushed_ = false;
  }

  ExecutionSpace exec_;
  graph_type push_;
  agent_index stepped_ = 0;
  /// One byte per agent, 0 or 1, or counts (counting_); 0 between finds
  Kokkos::View<std::uint64_t*, memory_space> marks_;
  Kokkos::View<std::uint64_t*, memory_space> sums_;  ///< pushed contributions, one per agent, unless counting_
  bool pushed_ = false;                              ///< whether the last find() pushed sums (or counts)
  bool counting_ = false;                            ///< whether pushes are counted in the marks
  edge_offset longest_ = 0;                          ///< the longest push row, once longest_known_
  bool longest_known_ = false;
  /// The last find()'s list: this step's until the next begin_step(), then the next step's sources
  /// are among its first `candidates_` entries.
  Kokkos::View<agent_index*, memory_space> list_;
  Kokkos::View<agent_index*, memory_space> ghost_sources_, next_ghost_sources_;  ///< ghosts that spread
  bool sources_known_ = false;
  bool ghost_sources_known_ = false;
  agent_index ghost_source_count_ = 0;
  agent_index candidates_ = 0;
  double estimate_ = -1.0;  ///< this step's push_estimate(), once made
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

}  // namespace herd
