// A model whose spreader_contribution takes a double: the engine calls spreader_contribution() or
// spreader_contribution(float), so this model must not compile (tests/CMakeLists.txt expects the
// contract's message).

#include <herd/herd.hpp>

namespace {

template <class MemorySpace>
struct Sis {
  herd::Property<std::uint8_t, MemorySpace> infected;

  template <class Sim>
  void step(Sim& sim) {
    sim.apply(*this, infected);
  }
  template <class Agent>
  KOKKOS_INLINE_FUNCTION void operator()(Agent const&) const {}
  KOKKOS_INLINE_FUNCTION std::uint8_t activity(herd::agent_index i) const {
    return infected(i) ? herd::activity::source : herd::activity::receives;
  }
  KOKKOS_INLINE_FUNCTION std::uint32_t contribution(herd::agent_index j, float) const { return infected(j); }
  KOKKOS_INLINE_FUNCTION std::uint32_t spreader_contribution(double) const { return 1; }
};

}  // namespace

int main() {
  using Exec = Kokkos::DefaultExecutionSpace;
  herd::Simulation<Exec> sim(Exec(), herd::CsrGraph<Exec::memory_space>{}, 1);
  Sis<Exec::memory_space> model;
  sim.apply(model, model.infected);
}
