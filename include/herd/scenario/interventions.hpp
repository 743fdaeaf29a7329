#pragma once

// A scenario's events acting on one simulation and its model between the steps
// (herd::run_scenario runs the loop). What a model offers decides which events it takes:
// - `set`: model.parameter(name) and model.set_parameter(name, value) on the host, which throw
//   herd::Error for a name or value the model does not take;
// - `import`: model.infect(i), on the device: agent i (a stored index) becomes infected if it is
//   susceptible, and says whether it changed;
// - `vaccinate`: model.immunise(i), likewise: agent i, if susceptible, becomes immune;
// - `layer`: any model, on a graph with layers: the simulation's layer factors
//   (Simulation::set_layer_factors), which multiply the weights the steps read;
// - `isolate`: a model that declares its activity, on a graph with layers: agents whose activity
//   has `spreads` are detected and isolated, their contacts closed (Simulation::close_contacts)
//   but for the layers the events keep, and reopened when their timers run out.
// The draws come from the stream herd::streams::scenario, keyed on global ids and the event's
// position, so every backend, schedule and rank count picks the same agents.

#include <herd/agents/property.hpp>
#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/lowest_bit.hpp>
#include <herd/core/portable_math.hpp>
#include <herd/core/random.hpp>
#include <herd/core/types.hpp>
#include <herd/engine/activity.hpp>
#include <herd/engine/activity_lanes.hpp>
#include <herd/engine/closed_contacts.hpp>
#include <herd/engine/model_traits.hpp>
#include <herd/engine/spreader_bits.hpp>
#include <herd/models/seeding.hpp>
#include <herd/scenario/scenario.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace herd {

namespace Details {
template <class Model, class = void>
struct sets_parameters : std::false_type {};
template <class Model>
struct sets_parameters<Model, std::void_t<decltype(std::declval<Model&>().set_parameter(std::string{}, 0.0)),
                                          decltype(std::declval<Model const&>().parameter(std::string{}))>>
    : std::true_type {};
template <class Model, class = void>
struct infects : std::false_type {};
template <class Model>
struct infects<Model, std::void_t<decltype(std::declval<Model const&>().infect(agent_index{}))>> : std::true_type {};
template <class Model, class = void>
struct immunises : std::false_type {};
template <class Model>
struct immunises<Model, std::void_t<decltype(std::declval<Model const&>().immunise(agent_index{}))>> : std::true_type {
};
}  // namespace Details

/// Whether a model takes a scenario's `set`, `import` and `vaccinate` events.
template <class Model>
inline constexpr bool sets_parameters_v = Details::sets_parameters<Model>::value;
template <class Model>
inline constexpr bool infects_v = Details::infects<Model>::value;
template <class Model>
inline constexpr bool immunises_v = Details::immunises<Model>::value;

/// Refuses what `model` cannot take of `scenario`, naming the event: an import or a vaccination
/// without its hook, a parameter the model does not know or a value it refuses (every value a
/// `set` gives is tried, and the model has its first parameters back either way). Throws
/// herd::Error.
template <class Model>
void check(Scenario const& scenario, Model& model) {
  std::vector<std::pair<std::string, double>> first;
  auto const restore = [&] {
    if constexpr (sets_parameters_v<Model>)
      for (auto p = first.rbegin(); p != first.rend(); ++p) model.set_parameter(p->first, p->second);
  };
  for (std::size_t k = 0; k < scenario.events.size(); ++k) {
    auto const& e = scenario.events[k];
    try {
      if (e.kind == ScenarioEvent::Kind::importation)
        require(infects_v<Model>, "the model has no infections to import");
      if (e.kind == ScenarioEvent::Kind::vaccinate) require(immunises_v<Model>, "the model has no immunity to give");
      if (e.kind == ScenarioEvent::Kind::isolate)
        require(declares_activity_v<Model>, "the model does not say which agents spread (Model::activity)");
      if (e.kind != ScenarioEvent::Kind::set) continue;
      if constexpr (sets_parameters_v<Model>) {
        first.emplace_back(e.parameter, model.parameter(e.parameter));
        model.set_parameter(e.parameter, e.value);
      } else {
        throw Error("the model has no parameters to set");
      }
    } catch (Error const& error) {
      restore();
      throw Error(event_name(scenario, k) + ": " + error.what());
    }
  }
  restore();
}

/// Vaccination classes a priority order may have: an agent's class is one byte.
inline constexpr int vaccination_classes = 256;

/// Agents each event changed before each step: row t, column k for event k before step t (row 0
/// stays 0). Summed over ranks by Interventions::finish.
template <class MemorySpace>
using EventCounts = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, MemorySpace>;

template <class Simulation, class Model>
class Interventions {
 public:
  using memory_space = typename Simulation::memory_space;
  using execution_space = typename Simulation::execution_space;
  using Priority = Kokkos::View<std::uint8_t*, memory_space>;

