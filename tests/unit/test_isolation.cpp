#include "test_common.hpp"

#include <herd/scenario/run_scenario.hpp>

#include <cmath>
#include <numeric>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace herd;
using herd::test::sir;
using herd::test::to_vector;

constexpr std::uint64_t seed = 31;

template <class ExecutionSpace>
class Isolation : public ::testing::Test {};
TYPED_TEST_SUITE(Isolation, herd::test::ExecutionSpaces);

ScenarioEvent isolation(int first, int last, double probability, int duration,
                        std::vector<std::string> keeps = {"household"}) {
  ScenarioEvent e;
  e.kind = ScenarioEvent::Kind::isolate;
  e.first = first;
  e.last = last;
  e.probability = probability;
  e.duration = duration;
  e.keeps = std::move(keeps);
  return e;
}

Scenario population_scenario(std::vector<ScenarioEvent> events) {
  Scenario scenario;
  scenario.layer_names = population_layer_names();
  scenario.events = std::move(events);
  return scenario;
}

// The layered population of `agents` agents, as a graph.
template <class ExecutionSpace>
auto population_graph(ExecutionSpace const& exec, agent_index agents) {
  LayeredPopulation spec;
  spec.agents = agents;
  return build_csr(exec, generate_population(exec, spec, seed).edges);
}

// Every entry of `graph` is closed exactly when it is not a household entry and one of its ends
// is isolated (`isolated`: per agent). Returns the closed entries.
template <class Graph>
std::size_t expect_closed_where_isolated(Graph const& graph, std::vector<std::uint8_t> const& isolated, int step) {
  auto const offsets = to_vector(graph.row_offsets);
  auto const neighbours = to_vector(graph.neighbours);
  auto const layers = to_vector(graph.layers);
  std::size_t closed = 0, wrong = 0;
  for (agent_index i = 0; i < graph.num_agents(); ++i)
    for (auto e = offsets[static_cast<std::size_t>(i)]; e < offsets[static_cast<std::size_t>(i) + 1]; ++e) {
      bool const should = (layers[e] & 0x7f) != static_cast<int>(PopulationLayer::household) &&
                          (isolated[static_cast<std::size_t>(i)] != 0 || isolated[neighbours[e]] != 0);
      bool const is = (layers[e] & closed_layer) != 0;
      closed += is;
      wrong += is != should;
    }
  EXPECT_EQ(wrong, 0u) << "entries closed or open against their ends' isolation before step " << step;
  return closed;
}

