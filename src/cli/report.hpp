#pragma once

#include "job.hpp"
#include "options.hpp"

#include <chrono>
#include <string>

namespace herd::cli {

/// Progress on stderr: a bar redrawn in place on a terminal, a line every 10 % otherwise.
class Progress {
 public:
  Progress(bool enabled, bool terminal) : enabled_(enabled), terminal_(terminal) {}
  void operator()(int step, int steps);

 private:
  bool enabled_;
  bool terminal_;
  int last_shown_ = -1;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// The summary table printed at the end of a run.
std::string summary_table(Options const& options, JobResult const& result);
/// The time series: one row per step, one column per state.
std::string csv(JobResult const& result);
/// The machine-readable summary.
std::string json(Options const& options, JobResult const& result, std::string const& kokkos_configuration);

/// Writes `content` to `path` through a temporary file renamed into place, so a reader never
/// sees half a file. Throws herd::Error naming the path when it cannot.
void write_file_atomically(std::string const& path, std::string const& content);

}  // namespace herd::cli
