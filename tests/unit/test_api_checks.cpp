// What the library refuses of a user's code, where the step would otherwise read or write beyond
// a View, or a run would silently give another result.
#include "test_common.hpp"

#include <cmath>
#include <cstdint>
#include <string>

namespace {

using namespace herd;
// CUDA's headers declare a global ::half too; name Herd's.
using herd::half;
using Exec = Kokkos::DefaultHostExecutionSpace;
using Memory = Exec::memory_space;

using herd::test::error_of;

// A model that lists no properties: only what its phase writes can be checked.
struct Flags {
  Property<std::uint8_t, Memory> flag;
  template <class Sim>
  void step(Sim& sim) {
    sim.apply(*this, flag);
  }
  template <class Agent>
  KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
    a.set(flag, 1);
  }
};

// Flags with as many observables as it is told, counting nothing.
struct Observed : Flags {
  int observables = 0;
  int num_observables() const { return observables; }
  KOKKOS_INLINE_FUNCTION void observe(agent_index, std::int64_t*) const {}
};

// A negative observable count would reach the history's View as an invalid extent, and step 2^32
// would draw step 0's numbers again.
TEST(ApiChecks, RunRefusesNegativeObservablesAndStepsPast2To32) {
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{200, 4.0}, 3);
  Simulation<Exec> sim(Exec(), graph, 7);
  Observed model{{Property<std::uint8_t, Memory>("flag", graph.num_agents())}, -1};
  auto said = error_of([&] { run(sim, model, 2); });
  EXPECT_NE(said.find("num_observables() is -1"), std::string::npos) << said;
  model.observables = 1;
  sim.set_step(0xFFFFFFFEu);
  said = error_of([&] { run(sim, model, 2); });
  EXPECT_NE(said.find("2 steps from step 4294967294 pass step 2^32 - 1"), std::string::npos) << said;
  EXPECT_EQ(error_of([&] { run(sim, model, 1); }), "no error");
  EXPECT_EQ(sim.step(), 0xFFFFFFFFu);
}

TEST(ApiChecks, APropertySizedForAnotherSimulationIsRefused) {
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{2000, 6.0}, 3);
  Simulation<Exec> sim(Exec(), graph, 7);
  Seir<Memory> small(100, SeirParameters{});
  auto const said = error_of([&] { small.initialise(sim, sim.num_global()); });
  EXPECT_NE(said.find("property 'state' holds 100 values for the 2000 agents the simulation stores"), std::string::npos)
      << said;
  // Sized right, then replaced: the step loop checks again before it starts.
  Seir<Memory> model(2000, SeirParameters{});
  model.initialise(sim, sim.num_global());
  model.timer = Property<std::uint16_t, Memory>("timer", 3000, Visibility::own);
  EXPECT_NE(error_of([&] { run(sim, model, 2); }).find("property 'timer' holds 3000 values"), std::string::npos);
  // A model that lists no properties is stopped at the phase that would write beyond one.
  Flags flags{Property<std::uint8_t, Memory>("flag", 10)};
  sim.prepare(flags);
  EXPECT_NE(error_of([&] { flags.step(sim); }).find("property 'flag' holds 10 values"), std::string::npos);
  // One never given its agents says so, not that a name could not be cut from its label.
  Flags unmade;
  sim.prepare(unmade);
  EXPECT_NE(error_of([&] {
              unmade.step(sim);
            }).find("a property without a name (default-constructed?) holds 0 values for the 2000 agents"),
            std::string::npos)
      << error_of([&] { unmade.step(sim); });
}

// Flags whose phase is given its property twice: the buffers would swap twice, and the step's
// writes be lost without a word.
struct FlagsTwice : Flags {
  template <class Sim>
  void step(Sim& sim) {
    sim.apply(*this, flag, flag);
  }
};

