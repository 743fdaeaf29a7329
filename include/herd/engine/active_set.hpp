#pragma once

// Active-set stepping: a step that visits only the agents that can change.
//
// In an epidemic most agents do nothing in most steps: susceptible agents with no infectious
// neighbour, recovered agents. A model that says, per agent, whether it may change on its own,
// whether neighbours that read it may change because of it, and whether it may change when such a
// neighbour is near (Model::activity) lets the engine find this step's active agents by pushing
// from the spreading agents along the reversed edges, compacting the marks with a scan, and stepping
// only the list. The trajectory is bitwise the one of the full pull step: an agent left out would
// have kept its values, and random draws are addressed by (agent, step, phase, draw), not by the
// order in which agents are visited.
//
// The list's length is read on the host (8 bytes per step) to choose the launch: push (active
// list) below a threshold fraction of the agents, the plain pull step above it, as
// direction-optimising BFS switches between top-down and bottom-up.

#include <herd/core/types.hpp>
#include <herd/graph/csr_graph.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace herd {

/// What an agent's state allows this step, as Model::activity(i) reports it (bits).
namespace activity {
inline constexpr std::uint8_t none = 0;
inline constexpr std::uint8_t changes = 1;   ///< may change whatever its neighbours do (timers, draws)
inline constexpr std::uint8_t spreads = 2;   ///< neighbours that read it may change because of it
inline constexpr std::uint8_t receives = 4;  ///< may change if a neighbour spreads
}  // namespace activity

/// How steps choose their agents: all of them (pull), the active ones (active), or per step from
/// the active fraction (automatic).
enum class Stepping { pull, active, automatic };

namespace Details {
template <class Model, class = void>
struct declares_activity : std::false_type {};
template <class Model>
struct declares_activity<Model, std::void_t<decltype(std::declval<Model const&>().activity(agent_index{}))>>
    : std::true_type {};
}  // namespace Details

/// Whether a model can be stepped on its active agents only.
template <class Model>
inline constexpr bool declares_activity_v = Details::declares_activity<Model>::value;

/// The active agents of one step, found on the device. `push_graph` lists for each agent the agents
/// that read it: the graph itself when it is symmetric, else its transpose (see transpose()).
template <class ExecutionSpace>
class ActiveSet {
 public:
  using memory_space = typename ExecutionSpace::memory_space;

  ActiveSet() = default;
  template <class WeightStorage>
  ActiveSet(ExecutionSpace const& exec, CsrGraph<memory_space, WeightStorage> const& push_graph, agent_index stepped)
      : exec_(exec),
        offsets_(push_graph.row_offsets),
        readers_(push_graph.neighbours),
        stepped_(stepped),
        marks_("herd::active::marks", push_graph.num_agents()),
        list_(Kokkos::ViewAllocateWithoutInitializing("herd::active::list"), stepped + 1),
        count_("herd::active::count") {}

  /// An estimate of the pushes find() would make: the agents that change on their own plus the
  /// spreading agents times the mean number of agents that read one. It reads one byte per agent
  /// (a full bound would also read each spreading agent's row offsets) and tells whether pushing is
  /// worth it before any push is made. Waits for the device.
  template <class Model>
  double push_estimate(Model const& model) const {
    agent_index const stepped = stepped_;
    // Both counts in one integer: spreading agents in the high 32 bits, changing ones in the low.
    std::uint64_t packed = 0;
    Kokkos::parallel_reduce(
        "herd::active::estimate", Kokkos::RangePolicy<ExecutionSpace>(exec_, 0, marks_.extent(0)),
        KOKKOS_LAMBDA(agent_index i, std::uint64_t & sum) {
          auto const a = model.activity(i);
          auto const spreads = static_cast<std::uint64_t>((a & activity::spreads) != 0);
          auto const changes = static_cast<std::uint64_t>((a & activity::changes) != 0 && i < stepped);
          sum += (spreads << 32) + changes;
        },
        packed);
    double const mean_readers = marks_.extent(0) > 0 ? static_cast<double>(readers_.extent(0)) / marks_.extent(0) : 0.0;
    return static_cast<double>(packed & 0xffffffffu) + static_cast<double>(packed >> 32) * mean_readers;
  }

