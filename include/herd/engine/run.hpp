#pragma once

#include <herd/engine/simulation.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace herd {

/// Observables over time: row t holds the model's observables after t steps (row 0: the start).
template <class MemorySpace>
using History = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, MemorySpace>;

/// Called on the host after each step is launched as progress(step, steps), or as
/// progress(step, steps, history) to see the observables so far; it must not wait for the device
/// unless it writes output the user asked for (checkpoints, snapshots).
struct NoProgress {
  void operator()(int /*step*/, int /*steps*/) const {}
};

/// Runs `steps` steps of `model` from the simulation's current step and returns the history of its
/// observables (row 0: before the first of these steps), kept on the device.
/// The loop launches kernels only: it allocates nothing and does not wait for the device (a
/// distributed simulation waits for its halo messages, and sums the history over ranks at the end;
/// active-set stepping reads the active list's length, 4 bytes per step).
template <class Simulation, class Model, class Progress = NoProgress>
History<typename Simulation::memory_space> run(Simulation& sim, Model& model, int steps, Progress&& progress = {}) {
  require(steps >= 0, "run: the step count must not be negative, got " + std::to_string(steps));
  Kokkos::Profiling::pushRegion("herd::run");
  History<typename Simulation::memory_space> history("herd::history", steps + 1, model.num_observables());
  sim.observe(model, Kokkos::subview(history, 0, Kokkos::ALL()));
  for (int t = 1; t <= steps; ++t) {
    sim.before_step(model);
    model.step(sim);
    sim.end_step();
    sim.observe(model, Kokkos::subview(history, t, Kokkos::ALL()));
    if constexpr (std::is_invocable_v<Progress&, int, int, History<typename Simulation::memory_space> const&>)
      progress(t, steps, history);
    else
      progress(t, steps);
  }
  sim.finish(history);
  Kokkos::Profiling::popRegion();
  return history;
}

}  // namespace herd
