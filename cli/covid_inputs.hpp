#pragma once

// What --model covid reads besides the graph: its parameters from the options, with Astoria's age
// groups, and each agent's age group and initial stage from the population. Every value and its
// source: docs/models/covid-astoria.md.

#include "input.hpp"
#include "options.hpp"

#include <herd/io/text/attribute_table.hpp>
#include <herd/models/covid.hpp>
#include <herd/models/covid_astoria.hpp>

#include <string>
#include <vector>

namespace herd::cli {

CovidParameters covid_parameters(Options const& options);

/// Each agent's age group and initial stage, by global id: from `attributes` (--attributes, in
/// agent order) or the population file's /agents; empty where the population does not give them.
/// Columns: age_group (the labels above) and initial_disease_stage (0 to 4). Collective over
/// `comm` (a population file is read by every rank).
CovidPopulation covid_population(Options const& options, AttributeTable const& attributes, global_id agents, Comm comm);

/// The same from the population file (options.graph), for agents [first, first + count) alone: a
/// rank's block of a run whose ranks read the file in blocks. Collective over `comm`.
CovidPopulation covid_population_block(Options const& options, global_id first, global_id count, Comm comm);

}  // namespace herd::cli
