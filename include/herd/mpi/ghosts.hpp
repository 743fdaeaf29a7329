#pragma once

// Where a rank's agents live in a distributed simulation: its share of the graph (owned agents,
// then ghost copies of the agents of other ranks that its agents read), and the halo that keeps
// the ghosts current. herd::Simulation steps a rank's owned agents through it; models run
// unchanged.
//
// After each phase the rank sends what the phase wrote of properties that neighbours read, and
// the next phase completes the exchange before it reads ghosts (its interior agents read none
// and step before). With active-set stepping the push graph is the transpose of the rank's graph
// with a row per ghost, so that ghosts that spread mark the owned agents that read them; the
// halo records which ghosts its sparse messages changed, and a listed phase sends the changes
// among its listed agents only, found through each agent's send slots.

#include <herd/agents/property.hpp>
#include <herd/engine/telemetry.hpp>
#include <herd/mpi/collective.hpp>
#include <herd/mpi/halo.hpp>
#include <herd/mpi/local_graph.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace herd::mpi {

/// How a rank exchanges its ghosts.
struct DistributedOptions {
  bool overlap = true;          ///< step interior agents while the halo is in flight
  int exchange_every = 1;       ///< exchange ghosts after every k-th step only (k > 1: stale ghosts)
  bool device_buffers = false;  ///< GPU-aware MPI: hand device buffers to MPI instead of staging
  /// Stage through host buffers even where MPI reads the Views directly (host builds, GPU-aware
  /// MPI): the same bits, slower; it lets every build test both halo paths.
  bool always_stage = false;
  /// Send a neighbour only the values that changed (with their slots) when that is shorter than all
  /// of them: few bytes while few agents change. Applies when exchanging every step.
  bool sparse_halo = true;
};

template <class ExecutionSpace, class WeightStorage = float>
class Ghosts {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using graph_type = CsrGraph<memory_space, WeightStorage>;
  using local_graph_type = LocalGraph<memory_space, WeightStorage>;
  static constexpr bool has_ghosts = true;

  /// `local` is this rank's share (extract_local_graph, distribute) of a partition whose parts
  /// are the ranks of `comm`. Collective: builds the halo plan by one handshake.
  Ghosts(ExecutionSpace const& exec, MPI_Comm comm, local_graph_type local, DistributedOptions const& options = {})
      : exec_(exec), local_(std::move(local)), options_(options) {
    raise_if_any_failed(
        comm, options.exchange_every >= 1 ? std::string() : "the halo exchange interval must be at least 1 step");
    // Ranks that exchange on other steps, or in other forms, would wait for each other's messages.
    require_same(comm, "mpi::Ghosts",
                 {{"agent counts", static_cast<std::int64_t>(local_.global_agents)},
                  {"halo exchange intervals (exchange_every)", options.exchange_every},
                  {"sparse_halo settings", options.sparse_halo ? 1 : 0}});
    halo_ = std::make_shared<Halo<ExecutionSpace>>(exec_, comm, make_halo_plan(exec_, comm, local_),
                                                   options.device_buffers, options.always_stage);
  }

  graph_type const& graph() const { return local_.graph; }
  /// Steps read `graph` from now on (a temporal network's next snapshot): rows of the same owned
  /// agents, whose entries name no agent beyond this rank's owned agents and ghosts. A shared
  /// transpose stays while only the layers' factors change, and is dropped with other entries.
  void use_graph(graph_type const& graph) {
    bool const same_rows = graph.neighbours.data() == local_.graph.neighbours.data() &&
                           graph.weights.data() == local_.graph.weights.data();
    bool const same_entries = same_rows && graph.layers.data() == local_.graph.layers.data();
    // Other rows (a snapshot's) are not known to be mirrored.
    if (!same_rows) local_.mirrored = false;
    local_.graph = graph;
    if (!same_entries) transpose_.reset();
  }
  /// Gives the transpose of graph() over every stored agent (herd::transpose(exec, graph(),
  /// stored())), made once for several simulations of the same share, such as an ensemble's
  /// members: a simulation's listed steps then push through it rather than make their own.
  void share_transpose(graph_type transposed) { transpose_ = std::move(transposed); }
  /// The transpose share_transpose gave, while the steps read the graph it was made of; else null.
  graph_type const* shared_transpose() const { return transpose_ ? &*transpose_ : nullptr; }
  /// The transpose of graph() over every stored agent (transpose_share): row a lists the rows
  /// that name agent a.
  graph_type transposed(ExecutionSpace const& exec) const { return transpose_share(exec, local_); }
  Kokkos::View<global_id*, memory_space> const& global_ids() const { return local_.ids; }
  /// Owned agents, then ghosts.
  agent_index stored() const { return local_.local(); }
  agent_index owned() const { return local_.owned; }
  /// Owned agents that read no ghosts: the first ones.
  agent_index interior() const { return local_.interior; }
  global_id global() const { return local_.global_agents; }
  /// A rank pushes through a transpose that has rows for its ghosts, which its graph lacks.
  bool pushes_along_rows() const { return false; }
  bool overlaps() const { return options_.overlap; }

