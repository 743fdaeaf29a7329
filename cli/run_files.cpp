#include "run_files.hpp"
#include "input.hpp"
#include "input_fingerprint.hpp"
#include "output_files.hpp"

#include <herd/core/fnv1a.hpp>
#include <herd/io/output_file.hpp>
#include <herd/mpi/collective.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>
#include <utility>

#if HERD_ENABLE_HDF5
namespace herd::cli {

std::vector<std::string> with_absolute_inputs(std::vector<std::string> const& arguments) {
  auto absolute = [](std::string const& path) {
    return path.empty() || path[0] == '/' || is_generator(path) ? path : absolute_path(path);
  };
  std::vector<std::string> out = arguments;
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (std::string const option : {"--graph", "--attributes", "--scenario"}) {
      if (out[i] == option && i + 1 < out.size()) {
        out[i + 1] = absolute(out[i + 1]);
      } else if (out[i].rfind(option + "=", 0) == 0) {
        out[i] = option + "=" + absolute(out[i].substr(option.size() + 1));
      }
    }
  }
  return out;
}

io::RunRecord run_record(Options const& o, std::uint64_t agents, std::uint64_t edges, std::uint64_t graph_hash,
                         std::vector<std::string> observables) {
  io::RunRecord record;
  record.arguments = with_absolute_inputs(o.arguments);
  record.model = o.model;
  record.seed = o.seed;
  record.agents = agents;
  record.edges = edges;
  record.graph_hash = graph_hash;
  record.observables = std::move(observables);
  if (o.scenario_text) record.scenario_hash = scenario_fingerprint(*o.scenario_text);
  record.graph_file_hash = o.graph_file_hash;
  record.attributes_file_hash = o.attributes_file_hash;
  return record;
}

std::uint64_t scenario_fingerprint(std::string const& text) {
  auto const hash = fnv1a(text);
  return hash == 0 ? 1 : hash;
}

namespace {

// Whether `given`, a value of `option` given to herd resume, names what the checkpoint's run read
// as `stored`: the same value (same_value), the same file by another path (relative to this
// folder, or a link), or any file where the checkpoint keeps a fingerprint of the one its run
// read, which the run then checks against the file's bytes (an input moved with its checkpoint).
bool same_input(std::string const& option, std::string const& stored, std::string const& given,
                io::RunRecord const& record) {
  if (same_value(option, stored, given)) return true;
  if (option == "--scenario") return record.scenario_hash != 0;
  if (option != "--graph" && option != "--attributes") return false;
  if (is_generator(stored) || is_generator(given)) return false;
  if ((option == "--graph" ? record.graph_file_hash : record.attributes_file_hash) != 0) return true;
  auto const anew = with_absolute_inputs({option, given})[1];
  if (anew == stored) return true;
  std::error_code failed;
  bool const same = std::filesystem::equivalent(stored, anew, failed);
  return !failed && same;
}

// Why the input `option` at `path`, which the checkpoint knows by its bytes, cannot be read for
// them (empty where it can): gone from the path the checkpoint's run read it by (`anew`: a path
// given to resume), or not a regular file (a pipe gives its bytes once, to the run). A scenario
// given anew may be a pipe: rank 0 reads it once and hands its bytes on. An input the checkpoint
// keeps no fingerprint of (`unknown`: why, see no_fingerprint) is read at its path again, a pipe
// as well: only its being gone is a problem.
std::string input_problem(std::string const& option, std::string const& path, bool anew,
                          std::string const& unknown = {}) {
  std::error_code failed;
  auto const status = std::filesystem::status(path, failed);
  if (!std::filesystem::exists(status)) {
    if (anew) return "resume: " + option + " " + path + ": no such file";
    std::string gone = "resume: " + path + ", the " + option + " file the checkpoint's run read, is gone";
    return unknown.empty()
               ? gone + ": give it anew with " + option + " FILE (any path; the file must hold the same bytes)"
               : gone + ", and " + unknown + ": resume reads that path again; give it the same bytes there";
  }
  if (std::filesystem::is_regular_file(status) || !unknown.empty()) return {};
  bool const scenario = option == std::string("--scenario");
  if (scenario && anew && std::filesystem::is_fifo(status)) return {};
  if (!anew)
    return "resume: " + path + ", the " + option +
           " file the checkpoint's run read, is not a regular file (a pipe gave its bytes once): give it anew with " +
           option + " FILE";
  return "resume: " + option + " " + path + " is not a regular file" +
         (scenario ? std::string(" or a pipe") : std::string()) +
         ": the checkpoint knows the file its run read by its bytes, which resume reads again" +
         (scenario ? std::string() : std::string(" (a pipe gives them once)"));
}

// Why the checkpoint keeps no fingerprint of the `option` file at `path` its run read, or empty
// where it keeps one (or the input is no file): that file is then taken at its path alone.
std::string no_fingerprint(std::string const& option, std::string const& path, io::RunRecord const& record) {
  if (option != "--graph" && option != "--attributes") return {};
  if (path.empty() || is_generator(path)) return {};
  if ((option == "--graph" ? record.graph_file_hash : record.attributes_file_hash) != 0) return {};
  return "the checkpoint keeps no fingerprint of its bytes (its run read a pipe, or was of an older version)";
}

// Throws a UsageError on every rank where any rank gives a `failure`, with the lowest such rank's:
// ranks may see other files, and one that stopped alone would leave the others waiting.
void agree_on_usage(std::string const& failure) {
  int const size = mpi::size_of(MPI_COMM_WORLD);
  int first = failure.empty() ? size : mpi::rank_of(MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first < size) throw UsageError{mpi::broadcast_text(MPI_COMM_WORLD, failure, first)};
}

}  // namespace