// Agents detected before step 2 (every spreading agent: probability 1) are isolated for steps 2, 3
// and 4 and free from step 5. Nobody else is isolated: the event acts on step 2 only. Edge by
// edge, their non-household entries, both ways, are closed for those steps alone; pulled sums by
// code read who is isolated from the spreader bits and leave every entry open. Both give the same
// trajectory, the steps after the last detections included (no pass before them marks the bits).
TYPED_TEST(Isolation, TimersExpireAfterExactlyKSteps) {
  using Exec = TypeParam;
  using Sim = Simulation<Exec>;
  using Model = Seir<typename Exec::memory_space>;
  Exec exec;
  auto const graph = population_graph(exec, 4997);  // not a multiple of 8: the last agents one at a time
  SeirParameters p;
  p.beta = 0.05;
  p.infectious = Period::fixed(100);
  p.initial_infected = 30;
  StepOptions by_code, edge_by_edge;
  edge_by_edge.weight_codes = false;
  std::vector<std::vector<std::int64_t>> trajectories;
  for (auto const& options : {by_code, edge_by_edge}) {
    bool const in_entries = !options.weight_codes;
    SCOPED_TRACE(in_entries ? "edge by edge" : "by code");
    Sim sim(exec, graph, seed, options);
    Model model(graph.num_agents(), p);
    model.initialise(sim, graph.num_agents());
    int const steps = 7;
    Interventions<Sim, Model> interventions(sim, model, population_scenario({isolation(2, 2, 1.0, 3)}), steps);
    ASSERT_TRUE(interventions.isolates());
    std::vector<std::uint8_t> infectious_before_2;
    std::vector<std::vector<std::uint16_t>> timers;
    auto const history = run_scenario(sim, model, steps, interventions, [&](int t, int) {
      // After step t: the timers the events of step t set, and the states that step 2 reads.
      timers.push_back(to_vector(interventions.isolation_timers().current()));
      if (t == 1)
        for (auto s : to_vector(model.state.current())) infectious_before_2.push_back(s == Model::infectious);
      std::vector<std::uint8_t> isolated(timers.back().size(), 0);
      if (in_entries)
        for (std::size_t i = 0; i < isolated.size(); ++i) isolated[i] = timers.back()[i] > 0;
      EXPECT_EQ(sim.closes_in_entries(), in_entries) << "step " << t;
      auto const closed = expect_closed_where_isolated(sim.graph(), isolated, t);
      EXPECT_EQ(closed > 0, in_entries && t >= 2 && t <= 4) << "step " << t;
    });
    trajectories.push_back(to_vector(history));
    for (auto state : to_vector(model.state.current())) trajectories.back().push_back(state);
    auto const n = static_cast<std::size_t>(graph.num_agents());
    std::size_t detected = 0;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint16_t const expected[] = {0, 3, 2, 1, 0, 0, 0};
      for (int t = 1; t <= steps; ++t)
        ASSERT_EQ(timers[static_cast<std::size_t>(t - 1)][i], infectious_before_2[i] ? expected[t - 1] : 0)
            << "agent " << i << " before step " << t;
      detected += infectious_before_2[i];
    }
    EXPECT_GT(detected, 30u);
    auto const counts = to_vector(interventions.finish(sim));
    EXPECT_EQ(counts[2], static_cast<std::int64_t>(detected)) << "the agents the event isolated before step 2";
  }
  EXPECT_EQ(trajectories[0], trajectories[1]) << "by code against edge by edge";
}

// A spreader is detected with the acting events' chance on every step it is free, though its
// wait is drawn once: N spreaders that stay infectious, isolated for good once detected, leave
// N (1 - p)^t undetected after t steps. Event A (p = 0.05) acts on steps 1-20 and B (p = 0.1) on
// 6-15, so the waits drawn under A alone are void at step 6 and again at step 16; event C (p =
// 2e-4, steps 21-9000) has waits past the 8192 steps a word holds, drawn again at step 8213. Each
// event's count is checked against its expected share, within 4 standard deviations.
TYPED_TEST(Isolation, DetectionsComeWithEachStepsChanceAndTheEventsShares) {
  using Exec = TypeParam;
  using Sim = Simulation<Exec>;
  using Model = Seir<typename Exec::memory_space>;
  Exec exec;
  auto const graph = population_graph(exec, 6000);
  SeirParameters p;
  p.beta = 0.0;
  p.infectious = Period::fixed(30000);
  p.initial_infected = 6000;
  Sim sim(exec, graph, seed);
  Model model(graph.num_agents(), p);
  model.initialise(sim, graph.num_agents());
  int const steps = 9000;
  double const pa = 0.05, pb = 0.1, pc = 2e-4;
  auto const scenario =
      population_scenario({isolation(1, 20, pa, max_isolation_steps), isolation(6, 15, pb, max_isolation_steps),
                           isolation(21, steps, pc, max_isolation_steps)});
  Interventions<Sim, Model> interventions(sim, model, scenario, steps);
  run_scenario(sim, model, steps, interventions);
  auto const counts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), interventions.finish(sim));
  // Expected detections by each event: each step's survivors times the step's chance of the
  // event being the first whose own draw came up.
  double undetected = 6000.0;
  double expected[3] = {0.0, 0.0, 0.0};
  std::int64_t detected[3] = {0, 0, 0};
  auto const check = [&](int k, char const* what) {
    double const sigma = std::sqrt(expected[k]);
    EXPECT_LE(std::abs(static_cast<double>(detected[k]) - expected[k]), 4.0 * sigma + 1.0)
        << what << ": " << detected[k] << " detected, " << expected[k] << " expected";
  };
  for (int t = 1; t <= steps; ++t) {
    double const a = t <= 20 ? pa : 0.0, b = t >= 6 && t <= 15 ? pb : 0.0, c = t > 20 ? pc : 0.0;
    double const first[3] = {a, (1.0 - a) * b, (1.0 - a) * (1.0 - b) * c};
    for (int k = 0; k < 3; ++k) {
      expected[k] += undetected * first[k];
      detected[k] += counts(static_cast<std::size_t>(t), static_cast<std::size_t>(k));
    }
    undetected *= 1.0 - first[0] - first[1] - first[2];
    if (t == 5) check(0, "event A alone, steps 1-5");
    if (t == 15) {
      check(0, "event A, steps 1-15");
      check(1, "event B, steps 6-15");
    }
    if (t == 20) check(0, "event A, steps 1-20");
    if (t == 8212) {
      check(2, "event C, steps 21-8212");
      // From here on, only what the waits drawn again at step 8213 detect.
      expected[2] = 0.0;
      detected[2] = 0;
    }
  }
  check(2, "event C, steps 8213-9000");
  EXPECT_GT(expected[2], 15.0) << "event C detects after the longest wait a word holds";
}