TEST(ApiChecks, APropertyWrittenTwiceByOnePhaseIsRefused) {
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{200, 4.0}, 3);
  Simulation<Exec> sim(Exec(), graph, 7);
  FlagsTwice twice{{Property<std::uint8_t, Memory>("flag", graph.num_agents())}};
  sim.prepare(twice);
  EXPECT_EQ(error_of([&] { twice.step(sim); }),
            "apply: property 'flag' is given twice among the properties a phase writes: its buffers would swap "
            "twice, and the phase's writes be lost");
  // Given once, the phase's writes are there after the step.
  Flags once{twice.flag};
  once.step(sim);
  auto const flags = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), once.flag.current());
  EXPECT_EQ(flags(0), 1);
}

TEST(ApiChecks, ANaNActiveThresholdIsRefused) {
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{1000, 6.0}, 3);
  StepOptions options;
  options.stepping = Stepping::automatic;
  options.active_threshold = std::nan("");
  EXPECT_NE(error_of([&] { Simulation<Exec> sim(Exec(), graph, 7, options); }).find("NaN is not a threshold"),
            std::string::npos);
  Simulation<Exec> sim(Exec(), graph, 7);
  EXPECT_NE(error_of([&] { sim.set_options(options); }).find("NaN is not a threshold"), std::string::npos);
}

TEST(ApiChecks, APopulationOtherThanTheSimulationsIsRefused) {
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{1000, 6.0}, 3);
  Simulation<Exec> sim(Exec(), graph, 7);
  Seir<Memory> model(1000, SeirParameters{});
  auto const said = error_of([&] { model.initialise(sim, 1000000); });
  EXPECT_NE(said.find("a population of 1000000 agents for a simulation of 1000"), std::string::npos) << said;
}

TEST(ApiChecks, HalfWeightsAbove65504AreRefusedBySimulation) {
  // A weight half precision cannot hold becomes infinite: a contact closed by a factor of 0 would
  // weigh NaN, and still transmit.
  auto const edges = herd::test::edge_list<Exec>(4, {0, 1, 2}, {1, 2, 3}, {1.0f, 1e5f, 2.0f});
  auto const graph = build_csr<half>(Exec(), edges);
  auto const said = error_of([&] { Simulation<Exec, half> sim(Exec(), graph, 7); });
  EXPECT_NE(said.find("holds contact weights above 65504"), std::string::npos) << said;
  // In 32 bits the weight is kept.
  Simulation<Exec> sim(Exec(), build_csr(Exec(), edges), 7);
  EXPECT_EQ(sim.num_agents(), 4);
}

TEST(ApiChecks, GlobalIdsMustNumberTheAgents) {
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{1000, 6.0}, 3);
  auto ids_of = [](std::vector<global_id> const& values) {
    Kokkos::View<global_id*, Memory> ids("ids", values.size());
    Kokkos::deep_copy(
        ids, Kokkos::View<global_id const*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(values.data(), values.size()));
    return ids;
  };
  std::vector<global_id> reversed(1000);
  for (global_id i = 0; i < 1000; ++i) reversed[static_cast<std::size_t>(i)] = 999 - i;
  Simulation<Exec> numbered(Exec(), graph, 7, {}, ids_of(reversed));
  EXPECT_EQ(numbered.num_agents(), 1000);
  auto repeated = reversed;
  repeated[5] = repeated[6];
  auto outside = reversed;
  outside[0] = -1;
  outside[1] = 1000;
  for (auto const& [values, wrong] : {std::pair{repeated, "1 lie"}, std::pair{outside, "2 lie"}}) {
    auto const ids = ids_of(values);  // a structured binding is not captured before C++20
    auto const said = error_of([&] { Simulation<Exec> sim(Exec(), graph, 7, {}, ids); });
    EXPECT_NE(said.find("the global ids must number the 1000 agents 0 to 999, each once: " + std::string(wrong)),
              std::string::npos)
        << said;
  }
}

