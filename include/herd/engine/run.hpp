#pragma once

#include <herd/core/profiling_region.hpp>
#include <herd/detail/tuning.hpp>
#include <herd/engine/simulation.hpp>
#include <herd/engine/telemetry.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace herd {

/// Observables over time: row t holds the model's observables after t steps (row 0: the start).
template <class MemorySpace>
using History = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, MemorySpace>;

/// Called on the host after each step is launched as progress(step, steps), or as
/// progress(step, steps, history) to see the observables so far; it must not wait for the device
/// unless it writes output the user asked for (checkpoints, snapshots), and must not change the
/// agents' state: active-set stepping and the observables carry over from step to step. (To change
/// it between steps, run the steps in pieces: each herd::run starts afresh.)
struct NoProgress {
  void operator()(int /*step*/, int /*steps*/) const {}
};

namespace Details {

// Times a loop's phases into a Telemetry, if there is one; does nothing otherwise. The halo times
// itself: what it spent inside a phase moves to the halo's phases.
template <class Sim>
class LoopTimer {
 public:
  LoopTimer(Sim const& sim, Telemetry* telemetry) : sim_(sim), telemetry_(telemetry) {
    if (!telemetry_) return;
    start_ = last_ = sim_.distribution().clock();
    stepping_ = sim_.stepping_stats();
    telemetry_->start(LoopPhase::reduce, [exec = sim_.execution_space_instance()] { exec.fence(); });
  }
  void enter(LoopPhase phase) {
    if (!telemetry_) return;
    auto const left = telemetry_->enter(phase);
    auto const now = sim_.distribution().clock();
    telemetry_->move_halo_time(left, now.pack - last_.pack, now.wait - last_.wait, now.unpack - last_.unpack);
    last_ = now;
  }
  // After the observation before the first step: the steps' records start here.
  void begin_steps() {
    if (!telemetry_ || !telemetry_->records_steps()) return;
    enter(LoopPhase::reduce);
    telemetry_->begin_steps();
  }
  // After a step and its output; `listed`: the agents it stepped from the active list, or -1.
  void end_step(agent_index listed) {
    if (!telemetry_ || !telemetry_->records_steps()) return;
    enter(LoopPhase::output);
    telemetry_->end_step(sim_.step(), listed >= 0, listed >= 0 ? listed : sim_.num_owned());
  }
  void stop(int steps) {
    if (!telemetry_) return;
    enter(LoopPhase::reduce);
    telemetry_->stop();
    telemetry_->add_steps(steps);
    telemetry_->add_messages(last_.messages - start_.messages, last_.bytes - start_.bytes);
    telemetry_->add_stepping(stepping_, sim_.stepping_stats());
  }

