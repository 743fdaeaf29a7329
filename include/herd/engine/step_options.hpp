#pragma once

#include <herd/engine/schedule.hpp>

#include <optional>

namespace herd {

/// How a simulation's steps run, as opposed to what they compute: no choice here changes a
/// trajectory, only its speed and memory. Given to the Simulation's constructor, or to
/// Simulation::set_options before a step loop.
struct StepOptions {
  /// How a phase maps agents and their edges to threads (see make_step_plan).
  Schedule schedule = Schedule::automatic;
  /// Which agents a step visits, for models that declare their agents' activity (others always
  /// pull). Active and automatic stepping push from the spreading agents to the agents that read
  /// them: along the graph's own rows where it is symmetric, else through its transpose, built
  /// once (as much memory as the graph's structure).
  Stepping stepping = Stepping::pull;
  /// Stepping::automatic lists a step when its pushes are estimated at most this many times its
  /// agents (at most 0: never). None: Herd's default for the backend, the model's pushes and the
  /// graph (herd::default_active_threshold).
  std::optional<double> active_threshold;
  /// Whether pull steps on a CPU gather ahead for the neighbour values they will read.
  GatherAhead gather_ahead = GatherAhead::automatic;
  /// Whether listed steps on a CPU add their pushes through bins.
  BinnedPush binned_push = BinnedPush::automatic;
  /// Whether pull steps find spreading neighbours from one bit per agent, where the model allows
  /// it (Details::SpreaderBits::reads_bits), rather than from each neighbour's state.
  bool spreader_bits = true;
  /// Whether a weighted graph's weights are coded in a byte per edge for models that count
  /// weighted spreaders (counts_weighted_spreaders_v), where they take at most 256 values.
  bool weight_codes = true;
};

/// What a simulation holds, per agent and per edge (Simulation::footprint).
struct Footprint {
  double bytes_per_agent = 0.0;
  double bytes_per_edge = 0.0;
};

}  // namespace herd