// Pulled steps that sum by code leave the entries open; a listed step closes them from the flags,
// later changes rewrite what they touch, and after rounds_before_reopening pulled steps in a row
// every entry opens again. Switching between the two every few steps gives the bits of every step
// pulled and of every step listed, with agents detected and freed all along.
TYPED_TEST(Isolation, EntriesCloseWhereListedStepsReadThemAndReopenAfterPulledOnes) {
  using Exec = TypeParam;
  using Sim = Simulation<Exec>;
  using Model = Seir<typename Exec::memory_space>;
  Exec exec;
  auto const graph = population_graph(exec, 20000);
  auto const p = sir(0.3, 6, 100);
  int const steps = 24;
  auto const scenario = population_scenario({isolation(2, steps, 0.4, 2)});
  auto const pulled = herd::test::stepping_options(Stepping::pull);
  auto const listed = herd::test::stepping_options(Stepping::active);
  // Pieces of steps, each with its stepping; returns the final states and timers, and the agents
  // detected.
  auto const run_in = [&](std::vector<std::pair<int, StepOptions>> const& pieces) {
    Sim sim(exec, graph, seed, pieces.front().second);
    Model model(graph.num_agents(), p);
    model.initialise(sim, graph.num_agents());
    Interventions<Sim, Model> interventions(sim, model, scenario, steps);
    std::vector<std::int64_t> out;
    for (auto const& [count, options] : pieces) {
      sim.set_options(options);
      sim.prepare(model);
      run_scenario(sim, model, count, interventions);
      if (options.stepping == Stepping::active) {
        EXPECT_TRUE(sim.closes_in_entries()) << "after listed steps, step " << sim.step();
      } else if (count > Details::Tuning::rounds_before_reopening) {
        EXPECT_FALSE(sim.closes_in_entries()) << "after " << count << " pulled steps, step " << sim.step();
      }
    }
    for (auto s : to_vector(model.state.current())) out.push_back(s);
    for (auto t : to_vector(interventions.isolation_timers().current())) out.push_back(t);
    auto const counts = to_vector(interventions.finish(sim));
    return std::make_pair(out, std::accumulate(counts.begin(), counts.end(), std::int64_t{0}));
  };
  auto const [all_pulled, detected] = run_in({{steps, pulled}});
  EXPECT_GT(detected, 500) << "agents detected";
  auto const switched =
      run_in({{3, pulled}, {2, listed}, {6, pulled}, {1, listed}, {1, pulled}, {1, listed}, {5, pulled}, {5, listed}});
  auto const all_listed = run_in({{steps, listed}});
  EXPECT_EQ(switched.first, all_pulled) << "switched against pulled";
  EXPECT_EQ(all_listed.first, all_pulled) << "listed against pulled";
  EXPECT_EQ(switched.second, detected);
  EXPECT_EQ(all_listed.second, detected);
}

