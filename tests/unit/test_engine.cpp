#include "test_common.hpp"

#include <impl/Kokkos_Profiling.hpp>

namespace {

using namespace herd;
using herd::test::to_vector;

// Runs SEIR on `graph` and returns the final state of every agent in original ids, followed by
// the whole history: everything a trajectory consists of.
template <class Exec>
std::vector<std::int64_t> seir_trajectory(CsrGraph<typename Exec::memory_space> const& graph, Schedule schedule,
                                          Ordering ordering = Ordering::none, int steps = 30) {
  Exec exec;
  auto g = graph;
  Kokkos::View<global_id*, typename Exec::memory_space> ids;
  Permutation<typename Exec::memory_space> p;
  if (ordering != Ordering::none) {
    p = compute_ordering(exec, graph, ordering, 5);
    g = permute(exec, graph, p);
    ids = global_ids_of(exec, p);
  }
  Simulation<Exec> sim(exec, g, 1234, schedule, ids);
  SeirParameters params;
  params.beta = 0.2;
  params.latent = Period::geometric(0.5);
  params.infectious = Period::fixed(3);
  params.initial_infected = 20;
  Seir<typename Exec::memory_space> model(g.num_agents(), params);
  model.initialise(sim, g.num_agents());
  auto history = run(sim, model, steps);
  auto state = to_vector(model.state.current());
  std::vector<std::int64_t> out(state.size());
  std::vector<agent_index> old_of_new(state.size());
  if (ordering != Ordering::none) old_of_new = to_vector(p.old_of_new);
  for (std::size_t i = 0; i < state.size(); ++i) out[ordering != Ordering::none ? old_of_new[i] : i] = state[i];
  for (auto c : to_vector(history)) out.push_back(c);
  return out;
}

template <class ExecutionSpace>
class Engine : public ::testing::Test {};
TYPED_TEST_SUITE(Engine, herd::test::HostExecutionSpaces);

// The promise: one seed, one trajectory, whatever backend, thread count or schedule.
TYPED_TEST(Engine, TrajectoryIsIdenticalForEveryScheduleAndBackend) {
  using Exec = TypeParam;
  auto graph = herd::test::generated_graph<Exec>(PowerLaw{20000, 2.2, 8.0, 3000.0}, 3);
  auto const reference = seir_trajectory<Kokkos::DefaultHostExecutionSpace>(
      herd::test::generated_graph<Kokkos::DefaultHostExecutionSpace>(PowerLaw{20000, 2.2, 8.0, 3000.0}, 3),
      Schedule::thread);
  // The epidemic took off: otherwise the comparison would prove little.
  std::int64_t infected = 0;
  for (std::size_t i = 0; i < 20000; ++i) infected += reference[i] != Seir<>::susceptible;
  EXPECT_GT(infected, 2000);
  for (Schedule s : {Schedule::thread, Schedule::vector, Schedule::team, Schedule::hybrid, Schedule::automatic})
    EXPECT_EQ(seir_trajectory<Exec>(graph, s), reference) << to_string(s);
}

TYPED_TEST(Engine, HybridScheduleSplitsHubsFromLightAgents) {
  using Exec = TypeParam;
  auto graph = herd::test::generated_graph<Exec>(PowerLaw{20000, 2.2, 8.0, 3000.0}, 3);
  auto plan = make_step_plan(Exec(), graph, Schedule::hybrid, 500);
  EXPECT_GT(plan.hubs.extent(0), 0u);
  EXPECT_EQ(plan.light.extent(0) + plan.hubs.extent(0), 20000u);
  auto offsets = to_vector(graph.row_offsets);
  for (auto h : to_vector(plan.hubs)) EXPECT_GE(offsets[h + 1] - offsets[h], 500u);
  for (auto l : to_vector(plan.light)) EXPECT_LT(offsets[l + 1] - offsets[l], 500u);
  EXPECT_EQ(make_step_plan(Exec(), graph, Schedule::automatic).schedule, Schedule::thread);
  EXPECT_EQ(make_step_plan(Exec(), graph, Schedule::automatic, 1000).schedule, Schedule::hybrid);
}

TYPED_TEST(Engine, ReorderingDoesNotChangeTheTrajectory) {
  using Exec = TypeParam;
  auto graph = herd::test::generated_graph<Exec>(ErdosRenyi{20000, 6.0}, 8);
  auto const reference = seir_trajectory<Exec>(graph, Schedule::thread);
  EXPECT_EQ(seir_trajectory<Exec>(graph, Schedule::thread, Ordering::random), reference);
  EXPECT_EQ(seir_trajectory<Exec>(graph, Schedule::thread, Ordering::degree), reference);
  if (HERD_ENABLE_KOKKOSKERNELS) {
    EXPECT_EQ(seir_trajectory<Exec>(graph, Schedule::thread, Ordering::rcm), reference);
  }
}

// A model that sets a property for some agents only, in two phases: the others keep their value,
// and the second phase sees what the first wrote.
template <class MemorySpace>
struct TwoPhases {
  Property<std::int32_t, MemorySpace> value;
  Property<std::int32_t, MemorySpace> copy;

