#pragma once

// Failing together. A bad input seen by one rank must end the whole job with one clear message,
// not leave the other ranks waiting in a collective the failed rank never reaches. Setup code
// runs inside herd::mpi::collectively: every rank learns whether any rank failed, and all throw
// the same herd::Error.

#include <herd/core/error.hpp>

#include <herd/detail/mpi.hpp>

#include <cstdint>
#include <exception>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace herd::mpi {

/// An error every rank of a communicator raised together: nothing is left waiting, and the job
/// may end normally.
class CollectiveError : public Error {
 public:
  using Error::Error;

 private:
  // Counts the CollectiveErrors alive in the process, the one being thrown included: how
  // failing_alone tells an error every rank leaves by from one this rank leaves by alone.
  struct Alive {
    Alive() noexcept;
    Alive(Alive const&) noexcept;
    Alive& operator=(Alive const&) noexcept { return *this; }
    ~Alive();
  } alive_;
};

/// An error after which other ranks may wait for ever in a collective call this rank cannot join:
/// parallel HDF5 1.10, when a rank's flush fails, leaves its collective steps out of turn. Making
/// one marks the process stranded for good (mpi::stranded): failing_alone then holds, and
/// `collectively` passes it on without agreeing on it. The job must be aborted.
class StrandedError : public Error {
 public:
  explicit StrandedError(std::string const& message);
};

/// Whether a StrandedError was made in this process: it must end by aborting the job.
bool stranded() noexcept;

/// Whether this rank is leaving its work through an error that the other ranks of `comm` do not
/// share: an exception under way, or being handled, that is not a CollectiveError (an error
/// worded anew from one must be a CollectiveError again), outside any `collectively` call (which
/// makes every failure a shared one), with more than one rank. The others may be waiting in a
/// collective call, so such a rank must start no other on its files (closing a parallel HDF5 file
/// is one): it releases what is its own alone, and the job is then aborted (MPI_Abort). Meant for
/// destructors and catch blocks. Once the process is stranded it always holds.
bool failing_alone(MPI_Comm comm) noexcept;

/// Throws herd::mpi::CollectiveError on every rank of `comm` if `failure` is non-empty on any rank. The message is
/// that of the lowest failing rank, naming the rank when not all ranks failed. Collective.
void raise_if_any_failed(MPI_Comm comm, std::string const& failure);

/// Throws CollectiveError on every rank of `comm` if `failure` is non-empty on any rank, with the
/// message of the failing rank whose `place` is least (a line of a file read in pieces: the first
/// bad line, as one process reading it all would name). Collective.
void raise_first_failure(MPI_Comm comm, std::uint64_t place, std::string const& failure);

namespace Details {
// Marks the thread as inside collectively's call of its function, whose failures every rank
// learns of: a rank failing there does not fail alone.
struct Agreeing {
  Agreeing() noexcept;
  Agreeing(Agreeing const&) = delete;
  Agreeing& operator=(Agreeing const&) = delete;
  ~Agreeing();
};
}  // namespace Details

/// Runs `f` on every rank of `comm`; if it throws on any rank, every rank throws the same
/// CollectiveError (see raise_if_any_failed). Collective: every rank must call it.
template <class F>
auto collectively(MPI_Comm comm, F&& f) -> decltype(f()) {
  std::string failure;
  if constexpr (std::is_void<decltype(f())>::value) {
    try {
      Details::Agreeing const agreeing;
      f();
    } catch (std::exception const& e) {
      if (stranded()) throw;  // the ranks this one left waiting would never join the agreement
      failure = e.what();
      if (failure.empty()) failure = "unknown error";
    }
    raise_if_any_failed(comm, failure);
  } else {
    decltype(f()) result{};
    try {
      Details::Agreeing const agreeing;
      result = f();
    } catch (std::exception const& e) {
      if (stranded()) throw;
      failure = e.what();
      if (failure.empty()) failure = "unknown error";
    }
    raise_if_any_failed(comm, failure);
    return result;
  }
}

/// Throws CollectiveError on every rank of `comm` unless every rank gives the same `values`:
/// "WHERE: the ranks give different NAME (from LEAST to MOST); every rank must give the same",
/// naming the first that differs. What a distributed run's ranks must agree on (its seed, its
/// step count, its scenario), where one rank's other value would leave the others waiting or give
/// another run's results. Collective.
void require_same(MPI_Comm comm, std::string const& where,
                  std::vector<std::pair<std::string, std::int64_t>> const& values);

/// Rank `from`'s `text` (below 2^31 bytes), as every rank's string. Collective.
std::string broadcast_text(MPI_Comm comm, std::string const& text, int from = 0);

int rank_of(MPI_Comm comm);
int size_of(MPI_Comm comm);

}  // namespace herd::mpi
