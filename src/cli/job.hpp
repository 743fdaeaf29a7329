#pragma once

#include "options.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace herd::cli {

/// What a run produced, for the summary table, the CSV and the JSON.
struct JobResult {
  std::string graph_name;
  long long agents = 0;
  unsigned long long edges = 0;  ///< stored directed entries (an undirected contact counts twice)
  double mean_degree = 0.0;
  int max_degree = 0;
  bool weighted = false;
  std::string schedule;
  std::vector<std::string> columns;            ///< observable names shown
  std::vector<std::vector<long long>> counts;  ///< [step][column], step 0 = initial state
  double setup_seconds = 0.0;                  ///< graph generation, reordering, initial state
  double step_seconds = 0.0;                   ///< the step loop, observables included
  double bytes_per_agent = 0.0;
  double bytes_per_edge = 0.0;
  std::string backend;
  int threads = 0;
};

/// Builds the graph and model `options` describe and runs them; `progress(step, steps)` is called
/// after each step is launched. Throws herd::Error on bad parameters or input files.
JobResult run_job(Options const& options, std::function<void(int, int)> const& progress);

}  // namespace herd::cli
