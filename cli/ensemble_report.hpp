#pragma once

// What herd run writes for an ensemble (--replicates, --sweep): the summary table, every
// member's counts as CSV, and the per-point summaries as JSON (docs/ensembles.md).

#include "job.hpp"
#include "options.hpp"

#include <herd/ensemble/summary.hpp>

#include <string>
#include <vector>

namespace herd::cli {

/// The names of Spread's quantiles in every output: q05, q25, q50, q75, q95.
inline constexpr char const* quantile_names[] = {"q05", "q25", "q50", "q75", "q95"};

/// The members of each sweep point (member m is point m / replicates), in member order.
std::vector<std::vector<MemberRun const*>> by_point(Options const& options, JobResult const& result);

/// Whether the observables include S and I: an epidemic, whose outbreaks are summarised.
bool is_epidemic(JobResult const& result);

/// Each observable's spread over `members` at every step: element t * columns + c.
std::vector<Spread> series_spreads(JobResult const& result, std::vector<MemberRun const*> const& members);

/// An epidemic's members: agents ever infected (all but the final susceptibles, the initially
/// infected included), the first step of the infectious count's peak, and how many members
/// infected more than --major-outbreak of the agents.
struct Outbreaks {
  std::vector<double> ever_infected, peak_steps;
  long long major = 0;
};
Outbreaks outbreaks(Options const& options, JobResult const& result, std::vector<MemberRun const*> const& members);

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
