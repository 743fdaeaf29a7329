#pragma once

// The models the herd command runs, one entry each. A model reaches `herd run --model NAME` by an
// entry here and its name in `Models` below; the command's options, checks, usage text, stepping,
// checkpoints and reports all read this table (docs/model-guide.md, "Running it from herd").

#include "covid_inputs.hpp"
#include "input.hpp"
#include "options.hpp"

#include <herd/core/error.hpp>
#include <herd/engine/model_traits.hpp>
#include <herd/models/consensus.hpp>
#include <herd/models/covid.hpp>
#include <herd/models/opinion.hpp>
#include <herd/models/seir.hpp>

#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace herd::cli {

/// A name `--model` accepts, and its line in the usage text.
struct ModelName {
  std::string_view name;
  std::string_view summary;
};

/// What an entry leaves as it is unless it says otherwise.
struct ModelEntry {
  /// The model reads agent attributes (--attributes, or a population file's /agents).
  static constexpr bool reads_attributes = false;
  /// The model has outbreaks (observables S and I): an ensemble summarises their sizes and peaks.
  static constexpr bool has_outbreaks = false;
  /// The model keeps each agent's age group (`age`, 0 ... num_age_groups() - 1, youngest first):
  /// a scenario may vaccinate the oldest first.
  static constexpr bool has_age_groups = false;
  /// The parameters (options without their dashes) that the model named `name` reads: those an
  /// ensemble may sweep (--sweep).
  static std::vector<std::string> parameters(std::string_view) { return {}; }
  /// What the model reads per agent besides the graph, by global id.
  struct Inputs {};
  /// Reads the inputs, on every rank of `comm` alike (collective).
  template <class WeightStorage>
  static Inputs read_inputs(Options const&, Input<WeightStorage> const&, Comm) {
    return {};
  }
};

/// sir and seir: one model, seir with a latent period.
struct EpidemicEntry : ModelEntry {
  static constexpr ModelName names[] = {{"sir", "S, I, R: --beta, --infectious-steps or --gamma"},
                                        {"seir", "S, E, I, R (default): as sir, with --latent-steps or --sigma"}};
  static constexpr bool has_outbreaks = true;
  static std::vector<std::string> parameters(std::string_view name) {
    std::vector<std::string> p = {"beta", "infectious-steps", "gamma", "initial-infected"};
    if (name == "seir") p.insert(p.end(), {"latent-steps", "sigma"});
    return p;
  }

  template <class WeightStorage>
  static Seir<Memory> make(Options const& o, agent_index agents, global_id global, Inputs const&) {
    SeirParameters p;
    p.beta = o.beta;
    p.infectious = o.gamma > 0 ? Period::geometric(o.gamma) : Period::fixed(o.infectious_steps);
    if (o.model == "seir") p.latent = o.sigma > 0 ? Period::geometric(o.sigma) : Period::fixed(o.latent_steps);
    p.initial_infected = o.initial_infected;
    require(p.initial_infected <= global, "--initial-infected " + std::to_string(o.initial_infected) +
                                              " exceeds the agent count " + std::to_string(global));
    return Seir<Memory>(agents, p);
  }
  /// The observables the table shows (sir has no exposed agents to show).
  static std::vector<int> shown(Options const& o) {
    return o.model == "seir" ? std::vector<int>{0, 1, 2, 3} : std::vector<int>{0, 2, 3};
  }
};

/// voter and majority: binary opinions.
struct OpinionEntry : ModelEntry {
  static constexpr ModelName names[] = {
      {"voter", "binary opinions: copy a random neighbour's (--initial-share)"},
      {"majority", "binary opinions: take the neighbours' majority (--initial-share)"}};
  static std::vector<std::string> parameters(std::string_view) { return {"initial-share"}; }

  template <class WeightStorage>
  static Opinion<Memory> make(Options const& o, agent_index agents, global_id, Inputs const&) {
    OpinionParameters p;
    p.rule = o.model == "voter" ? OpinionRule::voter : OpinionRule::majority;
    p.initial_share = o.initial_share;
    return Opinion<Memory>(agents, p);
  }
  static std::vector<int> shown(Options const&) { return {0, 1}; }
};

/// degroot and bounded-confidence: opinions in [0, 1], stored as --precision like the weights.
struct ConsensusEntry : ModelEntry {
  static constexpr ModelName names[] = {
      {"degroot", "opinions in [0, 1]: average the neighbours' (stored as --precision)"},
      {"bounded-confidence", "as degroot, over the neighbours within --confidence"}};
  static std::vector<std::string> parameters(std::string_view name) {
    return name == "bounded-confidence" ? std::vector<std::string>{"confidence"} : std::vector<std::string>{};
  }

