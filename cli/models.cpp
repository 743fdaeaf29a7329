#include "models.hpp"
#include "model_registry.hpp"

#include <algorithm>

namespace herd::cli {

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for_each_model([&](auto entry) {
    for (auto const& n : decltype(entry)::names) names.emplace_back(n.name);
  });
  return names;
}

std::vector<std::string> models_reading_attributes() {
  std::vector<std::string> names;
  for_each_model([&](auto entry) {
    using Entry = decltype(entry);
    if constexpr (Entry::reads_attributes)
      for (auto const& n : Entry::names) names.emplace_back(n.name);
  });
  return names;
}

std::vector<std::string> model_parameters(std::string const& model) {
  return visit_model(model, [&](auto entry) { return decltype(entry)::parameters(model); });
}

bool model_has_outbreaks(std::string const& model) {
  return visit_model(model, [](auto entry) { return decltype(entry)::has_outbreaks; });
}

bool model_steps_active(std::string const& model) {
  return visit_model(model, [](auto entry) { return steps_active_v<decltype(entry)>; });
}

bool model_has_age_groups(std::string const& model) {
  return visit_model(model, [](auto entry) { return decltype(entry)::has_age_groups; });
}

std::string model_usage() {
  constexpr std::size_t column = 27;  // where the usage text's descriptions start
  std::string text;
  for_each_model([&](auto entry) {
    for (auto const& n : decltype(entry)::names) {
      std::string line = "    " + std::string(n.name);
      line.resize(std::max(column, line.size() + 1), ' ');
      text += line + std::string(n.summary) + "\n";
    }
  });
  return text;
}

}  // namespace herd::cli
