#pragma once

// A scenario: timed events that act on a run between its steps. Each is a pure function of the
// seed, the step, the event's position in the scenario and the agents' global ids, so a run with
// a scenario gives the same bits on every backend, thread count, rank count, schedule and stepping
// mode, and a resumed run fires what the uninterrupted run would have fired from there on.

#include <herd/core/error.hpp>
#include <herd/core/fnv1a.hpp>
#include <herd/core/types.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace herd {

/// One timed event. It acts before each step of [first, last], so that the observables after step
/// `first` (row `first` of the history) show its effect.
struct ScenarioEvent {
  enum class Kind {
    set,          ///< `parameter` takes `value` from step `first`; with `reverts`, its earlier value after `last`
    importation,  ///< `import`: `count` agents, drawn anew each step, are infected if susceptible
    vaccinate,    ///< `count` agents a step, in priority order, are immunised with probability `efficacy`
    layer,        ///< the weights of each layer of `layers` are multiplied by its factor on the steps it acts
    isolate,      ///< each spreading agent is detected with `probability` and isolated for `duration` steps
  };
  Kind kind = Kind::set;
  int first = 1;
  int last = 1;
  std::string parameter;     ///< set: the model's name for it
  double value = 0.0;        ///< set
  bool reverts = false;      ///< set: the parameter returns to its earlier value after `last`
  global_id count = 0;       ///< import, vaccinate: agents a step
  double efficacy = 1.0;     ///< vaccinate: the share of doses that protect (all or nothing)
  bool by_priority = false;  ///< vaccinate: the priority classes first (Interventions' classes), else all at random
  /// layer: (layer name, factor) pairs. A layer's factor on a step is the product of the factors
  /// that the layer events acting on it give the layer (1 where none acts).
  std::vector<std::pair<std::string, double>> layers;
  /// layer: where not 0, the event acts only on some steps of a repeating cycle of `period` steps
  /// (a week of 7): step t is day (t - 1) % period + 1 of its cycle, and the event acts on day d
  /// when bit d - 1 of `days` is set.
  int period = 0;
  std::uint64_t days = 0;
  /// isolate: the chance that a spreading agent (activity::spreads) that is not isolated is
  /// detected before a step, and the steps its isolation then lasts, from that step on. An
  /// isolated agent's contacts weigh 0 both ways, but for those of the layers it `keeps`.
  double probability = 0.0;
  int duration = 1;
  std::vector<std::string> keeps;
  std::string label;  ///< how errors name the event (empty: "event k (kind)")

  /// Whether the event acts on step `step` (its steps, and its days of a cycle).
  bool acts_on(int step) const {
    if (step < first || step > last) return false;
    return period == 0 || ((days >> ((step - 1) % period)) & 1u) != 0;
  }
};

/// Timed events, in the order they act within a step (the order of the file).
struct Scenario {
  std::vector<ScenarioEvent> events;
  /// The names of the graph's layers, by number, that `layer` events name.
  std::vector<std::string> layer_names;
  bool empty() const { return events.empty(); }
};

inline char const* to_string(ScenarioEvent::Kind kind) {
  switch (kind) {
    case ScenarioEvent::Kind::set:
      return "set";
    case ScenarioEvent::Kind::importation:
      return "import";
    case ScenarioEvent::Kind::vaccinate:
      return "vaccinate";
    case ScenarioEvent::Kind::layer:
      return "layer";
    case ScenarioEvent::Kind::isolate:
      return "isolate";
  }
  return "?";
}

/// How errors name event k: its label, or "event k (kind)".
inline std::string event_name(Scenario const& scenario, std::size_t k) {
  auto const& e = scenario.events[k];
  return e.label.empty() ? "event " + std::to_string(k) + " (" + to_string(e.kind) + ")" : e.label;
}

/// The number of the layer `name` among `scenario.layer_names`. Throws herd::Error naming the event
/// and the layers there are.
inline layer_index layer_number(Scenario const& scenario, std::size_t k, std::string const& name) {
  auto const& names = scenario.layer_names;
  for (std::size_t l = 0; l < names.size() && l < static_cast<std::size_t>(max_layers); ++l)
    if (names[l] == name) return static_cast<layer_index>(l);
  // A file without names has its 128 layers' numbers: the first few say how to name them.
  std::string known;
  for (std::size_t l = 0; l < names.size() && l < 8; ++l) known += (l ? ", " : "") + names[l];
  if (names.size() > 8) known += ", ... (" + std::to_string(names.size()) + " in all)";
  throw Error(event_name(scenario, k) + ": unknown layer '" + name + "' (" +
              (names.empty() ? std::string("the graph has no layers") : "the graph's layers: " + known) + ")");
}