  template <class WeightStorage>
  static Consensus<WeightStorage, Memory> make(Options const& o, agent_index agents, global_id, Inputs const&) {
    ConsensusParameters p;
    p.confidence = o.model == "degroot" ? 1.0 : o.confidence;
    return Consensus<WeightStorage, Memory>(agents, p);
  }
  static std::vector<int> shown(Options const&) { return {0, 1, 2, 3, 4}; }
};

/// AgentTorch's COVID model (docs/models/covid-astoria.md).
struct CovidEntry : ModelEntry {
  static constexpr ModelName names[] = {{"covid", "AgentTorch's COVID model, S, E, I, R, D (options below)"}};
  static constexpr bool reads_attributes = true;
  static constexpr bool has_outbreaks = true;
  static constexpr bool has_age_groups = true;
  static std::vector<std::string> parameters(std::string_view) {
    return {"transmission-rate", "mortality", "initial-infected"};
  }
  using Inputs = CovidPopulation;

  template <class WeightStorage>
  static Inputs read_inputs(Options const& o, Input<WeightStorage> const& input, Comm comm) {
    return covid_population(o, input.attributes, input.graph.num_agents(), comm);
  }
  /// A rank's owned agents' inputs, when the ranks read the files by parts: from `attributes`
  /// (--attributes' rows of the owned agents, in their order) or the population file.
  static Inputs read_owned_inputs(Options const& o, std::vector<global_id> const& owned, global_id agents,
                                  AttributeTable const& attributes, Comm comm) {
    return covid_population_of_owned(o, owned, agents, attributes, comm);
  }
  template <class WeightStorage>
  static Covid<Memory> make(Options const& o, agent_index agents, global_id global, Inputs const& population) {
    // Agents without their stages are seeded by --initial-infected, a member's own in a sweep,
    // which must fit. Agents read from a table or file have their ages, and their stages where
    // given (a rank that reads its own agents and owns none has neither); inputs not read yet
    // (empty) are checked when read where a file may give stages.
    bool const read = !population.age_group.empty() || population.owned_only;
    bool const may_give_stages = !o.attributes.empty() || !(is_generator(o.graph) || is_edge_list_file(o));
    bool const staged = !population.stage.empty() || (read ? population.age_group.empty() : may_give_stages);
    require(staged || o.initial_infected <= global, "--initial-infected " + std::to_string(o.initial_infected) +
                                                        " exceeds the agent count " + std::to_string(global));
    return Covid<Memory>(agents, covid_parameters(o), population);
  }
  static std::vector<int> shown(Options const&) { return {0, 1, 2, 3, 4}; }
};

/// Every model the command runs, in the order the usage text lists them.
using Models = std::tuple<EpidemicEntry, OpinionEntry, ConsensusEntry, CovidEntry>;

/// The model type an entry builds.
template <class Entry>
using model_of = decltype(Entry::template make<float>(std::declval<Options const&>(), agent_index{}, global_id{},
                                                      std::declval<typename Entry::Inputs const&>()));

/// Whether --stepping applies: the model declares which agents can change (herd::declares_activity_v).
template <class Entry>
inline constexpr bool steps_active_v = declares_activity_v<model_of<Entry>>;

namespace detail {
template <class Entry>
constexpr bool is_named(std::string_view name) {
  for (auto const& n : Entry::names)
    if (n.name == name) return true;
  return false;
}

template <std::size_t K, class F>
decltype(auto) visit_model(std::string const& name, F&& f) {
  using Entry = std::tuple_element_t<K, Models>;
  if constexpr (K + 1 < std::tuple_size_v<Models>) {
    if (!is_named<Entry>(name)) return visit_model<K + 1>(name, std::forward<F>(f));
  } else {
    require(is_named<Entry>(name), "unknown model '" + name + "'");
  }
  return f(Entry{});
}
}  // namespace detail

/// Calls `f(Entry{})` with the entry of the model named `name`; throws herd::Error if none is.
template <class F>
decltype(auto) visit_model(std::string const& name, F&& f) {
  return detail::visit_model<0>(name, std::forward<F>(f));
}

/// Calls `f(Entry{})` for every entry, in table order.
template <class F>
void for_each_model(F&& f) {
  std::apply([&](auto... entry) { (f(entry), ...); }, Models{});
}

}  // namespace herd::cli
