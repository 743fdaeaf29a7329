#pragma once

#include <herd/engine/run.hpp>
#include <herd/scenario/interventions.hpp>

#include <utility>

namespace herd {

/// herd::run with a scenario: before each step, `interventions` acts with the events of that step
/// (numbered from the simulation's start, 1 up). A step after events that acted forgets what
/// active-set stepping knew of the agents and counts its observables over every agent, so the
/// results are those of any stepping mode. A run resumed from a saved state first gives the model
/// the parameters the earlier events left it (Interventions::catch_up). Allocates nothing in the
/// loop; waits for the device only where stepping does, and a rank exchanges the ghosts of what
/// an event changed.
template <class Simulation, class Model, class Progress = NoProgress>
History<typename Simulation::memory_space> run_scenario(Simulation& sim, Model& model, int steps,
                                                        Interventions<Simulation, Model>& interventions,
                                                        Progress&& progress = {}, Telemetry* telemetry = nullptr) {
  // Agreed first, so that the check below fails on every rank or on none.
  sim.check_agreed("run_scenario", {{"step counts", steps}, {"current steps", static_cast<std::int64_t>(sim.step())}});
  interventions.check_simulation(sim, "run_scenario");
  require(static_cast<int>(sim.step()) + steps <= interventions.last_step(),
          "run_scenario: " + std::to_string(steps) + " steps from step " + std::to_string(sim.step()) +
              " go beyond the " + std::to_string(interventions.last_step()) + " steps the events were made for");
  interventions.catch_up(model, static_cast<int>(sim.step()) + 1);
  return Details::run_loop(sim, model, steps, std::forward<Progress>(progress), telemetry,
                           [&interventions](Simulation& s, Model& m, int step) { return interventions(s, m, step); });
}

}  // namespace herd
