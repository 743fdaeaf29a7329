#pragma once

#include "input.hpp"
#include "options.hpp"

#include <string>

namespace herd::cli {

/// herd convert (builds with HDF5): writes the graph `options` name (an edge-list file or a generator) and the agent
/// attributes of `options.attributes` as a population file. Every rank of `comm` builds the same
/// graph and writes its block. Returns a one-line summary. Throws herd::Error on bad input, on
/// every rank alike.
std::string convert(Options const& options, Comm comm);

}  // namespace herd::cli
