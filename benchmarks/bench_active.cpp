// Active-set stepping against the full pull step: SIR on an Erdos-Renyi graph of mean degree 16
// from 10 infectious seeds. One step timed at two states of the same epidemic, a step where under
// 1 % of the agents are active (early) and the peak of infections (each reached by one untimed step
// from the state before, as in a run; a step includes the observables' reduction, as in a run), and
// the whole epidemic from the
// seeds to extinction. Modes: pull (every agent, every step), active (the active list, every step),
// automatic (per step, whichever the active fraction favours).

#include "bench_common.hpp"

#include <herd/engine/active_set.hpp>
#include <herd/engine/telemetry.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <vector>

namespace herd::bench {
namespace {

SeirParameters sir_parameters() {
  SeirParameters p;
  p.beta = 0.03;  // R0 about 16 x 0.03 x 5 = 2.4
  p.infectious = Period::fixed(5);
  p.initial_infected = 10;
  return p;
}

// An epidemic's states saved at chosen steps, and the step it dies out.
struct Epidemic {
  std::map<std::string, std::pair<std::uint32_t, std::vector<Kokkos::View<std::uint8_t*, Memory>>>> saved;
  int steps_to_extinction = 0;
};

std::vector<Kokkos::View<std::uint8_t*, Memory>> save(Seir<Memory> const& model) {
  std::vector<Kokkos::View<std::uint8_t*, Memory>> out;
  model.for_each_property([&](auto const& p) {
    using T = typename std::decay_t<decltype(p)>::storage_type;
    Kokkos::View<std::uint8_t*, Memory> copy("herd::bench::saved", p.size() * sizeof(T));
    Kokkos::deep_copy(copy, Kokkos::View<std::uint8_t*, Memory, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                reinterpret_cast<std::uint8_t*>(p.current().data()), copy.extent(0)));
    out.push_back(copy);
  });
  return out;
}

void restore(Seir<Memory>& model, std::vector<Kokkos::View<std::uint8_t*, Memory>> const& saved) {
  std::size_t k = 0;
  model.for_each_property([&](auto const& p) {
    auto const& copy = saved[k++];
    Kokkos::deep_copy(Kokkos::View<std::uint8_t*, Memory, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                          reinterpret_cast<std::uint8_t*>(p.current().data()), copy.extent(0)),
                      copy);
  });
}

Epidemic const& epidemic(agent_index agents) {
  static std::map<agent_index, Epidemic> cache;
  static bool const hooked = (Kokkos::push_finalize_hook([] { cache.clear(); }), true);
  (void)hooked;
  if (auto found = cache.find(agents); found != cache.end()) return found->second;
  auto const& g = graph(erdos_renyi, agents, Ordering::none);
  Exec exec;
  StepOptions automatic;
  automatic.stepping = Stepping::automatic;
  Simulation<Exec> sim(exec, g, 42, automatic);
  Seir<Memory> model(agents, sir_parameters());
  model.initialise(sim, agents);
  Epidemic e;
  Kokkos::View<std::int64_t*, Memory> row("herd::bench::row", 4);
  auto host = Kokkos::create_mirror_view(row);
  std::int64_t peak = 0;
  int peak_at = 0;
  std::vector<Kokkos::View<std::uint8_t*, Memory>> previous;
  for (int t = 0; t < 1000; ++t) {
    auto const current = save(model);
    sim.observe(model, row);
    Kokkos::deep_copy(host, row);
    if (host(2) == 0 && t > 0) {
      e.steps_to_extinction = t;
      break;
    }
    // Active agents: the infectious and their susceptible neighbours, at most 17 per infectious
    // on average. The last state of the growing epidemic that stays under 1 % of the agents.
    // Each with the state a step before, from which the timed step is reached the way a run reaches it.
    if (t > 0 && host(2) * 17 < agents / 100 && host(2) >= peak) e.saved["early"] = {sim.step() - 1, previous};
    if (t > 0 && host(2) > peak) {
      e.saved["peak"] = {sim.step() - 1, previous};
      peak_at = t;
    }
    // Eight steps after the peak: the decline, a third of the agents or so still susceptible.
    if (t == peak_at + 8) e.saved["late"] = {sim.step() - 1, previous};
    peak = std::max(peak, host(2));
    previous = current;
    sim.before_step(model);
    model.step(sim);
    sim.end_step();
  }
  return cache.emplace(agents, std::move(e)).first->second;
}