 private:
  Sim const& sim_;
  Telemetry* telemetry_;
  HaloClock start_, last_;
  SteppingStats stepping_;
};

// A step on a short active list changes the listed agents only, so the observables after it are
// those before it, less the listed agents' observations before the step, plus theirs after it: two
// passes over the list instead of one over every agent (integer sums, so the same totals bit for
// bit). This needs a model's observe(i) to read agent i only, as every counting observable does. A
// pass over a list gathers where one over every agent streams, so longer lists are observed whole
// (Tuning::observed_list_share).

// One step of `model`, with its observables into row t of `history`, whose row t - 1 holds them
// before the step; `before` is scratch of one row. `timer` is told the phases (see LoopTimer).
// `whole`: observe every agent, as after agents were changed since row t - 1 was observed.
// Returns the agents stepped from the active list, or -1 when every agent was.
template <class Simulation, class Model, class History, class Row, class Timer>
agent_index step_and_observe(Simulation& sim, Model& model, History const& history, int t, Row const& before,
                             Timer& timer, bool whole = false) {
  timer.enter(LoopPhase::active_set);
  sim.before_step(model);
  agent_index const listed = sim.listed_agents();
  bool const by_list = !whole && listed >= 0 && listed <= sim.num_owned() / Tuning::observed_list_share;
  if (by_list) {
    timer.enter(LoopPhase::reduce);
    sim.observe_listed(model, listed, before);
  }
  timer.enter(LoopPhase::step);
  sim.run_step(model);
  timer.enter(LoopPhase::active_set);
  sim.end_step();
  timer.enter(LoopPhase::reduce);
  auto const row = Kokkos::subview(history, t, Kokkos::ALL());
  if (!by_list) {
    sim.observe(model, row);
    return listed;
  }
  sim.observe_listed(model, listed, row);
  Kokkos::parallel_for(
      "herd::observe::carry",
      Kokkos::RangePolicy<typename Simulation::execution_space>(sim.execution_space_instance(), 0,
                                                                static_cast<int>(history.extent(1))),
      KOKKOS_LAMBDA(int k) { history(t, k) += history(t - 1, k) - before(k); });
  return listed;
}

/// Acts on nothing between steps (herd::run).
struct NothingBetweenSteps {
  template <class Simulation, class Model>
  bool operator()(Simulation& /*sim*/, Model& /*model*/, int /*step*/) const {
    return false;
  }
};

// The loop of herd::run. `between(sim, model, step)` acts before each step (numbered from the
// simulation's start, 1 up) and returns whether it changed agents: the simulation then forgets
// what it knew of them, and the step's observables are counted over every agent.
template <class Simulation, class Model, class Progress, class Between>
History<typename Simulation::memory_space> run_loop(Simulation& sim, Model& model, int steps, Progress&& progress,
                                                    Telemetry* telemetry, Between&& between) {
  // A rank stepping more or fewer steps than the others would wait for them forever.
  sim.check_agreed("run", {{"step counts", steps}, {"current steps", static_cast<std::int64_t>(sim.step())}});
  require(steps >= 0, "run: the step count must not be negative, got " + std::to_string(steps));
  require(model.num_observables() >= 0,
          "run: the model's num_observables() is " + std::to_string(model.num_observables()) + ", below 0");
  // A step number is a word of the random numbers' counter: step 2^32 would repeat step 0's draws.
  require(static_cast<std::uint64_t>(sim.step()) + static_cast<std::uint64_t>(steps) <= 0xFFFFFFFFull,
          "run: " + std::to_string(steps) + " steps from step " + std::to_string(sim.step()) +
              " pass step 2^32 - 1, the last the random numbers tell apart");
  Details::ProfilingRegion const region("herd::run");
  History<typename Simulation::memory_space> history("herd::history", steps + 1, model.num_observables());
  Kokkos::View<std::int64_t*, typename Simulation::memory_space> before("herd::observed_before",
                                                                        model.num_observables());
  sim.prepare(model);
  // Before the loop's clock and counters start: a backend may size its reduction space on the
  // first reduction of the observables' size (Kokkos' OpenMP on one thread allocates then).
  sim.observe(model, Kokkos::subview(history, 0, Kokkos::ALL()));
  if (telemetry) telemetry->reserve_steps(steps);
  Details::LoopTimer<Simulation> timer(sim, telemetry);
  timer.begin_steps();
  for (int t = 1; t <= steps; ++t) {
    bool changed = false;
    if constexpr (!std::is_same_v<std::decay_t<Between>, NothingBetweenSteps>) {
      timer.enter(LoopPhase::active_set);
      changed = between(sim, model, static_cast<int>(sim.step()) + 1);
      if (changed) sim.prepare(model);
    }
    auto const listed = Details::step_and_observe(sim, model, history, t, before, timer, changed);
    timer.enter(LoopPhase::output);
    if constexpr (std::is_invocable_v<Progress&, int, int, History<typename Simulation::memory_space> const&>)
      progress(t, steps, history);
    else
      progress(t, steps);
    timer.end_step(listed);
  }
  timer.enter(LoopPhase::reduce);
  sim.finish(history);
  timer.stop(steps);
  return history;
}

}  // namespace Details

/// Runs `steps` steps of `model` from the simulation's current step and returns the history of its
/// observables (row 0: before the first of these steps), kept on the device.
/// The loop launches kernels only: it allocates nothing and does not wait for the device (a
/// distributed simulation waits for its halo messages, and sums the history over ranks at the end;
/// active-set stepping reads a few counts per step: see ActiveSet). With a `telemetry`, the
/// loop fences at each phase boundary and records where its time went, and, if it records steps,
/// where each step's went (see Telemetry). herd::run_scenario runs a loop with timed events.
template <class Simulation, class Model, class Progress = NoProgress>
History<typename Simulation::memory_space> run(Simulation& sim, Model& model, int steps, Progress&& progress = {},
                                               Telemetry* telemetry = nullptr) {
  return Details::run_loop(sim, model, steps, std::forward<Progress>(progress), telemetry,
                           Details::NothingBetweenSteps{});
}

}  // namespace herd
