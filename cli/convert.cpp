#include "convert.hpp"
#include <herd/io/text/shown_field.hpp>

#include <herd/herd.hpp>
#include <herd/io/hdf5/population.hpp>
#include <herd/io/text/attribute_table.hpp>
#include <herd/mpi/collective.hpp>

#include <algorithm>
#include <limits>

namespace herd::cli {

namespace {

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
              o.attributes + ": " + io::quoted_field(column.name) +
                  " cannot name an agent attribute (no '/'; not '.' or original_id)");
  }
  if (is_generator(o.graph)) {
    auto input = make_graph<float>(o, exec, comm);
    out.graph = to_host(exec, input.graph);
    out.graph.layer_names = std::move(input.layer_names);
    out.info.source =
        o.graph + " generator, " + std::to_string(o.agents) + " agents, seed " + std::to_string(o.graph_seed);
  } else {
    // Read as text, its bytes would be called a broken edge list.
    require(!io::is_hdf5_file(o.graph), o.graph +
                                            ": an HDF5 file, not an edge list: herd convert writes a population "
                                            "file from an edge list or a generator, and herd run reads one as it is");
    auto edges = read_edge_list(o.graph, o.relabel ? EdgeIds::any : EdgeIds::dense);
    bool table_ids = false;
    if (o.relabel) {
      out.info.original_ids = compact_ids(edges, table.ids);
    } else {
      table_ids = cover_table_agents(edges, table, o.attributes);
    }
    require(edges.num_agents > 0, o.graph + ": agent ids exceed the largest supported id " +
                                      std::to_string(std::numeric_limits<agent_index>::max() - 1) + " (try --relabel)");
    check_edge_list_fits(o, edges, table_ids);
    out.graph = to_host(exec, graph_of_edges<float>(o, exec, edges));
    out.graph.layer_names = std::move(edges.layer_names);
    out.info.directed = o.directed || edges.directed;
    out.info.source = o.graph;
  }
  if (!o.attributes.empty()) {
    auto const& originals = out.info.original_ids;
    out.info.attributes = in_agent_order(table, out.graph.num_agents(), o.attributes, originals);
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
