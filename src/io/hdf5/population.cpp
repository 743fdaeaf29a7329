#include <herd/io/hdf5/agent_io.hpp>
#include <herd/io/hdf5/format.hpp>
#include <herd/io/hdf5/population.hpp>
#include <herd/io/text/edge_list_parser.hpp>
#include <herd/io/text/shown_field.hpp>
#include <herd/mpi/collective.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>
#include <new>
#include <optional>
#include <type_traits>

namespace herd::io {

namespace {

constexpr char const* kind = "herd-population";

std::string joined_lines(std::vector<std::string> const& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "\n" : "") + parts[i];
  return out;
}

// The lines of a text attribute (one name a line).
std::vector<std::string> split_lines(std::string const& text) {
  std::vector<std::string> lines;
  for (std::size_t start = 0; start <= text.size();) {
    auto const end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// The names a population file gives its layers: its attribute, or without one the layers'
// numbers ("0" ... "127"), which scenarios can name them by.
std::vector<std::string> layer_names_in(h5::File const& file) {
  if (file.has_attribute("/graph/layers", "names")) {
    auto names = split_lines(file.string_attribute("/graph/layers", "names"));
    std::string const where = file.path() + ": the names attribute of /graph/layers";
    require(names.size() <= static_cast<std::size_t>(max_layers), where + " names " + std::to_string(names.size()) +
                                                                      " layers, more than the " +
                                                                      std::to_string(max_layers) + " a graph may have");
    // Named as an edge list names them, so that a scenario's key and a message can show each.
    for (std::size_t l = 0; l < names.size(); ++l)
      if (!herd::Details::is_layer_name(names[l]))
        throw Error(where + ": layer " + std::to_string(l) + "'s name " + quoted_field(names[l]) +
                    " is not a layer name (" + herd::Details::layer_name_rule + ")");
    // A scenario names layers: a name given twice would close one of them and leave the other open.
    auto sorted = names;
    std::sort(sorted.begin(), sorted.end());
    if (auto twice = std::adjacent_find(sorted.begin(), sorted.end()); twice != sorted.end())
      throw Error(where + " names layer '" + *twice + "' twice");
    return names;
  }
  std::vector<std::string> numbers(max_layers);
  for (int l = 0; l < max_layers; ++l) numbers[static_cast<std::size_t>(l)] = std::to_string(l);
  return numbers;
}

// Writes one value per agent (a vector of the whole population) as this rank's block of rows.
template <class T>
void write_per_agent(h5::File& file, std::string const& dataset, std::vector<T> const& values) {
  auto const rank = mpi::rank_of(file.communicator()), ranks = mpi::size_of(file.communicator());
  auto const [first, last] = h5::block_of(values.size(), rank, ranks);
  file.create_dataset(dataset, h5::type_of<T>(), {values.size()});
  file.write_rows(dataset, h5::type_of<T>(), first, last - first, values.data() + first);
}

void write_attributes(h5::File& file, AttributeTable const& table, std::uint64_t agents, std::string const& path) {
  require(table.ids.empty() && table.rows == agents,
          path + ": the attribute table must hold one row per agent, in agent order");
  for (auto const& column : table.columns) {
    require(is_attribute_name(column.name),
            path + ": " + quoted_field(column.name) + " cannot name an agent attribute");
    std::string const dataset = "/agents/" + column.name;
    if (column.kind == AttributeColumn::Kind::real) {
      write_per_agent(file, dataset, column.reals);
      continue;
    }
    write_per_agent(file, dataset, column.integers);
    if (column.kind == AttributeColumn::Kind::category)
      file.set_attribute(dataset, "categories", joined_lines(column.categories));
  }
}

// A dataset's length, after checking that it is one-dimensional and of an accepted kind of type.
std::uint64_t length_of(h5::File const& file, std::string const& dataset, bool floating) {
  require(file.exists(dataset), file.path() + ": " + dataset + " is missing");
  auto const type = file.type(dataset);
  require(h5::is_floating(type) == floating, file.path() + ": " + dataset + " holds " + h5::to_string(type) +
                                                 " values, not " + (floating ? "floating-point" : "integer") + " ones");
  auto const extents = file.extents(dataset);
  require(extents.size() == 1, file.path() + ": " + dataset + " is not one-dimensional");
  return extents[0];
}

// Reads `length` rows of a dataset from row `first` (as int64 where `as_signed`, for 8-byte T).
// Collective.
template <class T>
std::vector<T> read_all(h5::File const& file, std::string const& dataset, std::uint64_t length, bool as_signed = false,
                        std::uint64_t first = 0) {
  std::vector<T> values;
  std::string failure;
  try {
    values.resize(length);
  } catch (std::bad_alloc const&) {
    failure =
        file.path() + ": " + dataset + " holds " + std::to_string(length) + " values: not enough memory to read them";
  }
  // Together: a rank that gave up here would leave the others in the collective read.
  mpi::raise_if_any_failed(file.communicator(), failure);
  // HDF5 refuses to read nothing from a dataset that holds nothing (an "addr overflow"); whether
  // it holds anything is the same on every rank, which must all take part in the read.
  if (file.extents(dataset).at(0) > 0)
    file.read_rows(dataset, as_signed ? h5::Type::i64 : h5::type_of<T>(), first, length, values.data());
  return values;
}

// The neighbours as stored, entries [first, first + entries): a wider integer type is read as
// int64 and checked, so that an id beyond an agent index is reported as it is, not as the value
// HDF5 would clamp it to.
std::vector<agent_index> read_neighbours(h5::File const& file, std::uint64_t entries, std::uint64_t agents,
                                         std::uint64_t first = 0) {
  auto const type = file.type("/graph/neighbours");
  auto narrowed = [&](auto const& wide) {
    std::vector<agent_index> narrow(wide.size());
    for (std::size_t e = 0; e < wide.size(); ++e) {
      using T = typename std::decay_t<decltype(wide)>::value_type;
      bool negative = false;
      if constexpr (std::is_signed_v<T>) negative = wide[e] < 0;
      if (negative || static_cast<std::uint64_t>(wide[e]) >= agents)
        throw Error(file.path() + ": /graph/neighbours: entry " + std::to_string(first + e) + " is agent " +
                    std::to_string(wide[e]) + ", outside the " + std::to_string(agents) + " agents");
      narrow[e] = static_cast<agent_index>(wide[e]);
    }
    return narrow;
  };
  if (type == h5::Type::u64) return narrowed(read_all<std::uint64_t>(file, "/graph/neighbours", entries, false, first));
  if (type == h5::Type::i64) return narrowed(read_all<std::int64_t>(file, "/graph/neighbours", entries, true, first));
  return read_all<agent_index>(file, "/graph/neighbours", entries, false, first);
}

// Entries [first, first + entries) of /graph/layers, read as int64 and checked, so that a value
// past a byte is reported as it is rather than clamped.
// `names`: the file's layer names (layer_names_in), which every layer must have.
std::vector<layer_index> read_layers(h5::File const& file, std::vector<std::string> const& names, std::uint64_t entries,
                                     std::uint64_t first = 0) {
  auto const outside = [&](std::size_t e, std::int64_t layer) {
    bool const named = file.has_attribute("/graph/layers", "names");
    return Error(file.path() + ": /graph/layers: entry " + std::to_string(first + e) + " is layer " +
                 std::to_string(layer) +
                 (named && layer >= 0 && layer < max_layers
                      ? ", but its names attribute names only layers 0 to " + std::to_string(names.size() - 1)
                      : ", outside [0, " + std::to_string(max_layers) + ")"));
  };
  auto const count = static_cast<std::int64_t>(names.size());
  // Herd writes bytes: read as they are, without a wider copy.
  if (file.type("/graph/layers") == h5::Type::u8) {
    auto layers = read_all<layer_index>(file, "/graph/layers", entries, false, first);
    for (std::size_t e = 0; e < layers.size(); ++e)
      if (layers[e] >= count) throw outside(e, layers[e]);
    return layers;
  }
  auto const wide = read_all<std::int64_t>(file, "/graph/layers", entries, true, first);
  std::vector<layer_index> layers(wide.size());
  for (std::size_t e = 0; e < wide.size(); ++e) {
    if (wide[e] < 0 || wide[e] >= count) throw outside(e, wide[e]);
    layers[e] = static_cast<layer_index>(wide[e]);
  }
  return layers;
}

// An attribute of /graph that must say what the datasets show.
void check_graph_attribute(h5::File const& file, char const* name, std::int64_t expected, std::string const& shown) {
  require(file.has_attribute("/graph", name), file.path() + ": /graph has no attribute '" + name + "'");
  auto const value = file.int_attribute("/graph", name);
  require(value == expected,
          file.path() + ": /graph's attribute " + name + " = " + std::to_string(value) + " contradicts " + shown);
}

// The shape of a population file's graph, checked before any value the size of the graph is read.
struct GraphLayout {
  std::uint64_t rows = 0;  ///< agents + 1
  std::uint64_t entries = 0;
  bool weighted = false;
  bool layered = false;
  bool signed_offsets = false;
};

GraphLayout graph_layout(h5::File const& file, std::string const& path) {
  GraphLayout layout;
  require(file.exists("/graph"), path + ": the /graph group is missing");
  auto const rows = layout.rows = length_of(file, "/graph/row_offsets", false);
  require(rows >= 2 && rows - 1 <= static_cast<std::uint64_t>(std::numeric_limits<agent_index>::max()),
          path + ": /graph/row_offsets holds " + std::to_string(rows) + " entries; a graph of 1 to " +
              std::to_string(std::numeric_limits<agent_index>::max()) + " agents has agents + 1");
  auto const entries = layout.entries = length_of(file, "/graph/neighbours", false);
  layout.weighted = file.exists("/graph/weights");
  if (layout.weighted) {
    auto const weights = length_of(file, "/graph/weights", true);
    require(weights == entries, path + ": /graph/weights holds " + std::to_string(weights) + " values for " +
                                    std::to_string(entries) + " neighbour entries");
  }
  layout.layered = file.exists("/graph/layers");
  if (layout.layered) {
    auto const layers = length_of(file, "/graph/layers", false);
    require(layers == entries, path + ": /graph/layers holds " + std::to_string(layers) + " values for " +
                                   std::to_string(entries) + " neighbour entries");
    require(layout.weighted, path + ": /graph/layers needs /graph/weights beside it");
  }
  // The last offset must count the entries: checked before anything the size of the graph is
  // read, as a file may claim far more entries than it stores.
  layout.signed_offsets = h5::is_signed(file.type("/graph/row_offsets"));
  // Read by one rank and shared: P ranks each reading it would pass for a read of P rows in the
  // dataset's checksum when P is its length.
  std::int64_t last = 0;
  bool const reader = mpi::rank_of(file.communicator()) == 0;
  file.read_rows("/graph/row_offsets", layout.signed_offsets ? h5::Type::i64 : h5::Type::u64, rows - 1, reader ? 1 : 0,
                 &last);
  MPI_Bcast(&last, 1, MPI_INT64_T, 0, file.communicator());
  if (!layout.signed_offsets || last >= 0)
    check_last_offset(static_cast<edge_offset>(last), entries, path + ": /graph");
  return layout;
}

// Checks the attributes of /graph against its datasets; returns whether its rows are one-way.
bool graph_attributes(h5::File const& file, GraphLayout const& layout, std::string const& path) {
  auto const rows = layout.rows;
  check_graph_attribute(
      file, "agents", static_cast<std::int64_t>(rows - 1),
      "/graph/row_offsets (" + std::to_string(rows) + " entries: " + std::to_string(rows - 1) + " agents)");
  check_graph_attribute(file, "entries", static_cast<std::int64_t>(layout.entries),
                        "/graph/neighbours (" + std::to_string(layout.entries) + " entries)");
  auto const stated = file.has_attribute("/graph", "directed") ? file.int_attribute("/graph", "directed") : -1;
  require(stated == 0 || stated == 1, path + ": /graph's attribute directed must be 0 or 1, not " +
                                          (stated == -1 ? std::string("missing") : std::to_string(stated)));
  return stated == 1;
}

std::string negative_offset(std::string const& path, std::uint64_t entry, edge_offset value) {
  return path + ": /graph/row_offsets: entry " + std::to_string(entry) + " is negative (" +
         std::to_string(static_cast<std::int64_t>(value)) + ")";
}

}  // namespace

void write_population(std::string const& path, HostCsr const& graph, PopulationInfo const& info, MPI_Comm comm) {
  auto const agents = static_cast<std::uint64_t>(graph.num_agents());
  require(info.original_ids.empty() || info.original_ids.size() == agents,
          path + ": original ids must be given for every agent or none");
  auto file = create_partial(path, kind, comm);
  try {
    file.set_attribute("/", "source", info.source);
    file.create_group("/graph");
    file.set_attribute("/graph", "agents", static_cast<std::int64_t>(agents));
    file.set_attribute("/graph", "entries", static_cast<std::int64_t>(graph.neighbours.size()));
    file.set_attribute("/graph", "directed", static_cast<std::int64_t>(info.directed));
    // Agents [first, last) and the neighbour entries of their rows are this rank's to write.
    auto const rank = mpi::rank_of(comm), ranks = mpi::size_of(comm);
    auto const [first, last] = h5::block_of(agents, rank, ranks);
    auto const offset_rows = last - first + (rank == ranks - 1 ? 1 : 0);
    file.create_dataset("/graph/row_offsets", h5::Type::u64, {agents + 1});
    file.write_rows("/graph/row_offsets", h5::Type::u64, first, offset_rows, graph.row_offsets.data() + first);
    auto const begin = graph.row_offsets[first], end = graph.row_offsets[last];
    file.create_dataset("/graph/neighbours", h5::Type::i32, {graph.neighbours.size()});
    file.write_rows("/graph/neighbours", h5::Type::i32, begin, end - begin, graph.neighbours.data() + begin);
    if (!graph.weights.empty()) {
      file.create_dataset("/graph/weights", h5::Type::f32, {graph.weights.size()});
      file.write_rows("/graph/weights", h5::Type::f32, begin, end - begin, graph.weights.data() + begin);
    }
    if (!graph.layers.empty()) {
      file.create_dataset("/graph/layers", h5::Type::u8, {graph.layers.size()});
      file.write_rows("/graph/layers", h5::Type::u8, begin, end - begin, graph.layers.data() + begin);
      if (!graph.layer_names.empty()) file.set_attribute("/graph/layers", "names", joined_lines(graph.layer_names));
    }
    file.create_group("/agents");
    if (!info.original_ids.empty()) write_per_agent(file, "/agents/original_id", info.original_ids);
    if (!info.attributes.columns.empty()) write_attributes(file, info.attributes, agents, path);
    commit_file(file, path);
  } catch (...) {
    discard_file(file);
    throw;
  }
}

PopulationSize population_size(std::string const& path, MPI_Comm comm) {
  auto file = h5::File::open(path, comm);
  check_format(file, kind);
  require(file.exists("/graph"), path + ": the /graph group is missing");
  auto const rows = length_of(file, "/graph/row_offsets", false);
  return {rows > 0 ? rows - 1 : 0, length_of(file, "/graph/neighbours", false)};
}

std::vector<std::string> population_layer_names(std::string const& path, MPI_Comm comm) {
  auto file = h5::File::open(path, comm);
  check_format(file, kind);
  return file.exists("/graph/layers") ? layer_names_in(file) : std::vector<std::string>();
}

namespace {

// Whether rows whose mirror sums these are store every entry both ways.
bool mirrored(MirrorSums const& sums) { return sums.forward == sums.reversed; }

template <class T>
T const* optional_data(std::vector<T> const& values) {
  return values.empty() ? nullptr : values.data();
}

}  // namespace

HostCsr read_population_graph(std::string const& path, MPI_Comm comm, bool* directed) {
  auto file = h5::File::open(path, comm);
  check_format(file, kind);
  auto const layout = graph_layout(file, path);
  auto const rows = layout.rows, entries = layout.entries;
  HostCsr graph;
  // Offsets of a signed type are read as signed, so that a negative one is seen rather than
  // converted; into the same memory, as both are 8 bytes.
  static_assert(sizeof(edge_offset) == sizeof(std::int64_t), "row offsets are 64-bit");
  graph.row_offsets = read_all<edge_offset>(file, "/graph/row_offsets", rows, layout.signed_offsets);
  if (layout.signed_offsets)
    for (std::size_t i = 0; i < graph.row_offsets.size(); ++i)
      if (static_cast<std::int64_t>(graph.row_offsets[i]) < 0)
        throw Error(negative_offset(path, i, graph.row_offsets[i]));
  bool const one_way = graph_attributes(file, layout, path);
  graph.neighbours = read_neighbours(file, entries, rows - 1);
  if (layout.weighted) graph.weights = read_all<float>(file, "/graph/weights", entries);
  if (layout.layered) {
    graph.layer_names = layer_names_in(file);
    graph.layers = read_layers(file, graph.layer_names, entries);
  }
  if (directed) *directed = one_way;
  file.close();
  check_csr(graph, path + ": /graph");
  graph.symmetric =
      !one_way &&
      mirrored(mirror_sums({0, graph.row_offsets.size() - 1, graph.row_offsets.data(), graph.neighbours.data(),
                            optional_data(graph.weights), optional_data(graph.layers)}));
  return graph;
}

#if HERD_ENABLE_MPI
HostRows read_population_rows(std::string const& path, MPI_Comm comm) {
  int const rank = mpi::rank_of(comm), ranks = mpi::size_of(comm);
  std::string const what = path + ": /graph";
  std::optional<h5::File> file;
  GraphLayout layout;
  mpi::collectively(comm, [&] {
    file.emplace(h5::File::open(path, comm));
    check_format(*file, kind);
    layout = graph_layout(*file, path);
    require(layout.rows - 1 >= static_cast<std::uint64_t>(ranks),
            path + ": cannot split its " + std::to_string(layout.rows - 1) +
                (layout.rows == 2 ? " agent into " : " agents into ") + std::to_string(ranks) +
                " parts: every rank needs at least one agent (use fewer ranks)");
  });
  auto const agents = layout.rows - 1, entries = layout.entries;
  auto const block = h5::block_of(agents, rank, ranks);
  std::uint64_t const first = block.first;
  auto const count = static_cast<std::size_t>(block.second - block.first);

  // 1. The offsets of this rank's rows. Each rank reads its block, the last rank the end as well,
  //    so that the ranks read the dataset once between them (its checksum is then checked); a
  //    block's end is the next block's start.
  std::vector<edge_offset> offsets(count + 1);
  mpi::collectively(comm, [&] {
    file->read_rows("/graph/row_offsets", layout.signed_offsets ? h5::Type::i64 : h5::Type::u64, first,
                    count + (rank == ranks - 1 ? 1 : 0), offsets.data());
  });
  std::vector<edge_offset> starts(static_cast<std::size_t>(ranks));
  MPI_Allgather(offsets.data(), 1, MPI_UINT64_T, starts.data(), 1, MPI_UINT64_T, comm);
  if (rank < ranks - 1) offsets[count] = starts[static_cast<std::size_t>(rank) + 1];
  std::string problem;
  std::uint64_t place = 0;
  for (std::size_t k = 0; layout.signed_offsets && problem.empty() && k < count + (rank == ranks - 1 ? 1 : 0); ++k)
    if (static_cast<std::int64_t>(offsets[k]) < 0) problem = negative_offset(path, place = first + k, offsets[k]);
  mpi::raise_first_failure(comm, place, problem);
  bool one_way = false;
  mpi::collectively(comm, [&] { one_way = graph_attributes(*file, layout, path); });

  // 2. The entries of the rows before the first row of all whose offsets are unsound (start
  //    elsewhere than 0, decrease, or pass the entries). Those rows' spans tile a prefix of the
  //    entries, so the reads still check the checksum when they cover them all.
  std::size_t sound = 0;
  if (rank != 0 || offsets[0] == 0)
    while (sound < count && offsets[sound] <= entries && offsets[sound + 1] >= offsets[sound] &&
           offsets[sound + 1] <= entries)
      ++sound;
  std::uint64_t unsound = sound < count ? first + sound : agents;
  MPI_Allreduce(MPI_IN_PLACE, &unsound, 1, MPI_UINT64_T, MPI_MIN, comm);
  auto const readable = static_cast<std::size_t>(std::min<std::uint64_t>(count, unsound > first ? unsound - first : 0));
  std::uint64_t const begin = readable > 0 ? offsets[0] : 0, span = readable > 0 ? offsets[readable] - offsets[0] : 0;
  std::vector<agent_index> neighbours;
  std::vector<float> weights;
  std::vector<layer_index> layers;
  // Every rank takes part in every read, whatever the first found.
  problem.clear();
  auto attempt = [&](auto&& read) {
    try {
      read();
    } catch (std::exception const& e) {
      if (problem.empty()) problem = e.what();
    }
  };
  attempt([&] { neighbours = read_neighbours(*file, span, agents, begin); });
  if (layout.weighted) attempt([&] { weights = read_all<float>(*file, "/graph/weights", span, false, begin); });
  std::vector<std::string> layer_names;
  if (layout.layered)
    attempt([&] {
      layer_names = layer_names_in(*file);
      layers = read_layers(*file, layer_names, span, begin);
    });
  mpi::raise_first_failure(comm, 0, problem);  // the lowest rank's entries come first
  file.reset();

  // 3. The rows checked as check_csr checks the whole graph; the first agent at fault is named.
  place = 0;
  if (rank == 0 && offsets[0] != 0) {
    problem = what + ": row offsets start at " + std::to_string(offsets[0]) + ", not 0";
  } else {
    auto const n = static_cast<std::int64_t>(agents);
    auto found = first_bad_row({static_cast<std::int64_t>(first), readable, offsets.data(), neighbours.data(),
                                layout.weighted ? weights.data() : nullptr, layout.layered ? layers.data() : nullptr},
                               n, entries, what);
    if (found.second.empty() && readable < count && unsound == first + readable)  // the row that stopped the reading
      found = first_bad_row({static_cast<std::int64_t>(unsound), 1, offsets.data() + readable, nullptr, nullptr}, n,
                            entries, what);
    problem = found.second;
    place = static_cast<std::uint64_t>(found.first);
  }
  mpi::raise_first_failure(comm, place, problem);

  // 4. The rows as read, their offsets from 0.
  HostRows mine;
  mine.num_agents = static_cast<agent_index>(agents);
  mine.first = static_cast<global_id>(first);
  mine.directed = one_way;
  mine.row_offsets.resize(count + 1);
  for (std::size_t k = 0; k <= count; ++k) mine.row_offsets[k] = offsets[k] - offsets[0];
  mine.neighbours = std::move(neighbours);
  mine.weights = std::move(weights);
  mine.layers = std::move(layers);
  mine.layer_names = std::move(layer_names);
  if (!one_way) {  // the file's attribute, the same on every rank
    auto sums = mirror_sums({static_cast<std::int64_t>(first), count, mine.row_offsets.data(), mine.neighbours.data(),
                             optional_data(mine.weights), optional_data(mine.layers)});
    std::uint64_t both[2] = {sums.forward, sums.reversed};
    MPI_Allreduce(MPI_IN_PLACE, both, 2, MPI_UINT64_T, MPI_SUM, comm);
    mine.symmetric = mirrored({both[0], both[1]});
  }
  return mine;
}
#endif

namespace {

// /agents/<name>'s length after checking it against the agent count; nothing when the file has no
// such attribute.
std::optional<std::uint64_t> attribute_length(h5::File const& file, std::string const& name) {
  std::string const dataset = "/agents/" + name;
  if (!is_attribute_name(name) || !file.exists(dataset)) return std::nullopt;
  auto const agents = static_cast<std::uint64_t>(file.int_attribute("/graph", "agents"));
  auto const length = length_of(file, dataset, h5::is_floating(file.type(dataset)));
  require(length == agents, file.path() + ": " + dataset + " holds " + std::to_string(length) + " values for " +
                                std::to_string(agents) + " agents");
  return length;
}

// A column of /agents/<name> whose values `read(T{}, type)` returns (as a std::vector<T>), with
// its categories checked: a bad code fails on every rank, naming the agent of lowest id at fault
// (agent_of(k) is the agent of value k).
template <class Read, class AgentOf>
AttributeColumn attribute_column(h5::File const& file, std::string const& name, Read&& read, AgentOf&& agent_of) {
  std::string const dataset = "/agents/" + name;
  AttributeColumn column;
  column.name = name;
  if (h5::is_floating(file.type(dataset))) {
    column.kind = AttributeColumn::Kind::real;
    column.reals = read(double{}, h5::Type::f64);
    return column;
  }
  column.kind = AttributeColumn::Kind::integer;
  column.integers = read(std::int64_t{}, h5::Type::i64);
  if (!file.has_attribute(dataset, "categories")) return column;
  column.kind = AttributeColumn::Kind::category;
  column.categories = split_lines(file.string_attribute(dataset, "categories"));
  auto const& codes = column.integers;
  std::optional<std::size_t> bad;  // the value of the lowest agent with a bad code
  for (std::size_t k = 0; k < codes.size(); ++k)
    if ((codes[k] < 0 || static_cast<std::size_t>(codes[k]) >= column.categories.size()) &&
        (!bad || agent_of(k) < agent_of(*bad)))
      bad = k;
  mpi::raise_first_failure(file.communicator(), bad ? agent_of(*bad) : 0,
                           !bad ? std::string()
                                : file.path() + ": " + dataset + ": agent " + std::to_string(agent_of(*bad)) +
                                      " has category code " + std::to_string(codes[*bad]) + " of " +
                                      std::to_string(column.categories.size()));
  return column;
}

}  // namespace

std::optional<AttributeColumn> read_population_attribute(std::string const& path, std::string const& name,
                                                         MPI_Comm comm) {
  auto file = h5::File::open(path, comm);
  check_format(file, kind);
  auto const length = attribute_length(file, name);
  if (!length) return std::nullopt;
  std::string const dataset = "/agents/" + name;
  auto column = attribute_column(
      file, name,
      [&](auto tag, h5::Type type) { return read_all<decltype(tag)>(file, dataset, *length, type == h5::Type::i64); },
      [](std::size_t k) { return static_cast<std::uint64_t>(k); });
  file.close();
  return column;
}

std::vector<std::string> population_attribute_names(std::string const& path, MPI_Comm comm) {
  auto file = h5::File::open(path, comm);
  check_format(file, kind);
  auto names = file.members("/agents");
  names.erase(std::remove(names.begin(), names.end(), std::string("original_id")), names.end());
  file.close();
  return names;
}

std::vector<std::optional<AttributeColumn>> read_population_attributes(std::string const& path,
                                                                       std::vector<std::string> const& names,
                                                                       MPI_Comm comm,
                                                                       std::vector<global_id> const& ids) {
  auto file = h5::File::open(path, comm);
  check_format(file, kind);
  std::vector<std::optional<std::uint64_t>> lengths(names.size());
  for (std::size_t c = 0; c < names.size(); ++c) lengths[c] = attribute_length(file, names[c]);
  std::vector<std::optional<AttributeColumn>> columns(names.size());
  if (std::none_of(lengths.begin(), lengths.end(), [](auto const& l) { return l.has_value(); })) return columns;
  // The ids asked for in ascending order: a rank that asks for its own block (in any order) reads
  // it directly, and the plan serves every name.
  std::vector<std::size_t> order(ids.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ids[a] < ids[b]; });
  std::vector<global_id> sorted(ids.size());
  for (std::size_t k = 0; k < order.size(); ++k) sorted[k] = ids[order[k]];
  auto const agents = static_cast<std::uint64_t>(file.int_attribute("/graph", "agents"));
  h5::AgentBlocks const blocks(comm, agents, sorted, path);
  for (std::size_t c = 0; c < names.size(); ++c) {
    if (!lengths[c]) continue;
    std::string const dataset = "/agents/" + names[c];
    columns[c] = attribute_column(
        file, names[c],
        [&](auto tag, h5::Type type) {
          std::vector<decltype(tag)> ascending(ids.size()), values(ids.size());
          if (agents > 0) blocks.read(file, dataset, type, ascending.data());  // HDF5 refuses to read nothing
          for (std::size_t k = 0; k < order.size(); ++k) values[order[k]] = ascending[k];
          return values;
        },
        [&](std::size_t k) { return static_cast<std::uint64_t>(ids[k]); });
  }
  file.close();
  return columns;
}

bool is_attribute_name(std::string const& name) {
  return !name.empty() && name.find('/') == std::string::npos && name != "." && name != "original_id";
}

bool is_hdf5_file(std::string const& path) {
  static constexpr char signature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  // Only a regular file is looked into: a pipe's bytes, once read, are gone for the text reader,
  // and opening a FIFO waits for its writer. HDF5 files are regular files.
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return false;
  char head[8] = {};
  std::ifstream file(path, std::ios::binary);
  return file.read(head, sizeof head) && std::memcmp(head, signature, sizeof head) == 0;
}

}  // namespace herd::io
