#pragma once

// What herd run writes for an ensemble (--replicates, --sweep): the summary table, every
// member's counts as CSV, and the per-point summaries as JSON (docs/ensembles.md).

#include "job.hpp"
#include "options.hpp"

#include <string>

namespace herd::cli {

/// Per sweep point: the final counts' spread over members and, for epidemic models, the
/// ever-infected share, the peak step and the share of major outbreaks.
std::string ensemble_table(Options const& options, JobResult const& result);

/// One row per member and step: member, point, replicate, seed, the swept parameters' values,
/// step, then the observables.
std::string ensemble_csv(Options const& options, JobResult const& result);

/// Per sweep point: its parameters, members and seeds; each observable's mean and 5/25/50/75/95 %
/// quantiles at every step; the final counts'; and, for epidemic models, every member's
/// ever-infected count and peak step with their spreads and the share of major outbreaks.
std::string ensemble_json(Options const& options, JobResult const& result, std::string const& kokkos_configuration);

}  // namespace herd::cli