  local_graph_type const& local_graph() const { return local_; }
  Halo<ExecutionSpace> const& halo() const { return *halo_; }
  MPI_Comm communicator() const { return halo_->communicator(); }
  /// require_same over the ranks of this simulation. Collective.
  void agree(std::string const& where, std::vector<std::pair<std::string, std::int64_t>> const& values) const {
    require_same(communicator(), where, values);
  }
  /// mpi::raise_if_any_failed over the ranks of this simulation. Collective.
  void require_everywhere(std::string const& failure) const { raise_if_any_failed(communicator(), failure); }
  DistributedOptions const& options() const { return options_; }

  /// Completes the exchange in flight, if any. Collective with the neighbours.
  void wait() { halo_->finish(); }
  /// The ghosts that changed since the last report (see Halo::ghost_changes).
  auto ghost_changes() { return halo_->ghost_changes(); }
  void record_ghost_changes(bool on) { halo_->record_ghost_changes(on); }

  /// Sizes the halo's buffers for every property of `model` that neighbours read, so that the
  /// step loop allocates nothing. A model without for_each_property gets them at its first
  /// exchange instead.
  template <class Model>
  void prepare(Model const& model) {
    if constexpr (lists_properties_v<Model>) {
      std::vector<std::size_t> value_bytes;
      model.for_each_property([&](auto const& property) {
        using storage_type = typename std::decay_t<decltype(property)>::storage_type;
        if (property.visibility() == Visibility::neighbours) value_bytes.push_back(sizeof(storage_type));
      });
      halo_->reserve(value_bytes);
    } else {
      (void)model;
    }
  }

  /// After a phase of step `step` wrote `written` (swapped, unless the phase ran on the first
  /// `listed` agents of `list` only): sends what neighbours read of it, or, between exchanges,
  /// keeps the ghosts' last values current.
  template <class List, class... Written>
  void after_phase(std::uint32_t step, List const& list, agent_index listed, Written const&... written) {
    if ((step + 1) % static_cast<std::uint32_t>(options_.exchange_every) != 0) {
      if (listed < 0) (keep_ghosts(written), ...);
      return;
    }
    typename Halo<ExecutionSpace>::stepped_type stepped;
    if (listed >= 0) stepped = {list, listed};
    // After the swap, the other buffer holds the values of the last exchange (owned agents' values
    // sent, ghosts' received): what a sparse message is relative to. After a listed phase it holds
    // them for the listed agents only.
    bool const sparse = options_.sparse_halo && options_.exchange_every == 1;
    visible_fields(
        sparse,
        [&](auto const&... fields) {
          if constexpr (sizeof...(fields) > 0) halo_->start(stepped, fields...);
        },
        std::tuple<>(), written...);
  }

  /// Makes the ghost copies of `properties` current. Collective.
  template <class... Properties>
  void update_ghosts(Properties&... properties) {
    halo_->finish();
    halo_->exchange(halo_field(properties)...);
  }

  /// Completes the last exchange and sums the history of observables over ranks, in place: every
  /// rank ends with the global counts. Integer sums, so they do not depend on the rank count.
  template <class History>
  void finish(ExecutionSpace const& exec, History const& history) {
    halo_->finish();
    exec.fence();
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), history);
    MPI_Allreduce(MPI_IN_PLACE, host.data(), static_cast<int>(host.size()), MPI_INT64_T, MPI_SUM, communicator());
    Kokkos::deep_copy(history, host);
  }

  /// Seconds the halo has spent so far, and what it sent (for telemetry).
  herd::Details::HaloClock clock() const {
    auto const& t = halo_->times();
    return {t.pack, t.wait, t.unpack, static_cast<std::int64_t>(t.messages_sent),
            static_cast<std::int64_t>(t.bytes_sent)};
  }

 private:
  // Calls start(fields...) with the halo fields of the properties that neighbours read, in order:
  // which those are is known at run time only.
  template <class Start, class... Chosen>
  static void visible_fields(bool /*sparse*/, Start const& start, std::tuple<Chosen...> const& chosen) {
    std::apply(start, chosen);
  }
  template <class Start, class... Chosen, class Property, class... Rest>
  static void visible_fields(bool sparse, Start const& start, std::tuple<Chosen...> const& chosen,
                             Property const& property, Rest const&... rest) {
    if (property.visibility() != Visibility::neighbours) return visible_fields(sparse, start, chosen, rest...);
    auto const field = sparse ? sparse_halo_field(property) : halo_field(property);
    visible_fields(sparse, start, std::tuple_cat(chosen, std::make_tuple(field)), rest...);
  }

  // Without an exchange, the ghost values of the buffer that just became current are two phases
  // old; the previous buffer holds the last ones received.
  template <class Property>
  void keep_ghosts(Property const& property) const {
    if (property.visibility() != Visibility::neighbours) return;
    auto const ghosts = std::make_pair(local_.owned, local_.local());
    Kokkos::deep_copy(exec_, Kokkos::subview(property.current(), ghosts), Kokkos::subview(property.next(), ghosts));
  }

  ExecutionSpace exec_;
  local_graph_type local_;
  std::optional<graph_type> transpose_;  ///< see share_transpose
  DistributedOptions options_;
  std::shared_ptr<Halo<ExecutionSpace>> halo_;
};

}  // namespace herd::mpi