// SIR with beta 1 and agents infectious for the whole run, every spreading agent isolated before
// each step (keeping its household): nobody is infected outside the seeds' households, and the
// same bits come with and without the weights' codes, active, on every schedule and in two pieces
// through restore_isolation (a checkpoint's path). Without isolation the infection leaves home.
TYPED_TEST(Isolation, ConfinesInfectionToTheSeedsHouseholds) {
  using Exec = TypeParam;
  using Sim = Simulation<Exec>;
  using Model = Seir<typename Exec::memory_space>;
  Exec exec;
  LayeredPopulation spec;
  spec.agents = 20000;
  auto const population = generate_population(exec, spec, seed);
  auto const graph = build_csr(exec, population.edges);
  auto const household = to_vector(population.household);
  int const steps = 12;
  auto const scenario = population_scenario({isolation(1, steps, 1.0, steps)});
  SeirParameters p;
  p.beta = 1.0;
  p.infectious = Period::fixed(100);
  p.initial_infected = 40;
  // The history and final states of a run in `pieces` pieces: each later piece starts a new
  // simulation and interventions from the states and timers of the last one, as a resumed run.
  auto const run_with = [&](Scenario const& s, StepOptions const& options, int pieces, std::set<agent_index>* seeds) {
    Model model(graph.num_agents(), p);
    std::vector<std::int64_t> out;
    std::vector<std::uint16_t> timers;
    for (int piece = 0; piece < pieces; ++piece) {
      Sim sim(exec, graph, seed, options);
      Interventions<Sim, Model> interventions(sim, model, s, steps);
      if (piece == 0) {
        model.initialise(sim, graph.num_agents());
        if (seeds) {
          auto const first = to_vector(model.state.current());
          for (std::size_t i = 0; i < first.size(); ++i)
            if (first[i] != Model::susceptible) seeds->insert(household[i]);
        }
      } else {
        sim.set_step(static_cast<std::uint32_t>(piece * steps / pieces));
        if (interventions.isolates()) {
          auto const host = Kokkos::create_mirror_view(interventions.isolation_timers().current());
          std::copy(timers.begin(), timers.end(), host.data());
          Kokkos::deep_copy(interventions.isolation_timers().current(), host);
          interventions.restore_isolation(sim);
        }
      }
      auto const history = to_vector(run_scenario(sim, model, steps / pieces, interventions));
      out.insert(out.end(), history.begin(), history.end());
      if (interventions.isolates()) timers = to_vector(interventions.isolation_timers().current());
      if (options.stepping == Stepping::pull && options.weight_codes) {
        EXPECT_GT(sim.code_bytes_per_edge(), 0) << "the pulled sums add by code";
      }
    }
    for (auto state : to_vector(model.state.current())) out.push_back(state);
    return out;
  };
  std::set<agent_index> homes;
  auto const isolated = run_with(scenario, herd::test::stepping_options(Stepping::pull), 1, &homes);
  ASSERT_EQ(homes.size(), 40u);
  auto const n = static_cast<std::size_t>(graph.num_agents());
  auto const at_home = herd::test::infections_at_home(isolated, household, homes);
  EXPECT_EQ(at_home.away, 0u) << "infections away from the seeds' households";
  EXPECT_GT(at_home.infected, 60u) << "the infection spread within the households";
  EXPECT_LE(at_home.infected, at_home.living_there);

  StepOptions uncoded;
  uncoded.weight_codes = false;
  EXPECT_EQ(run_with(scenario, uncoded, 1, nullptr), isolated) << "without the weights' codes";
  EXPECT_EQ(run_with(scenario, herd::test::stepping_options(Stepping::active), 1, nullptr), isolated) << "active";
  EXPECT_EQ(run_with(scenario, herd::test::stepping_options(Stepping::automatic), 1, nullptr), isolated) << "automatic";
  for (auto schedule : {Schedule::vector, Schedule::team, Schedule::edge}) {
    StepOptions scheduled;
    scheduled.schedule = schedule;
    EXPECT_EQ(run_with(scenario, scheduled, 1, nullptr), isolated) << "schedule " << static_cast<int>(schedule);
  }
  auto pieces = run_with(scenario, herd::test::stepping_options(Stepping::active), 2, nullptr);
  // The second piece's history starts with the row the first one ended with.
  auto const row = static_cast<std::ptrdiff_t>((isolated.size() - n) / static_cast<std::size_t>(steps + 1));
  pieces.erase(pieces.begin() + (steps / 2 + 1) * row, pieces.begin() + (steps / 2 + 2) * row);
  EXPECT_EQ(pieces, isolated) << "in two pieces, resumed through restore_isolation";

  auto const open = run_with(Scenario{}, herd::test::stepping_options(Stepping::pull), 1, nullptr);
  EXPECT_GT(herd::test::infections_at_home(open, household, homes).away, 100u)
      << "without isolation the infection leaves home";
}

