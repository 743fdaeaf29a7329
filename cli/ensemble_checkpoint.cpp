#include "ensemble_checkpoint.hpp"

#if HERD_ENABLE_HDF5
#include <herd/core/error.hpp>
#include <herd/io/hdf5/format.hpp>
#include <herd/io/output_file.hpp>
#include <herd/mpi/collective.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

namespace herd::cli {

namespace {

#if HERD_ENABLE_MPI
// Pieces of a member's bytes on their way to rank 0: large enough for full bandwidth, small enough
// that a state of any size travels in int counts. Tags of their own.
constexpr std::size_t piece_bytes = std::size_t{1} << 20;
constexpr int length_tag = 7301, piece_tag = 7302;
#endif

// A member's state as bytes, to travel to rank 0: its number, its history, its scenario's counts,
// then each dataset's group, name, type and values, every length first.
class Bytes {
 public:
  std::vector<char> data;

  void put(std::uint64_t value) { append(&value, sizeof value); }
  void put(std::string const& text) {
    put(static_cast<std::uint64_t>(text.size()));
    append(text.data(), text.size());
  }
  void put(void const* bytes, std::size_t count) {
    put(static_cast<std::uint64_t>(count));
    append(bytes, count);
  }

 private:
  void append(void const* bytes, std::size_t count) {
    auto const* begin = static_cast<char const*>(bytes);
    data.insert(data.end(), begin, begin + count);
  }
};

class Reader {
 public:
  Reader(char const* begin, std::size_t size) : at_(begin), end_(begin + size) {}
  std::uint64_t number() {
    std::uint64_t value = 0;
    take(&value, sizeof value);
    return value;
  }
  std::string text() {
    std::string out(static_cast<std::size_t>(number()), '\0');
    take(out.data(), out.size());
    return out;
  }
  std::vector<char> bytes() {
    std::vector<char> out(static_cast<std::size_t>(number()));
    take(out.data(), out.size());
    return out;
  }

