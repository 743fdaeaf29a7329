#pragma once

#include <herd/core/error.hpp>
#include <herd/core/types.hpp>
#include <herd/detail/tuning.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>

namespace herd {

/// How a phase maps agents and their edges to threads.
enum class Schedule {
  automatic,  ///< chosen from the degree distribution and the backend (see make_step_plan)
  thread,     ///< one thread per agent, neighbours in a loop: best for short rows on CPUs
  vector,     ///< one thread per agent, its vector lanes share the neighbours: short rows on GPUs
  team,       ///< one team per agent: for rows of thousands of neighbours
  hybrid,     ///< agents of degree >= the hub threshold get a team each, the others a thread (or vector)
  edge        ///< a model's neighbour sums (Model::contribution) by equal shares of the edges, so that
              ///< hubs split among threads, then a thread per agent reading its sum; other phases: thread
};

Schedule parse_schedule(std::string const& name);
std::string to_string(Schedule schedule);

/// Whether the pull step on a CPU asks, a few agents ahead, for the neighbour values its agents
/// will read (for models with gathers_ahead_v). It pays once those values outgrow the caches, and
/// costs a little where they fit. The trajectory is the same either way.
enum class GatherAhead {
  automatic,  ///< on once the values read, over the stored agents, outgrow the caches
  on,
  off
};
/// "auto", "on" or "off".
GatherAhead parse_gather_ahead(std::string const& name);
/// Whether `choice` gathers ahead over `agents` stored agents whose values take `value_bytes` each.
inline bool gathers_ahead(GatherAhead choice, agent_index agents, std::size_t value_bytes) {
  return choice == GatherAhead::on ||
         (choice == GatherAhead::automatic &&
          static_cast<std::size_t>(agents) * value_bytes >= Details::Tuning::gather_ahead_min_bytes);
}

/// How steps choose their agents: all of them (pull), the active ones (active), or per step from
/// the active fraction (automatic). `verify` steps the active ones and checks each such step
/// against the pull step from the same state (Simulation::run_step): slow, for writing models.
enum class Stepping { pull, active, automatic, verify };

/// Whether active-set stepping pushes contributions through bins (CPUs only): automatically once
/// the stepped agents' sums outgrow a CPU's last-level cache (sooner where the pushes are only
/// counted, a byte each), always, or never (atomic adds into the sums or marks).
enum class BinnedPush { automatic, on, off };

/// Which mode an agent context runs in; internal to the engine.
namespace Details {
enum class Lanes { thread, vector, team };
}  // namespace Details

/// A scheduling plan built once per graph and applied to every phase of every step: the split of
/// agents into light ones (a thread or vector lanes each) and hubs (a team each), with the launch
/// shape for this backend. Building it costs a scan; applying it allocates nothing.
template <class MemorySpace>
struct StepPlan {
  Schedule schedule = Schedule::thread;  ///< the resolved schedule (never automatic)
  Details::Lanes light_lanes = Details::Lanes::thread;
  agent_index hub_threshold = 0;                  ///< degree from which an agent is a hub
  agent_index first = 0;                          ///< first row the plan covers
  agent_index light_count = 0;                    ///< agents run as light ones
  Kokkos::View<agent_index*, MemorySpace> light;  ///< light agents; empty: rows first ... first + light_count - 1
  Kokkos::View<agent_index*, MemorySpace> hubs;   ///< hub agents
  int vector_length = 1;                          ///< lanes per light agent in vector mode
  int team_size = 1;                              ///< light agents per team in vector mode
  // Schedule::edge: the sums of the first phase, by chunks of equal rows plus edges.
  edge_offset chunk_size = 0;                          ///< rows and edges one thread takes
  Kokkos::View<std::uint64_t*, MemorySpace> sums;      ///< each row's sum, indexed by agent
  Kokkos::View<agent_index*, MemorySpace> carried;     ///< per chunk, the row it leaves unfinished (-1: none)
  Kokkos::View<std::uint64_t*, MemorySpace> parts;     ///< per chunk, its part of that row's sum
  Kokkos::View<agent_index*, MemorySpace> share_rows;  ///< rows ended before each chunk, and before the end

  /// Bytes the plan holds.
  std::size_t bytes() const {
    return (light.span() + hubs.span() + carried.span() + share_rows.span()) * sizeof(agent_index) +
           (sums.span() + parts.span()) * sizeof(std::uint64_t);
  }
};

}  // namespace herd