// SIR with a fixed infectious period whose infectious neighbours add a fixed hazard over every
// contact, open or closed: a model whose contribution over a weight of 0 is not 0. Its step is its
// own, so that every path sums its contributions (Seir's would sum Seir's).
template <class MemorySpace>
struct SirWithFloor : Seir<MemorySpace> {
  using Base = Seir<MemorySpace>;
  SirWithFloor(agent_index agents, SeirParameters const& p)
      : Base(agents, p), infectious_steps(static_cast<std::uint16_t>(p.infectious.steps)) {}
  std::uint16_t infectious_steps;

  template <class Weight>
  KOKKOS_INLINE_FUNCTION std::uint64_t contribution(agent_index j, Weight const& weight) const {
    return (this->activity(j) & activity::spreads) != 0 ? spreader_contribution(static_cast<float>(weight)) : 0;
  }
  KOKKOS_INLINE_FUNCTION std::uint64_t spreader_contribution() const { return spreader_contribution(1.0f); }
  KOKKOS_INLINE_FUNCTION std::uint64_t spreader_contribution(float w) const {
    return Base::spreader_contribution(w) + Base::edge_hazard_of(0.03, 1.0f);
  }

  template <class Simulation>
  void step(Simulation& sim) {
    sim.apply(*this, this->state, this->timer);
  }
  template <class Agent>
  KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
    agent_index const i = a.index();
    std::uint8_t const s = this->state(i);
    if (s == Base::susceptible) {
      std::uint64_t const hazard = a.sum_of_contributions(*this);
      if (hazard != 0 && happens_at_hazard(a.random(0), static_cast<double>(hazard) * (1.0 / 4294967296.0))) {
        a.set(this->state, Base::infectious);
        a.set(this->timer, infectious_steps);
      }
    } else if (s == Base::infectious) {
      std::uint16_t const t = this->timer(i);
      a.set(this->state, t <= 1 ? Base::recovered : Base::infectious);
      a.set(this->timer, static_cast<std::uint16_t>(t <= 1 ? 0 : t - 1));
    }
  }
};

