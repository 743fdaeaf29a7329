#pragma once

#include "job.hpp"
#include "options.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

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
  int last_step_ = -1;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// "1,234,567": a count with its thousands separated.
std::string with_commas(long long value);

/// A scenario's events, a line each, indented: the steps, and what each set or how many agents it
/// changed, `agents_text(k)` giving event k's count; an event after `last_step`, the run's last
/// (one that writes a checkpoint may name them), says so instead.
std::string events_table(std::vector<EventRun> const& events,
                         std::function<std::string(std::size_t)> const& agents_text, int last_step);
/// The same as JSON: a list of objects, with the agents per step of each event that changes agents.
nlohmann::ordered_json events_json(std::vector<EventRun> const& events);

/// The summary table printed at the end of a run.
std::string summary_table(Options const& options, JobResult const& result);
/// The time series: one row per step, one column per state.
std::string csv(JobResult const& result);
/// The machine-readable summary.
std::string json(Options const& options, JobResult const& result, std::string const& kokkos_configuration);
/// The text of a JSON document: a number that is not finite (no steps run) becomes null, and
/// bytes that are not UTF-8 (a label, a file name) become U+FFFD, so that every reader can parse it.
std::string json_text(nlohmann::ordered_json const& document, int indent);

/// Every step of the loop (--profile-steps): the slowest rank's seconds per phase and in all,
/// the ranks that stepped their active list and the agents stepped.
std::string profile_steps_csv(JobResult const& result);

/// One line of JSON describing the run, for scaling studies: ranks, threads, backend, sizes, cut
/// fraction and the slowest rank's seconds per step split into compute, pack, MPI wait, unpack.
std::string record(Options const& options, JobResult const& result);

}  // namespace herd::cli
