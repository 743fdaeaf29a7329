#pragma once

// Scenario files (herd run --scenario FILE): timed events in JSON, as docs/scenarios.md describes.

#include <herd/scenario/scenario.hpp>

#include <optional>
#include <string>
#include <vector>

namespace herd::cli {

/// The events of the scenario file at `path`, checked against a run of `steps` steps on a graph
/// whose layers have `layer_names` (nullopt: not known yet, as an edge list's before it is read,
/// and any name passes): a step beyond them is refused unless the run is `continued` (it writes a
/// checkpoint that a longer run may resume, or resumes one). The file must be a regular file: it
/// is read again for its fingerprint. Throws herd::Error naming the file and the line
/// (malformed JSON) or the key (a bad event) at fault.
Scenario read_scenario(std::string const& path, int steps, bool continued,
                       std::optional<std::vector<std::string>> const& layer_names);

}  // namespace herd::cli