// A contact that isolation closes counts what the model gives a weight of 0, however the sums read
// it: by code from the isolated table (entries open), edge by edge over the entries closed in
// place, or pushed by listed steps. A table that read a closed contact as 0 would differ.
TYPED_TEST(Isolation, ClosedContactsCountWhatTheModelGivesAWeightOfZero) {
  using Exec = TypeParam;
  using Sim = Simulation<Exec>;
  using Model = SirWithFloor<typename Exec::memory_space>;
  static_assert(sums_contacts_only_v<Model>);
  Exec exec;
  auto const graph = population_graph(exec, 20000);
  auto const p = sir(0.05, 4, 100);
  int const steps = 10;
  auto const scenario = population_scenario({isolation(1, steps, 0.5, 3)});
  auto const run_with = [&](StepOptions const& options) {
    Sim sim(exec, graph, seed, options);
    Model model(graph.num_agents(), p);
    model.initialise(sim, graph.num_agents());
    Interventions<Sim, Model> interventions(sim, model, scenario, steps);
    auto out = to_vector(run_scenario(sim, model, steps, interventions));
    if (options.stepping == Stepping::pull && options.weight_codes) {
      EXPECT_GT(sim.code_bytes_per_edge(), 0) << "the pulled sums add by code";
      EXPECT_FALSE(sim.closes_in_entries()) << "and leave the entries open";
    }
    for (auto state : to_vector(model.state.current())) out.push_back(state);
    return out;
  };
  auto const by_code = run_with(herd::test::stepping_options(Stepping::pull));
  StepOptions uncoded;
  uncoded.weight_codes = false;
  EXPECT_EQ(run_with(uncoded), by_code) << "edge by edge, over entries closed in place";
  EXPECT_EQ(run_with(herd::test::stepping_options(Stepping::active)), by_code) << "listed";
}

// Codes made where entries may close come in open and closed twins: a twin's weight is the
// code's, its layer byte differs by the closed bit, and its weight reads 0.
TYPED_TEST(Isolation, WeightCodesComeInOpenAndClosedTwins) {
  using Exec = TypeParam;
  Exec exec;
  LayeredPopulation spec;
  spec.agents = 3000;
  auto graph = build_csr(exec, generate_population(exec, spec, seed).edges);
  graph.layer_factors = Kokkos::View<float*, typename Exec::memory_space>("factors", layer_factor_slots);
  Kokkos::deep_copy(Kokkos::subview(graph.layer_factors, std::make_pair(0, max_layers)), 1.0f);
  auto const plain = Details::make_weight_codes(exec, graph);
  auto const twinned = Details::make_weight_codes(exec, graph, true);
  ASSERT_FALSE(plain.empty());
  ASSERT_EQ(twinned.palette.extent(0), 2 * plain.palette.extent(0));
  EXPECT_EQ(plain.twins.extent(0), 0u);
  auto const palette = to_vector(twinned.palette);
  auto const layers = to_vector(twinned.layers);
  auto const twins = to_vector(twinned.twins);
  auto const factors = to_vector(graph.layer_factors);
  for (std::size_t c = 0; c < palette.size(); ++c) {
    auto const t = twins[c];
    EXPECT_EQ(twins[t], c);
    EXPECT_EQ(palette[t], palette[c]);
    EXPECT_EQ(layers[t], layers[c] ^ closed_layer);
    EXPECT_EQ(palette[c] * factors[layers[c]] == 0.0f, (layers[c] & closed_layer) != 0) << "code " << c;
  }
  // Every entry's code names its (weight, layer byte).
  auto const codes = to_vector(twinned.codes);
  auto const weights = to_vector(graph.weights);
  auto const entry_layers = to_vector(graph.layers);
  for (std::size_t e = 0; e < codes.size(); ++e) {
    ASSERT_EQ(palette[codes[e]], weights[e]);
    ASSERT_EQ(layers[codes[e]], entry_layers[e]);
  }
}

