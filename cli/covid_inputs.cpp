#include "covid_inputs.hpp"

#include <herd/core/error.hpp>
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

std::vector<std::uint8_t> age_groups_of(AttributeColumn const& column, std::string const& source) {
  require(column.kind == AttributeColumn::Kind::category,
          source + ": column " + column.name + " must hold age labels (U19, 20t29, ...), not numbers");
  auto const& labels = astoria_age_labels();
  auto const is_label = [&](std::string const& text) {
    return std::find(labels.begin(), labels.end(), text) != labels.end();
  };
  auto const unknown = std::find_if_not(column.categories.begin(), column.categories.end(), is_label);
  if (unknown != column.categories.end()) {
    std::string known;
    for (auto const& l : labels) {
      if (!known.empty()) known += ", ";
      known += l;
    }
    throw Error(source + ": column " + column.name + ": unknown age group '" + *unknown + "' (expected " + known + ")");
  }
  // Category code -> age group, through the label.
  std::vector<std::uint8_t> group_of_code;
  for (auto const& category : column.categories)
    group_of_code.push_back(
        static_cast<std::uint8_t>(std::find(labels.begin(), labels.end(), category) - labels.begin()));
  std::vector<std::uint8_t> groups(column.integers.size());
  for (std::size_t i = 0; i < groups.size(); ++i)
    groups[i] = group_of_code[static_cast<std::size_t>(column.integers[i])];
  return groups;
}

std::vector<std::uint8_t> stages_of(AttributeColumn const& column, std::string const& source, global_id first = 0) {
  require(column.kind != AttributeColumn::Kind::category,
          source + ": column " + column.name + " must hold stage numbers 0 to 4, not text");
  bool const real = column.kind == AttributeColumn::Kind::real;
  std::size_t const n = real ? column.reals.size() : column.integers.size();
  std::vector<std::uint8_t> stages(n);
  for (std::size_t i = 0; i < n; ++i) {
    double const v = real ? column.reals[i] : static_cast<double>(column.integers[i]);
    require(v >= 0 && v <= 4 && v == std::floor(v),
            source + ": column " + column.name + ": agent " + std::to_string(first + static_cast<global_id>(i)) +
                " has stage " + number_text(v) + " (expected 0 S, 1 E, 2 I, 3 R or 4 D)");
    stages[i] = static_cast<std::uint8_t>(v);
  }
  return stages;
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

CovidPopulation covid_population(Options const& o, AttributeTable const& attributes, global_id agents, Comm comm) {
  std::string const source = attributes.columns.empty() ? o.graph : o.attributes;
  CovidPopulation population;
  auto const ages = column_of(o, attributes, age_column, comm);
  if (ages) population.age_group = age_groups_of(*ages, source);
  auto const stages = column_of(o, attributes, stage_column, comm);
  if (stages) population.stage = stages_of(*stages, source);
  // A table that describes the agents must say how old they are: a missing column is more likely
  // a misnamed one than a wish for random ages.
  require(attributes.columns.empty() || ages,
          source + ": no column " + age_column + " (the agents' age labels, which --model covid reads)");
  for (auto const* values : {&population.age_group, &population.stage})
    require(
        values->empty() || static_cast<global_id>(values->size()) == agents,
        source + ": " + std::to_string(values->size()) + " agents described for a graph of " + std::to_string(agents));
  // Checks the values against the parameters here, where every rank sees the same error.
  Covid<Kokkos::HostSpace> const checked(0, covid_parameters(o), population);
  (void)checked;
  return population;
}

CovidPopulation covid_population_block(Options const& o, global_id first, global_id count, Comm comm) {
  CovidPopulation population;
  population.in_blocks = true;
  population.first = first;
#if HERD_ENABLE_HDF5
  auto const read = [&](char const* name) {
    return io::read_population_attribute(o.graph, name, comm, static_cast<std::uint64_t>(first),
                                         static_cast<std::uint64_t>(count));
  };
  // Both read (together, on every rank) before a rank checks its block's values alone.
  auto const ages = read(age_column);
  auto const stages = read(stage_column);
  if (ages) population.age_group = age_groups_of(*ages, o.graph);
  if (stages) population.stage = stages_of(*stages, o.graph, first);
#else
  (void)o;
  (void)count;
  (void)comm;
#endif
  // Checks the values against the parameters here, where every rank sees the same error.
  Covid<Kokkos::HostSpace> const checked(0, covid_parameters(o), population);
  (void)checked;
  return population;
}

}  // namespace herd::cli