namespace Details {
/// Refuses `set` events of one parameter whose ranges would undo each other. A range of steps gives
/// its parameter back, after its last step, the value it found at its first, so ranges of one
/// parameter must lie apart or strictly one inside the other (a stack of values), and a single
/// step's lasting value must not fall inside a range, which would undo it, unless on the range's
/// first step and before it in the file (the range then finds and gives back that value). By
/// parameter, in order of steps, with the ranges that contain the current step on a stack.
inline void check_sets_apart(Scenario const& scenario) {
  auto const& events = scenario.events;
  std::vector<std::size_t> sets;
  for (std::size_t k = 0; k < events.size(); ++k)
    if (events[k].kind == ScenarioEvent::Kind::set) sets.push_back(k);
  // On a step, ranges first, the longest outermost; a single step then finds them open.
  std::sort(sets.begin(), sets.end(), [&](std::size_t a, std::size_t b) {
    auto const& x = events[a];
    auto const& y = events[b];
    return std::make_tuple(std::cref(x.parameter), x.first, !x.reverts, -x.last, a) <
           std::make_tuple(std::cref(y.parameter), y.first, !y.reverts, -y.last, b);
  });
  auto const refuse = [&](std::size_t k, std::size_t range, char const* how) {
    auto const& e = events[k];
    auto const& r = events[range];
    throw Error(event_name(scenario, k) + " sets " + e.parameter + " on step" +
                (e.first == e.last ? " " + std::to_string(e.first)
                                   : "s " + std::to_string(e.first) + "-" + std::to_string(e.last)) +
                ", " + how + " steps " + std::to_string(r.first) + "-" + std::to_string(r.last) + " of " +
                event_name(scenario, range) + ", which give " + e.parameter + " back after step " +
                std::to_string(r.last) +
                " the value they found: a parameter's ranges must lie apart or one "
                "strictly inside another, and a single step outside them or on a range's first step before it");
  };
  std::vector<std::size_t> open;  // ranges containing the current step, outermost first
  for (std::size_t n = 0; n < sets.size(); ++n) {
    auto const k = sets[n];
    auto const& e = events[k];
    if (n > 0 && e.parameter != events[sets[n - 1]].parameter) open.clear();
    while (!open.empty() && events[open.back()].last < e.first) open.pop_back();
    if (e.reverts) {
      if (!open.empty()) {
        auto const& outer = events[open.back()];
        if (!(outer.first < e.first && e.last < outer.last)) refuse(k, open.back(), "overlapping");
      }
      open.push_back(k);
    } else {
      for (auto r = open.rbegin(); r != open.rend(); ++r)
        if (events[*r].first < e.first || *r < k) refuse(k, *r, "inside");
    }
  }
}
}  // namespace Details

/// Isolation events a scenario may hold: a step's detections run in one pass over the agents.
/// A hash of everything `scenario` says (events and layer names, labels aside): ranks compare
/// theirs, since a rank firing other events would leave the others waiting for its messages.
inline std::uint64_t events_hash(Scenario const& scenario) {
  std::uint64_t hash = fnv1a_basis;  // over each field's bytes
  auto const mix = [&](void const* data, std::size_t size) {
    hash = fnv1a(std::string_view(static_cast<char const*>(data), size), hash);
  };
  auto const value = [&](auto const& v) { mix(&v, sizeof v); };
  auto const text = [&](std::string const& t) {
    value(t.size());
    mix(t.data(), t.size());
  };
  for (auto const& name : scenario.layer_names) text(name);
  for (auto const& e : scenario.events) {
    value(static_cast<int>(e.kind));
    value(e.first);
    value(e.last);
    text(e.parameter);
    value(e.value);
    value(e.reverts);
    value(e.count);
    value(e.efficacy);
    value(e.by_priority);
    value(e.period);
    value(e.days);
    value(e.probability);
    value(e.duration);
    value(e.layers.size());
    for (auto const& [layer, factor] : e.layers) {
      text(layer);
      value(factor);
    }
    value(e.keeps.size());
    for (auto const& kept : e.keeps) text(kept);
  }
  return hash;
}

inline constexpr int max_isolation_events = 8;
/// The longest isolation, in steps: the low 15 bits of an agent's isolation word.
inline constexpr int max_isolation_steps = 32767;

