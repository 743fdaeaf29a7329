#include <herd/core/fnv1a.hpp>
#include <herd/io/hdf5/checkpoint.hpp>

namespace herd::io {

namespace {

std::string joined(std::vector<std::string> const& parts, char separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? std::string(1, separator) : "") + parts[i];
  return out;
}

std::vector<std::string> split(std::string const& text, char separator) {
  std::vector<std::string> parts;
  if (text.empty()) return parts;
  std::size_t start = 0;
  while (true) {
    auto const end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

void write_history(h5::File& file, RunRecord const& record) {
  auto const columns = static_cast<std::uint64_t>(record.observables.size());
  require(columns > 0 && record.history.size() == (record.step + 1ull) * columns,
          file.name() + ": the history must hold one row per step from 0 to " + std::to_string(record.step));
  file.write_all("/run/history", h5::Type::i64, {record.step + 1ull, columns}, record.history.data());
  file.set_attribute("/run/history", "columns", joined(record.observables, ','));
}

// The record's part of a checkpoint or output: /run and its history, and the /agents group.
void write_run(h5::File& file, RunRecord const& record) {
  // The names are stored joined by commas.
  for (auto const& name : record.observables)
    require(
        !name.empty() && name.find(',') == std::string::npos,
        file.name() + ": the observable name '" + name + "' cannot be stored: a name is not empty and holds no ','");
  file.create_group("/run");
  file.set_attribute("/run", "model", record.model);
  file.set_attribute("/run", "seed", static_cast<std::int64_t>(record.seed));
  file.set_attribute("/run", "step", static_cast<std::int64_t>(record.step));
  file.set_attribute("/run", "agents", static_cast<std::int64_t>(record.agents));
  file.set_attribute("/run", "edges", static_cast<std::int64_t>(record.edges));
  auto const arguments = joined(record.arguments, '\n');
  file.set_attribute("/run", "arguments", arguments);
  // Datasets carry checksums, attributes none: the arguments, which rebuild the model, get one.
  file.set_attribute("/run", "arguments_hash", static_cast<std::int64_t>(fnv1a(arguments)));
  file.set_attribute("/run", "graph_hash", static_cast<std::int64_t>(record.graph_hash));
  if (record.scenario_hash != 0)
    file.set_attribute("/run", "scenario_hash", static_cast<std::int64_t>(record.scenario_hash));
  if (record.graph_file_hash != 0)
    file.set_attribute("/run", "graph_file_hash", static_cast<std::int64_t>(record.graph_file_hash));
  if (record.attributes_file_hash != 0)
    file.set_attribute("/run", "attributes_file_hash", static_cast<std::int64_t>(record.attributes_file_hash));
  if (record.members > 0) {
    // An ensemble's: the members' groups follow, each with its history's rows.
    file.set_attribute("/run", "members", static_cast<std::int64_t>(record.members));
    file.create_group("/members");
    file.set_attribute("/members", "columns", joined(record.observables, ','));
    return;
  }
  if (!record.history.empty()) write_history(file, record);
  file.create_group("/agents");
}

}  // namespace

h5::File begin_file(std::string const& final_path, std::string const& kind, RunRecord const& record, MPI_Comm comm) {
  auto file = create_partial(final_path, kind, comm);
  try {
    write_run(file, record);
  } catch (...) {
    discard_file(file);
    throw;
  }
  return file;
}

void update_record(h5::File& file, RunRecord const& record) {
  require(!file.exists("/run/history"), file.name() +
                                            ": update_record writes the history once, into a file begun "
                                            "without one (begin_file with an empty history)");
  file.set_attribute("/run", "step", static_cast<std::int64_t>(record.step));
  write_history(file, record);
}

RunRecord read_record(h5::File const& file, std::string const& kind) {
  std::string const& path = file.path();
  check_format(file, kind);
  require(file.exists("/run"), path + ": the /run group is missing");
  RunRecord r;
  r.model = file.string_attribute("/run", "model");
  r.seed = static_cast<std::uint64_t>(file.int_attribute("/run", "seed"));
  auto const step = file.int_attribute("/run", "step");
  auto const agents = file.int_attribute("/run", "agents");
  auto const edges = file.int_attribute("/run", "edges");
  require(step >= 0 && step <= 0xffffffffll, path + ": /run: invalid step " + std::to_string(step));
  require(agents > 0, path + ": /run: invalid agent count " + std::to_string(agents));
  require(edges >= 0, path + ": /run: invalid edge count " + std::to_string(edges));
  r.step = static_cast<std::uint32_t>(step);
  r.agents = static_cast<std::uint64_t>(agents);
  r.edges = static_cast<std::uint64_t>(edges);
  auto const arguments = file.string_attribute("/run", "arguments");
  // Absent in older files: not checked.
  require(!file.has_attribute("/run", "arguments_hash") ||
              static_cast<std::uint64_t>(file.int_attribute("/run", "arguments_hash")) == fnv1a(arguments),
          path + ": /run: the arguments differ from their stored hash: the file is damaged");
  r.arguments = split(arguments, '\n');
  if (file.has_attribute("/run", "graph_hash"))
    r.graph_hash = static_cast<std::uint64_t>(file.int_attribute("/run", "graph_hash"));
  if (file.has_attribute("/run", "scenario_hash"))
    r.scenario_hash = static_cast<std::uint64_t>(file.int_attribute("/run", "scenario_hash"));
  for (auto [name, hash] :
       {std::pair{"graph_file_hash", &r.graph_file_hash}, std::pair{"attributes_file_hash", &r.attributes_file_hash}})
    if (file.has_attribute("/run", name)) *hash = static_cast<std::uint64_t>(file.int_attribute("/run", name));
  if (file.has_attribute("/run", "members")) {
    auto const members = file.int_attribute("/run", "members");
    require(members > 0, path + ": /run: invalid member count " + std::to_string(members));
    require(file.exists("/members"), path + ": the /members group is missing");
    r.members = static_cast<std::uint64_t>(members);
    // Absent where the file was written when every member had run.
    auto const done = file.has_attribute("/run", "members_done") ? file.int_attribute("/run", "members_done") : members;
    require(done > 0 && done <= members, path + ": /run: invalid members_done " + std::to_string(done) + " of " +
                                             std::to_string(members) + " members");
    r.members_done = static_cast<std::uint64_t>(done);
    r.observables = split(file.string_attribute("/members", "columns"), ',');
    require(!r.observables.empty(), path + ": /members names no observables");
    return r;
  }
  // An ensemble's file that lost its member count would otherwise be read as a single run's.
  require(!file.exists("/members"), path + ": /run: the attribute 'members' is missing (the file holds /members)");
  require(file.exists("/run/history"), path + ": /run/history is missing");
  r.observables = split(file.string_attribute("/run/history", "columns"), ',');
  auto const extents = file.extents("/run/history");
  require(!r.observables.empty() && extents.size() == 2 && extents[0] == r.step + 1ull &&
              extents[1] == r.observables.size(),
          path + ": /run/history does not hold " + std::to_string(r.step + 1ull) + " rows of " +
              std::to_string(r.observables.size()) + " observables");
  require(file.type("/run/history") == h5::Type::i64, path + ": /run/history is not int64");
  r.history.resize(static_cast<std::size_t>(extents[0] * extents[1]));
  // Small: every rank reads it all.
  file.read_rows("/run/history", h5::Type::i64, 0, extents[0], r.history.data());
  require(file.exists("/agents"), path + ": the /agents group is missing");
  return r;
}

std::string member_group(std::uint64_t member) { return "/members/" + std::to_string(member); }

std::vector<std::int64_t> read_member_history(h5::File const& file, RunRecord const& record, std::uint64_t member) {
  std::string const group = member_group(member), dataset = group + "/history";
  std::string const& path = file.path();
  require(file.exists(group),
          path + ": member " + std::to_string(member) + " of " + std::to_string(record.members) + " is missing");
  require(file.exists(dataset), path + ": " + dataset + " is missing");
  require(file.exists(group + "/agents"), path + ": " + group + "/agents is missing");
  // Files written before groups named their member hold no such attribute.
  if (file.has_attribute(group, "member")) {
    auto const named = file.int_attribute(group, "member");
    require(named == static_cast<std::int64_t>(member), path + ": " + group + " holds member " + std::to_string(named) +
                                                            "'s state, not member " + std::to_string(member) + "'s");
  }
  auto const extents = file.extents(dataset);
  require(extents.size() == 2 && extents[0] == record.step + 1ull && extents[1] == record.observables.size(),
          path + ": " + dataset + " does not hold " + std::to_string(record.step + 1ull) + " rows of " +
              std::to_string(record.observables.size()) + " observables");
  require(file.type(dataset) == h5::Type::i64, path + ": " + dataset + " is not int64");
  std::vector<std::int64_t> history(static_cast<std::size_t>(extents[0] * extents[1]));
  file.read_rows(dataset, h5::Type::i64, 0, extents[0], history.data());
  return history;
}

}  // namespace herd::io
