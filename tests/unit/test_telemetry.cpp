#include "test_common.hpp"

#include <herd/engine/telemetry.hpp>

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
  e.sim.set_stepping(Stepping::active, true);
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