/// An agent's isolation word: 16 bits, what a checkpoint saves of isolation per agent.
/// - 0: free, with no detection drawn;
/// - 1 to max_isolation_steps: isolated for that many more steps, the step under way included;
/// - `waits` and above: free and spreading, with a detection drawn for the step whose low 14 bits
///   the word holds: detected then where `detects` is set, else drawn again then (herd::Interventions
///   draws how long a spreader stays undetected once, not a chance on every step).
namespace isolation_word {
inline constexpr std::uint16_t waits = 0x8000;
inline constexpr std::uint16_t detects = 0x4000;
inline constexpr std::uint16_t step_bits = 0x3FFF;
/// A detection drawn further ahead waits this many steps and is drawn again (the wait has no
/// memory), so that the step in the word is never mistaken for one 2^14 steps away.
inline constexpr std::uint32_t longest_wait = 8192;
/// Whether word w says its agent is isolated.
KOKKOS_INLINE_FUNCTION constexpr bool isolated(std::uint16_t w) { return w != 0 && w < waits; }
}  // namespace isolation_word

/// Checks the events: steps from 1 up, first <= last, no negative count, an efficacy in [0, 1],
/// layers the graph has with factors >= 0 whose products stay floats, a cycle of 1 to 64 days with
/// some day in it, isolations with a probability in [0, 1], 1 to max_isolation_steps steps, and
/// all keeping the same layers, which the graph has.
/// Throws herd::Error naming the event (event_name) and what is wrong. A model's own parameters
/// are checked when they are set (herd::Interventions).
inline void check(Scenario const& scenario) {
  auto const layer_problem = [](std::string const& event, std::string const& layer, std::string const& problem) {
    return event + ": layer " + layer + problem;
  };
  require(scenario.layer_names.size() <= static_cast<std::size_t>(max_layers),
          "scenario: " + std::to_string(scenario.layer_names.size()) + " layer names for at most " +
              std::to_string(max_layers) + " layers");
  // Each layer's largest product: of its factors above 1, were every event to act on one step.
  std::vector<double> largest(scenario.layer_names.size(), 1.0);
  ScenarioEvent const* first_isolation = nullptr;
  int isolations = 0;
  for (std::size_t k = 0; k < scenario.events.size(); ++k) {
    auto const& e = scenario.events[k];
    std::string const name = event_name(scenario, k);
    require(e.first >= 1 && e.first <= e.last, name + ": its steps must run from 1 up, first <= last, got " +
                                                   std::to_string(e.first) + " to " + std::to_string(e.last));
    if (e.kind == ScenarioEvent::Kind::set) {
      require(!e.parameter.empty(), name + ": names no parameter");
    } else {
      require(e.count >= 0, name + ": the agents a step must not be negative, got " + std::to_string(e.count));
    }
    if (e.kind == ScenarioEvent::Kind::vaccinate)
      require(e.efficacy >= 0.0 && e.efficacy <= 1.0,
              name + ": the efficacy must lie in [0, 1], got " + number_text(e.efficacy));
    if (e.kind == ScenarioEvent::Kind::layer) {
      require(!e.layers.empty(), name + ": names no layer");
      for (auto const& [layer, factor] : e.layers) {
        auto const l = layer_number(scenario, k, layer);
        require(factor >= 0.0 && factor <= 3.4e38,
                layer_problem(name, layer, "'s factor must lie in [0, 3.4e38], got " + number_text(factor)));
        if (factor > 1.0) largest[l] *= factor;
        require(largest[l] <= 3.4e38,
                layer_problem(name, layer, "'s factors could multiply past the largest float on a step"));
      }
    }
    if (e.kind == ScenarioEvent::Kind::isolate) {
      require(++isolations <= max_isolation_events,
              name + ": a scenario holds at most " + std::to_string(max_isolation_events) + " isolation events");
      require(e.probability >= 0.0 && e.probability <= 1.0,
              name + ": the probability of detection must lie in [0, 1], got " + number_text(e.probability));
      require(e.duration >= 1 && e.duration <= max_isolation_steps, name + ": an isolation lasts 1 to " +
                                                                        std::to_string(max_isolation_steps) +
                                                                        " steps, got " + std::to_string(e.duration));
      for (auto const& layer : e.keeps) layer_number(scenario, k, layer);
      if (first_isolation == nullptr) first_isolation = &e;
      auto const kept = [](ScenarioEvent const& event) {
        return std::set<std::string>(event.keeps.begin(), event.keeps.end());
      };
      require(kept(e) == kept(*first_isolation),
              name + ": every isolation event must keep the same layers (an agent's contacts close alike)");
    }
    if (e.period != 0) {
      require(e.kind == ScenarioEvent::Kind::layer, name + ": only layer events act on days of a cycle");
      require(e.period >= 1 && e.period <= 64,
              name + ": a cycle must last 1 to 64 steps, got " + std::to_string(e.period));
      require((e.days & (e.period == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << e.period) - 1)) != 0 &&
                  (e.period == 64 || (e.days >> e.period) == 0),
              name + ": its days must lie in 1 ... " + std::to_string(e.period) + ", at least one");
    }
  }
  Details::check_sets_apart(scenario);
}

}  // namespace herd
