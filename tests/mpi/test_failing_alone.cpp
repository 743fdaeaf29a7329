// A rank that fails alone must not start a collective call the others will never join: how it
// tells an error it leaves by alone from one every rank shares (mpi::failing_alone), and an
// unfinished file it holds then goes without the collective close (io::discard_file).

#include <herd/core/error.hpp>
#include <herd/mpi/collective.hpp>
#if HERD_ENABLE_HDF5
#include <herd/io/hdf5/format.hpp>

#include "scratch.hpp"

#include <hdf5.h>
#endif

#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace herd;

int world_rank() { return mpi::rank_of(MPI_COMM_WORLD); }
int world_size() { return mpi::size_of(MPI_COMM_WORLD); }

// What failing_alone says in a destructor, as the holder of a collective resource asks it.
struct Judge {
  bool& alone;
  ~Judge() { alone = mpi::failing_alone(MPI_COMM_WORLD); }
};

// Whether failing_alone holds in a destructor run while `f`'s exception leaves the scope.
template <class F>
bool judged_while_unwinding(F&& f) {
  bool alone = false;
  try {
    Judge const judge{alone};
    f();
  } catch (...) {
  }
  return alone;
}

TEST(FailingAlone, TellsAnErrorOfOneRankFromOneEveryRankShares) {
  bool const many = world_size() > 1;
  bool alone = true;
  { Judge const judge{alone}; }
  EXPECT_FALSE(alone) << "no error";
  EXPECT_FALSE(judged_while_unwinding([] { mpi::raise_if_any_failed(MPI_COMM_WORLD, "every rank fails"); }));
  // Rank 0's failure, raised on every rank: shared, though only one rank failed.
  EXPECT_FALSE(judged_while_unwinding(
      [] { mpi::raise_if_any_failed(MPI_COMM_WORLD, world_rank() == 0 ? "rank 0 fails" : ""); }));
  EXPECT_EQ(judged_while_unwinding([] { throw Error("this rank fails"); }), many);
  EXPECT_EQ(judged_while_unwinding([] { throw std::bad_alloc(); }), many);
  // In catch blocks, by the exception being handled.
  try {
    throw Error("this rank fails");
  } catch (...) {
    EXPECT_EQ(mpi::failing_alone(MPI_COMM_WORLD), many);
  }
  try {
    mpi::raise_if_any_failed(MPI_COMM_WORLD, "every rank fails");
  } catch (...) {
    EXPECT_FALSE(mpi::failing_alone(MPI_COMM_WORLD));
  }
  // A shared error handled and gone leaves no trace on the next one.
  EXPECT_EQ(judged_while_unwinding([] { throw Error("this rank fails"); }), many);
  // Within collectively, every failure reaches every rank: none is alone, on the failing rank
  // before the agreement either.
  bool inside = true;
  try {
    mpi::collectively(MPI_COMM_WORLD, [&] {
      Judge const judge{inside};
      if (world_rank() == world_size() - 1) throw Error("the last rank fails");
    });
  } catch (mpi::CollectiveError const&) {
  }
  EXPECT_FALSE(inside);
  EXPECT_EQ(judged_while_unwinding([] { throw Error("this rank fails"); }), many) << "after collectively";
  // One rank is never alone.
  try {
    throw Error("this rank fails");
  } catch (...) {
    EXPECT_FALSE(mpi::failing_alone(MPI_COMM_SELF));
  }
}

#if HERD_ENABLE_HDF5

namespace h5 = herd::io::h5;

// discard_file as an output's holder calls it while an error leaves its scope.
struct Holder {
  h5::File& file;
  ~Holder() { io::discard_file(file); }
};

ssize_t open_files() { return H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE); }

TEST(FailingAlone, AnUnfinishedFileIsClosedTogetherOrLeftAloneWithoutWaiting) {
  auto const target = test::scratch_path("herd_failing_alone_" + std::to_string(world_size()) + ".h5");
  auto const open_path = target + ".open";
  // Left by an earlier run that was stopped.
  if (world_rank() == 0) {
    std::filesystem::remove(target);
    std::filesystem::remove(open_path);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  auto const before = open_files();
  // Every rank fails, by an agreed error or inside collectively: the file is closed together,
  // then removed.
  for (bool const agreed : {true, false}) {
    std::string partial;
    try {
      auto file = io::create_partial(target, "herd-output", MPI_COMM_WORLD);
      partial = file.path();
      auto const fail = [&] {
        Holder const holder{file};
        file.create_dataset("/values", h5::Type::u8, {4});
        if (agreed)
          mpi::raise_if_any_failed(MPI_COMM_WORLD, world_rank() == 0 ? "rank 0 fails" : "");
        else
          throw Error("every rank fails");
      };
      if (agreed)
        fail();
      else
        mpi::collectively(MPI_COMM_WORLD, fail);
    } catch (mpi::CollectiveError const&) {
    }
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_FALSE(std::filesystem::exists(partial)) << partial;
    EXPECT_FALSE(std::filesystem::exists(target));
    EXPECT_EQ(open_files(), before) << (agreed ? "agreed" : "inside collectively");
  }
  if (world_size() == 1) return;

  // The last rank fails alone, while the others wait for it in a call of their own (a message
  // here; a collective call in a run), which a rank held in the file's collective close would
  // never reach: it must go on at once, having removed an unfinished file (discard_file) or left
  // an open one as it is (~File).
  for (bool const unfinished : {true, false}) {
    std::string path = open_path;
    std::optional<h5::File> file;
    if (unfinished) {
      file.emplace(io::create_partial(target, "herd-output", MPI_COMM_WORLD));
      path = file->path();
    } else {
      file.emplace(h5::File::create(open_path, MPI_COMM_WORLD));
    }
    int const last = world_size() - 1;
    int done = 0;
    if (world_rank() == last) {
      try {
        if (unfinished) {
          Holder const holder{*file};
          throw Error("the last rank fails");
        }
        auto const mine = std::move(*file);
        throw Error("the last rank fails");
      } catch (Error const&) {
      }
      EXPECT_EQ(std::filesystem::exists(path), !unfinished) << path;
      done = 1;
      for (int r = 0; r < last; ++r) MPI_Send(&done, 1, MPI_INT, r, 0, MPI_COMM_WORLD);
    } else {
      MPI_Request request;
      MPI_Irecv(&done, 1, MPI_INT, last, 0, MPI_COMM_WORLD, &request);
      auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      for (int arrived = 0; !arrived;) {
        MPI_Test(&request, &arrived, MPI_STATUS_IGNORE);
        if (!arrived && std::chrono::steady_clock::now() > deadline) {
          std::fprintf(stderr, "rank %d of %d: the failing rank is held in the file's close\n", world_rank(),
                       world_size());
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
      }
      // The job's abort would end these ranks here, their handles open.
      file->abandon();
    }
    EXPECT_EQ(done, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_EQ(std::filesystem::exists(path), !unfinished) << path;
    // The handles left open, closed here together, so that the tests after this one start clean.
    std::vector<hid_t> ids(static_cast<std::size_t>(open_files()));
    H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_FILE, ids.size(), ids.data());
    for (hid_t id : ids) {
      std::string name(path.size() + 1, '\0');
      if (H5Fget_name(id, name.data(), name.size()) == static_cast<ssize_t>(path.size()) &&
          name.compare(0, path.size(), path) == 0)
        H5Fclose(id);
    }
    EXPECT_EQ(open_files(), before);
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank() == 0) std::filesystem::remove(path);
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_FALSE(std::filesystem::exists(target));
  }
}

#endif

}  // namespace
