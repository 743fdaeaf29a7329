#pragma once

// Checkpoints and run outputs in HDF5 (schema: docs/file-formats.md). A file is written under a
// temporary name and renamed into place once complete and flushed, so a job killed at any moment
// leaves the previous file whole. Agent properties are stored in global id order, one dataset per
// property, through herd::io::h5::AgentBlocks: a checkpoint written on P ranks loads on any other
// rank count, and the run continues to the same bits.

#include <herd/engine/model_traits.hpp>
#include <herd/io/hdf5/agent_io.hpp>
#include <herd/io/hdf5/file.hpp>
#include <herd/io/hdf5/format.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace herd::io {

/// Everything about a run besides its agents' state: what rebuilds the run, and what checks that
/// a state belongs to it.
struct RunRecord {
  std::vector<std::string> arguments;  ///< the run's command-line arguments (graph, model, seed, ...)
  std::string model;                   ///< model name
  std::uint64_t seed = 0;
  std::uint32_t step = 0;                  ///< steps completed
  std::uint64_t agents = 0;                ///< agents of the whole graph
  std::uint64_t edges = 0;                 ///< stored entries of the whole graph
  std::vector<std::string> observables;    ///< names of the history's columns
  std::vector<std::int64_t> history;       ///< (step + 1) rows of observables, row-major
  std::uint64_t graph_hash = 0;            ///< herd::graph_hash of the graph as built (0: not recorded)
  std::uint64_t scenario_hash = 0;         ///< a fingerprint of the --scenario file's bytes (0: none)
  std::uint64_t graph_file_hash = 0;       ///< a fingerprint of the --graph file's bytes (0: none)
  std::uint64_t attributes_file_hash = 0;  ///< a fingerprint of the --attributes file's bytes (0: none)
  /// An ensemble's checkpoint: its member count (0: one run's). Each member m's history and
  /// agents are then in member_group(m), and /run holds no history.
  std::uint64_t members = 0;
  /// Of an ensemble's checkpoint: members [0, members_done) are at `step`; the others have not
  /// begun (a checkpoint put in place while the ensemble ran).
  std::uint64_t members_done = 0;
};

/// Where an ensemble's checkpoint keeps member m: its `history` and its `agents`.
std::string member_group(std::uint64_t member);

/// Member m's history in an ensemble's checkpoint of record `record` (from read_record): its
/// (step + 1) rows of the observables, checked against the record. Reads on this rank alone.
std::vector<std::int64_t> read_member_history(h5::File const& file, RunRecord const& record, std::uint64_t member);

/// Creates `final_path`'s temporary file and writes the record into it (the kind is
/// "herd-checkpoint" or "herd-output"). Collective.
h5::File begin_file(std::string const& final_path, std::string const& kind, RunRecord const& record, MPI_Comm comm);
/// Writes the record's step and history, once, into a file from begin_file given an empty history
/// (outputs: at the end of a run). Throws herd::Error for a file that holds a history already.
void update_record(h5::File& file, RunRecord const& record);

/// Opens a checkpoint and reads its record, checking its kind, version and consistency; every
/// problem is an error naming the file. Collective.
RunRecord read_record(h5::File const& file, std::string const& kind);

/// The plan that moves the values of local agents [0, count) of a simulation with global ids
/// `ids` (identity where empty) to and from their blocks of rows. Ids that run contiguously (one
/// process, a contiguous partition) are recognised on the device and never copied to the host.
template <class IdView>
h5::AgentBlocks agent_blocks(h5::File const& file, IdView const& ids, std::int64_t count, std::uint64_t global) {
  if (ids.extent(0) == 0)
    return h5::AgentBlocks(file.communicator(), global, 0, static_cast<std::uint64_t>(count), file.name());
  using exec = typename IdView::execution_space;
  std::int64_t breaks = 0;
  Kokkos::parallel_reduce(
      "herd::io::contiguous_ids", Kokkos::RangePolicy<exec>(1, count),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t & n) { n += ids(i) != ids(i - 1) + 1 ? 1 : 0; }, breaks);
  if (breaks == 0) {
    global_id first = 0;
    if (count > 0) Kokkos::deep_copy(first, Kokkos::subview(ids, 0));
    return h5::AgentBlocks(file.communicator(), global, first, static_cast<std::uint64_t>(count), file.name());
  }
  std::vector<global_id> host(static_cast<std::size_t>(count));
  Kokkos::View<global_id*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> view(host.data(), host.size());
  Kokkos::deep_copy(view, Kokkos::subview(ids, std::make_pair(std::int64_t(0), count)));
  return h5::AgentBlocks(file.communicator(), global, host, file.name());
}