 private:
  void take(void* out, std::size_t count) {
    require(static_cast<std::size_t>(end_ - at_) >= count, "ensemble checkpoint: a member's state arrived cut short");
    if (count == 0) return;  // `out` may be null
    std::memcpy(out, at_, count);
    at_ += count;
  }
  char const* at_;
  char const* end_;
};

std::vector<char> to_bytes(MemberState const& state) {
  Bytes out;
  out.put(state.member);
  out.put(state.history.data(), state.history.size() * sizeof(std::int64_t));
  out.put(state.event_columns);
  out.put(state.events.data(), state.events.size() * sizeof(std::int64_t));
  out.put(static_cast<std::uint64_t>(state.values.size()));
  for (auto const& v : state.values) {
    out.put(v.group);
    out.put(v.name);
    out.put(static_cast<std::uint64_t>(v.type));
    out.put(v.bytes.data(), v.bytes.size());
  }
  return std::move(out.data);
}

MemberState from_bytes(char const* begin, std::size_t size) {
  Reader in(begin, size);
  MemberState state;
  state.member = in.number();
  auto const history = in.bytes();
  require(history.size() % sizeof(std::int64_t) == 0, "ensemble checkpoint: a member's history arrived cut short");
  state.history.resize(history.size() / sizeof(std::int64_t));
  if (!history.empty()) std::memcpy(state.history.data(), history.data(), history.size());
  state.event_columns = in.number();
  auto const events = in.bytes();
  require(events.size() % sizeof(std::int64_t) == 0, "ensemble checkpoint: a member's event counts arrived cut short");
  state.events.resize(events.size() / sizeof(std::int64_t));
  if (!events.empty()) std::memcpy(state.events.data(), events.data(), events.size());
  auto const count = in.number();
  for (std::uint64_t k = 0; k < count; ++k) {
    MemberState::Values v;
    v.group = in.text();
    v.name = in.text();
    v.type = static_cast<io::h5::Type>(in.number());
    v.bytes = in.bytes();
    state.values.push_back(std::move(v));
  }
  return state;
}

}  // namespace

EnsembleCheckpoint::EnsembleCheckpoint(std::string path, io::RunRecord const& record, int every, MPI_Comm comm)
    : path_(std::move(path)),
      comm_(comm),
      members_(record.members),
      agents_(record.agents),
      every_(static_cast<std::uint64_t>(every)),
      columns_(record.observables.size()) {
  require(members_ > 0, "ensemble checkpoint: no members");
  rows_ = record.step + 1ull;
  mpi::collectively(comm_, [&] {
    if (mpi::rank_of(comm_) == 0) file_.emplace(io::begin_file(path_, "herd-checkpoint", record, MPI_COMM_SELF));
  });
  share_name();
}

EnsembleCheckpoint::~EnsembleCheckpoint() {
  if (file_) io::discard_file(*file_);
  if (!next_.empty()) io::remove_temporary(next_);
  if (!shared_.empty()) io::unshare_temporary(shared_);
}

void EnsembleCheckpoint::share_name() {
  if (mpi::size_of(comm_) == 1) return;
  std::string name = mpi::broadcast_text(comm_, file_ ? file_->path() : next_);
  if (mpi::rank_of(comm_) == 0 || name == shared_) return;
  // The new name first: at no moment is neither remembered.
  if (!name.empty()) io::share_temporary(name);
  if (!shared_.empty()) io::unshare_temporary(shared_);
  shared_ = std::move(name);
}

void EnsembleCheckpoint::write_round(MemberState const* mine) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &size);
  // Rank 0 writes its own member as it stands, then each other rank's in turn, received in pieces:
  // it holds one member's bytes at a time, and no message exceeds MPI's int counts.
  std::vector<char> bytes;
  mpi::collectively(comm_, [&] {
    if (rank != 0 && mine) bytes = to_bytes(*mine);
  });
  if (rank != 0) {
    send_to_rank_zero(bytes);
    bytes = {};
  }
  std::string failure;  // rank 0's first, raised once every rank's bytes have arrived
  auto const attempt = [&](auto&& write) {
    if (!failure.empty()) return;
    try {
      write();
    } catch (std::exception const& e) {
      if (failure.empty()) failure = *e.what() ? e.what() : "unknown error";
    }
  };
  if (rank == 0) {
    if (mine) attempt([&] { write_member(*mine); });
    for (int r = 1; r < size; ++r) {
      auto received = receive_from(r, failure);
      if (received.empty()) continue;
      attempt([&] {
        auto const state = from_bytes(received.data(), received.size());
        std::vector<char>().swap(received);  // rank 0 holds one copy of the member while it writes
        write_member(state);
      });
    }
  }
  mpi::collectively(comm_, [&] {
    require(failure.empty(), failure);
    if (rank == 0 && due()) put_in_place();
  });
  if (every_ == 0) return;
  // Put in place, rank 0 goes on writing a copy, under a name the others learn before it is made.
  share_name();
  mpi::collectively(comm_, [&] {
    if (!next_.empty()) go_on_writing();
  });
}

void EnsembleCheckpoint::send_to_rank_zero(std::vector<char> const& bytes) const {
#if HERD_ENABLE_MPI
  std::uint64_t const length = bytes.size();
  MPI_Send(&length, 1, MPI_UINT64_T, 0, length_tag, comm_);
  for (std::size_t at = 0; at < bytes.size(); at += piece_bytes)
    MPI_Send(bytes.data() + at, static_cast<int>(std::min(piece_bytes, bytes.size() - at)), MPI_CHAR, 0, piece_tag,
             comm_);
#else
  (void)bytes;  // one process: rank 0 alone, which sends nothing
#endif
}

std::vector<char> EnsembleCheckpoint::receive_from(int rank, std::string& failure) const {
  std::vector<char> bytes;
#if HERD_ENABLE_MPI
  std::uint64_t length = 0;
  MPI_Recv(&length, 1, MPI_UINT64_T, rank, length_tag, comm_, MPI_STATUS_IGNORE);
  std::vector<char> scratch;
  try {
    bytes.resize(static_cast<std::size_t>(length));
  } catch (std::bad_alloc const&) {
    // Every piece is still received, into a piece's room, so that the sender is not left waiting.
    if (failure.empty())
      failure = path_ + ": rank 0 has no memory for the " + std::to_string(length) + " bytes of rank " +
                std::to_string(rank) + "'s member state";
    scratch.resize(std::min<std::size_t>(piece_bytes, static_cast<std::size_t>(length)));
  }
  for (std::size_t at = 0; at < length; at += piece_bytes) {
    char* into = scratch.empty() ? bytes.data() + at : scratch.data();
    MPI_Recv(into, static_cast<int>(std::min<std::size_t>(piece_bytes, static_cast<std::size_t>(length) - at)),
             MPI_CHAR, rank, piece_tag, comm_, MPI_STATUS_IGNORE);
  }
  if (!scratch.empty()) bytes = {};
#else
  (void)rank;   // one process: no other rank sends
  (void)failure;
#endif
  return bytes;
}

