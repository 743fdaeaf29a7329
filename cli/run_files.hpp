#pragma once

// The files a run writes while it steps and reads to resume: checkpoints (--checkpoint,
// --checkpoint-every), the HDF5 output (--output, --snapshot-every) and the state a resumed run
// starts from (herd resume). Without HDF5 the options are refused when parsed, and this class does
// nothing.

#include "ensemble_checkpoint.hpp"
#include "launcher.hpp"
#include "options.hpp"
#include "output_files.hpp"

#include <herd/herd.hpp>
#if HERD_ENABLE_HDF5
#include <herd/io/hdf5/checkpoint.hpp>
#include <herd/mpi/collective.hpp>
#endif

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace herd::cli {

/// Rows 0..last (at most all) of a device table of int64 counts (LayoutRight: a history of
/// observables, a scenario's EventCounts), on the host, one row after another.
template <class Table>
std::vector<std::int64_t> host_rows(Table const& table, std::uint32_t last) {
  auto const rows = std::min<std::size_t>(last + std::size_t{1}, table.extent(0));
  std::vector<std::int64_t> out(rows * table.extent(1));
  Kokkos::deep_copy(
      Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          out.data(), rows, table.extent(1)),
      Kokkos::subview(table, std::make_pair(std::size_t{0}, rows), Kokkos::ALL()));
  return out;
}

#if HERD_ENABLE_HDF5
/// The options of `herd resume FILE [options]`: the run's own arguments from the checkpoint, then
/// `extra` (outputs, steps, threads, partition: anything that does not change the results).
/// Collective over MPI_COMM_WORLD.
Options resume_options(std::string const& checkpoint, std::vector<std::string> const& extra);

/// The arguments with the input files they name (--graph, --attributes) made absolute: a
/// checkpoint resumed from another folder reads the same files.
std::vector<std::string> with_absolute_inputs(std::vector<std::string> const& arguments);

/// A fingerprint of a scenario file's bytes (FNV-1a, never 0), which checkpoints keep: a resumed
/// run refuses a file changed since, under whatever name it is given.
std::uint64_t scenario_fingerprint(std::string const& text);

/// What a checkpoint of a run of `o` records before its step and history: its arguments, model
/// and seed, the graph's agents, stored entries and graph_hash, the model's observables, and the
/// scenario's fingerprint.
io::RunRecord run_record(Options const& o, std::uint64_t agents, std::uint64_t edges, std::uint64_t graph_hash,
                         std::vector<std::string> observables);

/// The longest isolation the first `agents` isolation words hold (herd::isolation_word; a free
/// function: a device lambda may not be made in a class's private member).
template <class ExecutionSpace, class Timers>
std::uint32_t longest_timer(ExecutionSpace const& exec, Timers const& timers, agent_index agents) {
  std::uint32_t longest = 0;  // reduced in 32 bits, which every backend's reductions take
  Kokkos::parallel_reduce(
      "herd::resume::longest_timer", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, agents),
      KOKKOS_LAMBDA(agent_index a, std::uint32_t & most) {
        std::uint32_t const steps = isolation_word::isolated(timers(a)) ? timers(a) : 0u;
        if (steps > most) most = steps;
      },
      Kokkos::Max<std::uint32_t>(longest));
  return longest;
}

template <class Sim, class Model>
class RunFiles {
 public:
  /// `edges`, `graph_hash`: stored entries and herd::graph_hash of the whole graph as built;
  /// `partial_history`: the device history holds this rank's share only (distributed runs), so
  /// rows are summed over ranks before they are written.
  RunFiles(Options const& o, Sim& sim, Model& model, std::uint64_t edges, std::uint64_t graph_hash, MPI_Comm comm,
           bool partial_history)
      : o_(o), sim_(sim), model_(model), comm_(comm), partial_(partial_history) {
    record_ = run_record(o, static_cast<std::uint64_t>(sim.num_global()), edges, graph_hash, model.observable_names());
  }
  RunFiles(RunFiles const&) = delete;
  RunFiles& operator=(RunFiles const&) = delete;
  ~RunFiles() {
    if (output_) io::discard_file(*output_);
  }

