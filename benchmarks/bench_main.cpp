#include <herd/config.hpp>
#include <herd/core/kokkos_compat.hpp>

#include <benchmark/benchmark.h>
#include <Kokkos_Core.hpp>

#include <sstream>
#include <string>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  using Exec = Kokkos::DefaultExecutionSpace;
  // The configuration goes into the output's context, so figures can be traced to a build.
  benchmark::AddCustomContext("herd_version", HERD_VERSION_STRING);
  benchmark::AddCustomContext("kokkos_version", std::to_string(KOKKOS_VERSION));
  benchmark::AddCustomContext("backend", Exec::name());
  benchmark::AddCustomContext("threads", std::to_string(herd::compat::concurrency(Exec())));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