// What isolation refuses, by name: a probability outside [0, 1], no steps, a layer the graph does
// not have, events keeping different layers, more events than a step's pass holds, a graph
// without layers, a layer byte that would read as closed, and a model that does not say who
// spreads.
TEST(IsolationEvents, BadIsolationsAreRefusedByName) {
  auto const message = [](Scenario const& scenario) {
    try {
      check(scenario);
    } catch (Error const& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  auto e = isolation(1, 5, 1.5, 3);
  e.label = "events[0]";
  EXPECT_EQ(message(population_scenario({e})), "events[0]: the probability of detection must lie in [0, 1], got 1.5");
  e.probability = 0.5;
  e.duration = 0;
  EXPECT_EQ(message(population_scenario({e})), "events[0]: an isolation lasts 1 to 32767 steps, got 0");
  e.duration = 3;
  e.keeps = {"home"};
  EXPECT_EQ(message(population_scenario({e})),
            "events[0]: unknown layer 'home' (the graph's layers: household, school, workplace, community)");
  e.keeps = {"household"};
  auto other = e;
  other.label = "events[1]";
  other.keeps = {};
  EXPECT_EQ(message(population_scenario({e, other})),
            "events[1]: every isolation event must keep the same layers (an agent's contacts close alike)");
  EXPECT_EQ(message(population_scenario(std::vector<ScenarioEvent>(9, e))),
            "events[0]: a scenario holds at most 8 isolation events");

  using Exec = Kokkos::DefaultHostExecutionSpace;
  using Sim = Simulation<Exec>;
  Exec exec;
  auto const graph = build_csr(exec, generate_edges(exec, ErdosRenyi{500, 4.0}, seed));
  Sim sim(exec, graph, seed);
  using Model = Seir<Exec::memory_space>;
  Model model(graph.num_agents(), SeirParameters{});
  Scenario unlayered;
  unlayered.events = {isolation(1, 5, 0.5, 3, {})};
  unlayered.events[0].label = "events[0]";
  try {
    Interventions<Sim, Model> interventions(sim, model, unlayered, 5);
    ADD_FAILURE() << "isolation on a graph without layers";
  } catch (Error const& error) {
    EXPECT_STREQ(error.what(), "events[0]: isolation closes contacts by their layer, and the graph has no layers");
  }
  // A layer byte from 128 up marks a closed entry: a graph made by hand with one is refused.
  auto marked = build_csr(exec, herd::test::edge_list<Exec>(3, {0, 1}, {1, 2}, {}, {1, 2}));
  Kokkos::deep_copy(Kokkos::subview(marked.layers, 0), layer_index{200});
  try {
    Sim refused(exec, marked, seed);
    ADD_FAILURE() << "a layer byte of 200";
  } catch (Error const& error) {
    EXPECT_STREQ(error.what(), "graph: layer 200, outside [0, 128)");
  }
  Opinion<Exec::memory_space> opinions(graph.num_agents(), OpinionParameters{});
  try {
    check(unlayered, opinions);
    ADD_FAILURE() << "isolation of a model that does not say who spreads";
  } catch (Error const& error) {
    EXPECT_STREQ(error.what(), "events[0]: the model does not say which agents spread (Model::activity)");
  }
}

// On a directed graph, pulled steps keep no graph of the rows that name an agent: closing
// contacts keeps a transpose, which the footprint counts (an offset per agent, an entry per edge).
TEST(IsolationEvents, TheFootprintCountsTheTransposeKeptForClosing) {
  using Exec = Kokkos::DefaultHostExecutionSpace;
  Exec exec;
  BuildOptions directed;
  directed.symmetrise = false;
  auto const graph = build_csr(
      exec, herd::test::edge_list<Exec>(4, {0, 1, 2, 3}, {1, 2, 3, 0}, {1.0f, 1.0f, 1.0f, 1.0f}, {0, 1, 0, 1}),
      directed);
  StepOptions options;
  options.stepping = Stepping::pull;
  Simulation<Exec> sim(exec, graph, 3, options);
  Seir<Exec::memory_space> model(graph.num_agents(), SeirParameters{});
  sim.prepare(model);
  auto const open = sim.footprint(model);
  sim.allow_closed_contacts();
  sim.prepare(model);  // the weights' codes again, in open and closed twins
  auto const closable = sim.footprint(model);
  // The transpose's offsets, and two more maps of spreader bits (who spreads free, who is isolated).
  EXPECT_EQ(closable.bytes_per_agent - open.bytes_per_agent, static_cast<double>(sizeof(edge_offset)) + 2.0 / 8);
  EXPECT_EQ(closable.bytes_per_edge - open.bytes_per_edge,
            static_cast<double>(sizeof(agent_index) + sizeof(float) + sizeof(layer_index)));
}

}  // namespace
