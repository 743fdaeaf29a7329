#pragma once

// Scenario files (herd run --scenario FILE): timed events in JSON, as docs/scenarios.md describes.

#include <herd/scenario/scenario.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace herd::cli {

/// The bytes of the scenario file at `path`, read once for a run: its events and the fingerprint
/// a checkpoint keeps come from them, so a file changed during the run changes neither. A pipe
/// reads as a file. Throws herd::Error naming the file (missing, a folder, a NUL byte).
std::shared_ptr<std::string const> read_scenario_text(std::string const& path);

/// The events of the scenario `text`, read from `path` (which messages name), checked against a
/// run of `steps` steps on a graph whose layers have `layer_names` (nullopt: not known yet, as an
/// edge list's before it is read, and any name passes): a step beyond them is refused unless the
/// run is `continued` (it writes a checkpoint that a longer run may resume, or resumes one).
/// Throws herd::Error naming the file and the line (malformed JSON) or the key (a bad event) at
/// fault.
Scenario read_scenario(std::string const& path, std::string const& text, int steps, bool continued,
                       std::optional<std::vector<std::string>> const& layer_names);

}  // namespace herd::cli
