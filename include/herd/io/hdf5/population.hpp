#pragma once

// Populations in HDF5 (kind herd-population, schema in docs/file-formats.md): a contact graph in
// CSR form and, optionally, one dataset per agent attribute. `herd convert` writes them from edge
// lists and generators; `herd run --graph FILE.h5` reads them.

#include <herd/config.hpp>
#include <herd/io/hdf5/file.hpp>
#include <herd/io/host_csr.hpp>
#include <herd/io/text/attribute_table.hpp>
#include <herd/io/text/edge_list_parser.hpp>

#include <optional>
#include <string>
#include <vector>

namespace herd::io {

/// What a population file holds besides the graph.
struct PopulationInfo {
  bool directed = false;                ///< whether rows were kept as given rather than symmetrised
  std::string source;                   ///< free text: what the population was made from
  std::vector<global_id> original_ids;  ///< each agent's id in the source (empty: the agent index)
  AttributeTable attributes;            ///< one row per agent, in agent order (no ids); may be empty
};

/// Writes a population file: `graph` (valid per check_csr, the same on every rank) and `info`.
/// Each rank writes one contiguous block of agents and their neighbour entries; the file appears
/// under `path` only once complete. Collective.
void write_population(std::string const& path, HostCsr const& graph, PopulationInfo const& info, MPI_Comm comm);

/// The agents and stored entries of a population file's graph, from its datasets' shapes (no
/// values read): what reading it will allocate, for a caller to check before it does. A compressed
/// file may claim far more than it stores. Collective.
struct PopulationSize {
  std::uint64_t agents = 0;
  std::uint64_t entries = 0;
};
PopulationSize population_size(std::string const& path, MPI_Comm comm);

/// The names of a population file's contact layers, by number (the attribute `names` of
/// /graph/layers, or without it "0" ... "127"): empty when its graph has no layers. Collective.
std::vector<std::string> population_layer_names(std::string const& path, MPI_Comm comm);

/// Reads the graph of a population file on every rank (collective reads, so the file system
/// serves each byte once) and checks it with check_csr; every problem is an error naming the file,
/// the same on every rank. Collective.
HostCsr read_population_graph(std::string const& path, MPI_Comm comm, bool* directed = nullptr);

#if HERD_ENABLE_MPI
/// This rank's rows of a population file's graph under contiguous blocks (rank r of P owns agents
/// [r N / P, (r + 1) N / P)), as stored, with the file's agent count and direction:
/// mpi::build_local_graph makes of them the rank's share of the graph. Each rank reads its block
/// of offsets and its rows' entries only. The rows are checked as read_population_graph checks
/// the whole; a problem fails on every rank, naming the file and the first agent or entry at
/// fault. Collective.
HostRows read_population_rows(std::string const& path, MPI_Comm comm);
#endif

/// Reads the agent attribute /agents/<name> of a population file on every rank: integers (with
/// the text of each code when it is a category) or reals, one per agent. Nothing when the file has
/// no such attribute. Collective.
std::optional<AttributeColumn> read_population_attribute(std::string const& path, std::string const& name,
                                                         MPI_Comm comm);

/// The names of a population file's agent attributes (/agents/<name>), by name, but original_id,
/// which numbers the agents rather than describing them. Collective.
std::vector<std::string> population_attribute_names(std::string const& path, MPI_Comm comm);

/// The attributes `names` of the agents `ids` alone, in that order (each in [0, agents)): a
/// rank's own agents. Each rank reads its contiguous block of the file and the values travel to
/// the ranks that asked for them (h5::AgentBlocks, one plan for every name), so no rank holds a
/// whole column; ranks that ask for their own blocks exchange nothing. Nothing for a name the file
/// lacks. A bad category code names the agent of lowest id at fault, on every rank. Collective.
std::vector<std::optional<AttributeColumn>> read_population_attributes(std::string const& path,
                                                                       std::vector<std::string> const& names,
                                                                       MPI_Comm comm,
                                                                       std::vector<global_id> const& ids);

/// Whether an attribute table's column can be stored under this name (/agents/<name>): not empty,
/// no '/', not "." and not the reserved original_id.
bool is_attribute_name(std::string const& name);

/// Whether `path` is a regular file that starts with the HDF5 signature (no HDF5 call: any process
/// may ask). A pipe or a FIFO is neither opened nor read.
bool is_hdf5_file(std::string const& path);

}  // namespace herd::io
