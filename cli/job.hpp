#pragma once

#include "options.hpp"
#include "output_files.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace herd::cli {

/// One rank's share of a run: its graph, its halo, and where its time went.
struct RankStats {
  long long owned = 0;
  long long ghosts = 0;
  unsigned long long edges = 0;      ///< entries of owned rows
  unsigned long long cut_edges = 0;  ///< of which point to a ghost
  int neighbours = 0;                ///< ranks it receives ghosts from
  double step_seconds = 0.0;         ///< the step loop on this rank
  double pack_seconds = 0.0;
  double wait_seconds = 0.0;
  double unpack_seconds = 0.0;
  long long messages_sent = 0;
  long long bytes_sent = 0;
  /// Setup on this rank, by phase: building or reading the graph (all of it, or the rank's share
  /// of a generated graph), partitioning it, extracting the rank's share, the halo plan's
  /// handshake, and the simulation's own preparation (its step plan, the active set's arrays, a
  /// transpose where pushes need one).
  double graph_seconds = 0.0;
  double partition_seconds = 0.0;
  double local_graph_seconds = 0.0;
  double halo_plan_seconds = 0.0;
  double simulation_seconds = 0.0;
  long long peak_memory_bytes = 0;  ///< the process's peak resident memory (host), at the end of the run
};

/// One step of the loop (herd run --profile-steps), over ranks when distributed.
struct StepProfile {
  long long step = 0;                   ///< the simulation's step count after it
  int listed_ranks = 0;                 ///< ranks that stepped their active list (on one process: 0 or 1)
  long long stepped = 0;                ///< agents stepped, summed over ranks
  std::vector<double> slowest_seconds;  ///< per phase, the rank that spent the most in it
  double slowest_total = 0.0;           ///< the step's time on its slowest rank
};

/// Where the step loop's time went (herd run --profile): seconds per herd::LoopPhase, mean and
/// slowest over ranks, and the loop's memory events and halo traffic summed over ranks.
struct LoopProfile {
  bool enabled = false;
  std::vector<std::string> phases;      ///< names, in herd::LoopPhase order
  std::vector<double> mean_seconds;     ///< per phase, mean over ranks
  std::vector<double> slowest_seconds;  ///< per phase, the rank that spent the most in it
  long long allocations = 0;
  long long allocated_bytes = 0;
  long long deep_copies = 0;
  long long copied_bytes = 0;
  long long cross_space_copies = 0;  ///< between host and device memory
  long long cross_space_bytes = 0;
  long long messages_sent = 0;
  long long bytes_sent = 0;
  std::vector<StepProfile> steps;  ///< every step, when asked for (--profile-steps)
};

/// One member of an ensemble (herd run --replicates, --sweep): its number, its seed, and its
/// counts as JobResult::counts holds a single run's.
struct MemberRun {
  long long member = 0;
  std::uint64_t seed = 0;
  std::vector<std::vector<long long>> counts;
  /// Per scenario event: the agents it changed since step 0 (RunFiles::knows_earlier_events; 0 for set and
  /// layer events).
  std::vector<long long> event_agents;
};

/// What one event of a scenario did: the agents it changed before each step of its own.
struct EventRun {
  std::string name;  ///< the file's key: events[k], or events[k].set.NAME
  std::string kind;  ///< set, import, vaccinate, layer or isolate
  int first = 0, last = 0;
  std::string parameter;          ///< set
  double value = 0.0;             ///< set
  bool reverts = false;           ///< set: the parameter returns to its earlier value after `last`
  std::vector<long long> agents;  ///< import, vaccinate: per step from `first` (on a resumed run, the steps it ran)
  std::vector<std::pair<std::string, double>> layers;  ///< layer: each layer's factor
  int cycle = 0;                                       ///< layer: the cycle's steps, where it acts on days of one
  std::vector<int> days;                               ///< layer: the days of the cycle it acts on
  double probability = 0.0;                            ///< isolate: the chance of detection a step
  int duration = 0;                                    ///< isolate: the steps an isolation lasts
  std::vector<std::string> keeps;                      ///< isolate: the layers isolated agents keep
};

