// A property of bool: checkpoints store it as a byte, which read back could hold neither value, so
// it must not compile (tests/CMakeLists.txt expects the message that names the types allowed).

#include <herd/agents/property.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  herd::Property<bool, Kokkos::HostSpace> flag("flag", 4);
  return flag.stored(0) ? 1 : 0;
}
