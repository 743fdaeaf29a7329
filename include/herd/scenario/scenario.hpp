#pragma once

// A scenario: timed events that act on a run between its steps. Each is a pure function of the
// seed, the step, the event's position in the scenario and the agents' global ids, so a run with
// a scenario gives the same bits on every backend, thread count, rank count, schedule and stepping
// mode, and a resumed run fires what the uninterrupted run would have fired from there on.

#include <herd/core/error.hpp>
#include <herd/core/types.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace herd {

/// One timed event. It acts before each step of [first, last], so that the observables after step
/// `first` (row `first` of the history) show its effect.
struct ScenarioEvent {
  enum class Kind {
    set,          ///< `parameter` takes `value` from step `first`; with `reverts`, its earlier value after `last`
    importation,  ///< `import`: `count` agents, drawn anew each step, are infected if susceptible
    vaccinate,    ///< `count` agents a step, in priority order, are immunised with probability `efficacy`
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
  std::string label;         ///< how errors name the event (empty: "event k (kind)")
};

/// Timed events, in the order they act within a step (the order of the file).
struct Scenario {
  std::vector<ScenarioEvent> events;
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
  }
  return "?";
}

/// How errors name event k: its label, or "event k (kind)".
inline std::string event_name(Scenario const& scenario, std::size_t k) {
  auto const& e = scenario.events[k];
  return e.label.empty() ? "event " + std::to_string(k) + " (" + to_string(e.kind) + ")" : e.label;
}

/// Checks the events: steps from 1 up, first <= last, no negative count, an efficacy in [0, 1].
/// Throws herd::Error naming the event (event_name) and what is wrong. A model's own parameters
/// are checked when they are set (herd::Interventions).
inline void check(Scenario const& scenario) {
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
  }
}

}  // namespace herd
