#include "test_common.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

// Trajectories recorded once, as numbers, and checked on every backend, compiler and build that
// runs the tests: the other tests compare one build's runs with each other (schedules, threads,
// stepping modes, ranks), which cannot show that a GPU, another compiler or another Kokkos gives
// other bits than the CPU build did. Each number is a 64-bit FNV-1a hash of every property of every
// agent after the run and of the history of observables. A change to a model's draws or arithmetic
// changes them on purpose; it then records the new numbers and says that a seed's trajectories
// differ from those of earlier versions.

namespace {

using namespace herd;
// CUDA's headers declare a global ::half too; name Herd's.
using herd::half;
using herd::test::Fingerprint;
using herd::test::to_vector;

std::string hex(std::uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016" PRIx64, v);
  return text;
}

// Runs `model` for `steps` steps and hashes its properties and history. Epidemic models run
// pulled and with automatic stepping, which must give the same number.
template <class Exec, class WeightStorage, class Model>
std::uint64_t fingerprint(CsrGraph<typename Exec::memory_space, WeightStorage> const& graph, Model model, int steps,
                          Stepping stepping, bool symmetric) {
  Simulation<Exec, WeightStorage> sim(Exec(), herd::test::said_symmetric(graph, symmetric), 2026,
                                      herd::test::stepping_options(stepping, default_active_threshold()));
  model.initialise(sim, graph.num_agents());
  auto const history = to_vector(run(sim, model, steps));
  // The run went somewhere: a hash of agents that never changed would prove little.
  auto const k = static_cast<std::size_t>(model.num_observables());
  EXPECT_FALSE(std::equal(history.begin(), history.begin() + k, history.end() - k)) << Exec::name();
  Fingerprint f;
  model.for_each_property([&](auto const& p) { f.add(to_vector(p.current())); });
  f.add(history);
  return f.value();
}

template <class Exec>
using Graph = CsrGraph<typename Exec::memory_space>;

template <class Exec>
Graph<Exec> symmetric(Exec const& exec, ErdosRenyi const& spec) {
  return build_csr(exec, generate_edges(exec, spec, 11));
}

template <class ExecutionSpace>
class KnownTrajectories : public ::testing::Test {};
TYPED_TEST_SUITE(KnownTrajectories, herd::test::ExecutionSpaces);

SeirParameters sir() {
  SeirParameters p;
  p.beta = 0.06;
  p.infectious = Period::fixed(4);
  p.initial_infected = 10;
  return p;
}

TYPED_TEST(KnownTrajectories, Sir) {
  using Exec = TypeParam;
  Exec const exec;
  auto const graph = symmetric(exec, ErdosRenyi{20000, 8.0});
  for (auto stepping : {Stepping::pull, Stepping::automatic}) {
    auto const f = fingerprint<Exec>(graph, Seir<typename Exec::memory_space>(20000, sir()), 60, stepping, true);
    EXPECT_EQ(hex(f), "0x63005c974a53635a") << Exec::name();
  }
}

TYPED_TEST(KnownTrajectories, SeirWithGeometricPeriodsOnAPowerLawGraph) {
  using Exec = TypeParam;
  Exec const exec;
  SeirParameters p = sir();
  p.latent = Period::geometric(0.4);
  p.infectious = Period::geometric(0.2);
  auto const graph = build_csr(exec, generate_edges(exec, PowerLaw{20000, 2.2, 8.0, 0.0}, 12));
  for (auto stepping : {Stepping::pull, Stepping::automatic}) {
    auto const f = fingerprint<Exec>(graph, Seir<typename Exec::memory_space>(20000, p), 60, stepping, true);
    EXPECT_EQ(hex(f), "0x6c99cf57ede80e31") << Exec::name();
  }
}

// The weighted population: each contact's hazard is -ln(1 - beta w) in floating point, with the
// weights stored in 4 and in 2 bytes. A pair that two layers join has an edge in each (these
// numbers changed when the population kept its layers).
template <class Exec, class WeightStorage>
void seir_on_the_population(char const* expected) {
  Exec const exec;
  SeirParameters p = sir();
  p.beta = 0.15;
  p.latent = Period::fixed(2);
  LayeredPopulation spec;
  spec.agents = 20000;
  auto const graph = build_csr<WeightStorage>(exec, generate_population(exec, spec, 13).edges);
  for (auto stepping : {Stepping::pull, Stepping::automatic}) {
    auto const f = fingerprint<Exec>(graph, Seir<typename Exec::memory_space>(20000, p), 60, stepping, true);
    EXPECT_EQ(hex(f), expected) << Exec::name();
  }
}

TYPED_TEST(KnownTrajectories, SeirOnThePopulationWithFloatWeights) {
  seir_on_the_population<TypeParam, float>("0x5b42840ee4c774cb");
}

TYPED_TEST(KnownTrajectories, SeirOnThePopulationWithHalfWeights) {
  seir_on_the_population<TypeParam, half>("0x269a52677839062f");
}

TYPED_TEST(KnownTrajectories, VoterAndMajority) {
  using Exec = TypeParam;
  Exec const exec;
  auto const graph = build_csr(exec, generate_edges(exec, WattsStrogatz{20000, 4, 0.1}, 14));
  using Model = Opinion<typename Exec::memory_space>;
  EXPECT_EQ(hex(fingerprint<Exec>(graph, Model(20000, {OpinionRule::voter, 0.4}), 40, Stepping::pull, true)),
            "0xebb901b0790bc29e")
      << Exec::name();
  EXPECT_EQ(hex(fingerprint<Exec>(graph, Model(20000, {OpinionRule::majority, 0.45}), 40, Stepping::pull, true)),
            "0x777da9fb3df706aa")
      << Exec::name();
}

// Opinions in float and in half storage, averaged over all neighbours (DeGroot) and over the
// close ones only (bounded confidence).
TYPED_TEST(KnownTrajectories, ContinuousOpinions) {
  using Exec = TypeParam;
  Exec const exec;
  using Memory = typename Exec::memory_space;
  auto const graph = symmetric(exec, ErdosRenyi{20000, 8.0});
  EXPECT_EQ(hex(fingerprint<Exec>(graph, Consensus<float, Memory>(20000, {1.0}), 30, Stepping::pull, true)),
            "0xfbeea5c5beb2f362")
      << Exec::name();
  EXPECT_EQ(hex(fingerprint<Exec>(graph, Consensus<half, Memory>(20000, {1.0}), 30, Stepping::pull, true)),
            "0xdd1f813609492ac8")
      << Exec::name();
  EXPECT_EQ(hex(fingerprint<Exec>(graph, Consensus<half, Memory>(20000, {0.2}), 30, Stepping::pull, true)),
            "0x18b3a8f69f426eec")
      << Exec::name();
}

// COVID on a directed graph, with three age groups drawn from their shares: the force of infection
// and the infectiousness profile in floating point, the exposure as 1 - exp(-force).
TYPED_TEST(KnownTrajectories, CovidOnADirectedGraph) {
  using Exec = TypeParam;
  Exec const exec;
  CovidParameters p;
  p.transmission_rate = 8.0;
  p.initial_exposed = 40;
  p.age_groups = {{"young", 0.5, 2.0, 1.0}, {"adult", 1.0, 3.0, 2.0}, {"old", 1.5, 4.0, 1.0}};
  BuildOptions directed;
  directed.symmetrise = false;
  auto const graph = build_csr(exec, generate_edges(exec, ErdosRenyi{20000, 6.0}, 15), directed);
  for (auto stepping : {Stepping::pull, Stepping::automatic}) {
    auto const f = fingerprint<Exec>(graph, Covid<typename Exec::memory_space>(20000, p), 40, stepping, false);
    EXPECT_EQ(hex(f), "0x53929b934ebd9dcc") << Exec::name();
  }
}

}  // namespace
