#pragma once

// The thresholds behind Herd's automatic choices, in one place. Each was measured on the machines
// that docs/benchmarks.md lists, and changes when they are measured again; none changes a
// trajectory, only its speed. Internal: options that users set (Stepping, BinnedPush, GatherAhead,
// a run's active threshold) override them where it matters.

#include <herd/core/execution_spaces.hpp>
#include <herd/core/types.hpp>

#include <cstddef>

namespace herd::Details {

struct Tuning {
  // Stepping::automatic lists a step whose pushes are at most this share of its agents (CPUs, and
  // GPUs where pushes add sums). docs/notes/active-set-stepping.md
  static constexpr double active_threshold = 0.5;
  // The same on GPUs where pushes are counted, a byte each. docs/notes/active-set-on-gpus.md
  static constexpr double counted_active_threshold_on_gpus = 2.0;
  // On GPUs a listed step has a fixed cost that a pull step below this many edges undercuts.
  // docs/notes/active-set-on-gpus.md
  static constexpr edge_offset least_listed_edges_on_gpus = 20'000'000;
  // After a binned listed step, keep listing up to this multiple of the threshold.
  // docs/notes/binned-push.md
  static constexpr double keep_listing_factor = 4.0;

  // BinnedPush::automatic bins summed pushes from this many stepped agents (sums outgrow the last
  // level cache). docs/notes/binned-push.md
  static constexpr agent_index binned_push_min_agents = agent_index{1} << 22;
  // ... and counted pushes from this many (their add pass stays in cache). docs/notes/binned-push.md
  static constexpr agent_index binned_count_min_agents = agent_index{1} << 16;
  // A step bins when it will push at least this many per stepped agent. docs/notes/binned-push.md
  static constexpr double binned_push_min_share = 0.25;

  // GatherAhead::automatic gathers ahead from this many bytes of neighbour values.
  // docs/notes/gather-ahead.md
  static constexpr std::size_t gather_ahead_min_bytes = std::size_t{1} << 23;

  // A listed step is observed from its list when it holds at most one agent in this many.
  // docs/notes/observables-from-the-list.md
  static constexpr agent_index observed_list_share = 4;

  // Isolation reopens the entries it closed once this many steps in a row summed by code alone
  // (which read who is isolated from the spreader bits): reopening costs a pass over the edges.
  // docs/scenarios.md#cost
  static constexpr int rounds_before_reopening = 4;

  // Degree from which an agent is a hub, with a team of its own. docs/notes/schedules.md
  static constexpr agent_index hub_threshold = 4096;

  // Rows plus edges one thread takes under Schedule::edge: many on a CPU, so that a share's own
  // costs stay small; few on a GPU, to keep every SM busy at 10^6 edges. docs/notes/schedules.md
  template <class ExecutionSpace>
  static constexpr edge_offset edge_chunk_size() {
    return runs_on_host_v<ExecutionSpace> ? 2048 : 64;
  }
};

}  // namespace herd::Details
