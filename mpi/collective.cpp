#include <herd/mpi/collective.hpp>

#include <atomic>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace herd::mpi {

namespace {
// Per thread: an exception stays on the thread that throws and handles it.
thread_local int collective_errors_alive = 0;
thread_local int agreeing = 0;
// Per process, and for good: a rank stranded on one thread is stranded on all.
std::atomic<bool> stranded_process{false};
}  // namespace

StrandedError::StrandedError(std::string const& message) : Error(message) { stranded_process = true; }

bool stranded() noexcept { return stranded_process; }

CollectiveError::Alive::Alive() noexcept { ++collective_errors_alive; }
CollectiveError::Alive::Alive(Alive const&) noexcept { ++collective_errors_alive; }
CollectiveError::Alive::~Alive() { --collective_errors_alive; }

Details::Agreeing::Agreeing() noexcept { ++agreeing; }
Details::Agreeing::~Agreeing() { --agreeing; }

bool failing_alone(MPI_Comm comm) noexcept {
#if HERD_ENABLE_MPI
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return false;
#endif
  if (size_of(comm) < 2) return false;
  if (stranded_process) return true;
  if (agreeing > 0) return false;
  // Unwinding: the exception in flight cannot be looked at, but a CollectiveError, if it is one,
  // is alive until its handler ends.
  if (std::uncaught_exceptions() > 0) return collective_errors_alive == 0;
  if (auto const handled = std::current_exception()) {
    try {
      std::rethrow_exception(handled);
    } catch (CollectiveError const&) {
      return false;
    } catch (...) {
      return collective_errors_alive == 0;
    }
  }
  return false;
}

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

int size_of(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return size;
}

std::string broadcast_text(MPI_Comm comm, std::string const& text, int from) {
  bool const sender = rank_of(comm) == from;
  int length = sender ? static_cast<int>(text.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, from, comm);
  std::vector<char> bytes(static_cast<std::size_t>(length));
  if (sender) bytes.assign(text.begin(), text.end());
  MPI_Bcast(bytes.data(), length, MPI_CHAR, from, comm);
  return std::string(bytes.begin(), bytes.end());
}

void raise_if_any_failed(MPI_Comm comm, std::string const& failure) {
  // A stranded rank may have left the others in a collective call that this one would not match.
  if (stranded()) throw StrandedError(failure.empty() ? "an earlier step left the ranks apart" : failure);
  int const rank = rank_of(comm), size = size_of(comm);
  int const failed = failure.empty() ? 0 : 1;
  int failures = 0;
  MPI_Allreduce(&failed, &failures, 1, MPI_INT, MPI_SUM, comm);
  if (failures == 0) return;
  int first = 0;
  int const candidate = failed ? rank : size;
  MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, comm);
  // The first failing rank's message goes to everyone.
  std::string message = broadcast_text(comm, failure, first);
  if (failures < size) message += " (rank " + std::to_string(first) + " of " + std::to_string(size) + ")";
  throw CollectiveError(message);
}

void require_same(MPI_Comm comm, std::string const& where,
                  std::vector<std::pair<std::string, std::int64_t>> const& values) {
  // Each value's largest and (negated) least over the ranks, in one reduction.
  std::vector<std::int64_t> extent;
  extent.reserve(2 * values.size());
  for (auto const& value : values) {
    extent.push_back(value.second);
    extent.push_back(value.second == INT64_MIN ? INT64_MAX : -value.second);
  }
  MPI_Allreduce(MPI_IN_PLACE, extent.data(), static_cast<int>(extent.size()), MPI_INT64_T, MPI_MAX, comm);
  for (std::size_t k = 0; k < values.size(); ++k) {
    std::int64_t const most = extent[2 * k], least = -extent[2 * k + 1];
    if (least == most) continue;
    std::string message = where + ": the ranks give different ";
    message.append(values[k].first)
        .append(" (from ")
        .append(std::to_string(least))
        .append(" to ")
        .append(std::to_string(most))
        .append("); every rank must give the same");
    throw CollectiveError(message);
  }
}

void raise_first_failure(MPI_Comm comm, std::uint64_t place, std::string const& failure) {
  int const rank = rank_of(comm), size = size_of(comm);
  // The least place of a failure, then the lowest rank failing there.
  std::uint64_t const mine = failure.empty() ? UINT64_MAX : place;
  std::uint64_t first = 0;
  MPI_Allreduce(&mine, &first, 1, MPI_UINT64_T, MPI_MIN, comm);
  int const candidate = !failure.empty() && mine == first ? rank : size;
  int from = 0;
  MPI_Allreduce(&candidate, &from, 1, MPI_INT, MPI_MIN, comm);
  if (from == size) return;
  throw CollectiveError(broadcast_text(comm, failure, from));
}

}  // namespace herd::mpi
