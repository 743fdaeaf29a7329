#pragma once

// herd partition: what a distributed run of the graph would cost each rank, computed from the
// partition alone, before anyone spends an allocation on it.

#include "options.hpp"

#include <string>

namespace herd::cli {

struct PartitionModel {
  std::string text;  ///< the table for the terminal, with its assumptions
  std::string csv;   ///< one row per part count
};

/// Partitions the graph `options` describe into each of `options.parts` parts with
/// `options.partition` and predicts halo and compute time per step for the stated network and
/// memory bandwidth. Throws herd::Error on bad input.
PartitionModel partition_model(Options const& options);

}  // namespace herd::cli
