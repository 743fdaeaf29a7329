// Benchmarks of distributed runs, launched under mpiexec. Every rank runs every benchmark in step
// (fixed iteration counts, so no rank decides to stop early); rank 0 reports.

#include "../bench_common.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace {

// Swallows the report on ranks other than 0.
class Silent : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(Context const&) override { return true; }
  void ReportRuns(std::vector<Run> const&) override {}
};

}  // namespace

int main(int argc, char* argv[]) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    benchmark::Initialize(&argc, argv);
    herd::bench::add_build_context();
    benchmark::AddCustomContext("ranks", std::to_string(size));
    if (rank == 0) {
      benchmark::RunSpecifiedBenchmarks();
    } else {
      Silent silent;
      benchmark::RunSpecifiedBenchmarks(&silent);
    }
    benchmark::Shutdown();
  }
  MPI_Finalize();
  return 0;
}
