#include "run_files.hpp"
#include "input.hpp"

#include <herd/io/output_file.hpp>

#include <algorithm>
#include <filesystem>

#if HERD_ENABLE_HDF5
namespace herd::cli {

std::vector<std::string> with_absolute_inputs(std::vector<std::string> const& arguments) {
  auto absolute = [](std::string const& path) {
    if (path.empty() || path[0] == '/' || is_generator(path)) return path;
    std::error_code failed;
    auto const resolved = std::filesystem::absolute(path, failed);
    return failed ? path : resolved.lexically_normal().string();
  };
  std::vector<std::string> out = arguments;
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (std::string const option : {"--graph", "--attributes"}) {
      if (out[i] == option && i + 1 < out.size()) {
        out[i + 1] = absolute(out[i + 1]);
      } else if (out[i].rfind(option + "=", 0) == 0) {
        out[i] = option + "=" + absolute(out[i].substr(option.size() + 1));
      }
    }
  }
  return out;
}

Options resume_options(std::string const& checkpoint, std::vector<std::string> const& extra) {
  auto const saved = mpi::collectively(MPI_COMM_WORLD, [&] {
    auto file = io::h5::File::open(checkpoint, MPI_COMM_WORLD);
    return io::read_record(file, "herd-checkpoint").arguments;
  });
  std::vector<std::string> args = {"run"};
  args.insert(args.end(), saved.begin(), saved.end());
  try {
    (void)parse(args);
  } catch (UsageError const& e) {
    throw Error(checkpoint + ": the run's arguments it holds are invalid: " + e.message);
  }
  // What the results depend on stays as the checkpoint's run had it: an option outside this list
  // is accepted only with the value the run gave it.
  static char const* const may_change[] = {"--steps",        "--threads",        "--max-memory", "--csv",
                                           "--json",         "--record",         "--label",      "--quiet",
                                           "--profile",      "--profile-steps",  "--checkpoint", "--checkpoint-every",
                                           "--output",       "--snapshot-every", "--partition",  "--schedule",
                                           "--gather-ahead", "--binned-push",    "--stepping",   "--active-threshold",
                                           "--reorder",      "--no-overlap",     "--dense-halo", "--gpu-aware-mpi",
                                           "--staged-mpi"};
  auto const stored = options_given(saved);
  for (auto const& given : options_given(extra)) {
    if (std::find(std::begin(may_change), std::end(may_change), given.first) != std::end(may_change)) continue;
    if (std::find(stored.begin(), stored.end(), given) == stored.end())
      throw UsageError{"resume: " + given.first +
                       " would change the results; the checkpoint's run keeps its own (outputs, --steps, "
                       "--threads and how steps run may be given anew)"};
  }
  args.insert(args.end(), extra.begin(), extra.end());
  Options merged = parse(args, true);  // a UsageError here is the user's
  // The checkpoint a run started from is overwritten only when asked again (--checkpoint): the
  // run's own --checkpoint names it, and a failed resume must leave it to try again.
  bool const asked = std::any_of(extra.begin(), extra.end(), [](std::string const& a) {
    return a == "--checkpoint" || a.rfind("--checkpoint=", 0) == 0;
  });
  if (!asked && !merged.checkpoint.empty() && io::identity_of(merged.checkpoint) == io::identity_of(checkpoint)) {
    merged.checkpoint.clear();
    merged.checkpoint_every = 0;
  }
  merged.command = "run";
  merged.resume = checkpoint;
  return merged;
}

}  // namespace herd::cli
#endif
