#include "covid_inputs.hpp"
#include <herd/io/text/shown_field.hpp>

#include <herd/config.hpp>
#include <herd/core/error.hpp>
#if HERD_ENABLE_MPI
#include <herd/mpi/collective.hpp>
#endif
#if HERD_ENABLE_HDF5
#include <herd/io/hdf5/population.hpp>
#endif

#include <algorithm>
#include <cmath>
#include <optional>

namespace herd::cli {

namespace {

constexpr char const* age_column = "age_group";
constexpr char const* stage_column = "initial_disease_stage";

// A column of the population: from the attribute table, or from the population file.
std::optional<AttributeColumn> column_of(Options const& o, AttributeTable const& attributes, std::string const& name,
                                         Comm comm) {
  for (auto const& column : attributes.columns)
    if (column.name == name) return column;
#if HERD_ENABLE_HDF5
  if (attributes.columns.empty() && io::is_hdf5_file(o.graph))
    return io::read_population_attribute(o.graph, name, comm);
#else
  (void)o;
  (void)comm;
#endif
  return std::nullopt;
}

// Whether the graph is a population file that holds attributes of its agents (asked where no
// table is given): a file that describes them, as a table does, must say how old they are.
bool file_describes_agents(Options const& o, Comm comm) {
#if HERD_ENABLE_HDF5
  if (io::is_hdf5_file(o.graph)) return !io::population_attribute_names(o.graph, comm).empty();
#else
  (void)o, (void)comm;
#endif
  return false;
}

// A column's age groups, with the problem of the lowest agent whose label is not an age group
// (empty when none): `ids` gives the agent of each value, when not the value's position.
std::vector<std::uint8_t> age_groups_of(AttributeColumn const& column, std::string const& source, std::string& failure,
                                        global_id& failing_agent, std::vector<global_id> const& ids = {}) {
  require(column.kind == AttributeColumn::Kind::category,
          source + ": column " + column.name + " must hold age labels (U19, 20t29, ...), not numbers");
  auto const& labels = astoria_age_labels();
  // Category code -> age group, through the label; a label that names none maps past the groups.
  auto const unknown = static_cast<std::uint8_t>(labels.size());
  std::vector<std::uint8_t> group_of_code;
  for (auto const& category : column.categories)
    group_of_code.push_back(
        static_cast<std::uint8_t>(std::find(labels.begin(), labels.end(), category) - labels.begin()));
  std::vector<std::uint8_t> groups(column.integers.size());
  failure.clear();
  for (std::size_t i = 0; i < groups.size(); ++i) {
    auto const code = static_cast<std::size_t>(column.integers[i]);
    groups[i] = group_of_code[code];
    global_id const agent = ids.empty() ? static_cast<global_id>(i) : ids[i];
    if (groups[i] == unknown && (failure.empty() || agent < failing_agent)) {
      std::string known;
      for (auto const& l : labels) known.append(known.empty() ? "" : ", ").append(l);
      failing_agent = agent;
      failure = source + ": column " + column.name + ": agent " + std::to_string(agent) + " has age group ";
      failure.append(io::quoted_field(column.categories[code])).append(" (expected ").append(known).append(")");
    }
  }
  return groups;
}

// A column's stages, with the problem of the lowest agent whose value is not a stage (empty when
// none): `ids` gives the agent of each value, when not the value's position.
std::vector<std::uint8_t> stages_of(AttributeColumn const& column, std::string const& source, std::string& failure,
                                    global_id& failing_agent, std::vector<global_id> const& ids = {}) {
  bool const real = column.kind == AttributeColumn::Kind::real;
  bool const text = column.kind == AttributeColumn::Kind::category;  // some value is not a number
  std::size_t const n = real ? column.reals.size() : column.integers.size();
  std::vector<std::uint8_t> stages(n);
  failure.clear();
  for (std::size_t i = 0; i < n; ++i) {
    // A text column's values that are stage numbers count as such; the others name their agent.
    std::string const* category = text ? &column.categories[static_cast<std::size_t>(column.integers[i])] : nullptr;
    bool const digit = category && category->size() == 1 && (*category)[0] >= '0' && (*category)[0] <= '4';
    double const v = category ? (digit ? (*category)[0] - '0' : -1.0)
                     : real   ? column.reals[i]
                              : static_cast<double>(column.integers[i]);
    global_id const agent = ids.empty() ? static_cast<global_id>(i) : ids[i];
    if (!(v >= 0 && v <= 4 && v == std::floor(v))) {
      if (failure.empty() || agent < failing_agent) {
        failing_agent = agent;
        failure = source + ": column " + column.name + ": agent " + std::to_string(agent) + " has stage " +
                  (category ? io::quoted_field(*category) : number_text(v)) + " (expected 0 S, 1 E, 2 I, 3 R or 4 D)";
      }
      continue;
    }
    stages[i] = static_cast<std::uint8_t>(v);
  }
  return stages;
}

// Agents without their stages are seeded by --initial-infected, which must fit the population;
// agents with their stages start as those say, so the option would be ignored: it is refused.
void check_initial_infected(Options const& o, bool stages, global_id agents, std::string const& source) {
  if (stages) {
    bool const swept = std::any_of(o.sweep.begin(), o.sweep.end(),
                                   [](SweepAxis const& axis) { return axis.name == "initial-infected"; });
    require(!swept && o.given.count("--initial-infected") == 0,
            source + ": the agents' " + stage_column + " says who starts infected, so " +
                (swept ? "--sweep initial-infected" : "--initial-infected") + " does not apply");
    return;
  }
  require(static_cast<global_id>(o.initial_infected) <= agents,
          "--initial-infected " + std::to_string(o.initial_infected) + " exceeds the agent count " +
              std::to_string(agents));
}

// A table (even of ids alone) or a file that describes the agents must say how old they are: a
// missing column is more likely a misnamed one than a wish for random ages. Then the seeds.
void check_described(Options const& o, bool table, bool ages, bool stages, global_id agents, std::string const& source,
                     Comm comm) {
  require(ages || (!table && !stages && !file_describes_agents(o, comm)),
          source + ": no " + (table ? "column " : "attribute ") + age_column +
              " (the agents' age labels, which --model covid reads)");
  check_initial_infected(o, stages, agents, source);
}

}  // namespace

CovidParameters covid_parameters(Options const& o) {
  CovidParameters p;
  p.transmission_rate = o.transmission_rate;
  p.mortality = o.mortality;
  p.age_groups = astoria_age_groups(o.age_reading);
  p.initial_exposed = o.initial_infected;
  return p;
}

bool ids_alone_resumed(Options const& o, AttributeTable const& attributes) {
  return !o.resume.empty() && !o.attributes.empty() && attributes.columns.empty();
}

CovidPopulation covid_population(Options const& o, AttributeTable const& attributes, global_id agents, Comm comm) {
  bool const table = !o.attributes.empty() && !ids_alone_resumed(o, attributes);
  std::string const source = table ? o.attributes : o.graph;
  CovidPopulation population;
  auto const ages = column_of(o, attributes, age_column, comm);
  std::string failure;
  global_id agent = 0;
  if (ages) population.age_group = age_groups_of(*ages, source, failure, agent);
  require(failure.empty(), failure);
  auto const stages = column_of(o, attributes, stage_column, comm);
  if (stages) {
    population.stage = stages_of(*stages, source, failure, agent);
    require(failure.empty(), failure);
  }
  check_described(o, table, ages.has_value(), stages.has_value(), agents, source, comm);
  for (auto const* values : {&population.age_group, &population.stage})
    require(
        values->empty() || static_cast<global_id>(values->size()) == agents,
        source + ": " + std::to_string(values->size()) + " agents described for a graph of " + std::to_string(agents));
  // Checks the values against the parameters here, where every rank sees the same error.
  Covid<Kokkos::HostSpace> const checked(0, covid_parameters(o), population);
  (void)checked;
  return population;
}

#if HERD_ENABLE_MPI
CovidPopulation covid_population_of_owned(Options const& o, std::vector<global_id> const& owned, global_id agents,
                                          AttributeTable const& attributes, Comm comm) {
  CovidPopulation population;
  population.owned_only = true;
  std::optional<AttributeColumn> ages, stages;
  bool const table = !o.attributes.empty();
  std::string const source = table ? o.attributes : o.graph;
  if (table) {
    for (auto const& column : attributes.columns) {
      if (column.name == age_column) ages = column;
      if (column.name == stage_column) stages = column;
    }
  } else {
#if HERD_ENABLE_HDF5
    auto columns = io::read_population_attributes(o.graph, {age_column, stage_column}, comm, owned);
    ages = std::move(columns[0]);
    stages = std::move(columns[1]);
#endif
  }
  // A bad value is named as one process names it: by the lowest agent at fault, on every rank;
  // then a missing age column (every rank has the table's columns).
  std::string failure;
  global_id agent = 0;
  if (ages) population.age_group = age_groups_of(*ages, source, failure, agent, owned);
  mpi::raise_first_failure(comm, static_cast<std::uint64_t>(agent), failure);
  if (stages) population.stage = stages_of(*stages, source, failure, agent, owned);
  mpi::raise_first_failure(comm, static_cast<std::uint64_t>(agent), failure);
  check_described(o, table, ages.has_value(), stages.has_value(), agents, source, comm);
  // Checks the values against the parameters here, where every rank sees the same error.
  Covid<Kokkos::HostSpace> const checked(0, covid_parameters(o), population);
  (void)checked;
  return population;
}
#endif

}  // namespace herd::cli