  /// Checks `scenario` against the model, and makes what its events draw for the steps up to
  /// `steps`, the last the simulation reaches (events after it never act). `priority`: each
  /// stored agent's vaccination class, lower classes first, for the events `by_priority` (see
  /// set_priority). Every value a `set` event gives is tried on the model, which then has its
  /// first parameters back. Collective on a rank; allocates and waits for the device.
  Interventions(Simulation& sim, Model& model, Scenario scenario, int steps, std::optional<Priority> priority = {})
      : scenario_(std::move(scenario)), saved_(scenario_.events.size(), 0.0) {
    sim.check_agreed("Interventions",
                     {{"step counts", steps},
                      {"scenarios (a hash of their events)", static_cast<std::int64_t>(events_hash(scenario_))}});
    require(steps >= 0, "Interventions: the step count must not be negative, got " + std::to_string(steps));
    // Event k draws numbers 4 k to 4 k + 3 of the scenario's stream.
    require(scenario_.events.size() <= CounterRng::max_draws / 4,
            "Interventions: " + std::to_string(scenario_.events.size()) + " events; a scenario holds at most 2^20");
    // Events name layers through the scenario's names, whether a rank's rows hold layers or not
    // (one whose rows hold no entry has none): the same message on every rank.
    for (std::size_t k = 0; k < scenario_.events.size() && scenario_.layer_names.empty(); ++k) {
      auto const& e = scenario_.events[k];
      require(e.layers.empty() && e.keeps.empty(),
              event_name(scenario_, k) +
                  ": names a layer, and the scenario names none (Scenario::layer_names, by layer number; a graph "
                  "without layers takes no layer events)");
    }
    check(scenario_);
    counts_ = EventCounts<memory_space>("herd::scenario::counts", static_cast<std::size_t>(steps) + 1,
                                        scenario_.events.size());
    check(scenario_, model);
    // A state an event changes reaches other ranks' ghosts through the properties the model lists.
    if constexpr (Simulation::distribution_type::has_ghosts && !lists_properties_v<Model>)
      for (std::size_t k = 0; k < scenario_.events.size(); ++k)
        require(scenario_.events[k].kind != ScenarioEvent::Kind::importation &&
                    scenario_.events[k].kind != ScenarioEvent::Kind::vaccinate,
                event_name(scenario_, k) +
                    ": on ranks, the states it changes reach other ranks through the properties the model lists "
                    "(Model::for_each_property), and it lists none");
    stored_ = sim.num_agents();
    owned_ = sim.num_owned();
    make_imports(sim, steps);
    steps_ = steps;
    campaigns_.assign(scenario_.events.size(), Campaign());
    make_campaigns(sim, false);
    number_layers(sim);
    make_isolation(sim);
    if (priority) set_priority(sim, std::move(*priority));
  }

  /// The last step the events were made for (the constructor's `steps`).
  int last_step() const { return steps_; }

  /// Throws, on every rank if any fails, unless `sim` stores the agents of the simulation these
  /// events were made for: their lists of agents index its agents. Collective on a rank.
  void check_simulation(Simulation const& sim, std::string const& where) const {
    sim.require_everywhere(sim.num_agents() == stored_ && sim.num_owned() == owned_
                               ? std::string()
                               : where + ": the simulation stores " + std::to_string(sim.num_agents()) + " agents (" +
                                     std::to_string(sim.num_owned()) + " owned); the events were made for one of " +
                                     std::to_string(stored_) + " (" + std::to_string(owned_) + " owned)");
  }

  /// Sets each stored agent's vaccination class (lower classes first) for the vaccinations
  /// `by_priority`, which refuse to act without them. The classes of the owned agents are counted
  /// over every rank: collective on a rank (where a rank with no agents passes an empty View). Call
  /// before the steps, when the classes depend on a state set after construction (an age read
  /// from a checkpoint).
  void set_priority(Simulation& sim, Priority priority) {
    check_simulation(sim, "set_priority");
    // Every rank learns of a rank's short classes: the classes are then counted over the ranks.
    sim.require_everywhere(static_cast<agent_index>(priority.extent(0)) >= sim.num_owned()
                               ? std::string()
                               : "scenario: the vaccination classes cover " + std::to_string(priority.extent(0)) +
                                     " agents of " + std::to_string(sim.num_owned()));
    priority_ = std::move(priority);
    has_classes_ = true;
    make_classes(sim);
    make_campaigns(sim, true);
  }

  Scenario const& scenario() const { return scenario_; }

