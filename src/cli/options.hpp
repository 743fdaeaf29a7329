#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace herd::cli {

/// A mistake in the command line: reported with the usage hint and exit code 2.
struct UsageError {
  std::string message;
};

/// Everything `herd run` accepts. Defaults make up the built-in job.
struct Options {
  std::string command = "run";       ///< run, help or version
  std::string model = "seir";        ///< sir, seir, voter, majority
  std::string graph = "population";  ///< population, erdos-renyi, power-law, watts-strogatz, or a file
  long long agents = 1000000;
  double mean_degree = 16.0;
  double exponent = 2.5;
  double rewire = 0.1;
  bool directed = false;
  int steps = 150;
  std::uint64_t seed = 42;
  double beta = 0.08;
  int infectious_steps = 5;
  double gamma = 0.0;  ///< > 0: geometric infectious period
  int latent_steps = 2;
  double sigma = 0.0;  ///< > 0: geometric latent period
  long long initial_infected = 10;
  double initial_share = 0.5;
  std::string precision = "float";
  std::string reorder = "none";
  std::string schedule = "auto";
  int threads = 0;
  std::string csv;
  std::string json;
  bool quiet = false;
};

/// Parses argv (without the program name). Throws UsageError.
Options parse(std::vector<std::string> const& args);

/// The --help text.
std::string usage();

}  // namespace herd::cli
