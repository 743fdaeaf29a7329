// Test main for tests launched on several MPI ranks: every rank runs every test; failures are
// printed by the rank that saw them, tagged with it; the exit status is non-zero on every rank if
// any rank failed, so mpiexec reports the failure whichever rank it looks at.

#include <gtest/gtest.h>
#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <cstdio>

namespace {

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  RankFailurePrinter(int rank, int size) : rank_(rank), size_(size) {}
  void OnTestPartResult(::testing::TestPartResult const& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d of %d] failure at %s:%d\n%s\n", rank_, size_,
                 result.file_name() ? result.file_name() : "?", result.line_number(), result.summary());
  }
  void OnTestEnd(::testing::TestInfo const& info) override {
    if (info.result()->Failed())
      std::fprintf(stderr, "[rank %d of %d] FAILED %s.%s\n", rank_, size_, info.test_suite_name(), info.name());
  }

 private:
  int rank_, size_;
};

}  // namespace

int main(int argc, char* argv[]) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Kokkos::initialize(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) delete listeners.Release(listeners.default_result_printer());
  listeners.Append(new RankFailurePrinter(rank, size));
  int const local = RUN_ALL_TESTS();
  int global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  Kokkos::finalize();
  MPI_Finalize();
  return global;
}
