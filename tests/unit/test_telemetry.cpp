#include "test_common.hpp"

#include <herd/engine/telemetry.hpp>

#include <array>
#include <type_traits>

namespace {

using namespace herd;
using Exec = Kokkos::DefaultExecutionSpace;
using Memory = Exec::memory_space;

constexpr bool device_is_host = std::is_same_v<Memory, Kokkos::HostSpace>;

struct Epidemic {
  CsrGraph<Memory> graph = herd::test::generated_graph<Exec>(ErdosRenyi{20000, 8.0}, 5);
  Simulation<Exec> sim{Exec(), graph, 7};
  Seir<Memory> model{graph.num_agents(), SeirParameters{}};
  Epidemic() { model.initialise(sim, graph.num_agents()); }
};

double sum_of_phases(Telemetry const& t) {
  double sum = 0.0;
  for (int p = 0; p < loop_phase_count; ++p) sum += t.seconds(static_cast<LoopPhase>(p));
  return sum;
}

// The plain pull loop allocates nothing and copies nothing; its time is in the step kernels and
// the reductions, none in a halo it does not have.
TEST(Telemetry, PullLoopAllocatesAndCopiesNothing) {
  Epidemic e;
  Telemetry telemetry;
  run(e.sim, e.model, 40, NoProgress{}, &telemetry);
  EXPECT_EQ(telemetry.steps(), 40);
  EXPECT_EQ(telemetry.memory().allocations, 0);
  EXPECT_EQ(telemetry.memory().deep_copies, 0);
  EXPECT_GT(telemetry.seconds(LoopPhase::step), 0.0);
  EXPECT_GT(telemetry.seconds(LoopPhase::reduce), 0.0);
  EXPECT_EQ(telemetry.seconds(LoopPhase::halo_pack), 0.0);
  EXPECT_EQ(telemetry.seconds(LoopPhase::halo_wait), 0.0);
  EXPECT_EQ(telemetry.seconds(LoopPhase::halo_unpack), 0.0);
  EXPECT_EQ(telemetry.messages_sent(), 0);
  EXPECT_EQ(telemetry.stepping().steps, 40);
  EXPECT_EQ(telemetry.stepping().active_steps, 0);
  EXPECT_DOUBLE_EQ(telemetry.stepping().mean_active_share(), 1.0);
  EXPECT_DOUBLE_EQ(telemetry.total_seconds(), sum_of_phases(telemetry));
}

// What the progress callback allocates and copies is counted exactly, and charged to output.
TEST(Telemetry, CountsTheOutputsAllocationsAndCopies) {
  Epidemic e;
  Telemetry telemetry;
  constexpr int values = 1000, every = 5, steps = 20;
  auto const output = [&](int step, int /*steps*/) {
    if (step % every != 0) return;
    Kokkos::View<double*, Memory> device(Kokkos::ViewAllocateWithoutInitializing("device"), values);
    Kokkos::View<double*, Kokkos::HostSpace> host(Kokkos::ViewAllocateWithoutInitializing("host"), values);
    Kokkos::deep_copy(host, device);
  };
  run(e.sim, e.model, steps, output, &telemetry);
  auto const& m = telemetry.memory();
  constexpr std::int64_t outputs = steps / every, bytes = values * sizeof(double);
  EXPECT_EQ(m.allocations, 2 * outputs);
  EXPECT_EQ(m.allocated_bytes, 2 * bytes * outputs);
  EXPECT_EQ(m.deep_copies, outputs);
  EXPECT_EQ(m.copied_bytes, bytes * outputs);
  EXPECT_EQ(m.cross_space_copies, device_is_host ? 0 : outputs);
  EXPECT_EQ(m.cross_space_bytes, device_is_host ? 0 : bytes * outputs);
  EXPECT_GT(telemetry.seconds(LoopPhase::output), 0.0);
}

// Active-set stepping allocates and copies nothing either (it reads its counts as the results of
// scans), and its maintenance is timed on its own.
TEST(Telemetry, ActiveStepsAllocateAndCopyNothing) {
  Epidemic e;
  e.sim.set_options(herd::test::stepping_options(Stepping::active));
  Telemetry telemetry;
  constexpr int steps = 30;
  run(e.sim, e.model, steps, NoProgress{}, &telemetry);
  EXPECT_EQ(telemetry.memory().allocations, 0);
  EXPECT_EQ(telemetry.memory().deep_copies, 0);
  EXPECT_GT(telemetry.seconds(LoopPhase::active_set), 0.0);
  EXPECT_EQ(telemetry.stepping().steps, steps);
  EXPECT_EQ(telemetry.stepping().active_steps, steps);
  EXPECT_LT(telemetry.stepping().mean_active_share(), 1.0);
}

// Two runs into one Telemetry add up.
TEST(Telemetry, RunsAddUp) {
  Epidemic e;
  Telemetry telemetry;
  run(e.sim, e.model, 10, NoProgress{}, &telemetry);
  double const first = telemetry.seconds(LoopPhase::step);
  run(e.sim, e.model, 15, NoProgress{}, &telemetry);
  EXPECT_EQ(telemetry.steps(), 25);
  EXPECT_GT(telemetry.seconds(LoopPhase::step), first);
}

// Step records are off unless asked for; asked for, there is one per step, numbered by the
// simulation's step count across runs, saying which steps were listed and how many agents they
// stepped, and their phases add up to no more than the loop's.
TEST(Telemetry, RecordsEveryStepWhenAsked) {
  Epidemic e;
  e.sim.set_options(herd::test::stepping_options(Stepping::automatic, default_active_threshold()));
  Telemetry plain;
  run(e.sim, e.model, 5, NoProgress{}, &plain);
  EXPECT_TRUE(plain.step_records().empty());

  Telemetry telemetry;
  telemetry.record_steps();
  constexpr int first = 25, second = 15;
  run(e.sim, e.model, first, NoProgress{}, &telemetry);
  run(e.sim, e.model, second, NoProgress{}, &telemetry);
  auto const& records = telemetry.step_records();
  ASSERT_EQ(records.size(), static_cast<std::size_t>(first + second));
  EXPECT_EQ(telemetry.memory().allocations, 0);
  std::array<double, loop_phase_count> sums{};
  std::int64_t listed = 0;
  double share = 0.0;
  agent_index const agents = e.graph.num_agents();
  for (std::size_t k = 0; k < records.size(); ++k) {
    auto const& r = records[k];
    EXPECT_EQ(r.step, 5 + static_cast<std::int64_t>(k) + 1);
    if (r.listed) {
      ++listed;
      EXPECT_LT(r.stepped, agents);
    } else {
      EXPECT_EQ(r.stepped, agents);
    }
    share += static_cast<double>(r.stepped) / agents;
    double total = 0.0;
    for (int p = 0; p < loop_phase_count; ++p) {
      EXPECT_GE(r.seconds[p], 0.0);
      sums[p] += r.seconds[p];
      total += r.seconds[p];
    }
    EXPECT_DOUBLE_EQ(r.total_seconds(), total);
    EXPECT_GT(r.seconds[static_cast<int>(LoopPhase::step)], 0.0);
  }
  // From 10 seeds the automatic mode lists the first steps and pulls around the peak.
  EXPECT_GT(listed, 0);
  EXPECT_LT(listed, static_cast<std::int64_t>(records.size()));
  EXPECT_EQ(listed, telemetry.stepping().active_steps);
  EXPECT_NEAR(share / records.size(), telemetry.stepping().mean_active_share(), 1e-12);
  // The loop's totals hold the steps and, besides them, the observations before the first steps
  // and the final sums.
  for (int p = 0; p < loop_phase_count; ++p) EXPECT_LE(sums[p], telemetry.seconds(static_cast<LoopPhase>(p)) + 1e-12);
  EXPECT_GT(telemetry.seconds(LoopPhase::reduce), sums[static_cast<int>(LoopPhase::reduce)]);
}

// A stand-in for a Kokkos Tools library: callbacks set before the run.
struct Tool {
  static inline int allocations = 0;
  static inline int kernels = 0;
  static void allocate(Kokkos::Profiling::SpaceHandle, char const*, void const*, std::uint64_t) { ++allocations; }
  static void begin_for(char const*, std::uint32_t, std::uint64_t*) { ++kernels; }
};

// Telemetry passes every event on to a tool already listening, and gives the callbacks back.
TEST(Telemetry, KokkosToolsKeepReceivingEvents) {
  namespace tools = Kokkos::Tools::Experimental;
  Epidemic e;
  auto const original = tools::get_callbacks();
  auto with_tool = original;
  with_tool.allocate_data = Tool::allocate;
  with_tool.begin_parallel_for = Tool::begin_for;
  tools::set_callbacks(with_tool);
  Tool::allocations = Tool::kernels = 0;
  Telemetry telemetry;
  run(
      e.sim, e.model, 6,
      [](int step, int) {
        if (step % 2 == 0) {
          Kokkos::View<int*, Memory> const scratch(Kokkos::ViewAllocateWithoutInitializing("scratch"), 10);
        }
      },
      &telemetry);
  auto const after = tools::get_callbacks();
  tools::set_callbacks(original);
  EXPECT_EQ(telemetry.memory().allocations, 3);
  // The tool also sees what run() allocates before its loop starts: the history and one row of
  // scratch.
  EXPECT_EQ(Tool::allocations, 5);
  EXPECT_GT(Tool::kernels, 6);
  EXPECT_EQ(after.allocate_data, &Tool::allocate);
  EXPECT_EQ(after.begin_parallel_for, &Tool::begin_for);
}

}  // namespace
