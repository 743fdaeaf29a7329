#pragma once

// SIR and SEIR epidemics on a contact graph.
//
// A susceptible agent with infectious neighbours j is infected with probability
// 1 - prod_j (1 - beta w_j), decided by one draw per agent. The product is evaluated as
// 1 - exp(-H) with H = sum_j -ln(1 - beta w_j) accumulated in 32.32 fixed point, so that the sum is
// exact and independent of the order in which threads add it; exp and ln come from
// herd::portable, which gives the same bits on every backend.

#include <herd/agents/property.hpp>
#include <herd/core/byte_order.hpp>
#include <herd/core/device_pass.hpp>
#include <herd/core/error.hpp>
#include <herd/core/portable_math.hpp>
#include <herd/core/random.hpp>
#include <herd/engine/activity.hpp>
#include <herd/models/period.hpp>
#include <herd/models/seeding.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace herd {

struct SeirParameters {
  double beta = 0.05;                    ///< transmission probability per contact and step (times the edge weight)
  Period latent;                         ///< none for SIR
  Period infectious = Period::fixed(7);  ///< time spent infectious
  global_id initial_infected = 10;       ///< agents infectious at the start, chosen by the seed
};

template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Seir {
 public:
  enum State : std::uint8_t { susceptible = 0, exposed = 1, infectious = 2, recovered = 3 };

  Property<std::uint8_t, MemorySpace> state;
  Property<std::uint16_t, MemorySpace> timer;  ///< steps left in the current state (fixed periods)

  Seir(agent_index agents, SeirParameters const& p) {
    check(p);
    state = Property<std::uint8_t, MemorySpace>("state", agents, Visibility::neighbours);
    timer = Property<std::uint16_t, MemorySpace>("timer", agents, Visibility::own);
    take(p);
  }

  /// The parameters a scenario may set between steps (herd::ScenarioEvent), by their names in the
  /// herd command: beta, infectious-steps or gamma, latent-steps or sigma (seir), as the periods
  /// are fixed or geometric. A new period applies to the agents that enter the state afterwards.
  double parameter(std::string const& name) const {
    if (name == "beta") return params_.beta;
    if (name == "infectious-steps" || name == "gamma") {
      period_named(params_.infectious, name, "infectious-steps", "gamma");
      return name == "gamma" ? params_.infectious.probability : params_.infectious.steps;
    }
    if (name == "latent-steps" || name == "sigma") {
      require(has_latent(), "sir has no latent period to set (" + name + ")");
      period_named(params_.latent, name, "latent-steps", "sigma");
      return name == "sigma" ? params_.latent.probability : params_.latent.steps;
    }
    throw Error("no parameter '" + name +
                "' to set: beta, infectious-steps or gamma, latent-steps or sigma (seir) are known");
  }
  /// Sets a parameter parameter(name) knows, after checking the value as the constructor does.
  void set_parameter(std::string const& name, double value) {
    parameter(name);  // refuses an unknown name or a period of the other kind
    SeirParameters p = params_;
    auto const steps = [&] {
      require(value >= 1.0 && value <= Period::longest && value == std::floor(value),
              "the " + name + " must be a whole number of steps from 1 to " + std::to_string(Period::longest) +
                  ", got " + number_text(value));
      return static_cast<int>(value);
    };
    if (name == "beta") p.beta = value;
    if (name == "infectious-steps") p.infectious.steps = steps();
    if (name == "gamma") p.infectious.probability = value;
    if (name == "latent-steps") p.latent.steps = steps();
    if (name == "sigma") p.latent.probability = value;
    check(p);
    take(p);
  }

  /// Infects agent i if it is susceptible, outside the steps (a scenario's import): it enters the
  /// state a transmission leads to. Returns whether it changed. Writes the current values.
  KOKKOS_INLINE_FUNCTION bool infect(agent_index i) const {
    if (state.stored(i) != susceptible) return false;
    bool const latent = params_.latent.kind != Period::Kind::none;
    state.overwrite(i, latent ? exposed : infectious);
    timer.overwrite(i, static_cast<std::uint16_t>(latent ? params_.latent.steps : params_.infectious.steps));
    return true;
  }
  /// Makes agent i recovered if it is susceptible, outside the steps (a scenario's vaccination
  /// that protects): removed, as a recovered agent is. Returns whether it changed.
  KOKKOS_INLINE_FUNCTION bool immunise(agent_index i) const {
    if (state.stored(i) != susceptible) return false;
    state.overwrite(i, recovered);
    timer.overwrite(i, 0);
    return true;
  }

  SeirParameters const& parameters() const { return params_; }
  bool has_latent() const { return params_.latent.kind != Period::Kind::none; }

  static constexpr int num_observables() { return 4; }
  std::vector<std::string> observable_names() const { return {"S", "E", "I", "R"}; }

  /// Puts every agent in S, then the agents chosen by the simulation's seed in I.
  template <class Simulation>
  void initialise(Simulation& sim, global_id population) {
    sim.check_sizes(*this);
    check_population(population, sim.num_global());
    auto chosen = choose_agents<MemorySpace>(sim.seed(), population, params_.initial_infected);
    auto ids = sim.id_map();
    auto s = state.current();
    auto t = timer.current();
    auto const first_timer = static_cast<std::uint16_t>(params_.infectious.steps);
    Kokkos::parallel_for(
        "herd::seir::initialise",
        Kokkos::RangePolicy<typename Simulation::execution_space>(sim.execution_space_instance(), 0, sim.num_agents()),
        KOKKOS_LAMBDA(agent_index i) {
          bool const seeded = contains_sorted(chosen, ids(i));
          s(i) = seeded ? infectious : susceptible;
          t(i) = seeded ? first_timer : 0;
        });
  }

  template <class Simulation>
  void step(Simulation& sim) {
    sim.apply(*this, state, timer);
  }

  /// Calls f on each property: the whole state of an agent, for checkpoints and outputs.
  template <class F>
  void for_each_property(F&& f) const {
    f(state);
    f(timer);
  }

  template <class Agent>
  KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
    agent_index const i = a.index();
    std::uint8_t const s = state(i);
    std::uint16_t const t = timer(i);
    if (s == susceptible) {
      std::uint64_t const hazard = a.sum_of_contributions(*this);
      if (hazard != 0 && happens_at_hazard(a.random(0), static_cast<double>(hazard) * (1.0 / 4294967296.0))) {
        bool const latent = params_.latent.kind != Period::Kind::none;
        a.set(state, latent ? exposed : infectious);
        a.set(timer, latent ? params_.latent.steps : params_.infectious.steps);
      }
    } else if (s == exposed) {
      if (leaves(a, params_.latent, latent_exit_, t, 1)) {
        a.set(state, infectious);
        a.set(timer, params_.infectious.steps);
      } else if (params_.latent.kind == Period::Kind::fixed) {
        a.set(timer, t - 1);
      }
    } else if (s == infectious) {
      if (leaves(a, params_.infectious, recovery_, t, 2)) {
        a.set(state, recovered);
        a.set(timer, 0);
      } else if (params_.infectious.kind == Period::Kind::fixed) {
        a.set(timer, t - 1);
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void observe(agent_index i, std::int64_t* totals) const { totals[state(i)] += 1; }

  /// Whether agent i's state and timer are ones a run can reach (checked on loading a state).
  KOKKOS_INLINE_FUNCTION bool holds_valid_state(agent_index i) const {
    std::uint8_t const s = state(i);
    int const t = timer(i);
    if (s == susceptible || s == recovered) return t == 0;
    if (s == exposed) return params_.latent.kind != Period::Kind::none && t <= longest_latent_;
    return s == infectious && t <= longest_infectious_;
  }

  /// The hazard neighbour j puts on a susceptible agent over an edge of weight w (0 unless j is
  /// infectious): summed over the neighbours by the step, or pushed by the infectious agents when
  /// the step runs on the active list. A weight of 1 (every edge of an unweighted graph, where the
  /// test folds away) takes the precomputed value, the same bits as edge_hazard_of(beta, 1).
  /// The state is tested before the weight is read: on a weighted graph the weights of a row are
  /// mixed and a test on them mispredicts, while most neighbours are not infectious; and the step
  /// passes a weight that is loaded (and decoded, in half storage) only when converted, here for
  /// infectious neighbours alone. Their hazard costs a logarithm (a short series for beta w <= 1/8).
  template <class Weight>
  KOKKOS_INLINE_FUNCTION std::uint64_t contribution(agent_index j, Weight const& weight) const {
    std::uint64_t const unit = unit_hazard(j);
    if (unit == 0) return unit;
    return spreader_contribution(static_cast<float>(weight));
  }

  /// Its phase reads contacts only through its sum (see sums_contacts_only_v).
  static constexpr bool sums_contacts_only = true;

  /// What every spreading (infectious) neighbour contributes over an edge of weight 1:
  /// contribution(j, 1) for each of them, so that a pull step may count them instead.
  KOKKOS_INLINE_FUNCTION std::uint64_t spreader_contribution() const { return unit_hazard_by_state_[infectious]; }
  /// The same over an edge of weight w: contribution(j, w) for every infectious j.
  KOKKOS_INLINE_FUNCTION std::uint64_t spreader_contribution(float w) const {
    return w == 1.0f ? unit_hazard_by_state_[infectious] : edge_hazard_of(params_.beta, w);
  }

  /// What contribution(j, w) reads first: the pull step on a CPU asks for it a few agents ahead.
  KOKKOS_INLINE_FUNCTION void const* contribution_address(agent_index j) const { return state.address(j); }

  /// For active-set stepping: susceptible agents change only next to an infectious one; exposed and
  /// infectious agents count down or draw every step; recovered agents never change.
  /// A table lookup without branches: states are mixed at random, and branches on them mispredict.
  KOKKOS_INLINE_FUNCTION std::uint8_t activity(agent_index i) const {
    constexpr std::uint32_t by_state = activity::receives | activity::changes << 8 |
                                       (activity::changes | activity::spreads) << 16 | activity::none << 24;
    return static_cast<std::uint8_t>(by_state >> (8 * (state.stored(i) & 3)));
  }

  /// activity() of agents first to first + 7, agent first + k's in bits 8k to 8k + 7, from one
  /// load of their states (see declares_activity_words_v).
  KOKKOS_INLINE_FUNCTION std::uint64_t activity_word(agent_index first) const {
    std::uint64_t states = 0;
    if constexpr (Details::little_endian) {
      std::memcpy(&states, state.address(first), sizeof states);
    } else {
      for (int k = 0; k < 8; ++k) states |= static_cast<std::uint64_t>(state.stored(first + k)) << (8 * k);
    }
    // Each lane's state bits 0 and 1, as activity() reads them: S receives; E changes; I changes
    // and spreads; R does neither. A lane holds 0 or 1, so times a flag it holds 0 or the flag.
    constexpr std::uint64_t lanes = 0x0101010101010101ull;
    std::uint64_t const low = states & lanes, high = (states >> 1) & lanes;
    return (low ^ high) * activity::changes | (high & ~low) * activity::spreads |
           (~(low | high) & lanes) * activity::receives;
  }

  /// Fixed-point hazard of one contact of weight w: -ln(1 - beta w) in units of 2^-32, at most 32.
  KOKKOS_INLINE_FUNCTION static std::uint64_t edge_hazard_of(double beta, float w) {
    constexpr double cap = 32.0;
    double const p = beta * static_cast<double>(w);
    double const h = p >= 1.0 ? cap : portable::neg_log1m(p);
    return static_cast<std::uint64_t>((h < cap ? h : cap) * 4294967296.0);
  }

 private:
  // The hazard of an unweighted edge from neighbour j, without a branch on its state.
  KOKKOS_INLINE_FUNCTION std::uint64_t unit_hazard(agent_index j) const {
#if HERD_DEVICE_PASS
    // GPUs select without branching; a table indexed at run time would be copied to local memory.
    return state(j) == infectious ? unit_hazard_by_state_[infectious] : 0;
#else
    // CPUs: near an epidemic's peak infectious neighbours fall at random, a branch on the state
    // mispredicted every few edges and the pull step took twice its time at the start. The lookup
    // costs no more instructions per edge than the predicted branch (a select costs more).
    return unit_hazard_by_state_[state(j) & 3];
#endif
  }

  // Whether an agent leaves a state this step: the fixed timer ran out, or the geometric draw hit.
  template <class Agent>
  KOKKOS_INLINE_FUNCTION static bool leaves(Agent const& a, Period const& period, probability_threshold exit,
                                            std::uint16_t timer_left, std::uint32_t draw) {
    return period.kind == Period::Kind::fixed ? timer_left <= 1 : a.bernoulli(draw, exit);
  }

  // Takes checked parameters and what the steps compute from them; the longest fixed periods so
  // far stay valid timers.
  void take(SeirParameters const& p) {
    params_ = p;
    unit_hazard_by_state_[infectious] = edge_hazard_of(p.beta, 1.0f);
    latent_exit_ = to_threshold(p.latent.probability);
    recovery_ = to_threshold(p.infectious.probability);
    longest_latent_ = p.latent.steps > longest_latent_ ? p.latent.steps : longest_latent_;
    longest_infectious_ = p.infectious.steps > longest_infectious_ ? p.infectious.steps : longest_infectious_;
  }

  // Refuses `name` for a period of the other kind: `fixed` names a fixed period, `geometric` the other.
  static void period_named(Period const& period, std::string const& name, char const* fixed, char const* geometric) {
    bool const is_fixed = period.kind == Period::Kind::fixed;
    require(is_fixed == (name == fixed), "the period is " + std::string(is_fixed ? "fixed" : "geometric") + ": set " +
                                             (is_fixed ? fixed : geometric) + ", not " + name);
  }

  static void check(SeirParameters const& p) {
    require(p.beta >= 0.0 && p.beta <= 1.0, "beta must lie in [0, 1], got " + number_text(p.beta));
    require(p.initial_infected >= 0, "the initial infected count must not be negative");
    auto check_period = [](Period const& period, char const* name, bool optional) {
      if (period.kind == Period::Kind::none) {
        require(optional, std::string(name) + " period is missing");
      } else if (period.kind == Period::Kind::fixed) {
        require(period.steps >= 1 && period.steps <= Period::longest,
                std::string(name) + " period must be 1 to " + std::to_string(Period::longest) + " steps, got " +
                    std::to_string(period.steps));
      } else {
        require(period.probability > 0.0 && period.probability <= 1.0,
                std::string(name) + " exit probability must lie in (0, 1], got " + number_text(period.probability));
      }
    };
    check_period(p.latent, "the latent", true);
    check_period(p.infectious, "the infectious", false);
  }

  SeirParameters params_;
  std::uint64_t unit_hazard_by_state_[4] = {0, 0, 0, 0};  ///< hazard of an unweighted edge, by neighbour state
  probability_threshold latent_exit_ = 0;
  probability_threshold recovery_ = 0;
  int longest_latent_ = 0;  ///< the longest fixed periods set so far: timers up to these are valid
  int longest_infectious_ = 0;
};

}  // namespace herd
