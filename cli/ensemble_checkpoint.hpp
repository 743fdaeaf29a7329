#pragma once

// An ensemble's checkpoint (herd run --replicates/--sweep --checkpoint FILE): every member's state
// at the end of the run, in one file that herd resume continues on any rank count
// (docs/file-formats.md, "Ensemble checkpoints"). Members run one after another, a member per rank
// at a time under mpiexec: after each round the ranks send their members' states to rank 0, one
// rank after another, which writes them. With the graph over the ranks, one member a round, whose
// states rank 0 alone holds. Given --checkpoint-every K, the file is also put in place after every K members, with
// the members run so far; herd resume runs the others.

#include <herd/config.hpp>
#include <herd/detail/mpi.hpp>

#if HERD_ENABLE_HDF5
#include <herd/io/hdf5/checkpoint.hpp>
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace herd::cli {

#if HERD_ENABLE_HDF5
/// One member's state at the end of its run, as its checkpoint stores it.
struct MemberState {
  std::uint64_t member = 0;
  std::vector<std::int64_t> history;  ///< rows 0..step of the observables
  /// With a scenario: rows 0..step of the agents each of its `event_columns` events changed.
  std::vector<std::int64_t> events;
  std::uint64_t event_columns = 0;
  /// A per-agent dataset: `group`/`name` under the member's group, one value per agent in global
  /// id order.
  struct Values {
    std::string group;
    std::string name;
    io::h5::Type type = io::h5::Type::u8;
    std::vector<char> bytes;
  };
  std::vector<Values> values;
};

class EnsembleCheckpoint {
 public:
  /// Begins the file `path` for the ensemble `record` (its member count set) on rank 0 of `comm`,
  /// to be put in place after every `every` members (0: once all have run). Collective.
  EnsembleCheckpoint(std::string path, io::RunRecord const& record, int every, MPI_Comm comm);
  EnsembleCheckpoint(EnsembleCheckpoint const&) = delete;
  EnsembleCheckpoint& operator=(EnsembleCheckpoint const&) = delete;
  /// A checkpoint not committed leaves no file behind, and an earlier one whole.
  ~EnsembleCheckpoint();

  /// Writes the states of a round's members, one per rank (none where `mine` is empty), and puts
  /// the file in place if `every` more members have run since it last was. Collective.
  void write_round(MemberState const* mine);
  /// Closes the file once every member was written, and returns it to be put in place (rank 0's;
  /// nothing elsewhere). Collective.
  io::WrittenFile finish();

 private:
  // A rank's member state on its way to rank 0, and its arrival there from `rank` (empty where
  // rank 0 had no room for it, which `failure` then says, unless it already said something).
  void send_to_rank_zero(std::vector<char> const& bytes) const;
  std::vector<char> receive_from(int rank, std::string& failure) const;
  // Rank 0's: writes a member's group.
  void write_member(MemberState const& state);
  // Whether `every` members were written since the file was last put in place, and more follow.
  bool due() const;
  // Rank 0's: puts the file in place with members [0, written_), and names the copy to go on
  // writing (next_), which go_on_writing() makes and opens once the other ranks know its name.
  void put_in_place();
  void go_on_writing();
  // The other ranks learn the name rank 0 writes under now, so that a signal ending any rank
  // removes it, also where mpiexec then kills rank 0 outright. Collective.
  void share_name();

  std::string path_;
  MPI_Comm comm_;
  std::uint64_t members_ = 0, agents_ = 0, written_ = 0;
  std::uint64_t every_ = 0, in_place_ = 0;  // members written when last put in place
  std::uint64_t rows_ = 0, columns_ = 0;    // of each member's history
  std::optional<io::h5::File> file_;        // rank 0's
  std::string next_;                        // rank 0's: the copy's name, between the two above
  std::string shared_;                      // the other ranks': the name rank 0 writes under
};
#endif

}  // namespace herd::cli
