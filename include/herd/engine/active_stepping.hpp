#pragma once

// The per-step choice between pulling every agent and stepping the active list only (a rank's own
// agents, on many ranks): which agents a step visits, and the statistics of that choice.

#include <herd/core/execution_spaces.hpp>
#include <herd/detail/tuning.hpp>
#include <herd/engine/active_set.hpp>
#include <herd/engine/model_contract.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>

namespace herd {

/// Stepping::automatic pushes when the pushes a step needs (agents that change on their own plus
/// the edges of spreading agents, estimated) are at most a threshold fraction of the agents; else
/// it pulls. This one is the default on CPUs, and on GPUs where pushes add sums.
inline double default_active_threshold() { return Details::Tuning::active_threshold; }

/// The threshold of Stepping::automatic when none is given: default_active_threshold() on CPUs.
/// On GPUs a listed step has a fixed cost (its launches, and the wait for its list's length), so
/// every step pulls on graphs of few edges; on larger ones the threshold is higher where the
/// pushes are `counted` (a byte each) than where they add sums.
template <class ExecutionSpace>
double default_active_threshold(bool counted, edge_offset edges) {
  using Tuning = Details::Tuning;
  if (Details::runs_on_host_v<ExecutionSpace>) return default_active_threshold();
  if (edges < Tuning::least_listed_edges_on_gpus) return 0.0;
  return counted ? Tuning::counted_active_threshold_on_gpus : default_active_threshold();
}

namespace Details {

template <class ExecutionSpace, class WeightStorage = float>
class ActiveStepping {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using active_set = ActiveSet<ExecutionSpace, WeightStorage>;

  /// `active` is empty under Stepping::pull; no `threshold`: Herd's default for this backend, the
  /// model's pushes and the graph (herd::default_active_threshold), chosen when the model is known.
  void set(Stepping stepping, std::optional<double> threshold, active_set active) {
    stepping_ = stepping;
    threshold_ = threshold;
    active_ = std::move(active);
    active_.set_binned_push(binned_push_);
  }
  /// Another stepping that lists (active, automatic, verify) and threshold, keeping the active set.
  void choose(Stepping stepping, std::optional<double> threshold) {
    stepping_ = stepping;
    threshold_ = threshold;
  }

  /// How pushed sums are added (see BinnedPush): kept across set().
  void set_binned_push(BinnedPush choice) {
    binned_push_ = choice;
    active_.set_binned_push(choice);
  }
  /// Whether this simulation's listed steps push their sums through bins.
  bool bins_pushes() const { return stepping_ != Stepping::pull && active_.bins_pushes(); }
  /// Whether this simulation's listed steps count the pushes of the model they were prepared for
  /// in their marks, keeping no sums (ActiveSet::spreader_counts()).
  bool counts_pushes() const { return stepping_ != Stepping::pull && active_.counting(); }
  SteppingStats const& stats() const { return stats_; }
  /// The graph listed steps push along: empty under pull stepping.
  typename active_set::graph_type const& push_graph() const { return active_.push_graph(); }

  /// The automatic mode's threshold: the one given to set(), else Herd's default for the model of
  /// the last prepare() (or listed step). At most 0: every step pulls.
  double threshold() const {
    if (threshold_) return *threshold_;
    return default_active_threshold<ExecutionSpace>(active_.counting(), active_.push_edges());
  }

  /// The state may have been set since the last step.
  void forget() {
    if (stepping_ != Stepping::pull) active_.forget();
    skipped_estimates_ = 0;
    listed_ = -1;
  }

  /// Before a step loop: forgets, and allocates what stepping `model` on its active agents needs.
  template <class Model>
  void prepare(Model const& model) {
    static_assert(check_model_hooks<Model>());
    forget();
    if constexpr (declares_activity_v<Model>) {
      if (stepping_ != Stepping::pull) active_.reserve(model);
    } else {
      (void)model;
    }
  }

