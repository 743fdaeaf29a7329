#pragma once

#include "job.hpp"
#include "options.hpp"

#include <chrono>
#include <string>

namespace herd::cli {

/// Progress on stderr: a bar redrawn in place on a terminal, a line every 10 % otherwise.
class Progress {
 public:
  /// `unit`: what it counts (steps, or an ensemble's members).
  Progress(bool enabled, bool terminal, char const* unit = "step")
      : enabled_(enabled), terminal_(terminal), unit_(unit) {}
  void operator()(int step, int steps);

 private:
  bool enabled_;
  bool terminal_;
  char const* unit_;
  int last_shown_ = -1;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// "1,234,567": a count with its thousands separated.
std::string with_commas(long long value);

/// The summary table printed at the end of a run.
std::string summary_table(Options const& options, JobResult const& result);
/// The time series: one row per step, one column per state.
std::string csv(JobResult const& result);
/// The machine-readable summary.
std::string json(Options const& options, JobResult const& result, std::string const& kokkos_configuration);

/// Every step of the loop (--profile-steps): the slowest rank's seconds per phase and in all,
/// the ranks that stepped their active list and the agents stepped.
std::string profile_steps_csv(JobResult const& result);

/// One line of JSON describing the run, for scaling studies: ranks, threads, backend, sizes, cut
/// fraction and the slowest rank's seconds per step split into compute, pack, MPI wait, unpack.
std::string record(Options const& options, JobResult const& result);

}  // namespace herd::cli