/// Each event's agents over the steps it ran: what an ensemble keeps of a member's events.
std::vector<long long> event_totals(std::vector<EventRun> const& events);

/// The events as a scenario lists them, without what one run's agents made of them.
std::vector<EventRun> event_schedule(std::vector<EventRun> events);

struct MemberState;  // ensemble_checkpoint.hpp

/// What a run produced, for the summary table, the CSV and the JSON.
struct JobResult {
  /// An ensemble member's state at the end of its run, for the ensemble's checkpoint (or null).
  std::shared_ptr<MemberState> member_state;
  std::string graph_name;
  long long agents = 0;
  unsigned long long edges = 0;  ///< stored directed entries (an undirected contact counts twice)
  /// Entries the steps read in all, where not edges times steps: a temporal network's snapshots
  /// (`edges` then counts every pair that ever met); -1 otherwise.
  double edges_read = -1.0;
  double mean_degree = 0.0;
  int max_degree = 0;
  bool weighted = false;
  std::string schedule;
  std::string stepping;                        ///< pull, active or auto; empty when the model steps every agent
  long long steps_counted = 0;                 ///< steps of a model that declares activity
  long long active_steps = 0;                  ///< of which stepped on the active list
  double mean_active_share = 1.0;              ///< agents stepped / agents, averaged over those steps
  double active_threshold = 0.0;               ///< pushes / agents up to which auto steps the active agents
  bool binned_push = false;                    ///< active steps pushed sums through bins (on some rank)
  bool gather_ahead = false;                   ///< pull steps asked for neighbour states ahead (on some rank)
  bool spreader_bits = false;                  ///< pull steps counted spreading neighbours' bits (on some rank)
  bool weight_codes = false;                   ///< and added the weights' contributions by code (on some rank)
  std::vector<std::string> columns;            ///< observable names shown
  std::vector<std::vector<long long>> counts;  ///< [step][column], step 0 = initial state
  std::vector<EventRun> events;                ///< a scenario's (--scenario), in the file's order
  std::vector<MemberRun> members;              ///< an ensemble's, in member order (counts then empty)
  int member_ranks = 1;                        ///< the ranks an ensemble's members were spread over
  int graph_ranks = 1;                         ///< the ranks an ensemble's graph was distributed over
  bool shared_passes = false;                  ///< an ensemble's members shared their passes over the graph
  double setup_seconds = 0.0;                  ///< graph generation, reordering, initial state
  double step_seconds = 0.0;                   ///< the step loop, observables included
  long long first_step = 0;                    ///< the step a resumed run began after (0: none)
  /// An ensemble's member-steps made on the busiest rank, where its members resumed; -1: every
  /// member made every step.
  long long member_steps = -1;
  double bytes_per_agent = 0.0;
  double bytes_per_edge = 0.0;
  std::string backend;
  int threads = 0;
  LoopProfile profile;
  std::vector<RankStats> ranks;  ///< one entry per MPI rank (one entry on one process)
  bool rank_zero = true;         ///< whether this process reports (rank 0)
  /// The run's HDF5 files (--output, the final --checkpoint), complete under temporary names, to be
  /// put in place with the reports; rank 0's (empty elsewhere).
  std::shared_ptr<FinishedOutputs> outputs = std::make_shared<FinishedOutputs>();
};

/// Builds the graph and model `options` describe and runs them; `progress(step, steps)` is called
/// after each step is launched (on rank 0). Under mpiexec with more than one rank the run is
/// distributed; every rank returns the global counts. An ensemble's members run one after
/// another on one graph, spread over the ranks under mpiexec (each rank holds the whole graph);
/// progress then counts members, and rank 0 returns them all. Throws herd::Error on bad parameters or input
/// files, on every rank alike (herd::mpi::CollectiveError when distributed).
JobResult run_job(Options const& options, std::function<void(int, int)> const& progress);

}  // namespace herd::cli