  /// Whether the scenario isolates agents.
  bool isolates() const { return isolating_; }
  /// Each stored agent's isolation word (herd::isolation_word): the steps of isolation it has
  /// left, counting the step under way, or the detection drawn ahead for a free spreader
  /// (isolation_word::isolated says which). What a checkpoint saves (the property "isolation");
  /// after loading it, call restore_isolation. Empty when the scenario isolates no one.
  Property<std::uint16_t, memory_space>& isolation_timers() { return timers_; }
  Property<std::uint16_t, memory_space> const& isolation_timers() const { return timers_; }
  /// The longest isolation an event gives, in steps: no isolated agent's word holds more.
  int longest_isolation() const {
    int longest = 0;
    for (auto const& e : scenario_.events)
      if (e.kind == ScenarioEvent::Kind::isolate) longest = std::max(longest, e.duration);
    return longest;
  }
  /// Closes the contacts of the agents whose timers (every stored agent's, as a checkpoint loads
  /// them) say they are isolated, on a graph whose contacts are all open. Waits for the device.
  void restore_isolation(Simulation& sim) {
    if (!isolating_) return;
    auto const iso = isolation_;
    auto const timers = timers_.current();
    Kokkos::deep_copy(sim.execution_space_instance(), iso.count, agent_index{0});
    Kokkos::parallel_for(
        "herd::scenario::restore_isolation",
        Kokkos::RangePolicy<execution_space>(sim.execution_space_instance(), 0, sim.num_agents()),
        KOKKOS_LAMBDA(agent_index a) {
          // Isolated agents changed from the open contacts the graph starts with.
          bool const isolated = isolation_word::isolated(timers(a));
          iso.flags(a) = static_cast<std::uint8_t>(isolated ? Flags::isolated_bit | Flags::changed_bit
                                                   : timers(a) >= isolation_word::waits ? Flags::waiting_bit
                                                                                        : 0);
          if (isolated) iso.list(a);
        });
    sim.close_contacts(iso);
    sim.execution_space_instance().fence();
  }

  /// Gives the model the parameters that the events before step `step` left it, from those it
  /// had after the last step these events acted on (none: its first ones). A run resumed from a
  /// saved state after step - 1 steps starts so; herd::run_scenario calls it.
  void catch_up(Model& model, int step) {
    for (int t = done_ + 1; t < step; ++t) set_parameters(model, t);
    if (step - 1 > done_) done_ = step - 1;
  }

  /// Acts with the events of step `step` (from 1) on the simulation and the model, before the
  /// step. Returns whether any event acted; the agents' changes are counted on the device.
  bool operator()(Simulation& sim, Model& model, int step) {
    // Messages are made only on failure: the step loop allocates nothing.
    if (step > steps_)
      throw Error("scenario: step " + std::to_string(step) + " lies beyond the " + std::to_string(steps_) +
                  " steps the events were made for");
    if (finished_)
      throw Error("scenario: step " + std::to_string(step) +
                  ": the events' counts were already summed over the ranks by finish(), which ends the run");
    // The lists of agents index the simulation the events were made for.
    if (sim.num_agents() != stored_)
      throw Error("scenario: step " + std::to_string(step) + ": the simulation stores " +
                  std::to_string(sim.num_agents()) + " agents; the events were made for " + std::to_string(stored_));
    done_ = step;
    bool acted = set_parameters(model, step);
    acted = set_layer_factors(sim, step) || acted;
    bool changed = false;
    for (std::size_t k = 0; k < scenario_.events.size(); ++k) {
      auto const& e = scenario_.events[k];
      if (e.kind == ScenarioEvent::Kind::set || e.kind == ScenarioEvent::Kind::layer ||
          e.kind == ScenarioEvent::Kind::isolate || !e.acts_on(step))
        continue;
      if (!changed) sim.wait_for_ghosts();
      changed = true;
      // Refused at construction for a model without the hook.
      if constexpr (infects_v<Model>)
        if (e.kind == ScenarioEvent::Kind::importation) import_infections(sim, model, k, step);
      if constexpr (immunises_v<Model>)
        if (e.kind == ScenarioEvent::Kind::vaccinate) vaccinate(sim, model, k, step);
    }
    // Only what neighbours read travels, in the buffers the steps reserved for it.
    // (A model that lists none was refused such events on ranks, and one process has no ghosts.)
    if constexpr (lists_properties_v<Model>)
      if (changed)
        model.for_each_property([&](auto const& property) {
          if (property.visibility() == Visibility::neighbours) sim.update_agreed_ghosts(property);
        });
    // Isolation changes weights, not states: the active set need not forget the agents.
    if constexpr (declares_activity_v<Model>)
      if (isolating_ && step <= isolation_until_) isolate(sim, model, step);
    return acted || changed;
  }

  /// The agents each event changed before each step so far: this rank's, until finish sums them.
  EventCounts<memory_space> const& counts() const { return counts_; }

  /// The agents each event changed before each step, summed over ranks (collective), after the
  /// run: the first call sums them, later ones return the same counts.
  EventCounts<memory_space> const& finish(Simulation& sim) {
    if (!finished_) sim.finish(counts_);
    finished_ = true;
    return counts_;
  }