  /// Finds the agents among the first `owned` that may change this step and, when few enough,
  /// lists them for the step's phases; `ready()` is called before the agents beyond the first
  /// `owned` are read (a distributed simulation completes its ghosts there, after marking from
  /// its owned agents), and `listing()` once the step is to be listed, before anything is pushed.
  /// Waits for the device (the length of the list; near the threshold, an estimate of the pushes).
  template <class Model, class Ready = void (*)(), class Listing = void (*)()>
  void before_step(
      Model const& model, agent_index owned, Ready&& ready = [] {}, Listing&& listing = [] {}) {
    if constexpr (declares_activity_v<Model>) {
      ++stats_.steps;
      if (stepping_ == Stepping::pull) {
        stats_.active_share_sum += 1.0;
        return;
      }
      active_.begin_step();
      double const agents = owned > 0 ? static_cast<double>(owned) : 1.0;
      // While binned pushes grow, a pull step would cost the most: keep listing a while longer.
      double const limit = threshold() * agents * (active_.binned() ? Tuning::keep_listing_factor : 1.0);
      if (stepping_ == Stepping::automatic && pulls(model, limit)) {
        stats_.active_share_sum += 1.0;
        return;
      }
      listing();
      listed_ = active_.find(model, ready);
      stats_.active_share_sum += static_cast<double>(listed_) / agents;
      ++stats_.active_steps;
    } else {
      (void)model;
      (void)owned;
      (void)ready;
      (void)listing;
    }
  }
  void end_step() { listed_ = -1; }

  /// Agents this step's phases run on, the first listed() of list(); -1 when they run on all.
  agent_index listed() const { return listed_; }
  Kokkos::View<agent_index*, memory_space> const& list() const { return active_.list(); }
  /// The sums pushed for phase `phase` of a listed step: the first phase's only, as later phases
  /// read what the earlier ones wrote. Empty when none (the phase pulls its sums).
  Kokkos::View<std::uint64_t const*, memory_space> pushed_sums(std::uint32_t phase) const {
    if (listed_ < 0 || phase != 0) return {};
    return active_.sums();
  }
  /// Instead of sums, the counts of spreading neighbours pushed for the first phase of a listed
  /// step, where the active set counts them (ActiveSet::spreader_counts()); else empty.
  auto pushed_counts(std::uint32_t phase) const {
    return listed_ < 0 || phase != 0 ? decltype(active_.spreader_counts()){} : active_.spreader_counts();
  }

 private:
  // Whether the automatic mode pulls this step: when the estimated pushes exceed `limit`. After a
  // listed step, a bound from its list's length settles most steps without an estimate (a count
  // back from the device). After a pull step the estimate is a pass over every agent (the sources
  // are not known), which at the peak of an epidemic would be most of the automatic mode's extra
  // cost. So an estimate of 2^k times the limit lets the next k steps pull without one: the pushes
  // would have to halve every step to fall below the limit sooner, and switching a step late costs
  // only that step's difference between the two modes (the trajectory is the same). A limit of at
  // most 0 pulls every step, without a bound or an estimate.
  template <class Model>
  bool pulls(Model const& model, double limit) {
    if (limit <= 0) return true;
    bool const costly = !active_.sources_known();
    if (costly && skipped_estimates_ > 0) {
      --skipped_estimates_;
      return true;
    }
    if (active_.push_bound() <= limit) return false;
    double const estimate = active_.push_estimate(model);
    if (estimate <= limit) return false;
    if (costly) skipped_estimates_ = static_cast<int>(std::log2(estimate / limit));
    return true;
  }

  Stepping stepping_ = Stepping::pull;
  std::optional<double> threshold_;  ///< none: Herd's default (threshold())
  active_set active_;                ///< empty under Stepping::pull
  agent_index listed_ = -1;
  BinnedPush binned_push_ = BinnedPush::automatic;
  int skipped_estimates_ = 0;  ///< pull steps left before the automatic mode estimates again
  SteppingStats stats_;
};

}  // namespace Details

}  // namespace herd