  using Timers = Property<std::uint16_t, typename Sim::memory_space>;
  /// A scenario's isolation timers: saved with each checkpoint (/scenario/isolation) and, on
  /// resume, loaded, after which `restore` closes the contacts they say are closed.
  /// No timer loaded may exceed `longest`, the longest isolation the scenario gives.
  void keep_isolation(Timers& timers, int longest, std::function<void()> restore) {
    timers_ = &timers;
    longest_isolation_ = longest;
    restore_ = std::move(restore);
  }

  /// A scenario's counts of the agents its `columns` events changed, a row per step: `mine(last)`
  /// gives this rank's rows 0..last of this launch. Each checkpoint keeps them summed over ranks,
  /// after the rows it was resumed from (/scenario/events), so that a resumed run counts from step 0.
  void keep_events(std::size_t columns, std::function<std::vector<std::int64_t>(std::uint32_t)> mine) {
    event_columns_ = columns;
    event_rows_ = std::move(mine);
  }
  /// `launch`, this launch's counts summed over ranks (rows 0..last), after the checkpoint's rows.
  std::vector<std::int64_t> whole_events(std::vector<std::int64_t> launch) const {
    for (std::size_t k = 0; k < std::min(launch.size(), events_prefix_.size()); ++k) launch[k] += events_prefix_[k];
    return launch;
  }
  /// Whether whole_events holds the counts of the steps before this launch: a fresh run, or a
  /// checkpoint that kept them (older ones did not, and neither do the checkpoints of a run
  /// resumed from those: zeros would pass for counts).
  bool knows_earlier_events() const { return earlier_events_known_; }

  /// Sets the initial state: the model's own, or the checkpoint's for a resumed run. Returns the
  /// step the run starts from.
  std::uint32_t initialise() {
    bool fresh = o_.resume.empty();
    if (!fresh) {
      mpi::collectively(comm_, [&] {
        std::optional<io::h5::File> own;
        if (!resumed_) own.emplace(io::h5::File::open(o_.resume, comm_));
        auto const& file = resumed_ ? *resumed_ : *own;
        auto saved = io::read_record(file, "herd-checkpoint");
        std::string const& path = o_.resume;
        // An ensemble's member reads its own group of the ensemble's checkpoint.
        bool const member = o_.member >= 0;
        require(saved.members == static_cast<std::uint64_t>(member ? o_.members : 0),
                path + ": holds " +
                    (saved.members > 0 ? "an ensemble of " + std::to_string(saved.members) + " members" : "one run") +
                    (member ? ", not this ensemble's " + std::to_string(o_.members) : ", not an ensemble's"));
        require(saved.model == record_.model, path + ": written by a " + saved.model + " run, not " + record_.model);
        require(saved.agents == record_.agents && saved.edges == record_.edges,
                path + ": written for a graph of " + std::to_string(saved.agents) + " agents and " +
                    std::to_string(saved.edges) + " entries; this graph has " + std::to_string(record_.agents) +
                    " and " + std::to_string(record_.edges));
        require(saved.graph_hash == 0 || saved.graph_hash == record_.graph_hash,
                path + ": written for another graph with the same counts (its contacts differ)");
        require(saved.scenario_hash == 0 || saved.scenario_hash == record_.scenario_hash,
                path + ": written by a run of another scenario: " + o_.scenario +
                    " is not the file it ran, or changed since (the events from the checkpoint on would differ)");
        require(saved.observables == record_.observables, path + ": its observables are not this model's");
        require(
            static_cast<std::uint32_t>(o_.steps) >= saved.step,
            path + ": already at step " + std::to_string(saved.step) + ", beyond --steps " + std::to_string(o_.steps));
        // A member the ensemble had not run when its checkpoint was put in place starts afresh.
        if (member && static_cast<std::uint64_t>(o_.member) >= saved.members_done) {
          fresh = true;
          return;
        }
        std::string const group = member ? io::member_group(static_cast<std::uint64_t>(o_.member)) : "";
        if (member) saved.history = io::read_member_history(file, saved, static_cast<std::uint64_t>(o_.member));
        check_history(saved, path + ": " + (member ? group : std::string("/run")) + "/history");
        io::read_properties(file, group + "/agents", sim_, model_);
        if (timers_) {
          require(file.exists(group + "/scenario/isolation"),
                  path + ": holds no isolation timers, which this run's scenario needs (its run isolated no one)");
          io::read_properties(file, group + "/scenario", sim_, TimerList{*timers_});
        }
        earlier_events_known_ = event_columns_ == 0 || file.exists(group + "/scenario/events");
        if (event_columns_ > 0 && earlier_events_known_)
          events_prefix_ = read_events(file, group + "/scenario/events", saved.step);
        history_prefix_ = saved.history;
        record_.step = saved.step;
      });
      if (!fresh) {
        sim_.set_step(record_.step);
        check_loaded_state();
        if (timers_) check_loaded_timers();
        if (restore_) restore_();
      }
    }
    if (fresh) model_.initialise(sim_, sim_.num_global());
    if (!o_.output.empty()) {
      output_.emplace(mpi::collectively(comm_, [&] {
                        auto r = record_;
                        r.history.clear();
                        return std::optional<io::h5::File>(io::begin_file(o_.output, "herd-output", r, comm_));
                      }).value());
      if (!output_->exists("/snapshots")) output_->create_group("/snapshots");
    }
    return record_.step;
  }