 private:
  // Applies the `set` events of step `step`: first what reverts, then what is set.
  bool set_parameters(Model& model, int step) {
    bool acted = false;
    for (std::size_t k = 0; k < scenario_.events.size(); ++k) {
      auto const& e = scenario_.events[k];
      if (e.kind != ScenarioEvent::Kind::set || !e.reverts || step != e.last + 1) continue;
      if constexpr (sets_parameters_v<Model>) model.set_parameter(e.parameter, saved_[k]);
      acted = true;
    }
    for (std::size_t k = 0; k < scenario_.events.size(); ++k) {
      auto const& e = scenario_.events[k];
      if (e.kind != ScenarioEvent::Kind::set || step != e.first) continue;
      if constexpr (sets_parameters_v<Model>) {
        saved_[k] = model.parameter(e.parameter);
        model.set_parameter(e.parameter, e.value);
      }
      acted = true;
    }
    return acted;
  }

  // Each layer event's layers by number; refuses layer events on a graph without layers (a rank
  // whose rows hold no entry has no layers to read, and takes them).
  void number_layers(Simulation const& sim) {
    layers_of_.assign(scenario_.events.size(), {});
    for (std::size_t k = 0; k < scenario_.events.size(); ++k) {
      auto const& e = scenario_.events[k];
      if (e.kind != ScenarioEvent::Kind::layer) continue;
      require(sim.graph().layered() || sim.graph().num_edges() == 0,
              event_name(scenario_, k) + ": the graph has no layers");
      for (auto const& layer : e.layers) layers_of_[k].push_back(layer_number(scenario_, k, layer.first));
      has_layer_events_ = true;
    }
    auto const layers = std::min(scenario_.layer_names.size(), static_cast<std::size_t>(max_layers));
    factors_now_.assign(layers, 1.0f);
    factors_.assign(layers, 1.0f);
    products_.assign(layers, 1.0);
  }

  // Sets the layer factors of step `step` where they differ from those in effect: each layer's
  // product of the factors of the layer events acting on the step. Returns whether it set them.
  // Allocates nothing: the tables are the size of the layers from the start.
  bool set_layer_factors(Simulation& sim, int step) {
    if (!has_layer_events_) return false;
    std::fill(products_.begin(), products_.end(), 1.0);
    for (std::size_t k = 0; k < scenario_.events.size(); ++k) {
      auto const& e = scenario_.events[k];
      if (e.kind != ScenarioEvent::Kind::layer || !e.acts_on(step)) continue;
      for (std::size_t i = 0; i < e.layers.size(); ++i) products_[layers_of_[k][i]] *= e.layers[i].second;
    }
    std::copy(products_.begin(), products_.end(), factors_.begin());
    if (factors_ == factors_now_) return false;
    sim.set_layer_factors(factors_);
    factors_now_ = factors_;
    return true;
  }

  // The agents each import event draws at each of its steps, in one View: Floyd's choice
  // (herd::choose_agents) under a seed drawn for the event and the step.
  void make_imports(Simulation const& sim, int steps) {
    std::vector<global_id> ids;
    import_start_.assign(scenario_.events.size(), std::vector<std::size_t>());
    for (std::size_t k = 0; k < scenario_.events.size(); ++k) {
      auto const& e = scenario_.events[k];
      if (e.kind != ScenarioEvent::Kind::importation) continue;
      require(e.count <= sim.num_global(), event_name(scenario_, k) + ": " + std::to_string(e.count) +
                                               " agents a step, of " + std::to_string(sim.num_global()));
      for (int t = e.first; t <= std::min(e.last, steps); ++t) {
        import_start_[k].push_back(ids.size());
        auto const chosen = choose_agents<Kokkos::HostSpace>(import_seed(sim.rng(), k, t), sim.num_global(), e.count);
        ids.insert(ids.end(), chosen.data(), chosen.data() + chosen.extent(0));
      }
      import_start_[k].push_back(ids.size());
    }
    imported_ = Kokkos::View<global_id*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::scenario::imports"), ids.size());
    Kokkos::deep_copy(
        imported_, Kokkos::View<global_id const*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(ids.data(), ids.size()));
  }

  // The timers and flags of isolation, where an event isolates: allocated once, and the graph
  // readied to close contacts.
  void make_isolation(Simulation& sim) {
    isolation_until_ = 0;
    std::vector<std::string> const* keeps = nullptr;
    for (std::size_t k = 0; k < scenario_.events.size(); ++k) {
      auto const& e = scenario_.events[k];
      if (e.kind != ScenarioEvent::Kind::isolate) continue;
      require(sim.graph().layered() || sim.graph().num_edges() == 0,
              event_name(scenario_, k) + ": isolation closes contacts by their layer, and the graph has no layers");
      isolation_until_ = std::max(isolation_until_, std::min(e.last, steps_) + e.duration);
      keeps = &e.keeps;
    }
    isolating_ = keeps != nullptr;
    if (!isolating_) return;
    sim.allow_closed_contacts();
    auto const stored = sim.num_agents();
    timers_ = Property<std::uint16_t, memory_space>("isolation", stored, Visibility::own);
    flags_ = Property<std::uint8_t, memory_space>("isolated", stored);
    isolation_.flags = flags_.current();
    isolation_.changed = Kokkos::View<agent_index*, memory_space>(
        Kokkos::ViewAllocateWithoutInitializing("herd::scenario::isolation_changed"), stored);
    isolation_.count = Kokkos::View<agent_index, memory_space>("herd::scenario::isolation_changes");
    Kokkos::View<std::uint8_t*, Kokkos::HostSpace> kept("herd::scenario::kept_layers", max_layers);
    for (std::size_t k = 0; k < scenario_.events.size(); ++k)
      if (scenario_.events[k].kind == ScenarioEvent::Kind::isolate)
        for (auto const& layer : scenario_.events[k].keeps) kept(layer_number(scenario_, k, layer)) = 1;
    isolation_.keeps = Kokkos::create_mirror_view_and_copy(memory_space(), kept);
  }

