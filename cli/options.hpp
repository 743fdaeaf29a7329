#pragma once

#include <herd/config.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace herd::cli {

/// The most host threads a process may start: Kokkos' OpenMP backend keeps a fixed pool of 512
/// (MAX_THREAD_COUNT in Kokkos 3 and 4), and more overrun it.
inline constexpr int max_host_threads = 512;

/// A mistake in the command line: reported with the usage hint and exit code 2.
struct UsageError {
  std::string message;
};

/// One parameter of an ensemble's sweep (--sweep NAME=LOW:HIGH:N): its option name without dashes,
/// and its N values as the option would be given (12 significant digits).
struct SweepAxis {
  std::string name;
  std::vector<std::string> values;

  bool operator==(SweepAxis const& other) const { return name == other.name && values == other.values; }
};

/// Everything `herd run` accepts. Defaults make up the built-in job.
struct Options {
  std::string command = "run";         ///< run, resume, convert, partition, help or version
  std::vector<std::string> arguments;  ///< the arguments after the command, as given
  /// The options given, by long name, with their values ("" for a flag); under parse's
  /// `later_wins`, the last value of an option given twice
  std::map<std::string, std::string> given;
  std::string model = "seir";        ///< sir, seir, voter, majority, degroot, bounded-confidence, covid
  std::string graph = "population";  ///< population, erdos-renyi, power-law, watts-strogatz, or a file
  long long agents = 1000000;
  double mean_degree = 16.0;
  double exponent = 2.5;
  double rewire = 0.1;
  bool directed = false;
  bool transpose = false;  ///< an edge-list line "u v" means u's state affects v
  int steps = 150;
  std::uint64_t seed = 42;
  std::uint64_t graph_seed = 42;  ///< of a generated graph and a random --reorder: --seed unless given
  double beta = 0.08;
  int infectious_steps = 5;
  double gamma = 0.0;  ///< > 0: geometric infectious period
  int latent_steps = 2;
  double sigma = 0.0;  ///< > 0: geometric latent period
  long long initial_infected = 10;
  double initial_share = 0.5;
  double confidence = 0.2;  ///< bounded-confidence: the largest opinion difference averaged
  // covid (docs/models/covid-astoria.md).
  double transmission_rate = 4.75;
  double mortality = 0.12;
  std::string age_reading = "labels";  ///< labels or agenttorch: how age groups get their parameters
  std::string precision = "float";
  std::string reorder = "none";
  std::string schedule = "auto";
  std::string binned_push = "auto";   ///< auto, on or off: active steps push sums through bins (CPUs)
  std::string gather_ahead = "auto";  ///< auto, on or off: pull steps ask for neighbour states ahead (CPUs)
  std::string stepping = "auto";      ///< pull, active or auto: which agents a step visits (same results)
  /// auto pushes when its estimated pushes are at most this fraction of the agents (0: Herd's default)
  double active_threshold = 0.0;
  int threads = 0;
  /// Bytes this process may use (--max-memory); 0: the node's available memory, resolved at start
  std::uint64_t max_memory = 0;
  // Ensembles (docs/ensembles.md): members are the sweep's points (the first parameter slowest)
  // times the replicates; replicate r runs with seed + r at every point.
  int replicates = 1;
  std::vector<SweepAxis> sweep;
  /// In a member's options (member_options): its number and the ensemble's member count. A member
  /// reads and writes its state in the ensemble's checkpoint (--checkpoint, herd resume).
  long long member = -1;
  long long members = 0;
  double major_outbreak = 0.1;  ///< the share of agents ever infected that makes a major outbreak
  std::string csv;
  std::string json;
  std::string record;  ///< append one JSON line per run (scaling studies)
  std::string label;   ///< free text carried into the record and JSON (e.g. strong, weak)
  bool quiet = false;
  bool profile = false;       ///< time the step loop's phases and count its allocations and copies
  std::string profile_steps;  ///< CSV of each step's phases (implies profile)
  // HDF5 files (builds with Herd_ENABLE_HDF5).
  std::string checkpoint;  ///< checkpoint file, written at the end and every checkpoint_every steps
  int checkpoint_every = 0;
  std::string output;  ///< HDF5 output: time series, final state, snapshots
  int snapshot_every = 0;
  std::string resume;  ///< herd resume: the checkpoint to continue from
  // herd convert: the graph (--graph, or the first argument) into a population file (--output).
  std::string scenario;  ///< JSON of timed events (docs/scenarios.md)
  /// The --scenario file's bytes, read once when the run starts (run_entry): its events, every
  /// member's and the checkpoint's fingerprint come from the same bytes
  std::shared_ptr<std::string const> scenario_text;
  /// Fingerprints of the --graph and --attributes files (input_fingerprint.hpp), taken when the run
  /// writes or resumes a checkpoint; 0: not taken, a generator, or no file
  std::uint64_t graph_file_hash = 0;
  std::uint64_t attributes_file_hash = 0;
  // A temporal network: --graph is a timed-contact file, cut into windows of this length (0: none).
  long long window = 0;
  std::string after_last = "loop";     ///< loop or stop: what the steps after the last window read
  std::string window_weights = "met";  ///< met or contacts: what a pair weighs in a window's snapshot
  std::string attributes;  ///< CSV of agent attributes to store with the graph (convert) or for the model (run)
  bool relabel = false;    ///< number an edge list's agents densely, keeping their ids
  // Distributed runs (mpiexec -n P herd ...).
  std::string partition = "contiguous";
  /// An ensemble's graph is distributed over the ranks, which run every member together
  /// (--partition given to an ensemble); else each rank holds the whole graph and runs its members.
  bool graph_over_ranks = false;
  int exchange_every = 1;
  bool overlap = true;
  bool device_buffers = HERD_MPI_DEVICE_BUFFERS != 0;  ///< GPU-aware MPI
  bool sparse_halo = true;                             ///< send only the ghost values that changed
  // herd partition: the partition model.
  std::vector<int> parts = {2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
  double network_gbps = 25.0;   ///< per-rank injection bandwidth, GB/s
  double latency_us = 2.0;      ///< per-message latency, microseconds
  double memory_gbps = 3350.0;  ///< per-rank memory bandwidth, GB/s (one H100)
};

/// Whether `graph` (a --graph value) names a built-in generator rather than a file.
bool is_generator(std::string const& graph);

/// Whether `o` runs an ensemble: more than one replicate, or a sweep.
inline bool is_ensemble(Options const& o) { return o.replicates > 1 || !o.sweep.empty(); }

/// Whether the run `o` writes a checkpoint or resumes one: a longer run may continue it, so its
/// scenario may hold events beyond --steps.
inline bool continues(Options const& o) { return !o.checkpoint.empty() || !o.resume.empty(); }

/// The sweep's points.
long long sweep_points(Options const& o);

/// The values of sweep point `point`, one per parameter in --sweep order (the last varies fastest).
std::vector<std::string> point_values(Options const& o, long long point);

/// Sweep point `point` as a message names it: "beta=0.1, gamma=0.2", in --sweep order.
std::string point_text(Options const& o, long long point);

/// The options of ensemble member `member` of `o` (point member / replicates, replicate member %
/// replicates): `base` (member_base(o), made once: a member copies none of the sweep's values)
/// with herd::replicate_seed and the point's parameter values.
Options member_options(Options const& o, Options const& base, long long member);

/// Refuses an ensemble's --checkpoint-every (which counts members) at or above its member count:
/// the checkpoint would be put in place only at the end. Throws UsageError.
void check_members_per_checkpoint(Options const& o);

/// What every member of `o` runs with before its seed and parameters: `o` without its sweep, the
/// ensemble's output files and its --checkpoint-every (which counts members).
Options member_base(Options const& o);

/// Throws UsageError for options that apply to one process, where `ranks` processes share the
/// graph (mpiexec, and not an ensemble whose members each hold the whole graph on a rank).
void check_for_ranks(Options const& o, int ranks);

/// Whether --graph names a population file (HDF5) as this process sees it.
bool graph_is_population_file(Options const& o);

/// Throws UsageError for the options that read an edge list's lines (--directed, --transpose,
/// --attributes), where --graph is a population file, which holds its graph as it is used.
void check_graph_file(Options const& o, bool population_file);

/// Throws UsageError for the options of active steps among `given` (--stepping active or verify,
/// --active-threshold, --binned-push) where the run visits every agent each step: a model that
/// does not step active sets, or a temporal network (--window).
void check_active_step_options(Options const& o, std::map<std::string, std::string> const& given);

/// Throws UsageError for --graph-seed among `given` where nothing reads it: a graph file that is
/// not reordered at random (--reorder random).
void check_graph_seed(Options const& o, std::map<std::string, std::string> const& given);

/// Refuses options given together that ask for opposite things (--gpu-aware-mpi, --staged-mpi).
void check_contradictions(std::map<std::string, std::string> const& given);

/// Parses argv (without the program name). Throws UsageError, also for an option given twice
/// unless `later_wins` (herd resume: options given anew replace the checkpoint's).
Options parse(std::vector<std::string> const& args, bool later_wins = false);

/// Whether the values `a` and `b` of `option` read as the same value: the same text, the same
/// number however written (1e5 and 100000), the same --window however its unit is given. A file's
/// name is compared as text (paths are not resolved here).
bool same_value(std::string const& option, std::string const& a, std::string const& b);

/// Whether `a` and `b` hold the same setting of `option`, as parsed: the value each run takes,
/// given or by default (--beta 0.08 is the default's setting). False for an option not listed.
bool same_setting(std::string const& option, Options const& a, Options const& b);

/// The --help text.
std::string usage();

}  // namespace herd::cli
