#include "ensemble_checkpoint.hpp"

#if HERD_ENABLE_HDF5
#include <herd/core/error.hpp>
#include <herd/io/hdf5/format.hpp>
#include <herd/io/output_file.hpp>
#include <herd/mpi/collective.hpp>

#include <climits>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

namespace herd::cli {

namespace {

// A member's state as bytes, to travel to rank 0: its number, its history, then each dataset's
// group, name, type and values, every length first.
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
}

EnsembleCheckpoint::~EnsembleCheckpoint() {
  if (file_) io::discard_file(*file_);
}

void EnsembleCheckpoint::write_round(MemberState const* mine) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &size);
  auto bytes = mine ? to_bytes(*mine) : std::vector<char>();
  // The states meet on rank 0 (one process keeps its own); a round's states in all must fit an
  // int's count of bytes.
  long long const length = static_cast<long long>(bytes.size());
  std::vector<long long> lengths(static_cast<std::size_t>(size), length);
  if (size > 1) MPI_Gather(&length, 1, MPI_LONG_LONG, lengths.data(), 1, MPI_LONG_LONG, 0, comm_);
  std::vector<std::size_t> starts(lengths.size(), 0);
  for (std::size_t r = 1; r < lengths.size(); ++r) starts[r] = starts[r - 1] + static_cast<std::size_t>(lengths[r - 1]);
  long long const total = static_cast<long long>(starts.back()) + lengths.back();
  std::vector<char> all;
  if (size > 1) {
    mpi::collectively(comm_, [&] {
      require(rank != 0 || total < INT_MAX, path_ + ": a round of " + std::to_string(size) + " members' states takes " +
                                                std::to_string(total) +
                                                " bytes, more than one gather carries (2 GiB): run on fewer ranks");
    });
    std::vector<int> counts(lengths.size()), displacements(lengths.size());
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      counts[r] = static_cast<int>(lengths[r]);
      displacements[r] = static_cast<int>(starts[r]);
    }
    all.resize(rank == 0 ? static_cast<std::size_t>(total) : 0);
    MPI_Gatherv(bytes.data(), static_cast<int>(bytes.size()), MPI_CHAR, all.data(), counts.data(), displacements.data(),
                MPI_CHAR, 0, comm_);
  } else {
    all = std::move(bytes);
  }
  mpi::collectively(comm_, [&] {
    if (rank != 0) return;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      if (lengths[r] == 0) continue;
      auto const state = from_bytes(all.data() + starts[r], static_cast<std::size_t>(lengths[r]));
      require(state.member < members_ && state.history.size() == rows_ * columns_,
              path_ + ": member " + std::to_string(state.member) + "'s history does not hold " + std::to_string(rows_) +
                  " rows of " + std::to_string(columns_) + " observables");
      auto const group = io::member_group(state.member);
      file_->create_group(group);
      file_->write_all(group + "/history", io::h5::Type::i64, {rows_, columns_}, state.history.data());
      file_->set_attribute(group + "/history", "columns", file_->string_attribute("/members", "columns"));
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
    if (due()) put_in_place();
  });
}

bool EnsembleCheckpoint::due() const { return every_ > 0 && written_ - in_place_ >= every_ && written_ < members_; }

void EnsembleCheckpoint::put_in_place() {
  // The file written so far is put in place whole, then copied to go on writing, so a job killed
  // at any moment leaves the last file put in place (and the disk holds two copies at most).
  file_->set_attribute("/run", "members_done", static_cast<std::int64_t>(written_));
  io::commit_file(*file_, path_);
  file_.reset();
  std::string const in_place = io::replaced_file(path_);
  std::string const next = io::temporary_beside(in_place, path_);
  std::error_code failed;
  std::filesystem::copy_file(in_place, next, std::filesystem::copy_options::overwrite_existing, failed);
  try {
    if (failed) throw Error(path_ + ": copying the checkpoint to go on writing failed (" + failed.message() + ")");
    file_.emplace(io::h5::File::open_to_write(next, MPI_COMM_SELF));
  } catch (...) {
    io::remove_temporary(next);
    throw;
  }
  in_place_ = written_;
}

void EnsembleCheckpoint::commit() {
  mpi::collectively(comm_, [&] {
    if (!file_) return;  // rank 0 alone holds the file
    require(written_ == members_,
            path_ + ": " + std::to_string(written_) + " of " + std::to_string(members_) + " members written");
    file_->set_attribute("/run", "members_done", static_cast<std::int64_t>(written_));
    io::commit_file(*file_, path_);
    file_.reset();
  });
}

}  // namespace herd::cli
#endif
