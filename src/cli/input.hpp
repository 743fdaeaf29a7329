#pragma once

// The graph a command line names: generated from the seed, or read from an edge-list or
// population (HDF5) file.

#include "options.hpp"

#include <herd/config.hpp>
#include <herd/graph/csr_graph.hpp>
#if HERD_ENABLE_MPI
#include <mpi.h>
#endif

#include <Kokkos_Core.hpp>

#include <string>

namespace herd::cli {

using Exec = Kokkos::DefaultExecutionSpace;
using Memory = Exec::memory_space;

#if HERD_ENABLE_MPI
using Comm = MPI_Comm;
#else
using Comm = int;
#endif

/// The graph as stored, before any reordering, and the name the reports give it.
template <class WeightStorage>
struct Input {
  CsrGraph<Memory, WeightStorage> graph;
  std::string name;
};

/// Whether `graph` names a built-in generator rather than a file.
bool is_generator(std::string const& graph);

/// Builds the graph `options` describe. Generators are pure functions of the seed, so every
/// process that calls this gets the same graph. Every rank of `comm` calls it (a population file
/// is read collectively). Throws herd::Error on a bad file or parameter.
template <class WeightStorage>
Input<WeightStorage> make_graph(Options const& options, Exec const& exec, Comm comm);

}  // namespace herd::cli