/// Writes the current value of every property of `model` (for_each_property) for the agents `sim`
/// owns into `group`/<property name>, creating `group` where missing. Collective.
template <class Sim, class Model>
void write_properties(h5::File& file, std::string const& group, Sim const& sim, Model const& model) {
  if (!file.exists(group)) file.create_group(group);
  auto const owned = static_cast<std::int64_t>(sim.num_owned());
  auto const blocks = agent_blocks(file, sim.global_ids(), owned, static_cast<std::uint64_t>(sim.num_global()));
  model.for_each_property([&](auto const& property) {
    using storage = typename std::decay_t<decltype(property)>::storage_type;
    auto const values = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(), Kokkos::subview(property.current(), std::make_pair(std::int64_t(0), owned)));
    blocks.write(file, group + "/" + property.name(), h5::type_of<storage>(), values.data());
  });
}

/// Loads every property of `model` for all local agents of `sim` (owned and ghosts) from
/// `group`/<property name>, checking each dataset's type and size first. Collective.
template <class Sim, class Model>
void read_properties(h5::File const& file, std::string const& group, Sim const& sim, Model const& model) {
  auto const local = static_cast<std::int64_t>(sim.num_agents());
  auto const global = static_cast<std::uint64_t>(sim.num_global());
  auto const blocks = agent_blocks(file, sim.global_ids(), local, global);
  model.for_each_property([&](auto const& property) {
    using storage = typename std::decay_t<decltype(property)>::storage_type;
    std::string const dataset = group + "/" + property.name();
    auto const type = file.type(dataset);
    require(type == h5::type_of<storage>(), file.path() + ": " + dataset + " holds " + h5::to_string(type) +
                                                " values; the model stores " + h5::to_string(h5::type_of<storage>()));
    auto const extents = file.extents(dataset);
    require(extents.size() == 1 && extents[0] == global, file.path() + ": " + dataset +
                                                             " does not hold one value for each of the " +
                                                             std::to_string(global) + " agents");
    Kokkos::View<storage*, Kokkos::HostSpace> values("herd::io::read_properties", static_cast<std::size_t>(local));
    blocks.read(file, dataset, h5::type_of<storage>(), values.data());
    Kokkos::deep_copy(Kokkos::subview(property.current(), std::make_pair(std::int64_t(0), local)), values);
  });
  // A state no run reaches (a damaged file) is refused now, not after the steps it would spoil.
  if constexpr (checks_state_v<Model>) {
    using exec = typename std::decay_t<decltype(sim.global_ids())>::execution_space;
    std::int64_t invalid = 0;
    Kokkos::parallel_reduce(
        "herd::io::check_states", Kokkos::RangePolicy<exec>(0, static_cast<std::int64_t>(sim.num_owned())),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t & n) { n += model.holds_valid_state(i) ? 0 : 1; }, invalid);
    // Counted over the ranks: every rank gives the message one process gives.
    MPI_Allreduce(MPI_IN_PLACE, &invalid, 1, MPI_INT64_T, MPI_SUM, file.communicator());
    require(invalid == 0, file.path() + ": " + group + ": " + std::to_string(invalid) +
                              " agents hold a state the model never reaches (a damaged file?)");
  }
}

}  // namespace herd::io
