#pragma once

// The graph a command line names: generated from the seed or read from an edge-list file.

#include "options.hpp"

#include <herd/graph/csr_graph.hpp>

#include <Kokkos_Core.hpp>

#include <string>

namespace herd::cli {

using Exec = Kokkos::DefaultExecutionSpace;
using Memory = Exec::memory_space;

/// The graph as stored, before any reordering, and the name the reports give it.
template <class WeightStorage>
struct Input {
  CsrGraph<Memory, WeightStorage> graph;
  std::string name;
};

/// Builds the graph `options` describe. Generators are pure functions of the seed, so every
/// process that calls this gets the same graph. Throws herd::Error on a bad file or parameter.
template <class WeightStorage>
Input<WeightStorage> make_graph(Options const& options, Exec const& exec);

}  // namespace herd::cli
