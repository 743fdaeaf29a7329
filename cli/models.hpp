#pragma once

// What the option parser and the usage text need to know of the models (cli/model_registry.hpp),
// without the models' headers.

#include <string>
#include <vector>

namespace herd::cli {

/// Every name --model accepts, in table order.
std::vector<std::string> model_names();

/// The names of the models that read agent attributes (--attributes).
std::vector<std::string> models_reading_attributes();

/// The parameters the model named `model` reads (option names without dashes): those --sweep may
/// vary. Throws herd::Error for an unknown model.
std::vector<std::string> model_parameters(std::string const& model);

/// Whether the model named `model` has outbreaks (observables S and I), which --major-outbreak
/// classifies. Throws herd::Error for an unknown model.
bool model_has_outbreaks(std::string const& model);
/// Whether the model's steps may visit only the agents that can change (--stepping active, auto's
/// listed steps, verify), rather than always every agent. Throws herd::Error for an unknown model.
bool model_steps_active(std::string const& model);
/// Whether the model keeps agents' age groups (a scenario may then vaccinate the oldest first).
bool model_has_age_groups(std::string const& model);

/// The usage text's lines for --model: one per name, with its summary.
std::string model_usage();

}  // namespace herd::cli
