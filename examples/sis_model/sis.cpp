// A user-defined model outside the library: SIS (susceptible-infected-susceptible) on a random
// graph. Prints the infected count every 10 steps; the endemic level is about 1 - gamma/(c beta).
#include <herd/herd.hpp>

#include <cstdio>

template <class MemorySpace>
struct Sis {
  herd::Property<std::uint8_t, MemorySpace> infected;  // read by neighbours, so double-buffered
  herd::probability_threshold beta, gamma;             // per contact and per step

  template <class Sim>
  void step(Sim& sim) {
    sim.apply(*this, infected);
  }

  template <class Agent>
  KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
    auto const& inf = infected;  // a reference: a copy would copy its Views for every agent
    if (inf(a.index())) {
      if (a.bernoulli(0, gamma)) a.set(infected, 0);
      return;
    }
    int const k = a.count_neighbours([&](herd::agent_index j, float) { return inf(j) == 1; });
    for (int n = 0; n < k; ++n)
      if (a.bernoulli(1 + n, beta)) {
        a.set(infected, 1);
        break;
      }
  }
  static constexpr int num_observables() { return 2; }
  KOKKOS_INLINE_FUNCTION void observe(herd::agent_index i, std::int64_t* totals) const { ++totals[infected(i)]; }
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Exec = Kokkos::DefaultExecutionSpace;
  Exec exec;
  auto graph = herd::build_csr(exec, herd::generate_edges(exec, herd::ErdosRenyi{100000, 10.0}, 7));
  herd::Simulation<Exec> sim(exec, graph, 7);
  Sis<Exec::memory_space> model{{"infected", graph.num_agents()}, herd::to_threshold(0.05), herd::to_threshold(0.2)};
  Kokkos::deep_copy(Kokkos::subview(model.infected.current(), Kokkos::make_pair(0, 1000)), 1);
  auto history = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), herd::run(sim, model, 200));
  for (int t = 0; t <= 200; t += 10) std::printf("step %3d infected %6lld\n", t, (long long)history(t, 1));
  // The mean-field endemic fraction 1 - gamma / (c beta) = 0.6; pair correlations lower it a little.
  double const endemic = history(200, 1) / 100000.0;
  return endemic > 0.45 && endemic < 0.65 ? 0 : 1;
}
