#pragma once

#include <herd/herd.hpp>

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include <unistd.h>

namespace herd::test {

namespace detail {
template <class... Spaces>
struct SpaceList {};

// `List` with `Space` appended unless it holds it already.
template <class List, class Space>
struct Append;
template <class... Spaces, class Space>
struct Append<SpaceList<Spaces...>, Space> {
  using type =
      std::conditional_t<(std::is_same_v<Space, Spaces> || ...), SpaceList<Spaces...>, SpaceList<Spaces..., Space>>;
};

template <class List>
struct AsGtestTypes;
template <class... Spaces>
struct AsGtestTypes<SpaceList<Spaces...>> {
  using type = ::testing::Types<Spaces...>;
};

using HostSpaces = SpaceList<
#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
    Kokkos::Serial, Kokkos::OpenMP
#elif defined(KOKKOS_ENABLE_OPENMP)
    Kokkos::OpenMP
#else
    Kokkos::Serial
#endif
    >;
}  // namespace detail

// Every backend this build has, each once: its host ones (Serial first, so that the two-thread run
// can leave it out as */0) and the default one, which is a GPU's in a GPU build. A typed test runs
// once per entry, so a test "on every backend" runs on the GPU too.
using ExecutionSpaces =
    detail::AsGtestTypes<typename detail::Append<detail::HostSpaces, Kokkos::DefaultExecutionSpace>::type>::type;

// Step options that choose the agents as `stepping` says, with `threshold` for the automatic mode
// (none: Herd's default for the backend), the others at their defaults.
inline StepOptions stepping_options(Stepping stepping, std::optional<double> threshold = {}) {
  StepOptions options;
  options.stepping = stepping;
  options.active_threshold = threshold;
  return options;
}

// `graph`, said to be symmetric or not: a symmetric graph pushes along its own rows, else through
// its transpose, which a test of a symmetric graph can ask for to compare the two.
template <class Graph>
Graph said_symmetric(Graph graph, bool symmetric) {
  graph.symmetric = symmetric;
  return graph;
}

// A file in the test's temporary folder that no other test process uses (CTest runs the unit tests
// on one and two threads at once, and two processes writing one file make tests flaky), removed
// when the test is done with it.
class TemporaryFile {
 public:
  explicit TemporaryFile(std::string const& name)
      : path_(::testing::TempDir() + "/herd_" + std::to_string(::getpid()) + "_" + name) {}
  TemporaryFile(TemporaryFile const&) = delete;
  TemporaryFile& operator=(TemporaryFile const&) = delete;
  ~TemporaryFile() { std::remove(path_.c_str()); }
  std::string const& path() const { return path_; }

 private:
  std::string path_;
};

// A 64-bit FNV-1a hash of the bytes of host vectors, to compare what runs produce on different
// backends and builds.
class Fingerprint {
 public:
  template <class T>
  void add(std::vector<T> const& values) {
    static_assert(std::is_trivially_copyable_v<T>);
    auto const* bytes = reinterpret_cast<unsigned char const*>(values.data());
    for (std::size_t k = 0; k < values.size() * sizeof(T); ++k) hash_ = (hash_ ^ bytes[k]) * 0x100000001b3ull;
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ull;
};

/// The message of the herd::Error `f` throws, or "no error".
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (Error const& e) {
    return e.what();
  }
  return "no error";
}

template <class View>
std::vector<typename View::non_const_value_type> to_vector(View const& view) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  return std::vector<typename View::non_const_value_type>(host.data(), host.data() + host.size());
}

template <class ExecutionSpace>
EdgeList<typename ExecutionSpace::memory_space> edge_list(agent_index agents, std::vector<global_id> const& sources,
                                                          std::vector<global_id> const& targets,
                                                          std::vector<float> const& weights = {},
                                                          std::vector<layer_index> const& layers = {}) {
  HostEdgeList host;
  host.num_agents = agents;
  host.sources = sources;
  host.targets = targets;
  host.weights = weights;
  host.layers = layers;
  return to_device(ExecutionSpace(), host);
}

template <class ExecutionSpace, class Spec>
CsrGraph<typename ExecutionSpace::memory_space> generated_graph(Spec const& spec, std::uint64_t seed) {
  ExecutionSpace exec;
  return build_csr(exec, generate_edges(exec, spec, seed));
}

/// Where a run's infections lie, from its last household.size() values (every agent's final
/// state, 0 susceptible): the agents infected, those of them away from `homes`, and the agents
/// that live in `homes`.
struct InfectionsAtHome {
  std::size_t infected = 0, away = 0, living_there = 0;
};
template <class Value>
InfectionsAtHome infections_at_home(std::vector<Value> const& run, std::vector<agent_index> const& household,
                                    std::set<agent_index> const& homes) {
  InfectionsAtHome count;
  auto const n = household.size();
  for (std::size_t i = 0; i < n; ++i) {
    bool const home = homes.count(household[i]) != 0;
    bool const infected = run[run.size() - n + i] != 0;
    count.living_there += home;
    count.infected += infected;
    count.away += infected && !home;
  }
  return count;
}

/// SIR's parameters (Seir without a latent period): infectious for `infectious_steps` steps.
inline SeirParameters sir(double beta, int infectious_steps, global_id initial_infected) {
  SeirParameters p;
  p.beta = beta;
  p.infectious = Period::fixed(infectious_steps);
  p.initial_infected = initial_infected;
  return p;
}

}  // namespace herd::test
