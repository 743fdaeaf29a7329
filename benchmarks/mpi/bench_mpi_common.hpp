#pragma once

// What the distributed benchmarks share: every rank times each iteration, and the iteration takes
// as long as the slowest rank.

#include "../bench_common.hpp"

#include <mpi.h>

namespace herd::bench {

/// Times `body` on every rank between barriers; the iteration takes as long as the slowest rank.
template <class F>
void timed_slowest(benchmark::State& state, F&& body) {
  for (auto _ : state) {
    Kokkos::fence();
    MPI_Barrier(MPI_COMM_WORLD);
    Kokkos::Timer timer;
    body();
    Kokkos::fence();
    double mine = timer.seconds(), slowest = 0.0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    state.SetIterationTime(slowest);
  }
}

/// The largest value of `x` over ranks.
inline double max_over_ranks(double x) {
  double out = 0.0;
  MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

}  // namespace herd::bench