  /// After each step: a checkpoint or a snapshot when one is due (these wait for the device).
  template <class History>
  void after_step(int t, History const& history) {
    std::uint32_t const step = record_.step + static_cast<std::uint32_t>(t);
    if (o_.checkpoint_every > 0 && step % static_cast<std::uint32_t>(o_.checkpoint_every) == 0 &&
        static_cast<int>(step) != o_.steps)
      checkpoint(step, rows(history, t), event_rows(step));
    if (output_ && o_.snapshot_every > 0 && step % static_cast<std::uint32_t>(o_.snapshot_every) == 0) {
      std::string const group = "/snapshots/step_" + std::to_string(step);
      output_->create_group(group);
      io::write_properties(*output_, group, sim_, model_);
    }
  }

  /// After the run, before the scenario's counts are summed over ranks: `history` is the whole
  /// run's, summed over ranks. Writes the final checkpoint and the output, to be put in place by
  /// `outputs`, and returns the history from step 0 (the checkpoint's rows first).
  std::vector<std::int64_t> finish(std::vector<std::int64_t> const& history, FinishedOutputs& outputs) {
    stop_if_launcher_gone();  // a killed job writes no final checkpoint or output
    auto const columns = record_.observables.size();
    auto all = rows_before_resume(columns);
    all.insert(all.end(), history.begin(), history.end());
    auto const last = static_cast<std::uint32_t>(all.size() / columns - 1);
    if (!o_.checkpoint.empty() && o_.member >= 0) {
      keep_member_state(all, event_rows(last));  // the ensemble writes it, with the other members'
    } else if (!o_.checkpoint.empty()) {
      outputs.add(checkpoint(last, all, event_rows(last), false));
    }
    if (output_) {
      auto r = record_;
      r.step = last;
      r.history = all;
      mpi::collectively(comm_, [&] { io::update_record(*output_, r); });
      io::write_properties(*output_, "/agents", sim_, model_);
      outputs.add(io::finish_file(*output_, o_.output));
      output_.reset();
    }
    return all;
  }

  /// An ensemble member's state at the end of its run, kept by finish() for the ensemble's
  /// checkpoint (null for a run that writes none).
  std::shared_ptr<MemberState> member_state() const { return member_state_; }
  /// An ensemble's member: initialise() reads `resumed` (its rank holds the checkpoint open for
  /// all its members, so that one put in place under its name hides none of them), where given.
  void resume_from(io::h5::File const* resumed) { resumed_ = resumed; }

