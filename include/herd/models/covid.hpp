#pragma once

// COVID-19 on a contact network, with the dynamics of AgentTorch's COVID model
// (agent_torch/models/covid): stages susceptible, exposed, infected, recovered and dead.
//
// Each step, a susceptible agent i is exposed with probability 1 - exp(-lambda_i), where
//   lambda_i = R * susceptibility(age_i) / mean_interactions(age_i)
//              * sum over infecting neighbours j of  w_ij * infectiousness(stage_j) * G(k_j)
// counts exposed and infected neighbours, k_j = t - tau_j - 1 for an agent exposed at step tau_j,
// and G(k) is the mass of a gamma-distributed infectiousness profile on day k. An agent exposed at
// step t turns infected at step t + 1 + exposed_to_infected and leaves at step + infected_to_recovered
// later, dying with probability `mortality`, else recovering for good. Every parameter, where it
// comes from and where Herd reads AgentTorch's code differently: docs/models/covid-astoria.md.
//
// The neighbour sum is taken in 32.32 fixed point from a table of (stage, days since exposure), so
// it is exact whatever order lanes and ranks add in; exp comes from herd::portable. Trajectories
// are bitwise identical across backends, schedules, thread and rank counts.

#include <herd/agents/property.hpp>
#include <herd/core/error.hpp>
#include <herd/core/incomplete_gamma.hpp>
#include <herd/core/portable_math.hpp>
#include <herd/core/random.hpp>
#include <herd/engine/activity.hpp>
#include <herd/models/seeding.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace herd {

/// An age group: how susceptible its members are, how many people they meet on average (the force
/// of infection is shared among those contacts), and its share of a population whose ages are not
/// given per agent.
struct CovidAgeGroup {
  std::string label;
  double susceptibility = 1.0;
  double mean_interactions = 1.0;
  double share = 1.0;
};

struct CovidParameters {
  double transmission_rate = 4.75;       ///< R
  double exposed_infectiousness = 0.33;  ///< infectiousness factor of an exposed agent
  double infected_infectiousness = 0.72;
  double profile_mean = 5.5;            ///< infectiousness profile over days since exposure: gamma with this mean
  double profile_sd = 2.4;              ///< and standard deviation
  int exposed_to_infected = 5;          ///< exposed at step t: infected at step t + 1 + this
  int initial_exposed_to_infected = 3;  ///< exposed at the start: infected at this step
  int infected_to_recovered = 5;        ///< infected at step t: recovered or dead at step t + this
  double mortality = 0.12;              ///< probability that an infection ends in death
  std::vector<CovidAgeGroup> age_groups = {{"all", 1.0, 1.0, 1.0}};
  global_id initial_exposed = 10;  ///< exposed agents chosen by the seed, when stages are not given
};

/// Per-agent inputs, by global id (or by owned agent); either may be empty.
struct CovidPopulation {
  std::vector<std::uint8_t> age_group;  ///< index into CovidParameters::age_groups (empty: drawn from the shares)
  std::vector<std::uint8_t> stage;      ///< initial stage, a Covid::Stage (empty: initial_exposed chosen by seed)
  /// Whether each rank holds the values of its owned agents alone, by local index (a distributed
  /// run whose ranks read their own agents'): its ghosts' stages then come from their owners.
  /// The same on every rank.
  bool owned_only = false;
};