Stepping mode_of(std::int64_t m) { return m == 0 ? Stepping::pull : m == 1 ? Stepping::active : Stepping::automatic; }
char const* mode_name(std::int64_t m) { return m == 0 ? "pull" : m == 1 ? "active" : "automatic"; }

// Times `timed` steps from the saved state `when` (plus the one before, untimed), reporting the
// mean per step.
void sir_step_at(benchmark::State& state, char const* when, int timed) {
  auto const agents = static_cast<agent_index>(state.range(0));
  auto const& e = epidemic(agents);
  auto const& [step, saved] = e.saved.at(when);
  auto const& g = graph(erdos_renyi, agents, Ordering::none);
  Exec exec;
  StepOptions options;
  options.stepping = mode_of(state.range(1));
  Simulation<Exec> sim(exec, g, 42, options);
  Seir<Memory> model(agents, sir_parameters());
  double share = 0.0;
  // As herd::run does: prepare, observe, then per step the phases and the observables.
  History<Memory> history("herd::bench::history", timed + 2, model.num_observables());
  Kokkos::View<std::int64_t*, Memory> scratch("herd::bench::observed_before", model.num_observables());
  Details::LoopTimer<Simulation<Exec>> untimed(sim, nullptr);
  for (auto _ : state) {
    restore(model, saved);
    sim.set_step(step);
    sim.prepare(model);
    sim.observe(model, Kokkos::subview(history, 0, Kokkos::ALL()));
    Details::step_and_observe(sim, model, history, 1, scratch, untimed);
    auto const before = sim.stepping_stats();
    Kokkos::fence();
    Kokkos::Timer timer;
    for (int t = 2; t < timed + 2; ++t) Details::step_and_observe(sim, model, history, t, scratch, untimed);
    Kokkos::fence();
    state.SetIterationTime(timer.seconds() / timed);
    share = sim.stepping_stats().active_share_sum - before.active_share_sum;
  }
  state.counters["active_share"] = share / timed;
  state.SetLabel(std::string(when) + " steps " + std::to_string(step + 1) + "-" + std::to_string(step + timed) + " " +
                 mode_name(state.range(1)));
}