 private:
  // The member's history and its agents' values in global id order, as its checkpoint holds them.
  // A member whose graph the ranks share sends its values to rank 0, which alone keeps the state.
  // Collective then.
  void keep_member_state(std::vector<std::int64_t> const& history, std::vector<std::int64_t> const& events) {
    int rank = 0;
    MPI_Comm_rank(comm_, &rank);
    auto const agents = static_cast<std::size_t>(sim_.num_global());
    auto state = std::make_shared<MemberState>();
    state->member = static_cast<std::uint64_t>(o_.member);
    state->history = history;
    state->events = events;
    state->event_columns = keeps_events() ? event_columns_ : 0;
    auto const owned = static_cast<std::size_t>(sim_.num_owned());
    std::vector<global_id> ids(owned);
    {
      auto const device = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sim_.global_ids());
      for (std::size_t i = 0; i < owned; ++i) ids[i] = device.extent(0) == 0 ? static_cast<global_id>(i) : device(i);
    }
    std::vector<int> counts, starts;
    if (partial_) ids = gather_on_rank_zero(ids, counts, starts);
    auto keep = [&](std::string const& group, auto const& property) {
      using storage = typename std::decay_t<decltype(property)>::storage_type;
      auto const values = Kokkos::create_mirror_view_and_copy(
          Kokkos::HostSpace(), Kokkos::subview(property.current(), std::make_pair(std::size_t{0}, owned)));
      std::vector<storage> mine(values.data(), values.data() + owned);
      if (partial_) mine = gather_on_rank_zero(mine, counts, starts);
      auto bytes = on_rank_zero<char>(agents * sizeof(storage));
      if (rank != 0) return;
      for (std::size_t i = 0; i < ids.size(); ++i)
        std::memcpy(bytes.data() + static_cast<std::size_t>(ids[i]) * sizeof(storage), &mine[i], sizeof(storage));
      state->values.push_back({group, property.name(), io::h5::type_of<storage>(), std::move(bytes)});
    };
    model_.for_each_property([&](auto const& property) { keep("agents", property); });
    if (timers_) keep("scenario", *timers_);
    if (rank == 0) member_state_ = std::move(state);
  }

  // `count` values on rank 0 (none elsewhere): where rank 0 has no memory for them, every rank
  // fails together. Collective when the member's graph is shared.
  template <class T>
  std::vector<T> on_rank_zero(std::size_t count) {
    int rank = 0;
    MPI_Comm_rank(comm_, &rank);
    std::vector<T> values;
    std::string failure;
    try {
      values.resize(rank == 0 ? count : 0);
    } catch (std::bad_alloc const&) {
      failure = o_.checkpoint + ": rank 0 has no memory for member " + std::to_string(o_.member) + "'s " +
                std::to_string(count * sizeof(T)) + " bytes of agent states";
    }
    if (partial_) mpi::raise_if_any_failed(comm_, failure);
    require(failure.empty(), failure);
    return values;
  }

  // The ranks' `mine`, one after another on rank 0 (empty elsewhere). `counts` and `starts`, in
  // values, are made by the first call and reused. Collective.
  template <class T>
  std::vector<T> gather_on_rank_zero(std::vector<T> const& mine, std::vector<int>& counts, std::vector<int>& starts) {
    std::vector<T> all;
#if HERD_ENABLE_MPI
    int rank = 0, size = 1;
    MPI_Comm_rank(comm_, &rank);
    MPI_Comm_size(comm_, &size);
    if (counts.empty()) {
      int const count = static_cast<int>(mine.size());
      counts.assign(static_cast<std::size_t>(size), 0);
      MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_);
      starts.assign(counts.size(), 0);
      for (std::size_t r = 1; r < counts.size(); ++r) starts[r] = starts[r - 1] + counts[r - 1];
    }
    all = on_rank_zero<T>(static_cast<std::size_t>(starts.back() + counts.back()));
    MPI_Datatype value;
    MPI_Type_contiguous(static_cast<int>(sizeof(T)), MPI_BYTE, &value);
    MPI_Type_commit(&value);
    MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), value, all.data(), counts.data(), starts.data(), value, 0,
                comm_);
    MPI_Type_free(&value);
#else
    (void)counts;
    (void)starts;
    all = mine;