// Observed that imports infect: it lists no properties, which one process's events do not need.
struct Importable : Observed {
  KOKKOS_INLINE_FUNCTION bool infect(agent_index i) const {
    if (flag(i) != 0) return false;
    flag.overwrite(i, 1);
    return true;
  }
};

// Interventions' lists of agents index the simulation they were made with: another one, smaller,
// would be written beyond its Views.
TEST(ApiChecks, EventsNeedNoPropertyListOnOneProcessAndRefuseAnotherSimulation) {
  auto const graph = herd::test::generated_graph<Exec>(ErdosRenyi{2000, 6.0}, 3);
  Simulation<Exec> sim(Exec(), graph, 7);
  Importable model{{{Property<std::uint8_t, Memory>("flag", graph.num_agents())}, 0}};
  Scenario scenario;
  ScenarioEvent importation;
  importation.kind = ScenarioEvent::Kind::importation;
  importation.count = 5;
  importation.last = 3;
  scenario.events.push_back(importation);
  Interventions<Simulation<Exec>, Importable> events(sim, model, scenario, 5);
  EXPECT_EQ(error_of([&] { run_scenario(sim, model, 2, events); }), "no error");
  EXPECT_EQ(events.counts().extent(0), 6u);
  auto const small = herd::test::generated_graph<Exec>(ErdosRenyi{500, 6.0}, 4);
  Simulation<Exec> other(Exec(), small, 7);
  other.set_step(2);
  Importable other_model{{{Property<std::uint8_t, Memory>("flag", small.num_agents())}, 0}};
  auto said = error_of([&] { run_scenario(other, other_model, 2, events); });
  EXPECT_NE(said.find("run_scenario: the simulation stores 500 agents (500 owned); the events were made for one of "
                      "2000 (2000 owned)"),
            std::string::npos)
      << said;
  said = error_of([&] { events(other, other_model, 3); });
  EXPECT_NE(said.find("scenario: step 3: the simulation stores 500 agents; the events were made for 2000"),
            std::string::npos)
      << said;
}

// A network filled by hand whose busy windows name snapshots it lacks, or lie beyond its windows:
// the steps would index past its graphs.
TEST(ApiChecks, ATemporalNetworksBusyWindowsMustMatchItsSnapshots) {
  Exec exec;
  TimedContacts contacts;
  contacts.num_agents = 3;
  contacts.times = {0, 10};
  contacts.first = {0, 1};
  contacts.second = {1, 2};
  auto const network = build_temporal_network(exec, contacts, 10);
  ASSERT_EQ(network.busy.size(), 2u);
  auto extra = network;
  extra.busy.push_back(extra.windows + 5);
  extra.windows += 10;
  auto said = error_of([&] { Simulation<Exec> sim(exec, extra, 1); });
  EXPECT_NE(said.find("temporal network: 3 busy windows for 3 snapshots"), std::string::npos) << said;
  auto beyond = network;
  beyond.busy.back() = beyond.windows;
  said = error_of([&] { Simulation<Exec> sim(exec, beyond, 1); });
  EXPECT_NE(said.find("the busy windows must ascend, each below the network's 2 windows"), std::string::npos) << said;
  auto descending = network;
  std::swap(descending.busy.front(), descending.busy.back());
  EXPECT_NE(error_of([&] { Simulation<Exec> sim(exec, descending, 1); }).find("must ascend"), std::string::npos);
  EXPECT_EQ(error_of([&] { Simulation<Exec> sim(exec, network, 1); }), "no error");
}

TEST(ApiChecks, AProbabilityIsClampedButNaNIsRefused) {
  EXPECT_EQ(to_threshold(-0.5), 0u);
  EXPECT_EQ(to_threshold(7.0), std::uint64_t{1} << 32);
  EXPECT_EQ(to_threshold(0.5), std::uint64_t{1} << 31);
  EXPECT_THROW(to_threshold(std::nan("")), Error);
}

}  // namespace