  // The seed of an import's choice at step t: 64 bits of the scenario's stream.
  static std::uint64_t import_seed(CounterRng const& rng, std::size_t event, int step) {
    return rng.bits64(static_cast<global_id>(event), static_cast<std::uint32_t>(step), streams::scenario, 0);
  }

  // The kernels' launches: public for nvcc, whose device lambdas may not sit in private member
  // functions. Not part of the API.
 public:
  // The agents of each vaccination class over every rank, and how many come before each class.
  void make_classes(Simulation& sim) {
    classes_ = {};
    if (!has_classes_) return;
    EventCounts<memory_space> in_class("herd::scenario::class_sizes", 1, vaccination_classes);
    auto const priority = priority_;
    Kokkos::parallel_for(
        "herd::scenario::count_classes",
        Kokkos::RangePolicy<execution_space>(sim.execution_space_instance(), 0, sim.num_owned()),
        KOKKOS_LAMBDA(agent_index i) { Kokkos::atomic_add(&in_class(0, priority(i)), std::int64_t{1}); });
    sim.finish(in_class);  // sums over ranks
    auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in_class);
    Kokkos::View<std::int64_t*, Kokkos::HostSpace> before("herd::scenario::before", 2 * vaccination_classes);
    std::int64_t sum = 0;
    for (int c = 0; c < vaccination_classes; ++c) {
      before(c) = sum;
      before(vaccination_classes + c) = host(0, c);
      sum += host(0, c);
    }
    classes_ = Kokkos::create_mirror_view_and_copy(memory_space(), before);
  }

  void import_infections(Simulation& sim, Model const& model, std::size_t k, int step) {
    auto const& e = scenario_.events[k];
    auto const& start = import_start_[k];
    auto const at = static_cast<std::size_t>(step - e.first);
    auto const chosen = Kokkos::subview(imported_, std::make_pair(start[at], start[at + 1]));
    auto const ids = sim.id_map();
    Kokkos::parallel_reduce(
        "herd::scenario::import",
        Kokkos::RangePolicy<execution_space>(sim.execution_space_instance(), 0, sim.num_owned()),
        KOKKOS_LAMBDA(agent_index i, std::int64_t & changed) {
          if (contains_sorted(chosen, ids(i)) && model.infect(i)) ++changed;
        },
        Kokkos::subview(counts_, static_cast<std::size_t>(step), k));
  }

  // Agent g of class c takes its dose before step first + (before(c) + u_g count(c)) / N, u_g
  // uniform in [0, 1) from the 64 bits of draws 4k and 4k + 1 of event k: N doses a step on
  // average, the classes in order, a random order within each. Without priority every agent is in
  // one class. The owned agents of each turn are listed once, so that a step's doses cost a pass
  // over its own agents alone.
  void make_campaigns(Simulation& sim, bool by_priority) {
    for (std::size_t k = 0; k < scenario_.events.size(); ++k) {
      auto const& e = scenario_.events[k];
      if (e.kind != ScenarioEvent::Kind::vaccinate || e.by_priority != by_priority) continue;
      campaigns_[k] = Campaign();
      int const turns = std::min(e.last, steps_) - e.first + 1;
      if (e.count == 0 || turns <= 0 || (by_priority && !has_classes_)) continue;
      auto const owned = sim.num_owned();
      auto const ids = sim.id_map();
      auto const rng = sim.rng();
      auto const classes = classes_;
      auto const priority = priority_;
      auto const everyone = static_cast<std::uint64_t>(sim.num_global());
      auto const per_step = static_cast<std::uint64_t>(e.count);
      auto const event = static_cast<std::uint32_t>(k);
      auto const& exec = sim.execution_space_instance();
      Kokkos::View<int*, memory_space> turn(Kokkos::ViewAllocateWithoutInitializing("herd::scenario::turn"), owned);
      Kokkos::View<std::int64_t*, memory_space> start("herd::scenario::turn_start", turns + 1);
      Kokkos::parallel_for(
          "herd::scenario::turns", Kokkos::RangePolicy<execution_space>(exec, 0, owned), KOKKOS_LAMBDA(agent_index i) {
            int const c = by_priority ? priority(i) : 0;
            auto const first = by_priority ? static_cast<std::uint64_t>(classes(c)) : 0;
            auto const size = by_priority ? static_cast<std::uint64_t>(classes(vaccination_classes + c)) : everyone;
            auto const position = first + uniform_below64(rng.bits64(ids(i), 0, streams::scenario, 2 * event), size);
            auto const t = position / per_step;
            turn(i) = t < static_cast<std::uint64_t>(turns) ? static_cast<int>(t) : -1;
            if (turn(i) >= 0) Kokkos::atomic_add(&start(turn(i) + 1), std::int64_t{1});
          });
      auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), start);
      for (int t = 0; t < turns; ++t) host(t + 1) += host(t);
      Kokkos::deep_copy(start, host);
      Campaign& campaign = campaigns_[k];
      campaign.start.assign(host.data(), host.data() + host.size());
      campaign.agents = Kokkos::View<agent_index*, memory_space>(
          Kokkos::ViewAllocateWithoutInitializing("herd::scenario::dosed"), static_cast<std::size_t>(host(turns)));
      auto const agents = campaign.agents;
      Kokkos::parallel_for(
          "herd::scenario::list_turns", Kokkos::RangePolicy<execution_space>(exec, 0, owned),
          KOKKOS_LAMBDA(agent_index i) {
            if (turn(i) >= 0) agents(Kokkos::atomic_fetch_add(&start(turn(i)), std::int64_t{1})) = i;
          });
      exec.fence();
    }
  }

  // The isolation events acting on one step, as a kernel holds them.
  struct Detections {
    int count = 0;
    /// The acting events differ from the last step's: the detections drawn ahead are void.
    bool fresh = false;
    /// -ln of the chance that no acting event detects a spreader in one step: its steps undetected
    /// are geometric, drawn as an exponential wait rounded down.
    double hazard = 0.0;
    std::uint32_t event[max_isolation_events] = {};
    /// Given a detection, event m detects where the choice's draw falls below chooses[m], the
    /// events' shares in order (the first acting event whose own chance came up, as if each drew).
    probability_threshold chooses[max_isolation_events] = {};
    std::uint16_t steps[max_isolation_events] = {};
  };

  // The isolation events acting on step `step` (none before step 1), with their shares.
  Detections acting_on(int step) const {
    Detections acting;
    double undetected = 1.0, share = 0.0;
    double shares[max_isolation_events] = {};  // on the stack: called before every step
    for (std::size_t k = 0; k < scenario_.events.size(); ++k) {
      auto const& e = scenario_.events[k];
      if (step < 1 || e.kind != ScenarioEvent::Kind::isolate || !e.acts_on(step)) continue;
      acting.event[acting.count] = static_cast<std::uint32_t>(k);
      acting.steps[acting.count] = static_cast<std::uint16_t>(e.duration);
      acting.hazard += portable::neg_log1m(e.probability);
      share += undetected * e.probability;
      shares[acting.count] = share;
      undetected *= 1.0 - e.probability;
      ++acting.count;
    }
    for (int m = 0; m < acting.count; ++m)
      acting.chooses[m] = m + 1 == acting.count || share <= 0.0
                              ? std::uint64_t{1} << 32
                              : to_threshold(shares[static_cast<std::size_t>(m)] / share);
    return acting;
  }

  using Flags = Details::Isolation<memory_space>;

  // One owned agent's round of isolation before a step: its timer counts one step down; free and
  // spreading, it waits for the detection drawn ahead for it, or draws one: how many steps it stays
  // undetected (draw 4k + 3 of the first acting event k at the step it draws) and, detected, by
  // which event (draw 4k + 3 of the second), isolated then for the event's steps. Its flag says
  // whether it is isolated, whether that changed and whether it waits; a change lists it where the
  // simulation closes contacts in their entries (the list says which to rewrite). A spreader so
  // costs a draw when it starts to spread or is freed, not one a step. Only what changed is written.
  struct Detection {
    Flags iso;
    Kokkos::View<std::uint16_t*, memory_space> timers;
    decltype(std::declval<Simulation const&>().id_map()) ids;
    CounterRng rng;
    decltype(Kokkos::subview(std::declval<EventCounts<memory_space>>(), std::size_t{}, Kokkos::ALL())) counts;
    std::uint32_t counter;
    Detections acting;
    Model model;
    bool lists;

    // Which of the `agents` (at most 8) agents from `first`, a multiple of 8, have a flag with
    // any of `bits` set, agent first + k in bit k: one load of their flags.
    KOKKOS_INLINE_FUNCTION std::uint32_t flagged(agent_index first, agent_index agents, std::uint8_t bits) const {
      return Details::lanes_with(Details::byte_lanes(iso.flags.data() + first, agents), bits);
    }
    // Which of them spread: one load of their states where the model gives eight activities at once.
    KOKKOS_INLINE_FUNCTION std::uint32_t spreading(agent_index first, agent_index agents) const {
      return Details::lanes_with(Details::activities(model, first, agents), activity::spreads);
    }
    KOKKOS_INLINE_FUNCTION void operator()(agent_index i) const {
      std::uint16_t const before = timers(i);
      bool const was_isolated = isolation_word::isolated(before);
      std::uint16_t after = was_isolated ? static_cast<std::uint16_t>(before - 1) : std::uint16_t{0};
      if (after == 0 && acting.count > 0 && (model.activity(i) & activity::spreads) != 0)
        after = free_spreader(i, was_isolated || acting.fresh ? std::uint16_t{0} : before);
      if (after != before) timers(i) = after;
      std::uint8_t const old = iso.flags(i);
      bool const isolated = isolation_word::isolated(after), changed = isolated != ((old & Flags::isolated_bit) != 0);
      auto const now =
          static_cast<std::uint8_t>((isolated ? Flags::isolated_bit : 0) | (changed ? Flags::changed_bit : 0) |
                                    (after >= isolation_word::waits ? Flags::waiting_bit : 0));
      if (now != old) iso.flags(i) = now;
      if (changed && lists) iso.list(i);
    }
    // The word of free spreader i, whose word was `before` (0, or a detection drawn ahead).
    KOKKOS_INLINE_FUNCTION std::uint16_t free_spreader(agent_index i, std::uint16_t before) const {
      using namespace isolation_word;
      if (before != 0) {
        if ((before & step_bits) != (counter & step_bits)) return before;
        if ((before & detects) != 0) return detected(i);
      }
      if (!(acting.hazard > 0.0)) return 0;
      // Steps undetected: floor(-ln u / hazard), u uniform in (0, 1), with operations that round
      // alike on every backend.
      std::uint32_t const draw = rng.bits(ids(i), counter, streams::scenario, 4 * acting.event[0] + 3);
      double const wait = -portable::log((static_cast<double>(draw) + 0.5) * 0x1p-32) / acting.hazard;
      if (!(wait < static_cast<double>(longest_wait)))
        return static_cast<std::uint16_t>(waits | ((counter + longest_wait) & step_bits));
      auto const steps = static_cast<std::uint32_t>(wait);
      if (steps == 0) return detected(i);
      return static_cast<std::uint16_t>(waits | detects | ((counter + steps) & step_bits));
    }
    // The isolation of agent i, detected now, by the event its choice's draw gives.
    KOKKOS_INLINE_FUNCTION std::uint16_t detected(agent_index i) const {
      int m = 0;
      if (acting.count > 1) {
        std::uint32_t const draw = rng.bits(ids(i), counter, streams::scenario, 4 * acting.event[1] + 3);
        while (m + 1 < acting.count && !happens(draw, acting.chooses[m])) ++m;
      }
      Kokkos::atomic_add(&counts(acting.event[m]), std::int64_t{1});
      return acting.steps[m];
    }
  };

  // Before step `step`: each owned agent has its round of Detection. The flags travel to the
  // ghosts, and the simulation closes the contacts of the agents whose isolation changed.
  // Launches kernels (a rank waits for its halo). Only what changed is written: the pass reads
  // every agent's flag and state, and the words of the agents with anything to do.
  void isolate(Simulation& sim, Model const& model, int step) {
    Detections acting = acting_on(step);
    Detections const before = acting_on(step - 1);
    acting.fresh = acting.count != before.count || !std::equal(acting.event, acting.event + acting.count, before.event);
    auto const exec = sim.execution_space_instance();
    auto const iso = isolation_;
    Detection const detect{iso,
                           timers_.current(),
                           sim.id_map(),
                           sim.rng(),
                           Kokkos::subview(counts_, static_cast<std::size_t>(step), Kokkos::ALL()),
                           static_cast<std::uint32_t>(step),
                           acting,
                           model,
                           sim.closes_in_entries()};
    Kokkos::deep_copy(exec, iso.count, agent_index{0});
    agent_index const owned = sim.num_owned();
    if constexpr (Details::runs_on_host_v<execution_space>) {
      // A CPU first finds the agents of 32 that have anything to do, without a branch, eight at a
      // time, and goes through those alone: about one in eight at an epidemic's peak. Those with
      // a flag set (isolated, just freed or waiting), and spreaders while an event acts; the
      // others keep a word of 0 and a flag of 0. (Skipping the spreaders that wait for a later
      // step costs the scan more than visiting them does.) Where the step's sums read the maps
      // of who spreads and who is isolated, the pass, which reads the same states and flags,
      // marks them for the step (a word of each map per 32 agents).
      constexpr agent_index word = Details::spreader_word_bits;
      auto const maps = sim.spreader_maps_ahead(model);
      auto const words = static_cast<agent_index>(maps.extent(0) / Details::spreader_maps);
      bool const draws = acting.count > 0;
      Kokkos::parallel_for(
          "herd::scenario::isolate", Kokkos::RangePolicy<execution_space>(exec, 0, (owned + word - 1) / word),
          KOKKOS_LAMBDA(agent_index w) {
            agent_index const base = w * word, count = owned - base < word ? owned - base : word;
            std::uint32_t flags = 0, spreads = 0;
            for (agent_index b = 0; b < count; b += 8) {
              agent_index const n = count - b < 8 ? count - b : agent_index{8};
              flags |= detect.flagged(base + b, n, 0xFF) << b;
              if (draws || words != 0) spreads |= detect.spreading(base + b, n) << b;
            }
            std::uint32_t acts = draws ? flags | spreads : flags;
            bool const visits = acts != 0;
            while (acts != 0) {
              detect(base + Details::lowest_bit(acts));
              acts &= acts - 1;
            }
            if (words == 0) return;
            std::uint32_t isolated = 0;  // as the visits left the flags
            if (visits)
              for (agent_index b = 0; b < count; b += 8)
                isolated |= detect.flagged(base + b, count - b < 8 ? count - b : agent_index{8}, Flags::isolated_bit)
                            << b;
            maps(w) = spreads;
            maps(Details::free_spreader_map * words + w) = spreads & ~isolated;
            maps(Details::isolated_map * words + w) = isolated;
          });
      if (words != 0) sim.spreaders_marked_ahead(model);
    } else {
      Kokkos::parallel_for(
          "herd::scenario::isolate", Kokkos::RangePolicy<execution_space>(exec, 0, owned),
          KOKKOS_LAMBDA(agent_index i) { detect(i); });
    }
    if constexpr (Simulation::distribution_type::has_ghosts) {
      // A ghost's byte says whether its owner's detections changed it.
      sim.update_agreed_ghosts(flags_);
      sim.wait_for_ghosts();
      if (detect.lists)
        Kokkos::parallel_for(
            "herd::scenario::isolated_ghosts",
            Kokkos::RangePolicy<execution_space>(exec, sim.num_owned(), sim.num_agents()),
            KOKKOS_LAMBDA(agent_index g) {
              if (iso.changes(g)) iso.list(g);
            });
    }
    sim.close_contacts(iso);
  }

  // The doses of this step: each protects when draw 4k + 2 falls below the efficacy.
  void vaccinate(Simulation& sim, Model const& model, std::size_t k, int step) {
    auto const& e = scenario_.events[k];
    if (e.by_priority && !has_classes_)
      throw Error(event_name(scenario_, k) + ": vaccinates by priority, but no agent has a class");
    auto const& campaign = campaigns_[k];
    auto const turn = static_cast<std::size_t>(step - e.first);
    if (campaign.start.size() < turn + 2) return;
    auto const agents = campaign.agents;
    auto const first = static_cast<std::size_t>(campaign.start[turn]);
    auto const ids = sim.id_map();
    auto const rng = sim.rng();
    auto const protects = to_threshold(e.efficacy);
    auto const event = static_cast<std::uint32_t>(k);
    Kokkos::parallel_reduce(
        "herd::scenario::vaccinate",
        Kokkos::RangePolicy<execution_space>(sim.execution_space_instance(), first,
                                             static_cast<std::size_t>(campaign.start[turn + 1])),
        KOKKOS_LAMBDA(std::size_t j, std::int64_t & changed) {
          agent_index const i = agents(j);
          if (rng.bits(ids(i), 0, streams::scenario, 4 * event + 2) < protects && model.immunise(i)) ++changed;
        },
        Kokkos::subview(counts_, static_cast<std::size_t>(step), k));
  }

 private:
  // A vaccination's owned agents by turn: those of turn t are agents(start[t] ... start[t + 1] - 1).
  struct Campaign {
    Kokkos::View<agent_index*, memory_space> agents;
    std::vector<std::int64_t> start;
  };

  Scenario scenario_;
  Priority priority_;
  std::vector<double> saved_;  ///< a reverting `set`'s earlier value
  int done_ = 0;               ///< the last step the events acted before
  bool finished_ = false;      ///< finish() summed the counts over the ranks
  EventCounts<memory_space> counts_;
  Kokkos::View<global_id*, memory_space> imported_;
  std::vector<std::vector<std::size_t>> import_start_;  ///< per import event: where each step's agents start
  Kokkos::View<std::int64_t*, memory_space> classes_;   ///< agents before each class, then each class's agents
  std::vector<Campaign> campaigns_;                     ///< per vaccination event: its agents by turn
  std::vector<std::vector<layer_index>> layers_of_;     ///< per layer event: its layers by number
  std::vector<float> factors_now_;                      ///< the layer factors in effect, by layer
  std::vector<float> factors_;                          ///< a step's layer factors, by layer
  std::vector<double> products_;                        ///< their products, as they are made
  bool has_layer_events_ = false;
  bool has_classes_ = false;  ///< set_priority was called
  int steps_ = 0;
  agent_index stored_ = 0;  ///< the simulation's stored agents, which the lists of agents index
  agent_index owned_ = 0;
  bool isolating_ = false;                        ///< some event isolates
  int isolation_until_ = 0;                       ///< the last step a timer may still run down
  Property<std::uint16_t, memory_space> timers_;  ///< steps of isolation left, per stored agent
  Property<std::uint8_t, memory_space> flags_;    ///< Details::Isolation's flags, per stored agent (ghosts by the halo)
  Details::Isolation<memory_space> isolation_;
};

}  // namespace herd
