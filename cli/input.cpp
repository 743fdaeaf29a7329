#include "input.hpp"
#include "memory_budget.hpp"
#include "report.hpp"

#include <herd/herd.hpp>
#if HERD_ENABLE_HDF5
#include <herd/io/hdf5/population.hpp>
#endif

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace herd::cli {

bool is_generator(std::string const& graph) {
  return graph == "population" || graph == "erdos-renyi" || graph == "power-law" || graph == "watts-strogatz";
}

std::string sized_by(Options const& o, bool table_ids) {
  return table_ids ? o.graph + " with the ids of " + o.attributes : o.graph;
}

void check_edge_list_fits(Options const& o, HostEdgeList const& edges, bool table_ids) {
  double const lines = static_cast<double>(edges.sources.size());
  check_fits(sized_by(o, table_ids), static_cast<double>(edges.num_agents),
             o.directed || edges.directed ? lines : 2 * lines, o.max_memory, peak_agent_bytes, peak_entry_bytes, true);
}

template <class WeightStorage>
CsrGraph<Memory, WeightStorage> graph_of_edges(Options const& o, Exec const& exec, HostEdgeList& edges) {
  // A line "u v" means by default that v's state affects u (row u lists v); transposed, that u's
  // state affects v, as in networks given as who-infects-whom. Swapped in a statement of its own,
  // before the list is copied: as an argument beside that copy, the order of the two would be the
  // compiler's (g++ swapped first, clang copied first and dropped the transpose).
  if (o.transpose) std::swap(edges.sources, edges.targets);
  BuildOptions build;
  build.symmetrise = !o.directed && !edges.directed;
  return build_csr<WeightStorage>(exec, to_device(exec, edges), build);
}

agent_index agents_described(bool named, global_id largest, std::uint64_t rows, std::string const& name) {
  if (!named) return static_cast<agent_index>(std::min<std::uint64_t>(rows, std::numeric_limits<agent_index>::max()));
  require(largest < std::numeric_limits<agent_index>::max(),
          name + ": agent id " + std::to_string(largest) + " exceeds the largest supported id " +
              std::to_string(std::numeric_limits<agent_index>::max() - 1) +
              " (herd convert --relabel numbers sparse ids densely into a population file)");
  return static_cast<agent_index>(largest + 1);
}

bool cover_table_agents(HostEdgeList& edges, AttributeTable const& table, std::string const& name) {
  bool const named = !table.ids.empty();
  global_id const largest = named ? *std::max_element(table.ids.begin(), table.ids.end()) : -1;
  return cover_agents(edges, agents_described(named, largest, table.rows, name));
}

bool cover_agents(HostEdgeList& edges, agent_index described) {
  if (described <= edges.num_agents) return false;
  edges.num_agents = described;
  return true;
}

AttributeTable in_agent_order(AttributeTable const& table, agent_index agents, std::string const& name,
                              std::vector<global_id> const& original_ids) {
  std::vector<std::size_t> row_of(static_cast<std::size_t>(agents), table.rows);
  if (table.ids.empty()) {
    require(table.rows == static_cast<std::size_t>(agents),
            name + ": " + std::to_string(table.rows) + " rows for the graph's " + std::to_string(agents) +
                " agents (give an 'id' column to name each row's agent)");
    for (std::size_t r = 0; r < table.rows; ++r) row_of[r] = r;
  } else {
    for (std::size_t r = 0; r < table.rows; ++r) {
      global_id agent = table.ids[r];
      if (!original_ids.empty())
        agent = static_cast<global_id>(std::lower_bound(original_ids.begin(), original_ids.end(), agent) -
                                       original_ids.begin());
      std::string const line = r < table.lines.size() ? ":" + std::to_string(table.lines[r]) : "";
      require(agent < agents, name + line + ": agent id " + std::to_string(table.ids[r]) +
                                  " is not an agent of the graph (" + std::to_string(agents) + " agents)");
      row_of[static_cast<std::size_t>(agent)] = r;
    }
    auto const missing = std::find(row_of.begin(), row_of.end(), table.rows);
    if (missing != row_of.end()) {
      // Named by the id the files give it, not the number relabelling gave it.
      auto const agent = static_cast<std::size_t>(missing - row_of.begin());
      throw Error(name + ": no row for agent " +
                  std::to_string(original_ids.empty() ? static_cast<global_id>(agent) : original_ids[agent]) +
                  " of the graph");
    }
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

std::optional<EdgeSource<Memory>> edge_source_of(Options const& o, Exec const& exec) {
  auto const agents = static_cast<agent_index>(o.agents);
  if (o.graph == "erdos-renyi") return edge_source(exec, ErdosRenyi{agents, o.mean_degree}, o.graph_seed);
  if (o.graph == "power-law") return edge_source(exec, PowerLaw{agents, o.exponent, o.mean_degree, 0.0}, o.graph_seed);
  if (o.graph == "watts-strogatz") {
    auto const k = static_cast<agent_index>(std::lround(o.mean_degree / 2));
    return edge_source(exec, WattsStrogatz{agents, k, o.rewire}, o.graph_seed);
  }
  return std::nullopt;
}

void check_share_fits(Options const& o, int ranks, double agents, double entries, double held_bytes, bool table_ids) {
  // At most one ghost per entry or per agent elsewhere.
  double const share = agents / ranks, share_entries = entries / ranks;
  double const ghosts = std::min(agents - share, share_entries);
  double const peak =
      held_bytes + share_peak_bytes(share, share_entries, ghosts, agents, o.graph == "power-law", o.stepping == "pull");
  check_fits("--graph " + sized_by(o, table_ids) + " on " + std::to_string(ranks) + " ranks", share, share_entries,
             o.max_memory, peak / share, 0.0, is_edge_list_file(o));
}

bool is_edge_list_file(Options const& o) {
#if HERD_ENABLE_HDF5
  if (io::is_hdf5_file(o.graph)) return false;
#endif
  return !is_generator(o.graph);
}

std::string temporal_name(Options const& o, std::size_t windows, std::size_t with_contacts) {
  return o.graph + ", " + with_commas(static_cast<long long>(windows)) +
         (windows == 1 ? " window of " : " windows of ") + std::to_string(o.window) + " (" +
         with_commas(static_cast<long long>(with_contacts)) + " with contacts" +
         (o.window_weights == "contacts" ? ", weighted by their contacts" : "") + "), then " + o.after_last;
}

namespace {

// A timed-contact file cut into --window windows: the snapshots, and the graph of every pair that
// ever met (for the report and the models' inputs). Refused before it is built when the windows
// with contacts times the agents, the rows the build holds, cannot fit.
template <class WeightStorage>
Input<WeightStorage> temporal_graph_of(Options const& o, Exec const& exec) {
  auto const contacts = read_timed_contacts(o.graph);
  auto const busy = static_cast<double>(windows_with_contacts(contacts, o.window));
  check_windows_fit(o.graph + " in windows of " + std::to_string(o.window), contacts.num_agents, busy,
                    static_cast<double>(contacts.size()), o.max_memory);
  Input<WeightStorage> input;
  try {
    input.temporal = build_temporal_network<WeightStorage>(
        exec, contacts, o.window, o.after_last == "stop" ? AfterLastWindow::stop : AfterLastWindow::loop,
        o.window_weights == "contacts" ? SnapshotWeights::contacts : SnapshotWeights::met);
  } catch (Error const& e) {
    throw Error(o.graph + ": " + e.what());  // the network's errors do not know its file
  }
  input.graph = met_graph<WeightStorage>(exec, contacts);
  auto const& t = *input.temporal;
  input.name = temporal_name(o, t.num_windows(), t.graphs.size() - 1);
  return input;
}

template <class WeightStorage>
Input<WeightStorage> graph_of(Options const& o, Exec const& exec, Comm comm, AttributeTable const& table) {
  if (o.window > 0) return temporal_graph_of<WeightStorage>(o, exec);
  auto const agents = static_cast<agent_index>(o.agents);
  BuildOptions build;
  // What a generated graph will hold, refused before it is built when it cannot fit: the
  // population's contacts average 9.4, and its generator holds about 150 B per agent (measured).
  if (is_generator(o.graph)) {
    bool const population = o.graph == "population";
    check_fits("--graph " + o.graph, static_cast<double>(o.agents),
               static_cast<double>(o.agents) * (population ? 10.0 : o.mean_degree), o.max_memory,
               population ? 180.0 : 32.0);
  }
  if (o.graph == "population") {
    LayeredPopulation spec;
    spec.agents = agents;
    return {build_csr<WeightStorage>(exec, generate_population(exec, spec, o.graph_seed).edges, build),
            "population",
            {},
            {},
            population_layer_names()};
  }
  if (auto source = edge_source_of(o, exec)) {
    auto const edges = source->slice(0, source->edges);
    source.reset();  // before the build: a power-law source holds 8 bytes per agent
    return {build_csr<WeightStorage>(exec, edges, build), o.graph, {}, {}, {}};
  }
  // Anything else names a file: a population file in HDF5, or an edge list.
#if HERD_ENABLE_HDF5
  // --directed, --transpose and --attributes were refused with it (check_graph_file).
  if (io::is_hdf5_file(o.graph)) {
    auto const size = io::population_size(o.graph, comm);
    check_fits(o.graph, static_cast<double>(size.agents), static_cast<double>(size.entries), o.max_memory);
    auto host = io::read_population_graph(o.graph, comm);
    auto names = std::move(host.layer_names);
    return {to_device<WeightStorage>(exec, host), o.graph, {}, {}, std::move(names)};
  }
#else
  (void)comm;
#endif
  auto edges = read_edge_list(o.graph);
  bool const table_ids = !o.attributes.empty() && cover_table_agents(edges, table, o.attributes);
  check_edge_list_fits(o, edges, table_ids);
  auto names = edges.layer_names;
  return {graph_of_edges<WeightStorage>(o, exec, edges), o.graph, {}, {}, std::move(names)};
}

}  // namespace

std::optional<std::vector<std::string>> layer_names_of(Options const& o, Comm comm) {
  if (o.graph == "population") return population_layer_names();
  if (is_generator(o.graph) || o.window > 0) return std::vector<std::string>();
#if HERD_ENABLE_HDF5
  if (io::is_hdf5_file(o.graph)) return io::population_layer_names(o.graph, comm);
#else
  (void)comm;
#endif
  return std::nullopt;
}

template <class WeightStorage>
Input<WeightStorage> make_graph(Options const& o, Exec const& exec, Comm comm) {
  // The attribute table is read first: its agents may extend an edge list's.
  AttributeTable table;
  if (o.command != "convert" && !o.attributes.empty()) table = read_attribute_table(o.attributes);
  auto input = graph_of<WeightStorage>(o, exec, comm, table);
  check_weights_fit(exec, input.graph, o.graph);
  if (input.temporal)
    for (auto const& g : input.temporal->graphs) check_weights_fit(exec, g, o.graph);
  if (!table.columns.empty()) input.attributes = in_agent_order(table, input.graph.num_agents(), o.attributes);
  return input;
}

template CsrGraph<Memory, float> graph_of_edges<float>(Options const&, Exec const&, HostEdgeList&);
template Input<float> make_graph<float>(Options const&, Exec const&, Comm);
template Input<half> make_graph<half>(Options const&, Exec const&, Comm);

}  // namespace herd::cli
