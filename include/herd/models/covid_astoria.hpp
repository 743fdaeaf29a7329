#pragma once

// The age groups of AgentTorch's Astoria population for the COVID model: its labels, in the order
// of AgentTorch's age codes (pandas factorize order of the source data), and two readings of the
// model's age tables. docs/models/covid-astoria.md gives the sources and why the readings differ.

#include <herd/core/error.hpp>
#include <herd/models/covid.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace herd {

/// Astoria's age labels; a label's position is AgentTorch's age code.
inline std::vector<std::string> const& astoria_age_labels() {
  static std::vector<std::string> const labels = {"20t29", "30t39", "40t49", "50t64", "65A", "U19"};
  return labels;
}

/// Each Astoria age code's rank from the oldest group: 65A is 0, 50t64 1, ..., U19 5 (the codes
/// are not in the order of ages: U19 is the last).
inline std::vector<std::uint8_t> const& astoria_oldest_first() {
  static std::vector<std::uint8_t> const rank = {4, 3, 2, 1, 0, 5};
  return rank;
}

/// The age groups of Astoria's labels with their parameters. `labels`: each label gets the
/// parameters of the ages it names. `agenttorch`: AgentTorch's tables indexed by the age code, as
/// its code does. The shares are Astoria's 37,518 agents by age code.
inline std::vector<CovidAgeGroup> astoria_age_groups(std::string const& reading) {
  std::vector<double> const share = {6723, 11573, 5724, 4647, 3910, 4941};
  std::vector<double> susceptibility, interactions;
  if (reading == "agenttorch") {
    // The 9-entry susceptibility table (10-year bands from 0-9) indexed by the age code; codes < 1
    // counted as children, 1 to 4 as adults, > 4 as elderly for the mean interactions.
    susceptibility = {0.35, 0.69, 1.03, 1.03, 1.03, 1.03};
    interactions = {2, 3, 3, 3, 3, 4};
  } else {
    require(reading == "labels", "covid: unknown age reading '" + reading + "' (expected labels or agenttorch)");
    // The same tables read by what each label says: the mean of the 10-year bands a group spans,
    // weighted by years (65A taken as 65-84); U19 are children, 65A elderly.
    susceptibility = {1.03, 1.03, 1.03, (10 * 1.03 + 5 * 1.27) / 15, (5 * 1.27 + 15 * 1.52) / 20, (0.35 + 0.69) / 2};
    interactions = {3, 3, 3, 3, 4, 2};
  }
  std::vector<CovidAgeGroup> groups;
  for (std::size_t g = 0; g < share.size(); ++g)
    groups.push_back({astoria_age_labels()[g], susceptibility[g], interactions[g], share[g]});
  return groups;
}

}  // namespace herd
