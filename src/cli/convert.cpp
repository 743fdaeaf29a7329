#include "convert.hpp"

#include <herd/herd.hpp>
#include <herd/io/hdf5/population.hpp>
#include <herd/io/text/attribute_table.hpp>
#include <herd/mpi/collective.hpp>

#include <algorithm>
#include <limits>

namespace herd::cli {

namespace {

// The table's rows in agent order. `agent_of` maps a row's id to its agent (-1: none).
template <class AgentOf>
AttributeTable in_agent_order(AttributeTable const& table, agent_index agents, std::string const& name,
                              AgentOf&& agent_of) {
  std::vector<std::size_t> row_of(static_cast<std::size_t>(agents), table.rows);
  if (table.ids.empty()) {
    require(table.rows == static_cast<std::size_t>(agents),
            name + ": " + std::to_string(table.rows) + " rows for the graph's " + std::to_string(agents) +
                " agents (give an 'id' column to name each row's agent)");
    for (std::size_t r = 0; r < table.rows; ++r) row_of[r] = r;
  } else {
    for (std::size_t r = 0; r < table.rows; ++r) row_of[static_cast<std::size_t>(agent_of(table.ids[r]))] = r;
    auto const missing = std::find(row_of.begin(), row_of.end(), table.rows);
    require(missing == row_of.end(),
            name + ": no row for agent " + std::to_string(missing - row_of.begin()) + " of the graph");
  }
  AttributeTable out;
  out.rows = row_of.size();
  for (auto const& column : table.columns) {
    AttributeColumn c;
    c.name = column.name;
    c.kind = column.kind;
    c.categories = column.categories;
    for (auto r : row_of) {
      if (column.kind == AttributeColumn::Kind::real)
        c.reals.push_back(column.reals[r]);
      else
        c.integers.push_back(column.integers[r]);
    }
    out.columns.push_back(std::move(c));
  }
  return out;
}

// The graph and what goes with it, as every rank builds it.
struct Converted {
  HostCsr graph;
  io::PopulationInfo info;
};

Converted build(Options const& o, Comm comm) {
  Exec exec;
  Converted out;
  AttributeTable table;
  if (!o.attributes.empty()) {
    table = read_attribute_table(o.attributes);
    for (auto const& column : table.columns)
      require(io::is_attribute_name(column.name),
              o.attributes + ": '" + column.name + "' cannot name an agent attribute (no '/'; not '.' or original_id)");
  }
  if (is_generator(o.graph)) {
    require(!o.relabel, "--relabel: " + o.graph + " is a generator; its agents are numbered already");
    out.graph = to_host(exec, make_graph<float>(o, exec, comm).graph);
    out.info.source = o.graph + " generator, " + std::to_string(o.agents) + " agents, seed " + std::to_string(o.seed);
  } else {
    auto edges = read_edge_list(o.graph, o.relabel ? EdgeIds::any : EdgeIds::dense);
    if (o.relabel) {
      out.info.original_ids = compact_ids(edges, table.ids);
    } else if (!table.ids.empty()) {
      // Agents named only in the attribute table have no contacts, but they are agents.
      auto const largest = *std::max_element(table.ids.begin(), table.ids.end());
      require(largest < std::numeric_limits<agent_index>::max(),
              o.attributes + ": agent id " + std::to_string(largest) + " exceeds the largest supported id " +
                  std::to_string(std::numeric_limits<agent_index>::max() - 1) + " (try --relabel)");
      edges.num_agents = std::max(edges.num_agents, static_cast<agent_index>(largest + 1));
    }
    require(edges.num_agents > 0, o.graph + ": agent ids exceed the largest supported id " +
                                      std::to_string(std::numeric_limits<agent_index>::max() - 1) + " (try --relabel)");
    BuildOptions options;
    options.symmetrise = !o.directed;
    out.graph = to_host(exec, build_csr<float>(exec, to_device(exec, edges), options));
    out.info.directed = o.directed;
    out.info.source = o.graph;
  }
  if (!o.attributes.empty()) {
    auto const& originals = out.info.original_ids;
    out.info.attributes = in_agent_order(table, out.graph.num_agents(), o.attributes, [&](global_id id) {
      if (originals.empty()) return id;
      return static_cast<global_id>(std::lower_bound(originals.begin(), originals.end(), id) - originals.begin());
    });
  }
  return out;
}

}  // namespace

std::string convert(Options const& o, Comm comm) {
  auto const converted = mpi::collectively(comm, [&] { return build(o, comm); });
  io::write_population(o.output, converted.graph, converted.info, comm);
  auto const& g = converted.graph;
  return o.output + ": " + std::to_string(g.num_agents()) + " agents, " + std::to_string(g.neighbours.size()) +
         " neighbour entries" + (g.weights.empty() ? "" : " with weights") + ", " +
         std::to_string(converted.info.attributes.columns.size()) + " attributes" +
         (converted.info.original_ids.empty() ? "" : ", original ids kept");
}

}  // namespace herd::cli
