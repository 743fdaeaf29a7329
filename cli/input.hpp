#pragma once

// The graph a command line names: generated from the seed, or read from an edge-list or
// population (HDF5) file.

#include "options.hpp"

#include <herd/config.hpp>
#include <herd/detail/mpi.hpp>
#include <herd/graph/csr_graph.hpp>
#include <herd/graph/generators.hpp>
#include <herd/graph/temporal_network.hpp>
#include <herd/io/text/attribute_table.hpp>
#include <herd/io/text/edge_list_parser.hpp>

#include <Kokkos_Core.hpp>

#include <optional>
#include <string>
#include <vector>

namespace herd::cli {

using Exec = Kokkos::DefaultExecutionSpace;
using Memory = Exec::memory_space;

// MPI's communicator, or the one-process stand-in's in a build without MPI.
using Comm = MPI_Comm;

/// The graph as stored, before any reordering, the name the reports give it, and the agents'
/// attributes from --attributes (in agent order; empty without).
template <class WeightStorage>
struct Input {
  CsrGraph<Memory, WeightStorage> graph;
  std::string name;
  AttributeTable attributes;
  /// With --window: the snapshots the steps read; `graph` is then every pair that ever met.
  std::optional<TemporalNetwork<Memory, WeightStorage>> temporal;
  /// The names of the graph's contact layers, by number (none: a graph without layers).
  std::vector<std::string> layer_names;
};

/// The names of the contact layers of the graph --graph names: the population's, a population
/// file's (read from it, collective over `comm`), none for generated graphs and timed contacts;
/// unknown (nullopt) for an edge-list file until it is read (make_graph gives them).
std::optional<std::vector<std::string>> layer_names_of(Options const& options, Comm comm);

/// What the report calls a timed-contact file cut into --window windows: `windows` windows, of
/// which `with_contacts` hold contacts.
std::string temporal_name(Options const& options, std::size_t windows, std::size_t with_contacts);

/// Builds the graph `options` describe. Generators are pure functions of the seed, so every
/// process that calls this gets the same graph. Every rank of `comm` calls it (a population file
/// is read collectively). Throws herd::Error on a bad file or parameter.
template <class WeightStorage>
Input<WeightStorage> make_graph(Options const& options, Exec const& exec, Comm comm);

/// The edges of a generator that makes each edge alone (erdos-renyi, power-law, watts-strogatz),
/// or nothing for other graphs: under mpiexec each rank then builds only its share. Throws
/// herd::Error on a bad parameter.
std::optional<EdgeSource<Memory>> edge_source_of(Options const& options, Exec const& exec);

/// Throws herd::Error when one of `ranks` ranks building its share of a graph of `agents` agents
/// and `entries` stored entries would not fit --max-memory; `held_bytes`: what each rank holds
/// besides while it builds (its part of an edge list); `table_ids`: whether --attributes' ids
/// raised the agent count (the message then names that file too).
void check_share_fits(Options const& options, int ranks, double agents, double entries, double held_bytes = 0.0,
                      bool table_ids = false);

/// What a graph's agent count is said to come from: --graph, and --attributes where `table_ids`
/// (its ids raised the count).
std::string sized_by(Options const& options, bool table_ids);

/// Whether --graph names an edge-list file (not a generator or a population file).
bool is_edge_list_file(Options const& options);

/// The graph of an edge list read from a file, oriented by --transpose (which swaps the list's
/// columns in place) and --directed.
template <class WeightStorage>
CsrGraph<Memory, WeightStorage> graph_of_edges(Options const& options, Exec const& exec, HostEdgeList& edges);

/// Throws herd::Error when the graph of `edges` would not fit --max-memory (cli/memory_budget.hpp);
/// `table_ids` as for check_share_fits.
void check_edge_list_fits(Options const& options, HostEdgeList const& edges, bool table_ids = false);

/// Raises the agent count of an edge list (dense ids) to `described`, where that is more: agents
/// without contacts are agents too. Returns whether it raised it.
bool cover_agents(HostEdgeList& edges, agent_index described);

/// cover_agents for every agent the table names.
bool cover_table_agents(HostEdgeList& edges, AttributeTable const& table, std::string const& name);

/// The agents an attribute table `name` describes: one past its `largest` id when it names its
/// rows' agents, else its `rows`. Throws herd::Error when an id is beyond any agent index.
agent_index agents_described(bool named, global_id largest, std::uint64_t rows, std::string const& name);

/// The table's rows in agent order (ids dropped). A row's id is its agent, or with `original_ids`
/// (sorted, from --relabel) the agent with that original id. Every agent needs exactly one row.
AttributeTable in_agent_order(AttributeTable const& table, agent_index agents, std::string const& name,
                              std::vector<global_id> const& original_ids = {});

}  // namespace herd::cli