  /// Marks and lists the agents among the first `stepped` that may change this step; returns how
  /// many (one 4-byte read on the host).
  template <class Model>
  agent_index find(Model const& model) {
    auto const marks = marks_;
    auto const offsets = offsets_;
    auto const readers = readers_;
    agent_index const stepped = stepped_;
    // Every writer of a mark stores the same 1, so the races between pushes are benign.
    Kokkos::parallel_for(
        "herd::active::mark", Kokkos::RangePolicy<ExecutionSpace>(exec_, 0, marks.extent(0)),
        KOKKOS_LAMBDA(agent_index i) {
          auto const a = model.activity(i);
          if (i < stepped && (a & activity::changes)) marks(i) = 1;
          if (a & activity::spreads) {
            for (edge_offset e = offsets(i); e < offsets(i + 1); ++e) {
              agent_index const k = readers(e);
              // Reading first spares the cache line when another push marked k already.
              if (k < stepped && marks(k) == 0 && (model.activity(k) & activity::receives)) marks(k) = 1;
            }
          }
        });
    auto const list = list_;
    auto const count = count_;
    Kokkos::parallel_scan(
        "herd::active::compact", Kokkos::RangePolicy<ExecutionSpace>(exec_, 0, stepped + 1),
        KOKKOS_LAMBDA(agent_index i, agent_index & partial, bool final) {
          bool const marked = i < stepped && marks(i) != 0;
          if (final && marked) list(partial) = i;
          if (final && i == stepped) count() = partial;
          if (marked) ++partial;
        });
    Kokkos::deep_copy(exec_, found_, count_);
    exec_.fence();
    return found_;
  }

  /// Clears the marks of the listed agents, ready for the next find() (touches only those).
  void clear() {
    auto const marks = marks_;
    auto const list = list_;
    Kokkos::parallel_for(
        "herd::active::clear", Kokkos::RangePolicy<ExecutionSpace>(exec_, 0, found_),
        KOKKOS_LAMBDA(agent_index k) { marks(list(k)) = 0; });
  }

  Kokkos::View<agent_index*, memory_space> const& list() const { return list_; }
  agent_index count() const { return found_; }

 private:
  ExecutionSpace exec_;
  Kokkos::View<edge_offset*, memory_space> offsets_;
  Kokkos::View<agent_index*, memory_space> readers_;
  agent_index stepped_ = 0;
  Kokkos::View<std::uint8_t*, memory_space> marks_;
  Kokkos::View<agent_index*, memory_space> list_;
  Kokkos::View<agent_index, memory_space> count_;
  agent_index found_ = 0;
};

/// How many steps went which way, and how many agents the active steps visited.
struct SteppingStats {
  std::int64_t steps = 0;         ///< steps of a model that declares activity
  std::int64_t active_steps = 0;  ///< of which stepped on the active list only
  double active_share_sum = 0.0;  ///< sum over all steps of agents stepped / agents owned
  double mean_active_share() const { return steps ? active_share_sum / static_cast<double>(steps) : 1.0; }
};

/// The transpose of a graph's structure (weights dropped): row j lists the agents whose rows list
/// j, in no particular order. For pushing from agents to the agents that read them on a directed
/// graph.
template <class ExecutionSpace, class WeightStorage>
CsrGraph<typename ExecutionSpace::memory_space> transpose(
    ExecutionSpace const& exec, CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> const& graph) {
  using memory_space = typename ExecutionSpace::memory_space;
  agent_index const n = graph.num_agents();
  CsrGraph<memory_space> t;
  t.row_offsets = Kokkos::View<edge_offset*, memory_space>("herd::transpose::offsets", n + 1);
  t.neighbours = Kokkos::View<agent_index*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::transpose::neighbours"), graph.num_edges());
  auto const offsets = graph.row_offsets;
  auto const neighbours = graph.neighbours;
  auto const counts = t.row_offsets;
  Kokkos::parallel_for(
      "herd::transpose::count", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, graph.num_edges()),
      KOKKOS_LAMBDA(edge_offset e) { Kokkos::atomic_increment(&counts(neighbours(e) + 1)); });
  Kokkos::parallel_scan(
      "herd::transpose::scan", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n + 1),
      KOKKOS_LAMBDA(agent_index i, edge_offset & partial, bool final) {
        partial += counts(i);
        if (final) counts(i) = partial;
      });
  Kokkos::View<edge_offset*, memory_space> cursor(Kokkos::ViewAllocateWithoutInitializing("herd::transpose::cursor"),
                                                  n);
  Kokkos::deep_copy(exec, cursor, Kokkos::subview(t.row_offsets, std::make_pair(agent_index{0}, n)));
  auto const out = t.neighbours;
  Kokkos::parallel_for(
      "herd::transpose::fill", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n), KOKKOS_LAMBDA(agent_index i) {
        for (edge_offset e = offsets(i); e < offsets(i + 1); ++e)
          out(Kokkos::atomic_fetch_add(&cursor(neighbours(e)), edge_offset{1})) = i;
      });
  return t;
}

}  // namespace herd