// The step where under 1 % of the agents are active.
void sir_step_early(benchmark::State& state) { sir_step_at(state, "early", 1); }
// Four steps from the peak: automatic mode estimates the pushes on some steps only (see
// ActiveStepping), so a single step would not show its mean cost.
void sir_step_peak(benchmark::State& state) { sir_step_at(state, "peak", 4); }
BENCHMARK(sir_step_early)
    ->ArgsProduct({{1000000, 10000000}, {0, 1, 2}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(sir_step_peak)->ArgsProduct({{1000000, 10000000}, {0, 1, 2}})->UseManualTime()->Unit(benchmark::kMillisecond);

// One pull step (no observables), at the early state (under 1 % of the agents active), the peak
// and eight steps after it (third argument 0, 1, 2), reading the neighbours' states (second
// argument 0), asking for them ahead (1), or counting the spreading neighbours' bits (2, the
// default).
void sir_pull_step(benchmark::State& state) {
  auto const agents = static_cast<agent_index>(state.range(0));
  char const* const when = state.range(2) == 0 ? "early" : state.range(2) == 1 ? "peak" : "late";
  auto const& [step, saved] = epidemic(agents).saved.at(when);
  Exec exec;
  StepOptions options;
  options.gather_ahead = state.range(1) == 1 ? GatherAhead::on : GatherAhead::off;
  options.spreader_bits = state.range(1) == 2;
  Simulation<Exec> sim(exec, graph(erdos_renyi, agents, Ordering::none), 42, options);
  Seir<Memory> model(agents, sir_parameters());
  for (auto _ : state) {
    restore(model, saved);
    sim.set_step(step);
    Kokkos::fence();
    Kokkos::Timer timer;
    model.step(sim);
    sim.end_step();
    Kokkos::fence();
    state.SetIterationTime(timer.seconds());
  }
  state.SetLabel(std::string(when) + std::array<char const*, 3>{" states", " states ahead", " bits"}[state.range(1)]);
}
BENCHMARK(sir_pull_step)
    ->ArgsProduct({{1000000, 4000000, 10000000}, {0, 1, 2}, {0, 1, 2}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// The whole epidemic, from the seeds to the step it dies out; with telemetry on (fourth argument 1,
// or 2 to record every step) to measure what it costs.
void sir_epidemic(benchmark::State& state) {
  auto const agents = static_cast<agent_index>(state.range(0));
  auto const& e = epidemic(agents);
  auto const& g = graph(erdos_renyi, agents, Ordering::none);
  Exec exec;
  double share = 0.0;
  std::int64_t listed_steps = 0;
  for (auto _ : state) {
    StepOptions options;
    options.stepping = mode_of(state.range(1));
    if (state.range(2) > 0) options.active_threshold = static_cast<double>(state.range(2)) / 100;
    Simulation<Exec> sim(exec, g, 42, options);
    Seir<Memory> model(agents, sir_parameters());
    model.initialise(sim, agents);
    Kokkos::fence();
    Telemetry telemetry;
    telemetry.record_steps(state.range(3) == 2);
    Kokkos::Timer timer;
    run(sim, model, e.steps_to_extinction, NoProgress{}, state.range(3) ? &telemetry : nullptr);
    Kokkos::fence();
    state.SetIterationTime(timer.seconds());
    share = sim.stepping_stats().mean_active_share();
    listed_steps = sim.stepping_stats().active_steps;
  }
  state.counters["steps"] = e.steps_to_extinction;
  state.counters["listed_steps"] = static_cast<double>(listed_steps);
  state.counters["active_share"] = share;
  state.SetLabel(
      std::string(mode_name(state.range(1))) +
      (state.range(1) == 2 && state.range(2) > 0 ? " threshold " + std::to_string(state.range(2)) + "%" : "") +
      std::array<char const*, 3>{"", " profiled", " profiled by step"}[static_cast<std::size_t>(state.range(3))]);
}
BENCHMARK(sir_epidemic)->ArgsProduct({{1000000}, {0, 1}, {0}, {0}})->UseManualTime()->Unit(benchmark::kMillisecond);
// The same at 10^7 agents, pull and automatic, and the threshold sweep there: one run per
// repetition (10-20 s pulled on 2 CPU cores).
BENCHMARK(sir_epidemic)
    ->ArgsProduct({{10000000}, {0, 2}, {0}, {0}})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(sir_epidemic)
    ->ArgsProduct({{10000000}, {2}, {25, 100, 200}, {0}})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
// Automatic stepping with its threshold (percent of the agents in pushes) swept, to choose the default.
BENCHMARK(sir_epidemic)
    ->ArgsProduct({{1000000}, {2}, {10, 25, 50, 100, 200}, {0}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
// Telemetry's cost: the same runs without it, with it, and with a record of every step.
BENCHMARK(sir_epidemic)
    ->ArgsProduct({{1000000}, {0, 2}, {0}, {0, 1, 2}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Runs the epidemic from the seeds to extinction once per iteration, on a simulation that
// `configure` sets up; returns the last run's stepping statistics.
template <class Configure>
SteppingStats time_epidemics(benchmark::State& state, agent_index agents, Configure const& configure) {
  auto const& e = epidemic(agents);
  Exec exec;
  SteppingStats stats;
  for (auto _ : state) {
    StepOptions options;
    configure(options);
    Simulation<Exec> sim(exec, graph(erdos_renyi, agents, Ordering::none), 42, options);
    Seir<Memory> model(agents, sir_parameters());
    model.initialise(sim, agents);
    Kokkos::fence();
    Kokkos::Timer timer;
    run(sim, model, e.steps_to_extinction, NoProgress{});
    Kokkos::fence();
    state.SetIterationTime(timer.seconds());
    stats = sim.stepping_stats();
  }
  return stats;
}

// The whole epidemic at 10^7 agents, pulled and automatic, with the neighbours' states asked for
// ahead or not (third argument 1, 0).
void sir_epidemic_ahead(benchmark::State& state) {
  time_epidemics(state, static_cast<agent_index>(state.range(0)), [&](StepOptions& options) {
    options.stepping = mode_of(state.range(1));
    options.gather_ahead = state.range(2) ? GatherAhead::on : GatherAhead::off;
  });
  state.SetLabel(std::string(mode_name(state.range(1))) + (state.range(2) ? " ahead" : ""));
}
BENCHMARK(sir_epidemic_ahead)
    ->ArgsProduct({{10000000}, {0, 2}, {0, 1}})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// The whole epidemic, pulled, always active and automatic, with the pushes binned or atomic (third
// argument 1, 0); the counter says how many steps were listed.
void sir_epidemic_binned(benchmark::State& state) {
  auto const stats = time_epidemics(state, static_cast<agent_index>(state.range(0)), [&](StepOptions& options) {
    options.stepping = mode_of(state.range(1));
    options.binned_push = state.range(2) ? BinnedPush::on : BinnedPush::off;
  });
  state.counters["listed_steps"] = static_cast<double>(stats.active_steps);
  state.SetLabel(std::string(mode_name(state.range(1))) + (state.range(2) ? " binned" : " atomic"));
}
BENCHMARK(sir_epidemic_binned)
    ->ArgsProduct({{1000000}, {0, 1, 2}, {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(sir_epidemic_binned)
    ->ArgsProduct({{10000000}, {0, 1, 2}, {0, 1}})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// The cost of finding the active set alone (mode active) or of the estimate alone (automatic at the
// peak, which then pulls), at the early and the peak state.
void sir_find_only(benchmark::State& state) {
  auto const agents = static_cast<agent_index>(state.range(0));
  auto const& e = epidemic(agents);
  auto const& [step, saved] = e.saved.at(state.range(1) ? "peak" : "early");
  auto const& g = graph(erdos_renyi, agents, Ordering::none);
  Exec exec;
  StepOptions options;
  options.stepping = mode_of(state.range(2));
  Simulation<Exec> sim(exec, g, 42, options);
  Seir<Memory> model(agents, sir_parameters());
  restore(model, saved);
  for (auto _ : state) {
    Kokkos::fence();
    Kokkos::Timer timer;
    sim.before_step(model);
    sim.end_step();
    Kokkos::fence();
    state.SetIterationTime(timer.seconds());
  }
}
BENCHMARK(sir_find_only)
    ->ArgsProduct({{1000000, 10000000}, {0, 1}, {1, 2}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Compacting the marks of a step into the sorted list of its active agents, alone: a pass over one
// mark byte per agent, whatever the list's length, which every listed step pays (and which clears
// the marks it lists). Marks at random with the given density (per 10,000 agents): 75 is the early
// step's 0.75 %.
void active_compaction(benchmark::State& state) {
  auto const agents = static_cast<agent_index>(state.range(0));
  auto const per_10000 = static_cast<std::uint32_t>(state.range(1));
  Kokkos::View<std::uint64_t*, Memory> marked("herd::bench::marked", (agents + 7) / 8);
  Kokkos::View<std::uint64_t*, Memory> words("herd::bench::marks", marked.extent(0));
  Kokkos::View<agent_index*, Memory> list("herd::bench::list", agents);
  auto* const marks = reinterpret_cast<std::uint8_t*>(marked.data());
  CounterRng const rng{11};
  Kokkos::parallel_for(
      "herd::bench::marks", Kokkos::RangePolicy<Exec>(0, agents),
      KOKKOS_LAMBDA(agent_index i) { marks[i] = uniform_below(rng.bits(i, 0, 0, 0), 10000) < per_10000 ? 1 : 0; });
  Exec exec;
  agent_index found = 0;
  for (auto _ : state) {
    Kokkos::deep_copy(exec, words, marked);
    exec.fence();
    Kokkos::Timer timer;
    found = Details::compact_marks(exec, words, list);
    exec.fence();
    state.SetIterationTime(timer.seconds());
  }
  state.counters["listed"] = static_cast<double>(found);
  set_rates(state, agents, 0.0, static_cast<double>(agents) + 4.0 * found);
}
BENCHMARK(active_compaction)
    ->ArgsProduct({{1000000, 10000000}, {75, 3000}})
    ->ArgNames({"agents", "per_10000"})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace herd::bench