  struct AddOneToEven {
    Property<std::int32_t, MemorySpace> value;
    template <class Agent>
    KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
      if (a.index() % 2 == 0) a.set(value, value(a.index()) + 1);
    }
  };
  struct CopyNeighbourSum {
    Property<std::int32_t, MemorySpace> value, copy;
    template <class Agent>
    KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
      auto const v = value;
      a.set(copy, a.template sum_over_neighbours<std::int32_t>([&](agent_index j, float) { return v(j); }));
    }
  };
  template <class Sim>
  void step(Sim& sim) {
    sim.apply(AddOneToEven{value}, value);
    sim.apply(CopyNeighbourSum{value, copy}, copy);
  }
};

TYPED_TEST(Engine, UnwrittenAgentsKeepTheirValueAndPhasesSeeEachOther) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  auto graph = build_csr(Exec(), herd::test::edge_list<Exec>(4, {0, 1, 2}, {1, 2, 3}));
  for (Schedule s : {Schedule::thread, Schedule::vector, Schedule::team}) {
    Simulation<Exec> sim(Exec(), graph, 1, s);
    TwoPhases<Mem> model{Property<std::int32_t, Mem>("value", 4), Property<std::int32_t, Mem>("copy", 4)};
    Kokkos::deep_copy(model.value.current(), 10);
    for (int t = 0; t < 3; ++t) {
      model.step(sim);
      sim.end_step();
    }
    EXPECT_EQ(to_vector(model.value.current()), (std::vector<std::int32_t>{13, 10, 13, 10})) << to_string(s);
    // Path 0-1-2-3: sums of neighbours' values after the third step's first phase.
    EXPECT_EQ(to_vector(model.copy.current()), (std::vector<std::int32_t>{10, 26, 20, 13})) << to_string(s);
  }
}

// Kokkos Tools callbacks count allocations and deep copies made while the step loop runs.
TEST(Engine, StepLoopAllocatesAndCopiesNothing) {
  using Exec = Kokkos::DefaultExecutionSpace;
  auto graph = herd::test::generated_graph<Exec>(ErdosRenyi{10000, 8.0}, 2);
  Simulation<Exec> sim(Exec(), graph, 3);
  SeirParameters params;
  Seir<> model(graph.num_agents(), params);
  model.initialise(sim, graph.num_agents());
  History<Exec::memory_space> history("history", 51, model.num_observables());
  MemoryEventCounter counter;
  for (int t = 1; t <= 50; ++t) {
    model.step(sim);
    sim.end_step();
    sim.observe(model, Kokkos::subview(history, t, Kokkos::ALL()));
  }
  Kokkos::fence();
  EXPECT_EQ(counter.events().allocations, 0);
  EXPECT_EQ(counter.events().deep_copies, 0);
}

}  // namespace
