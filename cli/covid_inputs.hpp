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

/// Whether `attributes`, the --attributes table of a resumed run, holds ids alone: a table that
/// earlier versions took for none (ages drawn), whose checkpoints resume as they were written.
bool ids_alone_resumed(Options const& options, AttributeTable const& attributes);

/// Each agent's age group and initial stage, by global id: from `attributes` (--attributes, in
/// agent order) or the population file's /agents; empty where the population does not give them.
/// Columns: age_group (the labels above) and initial_disease_stage (0 to 4); without stages,
/// --initial-infected must not exceed `agents`. Collective over `comm` (a population file is read
/// by every rank).
CovidPopulation covid_population(Options const& options, AttributeTable const& attributes, global_id agents, Comm comm);

/// The same for this rank's owned agents alone, whose global ids `owned` lists in local order: a
/// distributed run whose ranks read their own agents'. From `attributes` (--attributes' rows of
/// the owned agents, in that order) or, when it has no columns, the population file
/// (options.graph); `agents`: the whole graph's. A bad value is named as covid_population names
/// it, on every rank. Collective over `comm`. Defined with MPI.
CovidPopulation covid_population_of_owned(Options const& options, std::vector<global_id> const& owned, global_id agents,
                                          AttributeTable const& attributes, Comm comm);

}  // namespace herd::cli