void EnsembleCheckpoint::write_member(MemberState const& state) {
  require(state.member < members_ && state.history.size() == rows_ * columns_,
          path_ + ": member " + std::to_string(state.member) + "'s history does not hold " + std::to_string(rows_) +
              " rows of " + std::to_string(columns_) + " observables");
  auto const group = io::member_group(state.member);
  file_->create_group(group);
  // The group says whose it is: a group moved or copied to another member's place is refused.
  file_->set_attribute(group, "member", static_cast<std::int64_t>(state.member));
  file_->write_all(group + "/history", io::h5::Type::i64, {rows_, columns_}, state.history.data());
  file_->set_attribute(group + "/history", "columns", file_->string_attribute("/members", "columns"));
  if (state.event_columns > 0) {
    require(state.events.size() == rows_ * state.event_columns, path_ + ": member " + std::to_string(state.member) +
                                                                    "'s scenario counts do not cover its " +
                                                                    std::to_string(rows_) + " rows");
    file_->create_group(group + "/scenario");
    file_->write_all(group + "/scenario/events", io::h5::Type::i64, {rows_, state.event_columns}, state.events.data());
  }
  for (auto const& v : state.values) {
    if (!file_->exists(group + "/" + v.group)) file_->create_group(group + "/" + v.group);
    auto const count = static_cast<std::uint64_t>(v.bytes.size() / io::h5::size_of(v.type));
    require(count == agents_ && v.bytes.size() % io::h5::size_of(v.type) == 0,
            path_ + ": member " + std::to_string(state.member) + "'s " + v.group + "/" + v.name + " holds " +
                std::to_string(count) + " values for " + std::to_string(agents_) + " agents");
    file_->write_all(group + "/" + v.group + "/" + v.name, v.type, {count}, v.bytes.data());
  }
  ++written_;
}

bool EnsembleCheckpoint::due() const { return every_ > 0 && written_ - in_place_ >= every_ && written_ < members_; }

void EnsembleCheckpoint::put_in_place() {
  // The file written so far is put in place whole, then copied to go on writing, so a job killed
  // at any moment leaves the last file put in place (and the disk holds two copies at most).
  file_->set_attribute("/run", "members_done", static_cast<std::int64_t>(written_));
  io::commit_file(*file_, path_);
  file_.reset();
  in_place_ = written_;
  next_ = io::temporary_beside(io::replaced_file(path_), path_);
}

void EnsembleCheckpoint::go_on_writing() {
  std::string const next = std::exchange(next_, {});
  std::error_code failed;
  std::filesystem::copy_file(io::replaced_file(path_), next, std::filesystem::copy_options::overwrite_existing, failed);
  try {
    if (failed) throw Error(path_ + ": copying the checkpoint to go on writing failed (" + failed.message() + ")");
    file_.emplace(io::h5::File::open_to_write(next, MPI_COMM_SELF));
  } catch (...) {
    io::remove_temporary(next);
    throw;
  }
}

io::WrittenFile EnsembleCheckpoint::finish() {
  io::WrittenFile written;
  // Whole once rank 0 closes it: rank 0 puts it in place or removes it, as finish_file does.
  if (!shared_.empty()) io::unshare_temporary(std::exchange(shared_, {}));
  mpi::collectively(comm_, [&] {
    if (!file_) return;  // rank 0 alone holds the file
    require(written_ == members_,
            path_ + ": " + std::to_string(written_) + " of " + std::to_string(members_) + " members written");
    file_->set_attribute("/run", "members_done", static_cast<std::int64_t>(written_));
    written = io::finish_file(*file_, path_);
    file_.reset();
  });
  return written;
}

}  // namespace herd::cli
#endif
