#include "run_files.hpp"

#include <herd/io/output_file.hpp>

#include <algorithm>

#if HERD_ENABLE_HDF5
namespace herd::cli {

Options resume_options(std::string const& checkpoint, std::vector<std::string> const& extra) {
  auto const saved = mpi::collectively(MPI_COMM_WORLD, [&] {
    auto file = io::h5::File::open(checkpoint, MPI_COMM_WORLD);
    return io::read_record(file, "herd-checkpoint").arguments;
  });
  std::vector<std::string> args = {"run"};
  args.insert(args.end(), saved.begin(), saved.end());
  Options original;
  try {
    original = parse(args);
  } catch (UsageError const& e) {
    throw Error(checkpoint + ": the run's arguments it holds are invalid: " + e.message);
  }
  args.insert(args.end(), extra.begin(), extra.end());
  Options merged = parse(args, true);  // a UsageError here is the user's
  // What the results depend on must stay as the checkpoint's run had it.
  auto same = [&](bool equal, char const* option) {
    if (!equal)
      throw UsageError{std::string("resume: ") + option +
                       " would change the results; the checkpoint's run keeps its own"};
  };
  same(merged.model == original.model, "--model");
  same(merged.graph == original.graph && merged.agents == original.agents &&
           merged.mean_degree == original.mean_degree && merged.exponent == original.exponent &&
           merged.rewire == original.rewire && merged.directed == original.directed,
       "a graph option");
  same(merged.seed == original.seed, "--seed");
  same(merged.beta == original.beta && merged.infectious_steps == original.infectious_steps &&
           merged.gamma == original.gamma && merged.latent_steps == original.latent_steps &&
           merged.sigma == original.sigma && merged.initial_infected == original.initial_infected &&
           merged.initial_share == original.initial_share && merged.confidence == original.confidence,
       "a model parameter");
  same(merged.precision == original.precision, "--precision");
  same(merged.exchange_every == original.exchange_every, "--exchange-every");
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