#endif
    return all;
  }

  // The command's models count every agent in exactly one observable: each stored row must add up
  // to the agents, or the file was damaged (and its rows would reach the resumed run's outputs).
  static void check_history(io::RunRecord const& saved, std::string const& where) {
    auto const columns = saved.observables.size();
    for (std::size_t r = 0; r * columns < saved.history.size(); ++r) {
      std::int64_t sum = 0;
      bool negative = false;
      for (std::size_t c = 0; c < columns; ++c) {
        auto const v = saved.history[r * columns + c];
        negative = negative || v < 0;
        sum += v;
      }
      require(!negative, where + " row " + std::to_string(r) + " holds a negative count (a damaged file?)");
      require(sum == static_cast<std::int64_t>(saved.agents), where + " row " + std::to_string(r) + " counts " +
                                                                  std::to_string(sum) + " agents, not " +
                                                                  std::to_string(saved.agents) + " (a damaged file?)");
    }
  }

  // The observables of the state just loaded, over all ranks, against the checkpoint's last row:
  // a damaged state is refused before any step runs. Collective.
  void check_loaded_state() {
    auto const columns = record_.observables.size();
    Kokkos::View<std::int64_t*, typename Sim::execution_space::memory_space> row("herd::resume::observed", columns);
    sim_.observe(model_, row);
    std::vector<std::int64_t> observed(columns);
    Kokkos::deep_copy(Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                          observed.data(), columns),
                      row);
    if (partial_) MPI_Allreduce(MPI_IN_PLACE, observed.data(), static_cast<int>(columns), MPI_INT64_T, MPI_SUM, comm_);
    mpi::collectively(comm_, [&] {
      require(
          std::equal(observed.begin(), observed.end(), history_prefix_.end() - static_cast<std::ptrdiff_t>(columns)),
          o_.resume + ": the state read does not give the observables recorded with it (a damaged file?)");
    });
  }

  // A timer beyond every isolation the scenario gives was not written by its run (checksums
  // rewritten after an edit).
  void check_loaded_timers() {
    auto const longest = longest_timer(sim_.execution_space_instance(), timers_->current(), sim_.num_agents());
    mpi::collectively(comm_, [&] {
      require(longest <= static_cast<std::uint32_t>(longest_isolation_),
              o_.resume + ": an agent's isolation timer holds " + std::to_string(longest) +
                  " steps, beyond the scenario's longest isolation of " + std::to_string(longest_isolation_) +
                  " (a damaged file?)");
    });
  }

  // The checkpoint's rows 0..step - 1: its last row is the resumed run's row 0.
  std::vector<std::int64_t> rows_before_resume(std::size_t columns) const {
    return {history_prefix_.begin(),
            history_prefix_.end() - static_cast<std::ptrdiff_t>(history_prefix_.empty() ? 0 : columns)};
  }

  // Rows 0..t of the device history, summed over ranks, after the checkpoint's rows.
  template <class History>
  std::vector<std::int64_t> rows(History const& history, int t) {
    auto const columns = history.extent(1);
    auto mine = host_rows(history, static_cast<std::uint32_t>(t));
    if (partial_) MPI_Allreduce(MPI_IN_PLACE, mine.data(), static_cast<int>(mine.size()), MPI_INT64_T, MPI_SUM, comm_);
    auto all = rows_before_resume(columns);
    all.insert(all.end(), mine.begin(), mine.end());
    return all;
  }

  // Rows 0..last of the scenario's counts, summed over ranks, after the checkpoint's (none without
  // a scenario). Collective where the ranks share the graph.
  std::vector<std::int64_t> event_rows(std::uint32_t last) {
    if (!keeps_events()) return {};
    auto mine = event_rows_(last);
    if (partial_) MPI_Allreduce(MPI_IN_PLACE, mine.data(), static_cast<int>(mine.size()), MPI_INT64_T, MPI_SUM, comm_);
    return whole_events(std::move(mine));
  }

  // Whether checkpoints keep the scenario's counts: those of every step since step 0 are known.
  bool keeps_events() const { return event_columns_ > 0 && earlier_events_known_; }

  // A checkpoint's counts of the agents each event changed, rows 0..step (collective).
  std::vector<std::int64_t> read_events(io::h5::File const& file, std::string const& dataset,
                                        std::uint32_t step) const {
    auto const extents = file.extents(dataset);
    require(extents.size() == 2 && extents[0] == step + std::uint64_t{1} && extents[1] == event_columns_ &&
                file.type(dataset) == io::h5::Type::i64,
            o_.resume + ": " + dataset + " does not hold " + std::to_string(step + std::uint64_t{1}) +
                " rows of int64 counts of the scenario's " + std::to_string(event_columns_) + " events");
    std::vector<std::int64_t> rows(static_cast<std::size_t>(extents[0] * extents[1]));
    file.read_rows(dataset, io::h5::Type::i64, 0, extents[0], rows.data());
    bool const valid = std::all_of(rows.begin(), rows.end(), [](std::int64_t n) { return n >= 0; }) &&
                       std::all_of(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(event_columns_),
                                   [](std::int64_t n) { return n == 0; });
    require(valid, o_.resume + ": " + dataset + " holds a negative count, or counts before step 1 (a damaged file?)");
    return rows;
  }

  // Puts the checkpoint in place, or returns it to be put in place where `in_place` is false.
  io::WrittenFile checkpoint(std::uint32_t step, std::vector<std::int64_t> const& history,
                             std::vector<std::int64_t> const& events, bool in_place = true) {
    auto r = record_;
    r.step = step;
    r.history = history;
    auto file = mpi::collectively(
        comm_, [&] { return std::optional<io::h5::File>(io::begin_file(o_.checkpoint, "herd-checkpoint", r, comm_)); });
    try {
      io::write_properties(*file, "/agents", sim_, model_);
      if (timers_ || keeps_events()) file->create_group("/scenario");
      if (timers_) io::write_properties(*file, "/scenario", sim_, TimerList{*timers_});
      if (keeps_events()) {
        require(events.size() == (step + std::size_t{1}) * event_columns_,
                o_.checkpoint + ": the scenario's counts do not cover steps 0 to " + std::to_string(step));
        file->write_all("/scenario/events", io::h5::Type::i64, {step + std::uint64_t{1}, event_columns_},
                        events.data());
      }
      if (!in_place) return io::finish_file(*file, o_.checkpoint);
      io::commit_file(*file, o_.checkpoint);
      return {};
    } catch (...) {
      io::discard_file(*file);  // a failed checkpoint leaves no file behind, and the last one whole
      throw;
    }
  }

  // The isolation timers as io::write_properties and io::read_properties take a model's.
  struct TimerList {
    Timers& timers;
    template <class F>
    void for_each_property(F&& f) const {
      f(timers);
    }
  };

  Options const& o_;
  Sim& sim_;
  Model& model_;
  MPI_Comm comm_;
  bool partial_;
  Timers* timers_ = nullptr;
  int longest_isolation_ = 0;
  std::function<void()> restore_;
  io::RunRecord record_;
  std::vector<std::int64_t> history_prefix_;  // the checkpoint's rows 0..step
  std::size_t event_columns_ = 0;             // the scenario's events, where it keeps their counts
  std::function<std::vector<std::int64_t>(std::uint32_t)> event_rows_;
  std::vector<std::int64_t> events_prefix_;  // the checkpoint's counts, rows 0..step
  bool earlier_events_known_ = true;
  std::optional<io::h5::File> output_;
  std::shared_ptr<MemberState> member_state_;
  io::h5::File const* resumed_ = nullptr;
};
#else
template <class Sim, class Model>
class RunFiles {
 public:
  template <class Comm>
  RunFiles(Options const&, Sim& sim, Model& model, std::uint64_t, std::uint64_t, Comm, bool)
      : sim_(sim), model_(model) {}
  std::uint32_t initialise() {
    model_.initialise(sim_, sim_.num_global());
    return 0;
  }
  template <class History>
  void after_step(int, History const&) {}
  std::vector<std::int64_t> finish(std::vector<std::int64_t> const& history, FinishedOutputs&) { return history; }
  template <class Timers>
  void keep_isolation(Timers&, int, std::function<void()> const&) {}
  template <class Rows>
  void keep_events(std::size_t, Rows const&) {}
  std::vector<std::int64_t> whole_events(std::vector<std::int64_t> launch) const { return launch; }
  bool knows_earlier_events() const { return true; }

 private:
  Sim& sim_;
  Model& model_;
};
#endif

}  // namespace herd::cli
