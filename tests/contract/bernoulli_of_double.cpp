// A model that gives bernoulli a probability as a double, which would convert to a threshold of 0
// and never happen: it must not compile (tests/CMakeLists.txt expects the message naming
// herd::to_threshold). The model is final, which the contract's checks must also take.

#include <herd/herd.hpp>

namespace {

template <class MemorySpace>
struct Flip final {
  herd::Property<std::uint8_t, MemorySpace> on;

  template <class Sim>
  void step(Sim& sim) {
    sim.apply(*this, on);
  }
  template <class Agent>
  KOKKOS_INLINE_FUNCTION void operator()(Agent const& a) const {
    if (a.bernoulli(0, 0.5)) a.set(on, 1);
  }
};

}  // namespace

int main() {
  using Exec = Kokkos::DefaultExecutionSpace;
  herd::Simulation<Exec> sim(Exec(), herd::CsrGraph<Exec::memory_space>{}, 1);
  Flip<Exec::memory_space> model;
  sim.apply(model, model.on);
}