Options resume_options(std::string const& checkpoint, std::vector<std::string> const& extra) {
  auto const record = mpi::collectively(MPI_COMM_WORLD, [&] {
    auto file = io::h5::File::open(checkpoint, MPI_COMM_WORLD);
    return io::read_record(file, "herd-checkpoint");
  });
  auto const& saved = record.arguments;
  std::vector<std::string> args = {"run"};
  args.insert(args.end(), saved.begin(), saved.end());
  Options run_had;  // a resumed run's checkpoint holds the options it was given anew last
  try {
    run_had = parse(args, true);
  } catch (UsageError const& e) {
    throw Error(checkpoint + ": the run's arguments it holds are invalid: " + e.message);
  }
  auto const& stored = run_had.given;  // each option's last value
  // An option the run was not given, given anew with the setting the run took without it: its
  // default (--beta 0.08), or --graph-seed as --seed.
  auto const as_run_had = [&](std::pair<std::string const, std::string> const& given) {
    auto with = args;
    with.push_back(given.first);
    if (!given.second.empty()) with.push_back(given.second);
    try {
      return same_setting(given.first, parse(with, true), run_had);
    } catch (UsageError const&) {
      return false;
    }
  };
  // What the results depend on stays as the checkpoint's run had it: an option outside this list
  // is accepted only with the value the run gave it.
  static char const* const may_change[] = {"--steps",        "--threads",        "--max-memory", "--csv",
                                           "--json",         "--record",         "--label",      "--quiet",
                                           "--profile",      "--profile-steps",  "--checkpoint", "--checkpoint-every",
                                           "--output",       "--snapshot-every", "--partition",  "--schedule",
                                           "--gather-ahead", "--binned-push",    "--stepping",   "--active-threshold",
                                           "--reorder",      "--no-overlap",     "--dense-halo", "--gpu-aware-mpi",
                                           "--staged-mpi"};
  std::vector<std::string> resume = {"resume", checkpoint};  // parsed as given, checked below
  resume.insert(resume.end(), extra.begin(), extra.end());
  auto const anew = parse(resume);
  auto const& given_anew = anew.given;
  check_contradictions(given_anew);
  // Each rank compares the files given anew as it sees them: the ranks agree on a refusal.
  std::string changed;
  try {
    for (auto const& given : given_anew) {
      if (std::find(std::begin(may_change), std::end(may_change), given.first) != std::end(may_change)) continue;
      auto const kept = stored.find(given.first);
      // The same text, file or setting (a sweep's points are compared, not how they were written).
      if ((kept != stored.end() && same_input(given.first, kept->second, given.second, record)) || as_run_had(given))
        continue;
      // Another graph seed for a graph it does not seed is refused as the run refuses it.
      if (given.first == "--graph-seed") {
        Options seeded = run_had;
        if (given_anew.count("--reorder")) seeded.reorder = anew.reorder;
        check_graph_seed(seeded, given_anew);
      }
      std::string message = "resume: " + given.first;
      if (!given.second.empty()) message.append(" ").append(given.second);
      message.append(" would change the results: the checkpoint's run ");
      if (kept == stored.end())
        message.append("was not given it");
      else
        message.append(kept->second.empty() ? "was given it" : "was given ").append(kept->second);
      if (auto const why = kept != stored.end() ? no_fingerprint(given.first, kept->second, record) : ""; !why.empty())
        message.append(": ").append(why).append(", so only that path serves");
      else
        message.append(" (outputs, --steps, --threads and how steps run may be given anew)");
      throw UsageError{message};
    }
  } catch (UsageError const& e) {
    changed = e.message;
  }
  agree_on_usage(changed);
  args.insert(args.end(), extra.begin(), extra.end());
  Options merged = parse(args, true);  // a UsageError here is the user's
  // The options of active steps given anew to a run that visits every agent: they would do nothing
  // (the checkpoint's own, taken when it was written, stay readable).
  check_active_step_options(merged, given_anew);
  // The inputs the checkpoint knows by their bytes, which are read again below: a regular file
  // each, where to give one moved since, as every rank sees them. One it keeps no fingerprint of is
  // read at its path again: gone from there, it is named.
  std::string unreadable;
  for (auto const& [option, path, hash] :
       {std::tuple{"--graph", merged.graph, record.graph_file_hash},
        std::tuple{"--attributes", merged.attributes, record.attributes_file_hash}}) {
    auto const unknown = no_fingerprint(option, path, record);
    if (unreadable.empty() && (hash != 0 || !unknown.empty()))
      unreadable = input_problem(option, path, given_anew.count(option) != 0, unknown);
  }
  // The scenario is rank 0's to read: the others may not see its path.
  if (unreadable.empty() && record.scenario_hash != 0 && !merged.scenario.empty() && mpi::rank_of(MPI_COMM_WORLD) == 0)
    unreadable = input_problem("--scenario", merged.scenario, given_anew.count("--scenario") != 0);
  agree_on_usage(unreadable);

  // A resumed run writes the files its own command line names, and no other: the checkpoint's run
  // named its outputs relative to another folder, and its --checkpoint is the file resumed, kept
  // for another try unless named again.
  auto const asked = [&](char const* option) { return given_anew.count(option) != 0; };
  if (!asked("--csv")) merged.csv.clear();
  if (!asked("--json")) merged.json.clear();
  if (!asked("--record")) merged.record.clear();
  if (!asked("--profile-steps")) merged.profile_steps.clear();
  if (!asked("--checkpoint")) merged.checkpoint.clear();
  if (!asked("--checkpoint-every")) merged.checkpoint_every = 0;
  if (!asked("--output")) merged.output.clear();
  if (!asked("--snapshot-every")) merged.snapshot_every = 0;
  bool const ranks = mpi::size_of(MPI_COMM_WORLD) > 1;
  // How one process ran its steps, where the checkpoint's run had one, is not asked of ranks
  // resuming it: --reorder and --stepping verify change no result.
  if (ranks) {
    if (!asked("--reorder")) merged.reorder = "none";
    if (!asked("--stepping") && merged.stepping == "verify") merged.stepping = "auto";
  }
  if (merged.checkpoint_every > 0 && merged.checkpoint.empty())
    throw UsageError{"--checkpoint-every needs --checkpoint FILE: a resumed run writes only the files it names"};
  check_members_per_checkpoint(merged);
  if (merged.snapshot_every > 0 && merged.output.empty())
    throw UsageError{"--snapshot-every needs --output FILE: a resumed run writes only the files it names"};
  // An ensemble over the ranks' members each read the file resumed anew: one put in place under its
  // name on the way would hide the members it held.
  // As each rank sees the two files: agreed on.
  bool const over_itself = is_ensemble(merged) && merged.graph_over_ranks && ranks && merged.checkpoint_every > 0 &&
                           io::identity_of(checkpoint) == io::identity_of(merged.checkpoint);
  agree_on_usage(over_itself ? "--checkpoint " + merged.checkpoint +
                                   " --checkpoint-every: with the graph over the ranks (--partition), an ensemble "
                                   "resumed puts its progress in place under another name than the file it resumes"
                             : "");
  // The arguments and /run's attributes are stored apart: a file where they disagree was damaged.
  if (merged.seed != record.seed || merged.model != record.model)
    throw Error(checkpoint + ": its stored arguments give --model " + merged.model + " --seed " +
                std::to_string(merged.seed) + ", but /run records model " + record.model + " and seed " +
                std::to_string(record.seed) + ": the file is damaged");
  // The inputs, by whatever name, must hold the bytes the checkpoint's run read: checked before the
  // graph is built from them.
  fingerprint_inputs(merged, MPI_COMM_WORLD);
  for (auto const& [option, path, saved, now] :
       {std::tuple{"--graph", merged.graph, record.graph_file_hash, merged.graph_file_hash},
        std::tuple{"--attributes", merged.attributes, record.attributes_file_hash, merged.attributes_file_hash}})
    if (saved != 0 && saved != now)
      throw Error(std::string(checkpoint)
                      .append(": written by a run that read another ")
                      .append(option)
                      .append(" file: ")
                      .append(path)
                      .append(" is not the file it read, or changed since (the contacts or attributes from the "
                              "checkpoint on would differ)"));
  merged.command = "run";
  merged.resume = checkpoint;
  return merged;
}

}  // namespace herd::cli
#endif