template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Covid {
 public:
  enum Stage : std::uint8_t { susceptible = 0, exposed = 1, infected = 2, recovered = 3, dead = 4 };
  /// Days since exposure are counted up to this and then stay (the profile is zero long before).
  static constexpr int max_days = 255;

  Property<std::uint8_t, MemorySpace> stage;
  Property<std::uint8_t, MemorySpace> days;   ///< steps since exposure, t - tau (0 when never exposed)
  Property<std::uint8_t, MemorySpace> timer;  ///< steps before the next change of stage
  Property<std::uint8_t, MemorySpace> age;    ///< age group, set once

  Covid(agent_index agents, CovidParameters const& p, CovidPopulation const& population = {})
      : exposed_to_infected_(p.exposed_to_infected),
        initial_exposed_to_infected_(p.initial_exposed_to_infected),
        infected_to_recovered_(p.infected_to_recovered),
        initial_exposed_(p.initial_exposed),
        age_groups_(static_cast<int>(p.age_groups.size())) {
    check(p, population);
    stage = Property<std::uint8_t, MemorySpace>("stage", agents, Visibility::neighbours);
    days = Property<std::uint8_t, MemorySpace>("days", agents, Visibility::neighbours);
    timer = Property<std::uint8_t, MemorySpace>("timer", agents, Visibility::own);
    age = Property<std::uint8_t, MemorySpace>("age", agents, Visibility::own);
    mortality_ = to_threshold(p.mortality);
    mortality_value_ = p.mortality;
    transmission_rate_ = p.transmission_rate;
    build_tables(p);
    given_age_ = to_view("herd::covid::given_age", population.age_group);
    given_stage_ = to_view("herd::covid::given_stage", population.stage);
    given_owned_only_ = population.owned_only;
  }

  /// The parameters a scenario may set between steps (herd::ScenarioEvent), by their names in the
  /// herd command: transmission-rate and mortality.
  double parameter(std::string const& name) const {
    if (name == "transmission-rate") return transmission_rate_;
    if (name == "mortality") return mortality_value_;
    throw Error("no parameter '" + name + "' to set: transmission-rate and mortality are known");
  }
  /// Sets a parameter parameter(name) knows, after checking the value as the constructor does.
  /// A new transmission rate copies the per-age factors in place, and waits for the device.
  void set_parameter(std::string const& name, double value) {
    parameter(name);
    if (name == "mortality") {
      require(value >= 0.0 && value <= 1.0, "covid: mortality must lie in [0, 1], got " + number_text(value));
      mortality_value_ = value;
      mortality_ = to_threshold(value);
      return;
    }
    require(value >= 0.0 && std::isfinite(value),
            "covid: the transmission rate must be a non-negative number, got " + number_text(value));
    transmission_rate_ = value;
    auto scale = Kokkos::create_mirror_view(Kokkos::HostSpace(), exposure_scale_);
    for (std::size_t g = 0; g < scale.extent(0); ++g)
      scale(g) = value * group_factors_(2 * g) / group_factors_(2 * g + 1);  // as build_tables computes it
    Kokkos::deep_copy(exposure_scale_, scale);
    most_pressure_ = certain_pressure(std::vector<double>(scale.data(), scale.data() + scale.extent(0)));
  }

  /// Exposes agent i if it is susceptible, outside the steps (a scenario's import), as a
  /// transmission does. Returns whether it changed. Writes the current values.
  KOKKOS_INLINE_FUNCTION bool infect(agent_index i) const {
    if (stage.stored(i) != susceptible) return false;
    stage.overwrite(i, exposed);
    days.overwrite(i, 1);
    timer.overwrite(i, exposed_to_infected_);
    return true;
  }
  /// Makes agent i recovered if it is susceptible, outside the steps (a scenario's vaccination that
  /// protects). Returns whether it changed.
  KOKKOS_INLINE_FUNCTION bool immunise(agent_index i) const {
    if (stage.stored(i) != susceptible) return false;
    stage.overwrite(i, recovered);
    return true;
  }

  /// Age groups: `age` holds 0 ... num_age_groups() - 1, in the order of CovidParameters::age_groups.
  int num_age_groups() const { return age_groups_; }

  static constexpr int num_observables() { return 5; }
  std::vector<std::string> observable_names() const { return {"S", "E", "I", "R", "D"}; }

  /// Sets each agent's age group and stage from the population (or draws them from the seed).
  /// With the owned agents' values alone, collective: the ghosts' stages come from their owners.
  /// Throws herd::Error when the values given are not one per agent (per owned agent), and when
  /// called again on a model given a population: the first call let go of it.
  template <class Simulation>
  void initialise(Simulation& sim, global_id population) {
    // Drawing ages and stages from the seed instead would start another epidemic without a word.
    require(!population_used_,
            "covid: initialise was called again, and the age groups or stages given to the constructor went to "
            "the first call: construct the model anew for another run");
    sim.check_sizes(*this);
    check_population(population, sim.num_global());
    bool const owned_only = given_owned_only_;
    global_id const expected = owned_only ? static_cast<global_id>(sim.num_owned()) : population;
    auto const given = [&](auto const& view, char const* what) {
      auto const count = static_cast<global_id>(view.extent(0));
      require(count == 0 || count == expected, std::string("covid: ") + std::to_string(count) + " " + what + " for " +
                                                   std::to_string(expected) +
                                                   (owned_only ? " owned agents" : " agents"));
      return count != 0;
    };
    bool const ages_given = given(given_age_, "age groups");
    bool const stages_given = given(given_stage_, "initial stages");
    auto const chosen = choose_agents<MemorySpace>(sim.seed(), population, stages_given ? 0 : initial_exposed_);
    auto const ids = sim.id_map();
    auto const rng = sim.rng();
    auto const s = stage.current(), d = days.current(), t = timer.current(), g = age.current();
    auto const ages = given_age_, stages = given_stage_;
    auto const age_thresholds = age_thresholds_;
    std::uint8_t const first_timer = static_cast<std::uint8_t>(initial_exposed_to_infected_);
    std::uint8_t const infected_timer = static_cast<std::uint8_t>(infected_to_recovered_);
    Kokkos::parallel_for(
        "herd::covid::initialise",
        Kokkos::RangePolicy<typename Simulation::execution_space>(sim.execution_space_instance(), 0, sim.num_agents()),
        KOKKOS_LAMBDA(agent_index i) {
          global_id const id = ids(i);
          // A ghost's values, when only the owned agents' are given, are its owner's: its stage
          // arrives below (its age and timer are its owner's to read).
          auto const k = static_cast<std::size_t>(owned_only ? static_cast<global_id>(i) : id);
          bool const given_here = !owned_only || static_cast<global_id>(i) < expected;
          std::uint8_t group = 0;
          if (ages_given) {
            group = given_here ? ages(k) : 0;
          } else {
            auto const draw = static_cast<std::uint64_t>(rng.bits(id, 0, streams::initial_state, 4));
            while (group + 1 < static_cast<int>(age_thresholds.extent(0)) && draw >= age_thresholds(group)) ++group;
          }
          std::uint8_t const seeded = contains_sorted(chosen, id) ? exposed : susceptible;
          std::uint8_t const st = stages_given ? (given_here ? stages(k) : std::uint8_t{susceptible}) : seeded;
          g(i) = group;
          s(i) = st;
          // AgentTorch's start: exposed agents were exposed the step before (tau = -1), infected
          // ones three steps before; both count down their own stage's time.
          d(i) = st == exposed ? 1 : (st == infected ? 3 : 0);
          t(i) = st == exposed ? first_timer : (st == infected ? infected_timer : 0);
        });
    // On every rank alike (a rank's count does not say whether another's stages were given).
    if (owned_only) {
      sim.update_ghosts(stage, days);
      sim.wait_for_ghosts();
    }
    // The inputs are not needed again (a resumed run reads the state from its checkpoint).
    population_used_ = owned_only || ages_given || stages_given;  // a rank of no agents was given one too
    given_age_ = {};
    given_stage_ = {};
  }

  template <class Simulation>
  void step(Simulation& sim) {
    sim.apply(*this, stage, days, timer);
  }

  /// Calls f on each property: the whole state of an agent, for checkpoints and outputs.
  template <class F>
  void for_each_property(F&& f) const {
    f(stage);
    f(days);
    f(timer);
    f(age);
  }

  template <class Agent>
  KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
    agent_index const i = a.index();
    std::uint8_t const s = stage.stored(i);
    if (s == susceptible) {
      std::uint64_t const pressure = a.sum_of_contributions(*this);
      if (pressure != 0) {
        double const lambda = exposure_scale_(age.stored(i)) * (static_cast<double>(pressure) * (1.0 / 4294967296.0));
        if (happens_at_hazard(a.random(0), lambda)) {
          a.set(stage, exposed);
          a.set(days, 1);
          a.set(timer, exposed_to_infected_);
        }
      }
    } else if (s == exposed || s == infected) {
      std::uint8_t const d = days.stored(i);
      a.set(days, d < max_days ? d + 1 : max_days);
      std::uint8_t const left = timer.stored(i);
      if (left > 0) {
        a.set(timer, left - 1);
      } else if (s == exposed) {
        a.set(stage, infected);
        a.set(timer, infected_to_recovered_ - 1);
      } else {
        a.set(stage, a.bernoulli(1, mortality_) ? dead : recovered);
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void observe(agent_index i, std::int64_t* totals) const { totals[stage.stored(i)] += 1; }

  /// Whether agent i's stage and age group exist (checked on loading a state).
  /// Timers and days count only within a stage that has them: a susceptible agent was never
  /// exposed, and a timer never exceeds its stage's period.
  KOKKOS_INLINE_FUNCTION bool holds_valid_state(agent_index i) const {
    std::uint8_t const s = stage.stored(i);
    int const t = timer.stored(i), d = days.stored(i);
    if (s > dead || age.stored(i) >= age_groups_) return false;
    if (s == susceptible) return t == 0 && d == 0;
    if (s == exposed)
      return d >= 1 && t <= (exposed_to_infected_ > initial_exposed_to_infected_ ? exposed_to_infected_
                                                                                 : initial_exposed_to_infected_);
    if (s == infected) return d >= 1 && t <= infected_to_recovered_;
    return t == 0;
  }

  /// The infection pressure neighbour j puts on a susceptible agent over an edge of weight w, in
  /// units of 2^-32 (0 unless j is exposed or infected), at most most_pressure(): summed over the
  /// neighbours by the step, or pushed by the exposed and infected agents when the step runs on
  /// the active list. A weight of 1 takes the fixed-point table, the same bits as the real one
  /// times 1. The weight is read (and decoded) only for the exposed and infected neighbours.
  template <class Weight>
  KOKKOS_INLINE_FUNCTION std::uint64_t contribution(agent_index j, Weight const& weight) const {
    std::uint8_t const sj = stage.stored(j);
    if (sj != exposed && sj != infected) return 0;
    int const k = table_index(sj, days.stored(j));
    float const w = weight;
    if (w == 1.0f) {
      std::uint64_t const fixed = pressure_fixed_(k);
      return fixed < most_pressure_ ? fixed : most_pressure_;
    }
    double const real = pressure_real_(k);
    if (real == 0.0) return 0;  // times an infinite weight (a float's product with a layer factor): NaN
    double const pressure = real * static_cast<double>(w) * 4294967296.0;
    return pressure < static_cast<double>(most_pressure_) ? static_cast<std::uint64_t>(pressure) : most_pressure_;
  }

  /// The most pressure one contact puts on an agent, in units of 2^-32: where every age group that
  /// can be exposed at all has a hazard of 32 or more, so exposed for certain (a 32-bit draw sees
  /// probability 1 from a hazard of 22.2), and at most 2^63. No trajectory depends on the cap;
  /// it keeps a huge weight (or layer factor) from overflowing the conversion to an integer.
  std::uint64_t most_pressure() const { return most_pressure_; }

  /// What contribution(j, w) reads first (the day is read only for the few that spread): the pull
  /// step on a CPU asks for it a few agents ahead.
  KOKKOS_INLINE_FUNCTION void const* contribution_address(agent_index j) const { return stage.address(j); }

  /// For active-set stepping: susceptible agents change only next to an exposed or infected one;
  /// exposed and infected agents count their days and infect; recovered and dead ones never change.
  /// A table lookup without branches (stages are mixed at random, and branches on them mispredict).
  KOKKOS_INLINE_FUNCTION std::uint8_t activity(agent_index i) const {
    constexpr std::uint64_t infecting = activity::changes | activity::spreads;
    constexpr std::uint64_t by_stage = std::uint64_t{activity::receives} | infecting << 8 | infecting << 16;
    return static_cast<std::uint8_t>(by_stage >> (8 * (stage.stored(i) & 7)));
  }

  /// The infectiousness of an exposed or infected neighbour `d` days after its exposure, in
  /// units of 2^-32 (for tests and tools: a copy of the device table).
  std::vector<std::uint64_t> pressure_table() const {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pressure_fixed_);
    return {host.data(), host.data() + host.size()};
  }

 private:
  KOKKOS_INLINE_FUNCTION static int table_index(std::uint8_t stage_of, std::uint8_t days_of) {
    return (stage_of == infected ? max_days + 1 : 0) + days_of;
  }

  template <class T>
  static Kokkos::View<T*, MemorySpace> to_view(std::string const& label, std::vector<T> const& values) {
    Kokkos::View<T*, MemorySpace> view(Kokkos::ViewAllocateWithoutInitializing(label), values.size());
    Kokkos::deep_copy(view, Kokkos::View<T const*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                values.data(), values.size()));
    return view;
  }

  // The per-step weights of the profile, the neighbour table and the per-age factors, computed once
  // on the host so that every backend works from the same numbers.
  void build_tables(CovidParameters const& p) {
    std::vector<double> real(2 * (max_days + 1), 0.0);
    for (int d = 1; d <= max_days; ++d) {
      // AgentTorch's k = t - tau - 1 = d - 1: the profile's mass on (k - 1, k].
      double const k = d - 1;
      double const mass = gamma_cdf(p.profile_mean, p.profile_sd, k) - gamma_cdf(p.profile_mean, p.profile_sd, k - 1);
      real[static_cast<std::size_t>(table_index(exposed, static_cast<std::uint8_t>(d)))] =
          p.exposed_infectiousness * mass;
      real[static_cast<std::size_t>(table_index(infected, static_cast<std::uint8_t>(d)))] =
          p.infected_infectiousness * mass;
    }
    std::vector<std::uint64_t> fixed(real.size());
    for (std::size_t k = 0; k < real.size(); ++k) fixed[k] = to_fixed(real[k] * 4294967296.0);
    pressure_real_ = to_view("herd::covid::pressure_real", real);
    pressure_fixed_ = to_view("herd::covid::pressure_fixed", fixed);

    std::vector<double> scale;
    std::vector<std::uint64_t> thresholds;
    double total_share = 0.0, cumulative = 0.0;
    for (auto const& g : p.age_groups) total_share += g.share;
    group_factors_ = Kokkos::View<double*, Kokkos::HostSpace>("herd::covid::group_factors", 2 * p.age_groups.size());
    for (std::size_t k = 0; k < p.age_groups.size(); ++k) {
      group_factors_(2 * k) = p.age_groups[k].susceptibility;
      group_factors_(2 * k + 1) = p.age_groups[k].mean_interactions;
    }
    for (auto const& g : p.age_groups) {
      scale.push_back(p.transmission_rate * g.susceptibility / g.mean_interactions);
      cumulative += g.share;
      thresholds.push_back(static_cast<std::uint64_t>(cumulative / total_share * 4294967296.0));
    }
    exposure_scale_ = to_view("herd::covid::exposure_scale", scale);
    age_thresholds_ = to_view("herd::covid::age_thresholds", thresholds);
    most_pressure_ = certain_pressure(scale);
  }

  // A pressure in units of 2^-32 as an integer, at most 2^63 (where the conversion is defined).
  static std::uint64_t to_fixed(double pressure) {
    return pressure < 9223372036854775808.0 ? static_cast<std::uint64_t>(pressure) : std::uint64_t{1} << 63;
  }

  // The pressure (units of 2^-32) that gives every positive exposure scale a hazard of 32 or more.
  static std::uint64_t certain_pressure(std::vector<double> const& scales) {
    double least = std::numeric_limits<double>::infinity();
    for (double scale : scales)
      if (scale > 0.0) least = std::min(least, scale);
    return to_fixed(32.0 / least * 4294967296.0);
  }

  static void check(CovidParameters const& p, CovidPopulation const& population) {
    auto const non_negative = [](double v, char const* what) {
      require(v >= 0.0 && std::isfinite(v),
              std::string("covid: ") + what + " must be a non-negative number, got " + number_text(v));
    };
    non_negative(p.transmission_rate, "the transmission rate");
    non_negative(p.exposed_infectiousness, "the infectiousness of exposed agents");
    non_negative(p.infected_infectiousness, "the infectiousness of infected agents");
    require(p.profile_mean > 0.0 && p.profile_sd > 0.0,
            "covid: the infectiousness profile needs a positive mean and standard deviation");
    require(p.mortality >= 0.0 && p.mortality <= 1.0,
            "covid: mortality must lie in [0, 1], got " + number_text(p.mortality));
    auto const steps = [](int v, int lowest, char const* what) {
      require(v >= lowest && v <= max_days, std::string("covid: ") + what + " must be " + std::to_string(lowest) +
                                                " to " + std::to_string(max_days) + " steps, got " + std::to_string(v));
    };
    steps(p.exposed_to_infected, 0, "exposed_to_infected");
    steps(p.initial_exposed_to_infected, 0, "initial_exposed_to_infected");
    steps(p.infected_to_recovered, 1, "infected_to_recovered");
    require(!p.age_groups.empty() && p.age_groups.size() <= 256, "covid: between 1 and 256 age groups are needed");
    double total_share = 0.0;
    for (auto const& g : p.age_groups) {
      non_negative(g.susceptibility, "an age group's susceptibility");
      require(g.mean_interactions > 0.0, "covid: age group '" + g.label + "' needs positive mean interactions");
      non_negative(g.share, "an age group's share");
      total_share += g.share;
    }
    require(total_share > 0.0, "covid: the age groups' shares add up to zero");
    require(p.initial_exposed >= 0, "covid: the initial exposed count must not be negative");
    for (auto g : population.age_group)
      require(g < p.age_groups.size(), "covid: age group " + std::to_string(g) + " is not one of the " +
                                           std::to_string(p.age_groups.size()) + " groups");
    for (auto s : population.stage)
      require(s <= dead, "covid: initial stage " + std::to_string(s) + " is not 0 (S) to 4 (D)");
    require(population.age_group.empty() || population.stage.empty() ||
                population.age_group.size() == population.stage.size(),
            "covid: " + std::to_string(population.age_group.size()) + " age groups but " +
                std::to_string(population.stage.size()) + " initial stages");
  }

  std::uint8_t exposed_to_infected_;
  std::uint8_t initial_exposed_to_infected_;
  std::uint8_t infected_to_recovered_;
  global_id initial_exposed_;
  int age_groups_;  ///< ages are 0 .. age_groups_ - 1
  probability_threshold mortality_ = 0;
  double mortality_value_ = 0.0;
  double transmission_rate_ = 0.0;
  Kokkos::View<double*, Kokkos::HostSpace> group_factors_;  ///< each age group's susceptibility, mean interactions
  std::uint64_t most_pressure_ = std::uint64_t{1} << 63;    ///< see most_pressure()
  Kokkos::View<double*, MemorySpace> pressure_real_;
  Kokkos::View<std::uint64_t*, MemorySpace> pressure_fixed_;
  Kokkos::View<double*, MemorySpace> exposure_scale_;
  Kokkos::View<std::uint64_t*, MemorySpace> age_thresholds_;
  bool population_used_ = false;  ///< initialise took the population given, and let go of it
  Kokkos::View<std::uint8_t*, MemorySpace> given_age_;
  Kokkos::View<std::uint8_t*, MemorySpace> given_stage_;
  bool given_owned_only_ = false;
};

}  // namespace herd
